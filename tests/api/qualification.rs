//! Award decisions beyond approval and their documents, as brokers ran them upstream:
//! approve, cancel, approve anew and sign; disqualify everyone; the decision protocol.

use crate::common::*;
use serde_json::{Value, json};

/// The id of award `n` of the tender.
async fn award(s: &TestServer, id: &str, n: usize) -> String {
    text(&s.tender(id).await["awards"][n]["id"])
}

/// The owner's decision on `award` that awards a bid anew: taken, its `Location` naming the
/// fresh award, the tender's second. Answers the tender then and the fresh award's id.
async fn decided_anew(
    s: &TestServer,
    id: &str,
    token: &str,
    award: &str,
    status: &str,
) -> (Value, String) {
    let r = s
        .decide_award(id, token, award, status)
        .await
        .assert_status(200);
    let t = s.tender(id).await;
    let fresh = text(&t["awards"][1]["id"]);
    assert_eq!(
        r.header("Location"),
        Some(
            s.url(&format!("/api/2.3/tenders/{id}/awards/{fresh}"))
                .as_str()
        ),
        "Location names the fresh award"
    );
    (t, fresh)
}

#[tokio::test]
async fn approve_cancel_approve_anew_and_sign_with_decision_documents() {
    let s = TestServer::start().await;
    let (id, token, bids, first) = s.awaiting_decision(&[400.0]).await;

    let award_path = format!("{id}/awards/{first}");
    let protocol = s
        .owner(&token)
        .document_added(&award_path, "Protocol.pdf")
        .await;
    assert_eq!(protocol.body["data"]["author"], "tender_owner");
    assert!(text(&protocol.body["data"]["url"]).contains("Signature="));

    let approved = s
        .decide_award(&id, &token, &first, "active")
        .await
        .assert_status(200);
    assert_eq!(
        approved.header("Location"),
        None,
        "approval creates no award"
    );
    assert_eq!(s.tender(&id).await["status"], "active.awarded");
    let late = s.owner(&token).add_document(&award_path, "Late.pdf").await;
    late.assert_refused_saying(
        403,
        "Can't add document in current (active.awarded) tender status",
    );

    let (t, fresh) = decided_anew(&s, &id, &token, &first, "cancelled").await;
    assert_eq!(t["status"], "active.qualification");
    assert_eq!(t["awards"][0]["status"], "cancelled");
    assert!(
        text(&t["awards"][0]["complaintPeriod"]["endDate"]) <= s.now().await,
        "the stand-still of a cancelled award is cut"
    );
    assert_eq!(
        (
            t["awards"][1]["status"].clone(),
            t["awards"][1]["bid_id"].clone()
        ),
        (json!("pending"), json!(bids[0].0)),
        "the same bid is awarded anew"
    );
    assert_eq!(t["contracts"][0]["status"], "cancelled");
    assert_eq!(
        t["awards"][0]["documents"][0]["title"], "Protocol.pdf",
        "the decision protocol stays with the cancelled award"
    );

    let fresh_path = format!("{id}/awards/{fresh}");
    s.owner(&token)
        .document_added(&fresh_path, "Protocol-2.pdf")
        .await;
    let approved = s
        .decide_award(&id, &token, &fresh, "active")
        .await
        .assert_status(200);
    let stand_still = text(&approved.body["data"]["complaintPeriod"]["endDate"]);
    let t = s.tender(&id).await;
    let contract = t["contracts"][1].clone();
    assert_eq!(
        (contract["status"].clone(), contract["awardID"].clone()),
        (json!("pending"), json!(fresh))
    );
    let contract_path = format!("{id}/contracts/{}", text(&contract["id"]));
    let signed_copy = s
        .owner(&token)
        .document_added(&contract_path, "Contract.pdf")
        .await;
    assert!(signed_copy.body["data"].get("author").is_none());

    s.past(&stand_still).await;
    s.owner(&token)
        .patch(
            &contract_path,
            json!({"status": "active", "contractNumber": "12/2026"}),
        )
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "complete");
    assert_eq!(t["contracts"][1]["documents"][0]["title"], "Contract.pdf");
}

#[tokio::test]
async fn disqualifying_every_bidder_ends_unsuccessful_after_the_stand_still() {
    let s = TestServer::start().await;
    let (id, token, bids, first) = s.awaiting_decision(&[450.0, 420.0]).await;
    let (t, second) = decided_anew(&s, &id, &token, &first, "unsuccessful").await;
    assert_eq!(
        t["awards"][1]["bid_id"],
        json!(bids[0].0),
        "the next best bid"
    );
    let last = s
        .decide_award(&id, &token, &second, "unsuccessful")
        .await
        .assert_status(200);
    assert_eq!(last.header("Location"), None, "no bid is left to award");
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.awarded");
    assert_eq!(
        t["next_check"], last.body["data"]["complaintPeriod"]["endDate"],
        "the stand-still of the last decision is awaited"
    );
    let t = s.until_status(&id, "unsuccessful").await;
    assert!(t.get("next_check").is_none());
    assert!(t.get("contracts").is_none());
}

