//! Tenders with lots: each lot judged, auctioned, awarded and settled on its own, the tender
//! following its lots; and the refusals of lots and of bids with `lotValues`.

use crate::common::*;
use serde_json::{Value, json};

pub const A: &str = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";
pub const B: &str = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";

fn lot(id: &str, amount: f64) -> Value {
    json!({"id": id, "title": format!("Лот {id}"), "value": {"amount": amount}, "minimalStep": {"amount": 5}})
}

/// A tender of `lots` (id, value) with one item per lot, enquiries for a day and tendering
/// for three more.
pub fn lot_tender(now: &str, lots: &[(&str, f64)]) -> Value {
    let mut body = tender_body(now, 1, 4);
    let item = body["items"][0].clone();
    body["items"] = json!(
        lots.iter()
            .map(|(id, _)| {
                let mut i = item.clone();
                i["id"] = json!(format!("item-{id}"));
                i["relatedLot"] = json!(id);
                i
            })
            .collect::<Vec<_>>()
    );
    body["lots"] = json!(lots.iter().map(|(id, v)| lot(id, *v)).collect::<Vec<_>>());
    body
}

/// A lot tender in `active.tendering`.
/// A tender of `lots` in `active.tendering`: (id, owner token).
pub async fn tendering(s: &TestServer, lots: &[(&str, f64)]) -> (String, String) {
    let (id, token, _) = s.create(lot_tender(&s.now().await, lots)).await;
    s.advance("P1DT1M").await;
    assert_eq!(s.tender(&id).await["status"], "active.tendering");
    (id, token)
}

pub fn lot_bid_body(offers: &[(&str, f64)]) -> Value {
    json!({
        "tenderers": [organization()],
        "lotValues": offers.iter().map(|(lot, amount)| json!({"relatedLot": lot, "value": {"amount": amount}})).collect::<Vec<_>>()
    })
}

/// Places a bid with offers on lots; returns its id.
pub async fn bid(s: &TestServer, tender: &str, offers: &[(&str, f64)]) -> String {
    let r = s.try_bid(tender, lot_bid_body(offers)).await;
    assert_eq!(r.status, 201, "bid placed: {}", r.text);
    r.id()
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// The award of `lot` that is last in the tender.
fn award_of<'a>(t: &'a Value, lot: &str) -> &'a Value {
    t["awards"]
        .as_array()
        .and_then(|a| a.iter().rev().find(|a| a["lotID"] == lot))
        .unwrap_or_else(|| panic!("lot {lot} has an award: {t}"))
}

fn lot_in<'a>(t: &'a Value, lot: &str) -> &'a Value {
    t["lots"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["id"] == lot))
        .unwrap_or_else(|| panic!("lot {lot} is in the tender: {t}"))
}

/// Decides the last award of `lot`; returns the answer.
async fn decide(s: &TestServer, id: &str, token: &str, lot: &str, status: &str) -> Reply {
    let t = s.tender(id).await;
    let award = text(&award_of(&t, lot)["id"]).to_string();
    s.decide_award(id, token, &award, status)
        .await
        .assert_status(200)
}

/// Signs the contract of the active award of `lot`, after its stand-still.
async fn sign(s: &TestServer, id: &str, token: &str, lot: &str) -> Value {
    let t = s.tender(id).await;
    let award = award_of(&t, lot).clone();
    s.past(text(&award["complaintPeriod"]["endDate"])).await;
    let t = s.tender(id).await;
    let contract = t["contracts"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["awardID"] == award["id"]))
        .unwrap_or_else(|| panic!("the award has a contract: {t}"))
        .clone();
    let contract = text(&contract["id"]);
    s.sign_contract(id, token, contract)
        .await
        .assert_status(200);
    s.tender(id).await
}

