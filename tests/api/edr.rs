//! The embedded EDR service: every documented code's answer in upstream's shapes, the
//! credentials it takes and refuses, the missing id, the service in every mode, and answers
//! set on demand, each broker's its own.

use crate::common::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tender_registry::Settings;

const MONDAY: &str = "2026-11-23T09:00:00.000000+02:00";

/// A check of `query` by `broker` through upstream's version `1.0`.
async fn verify(s: &TestServer, broker: &str, query: &str) -> Reply {
    s.get(&format!("/api/1.0/verify?{query}"))
        .broker(broker)
        .send()
        .await
}

/// Asserts a 200 naming one subject of `code` in `status`; answers the subject.
#[track_caller]
fn assert_found(r: &Reply, status: &str) -> Value {
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=UTF-8")
    );
    assert_eq!(count(&r.body["data"]), Some(1), "{}", r.text);
    let subject = r.body["data"][0].clone();
    assert_eq!(subject["registrationStatus"], status, "{}", r.text);
    assert_eq!(subject["identification"]["schema"], "UA-EDR");
    assert!(subject["x_edrInternalId"].is_u64(), "{}", r.text);
    assert!(
        subject["identification"]["legalName"]
            .as_str()
            .is_some_and(|n| !n.is_empty())
    );
    subject
}

/// Asserts upstream's refusal: its status and its one error, description and all.
#[track_caller]
fn assert_edr_refused(r: &Reply, status: u16, location: &str, name: &str, description: Value) {
    assert_eq!(r.body["status"], "error", "{}", r.text);
    assert_eq!(count(&r.body["errors"]), Some(1), "{}", r.text);
    r.assert_refused(status, location, name, description);
}

/// `broker` sets the answer `data` of `/testing/edr`.
async fn set(s: &TestServer, broker: &str, data: Value) -> Reply {
    s.by(broker).post("/testing/edr", data).await
}

fn not_found_at(moment: &str) -> Value {
    json!([{
        "error": {"errorDetails": "Couldn't find this code in EDR.", "code": "notFound"},
        "meta": {"sourceDate": moment},
    }])
}

#[tokio::test]
async fn upstream_s_documented_subject_is_answered_as_upstream_answered_it() {
    let s = TestServer::start().await;
    let r = verify(&s, "broker", "id=14360570").await;
    assert_found(&r, "registered");
    assert_eq!(
        r.body,
        json!({
            "data": [{
                "x_edrInternalId": 2842335,
                "registrationStatus": "registered",
                "registrationStatusDetails": "зареєстровано",
                "identification": {
                    "schema": "UA-EDR",
                    "id": "14360570",
                    "legalName": "АКЦІОНЕРНЕ ТОВАРИСТВО КОМЕРЦІЙНИЙ БАНК \"ПРИВАТБАНК\"",
                    "url": "https://zqedr-api.nais.gov.ua/1.0/subjects/2842335",
                },
            }],
            "meta": {"sourceDate": MONDAY},
        })
    );
    // Upstream's test suite asked version 0; only the tender API's own is not the service.
    let zero = s
        .get("/api/0/verify?id=14360570")
        .broker("broker")
        .send()
        .await;
    assert_eq!(zero.body, r.body);
    let own = s
        .get("/api/2.3/verify?id=14360570")
        .broker("broker")
        .send()
        .await;
    own.assert_refused(404, "url", "not_found", "Not Found");
}

