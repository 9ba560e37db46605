//! The dashboard and a broker's test clocks: signed in, the broker sees its clocks and the
//! tenders on each, deletes one that holds nothing live and reads the refusal of one that does;
//! a tender on a test clock names that clock in the header, whose "+1 day" moves that clock
//! alone (not the broker's other clock, nor its own, nor the server's), the tender following;
//! another broker signed in sees the clock read-only. A contract under management on a test
//! clock names it too, and its owner's "+1 hour" moves it. The listing counts each tender's
//! next move on the clock it lives on, for anyone.

use crate::webdriver::Session;
use crate::{
    Dashboard, assert_clock_read_only, assert_shows, moment, screenshot, sign_in, string,
    wait_for_text,
};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use test_support::ReadJson;

/// Errors the page met that it did not show, gathered from the moment it is first loaded.
const WATCH_ERRORS: &str = "window.unseen = [];
    window.addEventListener('error', (e) => window.unseen.push(String(e.message)));
    window.addEventListener('unhandledrejection', (e) => window.unseen.push(String(e.reason)));";

/// Holds back the page's reads of a tender's clock by three seconds, then starts a refresh once
/// none is running; `window.holding` turns true when the held read has begun.
const HOLD_RECORD_CLOCK_READ: &str = "const done = arguments[arguments.length - 1];
    const unheld = window.fetch;
    window.unheld = unheld;
    window.holding = false;
    window.fetch = (url, options) => {
        if (!String(url).includes('/testing/clock?tender=')) return unheld(url, options);
        window.holding = true;
        return new Promise((go) => setTimeout(go, 3000)).then(() => unheld(url, options));
    };
    const start = () => (busy ? setTimeout(start, 20) : (refresh(), done(true)));
    start();";

