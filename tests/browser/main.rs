//! The dashboard (and, in `auction.rs`, a bidder's auction page) in a real browser: headless
//! Chromium, driven through chromedriver, follows a tender the test created and moves the
//! server clock with the dashboard's own buttons: a day on, then to the dates the tender names,
//! past the end of tendering and past the award's stand-still, where the tender waits with no
//! next check of its own; its signed contract, terminated under contract management, stays
//! `active` in the tender and says where it is managed. `faces.rs`: an empty server, the icon,
//! a sign-in with a key the server does not know, a broker whose key is not its name, and the
//! header of a server without --testing. `test_clocks.rs`: a broker's test clocks, a tender on
//! one moved by its own clock alone, and the listing's next moves on each tender's clock.
//!
//! Needs Debian's `chromium` and `chromium-driver` (or `CHROMIUM` and `CHROMEDRIVER` naming
//! the binaries). Without them the test fails under CI and is skipped, saying so, elsewhere.

mod auction;
mod broker_clocks;
mod faces;
mod requests;
mod test_clocks;

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tender_registry::Settings;
use test_support::ReadJson;
use test_support::browser as webdriver;
use webdriver::{Driver, Session};

/// The server's clock stands here until the dashboard moves it, whatever today is.
pub(crate) const START: &str = "2026-11-23T09:00:00+02:00";

fn binary(variable: &str, default: &str) -> Option<String> {
    let path = std::env::var(variable).unwrap_or_else(|_| default.to_string());
    Path::new(&path).exists().then_some(path)
}

/// A moment written as RFC 3339.
pub(crate) fn moment(text: &str) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .expect("a moment")
}

/// The string at `value`, which the test expects to be there (`what` says what it is).
pub(crate) fn string(value: &Value, what: &str) -> String {
    value.as_str().expect(what).to_string()
}

/// Chromium and chromedriver; without them `None`, said on stderr (and a failure under CI).
/// Every test calls it first, so it also gives the test's HTTP clients their crypto provider
/// (ring, the server's), which reqwest does not pick by itself.
fn browser() -> Option<(String, String)> {
    test_support::install_crypto();
    let (Some(chromium), Some(chromedriver)) = (
        binary("CHROMIUM", "/usr/bin/chromium"),
        binary("CHROMEDRIVER", "/usr/bin/chromedriver"),
    ) else {
        let message = "the browser test needs Chromium and chromedriver (Debian packages \
                       chromium and chromium-driver, or CHROMIUM and CHROMEDRIVER)";
        assert!(std::env::var_os("CI").is_none(), "{message}");
        // Straight to stderr: the test harness would swallow eprintln! of a passing test.
        let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
        return None;
    };
    Some((chromium, chromedriver))
}

/// What every browser test stands on: the server with `--testing`, its clock standing at
/// [`START`] until moved, a client for its API, and the browser to open its pages in.
pub(crate) struct Dashboard {
    pub(crate) server: tender_registry::RunningServer,
    pub(crate) base: String,
    pub(crate) client: reqwest::Client,
    chromium: String,
    chromedriver: String,
}

impl Dashboard {
    /// The server and its client; `None` where there is no browser (see [`browser`]).
    pub(crate) async fn start() -> Option<Dashboard> {
        Dashboard::start_with(Settings {
            testing: true,
            clock_start: Some(moment(START)),
            ..Settings::default()
        })
        .await
    }

    /// [`Dashboard::start`] on a server started with `settings`.
    pub(crate) async fn start_with(settings: Settings) -> Option<Dashboard> {
        let (chromium, chromedriver) = browser()?;
        let server = test_support::serve(settings).await;
        Some(Dashboard {
            base: server.base_url(),
            server,
            client: test_support::client(),
            chromium,
            chromedriver,
        })
    }

    /// Chromedriver, and a browser window of `width`×`height` driven through it, at `url`.
    pub(crate) async fn open(&self, url: &str, width: u32, height: u32) -> (Driver, Session) {
        let driver = Driver::start(&self.chromedriver).await;
        let session = Session::open(&driver, &self.chromium, width, height).await;
        session.goto(url).await;
        (driver, session)
    }