#[tokio::test]
async fn one_lot_with_two_bids_goes_through_its_auction_to_complete() {
    let s = TestServer::start().await;
    let created = s
        .try_create(lot_tender(&s.now().await, &[(A, 300.0)]))
        .await
        .assert_status(201);
    let shown = &created.body["data"];
    assert_eq!(shown["lots"][0]["id"], A, "the client's lot id is kept");
    assert_eq!(shown["lots"][0]["status"], "active");
    assert_eq!(shown["lots"][0]["value"]["currency"], "UAH");
    assert_eq!(
        shown["value"]["amount"], 300.0,
        "the tender's value sums its lots"
    );
    assert_eq!(shown["items"][0]["relatedLot"], A);
    let (id, token) = (created.id(), created.token());
    s.advance("P1DT1M").await;
    let t = s.tender(&id).await;
    assert!(
        t["lots"][0]["auctionPeriod"]["startDate"].is_string(),
        "{t}"
    );
    assert!(
        t.get("auctionPeriod").is_none(),
        "the lot has the auction: {t}"
    );

    bid(&s, &id, &[(A, 290.0)]).await;
    let placed = s.try_bid(&id, lot_bid_body(&[(A, 250.0)])).await;
    let (cheap, cheap_token) = (placed.id(), placed.token());
    let t = s.until_status(&id, "active.auction").await;
    let url = text(&t["lots"][0]["auctionUrl"]).to_string();
    assert!(url.ends_with(&format!("/auctions/{id}_{A}")), "{url}");
    let r = s
        .bidder(&cheap_token)
        .get(&format!("{id}/bids/{cheap}"))
        .await;
    assert!(
        text(&r.body["data"]["lotValues"][0]["participationUrl"])
            .starts_with(&format!("{url}?key_for_bid={cheap}&hash=")),
        "the bidder reads its address for the lot's auction: {}",
        r.text
    );
    let state = s
        .get(&format!("{url}/state"))
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        count(&state.body["data"]["initial"]),
        Some(2),
        "both offers on the lot meet in its auction: {}",
        state.text
    );

    let t = s.until_status(&id, "active.qualification").await;
    assert!(t["lots"][0]["auctionPeriod"]["endDate"].is_string());
    let bids = t["bids"].as_array().cloned().unwrap_or_default();
    let cheap_bid = bids
        .iter()
        .find(|b| b["id"] == cheap)
        .cloned()
        .unwrap_or_default();
    assert!(
        text(&cheap_bid["lotValues"][0]["participationUrl"])
            .starts_with(&format!("{url}?key_for_bid={cheap}&hash=")),
        "{cheap_bid}"
    );
    assert!(cheap_bid.get("value").is_none(), "{cheap_bid}");
    let award = award_of(&t, A);
    assert_eq!(
        (award["bid_id"].clone(), award["value"]["amount"].clone()),
        (json!(cheap), json!(250.0)),
        "the lowest offer on the lot is awarded"
    );

    decide(&s, &id, &token, A, "active").await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.awarded");
    assert_eq!(t["contracts"][0]["items"], t["items"], "the lot's items");
    let t = sign(&s, &id, &token, A).await;
    assert_eq!(t["status"], "complete");
    assert_eq!(t["lots"][0]["status"], "complete");
}

#[tokio::test]
async fn a_lot_with_one_bid_is_awarded_without_auction_beside_a_lot_with_two() {
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    let only = bid(&s, &id, &[(A, 280.0), (B, 190.0)]).await;
    let other = bid(&s, &id, &[(B, 150.0)]).await;

    let t = s.until_status(&id, "active.auction").await;
    assert!(
        lot_in(&t, A).get("auctionPeriod").is_none() && lot_in(&t, A).get("auctionUrl").is_none(),
        "a lot with one offer has no auction: {t}"
    );
    assert!(lot_in(&t, B)["auctionUrl"].is_string());

    let t = s.until_status(&id, "active.qualification").await;
    assert_eq!(award_of(&t, A)["bid_id"], json!(only));
    assert_eq!(award_of(&t, A)["value"]["amount"], 280.0);
    assert_eq!(
        award_of(&t, B)["bid_id"],
        json!(other),
        "B's auction: the lowest wins"
    );
    assert!(lot_in(&t, B)["auctionPeriod"]["endDate"].is_string());

    decide(&s, &id, &token, A, "active").await;
    assert_eq!(
        s.tender(&id).await["status"],
        "active.qualification",
        "B's award is still pending"
    );
    decide(&s, &id, &token, B, "active").await;
    let t = sign(&s, &id, &token, A).await;
    assert_eq!(lot_in(&t, A)["status"], "complete");
    assert_eq!(t["status"], "active.awarded", "B is not signed yet");
    let contract_a = &t["contracts"][0];
    assert_eq!(contract_a["items"][0]["relatedLot"], A);
    assert_eq!(count(&contract_a["items"]), Some(1));
    let t = sign(&s, &id, &token, B).await;
    assert_eq!(t["status"], "complete");
}

