//! Faults on demand (`/testing/faults`): each fault as a client sees it, whose requests a rule
//! hits and how often, the refusals, and the log line that names the rule.

use crate::common::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tender_registry::Settings;

/// What a failing deployment answers: nothing says the failure was injected.
fn unavailable(status: u16, reason: &str) -> (u16, Value) {
    (
        status,
        json!({"status": "error", "errors": [{"location": "url", "name": "error", "description": reason}]}),
    )
}

async fn set(s: &TestServer, broker: Option<&str>, rule: Value) -> Reply {
    let mut call = s.post("/testing/faults");
    if let Some(broker) = broker {
        call = call.broker(broker);
    }
    call.data(rule).send().await
}

/// Sets a rule as `broker` and returns it as stored.
async fn fault(s: &TestServer, broker: &str, rule: Value) -> Value {
    let r = set(s, Some(broker), rule).await;
    assert_eq!(r.status, 201, "rule set: {}", r.text);
    r.body["data"].clone()
}

/// A rule that meets every tender creation with `fault`.
fn on_creation(fault: &str) -> Value {
    json!({"match": {"method": "POST", "path": "/api/2.3/tenders"}, "fault": fault})
}

async fn rule(s: &TestServer, id: &str) -> Value {
    let r = s.get(&format!("/testing/faults/{id}")).send().await;
    assert_eq!(r.status, 200, "rule read: {}", r.text);
    r.body["data"].clone()
}

async fn listed(s: &TestServer) -> Vec<Value> {
    let r = s.get("/api/2.3/tenders").send().await.assert_status(200);
    r.body["data"].as_array().cloned().unwrap_or_default()
}

fn no_hint_of_injection(r: &Reply) {
    for (name, value) in &r.headers {
        let text = format!("{name}: {}", value.to_str().unwrap_or_default()).to_lowercase();
        assert!(
            !text.contains("fault") && !text.contains("inject"),
            "{text}"
        );
    }
    assert!(!r.text.to_lowercase().contains("fault"), "{}", r.text);
}

#[tokio::test]
async fn a_rule_is_stored_shown_listed_and_removed() {
    let s = TestServer::start().await;
    let r = set(&s, Some("broker"), on_creation("error-after-commit"))
        .await
        .assert_status(201);
    let stored = r.body["data"].clone();
    let id = r.id();
    assert!(
        id.len() == 32
            && id
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{id}"
    );
    assert_eq!(
        stored,
        json!({
            "id": id,
            "match": {"method": "POST", "path": "/api/2.3/tenders", "broker": "broker"},
            "fault": "error-after-commit", "status": 503, "times": 1, "hits": 0
        })
    );
    let location = r.header("Location").unwrap_or_default().to_string();
    assert_eq!(location, format!("{}/testing/faults/{id}", s.base));
    assert_eq!(s.get(&location).send().await.body["data"], stored);

    let other = fault(
        &s,
        "broker1",
        json!({"match": {"path": "/api/2.3/tenders/*"}, "fault": "delay", "delay_ms": 10}),
    )
    .await;
    let list = s.get("/testing/faults").send().await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body["data"], json!([stored, other]));

    let removed = s.delete(&location).send().await;
    assert_eq!((removed.status, &removed.body["data"]), (200, &stored));
    let gone = s.get(&location).send().await;
    gone.assert_refused(404, "url", "fault_id", "Not Found");
    assert_eq!(s.delete(&location).send().await.status, 404);

    let all = s.delete("/testing/faults").send().await;
    assert_eq!((all.status, &all.body["data"]), (200, &json!([other])));
    assert_eq!(
        s.get("/testing/faults").send().await.body["data"],
        json!([])
    );
}

