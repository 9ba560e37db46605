//! The request log (`/testing/requests`) and the client's report (`/testing/report`): a
//! broker sees its own exchanges alone, filtered and paged, tokens masked, kept across a
//! restart and within its bound; the report names a careless client's mistakes and nothing
//! of a careful one's.

use crate::common::*;
use serde_json::{Value, json};
use tender_registry::Settings;

/// The `X-Request-ID` a reply carries.
fn request_id(r: &Reply) -> String {
    r.header("X-Request-ID").unwrap_or_default().to_string()
}

/// The broker's log (newest first), a page as `GET /testing/requests{query}` answers it.
async fn log(s: &TestServer, broker: &str, query: &str) -> Reply {
    s.get(&format!("/testing/requests{query}"))
        .broker(broker)
        .send()
        .await
        .assert_status(200)
}

fn ids_of(page: &Reply) -> Vec<String> {
    page.body["data"]
        .as_array()
        .map(|a| a.iter().map(|e| text(&e["id"])).collect())
        .unwrap_or_default()
}

async fn report(s: &TestServer, broker: &str) -> Value {
    s.get("/testing/report")
        .broker(broker)
        .send()
        .await
        .assert_status(200)
        .body["data"]
        .clone()
}

/// Each failed rule of a report and its findings' request ids.
fn failed(report: &Value) -> Vec<(String, Vec<Vec<String>>)> {
    report["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["passed"] == false)
        .map(|r| {
            let findings = r["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| {
                    f["requests"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(text)
                        .collect()
                })
                .collect();
            (text(&r["rule"]), findings)
        })
        .collect()
}

fn draft(now: &str) -> Value {
    let mut body = tender_body(now, 1, 4);
    body["status"] = json!("draft");
    body
}

#[tokio::test]
async fn a_broker_sees_its_own_exchanges_and_never_anothers() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let mine = s.by("broker").post("/api/2.3/tenders", draft(&now)).await;
    let theirs = s.by("broker1").post("/api/2.3/tenders", draft(&now)).await;
    let read = s
        .by("broker")
        .get(&format!("/api/2.3/tenders/{}", mine.id()))
        .await;

    let page = log(&s, "broker", "").await;
    assert_eq!(ids_of(&page), [request_id(&read), request_id(&mine)]);
    let first = &page.body["data"][1];
    assert_eq!(
        (&first["method"], &first["path"], &first["status"]),
        (&json!("POST"), &json!("/api/2.3/tenders"), &json!(201))
    );
    assert_eq!(first["record"], json!({"kind": "tender", "id": mine.id()}));
    assert_eq!(first["request"]["json"]["data"]["status"], "draft");
    assert_eq!(first["response"]["json"]["data"]["id"], mine.id());
    assert_eq!(ids_of(&log(&s, "broker1", "").await), [request_id(&theirs)]);

    let one = format!("/testing/requests/{}", request_id(&mine));
    let shown = s.get(&one).broker("broker").send().await.assert_status(200);
    assert_eq!(shown.body["data"], *first);
    s.get(&one).broker("broker1").send().await.assert_refused(
        404,
        "url",
        "request_id",
        "Not Found",
    );
    let anonymous = s.get("/testing/requests").send().await;
    assert_eq!(
        (anonymous.status, anonymous.error().1.as_str()),
        (403, "permission")
    );
}

#[tokio::test]
async fn tokens_and_passwords_are_masked_and_the_curl_line_repeats_the_request() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let created = s.by("broker").post("/api/2.3/tenders", draft(&now)).await;
    let (id, token) = (created.id(), created.token());
    let publish = s
        .post(&format!("/api/2.3/tenders/{id}?acc_token={token}"))
        .basic("broker", "a-password")
        .header("X-HTTP-Method-Override", "PATCH")
        .data(json!({"status": "active.enquiries"}))
        .send()
        .await;
    let patch = s
        .owner(&token)
        .patch(&id, json!({"status": "active.enquiries"}))
        .await
        .assert_status(200);
    let header = s
        .get(&format!("/api/2.3/tenders/{id}/documents"))
        .broker("broker")
        .header("X-Access-Token", &token)
        .send()
        .await;

    let page = log(&s, "broker", "").await;
    assert!(!page.text.contains(&token), "{}", page.text);
    assert!(!page.text.contains("a-password"), "{}", page.text);
    let by_id = |r: &Reply| {
        page.body["data"]
            .as_array()
            .and_then(|a| a.iter().find(|e| e["id"] == request_id(r)).cloned())
            .unwrap_or_default()
    };
    let creation = by_id(&created);
    assert_eq!(creation["response"]["json"]["access"]["token"], "***");
    let patched = by_id(&patch);
    assert_eq!(patched["query"], "acc_token=***");
    assert_eq!(patched["request"]["token"], "acc_token");
    assert_eq!(
        patched["curl"],
        format!(
            "curl -X PATCH -u \"$BROKER_KEY:\" -H 'Content-Type: application/json' \"{}/api/2.3/tenders/{id}?acc_token=$TOKEN\" --data-binary '{{\"data\":{{\"status\":\"active.enquiries\"}}}}'",
            s.base
        )
    );
    assert_eq!(by_id(&header)["request"]["token"], "X-Access-Token");
    assert_eq!(by_id(&publish)["query"], "acc_token=***");
}