#[tokio::test]
async fn a_lot_cancelled_before_the_auction_leaves_the_other_to_complete() {
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    bid(&s, &id, &[(A, 280.0), (B, 190.0)]).await;
    let cheap = bid(&s, &id, &[(A, 250.0), (B, 180.0)]).await;

    let r = s.cancel(&id, &token, json!({"reason": "Лот більше не потрібен", "cancellationOf": "lot", "relatedLot": A, "status": "active"}))
    .await.assert_status(201);
    assert_eq!(r.body["data"]["relatedLot"], A);
    assert_eq!(r.body["data"]["cancellationOf"], "lot");
    let t = s.tender(&id).await;
    assert_eq!(lot_in(&t, A)["status"], "cancelled");
    assert_eq!(t["status"], "active.tendering", "the tender goes on with B");

    let once_more = json!({"reason": "ще раз", "cancellationOf": "lot", "relatedLot": A});
    let again = s.cancel(&id, &token, once_more).await;
    again.assert_refused(
        403,
        "body",
        "data",
        "Can add cancellation only in active lot status",
    );

    let t = s.until_status(&id, "active.qualification").await;
    let awards = t["awards"].as_array().cloned().unwrap_or_default();
    assert_eq!(awards.len(), 1, "only B is awarded: {t}");
    assert_eq!(awards[0]["lotID"], B);
    assert_eq!(awards[0]["bid_id"], json!(cheap));
    decide(&s, &id, &token, B, "active").await;
    let t = sign(&s, &id, &token, B).await;
    assert_eq!(t["status"], "complete");
    assert_eq!(lot_in(&t, A)["status"], "cancelled");
    assert_eq!(lot_in(&t, B)["status"], "complete");
}

#[tokio::test]
async fn a_lot_whose_every_bidder_is_disqualified_is_unsuccessful_and_the_other_completes() {
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    bid(&s, &id, &[(A, 280.0), (B, 190.0)]).await;
    bid(&s, &id, &[(A, 270.0)]).await;

    let t = s.until_status(&id, "active.qualification").await;
    assert_eq!(award_of(&t, A)["value"]["amount"], 270.0);
    let refused = decide(&s, &id, &token, A, "unsuccessful").await;
    assert!(
        refused.header("Location").is_some(),
        "the next bidder is awarded"
    );
    let t = s.tender(&id).await;
    assert_eq!(award_of(&t, A)["value"]["amount"], 280.0);
    let last = decide(&s, &id, &token, A, "unsuccessful").await;
    assert!(last.header("Location").is_none(), "{}", last.text);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification", "B's award is pending");
    assert_eq!(
        lot_in(&t, A)["status"],
        "active",
        "until its stand-still ends"
    );

    decide(&s, &id, &token, B, "active").await;
    let t = sign(&s, &id, &token, B).await;
    assert_eq!(lot_in(&t, A)["status"], "unsuccessful");
    assert_eq!(lot_in(&t, B)["status"], "complete");
    assert_eq!(t["status"], "complete");
}

