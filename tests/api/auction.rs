//! The live auction, as upstream's auction service ran it: stages from the auction's start,
//! turns from the highest amount to the lowest, posts checked against the bidder's own amount
//! less the minimal step, the last post counting and private until its turn ends, normalised
//! prices with features, ties to the earlier bid, and the results written back before
//! awarding. Bidders bid through the JSON interface beside the auction's page.

use crate::common::*;
use serde_json::{Value, json};
use test_support::interface;

fn instant(v: &Value) -> time::OffsetDateTime {
    moment(v.as_str().unwrap_or_default())
}

/// A tender with two bids, `first` then `second`, in its auction: (tender, owner token,
/// each bid's (id, participation address)).
async fn in_auction(
    s: &TestServer,
    body: Value,
    offers: &[Value],
) -> (Value, String, Vec<(String, String)>) {
    let (id, token, _) = s.create(body).await;
    s.advance("P1DT1M").await;
    let mut bids = Vec::new();
    for offer in offers {
        // A minute apart, so that their dates tell them apart.
        s.advance("PT1M").await;
        let r = s.try_bid(&id, offer.clone()).await.assert_status(201);
        bids.push((r.id(), r.token()));
    }
    let t = s.until_status(&id, "active.auction").await;
    let mut addresses = Vec::new();
    for (bid, bid_token) in bids {
        let r = s.bidder(&bid_token).get(&format!("{id}/bids/{bid}")).await;
        // A bid on lots has an address for each lot auctioned.
        let data = &r.body["data"];
        let address = data["participationUrl"]
            .as_str()
            .or_else(|| {
                data["lotValues"]
                    .as_array()?
                    .iter()
                    .find_map(|v| v["participationUrl"].as_str())
            })
            .unwrap_or_default()
            .to_string();
        assert!(address.contains("&hash="), "a secret in {address}");
        addresses.push((bid, address));
    }
    (t, token, addresses)
}

async fn state(s: &TestServer, address: &str) -> Value {
    let r = s
        .get(&interface(address, "state"))
        .send()
        .await
        .assert_status(200);
    r.body["data"].clone()
}

async fn bid(s: &TestServer, address: &str, amount: Value) -> Reply {
    s.anyone()
        .post(&interface(address, "bids"), json!({ "bid": amount }))
        .await
}

/// Moves the clock into stage `index` of the auction (a few seconds after it starts).
async fn into_stage(s: &TestServer, viewer: &str, index: usize) {
    let st = state(s, viewer).await;
    let start = text(&st["stages"][index]["start"]);
    let target = (moment(&start) + time::Duration::seconds(5))
        .format(&time::format_description::well_known::Rfc3339)
        .expect("formats");
    s.anyone()
        .move_clock(json!({"now": target}))
        .await
        .assert_status(200);
}

fn two_bids() -> [Value; 2] {
    [bid_body(480.0), bid_body(450.0)]
}

