//! Faults on demand (`/testing/faults`): each fault as a client sees it, whose requests a rule
//! hits and how often, rules scoped to a test clock, the refusals, and the log line that names
//! the rule.

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
            "Should be a path under /api/2.3 or /auctions such as /api/2.3/tenders/*/bids, where * stands for one whole path segment.",
        ),
        (
            json!({"match": {"path": "/testing/clock"}, "fault": "delay", "delay_ms": 1}),
            "match.path",
            "Should be a path under /api/2.3 or /auctions such as /api/2.3/tenders/*/bids, where * stands for one whole path segment.",
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

/// A new test clock of `broker`'s, standing where its clock stands: its id and now.
async fn test_clock(s: &TestServer, broker: &str) -> (String, String) {
    let r = s
        .by(broker)
        .post("/testing/clocks", json!({}))
        .await
        .assert_status(201);
    (r.id(), text(&r.body["data"]["now"]))
}

/// A call to the fault API at `path` as `broker`, scoped to test clock `clock` by the header.
fn on_clock(s: &TestServer, method: reqwest::Method, path: &str, clock: &str) -> Call {
    s.call(method, path)
        .broker("broker")
        .header("X-Testing-Clock", clock)
}

/// The rules `broker` sees with the header naming `clock`.
async fn rules_on(s: &TestServer, clock: &str) -> Value {
    let r = on_clock(s, reqwest::Method::GET, "/testing/faults", clock)
        .send()
        .await
        .assert_status(200);
    r.body["data"].clone()
}

/// Asks to create a tender as broker on test clock `clock` (by the header), dated `now`.
async fn create_on(s: &TestServer, clock: &str, now: &str) -> Reply {
    on_clock(s, reqwest::Method::POST, "/api/2.3/tenders", clock)
        .data(tender_body(now, 1, 4))
        .send()
        .await
}

/// Two CI jobs of one broker, each on a test clock of its own, each setting, reading and
/// clearing fault rules scoped to its clock: neither sees the other's, nor is hit by them.
#[tokio::test]
async fn two_jobs_of_one_broker_each_on_its_own_clock_neither_sees_nor_is_hit_by_the_other() {
    let s = TestServer::start().await;
    let ((a, now), (b, _)) = (
        test_clock(&s, "broker").await,
        test_clock(&s, "broker").await,
    );
    // Job A scopes its rule by the header, job B by match.clock.
    let mut a_creation = on_creation("error-after-commit");
    a_creation["times"] = json!(2);
    let a_rule = on_clock(&s, reqwest::Method::POST, "/testing/faults", &a)
        .data(a_creation)
        .send()
        .await
        .assert_status(201)
        .body["data"]
        .clone();
    assert_eq!(
        a_rule["match"],
        json!({"method": "POST", "path": "/api/2.3/tenders", "clock": a}),
        "anyone's requests on the clock"
    );
    let mut b_creation = on_creation("error-before-commit");
    b_creation["match"]["clock"] = json!(b);
    let b_rule = fault(&s, "broker", b_creation).await;

    let unscoped = s.try_create(tender_body(&now, 1, 4)).await;
    assert_eq!(unscoped.status, 201, "on no test clock: {}", unscoped.text);
    let b_try = create_on(&s, &b, &now).await;
    assert_eq!(
        (b_try.status, b_try.body.clone()),
        unavailable(503, "Service Unavailable")
    );
    assert_eq!(listed(&s).await.len(), 1, "job B's creation was refused");
    let a_try = create_on(&s, &a, &now).await;
    assert_eq!(a_try.status, 503, "{}", a_try.text);
    assert_eq!(listed(&s).await.len(), 2, "job A's tender was created");
    assert_eq!(rule(&s, &text(&a_rule["id"])).await["hits"], 1);
    assert_eq!(rule(&s, &text(&b_rule["id"])).await["hits"], 1);

    // Job B's rule is spent; job A's, one hit left, leaves B's creation (by the clock word) be.
    let mut by_word = tender_body(&now, 1, 4);
    by_word["procurementMethodDetails"] = json!(format!("quick, clock={b}"));
    let b_tender = s.try_create(by_word).await.assert_status(201).id();
    let a_tender = text(&listed(&s).await[1]["id"]);
    on_clock(&s, reqwest::Method::POST, "/testing/faults", &b)
        .data(json!({"match": {"method": "GET", "path": "/api/2.3/tenders/*"}, "fault": "error-before-commit", "probability": 1}))
        .send()
        .await
        .assert_status(201);
    let read = |id: &str| s.get(&format!("/api/2.3/tenders/{id}")).send();
    assert_eq!(read(&a_tender).await.status, 200, "job A's tender is read");
    assert_eq!(
        read(&b_tender).await.status,
        503,
        "job B's is not, by anyone"
    );

    let a_seen = rules_on(&s, &a).await;
    assert_eq!(a_seen, json!([rule(&s, &text(&a_rule["id"])).await]));
    let b_seen = rules_on(&s, &b).await;
    assert_eq!(b_seen.as_array().map(Vec::len), Some(2), "{b_seen}");
    assert!(
        b_seen
            .as_array()
            .into_iter()
            .flatten()
            .all(|r| r["match"]["clock"] == b)
    );
    let everyone = s.by("broker").get("/testing/faults").await;
    assert_eq!(
        count(&everyone.body["data"]),
        Some(3),
        "unscoped, as before"
    );

    let cleared = on_clock(&s, reqwest::Method::DELETE, "/testing/faults", &b)
        .send()
        .await
        .assert_status(200);
    assert_eq!(cleared.body["data"], b_seen, "job B's rules, as they were");
    assert_eq!(rules_on(&s, &b).await, json!([]));
    assert_eq!(rules_on(&s, &a).await, a_seen, "job A's rule stays");
    assert_eq!(read(&b_tender).await.status, 200);
    assert_eq!(
        create_on(&s, &a, &now).await.status,
        503,
        "and still hits job A"
    );
    // One rule by id, through another clock's scope, is not found.
    let a_path = format!("/testing/faults/{}", text(&a_rule["id"]));
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        on_clock(&s, method, &a_path, &b)
            .send()
            .await
            .assert_refused(404, "url", "fault_id", "Not Found");
    }
    let shown = on_clock(&s, reqwest::Method::GET, &a_path, &a).send().await;
    assert_eq!(
        (shown.status, &shown.body["data"]["hits"]),
        (200, &json!(2))
    );
}

