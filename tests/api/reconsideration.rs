//! A disqualification reconsidered: an `unsuccessful` award whose bidder claimed against it
//! may be cancelled, which cancels every later award of its lot (their claims and contracts
//! with them) and awards the lot anew, as upstream's `unsuccessful → cancelled` did.

use crate::common::*;
use crate::lots::{A, B, lot_bid_body, tendering};
use serde_json::{Value, json};

/// The id of the award a decision's `Location` points at; the decision must be taken.
fn fresh(r: &Reply) -> String {
    assert_eq!(r.status, 200, "a decision taken: {}", r.text);
    let location = r
        .header("Location")
        .unwrap_or_else(|| panic!("a fresh award: {}", r.text));
    location.rsplit('/').next().unwrap_or_default().to_string()
}

/// A claim (`status` "claim") or a draft (`None`) on an award, by the bidder holding `token`.
async fn claim(s: &TestServer, id: &str, award: &str, token: &str, status: Option<&str>) -> String {
    let mut body = json!({"title": "Неправомірна дискваліфікація", "description": "Просимо переглянути", "author": organization()});
    if let Some(status) = status {
        body["status"] = json!(status);
    }
    let r = s
        .bidder(token)
        .post(&format!("{id}/awards/{award}/complaints"), body)
        .await;
    assert_eq!(r.status, 201, "claim filed: {}", r.text);
    r.id()
}

fn award<'a>(t: &'a Value, award: &str) -> &'a Value {
    t["awards"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["id"] == award))
        .unwrap_or_else(|| panic!("award {award} in {t}"))
}

#[tokio::test]
async fn a_claimed_disqualification_is_cancelled_with_every_later_award_and_the_lot_is_awarded_anew()
 {
    let s = TestServer::start().await;
    let (id, owner, bids, first) = s.awaiting_decision(&[400.0, 450.0]).await;
    let (best, best_token) = bids[0].clone();
    let (second_bid, second_token) = bids[1].clone();

    // Without a claim the refusal is final, and the refusal changes nothing.
    let second = fresh(&s.decide_award(&id, &owner, &first, "unsuccessful").await);
    let before = s.tender(&id).await;
    let premature = s.decide_award(&id, &owner, &first, "cancelled").await;
    premature.assert_refused(
        403,
        "body",
        "data",
        "Can't update award in current (unsuccessful) status",
    );
    assert_eq!(s.tender(&id).await, before);

    // The next bidder is approved (a contract is prepared); the first bidder claims against
    // its disqualification, the second drafts a complaint on its own award.
    s.decide_award(&id, &owner, &second, "active")
        .await
        .assert_status(200);
    assert_eq!(s.tender(&id).await["status"], "active.awarded");
    let claimed = claim(&s, &id, &first, &best_token, Some("claim")).await;
    let drafted = claim(&s, &id, &second, &second_token, None).await;
    let now = s.now().await;

    let reconsidered = s
        .decide_award(&id, &owner, &first, "cancelled")
        .await
        .assert_status(200);
    assert_eq!(reconsidered.body["data"]["id"], first.as_str());
    assert_eq!(reconsidered.body["data"]["status"], "cancelled");
    let third = fresh(&reconsidered);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification");
    assert!(
        t["awardPeriod"].get("endDate").is_none(),
        "{}",
        t["awardPeriod"]
    );
    assert_eq!(count(&t["awards"]), Some(3));
    for cancelled in [&first, &second] {
        let a = award(&t, cancelled);
        assert_eq!(a["status"], "cancelled");
        assert_eq!(a["date"], now.as_str());
        assert_eq!(a["complaintPeriod"]["endDate"], now.as_str());
    }
    let claims = |a: &str| award(&t, a)["complaints"].clone();
    for (a, c) in [(&first, &claimed), (&second, &drafted)] {
        let c = claims(a)
            .as_array()
            .and_then(|l| l.iter().find(|x| x["id"] == c.as_str()).cloned())
            .expect("the claim is kept");
        assert_eq!(c["status"], "cancelled");
        assert_eq!(c["cancellationReason"], "cancelled");
        assert_eq!(c["dateCanceled"], now.as_str());
    }
    assert_eq!(t["contracts"][0]["awardID"], second.as_str());
    assert_eq!(t["contracts"][0]["status"], "cancelled");
    // Only refused awards exclude a bid: the best bid is awarded again.
    let new = award(&t, &third);
    assert_eq!(
        (new["status"].clone(), new["bid_id"].clone()),
        (json!("pending"), json!(best))
    );

    // Refused again, the next bidder is awarded; refused too, nobody is left.
    let fourth = fresh(&s.decide_award(&id, &owner, &third, "unsuccessful").await);
    assert_eq!(
        award(&s.tender(&id).await, &fourth)["bid_id"],
        second_bid.as_str()
    );
    let last = s
        .decide_award(&id, &owner, &fourth, "unsuccessful")
        .await
        .assert_status(200);
    assert!(last.header("Location").is_none(), "{}", last.text);
    let t = s.tender(&id).await;
    assert_eq!(count(&t["awards"]), Some(4));
    assert_eq!(t["status"], "active.awarded");
}

