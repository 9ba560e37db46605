//! The dashboard on a server where a broker keeps a clock of its own: a tender shows its own
//! time, on its owner's clock, and the header names that clock its buttons move; anyone may
//! move that clock on a server its runner owns (`--testing`), and a broker signed in here may
//! move no clock but its own.

use crate::webdriver::{Driver, Session};
use crate::{browser, tender_body, testing_server, wait_for_text};
use serde_json::{Value, json};
use std::time::Duration;
use test_support::ReadJson;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tender_on_its_owner_s_clock_is_moved_only_by_whom_that_clock_allows() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let (server, base) = testing_server().await;
    let client = test_support::client();
    // broker's own clock, an hour ahead of the server's; its tender lives on it.
    let moved: Value = client
        .post(format!("{base}/testing/clock"))
        .basic_auth("broker", Some(""))
        .json(&json!({"data": {"advance": "PT1H"}}))
        .read_json()
        .await;
    assert_eq!(moved["data"]["own"], true, "{moved}");
    let created: Value = client
        .post(format!("{base}/api/2.3/tenders"))
        .basic_auth("broker", Some(""))
        .json(&tender_body())
        .read_json()
        .await;
    let id = created["data"]["id"]
        .as_str()
        .expect("a tender")
        .to_string();
    let enquiries_end = created["data"]["enquiryPeriod"]["endDate"]
        .as_str()
        .expect("a date")
        .to_string();

    let driver = Driver::start(&chromedriver).await;
    let session = Session::open(&driver, &chromium, 1280, 1000).await;
    session.goto(&format!("{base}/#/tenders/{id}")).await;
    let own = session
        .wait_for("#tender-clock", Duration::from_secs(15))
        .await;
    assert!(
        session.text(&own).await.contains("on broker's own clock"),
        "{}",
        session.text(&own).await
    );
    // Anonymously, on --testing: the tender's date moves broker's clock, not the server's.
    let jump = session
        .wait_for(
            &format!("button.jump[data-when='{enquiries_end}']"),
            Duration::from_secs(15),
        )
        .await;
    session.click(&jump).await;
    let status = wait_for_text(&session, "#tender-status", "active.tendering").await;
    assert_eq!(status, "active.tendering");

    // The header shows the tender's clock, broker's, and its "+1 hour" moves that one.
    let label = wait_for_text(&session, "#clock-label", "broker's clock").await;
    assert_eq!(label, "broker's clock");
    let clock_of = |who: Option<&'static str>| {
        let client = client.clone();
        let base = base.clone();
        async move {
            let mut path = format!("{base}/testing/clock");
            if let Some(who) = who {
                path = format!("{path}?broker={who}");
            }
            let answer: Value = client.get(path).read_json().await;
            answer["data"]["now"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        }
    };
    let before = clock_of(Some("broker")).await;
    let now = session.wait_for("#clock-now", Duration::from_secs(5)).await;
    let shown = session.text(&now).await;
    assert!(
        shown.starts_with(&crate::short(&before)),
        "{shown} for {before}"
    );
    let hour = session
        .wait_for("#advance-hour", Duration::from_secs(5))
        .await;
    session.click(&hour).await;
    let started = std::time::Instant::now();
    let after = loop {
        let now = clock_of(Some("broker")).await;
        if now != before || started.elapsed() > Duration::from_secs(15) {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let moved = time::OffsetDateTime::parse(&after, &time::format_description::well_known::Rfc3339)
        .expect("a moment")
        - time::OffsetDateTime::parse(&before, &time::format_description::well_known::Rfc3339)
            .expect("a moment");
    assert_eq!(moved, time::Duration::hours(1), "{before} → {after}");
    let server_clock = clock_of(None).await;
    assert!(
        server_clock.starts_with("2026-11-23T09:00:00"),
        "the server's clock stays: {server_clock}"
    );

    // Signed in as broker1, the tender's clock is not the viewer's to move.
    let name = session
        .wait_for("#viewer-name", Duration::from_secs(5))
        .await;
    session.type_text(&name, "broker1").await;
    let sign_in = session.wait_for("#sign-in", Duration::from_secs(5)).await;
    session.click(&sign_in).await;
    let started = std::time::Instant::now();
    let note = loop {
        let source = session.source().await;
        if source.contains("Read-only: the tender lives on broker's clock")
            || started.elapsed() > Duration::from_secs(15)
        {
            break source;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        note.contains("Read-only: the tender lives on broker's clock")
            && !note.contains("class=\"jump\""),
        "{note}"
    );
    let mine = session
        .wait_for("#viewer-clock", Duration::from_secs(5))
        .await;
    assert!(
        session.text(&mine).await.starts_with("Your clock (broker1"),
        "{}",
        session.text(&mine).await
    );
    // The header still shows broker's clock, which is not broker1's to move.
    assert_eq!(
        wait_for_text(&session, "#clock-label", "broker's clock").await,
        "broker's clock"
    );
    assert_eq!(
        session
            .run("return document.getElementById('clock-buttons').hidden;")
            .await,
        true,
        "no buttons for a clock the viewer may not move"
    );
    assert_eq!(
        wait_for_text(
            &session,
            "#clock-note",
            "read-only: sign in as broker to move it"
        )
        .await,
        "read-only: sign in as broker to move it"
    );
    // Back on the listing, the header shows broker1's own clock, its buttons move it.
    session.goto(&format!("{base}/#/")).await;
    assert_eq!(
        wait_for_text(&session, "#clock-label", "Your clock (broker1)").await,
        "Your clock (broker1)"
    );
    session.close().await;
    drop(driver);
    server.stop().await;
}
