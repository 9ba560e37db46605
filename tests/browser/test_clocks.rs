//! The dashboard and a broker's test clocks: signed in, the broker sees its clocks and the
//! tenders on each, deletes one that holds nothing live and reads the refusal of one that does;
//! a tender on a test clock names that clock in the header, whose "+1 day" moves that clock
//! alone (not the broker's other clock, nor its own, nor the server's), the tender following;
//! another broker signed in sees the clock read-only. A contract under management on a test
//! clock names it too, and its owner's "+1 hour" moves it.

use crate::webdriver::{Driver, Session};
use crate::{browser, screenshot, tender_body, testing_server, wait_for_text};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use test_support::ReadJson;

/// Errors the page met that it did not show, gathered from the moment it is first loaded.
const WATCH_ERRORS: &str = "window.unseen = [];
    window.addEventListener('error', (e) => window.unseen.push(String(e.message)));
    window.addEventListener('unhandledrejection', (e) => window.unseen.push(String(e.reason)));";

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

async fn sign_in(session: &Session, name: &str) {
    let field = session
        .wait_for("#viewer-name", Duration::from_secs(5))
        .await;
    session.type_text(&field, name).await;
    let button = session.wait_for("#sign-in", Duration::from_secs(5)).await;
    session.click(&button).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_s_test_clocks_are_listed_and_a_tender_s_clock_moves_alone() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let (server, base) = testing_server().await;
    let client = test_support::client();
    let create_clock = |name: &'static str| {
        let client = client.clone();
        let base = base.clone();
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
            made["data"]["id"]
                .as_str()
                .expect("a clock's id")
                .to_string()
        }
    };
    let a = create_clock("job-a").await;
    let b = create_clock("job-b").await;
    let scratch = create_clock("scratch").await;
    let created: Value = client
        .post(format!("{base}/api/2.3/tenders"))
        .basic_auth("broker", Some(""))
        .header("X-Testing-Clock", &a)
        .json(&tender_body())
        .read_json()
        .await;
    let id = created["data"]["id"]
        .as_str()
        .expect("a tender")
        .to_string();
    let tender_id = created["data"]["tenderID"]
        .as_str()
        .expect("a tenderID")
        .to_string();
    assert_eq!(created["data"]["status"], "active.enquiries");

    let driver = Driver::start(&chromedriver).await;
    let session = Session::open(&driver, &chromium, 1280, 1000).await;
    session.goto(&format!("{base}/")).await;
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
        assert_eq!(
            wait_for_text(&session, &row(clock, "clock-name"), name).await,
            name
        );
        assert_eq!(
            wait_for_text(
                &session,
                &row(clock, "clock-now"),
                "2026-11-23 09:00 +02:00"
            )
            .await,
            "2026-11-23 09:00 +02:00"
        );
        assert_eq!(
            wait_for_text(&session, &row(clock, "clock-state"), "frozen").await,
            "frozen"
        );
        assert_eq!(
            wait_for_text(&session, &row(clock, "clock-id"), clock).await,
            clock.as_str()
        );
    }
    let on_a = format!("{tender_id} active.enquiries");
    assert_eq!(
        wait_for_text(&session, &row(&a, "clock-tenders"), &on_a).await,
        on_a
    );
    assert_eq!(
        wait_for_text(&session, &row(&b, "clock-tenders"), "none listed").await,
        "none listed"
    );
    screenshot(&session, "dashboard-test-clocks.png").await;

    // A clock with a live tender is not deleted: the server's refusal is on the page.
    let delete = session
        .wait_for(&row(&a, "clock-delete"), Duration::from_secs(5))
        .await;
    session.click(&delete).await;
    let refused = wait_for_part(&session, "#clocks-problem", "was not deleted").await;
    assert!(
        refused.starts_with(&format!("Test clock job-a ({a}) was not deleted: "))
            && refused.contains("live status")
            && refused.contains(&id),
        "{refused}"
    );
    screenshot(&session, "dashboard-test-clocks-refused.png").await;
    // One that holds nothing is deleted, and leaves the list.
    let delete = session
        .wait_for(&row(&scratch, "clock-delete"), Duration::from_secs(5))
        .await;
    session.click(&delete).await;
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
    let link = session
        .wait_for(
            &format!("tr[data-clock='{a}'] .clock-tenders a"),
            Duration::from_secs(5),
        )
        .await;
    session.click(&link).await;
    let label = format!("broker's test clock job-a ({a})");
    assert_eq!(wait_for_text(&session, "#clock-label", &label).await, label);
    assert_eq!(
        wait_for_text(&session, "#tender-status", "active.enquiries").await,
        "active.enquiries"
    );
    let its_time = format!("2026-11-23 09:00 on broker's test clock job-a ({a}) (frozen)");
    assert_eq!(
        wait_for_text(&session, "#tender-clock", &its_time).await,
        its_time
    );
    let day = session
        .wait_for("#advance-day", Duration::from_secs(5))
        .await;
    session.click(&day).await;
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
    let now_of = |path: String, broker: bool| {
        let client = client.clone();
        async move {
            let mut request = client.get(path);
            if broker {
                request = request.basic_auth("broker", Some(""));
            }
            let answer: Value = request.read_json().await;
            answer["data"]["now"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        }
    };
    let moved = now_of(format!("{base}/testing/clocks/{a}"), false).await;
    assert!(moved.starts_with("2026-11-24T09:00:00"), "A: {moved}");
    for (what, path, broker) in [
        ("B", format!("{base}/testing/clocks/{b}"), false),
        ("the broker's own", format!("{base}/testing/clock"), true),
        ("the server's", format!("{base}/testing/clock"), false),
    ] {
        let now = now_of(path, broker).await;
        assert!(now.starts_with("2026-11-23T09:00:00"), "{what}: {now}");
    }

    // Back on the list: A a day on with its tender's new status, B where it stood.
    let back = session.wait_for("h1 a", Duration::from_secs(5)).await;
    session.click(&back).await;
    assert_eq!(
        wait_for_text(&session, &row(&a, "clock-now"), "2026-11-24 09:00 +02:00").await,
        "2026-11-24 09:00 +02:00"
    );
    let on_a = format!("{tender_id} active.tendering");
    assert_eq!(
        wait_for_text(&session, &row(&a, "clock-tenders"), &on_a).await,
        on_a
    );
    assert_eq!(
        wait_for_text(&session, &row(&b, "clock-now"), "2026-11-23 09:00 +02:00").await,
        "2026-11-23 09:00 +02:00"
    );
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
    assert_eq!(
        wait_for_text(&session, &row(&b, "clock-state"), "running").await,
        "running"
    );
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
    let sign_out = session.wait_for("#sign-out", Duration::from_secs(5)).await;
    session.click(&sign_out).await;
    sign_in(&session, "broker1").await;
    session
        .run(&format!("location.hash = '#/tenders/{id}';"))
        .await;
    assert_eq!(wait_for_text(&session, "#clock-label", &label).await, label);
    assert_eq!(
        wait_for_text(
            &session,
            "#clock-note",
            "read-only: sign in as broker to move it"
        )
        .await,
        "read-only: sign in as broker to move it"
    );
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
    session.close().await;
    drop(driver);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contract_under_management_on_a_test_clock_names_it_and_moves_it() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let (server, base) = testing_server().await;
    let client = test_support::client();
    // A complete tender made by the test helper, on a test clock of its own.
    let made: Value = client
        .post(format!("{base}/testing/tenders"))
        .basic_auth("broker", Some(""))
        .json(&json!({"data": {"status": "complete"}}))
        .read_json()
        .await;
    let contract = made["contracts"][0]["id"]
        .as_str()
        .expect("a contract under management")
        .to_string();
    let clock = made["clock"]["id"].as_str().expect("its clock").to_string();
    let clock_now = |who: Option<&'static str>, path: String| {
        let client = client.clone();
        async move {
            let mut request = client.get(path);
            if let Some(who) = who {
                request = request.basic_auth(who, Some(""));
            }
            let answer: Value = request.read_json().await;
            answer["data"]["now"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        }
    };
    let before = clock_now(None, format!("{base}/testing/clocks/{clock}")).await;
    let own_before = clock_now(Some("broker"), format!("{base}/testing/clock")).await;

    let driver = Driver::start(&chromedriver).await;
    let session = Session::open(&driver, &chromium, 1280, 1000).await;
    session
        .goto(&format!("{base}/#/contracts/{contract}"))
        .await;
    session.run(WATCH_ERRORS).await;
    assert_eq!(
        wait_for_text(&session, "#contract-status", "active").await,
        "active"
    );
    // Anonymous: the contract's clock is named and read-only.
    let name = made["clock"]["name"].as_str().unwrap_or_default();
    let label = if name.is_empty() {
        format!("broker's test clock ({clock})")
    } else {
        format!("broker's test clock {name} ({clock})")
    };
    assert_eq!(wait_for_text(&session, "#clock-label", &label).await, label);
    assert_eq!(
        wait_for_text(
            &session,
            "#clock-note",
            "read-only: sign in as broker to move it"
        )
        .await,
        "read-only: sign in as broker to move it"
    );
    // Its owner signed in moves that clock an hour on, and not its own.
    sign_in(&session, "broker").await;
    let note = wait_for_part(&session, "#clock-note", "server time").await;
    assert!(note.starts_with("server time"), "{note}");
    assert_eq!(wait_for_text(&session, "#clock-label", &label).await, label);
    let hour = session
        .wait_for("#advance-hour", Duration::from_secs(5))
        .await;
    session.click(&hour).await;
    let started = Instant::now();
    let after = loop {
        let now = clock_now(None, format!("{base}/testing/clocks/{clock}")).await;
        if now != before || started.elapsed() > Duration::from_secs(15) {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let moment = |text: &str| {
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
            .expect("a moment")
    };
    assert_eq!(
        moment(&after) - moment(&before),
        time::Duration::hours(1),
        "{before} → {after}"
    );
    assert_eq!(
        clock_now(Some("broker"), format!("{base}/testing/clock")).await,
        own_before,
        "the broker's own clock moved"
    );
    screenshot(&session, "dashboard-test-clock-contract.png").await;
    assert_eq!(
        session.run("return window.unseen;").await,
        json!([]),
        "errors the page did not show"
    );
    session.close().await;
    drop(driver);
    server.stop().await;
}
