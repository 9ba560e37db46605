//! Tender cancellations: made pending or active by the owner, with documents; an active one
//! cancels the tender in any non-terminal status, and a cancelled tender refuses every write.

use crate::common::*;
use serde_json::json;

#[tokio::test]
async fn a_pending_cancellation_waits_and_its_activation_cancels_in_enquiries() {
    let (s, id, token) = TestServer::with_published().await;
    let made = s
        .cancel(&id, &token, json!({"reason": "Потреба відпала"}))
        .await;
    let cid = made.assert_created_in(&s, &format!("/api/2.3/tenders/{id}/cancellations"));
    assert!(made.body.get("access").is_none(), "no token of its own");
    let shown = &made.body["data"];
    assert_eq!(
        (
            shown["status"].clone(),
            shown["cancellationOf"].clone(),
            shown["reason"].clone()
        ),
        (json!("pending"), json!("tender"), json!("Потреба відпала"))
    );
    assert_eq!(
        s.tender(&id).await["status"],
        "active.enquiries",
        "a pending cancellation has no effect"
    );

    let cancellation = format!("{id}/cancellations/{cid}");
    let docs = format!("{cancellation}/documents");
    let doc = s
        .owner(&token)
        .document_added(&cancellation, "Reason.pdf")
        .await;
    assert!(doc.body["data"].get("author").is_none());
    let doc_path = format!("{docs}/{}", doc.id());
    let replaced = s
        .owner(&token)
        .describe_then_replace(&doc_path, "Changed description", "Reason-2.pdf")
        .await;
    assert_eq!(
        replaced.body["data"]["datePublished"],
        doc.body["data"]["datePublished"]
    );
    assert_eq!(replaced.body["data"]["description"], "Changed description");

    s.advance("PT1M").await;
    let active = s
        .owner(&token)
        .patch(
            &format!("{id}/cancellations/{cid}"),
            json!({"status": "active", "id": cid, "reason": "ignored"}),
        )
        .await
        .assert_status(200);
    assert_eq!(active.body["data"]["status"], "active");
    assert_eq!(
        active.body["data"]["reason"], "Потреба відпала",
        "reason is fixed"
    );
    assert!(text(&active.body["data"]["date"]) > text(&shown["date"]));
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "cancelled");
    assert!(t.get("next_check").is_none());
    assert_eq!(
        t["cancellations"][0]["documents"][0]["title"],
        "Reason-2.pdf"
    );

    let listed = s
        .get(&format!("/api/2.3/tenders/{id}/cancellations"))
        .send()
        .await;
    assert_eq!(listed.body["data"][0]["id"], json!(cid));
    s.advance("P10D").await;
    assert_eq!(
        s.tender(&id).await["status"],
        "cancelled",
        "the scheduler leaves a cancelled tender alone"
    );
}

#[tokio::test]
async fn cancelling_while_tendering_deletes_the_bids() {
    let (s, id, token) = TestServer::with_tendering().await;
    s.bid(&id, 400.0).await;
    s.bid(&id, 420.0).await;
    let made = s
        .cancel(
            &id,
            &token,
            json!({"reason": "Помилка в документації", "status": "active"}),
        )
        .await
        .assert_status(201);
    assert_eq!(made.body["data"]["status"], "active");
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "cancelled");
    assert!(t.get("bids").is_none(), "the bids are gone: {t}");
    assert_eq!(t["numberOfBids"], 0);
    let bids = s.get(&format!("/api/2.3/tenders/{id}/bids")).send().await;
    assert_eq!(bids.body["data"], json!([]));
}

#[tokio::test]
async fn cancelling_in_qualification_keeps_bids_awards_and_contracts() {
    let s = TestServer::start().await;
    let (id, token, _) = s.qualifying(&[400.0]).await;
    let made = s.cancel(&id, &token, json!({"reason": "Скасування"})).await;
    s.activate_cancellation(&id, &token, &made.id())
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "cancelled");
    assert_eq!(count(&t["bids"]), Some(1));
    assert_eq!(
        t["awards"][0]["status"], "pending",
        "awards stay as they were"
    );
}

