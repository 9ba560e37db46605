//! What one broker may take of a shared server: past its rate a request is answered 429 with
//! `Retry-After` and the envelope (another broker is not held up), past each bound (live
//! tenders, test clocks, uploaded files and their bytes) a creation is refused naming it and
//! nothing is made; the index and the OpenAPI description show them; `--testing` without the
//! options keeps its freedom. The rate is tested at a rate of two an hour, so that no token
//! comes back while a test runs, however slow the machine.

use crate::common::{Reply, TestServer, moment, tender_body, text};
use serde_json::{Value, json};
use tender_registry::Settings;
use tender_registry::limits::{self, Limit, Per};

const BOUNDARY: &str = "limits-boundary";

/// A sandbox with these limits (every other one at its default).
async fn sandbox(options: limits::Options) -> TestServer {
    TestServer::start_with(Settings {
        sandbox: true,
        limits: options,
        ..Settings::default()
    })
    .await
}

/// A sandbox whose brokers may each send two requests an hour, both at once.
async fn two_an_hour() -> TestServer {
    sandbox(limits::Options {
        rate: Some(Limit::At((2, Per::Hour))),
        ..limits::Options::default()
    })
    .await
}

/// The index as JSON, as `broker` (anyone when none).
async fn index(s: &TestServer, broker: Option<&str>) -> Value {
    let mut call = s.get("/").header("Accept", "application/json");
    if let Some(broker) = broker {
        call = call.broker(broker);
    }
    call.send().await.assert_status(200).body["data"].clone()
}

/// Asserts a refusal at the rate: 429, `Retry-After` in whole seconds (as the description
/// says too), the envelope saying who passed which rate.
#[track_caller]
fn assert_past_the_rate(r: &Reply, who: &str) -> u64 {
    assert_eq!(r.status, 429, "{}", r.text);
    let seconds: u64 = r
        .header("Retry-After")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("a Retry-After in whole seconds: {:?}", r.headers));
    // The next token comes half an hour after the bucket was emptied.
    assert!((1700..=1800).contains(&seconds), "{seconds}");
    r.assert_refused(
        429,
        "url",
        "too_many_requests",
        format!("{who} made more than 2 requests an hour (burst 2): retry after {seconds} s"),
    );
    seconds
}

#[tokio::test]
async fn a_broker_past_its_rate_is_answered_429_and_another_broker_is_not() {
    let s = two_an_hour().await;
    for _ in 0..2 {
        s.by("broker")
            .get("/api/2.3/tenders")
            .await
            .assert_status(200);
    }
    let refused = s.by("broker").get("/api/2.3/tenders").await;
    assert_past_the_rate(&refused, "Broker broker");
    // Any route: the rate is taken before any is.
    let again = s.by("broker").get("/testing/clock").await;
    assert_past_the_rate(&again, "Broker broker");
    // Another broker has a bucket of its own, and so has a client without credentials.
    s.by("broker1")
        .get("/api/2.3/tenders")
        .await
        .assert_status(200);
    s.anyone().get("/api/2.3/tenders").await.assert_status(200);
    s.anyone().get("/api/2.3/tenders").await.assert_status(200);
    let anonymous = s.anyone().get("/api/2.3/tenders").await;
    assert_eq!(anonymous.status, 429, "{}", anonymous.text);
    let (_, _, description) = anonymous.error();
    assert!(
        description.as_str().is_some_and(|d| d.starts_with(
            "Requests from 127.0.0.1 without a broker's credentials came at more than 2 \
             requests an hour (burst 2): retry after "
        )),
        "{description}"
    );
    assert!(anonymous.header("Retry-After").is_some());
}

#[tokio::test]
async fn a_creation_past_the_rate_changes_nothing_and_takes_no_tender_id() {
    let s = two_an_hour().await;
    let now = s.by("broker").get("/testing/clock").await.body["data"]["now"].clone();
    let body = tender_body(now.as_str().unwrap_or_default(), 1, 4);
    let first = s.by("broker").post("/api/2.3/tenders", body.clone()).await;
    first.assert_created_in(&s, "/api/2.3/tenders");
    let refused = s.by("broker").post("/api/2.3/tenders", body.clone()).await;
    assert_past_the_rate(&refused, "Broker broker");
    // Read as another broker, whose bucket is full: one tender, and the next one made takes
    // the tenderID after the first (none was used by the refusal).
    let listed = s.by("broker1").get("/api/2.3/tenders").await;
    assert_eq!(
        listed.body["data"].as_array().map(Vec::len),
        Some(1),
        "{}",
        listed.text
    );
    let second = s.by("broker1").post("/api/2.3/tenders", body).await;
    second.assert_created_in(&s, "/api/2.3/tenders");
    let number = |r: &Reply| {
        let id = text(&r.body["data"]["tenderID"]);
        (id[..13].to_string(), id[14..].parse::<u32>().unwrap_or(0))
    };
    let ((day, n), (next_day, next)) = (number(&first), number(&second));
    if day == next_day {
        assert_eq!(next, n + 1, "no tenderID was used up");
    }
}