/// Waits until the page's text at `css` contains `part`, answering the last text seen.
async fn wait_for_part(session: &Session, css: &str, part: &str) -> String {
    let started = Instant::now();
    let mut seen = String::new();
    while started.elapsed() < Duration::from_secs(15) {
        if let Some(element) = session.find(css).await {
            seen = session.text(&element).await;
            if seen.contains(part) {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_s_test_clocks_are_listed_and_a_tender_s_clock_moves_alone() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let (base, client) = (&dashboard.base, &dashboard.client);
    let create_clock = |name: &'static str| {
        let client = client.clone();
        async move {
            let answer = client
                .post(format!("{base}/testing/clocks"))
                .basic_auth("broker", Some(""))
                .json(&json!({"data": {"name": name}}))
                .send()
                .await
                .expect("the server answers");
            assert_eq!(answer.status(), 201, "{name}");
            let made: Value = answer.json().await.expect("JSON");
            string(&made["data"]["id"], "a clock's id")
        }
    };
    let a = create_clock("job-a").await;
    let b = create_clock("job-b").await;
    let scratch = create_clock("scratch").await;
    let created = dashboard.create_tender(Some(&a)).await;
    let id = string(&created["data"]["id"], "a tender");
    let tender_id = string(&created["data"]["tenderID"], "a tenderID");
    assert_eq!(created["data"]["status"], "active.enquiries");

    let (driver, session) = dashboard.open(&format!("{base}/"), 1280, 1000).await;
    session.run(WATCH_ERRORS).await;
    // Anonymous: no test clocks are shown.
    session
        .wait_for(&format!("tr[data-id='{id}']"), Duration::from_secs(15))
        .await;
    assert_eq!(
        session
            .run("return document.getElementById('test-clocks').hidden;")
            .await,
        true,
        "test clocks shown to an anonymous viewer"
    );

    // Signed in: the broker's three clocks, standing at the server's moment, the tender on A.
    sign_in(&session, "broker").await;
    let row = |clock: &str, cell: &str| format!("tr[data-clock='{clock}'] .{cell}");
    for (clock, name) in [(&a, "job-a"), (&b, "job-b"), (&scratch, "scratch")] {
        for (cell, shown) in [
            ("clock-name", name),
            ("clock-now", "2026-11-23 09:00 +02:00"),
            ("clock-state", "frozen"),
            ("clock-id", clock.as_str()),
        ] {
            assert_shows(&session, &row(clock, cell), shown).await;
        }
    }
    let on_a = format!("{tender_id} active.enquiries");
    assert_shows(&session, &row(&a, "clock-tenders"), &on_a).await;
    assert_shows(&session, &row(&b, "clock-tenders"), "none live").await;
    screenshot(&session, "dashboard-test-clocks.png").await;
    // The footer: the server's limits (with --testing, the test clocks' bound alone), and
    // what the signed-in broker holds against them.
    assert_shows(
        &session,
        "#limits-all",
        "Each broker may take: 100 live test clocks.",
    )
    .await;
    assert_shows(
        &session,
        "#limits-held",
        "broker holds 1 live tender · 3 of 100 test clocks · 0 uploaded files (0 bytes)",
    )
    .await;

    // A clock with a live tender is not deleted: the server's refusal is on the page.
    session.click_on(&row(&a, "clock-delete")).await;
    let refused = wait_for_part(&session, "#clocks-problem", "was not deleted").await;
    assert!(
        refused.starts_with(&format!("Test clock job-a ({a}) was not deleted: "))
            && refused.contains("live status")
            && refused.contains(&id),
        "{refused}"
    );
    screenshot(&session, "dashboard-test-clocks-refused.png").await;
    // One that holds nothing is deleted, and leaves the list.
    session.click_on(&row(&scratch, "clock-delete")).await;
    let started = Instant::now();
    while session
        .find(&format!("tr[data-clock='{scratch}']"))
        .await
        .is_some()
        && started.elapsed() < Duration::from_secs(15)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let gone: Value = client
        .get(format!("{base}/testing/clocks/{scratch}"))
        .read_json()
        .await;
    assert_eq!(gone["data"]["deleted"], true, "{gone}");
    assert!(
        session
            .find(&format!("tr[data-clock='{scratch}']"))
            .await
            .is_none(),
        "a deleted clock is still listed"
    );
    assert!(
        session
            .find(&format!("tr[data-clock='{a}']"))
            .await
            .is_some(),
        "the refused clock left the list"
    );

    // The tender's page names its clock in the header; "+1 day" moves that clock.
    session
        .click_on(&format!("tr[data-clock='{a}'] .clock-tenders a"))
        .await;
    let label = format!("broker's test clock job-a ({a})");
    assert_shows(&session, "#clock-label", &label).await;
    assert_shows(&session, "#tender-status", "active.enquiries").await;
    let its_time = format!("2026-11-23 09:00 on broker's test clock job-a ({a}) (frozen)");
    assert_shows(&session, "#tender-clock", &its_time).await;
    // Pressed while a refresh reads the tender's clock again (that read held back), "+1 day"
    // still moves the clock the header names, not the broker's own.
    session.run_async(HOLD_RECORD_CLOCK_READ).await;
    let started = Instant::now();
    while session.run("return window.holding === true;").await != json!(true) {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "no refresh read the clock"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    session.click_on("#advance-day").await;
    session.run("window.fetch = window.unheld;").await;
    assert_eq!(
        wait_for_text(&session, "#tender-status", "active.tendering").await,
        "active.tendering",
        "the tender did not follow its clock"
    );
    let header_now = wait_for_part(&session, "#clock-now", "2026-11-24 09:00").await;
    assert_eq!(header_now, "2026-11-24 09:00 +02:00");
    let mine = wait_for_part(&session, "#viewer-clock", "Your clock").await;
    assert!(
        mine.contains("): 2026-11-23 09:00"),
        "the broker's own clock moved on the page: {mine}"
    );
    session
        .run("document.getElementById('tender-clock').scrollIntoView({block: 'center'});")
        .await;
    screenshot(&session, "dashboard-test-clock-tender.png").await;

    // Through the API: clock A moved a day, B, the broker's own and the server's did not.
    let moved = dashboard
        .clock_now(&format!("/testing/clocks/{a}"), None)
        .await;
    assert!(moved.starts_with("2026-11-24T09:00:00"), "A: {moved}");
    for (what, path, who) in [
        ("B", format!("/testing/clocks/{b}"), None),
        (
            "the broker's own",
            "/testing/clock".to_string(),
            Some("broker"),
        ),
        ("the server's", "/testing/clock".to_string(), None),
    ] {
        let now = dashboard.clock_now(&path, who).await;
        assert!(now.starts_with("2026-11-23T09:00:00"), "{what}: {now}");
    }

    // Back on the list: A a day on with its tender's new status, B where it stood.
    session.click_on("h1 a").await;
    assert_shows(&session, &row(&a, "clock-now"), "2026-11-24 09:00 +02:00").await;
    let on_a = format!("{tender_id} active.tendering");
    assert_shows(&session, &row(&a, "clock-tenders"), &on_a).await;
    assert_shows(&session, &row(&b, "clock-now"), "2026-11-23 09:00 +02:00").await;
    // The listing counts the time to the tender's next move on its own clock, not the server's.
    let next = wait_for_part(
        &session,
        &format!("tr[data-id='{id}'] td:nth-child(5)"),
        "in 6 d 9 h",
    )
    .await;
    assert!(next.starts_with("in 6 d 9 h"), "{next}");
    screenshot(&session, "dashboard-test-clocks-moved.png").await;

    // B's own buttons: released, it runs; the refusal of a move backwards is said as text.
    let release = session
        .wait_for(&row(&b, "clock-freeze"), Duration::from_secs(5))
        .await;
    assert_eq!(session.text(&release).await, "Release");
    session.click(&release).await;
    assert_shows(&session, &row(&b, "clock-state"), "running").await;
    let refused = session
        .run_async(&format!(
            "const done = arguments[arguments.length - 1];
             moveTestClock({{id: '{b}', name: 'job-b'}}, {{now: '2020-01-01T00:00:00+02:00'}}, showClocksProblem)
               .then(() => done(document.getElementById('clocks-problem').textContent));"
        ))
        .await;
    assert!(
        refused
            .as_str()
            .is_some_and(|r| r.starts_with(&format!("Test clock job-b ({b}) did not move: "))),
        "{refused}"
    );

    // Another broker sees the tender's clock read-only.
    session.click_on("#sign-out").await;
    sign_in(&session, "broker1").await;
    session
        .run(&format!("location.hash = '#/tenders/{id}';"))
        .await;
    assert_clock_read_only(&session, &label).await;
    assert_eq!(
        session
            .run("return document.getElementById('clock-buttons').hidden;")
            .await,
        true,
        "buttons for a clock the viewer may not move"
    );
    let note = wait_for_part(&session, ".jumps-note", "Read-only").await;
    assert_eq!(
        note,
        format!(
            "Read-only: the tender lives on broker's test clock job-a ({a}); sign in as broker to move it."
        )
    );

    assert_eq!(
        session.run("return window.unseen;").await,
        json!([]),
        "errors the page did not show"
    );
    dashboard.close(driver, session).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contract_under_management_on_a_test_clock_names_it_and_moves_it() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let base = &dashboard.base;
    // A complete tender made by the test helper, on a test clock of its own.
    let made = dashboard
        .post_as_broker("/testing/tenders", json!({"status": "complete"}))
        .await;
    let contract = string(&made["contracts"][0]["id"], "a contract under management");
    let clock = string(&made["clock"]["id"], "its clock");
    let its_clock = format!("/testing/clocks/{clock}");
    let before = dashboard.clock_now(&its_clock, None).await;
    let own_before = dashboard.clock_now("/testing/clock", Some("broker")).await;

    let (driver, session) = dashboard
        .open(&format!("{base}/#/contracts/{contract}"), 1280, 1000)
        .await;
    session.run(WATCH_ERRORS).await;
    assert_shows(&session, "#contract-status", "active").await;
    // Anonymous: the contract's clock is named and read-only.
    // The helper names the clock after the status it made the tender in.
    let label = format!("broker's test clock complete by the test helper ({clock})");
    assert_clock_read_only(&session, &label).await;
    // Its owner signed in moves that clock an hour on, and not its own.
    sign_in(&session, "broker").await;
    let note = wait_for_part(&session, "#clock-note", "server time").await;
    assert!(note.starts_with("server time"), "{note}");
    assert_shows(&session, "#clock-label", &label).await;
    session.click_on("#advance-hour").await;
    let after = dashboard.clock_moved_from(&its_clock, &before).await;
    assert_eq!(
        moment(&after) - moment(&before),
        time::Duration::hours(1),
        "{before} → {after}"
    );
    assert_eq!(
        dashboard.clock_now("/testing/clock", Some("broker")).await,
        own_before,
        "the broker's own clock moved"
    );
    screenshot(&session, "dashboard-test-clock-contract.png").await;
    assert_eq!(
        session.run("return window.unseen;").await,
        json!([]),
        "errors the page did not show"
    );
    dashboard.close(driver, session).await;
}

/// The listing counts a tender's next move on the clock the tender lives on, for an anonymous
/// viewer too: a tender on a test clock moved half a day on is due in 12 hours, one on the
/// server's clock (standing) in a day.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_counts_each_tender_s_next_move_on_its_own_clock() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let (base, client) = (&dashboard.base, &dashboard.client);
    let made: Value = client
        .post(format!("{base}/testing/clocks"))
        .basic_auth("broker", Some(""))
        .json(&json!({"data": {"name": "half a day on"}}))
        .read_json()
        .await;
    let clock = string(&made["data"]["id"], "a clock's id");
    let on_clock = dashboard.create_tender(Some(&clock)).await;
    let on_server = dashboard.create_tender(None).await;
    let moved: Value = client
        .post(format!("{base}/testing/clocks/{clock}"))
        .basic_auth("broker", Some(""))
        .json(&json!({"data": {"advance": "PT12H"}}))
        .read_json()
        .await;
    assert_eq!(
        moved["data"]["now"], "2026-11-23T21:00:00.000000+02:00",
        "{moved}"
    );

    let (driver, session) = dashboard.open(&format!("{base}/"), 1280, 800).await;
    let next_move = |created: &Value| {
        let id = string(&created["data"]["id"], "a tender");
        format!("tr[data-id='{id}'] td:nth-child(5)")
    };
    let shown = wait_for_part(&session, &next_move(&on_clock), "in 12 h").await;
    assert!(shown.starts_with("in 12 h"), "on its test clock: {shown}");
    let shown = wait_for_part(&session, &next_move(&on_server), "in 1 d").await;
    assert!(
        shown.starts_with("in 1 d"),
        "on the server's clock: {shown}"
    );
    dashboard.close(driver, session).await;
}