    /// broker's POST of `data` to `path`, its answer read as JSON whatever its status.
    pub(crate) async fn post_as_broker(&self, path: &str, data: Value) -> Value {
        self.client
            .post(format!("{}{path}", self.base))
            .basic_auth("broker", Some(""))
            .json(&json!({ "data": data }))
            .read_json()
            .await
    }

    /// Closes the browser, then stops the server.
    pub(crate) async fn close(self, driver: Driver, session: Session) {
        session.close().await;
        drop(driver);
        self.server.stop().await;
    }

    /// broker publishes [`tender_body`] (on its test clock `clock`, when given), answered 201:
    /// the tender created, with its access.
    pub(crate) async fn create_tender(&self, clock: Option<&str>) -> Value {
        let mut request = self
            .client
            .post(format!("{}/api/2.3/tenders", self.base))
            .basic_auth("broker", Some(""));
        if let Some(clock) = clock {
            request = request.header("X-Testing-Clock", clock);
        }
        let (status, created) = test_support::call(request.json(&tender_body())).await;
        assert_eq!(status, 201, "{created}");
        created
    }

    /// The time of the clock at `path` (`/testing/clock…`), read as `who` or anonymously.
    pub(crate) async fn clock_now(&self, path: &str, who: Option<&str>) -> String {
        let mut request = self.client.get(format!("{}{path}", self.base));
        if let Some(who) = who {
            request = request.basic_auth(who, Some(""));
        }
        let answer: Value = request.read_ok().await;
        answer["data"]["now"]
            .as_str()
            .unwrap_or_else(|| panic!("{path} names its time: {answer}"))
            .to_string()
    }

