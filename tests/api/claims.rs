//! Claims on the tender and on awards: filed, answered, settled by the claimant or by the
//! stand-still, cancelled; an answered claim stops the contract, an unanswered one is
//! ignored once the tender completes.

use crate::common::*;
use serde_json::{Value, json};

fn parse(v: &Value) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(
        v.as_str().unwrap_or_default(),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("timestamp")
}

const RESOLUTION: &str = "Умови тендеру буде змінено найближчим часом";

fn claim_body(status: Option<&str>) -> Value {
    let mut body = json!({
        "title": "Недискримінаційні умови",
        "description": "Вимагаємо змінити умови",
        "author": organization(),
    });
    if let Some(s) = status {
        body["status"] = json!(s);
    }
    body
}

/// Files a claim on `path` (`{tender}/complaints` or `{tender}/awards/{award}/complaints`)
/// as `broker2`, with `token` where one is needed.
async fn file(s: &TestServer, path: &str, token: Option<&str>, data: Value) -> Reply {
    let url = match token {
        Some(t) => format!("/api/2.3/tenders/{path}?acc_token={t}"),
        None => format!("/api/2.3/tenders/{path}"),
    };
    let broker = if token.is_some() {
        "broker1"
    } else {
        "broker2"
    };
    s.by(broker).post(&url, data).await
}

/// A change of a claim with `token`, as the broker that holds it.
async fn change(s: &TestServer, path: &str, broker: &str, token: &str, data: Value) -> Reply {
    s.by(broker)
        .patch(&format!("/api/2.3/tenders/{path}?acc_token={token}"), data)
        .await
}

/// The claimant (`broker` holding the claim's `token`) accepts the owner's answer: the claim
/// is resolved, the claimant satisfied.
async fn accept_answer(s: &TestServer, path: &str, broker: &str, token: &str) -> Reply {
    let data = json!({"status": "resolved", "satisfied": true});
    change(s, path, broker, token, data).await
}

/// The claim at `path` cancelled by `broker` holding `token`, for `reason`.
async fn withdraw(s: &TestServer, path: &str, broker: &str, token: &str, reason: &str) -> Reply {
    let data = json!({"status": "cancelled", "cancellationReason": reason});
    change(s, path, broker, token, data).await
}

/// Asserts a claim's status and whether its claimant said it was satisfied.
#[track_caller]
fn assert_verdict(claim: &Value, status: &str, satisfied: bool) {
    assert_eq!(
        (&claim["status"], &claim["satisfied"]),
        (&json!(status), &json!(satisfied)),
        "{claim}"
    );
}

async fn read(s: &TestServer, path: &str) -> Value {
    s.read(&format!("/api/2.3/tenders/{path}")).await["data"].clone()
}

/// A tender claim submitted at once; returns (claim path, claimant token).
async fn submitted(s: &TestServer, id: &str) -> (String, String) {
    let r = file(
        s,
        &format!("{id}/complaints"),
        None,
        claim_body(Some("claim")),
    )
    .await
    .assert_status(201);
    (format!("{id}/complaints/{}", r.id()), r.token())
}

async fn answer(s: &TestServer, path: &str, owner: &str, kind: &str) -> Reply {
    change(
        s,
        path,
        "broker",
        owner,
        json!({"status": "answered", "resolutionType": kind, "resolution": RESOLUTION}),
    )
    .await
}

