//! Upstream's sandbox modes of `submissionMethodDetails`: `quick(mode:no-auction)` goes from
//! tendering straight to qualification on the sealed bids with no auction address at all;
//! `quick(mode:fast-forward)` settles the auction the moment tendering ends and leaves its
//! page finished; plain `quick` holds the live auction on upstream's quick plan, at least 12
//! minutes after tendering on the quarter-hour grid through 11:00, on the owner's clock; any
//! other text stays free and changes nothing; without a sandbox the field does not exist.

use crate::common::*;
use serde_json::{Value, json};
use tender_registry::Settings;

/// A tender in `mode` with enquiries for a day and tendering for three more, two bids placed
/// (the cheaper second), and tendering ended: the tender as it stands then, and its bids.
async fn after_tendering(s: &TestServer, mode: &str) -> (Value, Vec<(String, String)>) {
    let mut body = tender_body(&s.now().await, 1, 4);
    body["submissionMethodDetails"] = json!(mode);
    let (id, _, created) = s.create(body).await;
    assert_eq!(created["submissionMethodDetails"], mode);
    s.advance("P1DT1M").await;
    let bids = vec![s.bid(&id, 480.0).await, s.bid(&id, 450.0).await];
    let t = s.tender(&id).await;
    let end = text(&t["tenderPeriod"]["endDate"]);
    s.past(&end).await;
    (s.tender(&id).await, bids)
}

/// [`after_tendering`] for a mode that settles the auction the moment tendering ends: the
/// tender is in qualification with its auction period a point at the tendering's end. Answers
/// the tender, its bids and that end.
async fn settled_at_tendering_end(
    s: &TestServer,
    mode: &str,
) -> (Value, Vec<(String, String)>, Value) {
    let (t, bids) = after_tendering(s, mode).await;
    assert_eq!(t["status"], "active.qualification");
    let end = t["tenderPeriod"]["endDate"].clone();
    assert_eq!(t["auctionPeriod"]["startDate"], end);
    assert_eq!(t["auctionPeriod"]["endDate"], end);
    (t, bids, end)
}

#[tokio::test]
async fn no_auction_goes_from_tendering_to_qualification_on_the_sealed_bids() {
    let s = TestServer::start().await;
    let (t, bids, end) = settled_at_tendering_end(&s, "quick(mode:no-auction)").await;
    assert!(t.get("auctionUrl").is_none(), "no auction address: {t}");
    for bid in t["bids"].as_array().expect("bids are public") {
        assert!(bid.get("participationUrl").is_none(), "{bid}");
    }
    let award = &t["awards"][0];
    assert_eq!(award["status"], "pending");
    assert_eq!(
        award["bid_id"],
        bids[1].0.as_str(),
        "the cheaper sealed bid"
    );
    assert_eq!(award["value"]["amount"], 450.0);
    assert_eq!(award["date"], end);
    let own = s
        .get(&format!(
            "/api/2.3/tenders/{}/bids/{}?acc_token={}",
            t["id"].as_str().unwrap_or_default(),
            bids[0].0,
            bids[0].1
        ))
        .send()
        .await;
    assert!(
        own.body["data"].get("participationUrl").is_none(),
        "{}",
        own.text
    );
}

#[tokio::test]
async fn fast_forward_settles_the_auction_when_tendering_ends_and_leaves_its_page_finished() {
    let s = TestServer::start().await;
    let (t, bids, end) = settled_at_tendering_end(&s, "quick(mode:fast-forward)").await;
    let url = t["auctionUrl"]
        .as_str()
        .expect("an auction address")
        .to_string();
    assert_eq!(t["awards"][0]["bid_id"], bids[1].0.as_str());
    assert_eq!(t["awards"][0]["date"], end);
    for bid in t["bids"].as_array().expect("bids are public") {
        let participation = bid["participationUrl"]
            .as_str()
            .expect("each bid's address");
        assert!(participation.starts_with(&url), "{participation}");
    }
    let page = s.get(&url).send().await;
    assert_eq!(page.status, 200);
    let state = s.get(&format!("{url}/state")).send().await;
    assert_eq!(state.body["data"]["status"], "finished", "{}", state.text);
    assert_eq!(
        state.body["data"]["results"][1]["amount"], 450.0,
        "the sealed bids"
    );
}

