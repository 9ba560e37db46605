//! The dashboard on a server where a broker keeps a clock of its own: a tender shows its own
//! time, on its owner's clock, and the header names that clock its buttons move; anyone may
//! move that clock on a server its runner owns (`--testing`), and a broker signed in here may
//! move no clock but its own.

use crate::{Dashboard, assert_clock_read_only, assert_shows, moment, sign_in, string};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tender_on_its_owner_s_clock_is_moved_only_by_whom_that_clock_allows() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let base = &dashboard.base;
    // broker's own clock, an hour ahead of the server's; its tender lives on it.
    let moved = dashboard
        .post_as_broker("/testing/clock", json!({"advance": "PT1H"}))
        .await;
    assert_eq!(moved["data"]["own"], true, "{moved}");
    let created = dashboard.create_tender(None).await;
    let id = string(&created["data"]["id"], "a tender");
    let enquiries_end = string(&created["data"]["enquiryPeriod"]["endDate"], "a date");

    let (driver, session) = dashboard
        .open(&format!("{base}/#/tenders/{id}"), 1280, 1000)
        .await;
    let own = session.text_of("#tender-clock").await;
    assert!(own.contains("on broker's own clock"), "{own}");
    // Anonymously, on --testing: the tender's date moves broker's clock, not the server's.
    session
        .click_on(&format!("button.jump[data-when='{enquiries_end}']"))
        .await;
    assert_shows(&session, "#tender-status", "active.tendering").await;

    // The header shows the tender's clock, broker's, and its "+1 hour" moves that one.
    assert_shows(&session, "#clock-label", "broker's clock").await;
    let brokers_clock = "/testing/clock?broker=broker";
    let before = dashboard.clock_now(brokers_clock, None).await;
    let shown = session.text_of("#clock-now").await;
    assert!(
        shown.starts_with(&crate::short(&before)),
        "{shown} for {before}"
    );
    session.click_on("#advance-hour").await;
    let after = dashboard.clock_moved_from(brokers_clock, &before).await;
    assert_eq!(
        moment(&after) - moment(&before),
        time::Duration::hours(1),
        "{before} → {after}"
    );
    let server_clock = dashboard.clock_now("/testing/clock", None).await;
    assert!(
        server_clock.starts_with("2026-11-23T09:00:00"),
        "the server's clock stays: {server_clock}"
    );

    // Signed in as broker1, the tender's clock is not the viewer's to move.
    sign_in(&session, "broker1").await;
    let started = std::time::Instant::now();
    let note = loop {
        let source = session.source().await;
        if source.contains("Read-only: the tender lives on broker's clock")
            || started.elapsed() > std::time::Duration::from_secs(15)
        {
            break source;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert!(
        note.contains("Read-only: the tender lives on broker's clock")
            && !note.contains("class=\"jump\""),
        "{note}"
    );
    let mine = session.text_of("#viewer-clock").await;
    assert!(mine.starts_with("Your clock (broker1"), "{mine}");
    // The header still shows broker's clock, which is not broker1's to move.
    assert_clock_read_only(&session, "broker's clock").await;
    assert_eq!(
        session
            .run("return document.getElementById('clock-buttons').hidden;")
            .await,
        true,
        "no buttons for a clock the viewer may not move"
    );
    // Back on the listing, the header shows broker1's own clock, its buttons move it.
    session.goto(&format!("{base}/#/")).await;
    assert_shows(&session, "#clock-label", "Your clock (broker1)").await;
    dashboard.close(driver, session).await;
}