#[tokio::test]
async fn a_claim_answered_resolved_and_accepted_with_satisfaction() {
    let (s, id, owner) = TestServer::with_published().await;
    let made = file(&s, &format!("{id}/complaints"), None, claim_body(None)).await;
    let cid = made.assert_created_in(&s, &format!("/api/2.3/tenders/{id}/complaints"));
    let token = made.token();
    let shown = &made.body["data"];
    assert_eq!(
        (&shown["status"], &shown["type"]),
        (&json!("draft"), &json!("claim"))
    );
    assert_eq!(shown["author"]["name"], organization()["name"]);
    assert!(text(&shown["complaintID"]).ends_with(".1"));
    let path = format!("{id}/complaints/{cid}");
    let read_back = read(&s, &path).await;
    assert!(
        read_back.get("author").is_none(),
        "hidden while enquiries run"
    );
    assert!(s.tender(&id).await["complaints"][0].get("author").is_none());

    let edited = change(
        &s,
        &path,
        "broker2",
        &token,
        json!({"title": "Нові умови", "status": "claim", "id": cid}),
    )
    .await
    .assert_status(200);
    assert_eq!(
        (
            &edited.body["data"]["status"],
            &edited.body["data"]["title"]
        ),
        (&json!("claim"), &json!("Нові умови"))
    );
    assert!(edited.body["data"]["dateSubmitted"].is_string());

    let short = change(
        &s,
        &path,
        "broker",
        &owner,
        json!({"status": "answered", "resolutionType": "resolved", "resolution": "коротко"}),
    )
    .await;
    short.assert_refused(
        403,
        "body",
        "data",
        "Can't update complaint: resolution too short",
    );
    let untyped = change(
        &s,
        &path,
        "broker",
        &owner,
        json!({"status": "answered", "resolution": RESOLUTION}),
    )
    .await;
    untyped.assert_refused(422, "body", "resolutionType", "This field is required.");
    let answered = change(
        &s,
        &path,
        "broker",
        &owner,
        json!({"status": "answered", "resolutionType": "resolved", "resolution": RESOLUTION, "tendererAction": "Змінено"}),
    )
    .await.assert_status(200);
    let a = &answered.body["data"];
    assert_eq!(a["status"], "answered");
    assert!(a["dateAnswered"].is_string() && a["tendererActionDate"].is_string());

    let resolved = accept_answer(&s, &path, "broker2", &token)
        .await
        .assert_status(200);
    assert_verdict(&resolved.body["data"], "resolved", true);
    let late = withdraw(&s, &path, "broker2", &token, "запізно").await;
    late.assert_refused_saying(403, "Can't update complaint in current (resolved) status");
    assert_eq!(read(&s, &path).await["status"], "resolved");
}

#[tokio::test]
async fn each_move_belongs_to_one_party_and_each_refusal_changes_nothing() {
    let (s, id, owner) = TestServer::with_published().await;
    let (path, token) = submitted(&s, &id).await;
    let before = read(&s, &path).await;

    let by_claimant = change(&s, &path, "broker2", &token, json!({"title": "x"})).await;
    by_claimant.assert_refused(403, "url", "role", "Forbidden");
    let wrong = change(&s, &path, "broker2", "0123", json!({"status": "cancelled"})).await;
    wrong.assert_refused(403, "url", "permission", "Forbidden");
    let other_broker = change(&s, &path, "broker1", &token, json!({"title": "x"})).await;
    assert_eq!(other_broker.error().1, "permission");
    let unknown = change(
        &s,
        &format!("{id}/complaints/{}", "0".repeat(32)),
        "broker2",
        &token,
        json!({}),
    )
    .await;
    unknown.assert_refused(404, "url", "complaint_id", "Not Found");
    let no_reason = change(&s, &path, "broker2", &token, json!({"status": "cancelled"})).await;
    no_reason.assert_refused(422, "body", "cancellationReason", "This field is required.");
    let missing = file(&s, &format!("{id}/complaints"), None, json!({"title": "t"})).await;
    missing.assert_refused(422, "body", "author", "This field is required.");
    let mut lot = claim_body(None);
    lot["relatedLot"] = json!("0".repeat(32));
    let lot = file(&s, &format!("{id}/complaints"), None, lot).await;
    lot.assert_refused_saying(422, "relatedLot should be one of lots");
    assert_eq!(read(&s, &path).await, before, "nothing changed");
    assert_eq!(
        read(&s, &format!("{id}/complaints")).await,
        json!([before]),
        "no claim was added"
    );

    // The owner may not touch a draft; in `answered` the owner has nothing more to do.
    let draft = file(&s, &format!("{id}/complaints"), None, claim_body(None)).await;
    let draft_path = format!("{id}/complaints/{}", draft.id());
    let r = withdraw(&s, &draft_path, "broker", &owner, "r").await;
    assert_eq!(r.error(), ("url".into(), "role".into(), json!("Forbidden")));
    assert_eq!(answer(&s, &path, &owner, "invalid").await.status, 200);
    let again = answer(&s, &path, &owner, "declined").await;
    assert_eq!(again.error().1, "role");
    let unsure = change(&s, &path, "broker2", &token, json!({"status": "resolved"})).await;
    unsure.assert_refused_saying(403, "Can't update complaint");
}

