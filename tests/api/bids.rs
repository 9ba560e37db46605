//! Bids: step by step and batch, their tokens, and their confidentiality.

use crate::common::*;
use serde_json::json;

#[tokio::test]
async fn no_bid_before_tendering() {
    let (s, id, _) = TestServer::with_published().await;
    let r = s.try_bid(&id, bid_body(400.0)).await;
    r.assert_refused(
        403,
        "body",
        "data",
        "Can't add bid in current (active.enquiries) tender status",
    );
}

#[tokio::test]
async fn step_by_step_registration_with_the_bid_token() {
    let (s, id, _) = TestServer::with_tendering().await;
    let before = s.tender(&id).await;
    let mut body = bid_body(400.0);
    body["status"] = json!("draft");
    let bids = format!("/api/2.3/tenders/{id}/bids");
    let r = s.by("broker1").post(&bids, body).await;
    let (bid, token) = (r.assert_created_in(&s, &bids), r.token());
    assert_eq!(r.body["data"]["status"], "draft");
    assert_eq!(
        r.body["data"]["value"],
        json!({"amount": 400.0, "currency": "UAH", "valueAddedTaxIncluded": true}),
        "currency comes from the tender"
    );

    let path = format!("{id}/bids/{bid}");
    let bidder = s.bidder(&token);
    let activated = bidder.patch(&path, json!({"status": "active"})).await;
    assert_eq!(
        activated.assert_status(200).body["data"]["status"],
        "active"
    );
    let back = bidder.patch(&path, json!({"status": "draft"})).await;
    assert_eq!(
        back.error(),
        (
            "body".into(),
            "bid".into(),
            json!("Can't update bid to (draft) status")
        )
    );

    let own = bidder.get(&path).await;
    assert_eq!((own.status, own.id()), (200, bid.clone()));
    let stolen = s
        .by("broker2")
        .get(&format!("/api/2.3/tenders/{path}?acc_token={token}"))
        .await;
    assert_eq!(
        stolen.error(),
        (
            "body".into(),
            "data".into(),
            json!("Can't view bid in current (active.tendering) tender status")
        )
    );
    let collection = s.get(&format!("/api/2.3/tenders/{id}/bids")).send().await;
    assert_eq!(
        collection.error().2,
        json!("Can't view bids in current (active.tendering) tender status")
    );

    let after = s.tender(&id).await;
    assert!(
        after.get("bids").is_none(),
        "bids stay hidden while tendering"
    );
    assert_eq!(
        after["dateModified"], before["dateModified"],
        "bid activity does not reach the feed"
    );
}

#[tokio::test]
async fn bid_rules() {
    let (s, id, _) = TestServer::with_tendering().await;
    let r = s.try_bid(&id, bid_body(501.0)).await;
    assert_eq!(
        r.error(),
        (
            "body".into(),
            "value".into(),
            json!("value of bid should be less than value of tender")
        )
    );
    let mut body = bid_body(400.0);
    body["value"]["currency"] = json!("USD");
    let r = s.try_bid(&id, body).await;
    assert_eq!(
        r.error().2,
        json!("currency of bid should be identical to currency of value of tender")
    );
    let mut body = bid_body(400.0);
    body["tenderers"] = json!([]);
    let r = s.try_bid(&id, body).await;
    assert_eq!(
        (r.error().1, r.error().2),
        ("tenderers".into(), json!("Please provide at least 1 item."))
    );
    let anonymous = s
        .anyone()
        .post(&format!("/api/2.3/tenders/{id}/bids"), bid_body(400.0))
        .await;
    assert_eq!(anonymous.error().1, "permission");
}

#[tokio::test]
async fn bid_documents_and_withdrawal() {
    let (s, id, _) = TestServer::with_tendering().await;
    let (bid, token) = s.bid(&id, 450.0).await;
    let bid_path = format!("{id}/bids/{bid}");
    let up = s
        .bidder(&token)
        .document_added(&bid_path, "Offer.pdf")
        .await;
    let doc = up.id();
    let docs = format!("/api/2.3/tenders/{bid_path}/documents");
    assert!(
        up.body["data"]["url"]
            .as_str()
            .unwrap_or_default()
            .starts_with(&format!("{}{docs}/{doc}?download=", s.base))
    );
    let list = s.bidder(&token).get(&docs).await;
    assert_eq!(count(&list.body["data"]), Some(1));
    let hidden = s.get(&docs).send().await;
    assert_eq!(
        hidden.error().2,
        json!("Can't view bid documents in current (active.tendering) tender status")
    );

    let gone = s.bidder(&token).delete(&bid_path).await;
    assert_eq!((gone.status, gone.id()), (200, bid.clone()));
    let again = s.bidder(&token).get(&bid_path).await;
    assert_eq!(
        again.error(),
        ("url".into(), "bid_id".into(), json!("Not Found"))
    );
}
