//! Brokers and tokens: where a token may be presented, and who may use it.

use crate::common::*;
use serde_json::json;
use std::io::Write;

#[tokio::test]
async fn token_in_query_header_or_body() {
    let (s, id, token) = TestServer::with_published().await;
    let path = format!("/api/2.3/tenders/{id}");
    // The owner's voice sends its token in the query.
    let q = s
        .owner(&token)
        .patch(&path, json!({"description": "1"}))
        .await;
    let h = s
        .patch(&path)
        .broker("broker")
        .header("X-Access-Token", &token)
        .data(json!({"description": "2"}))
        .send()
        .await;
    let b = s
        .patch(&path)
        .broker("broker")
        .json(&json!({"data": {"description": "3"}, "access": {"token": token}}))
        .send()
        .await;
    assert_eq!([q.status, h.status, b.status], [200, 200, 200]);
    assert_eq!(s.tender(&id).await["description"], "3");
}

#[tokio::test]
async fn a_token_is_bound_to_its_broker() {
    let s = TestServer::start().await;
    let (id, token, before) = s.published().await;
    let path = format!("/api/2.3/tenders/{id}?acc_token={token}");
    for r in [
        s.by("broker1")
            .patch(&path, json!({"description": "x"}))
            .await,
        s.anyone().patch(&path, json!({"description": "x"})).await,
        s.by("nobody")
            .patch(&path, json!({"description": "x"}))
            .await,
        s.by("broker")
            .patch(
                &format!("/api/2.3/tenders/{id}?acc_token=wrong"),
                json!({"description": "x"}),
            )
            .await,
    ] {
        assert_eq!(
            (r.status, r.error()),
            (403, ("url".into(), "permission".into(), json!("Forbidden"))),
            "{}",
            r.text
        );
    }
    assert_eq!(s.tender(&id).await, before);
    let anonymous = s
        .anyone()
        .post("/api/2.3/tenders", tender_body(&s.now().await, 1, 4))
        .await;
    assert_eq!(anonymous.status, 403);
}

#[tokio::test]
async fn reads_are_open_and_spore_answers_head() {
    let (s, id, _) = TestServer::with_published().await;
    assert_eq!(
        s.get(&format!("/api/2.3/tenders/{id}")).send().await.status,
        200
    );
    assert_eq!(
        s.call(reqwest::Method::HEAD, "/api/2.3/spore")
            .send()
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn brokers_file_names_owners_and_levels() {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    writeln!(
        file,
        "[brokers]\nacme = acme-key\nviewer = viewer-key,2\ntester = tester-key,1t"
    )
    .expect("write");
    let s = TestServer::start_with(tender_registry::Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        brokers: Some(file.path().to_path_buf()),
        ..Default::default()
    })
    .await;
    let body = tender_body(&s.now().await, 1, 4);
    let r = s
        .by("acme-key")
        .post("/api/2.3/tenders", body.clone())
        .await;
    assert_eq!(
        (r.status, r.body["data"]["owner"].clone()),
        (201, json!("acme"))
    );
    let r = s
        .by("viewer-key")
        .post("/api/2.3/tenders", body.clone())
        .await;
    assert_eq!(
        r.error(),
        (
            "procurementMethodType".into(),
            "accreditation".into(),
            json!("Broker Accreditation level does not permit tender creation")
        )
    );
    let r = s
        .by("tester-key")
        .post("/api/2.3/tenders", body.clone())
        .await;
    assert_eq!(
        r.error().1,
        "mode",
        "a test-only broker creates test tenders only"
    );
    let mut test = body;
    test["mode"] = json!("test");
    assert_eq!(
        s.by("tester-key")
            .post("/api/2.3/tenders", test)
            .await
            .status,
        201
    );
    assert_eq!(
        s.by("broker")
            .post("/api/2.3/tenders", tender_body(&s.now().await, 1, 4))
            .await
            .status,
        403,
        "built-in brokers are replaced"
    );
}