#[tokio::test]
async fn the_log_is_filtered_and_paged_newest_first() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let a = s.by("broker").post("/api/2.3/tenders", draft(&now)).await;
    let b = s.by("broker").post("/api/2.3/tenders", draft(&now)).await;
    let missing = s
        .by("broker")
        .get(&format!("/api/2.3/tenders/{UNKNOWN_ID}"))
        .await;
    let read = s
        .by("broker")
        .get(&format!("/api/2.3/tenders/{}", a.id()))
        .await;
    let patch = s
        .owner(&a.token())
        .patch(&a.id(), json!({"status": "active.enquiries"}))
        .await;
    assert_eq!(patch.status, 200, "{}", patch.text);

    let all = [&patch, &read, &missing, &b, &a].map(request_id);
    assert_eq!(ids_of(&log(&s, "broker", "").await), all);
    assert_eq!(
        ids_of(&log(&s, "broker", "?status=4xx").await),
        [request_id(&missing)]
    );
    assert_eq!(
        ids_of(&log(&s, "broker", "?status=404").await),
        [request_id(&missing)]
    );
    assert_eq!(
        ids_of(&log(&s, "broker", "?method=patch").await),
        [request_id(&patch)]
    );
    assert_eq!(
        ids_of(&log(&s, "broker", &format!("?record={}", a.id())).await),
        [&patch, &read, &a].map(request_id)
    );
    assert_eq!(
        ids_of(&log(&s, "broker", &format!("?path=/api/2.3/tenders/{}", b.id())).await),
        Vec::<String>::new()
    );
    let at = text(&log(&s, "broker", "?method=GET&status=2xx").await.body["data"][0]["at"]);
    let since = format!("?since={}", at.replace('+', "%2B"));
    assert_eq!(
        ids_of(&log(&s, "broker", &since).await),
        [&patch, &read].map(request_id)
    );

    // Pages of two, each leading to the next by its next_page, to an empty one.
    let mut seen = Vec::new();
    let mut page = log(&s, "broker", "?limit=2").await;
    while !ids_of(&page).is_empty() {
        assert!(ids_of(&page).len() <= 2);
        seen.extend(ids_of(&page));
        let next = text(&page.body["next_page"]["path"]);
        page = log(&s, "broker", next.trim_start_matches("/testing/requests")).await;
    }
    assert_eq!(seen, all);
    let offset = text(&page.body["next_page"]["offset"]);
    assert!(!offset.is_empty(), "an empty page repeats its offset");

    for (query, name) in [
        ("?status=6xx", "status"),
        ("?status=oops", "status"),
        ("?since=yesterday", "since"),
        ("?limit=0", "limit"),
        ("?limit=1001", "limit"),
        ("?offset=x", "offset"),
    ] {
        let r = s
            .get(&format!("/testing/requests{query}"))
            .broker("broker")
            .send()
            .await;
        assert_eq!(
            (r.status, r.error().0.as_str(), r.error().1.as_str()),
            (422, "query", name),
            "{query}"
        );
    }
}

#[tokio::test]
async fn the_bound_keeps_the_newest() {
    let s = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        request_log: 3,
        ..Settings::default()
    })
    .await;
    let mut sent = Vec::new();
    for _ in 0..5 {
        sent.push(request_id(&s.by("broker").get("/api/2.3/tenders").await));
    }
    sent.reverse();
    assert_eq!(ids_of(&log(&s, "broker", "").await), sent[..3]);
}