#[tokio::test]
async fn every_well_formed_code_is_registered_under_a_name_of_its_own() {
    let s = TestServer::start().await;
    let entity = assert_found(&verify(&s, "broker", "id=31415926").await, "registered");
    assert_eq!(entity["registrationStatusDetails"], "зареєстровано");
    assert_eq!(entity["identification"]["id"], "31415926");
    let again = assert_found(&verify(&s, "broker1", "id=31415926").await, "registered");
    assert_eq!(
        again, entity,
        "the same subject for every broker, every time"
    );
    let other = assert_found(&verify(&s, "broker", "id=27182818").await, "registered");
    assert_ne!(other["x_edrInternalId"], entity["x_edrInternalId"]);
    assert_eq!(
        entity["identification"]["url"],
        format!(
            "https://zqedr-api.nais.gov.ua/1.0/subjects/{}",
            entity["x_edrInternalId"]
        )
    );
    // A person's number is confidential: an IPN and a passport show none.
    let person = assert_found(&verify(&s, "broker", "id=2894801234").await, "registered");
    assert_eq!(person["identification"]["id"], Value::Null);
    let booklet = assert_found(
        &verify(&s, "broker", "passport=%D1%81%D0%BD012345").await,
        "registered",
    );
    assert_eq!(booklet["identification"]["id"], Value::Null);
    let card = assert_found(
        &verify(&s, "broker", "passport=123456789").await,
        "registered",
    );
    assert_ne!(card["x_edrInternalId"], booklet["x_edrInternalId"]);
    // `id` wins over `passport`; an empty one is none.
    let both = verify(&s, "broker", "id=31415926&passport=123456789").await;
    assert_eq!(assert_found(&both, "registered"), entity);
    let empty = verify(&s, "broker", "id=&passport=123456789").await;
    assert_eq!(assert_found(&empty, "registered"), card);
}

#[tokio::test]
async fn each_reserved_code_answers_its_branch() {
    let s = TestServer::start().await;
    for (code, status, details) in [
        ("9900000002", "beingTerminated", "в стані припинення"),
        ("9900000003", "terminated", "припинено"),
        (
            "9900000004",
            "banckruptcyFiled",
            "порушено справу про банкрутство",
        ),
        (
            "9900000005",
            "banckruptcyReorganization",
            "порушено справу про банкрутство (санація)",
        ),
        (
            "9900000006",
            "invalidRegistraton",
            "зареєстровано, свідоцтво про державну реєстрацію недійсне",
        ),
        ("9900000009", "cancelled", "скасовано"),
    ] {
        let subject = assert_found(&verify(&s, "broker", &format!("id={code}")).await, status);
        assert_eq!(subject["registrationStatusDetails"], details, "{code}");
    }
    let r = verify(&s, "broker", "id=9900000404").await;
    assert_edr_refused(&r, 404, "body", "data", not_found_at(MONDAY));

    let r = verify(&s, "broker", "id=9900000429").await;
    assert_edr_refused(
        &r,
        429,
        "body",
        "data",
        json!([{"message": "Retry request after 26 seconds."}]),
    );
    assert_eq!(r.header("retry-after"), Some("26"));

    let r = verify(&s, "broker", "id=9900000502").await;
    let disabled = json!([{"message": "Service is disabled or upgrade."}]);
    assert_edr_refused(&r, 403, "body", "data", disabled);

    // Upstream answered a timeout after its wait for EDR, a second at the least.
    let started = Instant::now();
    let r = verify(&s, "broker", "id=9900000504").await;
    assert!(started.elapsed() >= Duration::from_secs(1));
    let timeout = json!([{"message": "Gateway Timeout Error"}]);
    assert_edr_refused(&r, 403, "url", "id", timeout);
}

#[tokio::test]
async fn a_missing_or_malformed_code_is_refused_as_upstream_refused_it() {
    let s = TestServer::start().await;
    let wrong_name = json!([{"message": "Wrong name of the GET parameter"}]);
    for query in ["", "code=14360570", "id=&passport="] {
        let r = verify(&s, "broker", query).await;
        assert_edr_refused(&r, 403, "url", "id", wrong_name.clone());
    }
    // EDR knows no id of another form: not found, as upstream's own example (id=123) shows.
    for id in ["123", "143605701", "1436057O", "%20%2014360570"] {
        let r = verify(&s, "broker", &format!("id={id}")).await;
        assert_edr_refused(&r, 404, "body", "data", not_found_at(MONDAY));
    }
    let wrong_value = json!([{"code": 11, "message": "`passport` parameter has wrong value."}]);
    for passport in [
        "CH012345",
        "12345678901",
        "%D0%9F%D0%90%D0%A1%D0%9F%D0%9E%D0%A0%D0%A2",
    ] {
        let r = verify(&s, "broker", &format!("passport={passport}")).await;
        assert_edr_refused(&r, 403, "body", "data", wrong_value.clone());
    }
}