#[tokio::test]
async fn the_second_cheapest_bid_wins_by_bidding_lower() {
    let s = TestServer::start().await;
    let (t, _, addresses) = in_auction(&s, tender_body(&s.now().await, 1, 4), &two_bids()).await;
    let id = text(&t["id"]);
    let viewer = text(&t["auctionUrl"]);
    let (dearer, dearer_page) = addresses[0].clone();
    let st = state(&s, &viewer).await;
    assert_eq!(st["status"], "waiting");
    let kinds: Vec<Value> = st["stages"]
        .as_array()
        .map(|a| a.iter().map(|s| s["type"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(
        kinds.len(),
        11,
        "3 × 2 turns, 3 pauses and the two announcement stages"
    );
    // The highest amount bids first in round 1: the dearer bid.
    assert_eq!(st["stages"][1]["bidder"], "Учасник №1");
    into_stage(&s, &viewer, 1).await;
    let mine = state(&s, &dearer_page).await;
    assert_eq!(mine["participant"]["turn"], true);
    assert_eq!(
        mine["participant"]["max"], 465.0,
        "480 less the minimal step of 15"
    );
    let posted = bid(&s, &dearer_page, json!(440)).await.assert_status(200);
    assert_eq!(
        posted.body["data"],
        json!({"bid": 440.0, "bidder_id": dearer})
    );
    let posted_at = s.now().await;
    let end = text(&s.tender(&id).await["next_check"]);
    s.past(&end).await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification");
    assert_eq!(
        t["auctionPeriod"]["endDate"],
        json!(end),
        "ended at its planned end"
    );
    let bid = t["bids"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["id"] == dearer.as_str()).cloned())
        .expect("the bid");
    assert_eq!(
        bid["value"]["amount"], 440.0,
        "written back from the auction"
    );
    assert_eq!(
        bid["date"],
        json!(posted_at),
        "dated by its last accepted post"
    );
    assert_eq!(
        t["awards"][0]["bid_id"],
        dearer.as_str(),
        "the lowered bid wins"
    );
    assert_eq!(t["awards"][0]["value"]["amount"], 440.0);
    let finished = state(&s, &viewer).await;
    assert_eq!(finished["status"], "finished");
    assert_eq!(
        finished["results"][1]["bidder"], t["bids"][0]["tenderers"][0]["name"],
        "names once past the auction"
    );
}

#[tokio::test]
async fn posts_are_refused_with_upstream_s_messages_and_change_nothing() {
    let s = TestServer::start().await;
    let (t, _, addresses) = in_auction(&s, tender_body(&s.now().await, 1, 4), &two_bids()).await;
    let viewer = text(&t["auctionUrl"]);
    let (first, second) = (addresses[0].1.clone(), addresses[1].1.clone());
    into_stage(&s, &viewer, 0).await;
    let early = bid(&s, &first, json!(400)).await;
    early.assert_refused(403, "body", "bid", "Stage not for bidding");
    into_stage(&s, &viewer, 1).await;
    let before = state(&s, &viewer).await;
    for (address, amount, status, description) in [
        (&second, json!(400), 403, "Not valid bidder"),
        (&first, json!(465.01), 422, "Too high value"),
        (&first, json!(0), 422, "Bid amount is required"),
        (&first, Value::Null, 422, "Bid amount is required"),
        (&first, json!(-5), 422, "Too low value"),
    ] {
        let r = bid(&s, address, amount).await;
        r.assert_refused(status, "body", "bid", description);
    }
    let wrong = first.replace("&hash=", "&hash=0");
    for address in [&wrong, &viewer] {
        let r = bid(&s, address, json!(400)).await;
        r.assert_refused(403, "url", "permission", "Forbidden");
    }
    let page = s.get(&wrong).send().await;
    assert_eq!(
        page.status, 403,
        "a wrong secret is refused at the page too"
    );
    assert_eq!(state(&s, &viewer).await, before, "refusals change nothing");
    assert_eq!(
        bid(&s, &first, json!(465)).await.status,
        200,
        "the limit is inclusive"
    );
}

#[tokio::test]
async fn the_last_post_counts_a_cancel_keeps_the_amount_and_posts_stay_private_until_the_turn_ends()
{
    let s = TestServer::start().await;
    let (t, _, addresses) = in_auction(&s, tender_body(&s.now().await, 1, 4), &two_bids()).await;
    let viewer = text(&t["auctionUrl"]);
    let first = addresses[0].1.clone();
    into_stage(&s, &viewer, 1).await;
    assert_eq!(bid(&s, &first, json!(400)).await.status, 200);
    // A later post may be higher than an earlier one, within the limit of the turn's start.
    assert_eq!(bid(&s, &first, json!(460)).await.status, 200);
    let during = state(&s, &viewer).await;
    assert_eq!(during["initial"][0]["amount"], 480.0);
    assert!(
        during["stages"][1].get("amount").is_none(),
        "private while the turn runs"
    );
    assert_eq!(
        state(&s, &first).await["participant"]["posted"],
        460.0,
        "its own post restored"
    );
    into_stage(&s, &viewer, 2).await;
    let after = state(&s, &viewer).await;
    assert_eq!(after["stages"][1]["amount"], 460.0);
    assert_eq!(after["stages"][1]["changed"], true);
    assert!(
        after["stages"][4].get("bidder").is_none(),
        "round 2's order waits for round 1's end"
    );
    into_stage(&s, &viewer, 3).await;
    let after = state(&s, &viewer).await;
    // Round 2: the lower bid still leads (450 < 460), so the dearer bids first again.
    assert_eq!(after["stages"][4]["bidder"], "Учасник №1");
    into_stage(&s, &viewer, 4).await;
    assert_eq!(
        state(&s, &first).await["participant"]["max"],
        445.0,
        "460 less the step"
    );
    assert_eq!(bid(&s, &first, json!(430)).await.status, 200);
    assert_eq!(bid(&s, &first, json!(-1)).await.status, 200, "withdrawn");
    into_stage(&s, &viewer, 5).await;
    let round2 = state(&s, &viewer).await;
    assert_eq!(
        round2["stages"][4]["amount"], 460.0,
        "a withdrawn post leaves the amount"
    );
    assert_eq!(round2["stages"][4]["changed"], false);
}

#[tokio::test]
async fn equal_offers_take_turns_by_their_dates_and_the_award_goes_to_the_earlier() {
    let s = TestServer::start().await;
    let (t, _, addresses) = in_auction(
        &s,
        tender_body(&s.now().await, 1, 4),
        &[bid_body(450.0), bid_body(450.0)],
    )
    .await;
    let viewer = text(&t["auctionUrl"]);
    let st = state(&s, &viewer).await;
    assert_eq!(
        (
            st["stages"][1]["bidder"].clone(),
            st["stages"][2]["bidder"].clone()
        ),
        (json!("Учасник №2"), json!("Учасник №1")),
        "the later bid goes first, the earlier keeps the better place"
    );
    let t = s
        .until_status(&text(&t["id"]), "active.qualification")
        .await;
    assert_eq!(
        t["awards"][0]["bid_id"],
        addresses[0].0.as_str(),
        "the earlier bid wins a tie: {t}"
    );
}

#[tokio::test]
async fn features_order_the_turns_by_the_normalised_price() {
    let s = TestServer::start().await;
    let mut body = tender_body(&s.now().await, 1, 4);
    body["features"] = json!([{"code": "delivery", "featureOf": "tenderer", "title": "Доставка",
        "enum": [{"value": 0.0, "title": "ні"}, {"value": 0.1, "title": "так"}]}]);
    let mut quick = bid_body(500.0);
    quick["parameters"] = json!([{"code": "delivery", "value": 0.1}]);
    let mut slow = bid_body(460.0);
    slow["parameters"] = json!([{"code": "delivery", "value": 0.0}]);
    let (t, _, addresses) = in_auction(&s, body, &[quick, slow]).await;
    let viewer = text(&t["auctionUrl"]);
    let st = state(&s, &viewer).await;
    // 500 / 1.111… = 450 against 460: the slower bidder's normalised price is the higher.
    assert_eq!(st["stages"][1]["bidder"], "Учасник №2");
    assert_eq!(st["normalised"], true);
    assert_eq!(
        st["initial"][0]["amount"], 450.0,
        "viewers see normalised prices"
    );
    let own = state(&s, &addresses[0].1).await;
    assert_eq!(
        own["initial"][0]["amount"], 500.0,
        "a bidder its own full price"
    );
}

#[tokio::test]
async fn a_lot_tender_runs_one_auction_per_lot_with_two_bids() {
    use crate::lots::{A, B, lot_bid_body, lot_tender};
    let s = TestServer::start().await;
    let (t, _, addresses) = in_auction(
        &s,
        lot_tender(&s.now().await, &[(A, 300.0), (B, 200.0)]),
        &[
            lot_bid_body(&[(A, 280.0), (B, 190.0)]),
            lot_bid_body(&[(A, 270.0)]),
        ],
    )
    .await;
    let lot = |id: &str| {
        t["lots"]
            .as_array()
            .and_then(|l| l.iter().find(|l| l["id"] == id).cloned())
            .expect("lot")
    };
    let auction = text(&lot(A)["auctionUrl"]);
    assert!(
        auction.ends_with(&format!("{}_{A}", text(&t["id"]))),
        "{auction}"
    );
    assert!(lot(B).get("auctionUrl").is_none(), "one offer, no auction");
    assert!(
        addresses.iter().all(
            |(bid, address)| address.starts_with(&format!("{auction}?key_for_bid={bid}&hash="))
        ),
        "each bidder's address is lot A's auction: {addresses:?}"
    );
    let st = state(&s, &auction).await;
    assert_eq!(st["lot"]["title"], lot(A)["title"]);
    assert_eq!(count(&st["initial"]), Some(2));
    let t = s
        .until_status(&text(&t["id"]), "active.qualification")
        .await;
    assert!(lot(A)["auctionPeriod"]["startDate"].is_string());
    let a_award = t["awards"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["lotID"] == A).cloned())
        .expect("lot A's award");
    assert_eq!(a_award["value"]["amount"], 270.0);
}

#[tokio::test]
async fn the_page_is_served_with_its_assets_and_a_strict_policy() {
    let s = TestServer::start().await;
    let (t, _, addresses) = in_auction(&s, tender_body(&s.now().await, 1, 4), &two_bids()).await;
    for address in [text(&t["auctionUrl"]), addresses[0].1.clone()] {
        let page = s.get(&address).send().await;
        assert_eq!(page.status, 200);
        assert_eq!(
            page.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(
            page.header("content-security-policy")
                .is_some_and(|p| p.starts_with("default-src 'self'"))
        );
        assert!(page.text.contains("id=\"BidsForm\""), "{}", page.text);
    }
    for asset in ["auction.js", "auction.css"] {
        assert_eq!(
            s.get(&format!("/auctions/assets/{asset}"))
                .send()
                .await
                .status,
            200
        );
    }
    let unknown = s.get(&format!("/auctions/{}", "0".repeat(32))).send().await;
    unknown.assert_refused_on(404, "auction_id");
}

/// A sandbox plans a quick auction as upstream's chronograph did, at least 12 minutes after
/// tendering on the quarter hour, and keeps upstream's stage lengths however much the tender is
/// accelerated: read back from the server's dates, not waited for. The tender lives on a test
/// clock standing where the test puts it and moved only by it (a tendering of seconds on the
/// wall clock raced a busy machine: its creation could come after its own enquiry end): on an
/// ordinary afternoon, and across the night Kyiv springs forward (03:00 EET is 04:00 EEST).
#[tokio::test]
async fn a_sandbox_quick_auction_waits_12_minutes_and_keeps_upstream_s_stage_lengths() {
    let s = TestServer::sandbox().await;
    for (tender_end, planned) in [
        ("2026-11-27T16:30:00+02:00", "2026-11-27T16:45:00+02:00"),
        ("2027-03-28T02:55:00+02:00", "2027-03-28T04:15:00+03:00"),
    ] {
        let end = moment(tender_end);
        let at = |t: time::OffsetDateTime| {
            t.format(&time::format_description::well_known::Rfc3339)
                .expect("formats")
        };
        let made = s
            .by("broker")
            .post(
                "/testing/clocks",
                json!({"now": at(end - time::Duration::hours(2))}),
            )
            .await
            .assert_status(201);
        let clock = made.id();
        let on = Clock::Test {
            broker: "broker",
            id: &clock,
        };
        let mut body = tender_body(&at(end - time::Duration::hours(2)), 1, 4);
        body["procurementMethodDetails"] = json!("quick, accelerator=1440");
        body["submissionMethodDetails"] = json!("quick");
        body["enquiryPeriod"]["endDate"] = json!(at(end - time::Duration::hours(1)));
        body["tenderPeriod"]["endDate"] = json!(tender_end);
        let created = s
            .post("/api/2.3/tenders")
            .broker("broker")
            .header("X-Testing-Clock", &clock)
            .data(body)
            .send()
            .await
            .assert_status(201);
        let id = created.id();
        s.past_on(on, &at(end - time::Duration::hours(1))).await;
        assert_eq!(s.tender(&id).await["status"], "active.tendering");
        s.bid(&id, 480.0).await;
        s.bid(&id, 450.0).await;
        s.past_on(on, tender_end).await;
        let t = s.tender(&id).await;
        assert_eq!(t["status"], "active.auction", "{t}");
        let st = state(&s, &text(&t["auctionUrl"])).await;
        let start = instant(&st["startDate"]);
        assert_eq!(start, instant(&t["auctionPeriod"]["startDate"]));
        assert_eq!(start, moment(planned), "{tender_end}: {t}");
        let after = start - end;
        assert!(
            after >= time::Duration::minutes(12) && after < time::Duration::minutes(27),
            "the auction starts {after} after tendering: {t}"
        );
        assert_eq!(st["status"], "waiting", "{st}");
        let offsets: Vec<i64> = st["stages"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| (instant(&s["start"]) - start).whole_seconds())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            offsets,
            [0, 300, 420, 540, 660, 780, 900, 1020, 1140, 1260, 1260]
        );
        assert_eq!(
            instant(&t["next_check"]),
            start,
            "the tender waits for its start"
        );
    }
}