#[tokio::test]
async fn other_text_is_plain_quick_and_an_ordinary_tender_is_auctioned_on_the_calendar() {
    let s = TestServer::start().await;
    let (t, _) = after_tendering(&s, "quick(mode:something-else)").await;
    assert_eq!(t["status"], "active.auction", "plain quick");
    assert_eq!(
        t["tenderPeriod"]["endDate"], "2026-11-27T09:00:00.000000+02:00",
        "{t}"
    );
    assert_eq!(
        t["auctionPeriod"]["startDate"], "2026-11-27T09:15:00.000000+02:00",
        "on the quick plan: {t}"
    );
    assert!(t["auctionPeriod"].get("endDate").is_none());

    let (t, _) = after_tendering(&s, "Тендер без особливостей").await;
    assert_eq!(t["status"], "active.auction");
    assert_ne!(
        t["auctionPeriod"]["startDate"], t["tenderPeriod"]["endDate"],
        "planned on the calendar"
    );
}

/// A plain quick tender's body, its tendering ending at `end` (Kyiv time, no offset).
fn quick_ending(now: &str, end: &str) -> Value {
    let mut body = tender_body(now, 1, 4);
    body["submissionMethodDetails"] = json!("quick");
    body["tenderPeriod"]["endDate"] = json!(end);
    body
}

/// The auction's state as anyone watching reads it.
async fn watched(s: &TestServer, t: &Value) -> Value {
    let r = s
        .get(&format!("{}/state", text(&t["auctionUrl"])))
        .send()
        .await
        .assert_status(200);
    r.body["data"].clone()
}

/// Upstream's chronograph planned a quick auction 12 minutes after the tendering end, rounded
/// up to its quarter-hour grid through 11:00 Kyiv, so that a watcher who learns of the auction
/// from the tender sees its first pause whole.
#[tokio::test]
async fn a_quick_auction_starts_on_the_quarter_hour_at_least_12_minutes_after_tendering() {
    let s = TestServer::start_at(moments::MONDAY_MORNING).await;
    let now = s.now().await;
    let planned = [
        ("2026-11-27T16:30", "2026-11-27T16:45:00.000000+02:00"),
        ("2026-11-27T16:33", "2026-11-27T16:45:00.000000+02:00"),
        ("2026-11-27T16:40:30", "2026-11-27T17:00:00.000000+02:00"),
        ("2026-11-27T10:50", "2026-11-27T11:15:00.000000+02:00"),
    ];
    let mut ids = Vec::new();
    for (end, _) in planned {
        let (id, _, _) = s.create(quick_ending(&now, end)).await;
        ids.push(id);
    }
    s.advance("P1DT1M").await;
    for ((_, start), id) in planned.iter().zip(&ids) {
        let t = s.tender(id).await;
        assert_eq!(t["status"], "active.tendering");
        assert_eq!(
            t["auctionPeriod"]["shouldStartAfter"], t["tenderPeriod"]["endDate"],
            "{t}"
        );
        assert_eq!(
            t["auctionPeriod"]["startDate"], *start,
            "announced while tendering: {t}"
        );
        s.bid(id, 480.0).await;
        s.bid(id, 450.0).await;
    }
    s.past("2026-11-27T16:40:30+02:00").await;
    for ((_, start), id) in planned.iter().zip(&ids).take(3) {
        let t = s.tender(id).await;
        assert_eq!(
            (&t["status"], &t["auctionPeriod"]["startDate"]),
            (&json!("active.auction"), &json!(start)),
            "{t}"
        );
        assert_eq!(t["next_check"], *start, "the tender waits for it: {t}");
        let st = watched(&s, &t).await;
        assert_eq!(st["status"], "waiting", "{st}");
        assert_eq!(st["stage"]["end"], *start, "the countdown runs to it: {st}");
        assert_eq!(st["stages"][0]["start"], *start, "the first pause: {st}");
    }
    // A second past the first start the first pause runs its 300 s from that start.
    s.past("2026-11-27T16:45:00+02:00").await;
    let t = s.tender(&ids[0]).await;
    let st = watched(&s, &t).await;
    assert_eq!(
        (&st["status"], &st["stage"]["type"], &st["stage"]["end"]),
        (
            &json!("running"),
            &json!("pause"),
            &json!("2026-11-27T16:50:00.000000+02:00")
        ),
        "{st}"
    );
    let later = s.tender(&ids[2]).await;
    assert_eq!(watched(&s, &later).await["status"], "waiting");
}

