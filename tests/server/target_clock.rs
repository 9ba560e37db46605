//! What a certification does to the target's clock. With the clock frozen (`--clock-start`) the
//! reference server is certified in full: a date refreshed at a moment the clock stood still is
//! refreshed, and the certificate names the frozen clock, left where it stood, and the test
//! clocks the scenarios that move time ran on. With
//! `--keep-clock` a clock-capable server is certified in real time and its clock is not moved.
use std::time::{Duration, Instant};

use tender_certify::{outcome::Verdict, target::ClockMode};
use test_support::{assert_ran, certify, not_passed, serve_testing};
use time::macros::datetime;

const FRIDAY_AFTERNOON: time::OffsetDateTime = datetime!(2026-11-27 16:30 +2);

async fn clock_of(base_url: &str) -> serde_json::Value {
    // reqwest is built with rustls and no provider of its own: the server's, ring.
    test_support::install_crypto();
    reqwest::get(format!("{base_url}/testing/clock"))
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap()["data"]
        .clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_whose_clock_stands_still_is_certified_in_full() {
    let (server, base_url) = serve_testing(Some(FRIDAY_AFTERNOON)).await;
    let (report, markdown) = certify(&base_url, "@spec", |_| {}).await;
    server.stop().await;

    assert!(
        not_passed(&report).is_empty(),
        "{}",
        report.terminal_summary()
    );
    assert!(report.certified(), "{}", report.terminal_summary());
    assert_ran(
        &report,
        &[
            (
                "two_phase_creation.feature",
                "Publishing a draft refreshes its date",
            ),
            (
                "tender_documents.feature",
                "A new version keeps the id and datePublished and refreshes dateModified",
            ),
        ],
    );

    // The scenarios that move time ran on test clocks of their own: the broker's stood still.
    let clock = &report.target_clock;
    let start = clock.start.expect("the clock was read at the start");
    let end = clock.end.expect("the clock was read at the end");
    assert_eq!(start.now, FRIDAY_AFTERNOON);
    assert!(
        start.frozen && end.frozen && end.now == start.now,
        "{clock:?}"
    );
    let test_clocks = clock.test_clocks.as_ref().expect("test clocks were used");
    assert!(
        !test_clocks.made.is_empty() && test_clocks.moves > 0,
        "{clock:?}"
    );
    assert!(clock.still_stamps >= 2, "{clock:?}");
    assert!(
        markdown.contains(
            "| Target clock | not moved by the run: 2026-11-27T16:30:00.000000+02:00 (frozen)"
        ) && markdown.contains("| Test clocks | ")
            && markdown.contains(&format!("named `tender-certify {} 1`", report.seed)),
        "{markdown}"
    );
    assert!(
        markdown.contains("were taken as refreshed, the clock standing still at that moment"),
        "{markdown}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn keep_clock_certifies_a_clock_capable_server_in_real_time_without_moving_its_clock() {
    let (server, base_url) = serve_testing(None).await;
    let before = clock_of(&base_url).await;
    let started = Instant::now();
    let (report, markdown) = certify(&base_url, "@scheduler and @spec", |s| {
        s.keep_clock = true;
        s.period = Duration::from_secs(2);
        s.wait_budget = Duration::from_secs(10);
    })
    .await;
    let elapsed = started.elapsed();
    let after = clock_of(&base_url).await;
    server.stop().await;

    assert_eq!(report.clock, ClockMode::RealTime);
    assert!(!report.scenarios.is_empty());
    assert!(
        report
            .scenarios
            .iter()
            .all(|s| s.verdict == Verdict::Passed),
        "{}",
        report.terminal_summary()
    );
    assert!(report.certified(), "{}", report.terminal_summary());
    assert!(report.target_clock.kept && report.target_clock.moves == 0);
    let at = |v: &serde_json::Value| {
        tender_certify::timestamps::parse(v["now"].as_str().unwrap()).unwrap()
    };
    let moved = at(&after) - at(&before);
    assert!(
        moved <= time::Duration::try_from(elapsed).unwrap() + time::Duration::seconds(1),
        "the clock ran {moved} while the run took {elapsed:?}"
    );
    assert!(
        markdown.contains("| Time moved by | real time (`--keep-clock`)")
            && markdown.contains("| Target clock | not moved (`--keep-clock`): "),
        "{markdown}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn keep_clock_leaves_a_frozen_clock_frozen_and_skips_what_must_wait_for_it() {
    let (server, base_url) = serve_testing(Some(FRIDAY_AFTERNOON)).await;
    let (report, _) = certify(&base_url, "@scheduler and @spec", |s| {
        s.keep_clock = true;
    })
    .await;
    let after = clock_of(&base_url).await;
    server.stop().await;

    assert_eq!(after["now"], "2026-11-27T16:30:00.000000+02:00");
    assert_eq!(after["frozen"], true);
    let skipped: Vec<_> = report
        .scenarios
        .iter()
        .filter(|s| s.verdict == Verdict::Skipped)
        .collect();
    assert!(!skipped.is_empty(), "{}", report.terminal_summary());
    assert!(
        skipped.iter().all(|s| s
            .skip_reason
            .as_deref()
            .is_some_and(|r| r.contains("the target's clock is frozen at 2026-11-27T16:30:00"))),
        "{}",
        report.terminal_summary()
    );
    assert!(!report.certified());
}

/// A broker that holds as many test clocks as the target lets it (100 here) is certified
/// without moving its own clock: the run says so, and waits in real time instead.
#[tokio::test(flavor = "multi_thread")]
async fn a_broker_holding_its_most_test_clocks_is_never_moved_silently() {
    let (server, base_url) = serve_testing(None).await;
    let client = test_support::client();
    for i in 0..100 {
        let made = client
            .post(format!("{base_url}/testing/clocks"))
            .basic_auth("broker", Some(""))
            .json(&serde_json::json!({"data": {"name": format!("another job {i}")}}))
            .send()
            .await
            .expect("the server answers");
        assert_eq!(made.status(), 201, "clock {i}");
    }
    let own = |clock: serde_json::Value| clock["now"].clone();
    let read_own = || {
        client
            .get(format!("{base_url}/testing/clock"))
            .basic_auth("broker", Some(""))
            .send()
    };
    let before = own(read_own()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap()["data"]
        .clone());
    let (report, markdown) = certify(&base_url, "@scheduler and @spec", |s| {
        s.wait_budget = Duration::from_secs(1);
    })
    .await;
    let after = read_own()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap()["data"]
        .clone();
    server.stop().await;
    assert_eq!(
        report.clock,
        ClockMode::RealTime,
        "{}",
        report.terminal_summary()
    );
    assert_eq!(report.target_clock.moves, 0);
    assert!(
        after["own"] != true || own(after.clone()) == before,
        "the broker's own clock did not move: {after}"
    );
    let story = report
        .test_clocks_story(false)
        .expect("the certificate names them");
    assert!(
        story.contains("none could be had") && story.contains("`--move-own-clock` would move it"),
        "{story}"
    );
    assert!(
        markdown.contains("| Test clocks | offered, but none could be had"),
        "{markdown}"
    );
}