#[tokio::test]
async fn lots_are_refused_as_upstream_refuses_them() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let (id, token, _) = s.create(lot_tender(&now, &[(A, 300.0)])).await;
    let lots = format!("/api/2.3/tenders/{id}/lots");

    let empty = s.owner(&token).post(&lots, json!({})).await;
    assert_eq!(empty.status, 422);
    let mut names: Vec<&str> = empty.body["errors"]
        .as_array()
        .map(|e| e.iter().map(|e| text(&e["name"])).collect())
        .unwrap_or_default();
    names.sort_unstable();
    assert_eq!(names, ["minimalStep", "title", "value"], "{}", empty.text);
    assert_eq!(
        empty.body["errors"][0]["description"],
        "This field is required."
    );

    let mut steep = lot(B, 100.0);
    steep["minimalStep"]["amount"] = json!(150);
    let r = s.owner(&token).post(&lots, steep).await;
    r.assert_refused(
        422,
        "body",
        "minimalStep",
        "value should be less than value of lot",
    );

    let mut twice = lot_tender(&now, &[(A, 300.0)]);
    twice["lots"] = json!([lot(A, 10.0), lot(A, 20.0)]);
    let r = s.try_create(twice).await;
    r.assert_refused(422, "body", "lots", "Lot id should be uniq for all lots");

    let mut guaranteed = lot_tender(&now, &[(A, 300.0), (B, 200.0)]);
    guaranteed["lots"][0]["guarantee"] = json!({"amount": 1, "currency": "UAH"});
    guaranteed["lots"][1]["guarantee"] = json!({"amount": 1, "currency": "USD"});
    let r = s.try_create(guaranteed).await;
    assert_eq!(
        r.error().2,
        json!("lot guarantee currency should be identical to tender guarantee currency")
    );

    let r = s
        .owner(&token)
        .patch(
            &format!("/api/2.3/tenders/{id}"),
            json!({"items": [{"relatedLot": B}]}),
        )
        .await;
    r.assert_refused(
        422,
        "body",
        "items.0.relatedLot",
        "relatedLot should be one of lots",
    );

    let added = s
        .owner(&token)
        .post(&lots, lot(B, 200.0))
        .await
        .assert_status(201);
    assert_eq!(
        added.header("Location"),
        Some(s.url(&format!("{lots}/{B}")).as_str())
    );
    let t = s.tender(&id).await;
    assert_eq!(t["value"]["amount"], 500.0);
    assert_eq!(t["minimalStep"]["amount"], 5.0);

    let whole = lot_in(&t, B).clone();
    let same = s
        .owner(&token)
        .patch(&format!("{lots}/{B}"), whole.clone())
        .await;
    assert_eq!(
        (same.status, &same.body["data"]),
        (200, &whole),
        "a no-op answers the lot as it is"
    );
    assert_eq!(s.tender(&id).await["dateModified"], t["dateModified"]);
    let dearer = s
        .owner(&token)
        .patch(&format!("{lots}/{B}"), json!({"value": {"amount": 250}}))
        .await;
    assert_eq!(dearer.body["data"]["value"]["amount"], 250.0);
    assert_eq!(s.tender(&id).await["value"]["amount"], 550.0);

    let r = s.owner(&token).delete(&format!("{lots}/{A}")).await;
    assert_eq!(
        (r.status, r.error().1),
        (422, "items.0.relatedLot".into()),
        "an item names the lot: {}",
        r.text
    );
    let r = s.owner(&token).delete(&format!("{lots}/{B}")).await;
    assert_eq!((r.status, r.body["data"]["id"].clone()), (200, json!(B)));

    let unknown = s.get(&format!("{lots}/{B}")).send().await;
    unknown.assert_refused_on(404, "lot_id");

    s.advance("P1DT1M").await;
    let late = s.owner(&token).post(&lots, lot(B, 200.0)).await;
    late.assert_refused(
        403,
        "body",
        "data",
        "Can't add lot in current (active.tendering) tender status",
    );
    let late = s
        .owner(&token)
        .patch(&format!("{lots}/{A}"), json!({"title": "x"}))
        .await;
    assert_eq!(
        late.error().2,
        json!("Can't update lot in current (active.tendering) tender status")
    );
}