#[tokio::test]
async fn the_source_date_is_the_checking_broker_s_now() {
    let s = TestServer::start().await;
    s.by("broker1")
        .move_clock(json!({"advance": "P1DT2H"}))
        .await
        .assert_status(200);
    let r = verify(&s, "broker1", "id=14360570").await;
    assert_eq!(
        r.body["meta"]["sourceDate"],
        "2026-11-24T11:00:00.000000+02:00"
    );
    let r = verify(&s, "broker", "id=9900000404").await;
    assert_eq!(r.error().2, not_found_at(MONDAY));
}

/// A users file with a `[platforms]` user of the EDR service, an `[uploaders]` one of the
/// document service and a `[robots]` one.
fn users_file(dir: &std::path::Path) -> std::path::PathBuf {
    let users = dir.join("users.ini");
    std::fs::write(
        &users,
        format!(
            "[uploaders]\nuploader = {}\n[platforms]\nplatform = {}\n[robots]\nrobot = {}\n",
            sha512_hex("uploader"),
            sha512_hex("platform"),
            sha512_hex("robot"),
        ),
    )
    .unwrap();
    users
}

#[tokio::test]
async fn a_broker_s_key_or_a_platform_user_checks_and_anyone_else_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        ds_users: Some(users_file(dir.path())),
        ..Settings::default()
    })
    .await;
    let check = |user: &str, password: &str| {
        s.get("/api/1.0/verify?id=14360570")
            .basic(user, password)
            .send()
    };
    assert_found(&check("broker", "").await, "registered");
    assert_found(&check("broker2", "any password").await, "registered");
    assert_found(&check("platform", "platform").await, "registered");
    let bearer = s
        .get("/api/1.0/verify?id=14360570")
        .header("Authorization", "Bearer broker1")
        .send()
        .await;
    assert_found(&bearer, "registered");
    for (user, password) in [
        ("stranger", ""),
        ("platform", "wrong"),
        ("platform", ""),
        ("PLATFORM", "platform"),
        ("uploader", "uploader"),
        ("robot", "robot"),
    ] {
        let r = check(user, password).await;
        assert_edr_refused(&r, 403, "url", "permission", json!("Forbidden"));
    }
    let none = s.get("/api/1.0/verify?id=14360570").send().await;
    assert_edr_refused(&none, 403, "url", "permission", json!("Forbidden"));
    let refused_first = s.get("/api/1.0/verify").send().await;
    assert_edr_refused(&refused_first, 403, "url", "permission", json!("Forbidden"));
    // The EDR service's user is not the document service's.
    let upload = s
        .post("/register")
        .basic("platform", "platform")
        .data(json!({"hash": format!("md5:{}", "0".repeat(32))}))
        .send()
        .await;
    upload.assert_refused(403, "url", "permission", "Forbidden");
}

#[tokio::test]
async fn a_brokers_file_s_platforms_check_with_their_password() {
    let dir = tempfile::tempdir().unwrap();
    let brokers = dir.path().join("auth.ini");
    std::fs::write(
        &brokers,
        format!(
            "[brokers]\nacme = acme-key\n[platforms]\nacme.edr = {}\n",
            sha512_hex("edr-secret")
        ),
    )
    .unwrap();
    let s = TestServer::start_with(Settings {
        brokers: Some(brokers),
        ..Settings::default()
    })
    .await;
    let check = |user: &str, password: &str| {
        s.get("/api/1.0/verify?id=00037256")
            .basic(user, password)
            .send()
    };
    let r = check("acme.edr", "edr-secret").await;
    assert_eq!(
        assert_found(&r, "registered")["identification"]["legalName"],
        "ДЕРЖАВНЕ УПРАВЛІННЯ СПРАВАМИ"
    );
    assert_found(&check("acme-key", "").await, "registered");
    for (user, password) in [("acme.edr", "acme-key"), ("acme", ""), ("broker", "")] {
        check(user, password)
            .await
            .assert_refused(403, "url", "permission", "Forbidden");
    }
}

#[tokio::test]
async fn the_service_is_offered_in_every_mode_and_its_answers_on_demand_only_on_a_sandbox() {
    let s = TestServer::start_with(Settings::default()).await;
    assert_found(&verify(&s, "broker", "id=14360570").await, "registered");
    let r = verify(&s, "broker", "id=9900000003").await;
    assert_found(&r, "terminated");
    let set = s
        .by("broker")
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "terminated"}),
        )
        .await;
    set.assert_refused(404, "url", "not_found", "Not Found");
    let sandbox = TestServer::sandbox().await;
    assert_found(
        &verify(&sandbox, "broker", "id=14360570").await,
        "registered",
    );
}