#[tokio::test]
async fn error_after_commit_stores_the_write_then_answers_503() {
    let s = TestServer::start().await;
    let stored = fault(&s, "broker", on_creation("error-after-commit")).await;
    let rule_id = text(&stored["id"]);
    let body = tender_body(&s.now().await, 1, 4);
    let r = s.try_create(body.clone()).await;
    assert_eq!(
        (r.status, r.body.clone()),
        unavailable(503, "Service Unavailable")
    );
    assert_eq!(
        r.header("Content-Type"),
        Some("application/json; charset=UTF-8")
    );
    assert_eq!(r.header("Location"), None);
    no_hint_of_injection(&r);

    let rows = listed(&s).await;
    assert_eq!(rows.len(), 1, "the tender was created in full");
    let id = rows[0]["id"].as_str().unwrap_or_default();
    let tender = s.tender(id).await;
    assert_eq!(
        (&tender["title"], &tender["status"]),
        (&body["title"], &json!("active.enquiries"))
    );

    let again = s.try_create(body).await;
    assert_eq!(again.status, 201, "the rule hit once: {}", again.text);
    let spent = rule(&s, &rule_id).await;
    assert_eq!((&spent["times"], &spent["hits"]), (&json!(0), &json!(1)));
}

#[tokio::test]
async fn error_before_commit_changes_nothing() {
    let (s, id, token) = TestServer::with_published().await;
    let path = format!("/api/2.3/tenders/{id}");
    fault(
        &s,
        "broker",
        json!({"match": {"method": "PATCH", "path": path}, "fault": "error-before-commit", "status": 500}),
    )
    .await;
    let before = s.tender(&id).await;
    let change = || {
        s.patch(&format!("{path}?acc_token={token}"))
            .broker("broker")
            .data(json!({"description": "changed"}))
    };
    let r = change().send().await;
    assert_eq!(
        (r.status, r.body.clone()),
        unavailable(500, "Internal Server Error")
    );
    no_hint_of_injection(&r);
    assert_eq!(s.tender(&id).await, before, "nothing changed");
    change().send().await.assert_status(200);
    assert_eq!(s.tender(&id).await["description"], "changed");
}

#[tokio::test]
async fn drop_after_commit_carries_out_the_write_and_answers_nothing() {
    let s = TestServer::start().await;
    fault(&s, "broker", on_creation("drop-after-commit")).await;
    let body = json!({"data": tender_body(&s.now().await, 1, 4)});
    let sent = reqwest::Client::new()
        .post(s.url("/api/2.3/tenders"))
        .basic_auth("broker", Some(""))
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .timeout(Duration::from_secs(20))
        .send()
        .await;
    let error = sent.expect_err("no response arrives");
    assert!(
        !error.is_timeout(),
        "the connection is closed, not left open: {error}"
    );
    let rows = listed(&s).await;
    assert_eq!(rows.len(), 1, "the tender was created in full");
    let tender = s.tender(rows[0]["id"].as_str().unwrap_or_default()).await;
    assert_eq!(tender["title"], body["data"]["title"]);
}

#[tokio::test]
async fn a_delay_answers_normally_after_the_pause() {
    let (s, id, _) = TestServer::with_published().await;
    let path = format!("/api/2.3/tenders/{id}");
    let before = s.get(&path).send().await;
    fault(
        &s,
        "broker",
        json!({"match": {"method": "GET", "path": path}, "fault": "delay", "delay_ms": 400}),
    )
    .await;
    let started = Instant::now();
    let r = s.by("broker").get(&path).await;
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    assert_eq!((r.status, &r.body), (200, &before.body));
}

