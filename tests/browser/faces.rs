//! The dashboard's faces that need no tender: an empty server says it has no tenders, the
//! server's icon is an image the browser draws, and a sign-in under a name the server does not
//! know is refused, saying so, and kept nowhere.

use crate::{Dashboard, assert_shows, screenshot, sign_in};
use serde_json::Value;

const UNKNOWN: &str = "No broker named \u{201c}nobody\u{201d} is known here: not signed in.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_server_says_so_and_an_unknown_name_is_not_signed_in() {
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

    // An unknown name: refused, said, kept nowhere; the header stays the server's.
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

    // A name kept from before (a server since restarted with other brokers) is dropped too.
    session
        .run("sessionStorage.setItem('viewer', JSON.stringify({name: 'nobody', password: ''}));")
        .await;
    session.goto(&format!("{base}/")).await;
    assert_shows(&session, "#sign-in-problem", UNKNOWN).await;
    assert_eq!(
        session
            .run("return sessionStorage.getItem('viewer');")
            .await,
        Value::Null
    );

    // A name the server knows signs in: the header shows that broker's own clock.
    sign_in(&session, "broker1").await;
    assert_shows(&session, "#clock-label", "Your clock (broker1)").await;
    let problem = session
        .run("return document.getElementById('sign-in-problem').hidden;")
        .await;
    assert_eq!(problem, true, "the refusal is gone once signed in");
    dashboard.close(driver, session).await;
}