#[tokio::test]
async fn answers_set_on_demand_come_first_for_the_checks_they_are_for() {
    let s = TestServer::start().await;
    // A broker's answer is for its own checks.
    let r = s
        .by("broker")
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "terminated"}),
        )
        .await;
    let mine = r.assert_created_in(&s, "/testing/edr");
    assert_eq!(
        r.body["data"],
        json!({"id": mine, "code": "14360570", "answer": "terminated", "broker": "broker", "hits": 0})
    );
    let terminated = assert_found(&verify(&s, "broker", "id=14360570").await, "terminated");
    assert_eq!(terminated["registrationStatusDetails"], "припинено");
    assert_eq!(terminated["x_edrInternalId"], 2842335, "the same subject");
    assert_found(&verify(&s, "broker1", "id=14360570").await, "registered");

    // Without credentials, on a server its runner owns: everyone's checks, after a broker's own.
    let everyone = s
        .anyone()
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "not-found"}),
        )
        .await
        .assert_status(201);
    assert_found(&verify(&s, "broker", "id=14360570").await, "terminated");
    let r = verify(&s, "broker1", "id=14360570").await;
    assert_edr_refused(&r, 404, "body", "data", not_found_at(MONDAY));

    // Set again for the same checks, a code's answer replaces the one before; once its count
    // runs out, the answer for everyone's checks shows.
    let once = json!({"code": "14360570", "answer": "throttled", "retry_after": 3, "times": 1});
    let throttled = set(&s, "broker", once).await;
    let throttled = throttled.assert_created_in(&s, "/testing/edr");
    let r = verify(&s, "broker", "id=14360570").await;
    assert_eq!((r.status, r.header("retry-after")), (429, Some("3")));
    let r = verify(&s, "broker", "id=14360570").await;
    assert_edr_refused(&r, 404, "body", "data", not_found_at(MONDAY));
    let read = s
        .by("broker")
        .get(&format!("/testing/edr/{throttled}"))
        .await
        .assert_status(200);
    assert_eq!(
        (
            read.body["data"]["times"].clone(),
            read.body["data"]["hits"].clone()
        ),
        (json!(0), json!(1))
    );
    let listed = s.by("broker").get("/testing/edr").await.assert_status(200);
    let ids: Vec<String> = ids(&listed.body);
    assert_eq!(ids, [everyone.id(), throttled.clone()], "{}", listed.text);

    // A passport's answer, set in lower case, meets the check in either case.
    s.by("broker2")
        .post(
            "/testing/edr",
            json!({"code": "сн012345", "answer": "timeout"}),
        )
        .await
        .assert_status(201);
    let r = verify(&s, "broker2", "passport=%D0%A1%D0%9D012345").await;
    assert_edr_refused(
        &r,
        403,
        "url",
        "id",
        json!([{"message": "Gateway Timeout Error"}]),
    );

    // Removed, a code answers as built in again.
    let removed = s
        .anyone()
        .delete(&format!("/testing/edr/{}", everyone.id()))
        .await
        .assert_status(200);
    assert_eq!(
        removed.body["data"]["hits"], 2,
        "broker1's check and broker's"
    );
    assert_found(&verify(&s, "broker1", "id=14360570").await, "registered");
    let cleared = s.anyone().delete("/testing/edr").await.assert_status(200);
    assert_eq!(count(&cleared.body["data"]), Some(2), "{}", cleared.text);
    assert_eq!(
        count(&s.anyone().get("/testing/edr").await.body["data"]),
        Some(0)
    );
    s.anyone()
        .get(&format!("/testing/edr/{throttled}"))
        .await
        .assert_refused(404, "url", "answer_id", "Not Found");
}