#[tokio::test]
async fn a_cancelled_tender_refuses_every_write() {
    let s = TestServer::start().await;
    let (id, token, _, award) = s.awaiting_decision(&[400.0]).await;
    let pending = s.cancel(&id, &token, json!({"reason": "Друга"})).await.id();
    let active = s
        .cancel(&id, &token, json!({"reason": "Перша", "status": "active"}))
        .await
        .id();
    let doc = s
        .owner(&token)
        .add_document(&format!("{id}/cancellations/{active}"), "x.pdf")
        .await;
    assert_eq!(doc.status, 403);
    let before = s.tender(&id).await;
    let owner_writes = [
        (
            reqwest::Method::PATCH,
            String::new(),
            json!({"title": "Нова назва"}),
            "Can't update tender in current (cancelled) status",
        ),
        (
            reqwest::Method::POST,
            "/documents".into(),
            document_body("a.pdf"),
            "Can't add document in current (cancelled) tender status",
        ),
        (
            reqwest::Method::PATCH,
            format!("/awards/{award}"),
            json!({"status": "active"}),
            "Can't update award in current (cancelled) tender status",
        ),
        (
            reqwest::Method::POST,
            format!("/awards/{award}/documents"),
            document_body("a.pdf"),
            "Can't add document in current (cancelled) tender status",
        ),
        (
            reqwest::Method::POST,
            "/cancellations".into(),
            json!({"reason": "Ще раз"}),
            "Can't add cancellation in current (cancelled) tender status",
        ),
        (
            reqwest::Method::PATCH,
            format!("/cancellations/{pending}"),
            json!({"status": "active"}),
            "Can't update cancellation in current (cancelled) tender status",
        ),
        (
            reqwest::Method::POST,
            format!("/cancellations/{active}/documents"),
            document_body("a.pdf"),
            "Can't add document in current (cancelled) tender status",
        ),
    ];
    for (method, tail, data, description) in owner_writes {
        let r = s
            .owner(&token)
            .write(method.clone(), &format!("{id}{tail}"), data)
            .await;
        assert_eq!(
            (r.status, r.error().0, r.error().1, r.error().2),
            (403, "body".into(), "data".into(), json!(description)),
            "{method} {tail}"
        );
    }
    let bid = s.try_bid(&id, bid_body(300.0)).await;
    bid.assert_refused_saying(403, "Can't add bid in current (cancelled) tender status");
    let question = s.ask_question("broker1", &id, "Чому?").await;
    question.assert_status(403);
    assert_eq!(s.tender(&id).await, before, "nothing changed");
}

#[tokio::test]
async fn bad_cancellations_are_refused_and_change_nothing() {
    let (s, id, token) = TestServer::with_published().await;
    let (bid_tender, bid_token) = {
        let (tid, _) = s.tendering().await;
        let (_, bt) = s.bid(&tid, 300.0).await;
        (tid, bt)
    };
    let before = s.tender(&id).await;
    let cases = [
        (json!({}), "reason", "This field is required."),
        (
            json!({"reason": "x", "reasonType": "cancelled"}),
            "reasonType",
            "Rogue field",
        ),
        (
            json!({"reason": "x", "status": "done"}),
            "status",
            "Value must be one of ['pending', 'active'].",
        ),
        (
            json!({"reason": "x", "cancellationOf": "item"}),
            "cancellationOf",
            "Value must be one of ['tender', 'lot'].",
        ),
        (
            json!({"reason": "x", "cancellationOf": "lot"}),
            "relatedLot",
            "This field is required.",
        ),
        (
            json!({"reason": "x", "cancellationOf": "lot", "relatedLot": "0123456789abcdef0123456789abcdef"}),
            "relatedLot",
            "relatedLot should be one of lots",
        ),
    ];
    for (data, name, description) in cases {
        let r = s.cancel(&id, &token, data.clone()).await;
        assert_eq!(
            (r.status, r.error().1, r.error().2),
            (422, name.to_string(), json!(description)),
            "{data}"
        );
    }
    let cancellations = format!("/api/2.3/tenders/{id}/cancellations");
    let no_token = s
        .by("broker")
        .post(&cancellations, json!({"reason": "x"}))
        .await;
    no_token.assert_refused_on(403, "permission");
    let bidder = s
        .cancel(
            &bid_tender,
            &bid_token,
            json!({"reason": "x", "status": "active"}),
        )
        .await;
    bidder.assert_refused_on(403, "permission");
    let form = s
        .post(&format!(
            "/api/2.3/tenders/{id}/cancellations?acc_token={token}"
        ))
        .broker("broker")
        .raw("application/x-www-form-urlencoded", "reason=x")
        .send()
        .await;
    form.assert_refused_on(415, "Content-Type");
    let unknown = format!("/api/2.3/tenders/{id}/cancellations/{UNKNOWN_ID}");
    s.assert_unknown(&unknown, "cancellation_id").await;
    let unknown_patch = s.activate_cancellation(&id, &token, UNKNOWN_ID).await;
    assert_eq!(unknown_patch.status, 404);
    assert_eq!(s.tender(&id).await, before, "nothing changed");
    assert_eq!(s.tender(&bid_tender).await["status"], "active.tendering");
}