/// A rule of a test clock hits every request to a record living on it, whoever sends it: the
/// tender and what lies under it, its auction's JSON, its contract under management.
#[tokio::test]
async fn a_clock_s_rule_hits_the_records_living_on_it_and_no_other() {
    let server = TestServer::start().await;
    let s = &server;
    let made = |shape: Value| async move {
        let r = s.by("broker").post("/testing/tenders", shape).await;
        assert_eq!(r.status, 201, "{}", r.text);
        r.body
    };
    let auction = made(json!({"status": "active.auction"})).await;
    let other = made(json!({"status": "active.auction"})).await;
    let clock = text(&auction["clock"]["id"]);
    let scoped = |method: &str, path: &str| {
        let rule = json!({"match": {"method": method, "path": path}, "fault": "error-before-commit", "probability": 1});
        on_clock(s, reqwest::Method::POST, "/testing/faults", &clock)
            .data(rule)
            .send()
    };
    for (method, path) in [
        ("GET", "/auctions/*/state"),
        ("GET", "/api/2.3/tenders/*/bids/*"),
        ("GET", "/api/2.3/contracts/*"),
    ] {
        scoped(method, path).await.assert_status(201);
    }
    let state = |answer: &Value| {
        let url = format!("{}/state", text(&answer["data"]["auctionUrl"]));
        async move { s.get(&url).send().await.status }
    };
    assert_eq!(
        state(&auction).await,
        503,
        "its auction's JSON, anonymously"
    );
    assert_eq!(state(&other).await, 200, "another clock's auction");
    let bid = |answer: &Value| {
        let (tender, b) = (text(&answer["data"]["id"]), &answer["bids"][0]);
        let path = format!(
            "/api/2.3/tenders/{tender}/bids/{}?acc_token={}",
            text(&b["id"]),
            text(&b["token"])
        );
        let broker = text(&b["broker"]);
        async move { s.by(&broker).get(&path).await.status }
    };
    assert_eq!(bid(&auction).await, 503, "another broker's read of its bid");
    assert_eq!(bid(&other).await, 200);
    s.get(&format!(
        "/api/2.3/tenders/{}",
        text(&auction["data"]["id"])
    ))
    .send()
    .await
    .assert_status(200);

    // A contract under management lives on its tender's clock; its rule is that clock's.
    let signed = made(json!({"status": "complete", "bids": 1, "contract": "active"})).await;
    let contract_clock = text(&signed["clock"]["id"]);
    let contract = text(&signed["contracts"][0]["id"]);
    let path = format!("/api/2.3/contracts/{contract}");
    assert_eq!(
        s.get(&path).send().await.status,
        200,
        "the rule is another clock's"
    );
    on_clock(s, reqwest::Method::POST, "/testing/faults", &contract_clock)
        .data(json!({"match": {"path": "/api/2.3/contracts/*"}, "fault": "error-before-commit"}))
        .send()
        .await
        .assert_status(201);
    assert_eq!(s.get(&path).send().await.status, 503);
}

