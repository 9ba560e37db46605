//! The real-time path end to end, in short: the harness with an accelerator against the built-in
//! server in sandbox mode (acceleration fields; the broker's own clock left alone with
//! `--keep-clock`) certifies a fast-forwarded
//! auction, an award's stand-still and completion, and claims settling after their stand-still,
//! all by waiting on the dates the server announces, with nothing skipped. Live auctions keep
//! upstream's real lengths (21 minutes for two bidders), so `@live-auction` is left to runs
//! with a clock control API. CI's run of the whole suite this way is in `.ci/run`.
use std::time::Duration;

use tender_certify::LiveOutput;
use tender_registry::Settings;
use test_support::{assert_ran, not_passed, serve};

/// A week of server durations in five seconds, so the run's tenders live a few seconds: long
/// enough for a scenario's bidders to register before tendering ends on a loaded machine (at
/// two seconds a week, two busy cores let the period end first).
const ACCELERATOR: u32 = 7 * 24 * 3600 / 5;

#[tokio::test(flavor = "multi_thread")]
async fn an_accelerated_sandbox_is_certified_in_real_time_with_nothing_skipped() {
    let server = serve(Settings {
        sandbox: true,
        ..Default::default()
    })
    .await;
    let mut harness = tender_certify::Settings::new(server.base_url());
    harness.progress = LiveOutput::Off;
    harness.accelerator = Some(ACCELERATOR);
    // A sandbox gives each broker a clock to move; the real-time path leaves it alone.
    harness.keep_clock = true;
    harness.fail_on_skip = true;
    harness.period = Duration::from_secs(2);
    harness.wait_budget = Duration::from_secs(40);
    harness.tags = Some(
        "((@auction and @upstream) or @stand-still or (@awarding and @upstream) or (@claims and @clock)) and not @live-auction"
            .into(),
    );
    let report = tender_certify::certify(&harness, tender_certify::CucumberOpts::default())
        .await
        .unwrap();
    server.stop().await;

    assert!(
        report.acceleration.contains("taken and applied"),
        "{}",
        report.acceleration
    );
    let unchecked = not_passed(&report);
    assert!(unchecked.is_empty(), "{unchecked:#?}");
    assert_ran(
        &report,
        &[
            (
                "auction.feature",
                "The auction ends with a pending award for the lowest bid",
            ),
            (
                "award_and_contract.feature",
                "The owner sets the signature date after the stand-still period",
            ),
            (
                "award_and_contract.feature",
                "Signing the contract after the stand-still completes the tender",
            ),
            (
                "claims.feature",
                "A declined claim the claimant is not satisfied with becomes declined after the stand-still",
            ),
        ],
    );
    assert!(report.certified(), "{}", report.terminal_summary());
}

/// A target that refuses the sandbox fields (the server without `--sandbox` answers 422) is
/// told apart by the probe tender: the run says why and creates its tenders without them.
#[tokio::test(flavor = "multi_thread")]
async fn a_target_that_refuses_the_fields_is_certified_without_them() {
    let server = serve(Settings::default()).await;
    let mut harness = tender_certify::Settings::new(server.base_url());
    harness.progress = LiveOutput::Off;
    harness.accelerator = Some(ACCELERATOR);
    harness.tags = Some("@conventions and @ep-create and @spec".into());
    let report = tender_certify::certify(&harness, tender_certify::CucumberOpts::default())
        .await
        .unwrap();
    server.stop().await;

    assert!(
        report.acceleration.contains("not used") && report.acceleration.contains("Rogue field"),
        "{}",
        report.acceleration
    );
    assert!(!report.scenarios.is_empty());
    assert!(report.certified(), "{}", report.terminal_summary());
}