#[tokio::test]
async fn refused_decisions_change_nothing() {
    let s = TestServer::start().await;
    let (id, token, bids, first) = s.awaiting_decision(&[450.0, 420.0]).await;
    let path = format!("{id}/awards/{first}");
    let before = s.tender(&id).await;
    let cases = [
        (
            json!({"qualified": true, "eligible": true}),
            422,
            "qualified",
            "Rogue field",
        ),
        (
            json!({"status": "won"}),
            422,
            "status",
            "Value must be one of ['pending', 'active', 'unsuccessful', 'cancelled'].",
        ),
        (
            json!({"status": "cancelled"}),
            403,
            "data",
            "Can't update award in current (pending) status",
        ),
    ];
    for (data, status, name, description) in cases {
        let r = s.owner(&token).patch(&path, data.clone()).await;
        assert_eq!(
            (r.status, r.error().1, r.error().2),
            (status, name.to_string(), json!(description)),
            "{data}"
        );
    }
    let bidder = s
        .owner(&bids[0].1)
        .patch(&path, json!({"status": "active"}))
        .await;
    bidder.assert_refused_on(403, "permission");
    let unknown = s.decide_award(&id, &token, UNKNOWN_ID, "active").await;
    unknown.assert_refused_on(404, "award_id");
    assert_eq!(s.tender(&id).await, before, "nothing changed");

    s.decide_award(&id, &token, &first, "unsuccessful").await;
    for (to, from) in [
        ("pending", "unsuccessful"),
        ("cancelled", "unsuccessful"),
        ("active", "unsuccessful"),
    ] {
        let r = s.decide_award(&id, &token, &first, to).await;
        assert_eq!(
            (r.status, r.error().2),
            (
                403,
                json!(format!("Can't update award in current ({from}) status"))
            ),
            "{from} → {to}"
        );
    }
    let second = award(&s, &id, 1).await;
    s.decide_award(&id, &token, &second, "active").await;
    let r = s.decide_award(&id, &token, &second, "unsuccessful").await;
    assert_eq!(
        r.error().2,
        json!("Can't update award in current (active) status")
    );
    let titled = s
        .owner(&token)
        .patch(
            &format!("{id}/awards/{second}"),
            json!({"title": "Рішення", "description": "Переможець"}),
        )
        .await
        .assert_status(200);
    assert_eq!(
        (
            titled.body["data"]["title"].clone(),
            titled.body["data"]["status"].clone()
        ),
        (json!("Рішення"), json!("active"))
    );
}

#[tokio::test]
async fn decision_documents_keep_versions_and_refuse_bad_input() {
    let s = TestServer::start().await;
    let (id, token, bids, first) = s.awaiting_decision(&[400.0]).await;
    let docs = format!("{id}/awards/{first}/documents");
    let doc = s
        .owner(&token)
        .post(&docs, document_body("Protocol.pdf"))
        .await;
    let doc_id = doc.id();
    let mut bad = document_body("Bad.pdf");
    bad["hash"] = json!("md5:xyz");
    let r = s.owner(&token).post(&docs, bad).await;
    assert_eq!(
        (r.status, r.error().1, r.error().2),
        (422, "hash".into(), json!("Hash value is wrong length."))
    );
    let r = s
        .owner(&bids[0].1)
        .post(&docs, document_body("Bidder.pdf"))
        .await;
    r.assert_refused_on(403, "permission");
    let unknown = format!("/api/2.3/tenders/{id}/awards/{first}/documents/{UNKNOWN_ID}");
    s.assert_unknown(&unknown, "document_id").await;

    let description = "Рішення про визначення переможця";
    let doc_path = format!("{docs}/{doc_id}");
    let replaced = s
        .owner(&token)
        .describe_then_replace(&doc_path, description, "Protocol-v2.pdf")
        .await;
    assert_eq!(replaced.body["data"]["author"], "tender_owner");
    assert_eq!(replaced.body["data"]["description"], description);
    let one = s
        .get(&format!(
            "/api/2.3/tenders/{id}/awards/{first}/documents/{doc_id}"
        ))
        .send()
        .await;
    assert_eq!(count(&one.body["data"]["previousVersions"]), Some(1));
    let list = s
        .get(&format!("/api/2.3/tenders/{id}/awards/{first}/documents"))
        .send()
        .await;
    assert_eq!(count(&list.body["data"]), Some(1));

    s.decide_award(&id, &token, &first, "active").await;
    let r = s
        .owner(&token)
        .patch(&format!("{docs}/{doc_id}"), json!({"description": "x"}))
        .await;
    r.assert_refused_saying(
        403,
        "Can't update document in current (active.awarded) tender status",
    );
}

#[tokio::test]
async fn contract_documents_follow_the_contract() {
    let s = TestServer::start().await;
    let (id, token, _, first) = s.awaiting_decision(&[400.0]).await;
    s.decide_award(&id, &token, &first, "active").await;
    let contract = text(&s.tender(&id).await["contracts"][0]["id"]);
    let both = s
        .owner(&token)
        .patch(
            &format!("{id}/contracts/{contract}"),
            json!({"value": {"amount": 300, "currency": "USD", "valueAddedTaxIncluded": false}}),
        )
        .await;
    assert_eq!(
        both.error().2,
        json!("Can't update valueAddedTaxIncluded for contract value"),
        "the VAT flag is checked before the currency"
    );
    s.decide_award(&id, &token, &first, "cancelled").await;
    let r = s
        .owner(&token)
        .add_document(&format!("{id}/contracts/{contract}"), "Contract.pdf")
        .await;
    r.assert_refused_saying(403, "Can't add document in current contract status");
}
