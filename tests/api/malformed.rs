//! Malformed input of every kind: an error in the envelope, never a panic, nothing changed.

use crate::common::*;
use serde_json::json;

/// A tender's creation whose JSON body is `body` as it is.
async fn create_raw(s: &TestServer, body: String) -> Reply {
    s.post("/api/2.3/tenders")
        .broker("broker")
        .raw("application/json", body)
        .send()
        .await
}

#[tokio::test]
async fn wrong_content_type_and_undecodable_bodies() {
    let s = TestServer::start().await;
    let (id, token, before) = s.published().await;
    let path = format!("/api/2.3/tenders/{id}?acc_token={token}");
    let r = s
        .patch(&path)
        .broker("broker")
        .raw("text/plain", "{}")
        .send()
        .await;
    r.assert_refused(
        415,
        "header",
        "Content-Type",
        "Content-Type header should be one of ['application/json']",
    );
    let r = s.post("/api/2.3/tenders").broker("broker").send().await;
    assert_eq!(r.status, 415, "no Content-Type at all");
    for (body, message) in [
        ("", "No JSON object could be decoded"),
        ("{not json", "No JSON object could be decoded"),
        ("\"data\"", "Data not available"),
        ("{\"not_data\": {}}", "Data not available"),
        ("{\"data\": []}", "Data not available"),
        ("{\"data\": \"x\"}", "Data not available"),
    ] {
        let r = s
            .patch(&path)
            .broker("broker")
            .raw("application/json", body)
            .send()
            .await;
        assert_eq!(
            (r.status, r.error()),
            (422, ("body".into(), "data".into(), json!(message))),
            "body {body:?}"
        );
        assert_eq!(
            r.header("content-type"),
            Some("application/json; charset=UTF-8")
        );
    }
    assert_eq!(s.tender(&id).await, before);
}

#[tokio::test]
async fn wrong_types_are_field_errors() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["value"] = json!("500");
    body["items"] = json!({"a": 1});
    body["enquiryPeriod"]["endDate"] = json!("invalid_value");
    body["title"] = json!(["a"]);
    let r = s.try_create(body).await.assert_status(422);
    let find = |name: &str| {
        r.body["errors"]
            .as_array()
            .and_then(|e| e.iter().find(|e| e["name"] == name))
            .map(|e| e["description"].clone())
    };
    assert_eq!(
        find("value"),
        Some(json!(
            "Please use a mapping for this field or Value instance instead of unicode."
        ))
    );
    assert_eq!(
        find("items"),
        Some(json!("Could not interpret the value as a list"))
    );
    assert_eq!(
        find("enquiryPeriod.endDate"),
        Some(json!("Could not parse invalid_value. Should be ISO8601."))
    );
    assert_eq!(
        find("title"),
        Some(json!("Couldn't interpret '[\"a\"]' as string."))
    );
    assert_eq!(
        s.get("/api/2.3/tenders").send().await.body["data"],
        json!([]),
        "nothing was stored"
    );
}

#[tokio::test]
async fn nested_problems_are_string_entries_named_by_their_path() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body.as_object_mut().map(|b| b.remove("title"));
    body["enquiryPeriod"]["endDate"] = json!("invalid_value");
    body["items"][0]["classification"]
        .as_object_mut()
        .map(|c| c.remove("id"));
    body["items"][0]["quantity"] = json!(-1);
    body["procuringEntity"]["contactPoint"]["email"] = json!("nobody");
    body["guarantee"] = json!({"amount": 5, "colour": "red"});
    body["colour"] = json!("red");
    let r = s.try_create(body).await.assert_status(422);
    let errors = r.body["errors"].as_array().cloned().unwrap_or_default();
    assert!(
        errors
            .iter()
            .all(|e| e["location"] == "body" && e["description"].is_string()),
        "every description is a string: {}",
        r.text
    );
    let find = |name: &str| {
        errors
            .iter()
            .find(|e| e["name"] == name)
            .map(|e| e["description"].clone())
    };
    for (name, description) in [
        ("title", "This field is required."),
        (
            "enquiryPeriod.endDate",
            "Could not parse invalid_value. Should be ISO8601.",
        ),
        ("items.0.classification.id", "This field is required."),
        ("items.0.quantity", "Int value should be greater than 0."),
        (
            "procuringEntity.contactPoint.email",
            "Not a well formed email address.",
        ),
        ("guarantee.colour", "Rogue field"),
        ("colour", "Rogue field"),
    ] {
        assert_eq!(find(name), Some(json!(description)), "{name} in {}", r.text);
    }
    assert_eq!(errors.len(), 7, "{}", r.text);
}

#[tokio::test]
async fn unknown_ids_paths_and_methods() {
    let (s, id, _) = TestServer::with_published().await;
    let zero = "0".repeat(32);
    let r = s.get(&format!("/api/2.3/tenders/{zero}")).send().await;
    r.assert_refused(404, "url", "tender_id", "Not Found");
    let r = s
        .by("broker")
        .patch(&format!("/api/2.3/tenders/{zero}"), json!({}))
        .await;
    assert_eq!(r.error().1, "tender_id");
    for (path, name) in [
        ("documents", "document_id"),
        ("bids", "bid_id"),
        ("awards", "award_id"),
        ("contracts", "contract_id"),
        ("questions", "question_id"),
    ] {
        let r = s
            .get(&format!("/api/2.3/tenders/{id}/{path}/{zero}"))
            .send()
            .await;
        assert_eq!((r.status, r.error().1), (404, name.to_string()), "{path}");
    }
    let r = s.get("/api/2.3/nothing").send().await;
    r.assert_refused(404, "url", "not_found", "Not Found");
    let r = s.delete(&format!("/api/2.3/tenders/{id}")).send().await;
    r.assert_refused(405, "url", "method_not_allowed", "Method Not Allowed");
    assert!(
        r.header("allow")
            .is_some_and(|a| a.contains("GET") && a.contains("PATCH")),
        "{:?}",
        r.header("allow")
    );
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let s = TestServer::start_with(tender_registry::Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        max_body: 4096,
        ..Default::default()
    })
    .await;
    let huge = format!("{{\"data\": {{\"title\": \"{}\"}}}}", "x".repeat(10_000));
    let r = create_raw(&s, huge).await;
    assert_eq!(
        (r.status, r.error().0),
        (413, "body".to_string()),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn deeply_nested_and_odd_json_does_not_break_the_server() {
    let s = TestServer::start().await;
    let nested = format!("{{\"data\": {}{}}}", "[".repeat(5000), "]".repeat(5000));
    let r = create_raw(&s, nested).await;
    assert_eq!(r.status, 422);
    let r = s
        .try_create(json!({"title": "\u{0000}", "value": {"amount": 1e308}, "items": [null]}))
        .await;
    assert_eq!(r.status, 422);
    assert_eq!(s.get("/api/2.3/tenders").send().await.status, 200);
}