#[tokio::test]
async fn the_log_outlives_a_restart_with_a_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let settings = || Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        data_dir: Some(dir.path().to_path_buf()),
        request_log: 2,
        ..Settings::default()
    };
    let s = TestServer::start_with(settings()).await;
    let now = s.now().await;
    let mut sent = Vec::new();
    for _ in 0..3 {
        let r = s.by("broker").post("/api/2.3/tenders", draft(&now)).await;
        sent.push((request_id(&r), r.token()));
    }
    let before = log(&s, "broker", "").await.body["data"].clone();
    s.stop().await;

    let s = TestServer::start_with(settings()).await;
    let after = log(&s, "broker", "").await;
    let kept = |v: &Value| {
        let mut v = v.clone();
        for e in v.as_array_mut().into_iter().flatten() {
            // The address repeated names the server's new port.
            e["curl"] = Value::Null;
        }
        v
    };
    assert_eq!(kept(&after.body["data"]), kept(&before));
    assert_eq!(ids_of(&after), [sent[2].0.clone(), sent[1].0.clone()]);
    assert!(
        !after.text.contains(&sent[2].1),
        "tokens stay masked in the file"
    );
    let raw = std::fs::read(dir.path().join("registry.sqlite3")).unwrap_or_default();
    assert!(!String::from_utf8_lossy(&raw).contains(&sent[2].1));
    // The next exchange follows the kept ones.
    let next = s.by("broker").get("/api/2.3/tenders").await;
    assert_eq!(
        ids_of(&log(&s, "broker", "?limit=1").await),
        [request_id(&next)]
    );
}

#[tokio::test]
async fn a_careless_client_gets_exactly_its_findings() {
    let s = TestServer::start().await;
    let now = s.now().await;
    s.post("/testing/faults")
        .broker("broker")
        .data(json!({"match": {"method": "POST", "path": "/api/2.3/tenders"}, "fault": "error-before-commit"}))
        .send()
        .await
        .assert_status(201);
    // Single-phase, answered 503, repeated at once without a read.
    let failed_creation = s
        .try_create(tender_body(&now, 1, 4))
        .await
        .assert_status(503);
    let repeat = s
        .try_create(tender_body(&now, 1, 4))
        .await
        .assert_status(201);
    // A token on a public read.
    let id = repeat.id();
    let read = s
        .by("broker")
        .get(&format!(
            "/api/2.3/tenders/{id}?acc_token={}",
            repeat.token()
        ))
        .await
        .assert_status(200);
    // A body as text/plain.
    let plain = s
        .post("/api/2.3/tenders")
        .broker("broker")
        .raw("text/plain", "title=школа")
        .send()
        .await
        .assert_status(415);

    let got = report(&s, "broker").await;
    assert_eq!(
        failed(&got),
        [
            (
                "errors-1".into(),
                vec![vec![request_id(&failed_creation), request_id(&repeat)]]
            ),
            ("two-phase".into(), vec![vec![request_id(&repeat)]]),
            ("conventions-2".into(), vec![vec![request_id(&plain)]]),
            ("authentication-2".into(), vec![vec![request_id(&read)]]),
        ]
    );
    assert_eq!(
        (got["passed"].clone(), got["failed"].clone()),
        (json!(false), json!(4))
    );
    let errors_1 = &got["rules"][0];
    assert_eq!(errors_1["spec"], "Errors, rule 1");
    assert!(text(&errors_1["words"]).starts_with("A 5xx response does not guarantee"));
    let finding = text(&errors_1["findings"][0]["description"]);
    assert!(
        finding.starts_with("POST /api/2.3/tenders answered 503 was repeated without reading /api/2.3/tenders in between and at once"),
        "{finding}"
    );

    // As JUnit, for a CI: a test case a rule, the four failed.
    for call in [
        s.get("/testing/report?format=junit").broker("broker"),
        s.get("/testing/report")
            .broker("broker")
            .header("Accept", "application/xml"),
    ] {
        let xml = call.send().await.assert_status(200);
        assert!(
            xml.header("Content-Type")
                .unwrap_or_default()
                .starts_with("application/xml")
        );
        assert_eq!(xml.text.matches("<testcase ").count(), 6, "{}", xml.text);
        assert_eq!(xml.text.matches("<failure ").count(), 4, "{}", xml.text);
        assert!(xml.text.contains(&request_id(&plain)), "{}", xml.text);
    }
    // Another broker's report is its own: clean.
    assert_eq!(report(&s, "broker1").await["passed"], true);
}

#[tokio::test]
async fn a_repeated_creation_after_a_lost_answer_names_the_duplicate() {
    let s = TestServer::start().await;
    let now = s.now().await;
    for fault in ["error-after-commit", "drop-after-commit"] {
        s.post("/testing/faults")
            .broker("broker")
            .data(json!({"match": {"method": "POST", "path": "/api/2.3/tenders"}, "fault": fault}))
            .send()
            .await
            .assert_status(201);
        let mut body = tender_body(&now, 1, 4);
        body["title"] = json!(format!("Закупівля після {fault}"));
        let sent = reqwest::Client::new()
            .post(s.url("/api/2.3/tenders"))
            .basic_auth("broker", Some(""))
            .header("Content-Type", "application/json")
            .body(json!({ "data": body }).to_string())
            .send()
            .await;
        match fault {
            "drop-after-commit" => assert!(sent.is_err(), "no answer arrives"),
            _ => assert_eq!(sent.map(|r| r.status().as_u16()).ok(), Some(503)),
        }
        let listing = s.by("broker").get("/api/2.3/tenders").await;
        assert_eq!(listing.status, 200);
        // The listing was read, yet the same tender is created again, dates moved on.
        body["tenderPeriod"]["endDate"] = json!(days_after(&now, 5));
        let repeat = s.try_create(body).await.assert_status(201);
        let got = report(&s, "broker").await;
        let duplicates = &got["rules"][1];
        assert_eq!(duplicates["rule"], "errors-3");
        let finding = duplicates["findings"]
            .as_array()
            .and_then(|f| f.last().cloned())
            .unwrap_or_default();
        assert!(
            text(&finding["description"]).contains(&repeat.id()),
            "{fault}: {finding}"
        );
        assert_eq!(finding["requests"][1], request_id(&repeat));
    }
}