/// A test clock standing at a named moment, so the tenders on it are numbered by that day.
async fn a_clock(s: &TestServer, broker: &str) -> Reply {
    s.by(broker)
        .post(
            "/testing/clocks",
            json!({"name": "limits", "now": "2026-11-23T09:00:00+02:00"}),
        )
        .await
}

/// A tender on the test clock `clock`, as `broker`; `draft` or published.
async fn tender_on(s: &TestServer, broker: &str, clock: &str, draft: bool) -> Reply {
    let mut body = tender_body("2026-11-23T09:00:00+02:00", 1, 4);
    if draft {
        body["status"] = json!("draft");
    }
    s.post("/api/2.3/tenders")
        .broker(broker)
        .header("X-Testing-Clock", clock)
        .data(body)
        .send()
        .await
}

fn multipart(name: &str, bytes: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: application/pdf\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

async fn upload(s: &TestServer, broker: &str, name: &str, bytes: &[u8]) -> Reply {
    s.post("/upload")
        .broker(broker)
        .raw(
            &format!("multipart/form-data; boundary={BOUNDARY}"),
            multipart(name, bytes),
        )
        .send()
        .await
}

#[tokio::test]
async fn past_each_bound_a_creation_is_refused_naming_it_and_nothing_is_made() {
    let s = sandbox(limits::Options {
        live_tenders: Some(Limit::At(2)),
        test_clocks: Some(Limit::At(1)),
        uploads: Some(Limit::At(2)),
        upload_bytes: Some(Limit::At(64)),
        ..limits::Options::default()
    })
    .await;

    // Test clocks: one.
    let clock = a_clock(&s, "broker").await;
    let clock = clock.assert_created_in(&s, "/testing/clocks");
    a_clock(&s, "broker").await.assert_refused(
        409,
        "body",
        "data",
        "Broker broker holds 1 live test clock, the most a broker keeps on this sandbox: \
         delete one it no longer needs (a clock is deleted once its records are finished).",
    );
    let clocks = s.by("broker").get("/testing/clocks").await;
    assert_eq!(clocks.body["data"].as_array().map(Vec::len), Some(1));

    // Live tenders: two, a draft counting as one.
    let draft = tender_on(&s, "broker", &clock, true).await;
    draft.assert_created_in(&s, "/api/2.3/tenders");
    let published = tender_on(&s, "broker", &clock, false).await;
    published.assert_created_in(&s, "/api/2.3/tenders");
    let live_bound = "Broker broker holds 2 live tenders, the most a broker keeps on this \
        sandbox: cancel or finish some (a tender counts until it is complete, cancelled or \
        unsuccessful; a draft counts too).";
    tender_on(&s, "broker", &clock, false)
        .await
        .assert_refused(409, "body", "data", live_bound);
    // The test helper meets the same bound: it makes no tender, and the clock it would have
    // made is refused first.
    s.by("broker")
        .post("/testing/tenders", json!({"status": "draft"}))
        .await
        .assert_refused_on(409, "data");
    let held = index(&s, Some("broker")).await["held"].clone();
    assert_eq!(
        held,
        json!({"broker": "broker", "liveTenders": 2, "testClocks": 1, "uploads": 0, "uploadBytes": 0})
    );
    // Another broker keeps its own.
    let theirs = a_clock(&s, "broker1")
        .await
        .assert_created_in(&s, "/testing/clocks");
    tender_on(&s, "broker1", &theirs, false)
        .await
        .assert_created_in(&s, "/api/2.3/tenders");
    // A cancelled tender is finished: room for one more, numbered right after the second
    // (the refused creations used no tenderID).
    let (id, token) = (published.id(), published.token());
    s.cancel(
        &id,
        &token,
        json!({"reason": "Більше не потрібно", "status": "active"}),
    )
    .await
    .assert_status(201);
    assert_eq!(s.tender(&id).await["status"], "cancelled");
    let third = tender_on(&s, "broker", &clock, false).await;
    third.assert_created_in(&s, "/api/2.3/tenders");
    let number = |r: &Reply| text(&r.body["data"]["tenderID"]);
    assert_eq!(number(&draft), "UA-2026-11-23-000001");
    assert_eq!(number(&published), "UA-2026-11-23-000002");
    assert_eq!(
        number(&third),
        "UA-2026-11-23-000004",
        "broker1's was the third"
    );

    // Uploads: two files, 64 bytes.
    upload(&s, "broker", "a.pdf", &[b'a'; 40])
        .await
        .assert_status(200);
    upload(&s, "broker", "b.pdf", &[b'b'; 30])
        .await
        .assert_refused(
            409,
            "body",
            "data",
            "Broker broker holds 40 bytes of uploaded files, and this would take it past 64 \
             bytes, the most a broker keeps on this sandbox: the document service keeps every \
             file for good, so give the addresses of files already uploaded again, or ask the \
             server's operator for room.",
        );
    upload(&s, "broker", "c.pdf", &[b'c'; 24])
        .await
        .assert_status(200);
    let files_bound = "Broker broker holds 2 uploaded files, the most a broker keeps on this \
        sandbox: the document service keeps every file for good, so give the addresses of \
        files already uploaded again, or ask the server's operator for room.";
    upload(&s, "broker", "d.pdf", b"d")
        .await
        .assert_refused(409, "body", "data", files_bound);
    s.by("broker")
        .post(
            "/register",
            json!({"hash": "md5:8277e0910d750195b448797616e091ad"}),
        )
        .await
        .assert_refused(409, "body", "data", files_bound);
    let held = index(&s, Some("broker")).await["held"].clone();
    assert_eq!(
        (&held["uploads"], &held["uploadBytes"]),
        (&json!(2), &json!(64))
    );
    upload(&s, "broker1", "e.pdf", &[b'e'; 64])
        .await
        .assert_status(200);
}

#[tokio::test]
async fn the_index_and_the_description_show_a_sandbox_s_limits() {
    let s = TestServer::sandbox().await;
    let shown = index(&s, None).await;
    assert_eq!(
        shown["limits"],
        json!({
            "appliesTo": "each broker; requests without a broker's credentials, each client address",
            "rate": {"requests": limits::RATE, "per": "second", "burst": limits::RATE},
            "liveTenders": limits::LIVE_TENDERS,
            "testClocks": limits::TEST_CLOCKS,
            "uploads": limits::UPLOADS,
            "uploadBytes": limits::UPLOAD_BYTES,
        })
    );
    assert_eq!(shown.get("held"), None, "nothing held without credentials");
    let text = s.get("/").send().await.text;
    assert!(
        text.contains(
            "limits      each broker: 1,000 requests a second (burst 1,000); 5,000 live \
             tenders; 100 live test clocks; 100,000 uploaded files; 512 MiB of uploaded files"
        ),
        "{text}"
    );
    let mine = s.get("/").broker("broker").send().await.text;
    assert!(
        mine.contains("held        broker broker: 0 live tenders, 0 live test clocks, 0 uploaded files (0 bytes)"),
        "{mine}"
    );
    // Every operation of the description may answer 429, with Retry-After.
    let described = s.read("/openapi.json").await;
    let paths = described["paths"].as_object().cloned().unwrap_or_default();
    assert!(paths.len() > 20);
    for (path, item) in &paths {
        for (method, operation) in item.as_object().into_iter().flatten() {
            if let Some(responses) = operation.get("responses") {
                assert_eq!(
                    responses["429"]["$ref"], "#/components/responses/Error429",
                    "{method} {path}"
                );
            }
        }
    }
    let error429 = &described["components"]["responses"]["Error429"];
    assert!(error429["headers"]["Retry-After"].is_object(), "{error429}");
    let creation = &described["paths"]["/api/2.3/tenders"]["post"]["responses"];
    assert!(creation.get("409").is_some(), "{creation}");
}

#[tokio::test]
async fn testing_without_the_options_keeps_its_freedom() {
    let s = TestServer::start().await;
    let shown = index(&s, None).await;
    assert_eq!(
        shown["limits"],
        json!({
            "appliesTo": "each broker; requests without a broker's credentials, each client address",
            "rate": null,
            "liveTenders": null,
            "testClocks": 100,
            "uploads": null,
            "uploadBytes": null,
        })
    );
    // More requests at once than a sandbox's burst: none is refused.
    let burst = limits::RATE as usize + 200;
    let answers =
        futures::future::join_all((0..burst).map(|_| s.by("broker").get("/api/2.3/spore"))).await;
    assert!(
        answers.iter().all(|r| r.status == 200),
        "{:?}",
        answers.iter().find(|r| r.status != 200).map(|r| &r.text)
    );
    let described = s.read("/openapi.json").await;
    assert!(
        !described.to_string().contains("responses/Error429"),
        "no 429 where no rate is held to"
    );
    let text = s.get("/").send().await.text;
    assert!(
        text.contains("limits      each broker: 100 live test clocks"),
        "{text}"
    );
}

#[tokio::test]
async fn testing_holds_to_the_limits_its_options_give() {
    let s = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment("2026-11-23T09:00:00+02:00")),
        limits: limits::Options {
            live_tenders: Some(Limit::At(1)),
            ..limits::Options::default()
        },
        ..Settings::default()
    })
    .await;
    s.published().await;
    let refused = s
        .try_create(tender_body("2026-11-23T09:00:00+02:00", 1, 4))
        .await;
    refused.assert_refused(
        409,
        "body",
        "data",
        "Broker broker holds 1 live tender, the most a broker keeps on this sandbox: cancel or \
         finish some (a tender counts until it is complete, cancelled or unsuccessful; a draft \
         counts too).",
    );
}
