//! The dashboard's faces that need no tender: an empty server says it has no tenders, the
//! server's icon is an image the browser draws, a sign-in with a key the server does not know
//! is refused, saying so, and kept nowhere; a broker signs in with its key (not its name) and is
//! shown by its name; and a server without a clock to move shows its time in its own zone.

use crate::{Dashboard, assert_shows, screenshot, sign_in};
use serde_json::Value;
use tender_registry::Settings;

const UNKNOWN: &str = "No broker of this server has that key: not signed in.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_server_says_so_and_an_unknown_key_is_not_signed_in() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let base = &dashboard.base;
    let (driver, session) = dashboard.open(&format!("{base}/"), 1280, 800).await;

    // No tenders: a sentence, not a bare table header.
    assert_shows(
        &session,
        "#list-empty",
        "No tenders yet: a tender shows here once a broker publishes it through the API.",
    )
    .await;
    assert_eq!(
        session
            .run("return document.getElementById('tenders').hidden;")
            .await,
        true
    );

    // The icon every browser asks for is one it can draw.
    let drawn = session
        .run_async(
            "const done = arguments[arguments.length - 1];
             const img = new Image();
             img.onload = () => done(img.naturalWidth);
             img.onerror = () => done(0);
             img.src = '/favicon.ico';",
        )
        .await;
    assert!(
        drawn.as_u64().is_some_and(|width| width >= 16),
        "the icon is no image the browser draws: {drawn}"
    );

    // An unknown key: refused, said, kept nowhere; the header stays the server's.
    sign_in(&session, "nobody").await;
    assert_shows(&session, "#sign-in-problem", UNKNOWN).await;
    screenshot(&session, "dashboard-empty.png").await;
    let shown = session
        .run(
            "return [sessionStorage.getItem('viewer'), document.getElementById('sign-out').hidden,
                     document.getElementById('sign-in').hidden,
                     document.getElementById('clock-label').textContent,
                     document.getElementById('viewer-clock').textContent];",
        )
        .await;
    assert_eq!(
        shown,
        serde_json::json!([null, true, false, "Server time", ""]),
        "not signed in"
    );

    // A key kept from before (a server since restarted with other brokers) is dropped too.
    session
        .run("sessionStorage.setItem('viewer', JSON.stringify({key: 'nobody', shown: 'nobody'}));")
        .await;
    session.goto(&format!("{base}/")).await;
    assert_shows(&session, "#sign-in-problem", UNKNOWN).await;
    assert_eq!(
        session
            .run("return sessionStorage.getItem('viewer');")
            .await,
        Value::Null
    );

    // A key the server knows signs in: the header shows that broker's own clock.
    sign_in(&session, "broker1").await;
    assert_shows(&session, "#clock-label", "Your clock (broker1)").await;
    let problem = session
        .run("return document.getElementById('sign-in-problem').hidden;")
        .await;
    assert_eq!(problem, true, "the refusal is gone once signed in");
    dashboard.close(driver, session).await;
}

/// A brokers file whose key is not its broker's name: the page asks for the key, refuses the
/// name (which anyone may read as an `owner`), and once signed in shows the broker by its name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_signs_in_with_its_key_and_is_shown_by_its_name() {
    let dir = tempfile::tempdir().expect("a directory");
    let brokers = dir.path().join("brokers.ini");
    std::fs::write(&brokers, "[brokers]\nacme = 7d1f0c1e9a\n").expect("written");
    let Some(dashboard) = Dashboard::start_with(Settings {
        testing: true,
        clock_start: Some(crate::moment(crate::START)),
        brokers: Some(brokers),
        ..Settings::default()
    })
    .await
    else {
        return;
    };
    let (driver, session) = dashboard
        .open(&format!("{}/", dashboard.base), 1280, 800)
        .await;
    let label = session.text_of("#viewer-key-label").await;
    assert!(label.starts_with("Broker key"), "{label}");
    sign_in(&session, "acme").await;
    assert_shows(&session, "#sign-in-problem", UNKNOWN).await;
    sign_in(&session, "7d1f0c1e9a").await;
    assert_shows(&session, "#clock-label", "Your clock (acme)").await;
    assert_shows(&session, "#sign-out", "Sign out acme").await;
    let kept = session
        .run("return [document.getElementById('viewer-key').value, document.getElementById('viewer-key').type];")
        .await;
    assert_eq!(
        kept,
        serde_json::json!(["", "password"]),
        "the key is not left on the page"
    );
    dashboard.close(driver, session).await;
}

/// Without --testing (no clock to move) the header shows the server's time in the server's
/// zone, as every other time on the page, read-only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_testing_the_header_shows_the_server_s_time_in_its_zone() {
    let Some(dashboard) = Dashboard::start_with(Settings::default()).await else {
        return;
    };
    let (driver, session) = dashboard
        .open(&format!("{}/", dashboard.base), 1280, 800)
        .await;
    assert_shows(
        &session,
        "#clock-note",
        "read-only: start the server with --testing to move it",
    )
    .await;
    let shown = session.text_of("#clock-now").await;
    let zone_offset = shown.ends_with(" +02:00") || shown.ends_with(" +03:00");
    assert!(zone_offset && !shown.contains("GMT"), "{shown}");
    assert_eq!(session.text_of("#clock-label").await, "Server time");
    dashboard.close(driver, session).await;
}