#[tokio::test]
async fn an_answered_claim_lets_the_owner_reconsider_and_a_withdrawn_one_does_not() {
    let s = TestServer::start().await;
    let (id, owner, bids, first) = s.awaiting_decision(&[400.0]).await;
    let refused = s.decide_award(&id, &owner, &first, "unsuccessful").await;
    assert!(
        refused.header("Location").is_none(),
        "a single bidder: {}",
        refused.text
    );
    let claims = format!("/api/2.3/tenders/{id}/awards/{first}/complaints");

    // A claim its bidder withdrew is no ground to reconsider.
    let filed = s
        .by("broker1")
        .post(
            &format!("{claims}?acc_token={}", bids[0].1),
            json!({"title": "Т", "description": "Д", "author": organization(), "status": "claim"}),
        )
        .await
        .assert_status(201);
    s.by("broker1")
        .patch(
            &format!("{claims}/{}?acc_token={}", filed.id(), filed.token()),
            json!({"status": "cancelled", "cancellationReason": "Помилка"}),
        )
        .await
        .assert_status(200);
    let premature = s.decide_award(&id, &owner, &first, "cancelled").await;
    premature.assert_refused_saying(403, "Can't update award in current (unsuccessful) status");

    // A claim the owner answered is.
    let answered = claim(&s, &id, &first, &bids[0].1, Some("claim")).await;
    s.owner(&owner).patch(&format!("{claims}/{answered}"), json!({"status": "answered", "resolutionType": "resolved", "resolution": "Рішення буде переглянуто найближчим часом"})).await.assert_status(200);
    s.decide_award(&id, &owner, &first, "cancelled")
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification");
    let complaints = &award(&t, &first)["complaints"];
    assert_eq!(
        (
            complaints[0]["status"].clone(),
            complaints[0]["cancellationReason"].clone()
        ),
        (json!("cancelled"), json!("Помилка")),
        "a claim withdrawn before keeps its own reason"
    );
    assert_eq!(
        (
            complaints[1]["status"].clone(),
            complaints[1]["cancellationReason"].clone()
        ),
        (json!("cancelled"), json!("cancelled"))
    );
    assert_eq!(t["awards"][1]["bid_id"], bids[0].0.as_str());
    assert_eq!(t["awards"][1]["status"], "pending");
}

#[tokio::test]
async fn on_a_lot_only_the_lot_s_later_awards_go() {
    let s = TestServer::start().await;
    let (id, owner) = tendering(&s, &[(A, 300.0), (B, 200.0)]).await;
    let mut tokens = Vec::new();
    for offers in [&[(A, 280.0), (B, 190.0)][..], &[(A, 270.0), (B, 195.0)][..]] {
        let r = s
            .try_bid(&id, lot_bid_body(offers))
            .await
            .assert_status(201);
        tokens.push((r.id(), r.token()));
    }
    let t = s.until_status(&id, "active.qualification").await;
    let of_lot = |t: &Value, lot: &str| -> Vec<Value> {
        t["awards"]
            .as_array()
            .map(|a| a.iter().filter(|a| a["lotID"] == lot).cloned().collect())
            .unwrap_or_default()
    };
    let a_first = text(&of_lot(&t, A)[0]["id"]);
    let b_first = text(&of_lot(&t, B)[0]["id"]);
    // Lot A: the cheaper bid (the second) is refused and claims; the next one is approved.
    let a_second = fresh(&s.decide_award(&id, &owner, &a_first, "unsuccessful").await);
    assert_eq!(
        s.decide_award(&id, &owner, &a_second, "active")
            .await
            .status,
        200
    );
    claim(&s, &id, &a_first, &tokens[1].1, Some("claim")).await;
    // Lot B is approved, and stays so.
    assert_eq!(
        s.decide_award(&id, &owner, &b_first, "active").await.status,
        200
    );

    let a_third = fresh(&s.decide_award(&id, &owner, &a_first, "cancelled").await);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification");
    let statuses = |lot| -> Vec<Value> {
        of_lot(&t, lot)
            .iter()
            .map(|a| a["status"].clone())
            .collect()
    };
    assert_eq!(
        statuses(A),
        [json!("cancelled"), json!("cancelled"), json!("pending")]
    );
    assert_eq!(statuses(B), [json!("active")]);
    assert_eq!(award(&t, &a_third)["bid_id"], tokens[1].0.as_str());
    let contract_of = |a: &str| {
        t["contracts"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["awardID"] == a).cloned())
            .unwrap_or_else(|| panic!("a contract of {a}"))
    };
    assert_eq!(contract_of(&a_second)["status"], "cancelled");
    assert_eq!(contract_of(&b_first)["status"], "pending");
}