#[tokio::test]
async fn a_brokers_rule_never_hits_another_brokers_request() {
    let s = TestServer::start().await;
    let stored = fault(&s, "broker1", on_creation("error-before-commit")).await;
    assert_eq!(stored["match"]["broker"], "broker1", "scoped to the caller");
    let body = tender_body(&s.now().await, 1, 4);
    let theirs = s.try_create(body.clone()).await;
    assert_eq!(
        theirs.status, 201,
        "broker's request is untouched: {}",
        theirs.text
    );
    let anonymous = s.anyone().post("/api/2.3/tenders", body.clone()).await;
    assert_eq!(
        anonymous.status, 403,
        "nor an anonymous one: {}",
        anonymous.text
    );
    s.by("broker1")
        .post("/api/2.3/tenders", body)
        .await
        .assert_status(503);
    assert_eq!(listed(&s).await.len(), 1);

    let naming_another = set(
        &s,
        Some("broker1"),
        json!({"match": {"path": "/api/2.3/tenders", "broker": "broker"}, "fault": "error-before-commit"}),
    )
    .await;
    naming_another.assert_refused(
        403,
        "url",
        "permission",
        "Forbidden: a broker's fault rules hit its own requests alone, and match.broker names \
         broker; leave it out, or name broker1",
    );
    set(
        &s,
        Some("broker1"),
        json!({"match": {"path": "/api/2.3/tenders", "broker": "broker1"}, "fault": "error-before-commit"}),
    )
    .await.assert_status(201);
}