#[tokio::test]
async fn a_bad_answer_is_refused_with_every_problem_and_changes_nothing() {
    let s = TestServer::start().await;
    let r = s
        .by("broker")
        .post(
            "/testing/edr",
            json!({"code": "1436057", "answer": "bankrupt", "times": 0, "colour": "red"}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let mut names = r.error_names();
    names.sort();
    assert_eq!(names, ["answer", "code", "colour", "times"]);
    let r = s
        .by("broker")
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "terminated", "retry_after": 5}),
        )
        .await;
    r.assert_refused(
        422,
        "body",
        "retry_after",
        "Only a throttled answer has retry_after.",
    );
    let r = s
        .by("broker")
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "throttled", "retry_after": 3601}),
        )
        .await;
    r.assert_refused_on(422, "retry_after");
    let r = s
        .anyone()
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "terminated", "broker": "ghost"}),
        )
        .await;
    r.assert_refused(422, "body", "broker", "No broker is named ghost.");
    let r = s
        .by("broker")
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "terminated", "broker": "broker1"}),
        )
        .await;
    r.assert_refused(
        403,
        "url",
        "permission",
        "Forbidden: a broker's EDR answers hit its own requests alone, and broker names \
         broker1; leave it out, or name broker",
    );
    let r = s
        .by("stranger")
        .post(
            "/testing/edr",
            json!({"code": "14360570", "answer": "terminated"}),
        )
        .await;
    r.assert_refused(403, "url", "permission", "Forbidden");
    for (content_type, body) in [
        ("application/json", "not json"),
        ("application/json", "[1]"),
        ("application/json", "{\"data\": \"terminated\"}"),
        ("text/plain", "{}"),
    ] {
        let r = s
            .post("/testing/edr")
            .broker("broker")
            .raw(content_type, body)
            .send()
            .await;
        assert!(
            [415, 422].contains(&r.status) && r.body["status"] == "error",
            "{body}: {}",
            r.text
        );
    }
    s.by("broker")
        .get("/testing/edr/0123456789abcdef0123456789abcdef")
        .await
        .assert_refused(404, "url", "answer_id", "Not Found");
    assert_eq!(
        count(&s.anyone().get("/testing/edr").await.body["data"]),
        Some(0)
    );
    assert_found(&verify(&s, "broker", "id=14360570").await, "registered");
}

#[tokio::test]
async fn on_a_shared_sandbox_each_broker_sets_and_sees_its_own_answers() {
    let s = TestServer::sandbox().await;
    let mine = set(
        &s,
        "broker",
        json!({"code": "00037256", "answer": "cancelled"}),
    )
    .await
    .assert_status(201);
    set(
        &s,
        "broker1",
        json!({"code": "00037256", "answer": "not-found"}),
    )
    .await
    .assert_status(201);
    assert_found(&verify(&s, "broker", "id=00037256").await, "cancelled");
    assert_eq!(verify(&s, "broker1", "id=00037256").await.status, 404);
    assert_found(&verify(&s, "broker2", "id=00037256").await, "registered");

    let listed = s.by("broker").get("/testing/edr").await.assert_status(200);
    assert_eq!(ids(&listed.body), [mine.id()]);
    s.by("broker1")
        .get(&format!("/testing/edr/{}", mine.id()))
        .await
        .assert_refused(404, "url", "answer_id", "Not Found");
    s.by("broker1")
        .delete(&format!("/testing/edr/{}", mine.id()))
        .await
        .assert_refused(404, "url", "answer_id", "Not Found");
    let cleared = s
        .by("broker1")
        .delete("/testing/edr")
        .await
        .assert_status(200);
    assert_eq!(count(&cleared.body["data"]), Some(1));
    assert_found(&verify(&s, "broker", "id=00037256").await, "cancelled");

    // Nobody sets or reads everyone's answers on a shared server.
    let r = s
        .anyone()
        .post(
            "/testing/edr",
            json!({"code": "00037256", "answer": "terminated"}),
        )
        .await;
    r.assert_refused(
        403,
        "url",
        "permission",
        "Forbidden: on a public sandbox an EDR answer hits one broker's own requests: set it \
         with your broker's credentials",
    );
    let r = set(
        &s,
        "broker",
        json!({"code": "00037256", "answer": "terminated", "broker": "broker2"}),
    )
    .await;
    r.assert_refused(
        403,
        "url",
        "permission",
        "Forbidden: a broker's EDR answers hit its own requests alone, and broker names \
         broker2; leave it out, or name broker",
    );
    assert_eq!(
        count(&s.anyone().get("/testing/edr").await.body["data"]),
        Some(0)
    );
}