#[tokio::test]
async fn a_claim_is_cancelled_from_draft_from_claim_and_from_answered() {
    let (s, id, owner) = TestServer::with_published().await;
    let draft = file(&s, &format!("{id}/complaints"), None, claim_body(None)).await;
    let paths = [
        (format!("{id}/complaints/{}", draft.id()), draft.token()),
        submitted(&s, &id).await,
        submitted(&s, &id).await,
    ];
    assert_eq!(
        answer(&s, &paths[2].0, &owner, "resolved").await.status,
        200
    );
    for (path, token) in &paths {
        let r = withdraw(&s, path, "broker2", token, "Умови змінено")
            .await
            .assert_status(200);
        let c = &r.body["data"];
        assert_eq!(
            (&c["status"], &c["cancellationReason"]),
            (&json!("cancelled"), &json!("Умови змінено"))
        );
        assert_eq!(c["dateCanceled"], c["date"]);
    }
    let ids: Vec<Value> = s.tender(&id).await["complaints"]
        .as_array()
        .map(|cs| cs.iter().map(|c| c["complaintID"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(ids.len(), 3);
}

#[tokio::test]
async fn an_answer_left_alone_takes_effect_after_the_stand_still() {
    let (s, id, owner) = TestServer::with_published().await;
    let (path, _) = submitted(&s, &id).await;
    let answered = answer(&s, &path, &owner, "invalid").await;
    let due = parse(&answered.body["data"]["dateAnswered"]) + time::Duration::days(3);
    let t = s.until_status(&id, "active.tendering").await;
    assert_eq!(
        parse(&t["next_check"]),
        due,
        "the stand-still end is announced"
    );
    assert_eq!(read(&s, &path).await["status"], "answered");
    s.past(t["next_check"].as_str().unwrap_or_default()).await;
    let c = read(&s, &path).await;
    assert_eq!(c["status"], "invalid");
    assert_eq!(parse(&c["date"]), due, "dated when the stand-still ended");
}

#[tokio::test]
async fn with_the_sandbox_accelerator_an_answer_takes_effect_after_three_minutes() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["procurementMethodDetails"] = json!("quick, accelerator=1440");
    body["mode"] = json!("test");
    let (id, owner, _) = s.create(body).await;
    let (path, token) = submitted(&s, &id).await;
    assert_eq!(answer(&s, &path, &owner, "declined").await.status, 200);
    let unhappy = change(&s, &path, "broker2", &token, json!({"satisfied": false}))
        .await
        .assert_status(200);
    assert_verdict(&unhappy.body["data"], "answered", false);
    s.advance("PT2M59S").await;
    assert_eq!(read(&s, &path).await["status"], "answered");
    s.advance("PT2S").await;
    assert_eq!(read(&s, &path).await["status"], "declined");
}

#[tokio::test]
async fn claims_on_the_tender_close_with_tendering() {
    let s = TestServer::start().await;
    let (id, _, _) = s.qualifying(&[400.0]).await;
    let late = file(&s, &format!("{id}/complaints"), None, claim_body(None)).await;
    late.assert_refused(
        403,
        "body",
        "data",
        "Can't add complaint in current (active.qualification) tender status",
    );
    assert!(s.tender(&id).await.get("complaints").is_none());
}

#[tokio::test]
async fn an_answered_award_claim_stops_the_contract_until_settled_and_an_unanswered_one_is_ignored()
{
    let s = TestServer::start().await;
    let (id, owner, bids, award) = s.awaiting_decision(&[400.0]).await;
    let claims = format!("{id}/awards/{award}/complaints");
    let bid_token = &bids[0].1;

    let anonymous = file(&s, &claims, None, claim_body(Some("claim"))).await;
    anonymous.assert_refused_on(403, "permission");
    let made = file(&s, &claims, Some(bid_token), claim_body(Some("claim"))).await;
    made.assert_created_in(&s, &format!("/api/2.3/tenders/{claims}"));
    let answered_path = format!("{claims}/{}", made.id());
    let answered_token = made.token();
    let ignored = file(&s, &claims, Some(bid_token), claim_body(Some("claim"))).await;
    let ignored_path = format!("{claims}/{}", ignored.id());
    assert!(text(&ignored.body["data"]["complaintID"]).ends_with(".2"));

    let approved = s
        .decide_award(&id, &owner, &award, "active")
        .await
        .assert_status(200);
    let stand_still_end = text(&approved.body["data"]["complaintPeriod"]["endDate"]);
    s.past(&stand_still_end).await;
    let late = file(&s, &claims, Some(bid_token), claim_body(None)).await;
    late.assert_refused_saying(403, "Can add complaint only in complaintPeriod");
    assert_eq!(
        answer(&s, &answered_path, &owner, "resolved").await.status,
        200
    );
    let shown = read(&s, &answered_path).await;
    assert_eq!(shown["author"]["name"], organization()["name"]);
    let protocol = change_doc(
        &s,
        "POST",
        &format!("{answered_path}/documents"),
        "broker",
        &owner,
        "Answer.pdf",
    )
    .await;
    assert_eq!(
        protocol.error().2,
        json!("Can't add document in current (answered) complaint status"),
        "the owner writes only while the claim waits for the answer"
    );
    change_doc(
        &s,
        "POST",
        &format!("{answered_path}/documents"),
        "broker1",
        &answered_token,
        "Evidence.pdf",
    )
    .await
    .assert_status(201);

    let contract = format!(
        "{id}/contracts/{}",
        text(&s.tender(&id).await["contracts"][0]["id"])
    );
    let sign = || {
        s.owner(&owner)
            .patch(&contract, json!({"status": "active"}))
    };
    let refused = sign().await;
    refused.assert_refused_saying(403, "Can't sign contract before reviewing all complaints");
    assert_eq!(s.tender(&id).await["contracts"][0]["status"], "pending");
    accept_answer(&s, &answered_path, "broker1", &answered_token)
        .await
        .assert_status(200);
    assert_eq!(read(&s, &ignored_path).await["status"], "claim");
    sign().await.assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "complete");
    let ignored = read(&s, &ignored_path).await;
    assert_eq!(ignored["status"], "ignored");
    assert_eq!(t["awards"][0]["complaints"][1]["status"], "ignored");
    assert_eq!(t["awards"][0]["complaints"][0]["status"], "resolved");
}

#[tokio::test]
async fn an_unanswered_tender_claim_blocks_nothing_and_is_ignored_at_completion() {
    let (s, id, owner) = TestServer::with_tendering().await;
    let (path, _) = submitted(&s, &id).await;
    s.bid(&id, 400.0).await;
    let t = s.until_status(&id, "active.qualification").await;
    assert_eq!(
        t["complaints"][0]["author"]["name"],
        organization()["name"],
        "the author shows once tendering is over"
    );
    s.award_and_sign(Clock::Server, &id, &owner).await;
    assert_eq!(read(&s, &path).await["status"], "ignored");
}

#[tokio::test]
async fn claim_documents_are_written_by_each_party_in_its_turn() {
    let (s, id, owner) = TestServer::with_published().await;
    let made = file(&s, &format!("{id}/complaints"), None, claim_body(None)).await;
    let (path, token) = (format!("{id}/complaints/{}", made.id()), made.token());
    let docs = format!("{path}/documents");
    let by_claimant = change_doc(&s, "POST", &docs, "broker2", &token, "Claim.pdf")
        .await
        .assert_status(201);
    assert_eq!(by_claimant.body["data"]["author"], "complaint_owner");
    assert_eq!(
        by_claimant.header("Location"),
        Some(format!("{}/api/2.3/tenders/{docs}/{}", s.base, by_claimant.id()).as_str())
    );
    let early = change_doc(&s, "POST", &docs, "broker", &owner, "Answer.pdf").await;
    early.assert_refused_saying(
        403,
        "Can't add document in current (draft) complaint status",
    );
    change(&s, &path, "broker2", &token, json!({"status": "claim"}))
        .await
        .assert_status(200);
    let by_owner = change_doc(&s, "POST", &docs, "broker", &owner, "Answer.pdf")
        .await
        .assert_status(201);
    assert_eq!(by_owner.body["data"]["author"], "tender_owner");
    let not_yours = change_doc(
        &s,
        "PUT",
        &format!("{docs}/{}", by_owner.id()),
        "broker2",
        &token,
        "Mine.pdf",
    )
    .await;
    not_yours.assert_refused(403, "url", "role", "Can update document only author");
    let waiting = change_doc(&s, "POST", &docs, "broker2", &token, "More.pdf").await;
    assert_eq!(
        waiting.error().2,
        json!("Can't add document in current (claim) complaint status")
    );
    let listed = read(&s, &docs).await;
    assert_eq!(count(&listed), Some(2));
    assert_eq!(count(&read(&s, &path).await["documents"]), Some(2));
}

async fn change_doc(
    s: &TestServer,
    method: &str,
    path: &str,
    broker: &str,
    token: &str,
    name: &str,
) -> Reply {
    let url = format!("/api/2.3/tenders/{path}?acc_token={token}");
    let call = if method == "PUT" {
        s.put(&url)
    } else {
        s.post(&url)
    };
    call.broker(broker).data(document_body(name)).send().await
}

#[tokio::test]
async fn an_answered_claim_holds_the_tender_open_after_every_bidder_was_disqualified() {
    let s = TestServer::start().await;
    let (id, owner, bids, award) = s.awaiting_decision(&[400.0]).await;
    let claims = format!("{id}/awards/{award}/complaints");
    let made = file(&s, &claims, Some(&bids[0].1), claim_body(Some("claim"))).await;
    let (path, token) = (format!("{claims}/{}", made.id()), made.token());
    let waiting = file(&s, &claims, Some(&bids[0].1), claim_body(Some("claim"))).await;
    let waiting = format!("{claims}/{}", waiting.id());
    let refused = s
        .decide_award(&id, &owner, &award, "unsuccessful")
        .await
        .assert_status(200);
    let stand_still_end = parse(&refused.body["data"]["complaintPeriod"]["endDate"]);
    // Answered two days into the two-working-day stand-still, so it settles after it.
    s.advance("P2D").await;
    assert_eq!(s.tender(&id).await["status"], "active.awarded");
    let answered = answer(&s, &path, &owner, "declined")
        .await
        .assert_status(200);
    let settles = parse(&answered.body["data"]["dateAnswered"]) + time::Duration::days(3);
    assert!(
        settles > stand_still_end,
        "the claim outlasts the stand-still"
    );
    let t = s.tender(&id).await;
    assert_eq!(
        (t["status"].clone(), parse(&t["next_check"])),
        (json!("active.awarded"), settles),
        "only the claim is due: it holds the tender open"
    );
    change(&s, &path, "broker1", &token, json!({"satisfied": false}))
        .await
        .assert_status(200);
    s.past(t["next_check"].as_str().unwrap_or_default()).await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "unsuccessful");
    assert_eq!(parse(&t["date"]), settles, "it ends when the claim settled");
    assert_eq!(read(&s, &path).await["status"], "declined");
    assert_eq!(read(&s, &waiting).await["status"], "ignored");
}