#[tokio::test]
async fn without_credentials_a_rule_may_hit_anyone_under_testing() {
    let s = TestServer::start().await;
    let named = set(
        &s,
        None,
        json!({"match": {"path": "/api/2.3/tenders", "broker": "broker2"}, "fault": "error-before-commit"}),
    )
    .await.assert_status(201);
    assert_eq!(named.body["data"]["match"]["broker"], "broker2");
    let everyone = set(
        &s,
        None,
        json!({"match": {"path": "/api/2.3/spore"}, "fault": "error-before-commit", "times": 2}),
    )
    .await;
    assert!(
        everyone.body["data"]["match"].get("broker").is_none(),
        "{}",
        everyone.text
    );
    assert_eq!(s.get("/api/2.3/spore").send().await.status, 503);
    assert_eq!(s.by("broker").get("/api/2.3/spore").await.status, 503);
    assert_eq!(s.get("/api/2.3/spore").send().await.status, 200);
    let unknown = set(
        &s,
        None,
        json!({"match": {"path": "/api/2.3/tenders", "broker": "nobody"}, "fault": "delay", "delay_ms": 1}),
    )
    .await;
    unknown.assert_refused(422, "body", "match.broker", "No broker is named nobody.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn times_is_consumed_exactly_under_32_concurrent_requests() {
    let s = TestServer::start().await;
    let mut three_times = on_creation("error-after-commit");
    three_times["times"] = json!(3);
    let stored = fault(&s, "broker", three_times).await;
    let body = tender_body(&s.now().await, 1, 4);
    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..32 {
        requests.spawn(
            s.post("/api/2.3/tenders")
                .broker("broker")
                .data(body.clone())
                .send(),
        );
    }
    let mut statuses = Vec::new();
    while let Some(reply) = requests.join_next().await {
        statuses.push(reply.expect("the request ran").status);
    }
    let failed = statuses.iter().filter(|s| **s == 503).count();
    let created = statuses.iter().filter(|s| **s == 201).count();
    assert_eq!((failed, created), (3, 29), "{statuses:?}");
    assert_eq!(listed(&s).await.len(), 32, "every write was carried out");
    let spent = rule(&s, stored["id"].as_str().unwrap_or_default()).await;
    assert_eq!((&spent["times"], &spent["hits"]), (&json!(0), &json!(3)));
}

#[tokio::test]
async fn a_star_in_the_path_stands_for_one_segment() {
    let (s, id, _) = TestServer::with_published().await;
    let questions = format!("/api/2.3/tenders/{id}/questions");
    let asked = s.ask_question("broker1", &id, "Q").await.assert_status(201);
    let stored = fault(
        &s,
        "broker1",
        json!({"match": {"path": "/api/2.3/tenders/*/questions"}, "fault": "error-before-commit", "times": 10}),
    )
    .await;
    let hit = |method: &str, path: &str| {
        let call = s
            .call(method.parse().expect("a method"), path)
            .broker("broker1");
        async move { call.send().await.status }
    };
    assert_eq!(hit("GET", &format!("/api/2.3/tenders/{id}")).await, 200);
    assert_eq!(
        hit("GET", &format!("{questions}/{}", asked.id())).await,
        200
    );
    assert_eq!(
        hit("GET", &format!("/api/2.3/tenders/{id}/documents")).await,
        200
    );
    assert_eq!(hit("GET", &questions).await, 503, "any method");
    let again = s
        .by("broker1")
        .post(
            &questions,
            json!({"title": "Q2", "description": "?", "author": organization()}),
        )
        .await;
    assert_eq!(again.status, 503);
    assert_eq!(
        count(&s.tender(&id).await["questions"]),
        Some(1),
        "the second question was not asked"
    );
    let seen = rule(&s, stored["id"].as_str().unwrap_or_default()).await;
    assert_eq!((&seen["hits"], &seen["times"]), (&json!(2), &json!(8)));
}

/// Sets a seeded rule with a probability on `path`, sends 24 reads, removes the rule; returns
/// the statuses and the rule's hits.
async fn seeded_run(s: &TestServer, path: &str) -> (Vec<u16>, u64) {
    let stored = fault(
        s,
        "broker",
        json!({"match": {"method": "GET", "path": path}, "fault": "error-before-commit", "probability": 0.5, "seed": 2026}),
    )
    .await;
    assert!(stored.get("times").is_none(), "no limit: {stored}");
    assert_eq!(
        (&stored["probability"], &stored["seed"]),
        (&json!(0.5), &json!(2026))
    );
    let mut statuses = Vec::new();
    for _ in 0..24 {
        statuses.push(s.by("broker").get(path).await.status);
    }
    let id = text(&stored["id"]);
    let hits = rule(s, &id).await["hits"].as_u64().unwrap_or_default();
    let removed = s.delete(&format!("/testing/faults/{id}")).send().await;
    assert_eq!(removed.status, 200);
    (statuses, hits)
}

#[tokio::test]
async fn a_seeded_probability_repeats_its_hits() {
    let (s, id, _) = TestServer::with_published().await;
    let path = format!("/api/2.3/tenders/{id}");
    let (first, hits) = seeded_run(&s, &path).await;
    let (second, _) = seeded_run(&s, &path).await;
    assert_eq!(first, second, "the same seed hits the same requests");
    let failed = first.iter().filter(|s| **s == 503).count();
    assert!(failed > 0 && failed < 24, "{first:?}");
    assert_eq!(hits, failed as u64);
    assert!(first.iter().all(|s| *s == 200 || *s == 503), "{first:?}");
}

#[tokio::test]
async fn invalid_rules_are_refused_with_422() {
    let s = TestServer::start().await;
    let tenders = json!({"path": "/api/2.3/tenders"});
    for (rule, name, description) in [
        (
            json!({"match": tenders, "fault": "explode"}),
            "fault",
            "Value must be one of ['error-after-commit', 'error-before-commit', 'drop-after-commit', 'delay'].",
        ),
        (
            json!({"match": {"path": "/api/2.3/tenders/*x"}, "fault": "delay", "delay_ms": 1}),
            "match.path",
            "Should be a path under /api/2.3 such as /api/2.3/tenders/*/bids, where * stands for one whole path segment.",
        ),
        (
            json!({"match": {"path": "/testing/clock"}, "fault": "delay", "delay_ms": 1}),
            "match.path",
            "Should be a path under /api/2.3 such as /api/2.3/tenders/*/bids, where * stands for one whole path segment.",
        ),
        (
            json!({"match": {"path": "/api/2.3/tenders", "method": "FETCH"}, "fault": "delay", "delay_ms": 1}),
            "match.method",
            "Value must be one of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].",
        ),
        (
            json!({"match": tenders, "fault": "error-after-commit", "times": 0}),
            "times",
            "Should be at least 1.",
        ),
        (
            json!({"match": tenders, "fault": "error-after-commit", "probability": 1.01}),
            "probability",
            "Should be from 0 to 1.",
        ),
        (
            json!({"match": tenders, "fault": "error-after-commit", "probability": -0.1}),
            "probability",
            "Should be from 0 to 1.",
        ),
        (
            json!({"match": tenders, "fault": "delay", "delay_ms": 60001}),
            "delay_ms",
            "Should be from 0 to 60000 milliseconds.",
        ),
        (
            json!({"match": tenders, "fault": "delay"}),
            "delay_ms",
            "This field is required.",
        ),
        (
            json!({"match": tenders, "fault": "error-before-commit", "status": 404}),
            "status",
            "Should be a server error status, from 500 to 599.",
        ),
        (
            json!({"fault": "error-before-commit"}),
            "match",
            "This field is required.",
        ),
        (
            json!({"match": tenders, "fault": "drop-after-commit", "colour": "red"}),
            "colour",
            "Rogue field",
        ),
    ] {
        let r = set(&s, Some("broker"), rule.clone()).await;
        assert_eq!(
            (r.status, r.error()),
            (422, ("body".into(), name.into(), json!(description))),
            "{rule}: {}",
            r.text
        );
    }
    let not_json = s
        .post("/testing/faults")
        .raw("text/plain", "fault")
        .send()
        .await;
    assert_eq!(not_json.status, 415);
    assert_eq!(
        s.get("/testing/faults").send().await.body["data"],
        json!([])
    );
}

#[tokio::test]
async fn without_testing_there_is_no_fault_api() {
    let s = TestServer::start_with(Settings::default()).await;
    let not_found = (404, ("url".into(), "not_found".into(), json!("Not Found")));
    let rule = json!({"match": {"path": "/api/2.3/tenders"}, "fault": "error-before-commit"});
    for r in [
        s.get("/testing/faults").send().await,
        set(&s, Some("broker"), rule.clone()).await,
        set(&s, None, rule).await,
        s.delete("/testing/faults").send().await,
        s.get("/testing/faults/abc").send().await,
    ] {
        assert_eq!((r.status, r.error()), not_found, "{}", r.text);
    }
}

/// Read from the server binary's own output, as an operator reads it: a subscriber set for one
/// test thread can miss events that other test threads' callsites registered first.
#[tokio::test]
async fn the_log_line_of_a_faulted_request_names_the_rule() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tender-registry"))
        .args(["--testing", "--listen", "127.0.0.1:0", "--log", "info"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server binary starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let (lines_tx, lines) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let next_line = |what: &str| -> String {
        lines
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no log line {what}"))
    };
    let base = loop {
        let line = next_line("saying where the server listens");
        if let Some(at) = line.find("address=") {
            let rest = &line[at + "address=".len()..];
            break rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
        }
    };
    let client = reqwest::Client::new();
    let r = client
        .post(format!("{base}/testing/faults"))
        .basic_auth("broker", Some(""))
        .json(
            &json!({"data": {"match": {"path": "/api/2.3/spore"}, "fault": "error-before-commit"}}),
        )
        .send()
        .await
        .expect("rule set");
    assert_eq!(r.status(), 201);
    let stored: Value = r.json().await.expect("rule as JSON");
    let id = text(&stored["data"]["id"]);
    for expected in [503, 200] {
        let r = client
            .get(format!("{base}/api/2.3/spore"))
            .basic_auth("broker", Some(""))
            .send()
            .await
            .expect("spore answered");
        assert_eq!(r.status(), expected);
    }
    let mut spore = Vec::new();
    while spore.len() < 2 {
        let line = next_line("for each request to the spore");
        if line.contains("path=/api/2.3/spore") {
            spore.push(line);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        spore[0].contains("status=503")
            && spore[0].contains(&format!("fault_rule={id}"))
            && spore[0].contains("fault=\"error-before-commit\""),
        "{}",
        spore[0]
    );
    assert!(!spore[1].contains("fault_rule"), "{}", spore[1]);
}