#[tokio::test]
async fn bids_on_lots_are_refused_as_upstream_refuses_them() {
    let s = TestServer::start().await;
    let (id, _) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    let cases = [
        (
            json!({"tenderers": [organization()]}),
            "lotValues",
            json!("This field is required."),
        ),
        (
            json!({"tenderers": [organization()], "lotValues": [{"value": {"amount": 1}}]}),
            "lotValues.0.relatedLot",
            json!("This field is required."),
        ),
        (
            lot_bid_body(&[("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", 1.0)]),
            "lotValues.0.relatedLot",
            json!("relatedLot should be one of lots"),
        ),
        (
            lot_bid_body(&[(A, 301.0)]),
            "lotValues.0.value",
            json!("value of bid should be less than value of lot"),
        ),
        (
            json!({"tenderers": [organization()], "lotValues": [{"relatedLot": A, "value": {"amount": 1, "valueAddedTaxIncluded": false}}]}),
            "lotValues.0.value",
            json!(
                "valueAddedTaxIncluded of bid should be identical to valueAddedTaxIncluded of value of lot"
            ),
        ),
        (
            json!({"tenderers": [organization()], "lotValues": [{"relatedLot": A, "value": {"amount": 1, "currency": "USD"}}]}),
            "lotValues.0.value",
            json!("currency of bid should be identical to currency of value of lot"),
        ),
        (
            json!({"tenderers": [organization()], "value": {"amount": 1}, "lotValues": [{"relatedLot": A, "value": {"amount": 1}}]}),
            "value",
            json!("value should be posted for each lot of bid"),
        ),
        (
            lot_bid_body(&[(A, 1.0), (A, 2.0)]),
            "lotValues",
            json!("bids don't allow duplicated proposals"),
        ),
        (
            json!({"tenderers": [organization()], "participationUrl": "http://auction.example/x", "lotValues": [{"relatedLot": A, "value": {"amount": 1}}]}),
            "participationUrl",
            json!("url should be posted for each lot of bid"),
        ),
    ];
    for (body, name, description) in cases {
        let r = s.try_bid(&id, body.clone()).await;
        assert_eq!(
            (r.status, r.error()),
            (422, ("body".into(), name.into(), description)),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_tender_without_lots_shows_nothing_of_lots() {
    let (s, id, _) = TestServer::with_tendering().await;
    s.bid(&id, 400.0).await;
    let t = s.until_status(&id, "active.qualification").await;
    assert!(t.get("lots").is_none(), "{t}");
    assert!(t["awards"][0].get("lotID").is_none(), "{t}");
    assert!(t["bids"][0].get("lotValues").is_none(), "{t}");
    assert!(t["bids"][0]["value"].is_object(), "{t}");
}

fn claim_on(lot: &str) -> Value {
    json!({"title": "Умови лоту", "author": organization(), "status": "claim", "relatedLot": lot})
}

#[tokio::test]
async fn an_answered_claim_on_a_lot_holds_that_lot_only() {
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    let claims = format!("/api/2.3/tenders/{id}/complaints");
    let filed = s
        .by("broker2")
        .post(&claims, claim_on(A))
        .await
        .assert_status(201);
    assert_eq!(filed.body["data"]["relatedLot"], A);
    let (claim, claim_token) = (filed.id(), filed.token());
    bid(&s, &id, &[(A, 280.0), (B, 190.0)]).await;

    s.until_status(&id, "active.qualification").await;
    decide(&s, &id, &token, A, "active").await;
    decide(&s, &id, &token, B, "active").await;
    let t = s.tender(&id).await;
    s.past(text(&award_of(&t, A)["complaintPeriod"]["endDate"]))
        .await;
    s.owner(&token).patch(&format!("{claims}/{claim}"), json!({"status": "answered", "resolutionType": "resolved", "resolution": "Умови лоту буде змінено найближчим часом"}))
    .await.assert_status(200);
    let t = sign(&s, &id, &token, B).await;
    assert_eq!(lot_in(&t, B)["status"], "complete", "B is not held");

    let contract_a = t["contracts"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["items"][0]["relatedLot"] == A))
        .cloned()
        .unwrap_or_default();
    let path = format!(
        "/api/2.3/tenders/{id}/contracts/{}",
        text(&contract_a["id"])
    );
    let held = s
        .owner(&token)
        .patch(&path, json!({"status": "active"}))
        .await;
    held.assert_refused_saying(403, "Can't sign contract before reviewing all complaints");
    s.by("broker2")
        .patch(
            &format!("{claims}/{claim}?acc_token={claim_token}"),
            json!({"status": "resolved", "satisfied": true}),
        )
        .await
        .assert_status(200);
    s.owner(&token)
        .patch(&path, json!({"status": "active"}))
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "complete");
}

#[tokio::test]
async fn questions_and_documents_name_a_lot() {
    let s = TestServer::start().await;
    let (id, token, _) = s
        .create(lot_tender(&s.now().await, &[(A, 300.0), (B, 200.0)]))
        .await;
    let questions = format!("/api/2.3/tenders/{id}/questions");
    let ask = |lot: &str| json!({"title": "Чи можна?", "author": organization(), "questionOf": "lot", "relatedItem": lot});
    let asked = s
        .by("broker2")
        .post(&questions, ask(A))
        .await
        .assert_status(201);
    assert_eq!(asked.body["data"]["relatedItem"], A);
    let unknown = s
        .by("broker2")
        .post(&questions, ask("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c"))
        .await;
    assert_eq!(
        (unknown.status, unknown.error().1, unknown.error().2),
        (
            422,
            "relatedItem".into(),
            json!("relatedItem should be one of lots")
        )
    );

    let documents = format!("/api/2.3/tenders/{id}/documents");
    let mut doc = document_body("lot-a.pdf");
    doc["documentOf"] = json!("lot");
    doc["relatedItem"] = json!(A);
    let added = s
        .owner(&token)
        .post(&documents, doc.clone())
        .await
        .assert_status(201);
    assert_eq!(added.body["data"]["relatedItem"], A);
    doc["relatedItem"] = json!("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c");
    s.owner(&token)
        .post(&documents, doc)
        .await
        .assert_status(422);

    s.cancel(&id, &token, json!({"reason": "Не потрібен", "cancellationOf": "lot", "relatedLot": B, "status": "active"}))
    .await.assert_status(201);
    let late = s.by("broker2").post(&questions, ask(B)).await;
    late.assert_refused_saying(403, "Can add question only in active lot status");
}

/// Where upstream leaves a gap around lots, the decision recorded in `docs/lots.md`.
#[tokio::test]
async fn a_cancelled_lot_takes_no_new_bids_or_claims_and_keeps_the_offers_made() {
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    let both = bid(&s, &id, &[(A, 280.0), (B, 190.0)]).await;
    s.cancel(&id, &token, json!({"reason": "Не потрібен", "cancellationOf": "lot", "relatedLot": A, "status": "active"}))
    .await.assert_status(201);

    let late = s.try_bid(&id, lot_bid_body(&[(A, 250.0)])).await;
    late.assert_refused_saying(403, "Can add bid only in active lot status");
    let claim = s
        .by("broker2")
        .post(&format!("/api/2.3/tenders/{id}/complaints"), claim_on(A))
        .await;
    claim.assert_refused_saying(403, "Can add complaint only in active lot status");

    let t = s.until_status(&id, "active.qualification").await;
    let shown = t["bids"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["id"] == both))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        count(&shown["lotValues"]),
        Some(2),
        "the offer on the cancelled lot stays in the bid: {shown}"
    );
    assert_eq!(count(&t["awards"]), Some(1), "only B is awarded");
}