#[tokio::test]
async fn a_tender_token_sent_for_a_bid_and_a_made_up_offset_are_found() {
    let s = TestServer::start().await;
    let (id, token) = s.tendering().await;
    let (bid, _) = s.bid(&id, 450.0).await;
    let wrong = s
        .with_token("broker1", &token)
        .patch(
            &format!("{id}/bids/{bid}"),
            json!({"value": {"amount": 440}}),
        )
        .await
        .assert_status(403);
    let first = s.by("broker1").get("/api/2.3/tenders?limit=1").await;
    let next = text(&first.body["next_page"]["path"]);
    s.by("broker1").get(&next).await.assert_status(200);
    let made_up = s
        .by("broker1")
        .get("/api/2.3/tenders?offset=2026-11-20T00%3A00%3A00%2B02%3A00")
        .await
        .assert_status(200);
    let got = report(&s, "broker1").await;
    assert_eq!(
        failed(&got),
        [
            ("authentication-2".into(), vec![vec![request_id(&wrong)]]),
            ("listing".into(), vec![vec![request_id(&made_up)]]),
        ]
    );
}

#[tokio::test]
async fn a_careful_client_gets_a_clean_report() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let created = s.by("broker").post("/api/2.3/tenders", draft(&now)).await;
    let (id, token) = (created.id(), created.token());
    s.post("/testing/faults")
        .broker("broker")
        .data(json!({"match": {"method": "PATCH", "path": "/api/2.3/tenders/*"}, "fault": "error-after-commit"}))
        .send()
        .await
        .assert_status(201);
    let publish = json!({"status": "active.enquiries"});
    s.owner(&token)
        .patch(&id, publish.clone())
        .await
        .assert_status(503);
    // Reads the tender's state, waits, and repeats (the publication is repeatable).
    s.by("broker")
        .get(&format!("/api/2.3/tenders/{id}"))
        .await
        .assert_status(200);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    s.owner(&token).patch(&id, publish).await.assert_status(200);
    // Walks the listing by its next_page.
    let mut page = s.by("broker").get("/api/2.3/tenders?limit=1").await;
    for _ in 0..3 {
        page = s
            .by("broker")
            .get(&text(&page.body["next_page"]["path"]))
            .await;
    }
    // Asks a question without a token, as its own broker.
    s.ask_question("broker", &id, "Питання")
        .await
        .assert_status(201);
    let got = report(&s, "broker").await;
    assert_eq!(
        failed(&got),
        Vec::<(String, Vec<Vec<String>>)>::new(),
        "{got}"
    );
    assert_eq!(got["passed"], true);
}

#[tokio::test]
async fn a_test_clock_s_exchanges_and_report_are_its_own() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let clock = s
        .post("/testing/clocks")
        .broker("broker")
        .data(json!({"name": "job"}))
        .send()
        .await
        .assert_status(201);
    let clock = clock.id();
    let on_clock = s
        .post("/api/2.3/tenders")
        .broker("broker")
        .header("X-Testing-Clock", &clock)
        .data(draft(&now))
        .send()
        .await
        .assert_status(201);
    let read = s
        .by("broker")
        .get(&format!("/api/2.3/tenders/{}", on_clock.id()))
        .await;
    // Elsewhere, a single-phase creation: the clock's report knows nothing of it.
    s.try_create(tender_body(&now, 1, 4))
        .await
        .assert_status(201);

    let page = log(&s, "broker", &format!("?clock={clock}")).await;
    assert_eq!(ids_of(&page), [request_id(&read), request_id(&on_clock)]);
    let on = s
        .get(&format!("/testing/report?clock={clock}"))
        .broker("broker")
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        (
            &on.body["data"]["clock"],
            &on.body["data"]["exchanges"],
            &on.body["data"]["passed"]
        ),
        (&json!(clock), &json!(2), &json!(true))
    );
    assert_eq!(report(&s, "broker").await["passed"], false);
}