/// Only a clock's owner names it, and only a live clock: an unknown, deleted or foreign one is
/// refused with the envelope, and nothing changes.
#[tokio::test]
async fn a_rule_on_an_unknown_deleted_or_foreign_clock_is_refused_and_nothing_changes() {
    let s = TestServer::start().await;
    let (mine, _) = test_clock(&s, "broker").await;
    let (theirs, _) = test_clock(&s, "broker1").await;
    let (gone, _) = test_clock(&s, "broker").await;
    s.by("broker")
        .delete(&format!("/testing/clocks/{gone}"))
        .await
        .assert_status(200);
    let kept = fault(&s, "broker", on_creation("drop-after-commit")).await;
    let before = s.get("/testing/faults").send().await.body["data"].clone();
    let rule = json!({"match": {"path": "/api/2.3/tenders"}, "fault": "error-before-commit"});
    let post = reqwest::Method::POST;
    for (call, status, location, name, description) in [
        (
            on_clock(&s, post.clone(), "/testing/faults", UNKNOWN_ID),
            422,
            "header",
            "X-Testing-Clock",
            format!("No test clock has the id {UNKNOWN_ID}."),
        ),
        (
            on_clock(&s, post.clone(), "/testing/faults", &gone),
            422,
            "header",
            "X-Testing-Clock",
            format!("The test clock {gone} was deleted: it is given no fault rules."),
        ),
        (
            on_clock(&s, post.clone(), "/testing/faults", &theirs),
            403,
            "header",
            "X-Testing-Clock",
            format!("The test clock {theirs} is another broker's."),
        ),
        (
            on_clock(&s, reqwest::Method::GET, "/testing/faults", &theirs),
            403,
            "header",
            "X-Testing-Clock",
            format!("The test clock {theirs} is another broker's."),
        ),
        (
            on_clock(&s, reqwest::Method::DELETE, "/testing/faults", &gone),
            422,
            "header",
            "X-Testing-Clock",
            format!("The test clock {gone} was deleted: it is given no fault rules."),
        ),
        (
            s.post("/testing/faults").header("X-Testing-Clock", &mine),
            403,
            "url",
            "permission",
            "Forbidden".to_string(),
        ),
        (
            s.delete("/testing/faults").header("X-Testing-Clock", &mine),
            403,
            "url",
            "permission",
            "Forbidden".to_string(),
        ),
    ] {
        let r = call.data(rule.clone()).send().await;
        r.assert_refused(status, location, name, description);
    }
    let in_body = |clock: &str| {
        let mut r = rule.clone();
        r["match"]["clock"] = json!(clock);
        r
    };
    fault_refused(&s, in_body(&theirs), 403, "match.clock").await;
    fault_refused(&s, in_body(UNKNOWN_ID), 422, "match.clock").await;
    let disagreeing = on_clock(&s, post.clone(), "/testing/faults", &mine)
        .data(in_body(&gone))
        .send()
        .await;
    disagreeing.assert_refused(
        422,
        "body",
        "match.clock",
        format!("It names the test clock {gone}, the X-Testing-Clock header another ({mine})."),
    );
    let mut naming_another = in_body(&mine);
    naming_another["match"]["broker"] = json!("broker1");
    fault_refused(&s, naming_another, 403, "permission").await;
    assert_eq!(
        s.get("/testing/faults").send().await.body["data"],
        before,
        "nothing was added nor removed"
    );
    assert_eq!(before, json!([kept]));
}

/// Sets `rule` as broker and asserts it is refused with `status`, naming `name`.
async fn fault_refused(s: &TestServer, rule: Value, status: u16, name: &str) {
    let r = set(s, Some("broker"), rule).await;
    r.assert_refused_on(status, name);
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
