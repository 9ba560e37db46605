//! The dashboard on a server where a broker keeps a clock of its own: a tender shows its own
//! time, on its owner's clock; anyone may move that clock on a server its runner owns
//! (`--testing`), and a broker signed in here may move no clock but its own.

use crate::webdriver::{Driver, Session};
use crate::{browser, tender_body, testing_server, wait_for_text};
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tender_on_its_owner_s_clock_is_moved_only_by_whom_that_clock_allows() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let (server, base) = testing_server().await;
    let client = reqwest::Client::new();
    // broker's own clock, an hour ahead of the server's; its tender lives on it.
    let moved: Value = client
        .post(format!("{base}/testing/clock"))
        .basic_auth("broker", Some(""))
        .json(&json!({"data": {"advance": "PT1H"}}))
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(moved["data"]["own"], true, "{moved}");
    let created: Value = client
        .post(format!("{base}/api/2.3/tenders"))
        .basic_auth("broker", Some(""))
        .json(&tender_body())
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("JSON");
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
    let server_clock: Value = client
        .get(format!("{base}/testing/clock"))
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("JSON");
    assert!(
        server_clock["data"]["now"]
            .as_str()
            .is_some_and(|now| now.starts_with("2026-11-23T09:00:00")),
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
    session.close().await;
    drop(driver);
    server.stop().await;
}