/// A broker's tender lives on its owner's clock: its quick auction is planned from the dates
/// on that clock, however far the server's own clock has moved.
#[tokio::test]
async fn a_quick_auction_is_planned_on_its_owner_s_clock() {
    let s = TestServer::start_at(moments::MONDAY_MORNING).await;
    let own = |broker: &'static str, data: Value| {
        let call = s.post("/testing/clock").broker(broker).data(data);
        async move {
            let r = call.send().await;
            assert_eq!(r.status, 200, "{broker}'s clock: {}", r.text);
            r.body["data"].clone()
        }
    };
    let clock = own("broker", json!({"advance": "P10D"})).await;
    assert_eq!(clock["own"], true, "{clock}");
    let (id, _, _) = s
        .create(quick_ending(&text(&clock["now"]), "2026-12-08T14:07"))
        .await;
    // The server's clock runs far past the tender's whole course on its owner's.
    s.advance("P60D").await;
    let server = s.now().await;
    assert!(server.starts_with("2027-01-22T09:00"), "{server}");
    let mut t = s.tender(&id).await;
    assert_eq!(t["status"], "active.enquiries", "{t}");
    own("broker", json!({"now": t["next_check"]})).await;
    t = s.tender(&id).await;
    assert_eq!(t["status"], "active.tendering", "{t}");
    assert_eq!(
        t["auctionPeriod"]["startDate"], "2026-12-08T14:30:00.000000+02:00",
        "14:07 and 12 minutes, up to the quarter hour: {t}"
    );
    for (broker, amount) in [("broker1", 480.0), ("broker2", 450.0)] {
        s.by(broker)
            .post(&format!("/api/2.3/tenders/{id}/bids"), bid_body(amount))
            .await
            .assert_status(201);
    }
    own("broker", json!({"now": "2026-12-08T14:10:00+02:00"})).await;
    t = s.tender(&id).await;
    assert_eq!(
        (&t["status"], &t["auctionPeriod"]["startDate"]),
        (
            &json!("active.auction"),
            &json!("2026-12-08T14:30:00.000000+02:00")
        ),
        "{t}"
    );
    let st = watched(&s, &t).await;
    assert_eq!(
        (&st["status"], &st["now"]),
        (
            &json!("waiting"),
            &json!("2026-12-08T14:10:00.000000+02:00")
        ),
        "the auction counts down on its owner's clock: {st}"
    );
}

#[tokio::test]
async fn with_lots_each_lot_with_offers_is_settled_at_once() {
    use crate::lots::{A, B, lot_bid_body, lot_tender};
    let s = TestServer::start().await;
    let mut body = lot_tender(&s.now().await, &[(A, 300.0), (B, 200.0)]);
    body["submissionMethodDetails"] = json!("quick(mode:no-auction)");
    let (id, _, _) = s.create(body).await;
    s.advance("P1DT1M").await;
    for offers in [&[(A, 280.0), (B, 190.0)][..], &[(A, 270.0)][..]] {
        assert_eq!(s.try_bid(&id, lot_bid_body(offers)).await.status, 201);
    }
    let t = s.tender(&id).await;
    s.past(t["tenderPeriod"]["endDate"].as_str().unwrap_or_default())
        .await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification");
    let lot = |id: &str| {
        t["lots"]
            .as_array()
            .and_then(|l| l.iter().find(|l| l["id"] == id).cloned())
            .expect("the lot")
    };
    assert!(lot(A)["auctionPeriod"]["endDate"].is_string(), "{}", lot(A));
    assert!(lot(A).get("auctionUrl").is_none());
    assert!(
        lot(B).get("auctionPeriod").is_none(),
        "one offer, no auction: {}",
        lot(B)
    );
    let amounts: Vec<(Value, Value)> = t["awards"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|a| (a["lotID"].clone(), a["value"]["amount"].clone()))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        amounts,
        [(json!(A), json!(270.0)), (json!(B), json!(190.0))]
    );
}

#[tokio::test]
async fn without_a_sandbox_the_mode_is_a_rogue_field() {
    let s = TestServer::start_with(Settings::default()).await;
    let mut body = tender_body(&s.date_now().await, 1, 4);
    body["submissionMethodDetails"] = json!("quick(mode:no-auction)");
    let r = s.try_create(body).await;
    r.assert_refused(422, "body", "submissionMethodDetails", "Rogue field");
}
