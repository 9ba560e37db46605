//! The spec's conventions 1–10, as a client sees them on creation and reads.

use crate::common::*;
use serde_json::json;

fn is_hex32(s: &str) -> bool {
    s.len() == 32
        && s.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

/// `2017-07-25T17:36:55.659566+03:00`: offset and six fractional digits.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 32
        && b[10] == b'T'
        && b[19] == b'.'
        && b[20..26].iter().all(u8::is_ascii_digit)
        && (b[26] == b'+' || b[26] == b'-')
        && b[29] == b':'
}

#[tokio::test]
async fn creation_answers_201_with_location_token_and_envelope() {
    let s = TestServer::start().await;
    let r = s
        .by("broker")
        .post("/api/2.3/tenders", tender_body(&s.now().await, 1, 4))
        .await
        .assert_status(201);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=UTF-8")
    );
    let id = r.id();
    assert!(is_hex32(&id), "{id}");
    assert_eq!(
        r.header("location"),
        Some(format!("{}/api/2.3/tenders/{id}", s.base).as_str())
    );
    assert!(is_hex32(&r.token()));
    let t = &r.body["data"];
    assert_eq!(t["status"], "active.enquiries");
    assert_eq!(t["owner"], "broker");
    assert_eq!(t["procurementMethod"], "open");
    assert_eq!(t["awardCriteria"], "lowestCost");
    assert_eq!(t["submissionMethod"], "electronicAuction");
    assert_eq!(t["items"][0]["id"], "item-1", "a client item id is kept");
    assert_eq!(
        t["enquiryPeriod"]["endDate"],
        t["tenderPeriod"]["startDate"]
    );
    assert_eq!(t["next_check"], t["tenderPeriod"]["startDate"]);
    let tender_id = t["tenderID"].as_str().unwrap_or_default();
    assert!(
        tender_id.starts_with("UA-") && tender_id.len() == 20 && tender_id.ends_with("-000001"),
        "{tender_id}"
    );
}

#[tokio::test]
async fn amounts_are_decimals_and_timestamps_carry_offset_and_microseconds() {
    let s = TestServer::start().await;
    let (id, _, data) = s.published().await;
    let read = s.get(&format!("/api/2.3/tenders/{id}")).send().await;
    assert!(
        read.text
            .contains(r#""value":{"amount":500.0,"currency":"UAH","valueAddedTaxIncluded":true}"#),
        "{}",
        read.text
    );
    for field in [
        &data["date"],
        &data["dateModified"],
        &data["enquiryPeriod"]["startDate"],
        &data["tenderPeriod"]["endDate"],
        &data["next_check"],
    ] {
        let text = field.as_str().unwrap_or_default();
        assert!(is_timestamp(text), "{text}");
    }
}

#[tokio::test]
async fn input_without_offset_is_read_in_the_server_zone() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["tenderPeriod"]["endDate"] = json!("2031-07-25T17:36");
    body["enquiryPeriod"]["endDate"] = json!("2031-01-10");
    let (_, _, data) = s.create(body).await;
    assert_eq!(
        data["tenderPeriod"]["endDate"],
        "2031-07-25T17:36:00.000000+03:00"
    );
    assert_eq!(
        data["enquiryPeriod"]["endDate"],
        "2031-01-10T00:00:00.000000+02:00"
    );
}

#[tokio::test]
async fn opt_pretty_indents_and_reads_are_the_same_data() {
    let (s, id, _) = TestServer::with_published().await;
    let plain = s.get(&format!("/api/2.3/tenders/{id}")).send().await;
    let pretty = s
        .get(&format!("/api/2.3/tenders/{id}?opt_pretty=1"))
        .send()
        .await;
    assert!(pretty.text.contains("\n    \"data\": {"), "{}", pretty.text);
    assert!(!plain.text.contains('\n'));
    assert_eq!(plain.body, pretty.body);
}

#[tokio::test]
async fn every_response_has_a_request_id() {
    let s = TestServer::start().await;
    let r = s.get("/api/2.3/tenders").send().await;
    assert!(
        r.header("x-request-id")
            .is_some_and(|v| v.starts_with("req-"))
    );
}