#[tokio::test]
async fn a_lot_cancelled_in_qualification_cancels_its_open_award() {
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    bid(&s, &id, &[(A, 280.0), (B, 190.0)]).await;
    s.until_status(&id, "active.qualification").await;
    decide(&s, &id, &token, A, "active").await;

    // As upstream, a cancellation naming a lot cancels the lot, whatever its `cancellationOf`.
    let cancelled = s.cancel(&id, &token, json!({"reason": "Не потрібен", "cancellationOf": "tender", "relatedLot": A, "status": "active"}))
    .await.assert_status(201);
    assert_eq!(cancelled.body["data"]["cancellationOf"], "lot");
    let t = s.tender(&id).await;
    assert_eq!(award_of(&t, A)["status"], "cancelled");
    assert_eq!(t["contracts"][0]["status"], "cancelled", "{t}");
    assert_eq!(lot_in(&t, A)["status"], "cancelled");
    assert_eq!(t["status"], "active.qualification", "B's award is pending");

    let award_a = text(&award_of(&t, A)["id"]).to_string();
    let r = s
        .owner(&token)
        .patch(
            &format!("/api/2.3/tenders/{id}/awards/{award_a}"),
            json!({"title": "x"}),
        )
        .await;
    r.assert_refused_saying(403, "Can update award only in active lot status");
    decide(&s, &id, &token, B, "active").await;
    let t = sign(&s, &id, &token, B).await;
    assert_eq!(t["status"], "complete");
}

#[tokio::test]
async fn a_lot_without_offers_is_unsuccessful_when_tendering_ends() {
    let s = TestServer::start().await;
    let (id, token) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    bid(&s, &id, &[(B, 190.0)]).await;
    let t = s.until_status(&id, "active.qualification").await;
    assert_eq!(lot_in(&t, A)["status"], "unsuccessful");
    assert!(lot_in(&t, A).get("auctionPeriod").is_none(), "{t}");
    assert_eq!(count(&t["awards"]), Some(1));
    decide(&s, &id, &token, B, "active").await;
    let t = sign(&s, &id, &token, B).await;
    assert_eq!(t["status"], "complete");

    let (none, _) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    let t = s.until_status(&none, "unsuccessful").await;
    assert_eq!(lot_in(&t, A)["status"], "unsuccessful");
    assert_eq!(lot_in(&t, B)["status"], "unsuccessful");
}