    /// Waits up to 15 s for the clock at `path` to leave `before`, answering its time then.
    pub(crate) async fn clock_moved_from(&self, path: &str, before: &str) -> String {
        let started = Instant::now();
        loop {
            let now = self.clock_now(path, None).await;
            if now != before || started.elapsed() > Duration::from_secs(15) {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Signs in on the dashboard with the broker key `key` (the built-in brokers' keys are their
/// names).
pub(crate) async fn sign_in(session: &Session, key: &str) {
    let field = session
        .wait_for("#viewer-key", Duration::from_secs(5))
        .await;
    session.type_text(&field, key).await;
    session.click_on("#sign-in").await;
}

/// Asserts that the header names the clock `label` and says that it is read-only to the viewer:
/// only broker, whose clock it is, may move it.
pub(crate) async fn assert_clock_read_only(session: &Session, label: &str) {
    assert_shows(session, "#clock-label", label).await;
    assert_shows(
        session,
        "#clock-note",
        "read-only: sign in as broker to move it",
    )
    .await;
}

pub(crate) fn tender_body() -> Value {
    let entity = json!({
        "name": "Київська міська школа № 1",
        "kind": "general",
        "identifier": {"scheme": "UA-EDR", "id": "00037256", "uri": "http://school.example.net/"},
        "address": {"countryName": "Україна", "postalCode": "01220", "region": "м. Київ", "streetAddress": "вул. Банкова, 11", "locality": "м. Київ"},
        "contactPoint": {"name": "Олена Петренко", "telephone": "0440000000"}
    });
    json!({"data": {
        "procurementMethodType": "belowThreshold",
        "title": "Шкільні обіди на зиму",
        "value": {"amount": 500, "currency": "UAH"},
        "minimalStep": {"amount": 15, "currency": "UAH"},
        "enquiryPeriod": {"endDate": "2026-11-24T09:00:00+02:00"},
        "tenderPeriod": {"endDate": "2026-11-30T18:00:00+02:00"},
        "procuringEntity": entity,
        "items": [{
            "id": "item-1",
            "description": "Шкільні обіди",
            "classification": {"scheme": "ДК021", "id": "55523100-3", "description": "Послуги з харчування у школах"},
            "unit": {"code": "44617100-9", "name": "item"},
            "quantity": 5,
            "deliveryDate": {"endDate": "2026-12-31T18:00:00+02:00"},
            "deliveryAddress": {"countryName": "Україна", "postalCode": "79000", "region": "м. Київ", "streetAddress": "вул. Банкова 1", "locality": "м. Київ"}
        }]
    }})
}

/// Keeps a picture of the page as `name` in the target's tmp directory, to look at.
pub(crate) async fn screenshot(session: &Session, name: &str) {
    let shot = session.screenshot().await;
    assert!(shot.starts_with(b"\x89PNG"), "the screenshot is no PNG");
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, shot).expect("the screenshot is written");
    let _ = writeln!(std::io::stderr(), "screenshot: {}", path.display());
}

/// A timestamp as the dashboard shortens it: `2026-11-23 10:00`.
pub(crate) fn short(timestamp: &str) -> String {
    timestamp.get(..16).unwrap_or(timestamp).replace('T', " ")
}

/// Waits until `element`'s text is `expected`, answering the last text seen.
pub(crate) async fn wait_for_text(session: &Session, css: &str, expected: &str) -> String {
    let started = Instant::now();
    let mut seen = String::new();
    while started.elapsed() < Duration::from_secs(15) {
        if let Some(element) = session.find(css).await {
            seen = session.text(&element).await;
            if seen == expected {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if seen != expected {
        eprintln!(
            "{css} is {seen:?}, not {expected:?}, in:\n{}",
            session.source().await
        );
    }
    seen
}

/// Waits until `css`'s text is `expected`, and fails if it never comes to be.
pub(crate) async fn assert_shows(session: &Session, css: &str, expected: &str) {
    assert_eq!(
        wait_for_text(session, css, expected).await,
        expected,
        "{css}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_button_moves_a_tender_on_without_a_reload() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let (base, client) = (&dashboard.base, &dashboard.client);
    let created = dashboard.create_tender(None).await;
    let id = string(&created["data"]["id"], "a tender");
    let token = string(&created["access"]["token"], "a token");
    assert_eq!(created["data"]["status"], "active.enquiries");

    let (driver, session) = dashboard.open(&format!("{base}/"), 1280, 1000).await;

    // The list shows the tender; its link opens the tender's page.
    let link = session
        .wait_for(&format!("tr[data-id='{id}'] a"), Duration::from_secs(15))
        .await;
    session.click(&link).await;
    assert_shows(&session, "#tender-status", "active.enquiries").await;
    session
        .wait_for("#timeline .lane", Duration::from_secs(5))
        .await;
    session.run("window.stillThisPage = true;").await;

    // A day later by the dashboard's button: the enquiries are over.
    session.click_on("#advance-day").await;
    let status = wait_for_text(&session, "#tender-status", "active.tendering").await;
    assert_eq!(
        status, "active.tendering",
        "the page did not follow the clock"
    );
    assert_eq!(
        session.run("return window.stillThisPage === true;").await,
        true,
        "the page was reloaded"
    );
    let clock = dashboard.clock_now("/testing/clock", None).await;
    assert!(clock.starts_with("2026-11-24T09:00:00"), "{clock}");
    let source = session.source().await;
    assert!(
        !source.contains(&token),
        "the page shows the tender's token"
    );

    // One bid; then to the end of tendering by the button the tender's own date makes.
    let bid = client
        .post(format!("{base}/api/2.3/tenders/{id}/bids"))
        .basic_auth("broker1", Some(""))
        .json(&json!({"data": {"value": {"amount": 480}, "tenderers": [{
            "name": "ТОВ Постачальник",
            "identifier": {"scheme": "UA-EDR", "id": "14360570"},
            "address": {"countryName": "Україна", "locality": "м. Київ"},
            "contactPoint": {"name": "Олена", "telephone": "0440000000"}
        }]}}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(bid.status(), 201);
    let read = |path: String| {
        let client = client.clone();
        async move {
            let answer: Value = client.get(path).read_ok().await;
            answer["data"].clone()
        }
    };
    let jump = |when: String| {
        let session = &session;
        async move {
            session
                .click_on(&format!("button.jump[data-when='{when}']"))
                .await;
        }
    };
    let tender = read(format!("{base}/api/2.3/tenders/{id}")).await;
    jump(string(&tender["tenderPeriod"]["endDate"], "a date")).await;
    assert_shows(&session, "#tender-status", "active.qualification").await;
    // The header names the clock its buttons move: the server's, which is broker's too.
    assert_shows(
        &session,
        "#clock-label",
        "Server time (also broker's clock)",
    )
    .await;

    // A pending award's stand-still has no end yet: the page says when it gets one.
    let tender = read(format!("{base}/api/2.3/tenders/{id}")).await;
    let opened = string(
        &tender["awards"][0]["complaintPeriod"]["startDate"],
        "a pending award's complaint period",
    );
    assert!(tender["awards"][0]["complaintPeriod"]["endDate"].is_null());
    let pending = session
        .wait_for(".stand-still", Duration::from_secs(15))
        .await;
    session
        .run("document.querySelector('.stand-still').scrollIntoView({block: 'center'});")
        .await;
    screenshot(&session, "dashboard-pending.png").await;
    assert_eq!(
        session.text(&pending).await,
        format!(
            "complaints open since {}; the stand-still's end is set when the award is decided",
            short(&opened)
        )
    );

    // Approved, the tender has no next check: only the stand-still's end, a date the award
    // names, is offered, and once past it the owner signs.
    let tender = read(format!("{base}/api/2.3/tenders/{id}")).await;
    let award = string(&tender["awards"][0]["id"], "an award");
    let approved: Value = client
        .patch(format!(
            "{base}/api/2.3/tenders/{id}/awards/{award}?acc_token={token}"
        ))
        .basic_auth("broker", Some(""))
        .json(&json!({"data": {"status": "active"}}))
        .read_json()
        .await;
    let stand_still = string(
        &approved["data"]["complaintPeriod"]["endDate"],
        "a stand-still",
    );
    // The picture of the README: the award's stand-still offered as a place to jump to.
    session
        .wait_for(
            &format!("button.jump[data-when='{stand_still}']"),
            Duration::from_secs(15),
        )
        .await;
    let decided = format!("stand-still until {}", short(&stand_still));
    assert_shows(&session, ".stand-still", &decided).await;
    screenshot(&session, "dashboard.png").await;
    jump(stand_still.clone()).await;
    let started = Instant::now();
    let contract = string(
        &read(format!("{base}/api/2.3/tenders/{id}")).await["contracts"][0]["id"],
        "a contract",
    );
    let signed = loop {
        let answer = client
            .patch(format!(
                "{base}/api/2.3/tenders/{id}/contracts/{contract}?acc_token={token}"
            ))
            .basic_auth("broker", Some(""))
            .json(&json!({"data": {"status": "active"}}))
            .send()
            .await
            .expect("the server answers");
        if answer.status() == 200 || started.elapsed() > Duration::from_secs(15) {
            break answer.status();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(signed, 200, "signed once the clock is past {stand_still}");
    assert_shows(&session, "#tender-status", "complete").await;

    // The signed contract is under management now: its page opens from the tender's.
    let link = session
        .wait_for("a.contract-link", Duration::from_secs(15))
        .await;
    assert_eq!(
        session.text(&link).await,
        "under contract management: active"
    );
    session.click(&link).await;
    let status = wait_for_text(&session, "#contract-status", "active").await;
    assert_eq!(status, "active", "the contract's page shows it");

    // Terminated under contract management: the tender keeps it `active`, as upstream does,
    // and says what contract management holds.
    let credentials: Value = client
        .patch(format!("{base}/api/2.3/contracts/{contract}/credentials"))
        .basic_auth("broker", Some(""))
        .header("X-Access-Token", &token)
        .header("Content-Type", "application/json")
        .read_json()
        .await;
    let own = credentials["access"]["token"]
        .as_str()
        .expect("the contract's token");
    let terminated = client
        .patch(format!("{base}/api/2.3/contracts/{contract}"))
        .basic_auth("broker", Some(""))
        .header("X-Access-Token", own)
        .json(&json!({"data": {"status": "terminated", "amountPaid": {"amount": 480}}}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(terminated.status(), 200);
    assert_shows(&session, "#contract-status", "terminated").await;
    session.goto(&format!("{base}/#/tenders/{id}")).await;
    assert_shows(
        &session,
        "a.contract-link",
        "under contract management: terminated",
    )
    .await;
    session
        .run("document.querySelector('a.contract-link').scrollIntoView({block: 'center'});")
        .await;
    screenshot(&session, "dashboard-contract.png").await;
    let line = session
        .run("return document.querySelector('a.contract-link').closest('li').textContent;")
        .await;
    assert!(
        line.as_str()
            .is_some_and(|l| l.contains(" active ") && l.contains("480 UAH")),
        "the tender's own record of the contract: {line}"
    );
    assert_eq!(
        read(format!("{base}/api/2.3/tenders/{id}")).await["contracts"][0]["status"],
        "active"
    );

    dashboard.close(driver, session).await;
}
