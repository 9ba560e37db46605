//! The belowThreshold lifecycle driven by moving the server clock.

use crate::common::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// A tender whose tendering has ended with bids of `amounts` (placed in this order).
async fn after_tendering(
    s: &TestServer,
    amounts: &[f64],
) -> (String, String, Vec<(String, String)>) {
    let (id, token, bids) = s.tendering_with_bids(amounts).await;
    s.advance("P3D").await;
    (id, token, bids)
}

/// Days of procedure, driven by the clock: no step waits on real time (how long a whole flow
/// takes is the benchmark's "whole flows" case, never a test's).
#[tokio::test]
async fn a_whole_flow_runs_to_complete_by_moving_the_clock() {
    whole_flow(moments::MONDAY_MORNING).await;
}

/// Weekends, holidays, the year's end and the daylight-saving switches move the dates a flow
/// meets; following the dates the server announces, it completes from any of them.
#[tokio::test]
async fn a_whole_flow_completes_from_any_moment_of_the_calendar() {
    for at in [
        moments::FRIDAY_AFTER_FOUR,
        moments::SATURDAY_NOON,
        moments::SUNDAY_BEFORE_MIDNIGHT,
        moments::NEW_YEARS_EVE,
        moments::BEFORE_SPRING_FORWARD,
        moments::AUTUMN_REPEATED_HOUR,
        moments::LEAP_DAY,
    ] {
        whole_flow(at).await;
    }
}

/// Create, ask, answer, bid, auction, award, sign: every date from the server's answers.
async fn whole_flow(at: &str) {
    let s = TestServer::start_at(at).await;
    let (id, token, _) = s.published().await;
    let q = s.ask_question("broker2", &id, "Питання").await.id();
    s.answer_question(&id, &token, &q, "Відповідь").await;
    s.advance("P1DT1M").await;
    let (cheap, cheap_token) = s.bid(&id, 410.0).await;
    let (dear, _) = s.bid(&id, 480.0).await;

    s.advance("P3D").await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.auction", "from {at}");
    let start = text(&t["auctionPeriod"]["startDate"]);
    assert!(
        start.contains("T11:00:00"),
        "the first auction of a day takes the 11:00 slot: {start} (from {at})"
    );
    let auction_url = text(&t["auctionUrl"]);
    assert_eq!(auction_url, format!("{}/auctions/{id}", s.base));
    let own = s
        .bidder(&cheap_token)
        .get(&format!("{id}/bids/{cheap}"))
        .await;
    let participation = text(&own.body["data"]["participationUrl"]);
    assert!(
        participation.starts_with(&format!("{auction_url}?key_for_bid={cheap}&hash=")),
        "the auction's address, the bid's id and its secret: {participation}"
    );
    let page = s.get(&format!("{auction_url}/state")).send().await;
    assert!(
        page.status == 200 && page.body["data"]["initial"][1]["bidder"] == "Учасник №2",
        "{}",
        page.text
    );

    let t = s.until_status(&id, "active.qualification").await;
    assert!(t["auctionPeriod"]["endDate"].is_string());
    assert_eq!(t["numberOfBids"], 2);
    assert_eq!(
        count(&t["bids"]),
        Some(2),
        "bids are public from qualification"
    );
    assert!(
        t["questions"][0]["author"].is_object(),
        "question authors are public from qualification"
    );
    let award = t["awards"][0].clone();
    assert_eq!(
        (award["status"].clone(), award["bid_id"].clone()),
        (json!("pending"), json!(cheap)),
        "the lowest bid is awarded"
    );
    assert_eq!(award["value"]["amount"], 410.0);

    let award_id = award["id"].as_str().unwrap_or_default();
    let awarded = s
        .decide_award(&id, &token, award_id, "active")
        .await
        .assert_status(200);
    let stand_still_end = awarded.body["data"]["complaintPeriod"]["endDate"]
        .as_str()
        .unwrap_or_else(|| panic!("an active award has a complaint period: {}", awarded.text))
        .to_string();
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.awarded");
    let contract = t["contracts"][0].clone();
    assert_eq!(contract["status"], "pending");
    assert_eq!(
        contract["contractID"],
        format!("{}-1", t["tenderID"].as_str().unwrap_or_default())
    );
    assert_eq!(contract["value"]["amount"], 410.0);
    assert_eq!(contract["items"], t["items"]);
    let contract_path = format!(
        "/api/2.3/tenders/{id}/contracts/{}",
        contract["id"].as_str().unwrap_or_default()
    );
    // The owner's changes to the contract, each answered by the reply.
    let change = |data: Value| s.owner(&token).patch(&contract_path, data);

    let early = change(json!({"status": "active"})).await;
    assert_eq!(early.status, 403);
    assert!(
        early
            .error()
            .2
            .as_str()
            .unwrap_or_default()
            .starts_with("Can't sign contract before stand-still period end (")
    );
    let higher = change(json!({"value": {"amount": 420}})).await;
    assert_eq!(
        higher.error().2,
        json!("Value amount should be less or equal to awarded amount (410.0)")
    );
    let currency = change(json!({"value": {"amount": 400, "currency": "USD"}})).await;
    assert_eq!(
        currency.error().2,
        json!("Can't update currency for contract value")
    );
    let lowered = change(json!({"value": {"amount": 400}, "contractNumber": "№ 1/2026"}))
        .await
        .assert_status(200);
    assert_eq!(
        lowered.body["data"]["value"],
        json!({"amount": 400.0, "currency": "UAH", "valueAddedTaxIncluded": true})
    );
    let before_end = change(json!({"dateSigned": s.now().await})).await;
    assert_eq!(before_end.error().1, "dateSigned");

    s.past(&stand_still_end).await;
    let future = change(json!({"dateSigned": days_after(&s.now().await, 1)})).await;
    assert_eq!(
        future.error().2,
        json!("Contract signature date can't be in the future")
    );
    let signed = change(json!({"status": "active", "period": {"startDate": s.now().await, "endDate": days_after(&s.now().await, 365)}})).await.assert_status(200);
    assert_eq!(signed.body["data"]["status"], "active");
    assert!(
        signed.body["data"]["dateSigned"].is_string(),
        "dateSigned is filled on signing"
    );
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "complete");
    assert!(t.get("next_check").is_none());
    let closed = s
        .owner(&token)
        .patch(&format!("/api/2.3/tenders/{id}"), json!({"title": "x"}))
        .await;
    assert_eq!(
        closed.error().2,
        json!("Can't update tender in current (complete) status")
    );
    assert_eq!(count(&t["bids"]), Some(2), "{dear} stays on record");
}

#[tokio::test]
async fn no_bids_makes_the_tender_unsuccessful() {
    let s = TestServer::start().await;
    let (id, _, _) = after_tendering(&s, &[]).await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "unsuccessful");
    assert!(t.get("auctionPeriod").is_none());
}

#[tokio::test]
async fn one_bid_goes_straight_to_qualification_and_drafts_are_dropped() {
    let (s, id, _) = TestServer::with_tendering().await;
    let (only, _) = s.bid(&id, 300.0).await;
    let mut draft = bid_body(100.0);
    draft["status"] = json!("draft");
    s.by("broker2")
        .post(&format!("/api/2.3/tenders/{id}/bids"), draft)
        .await;
    s.advance("P3D").await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification");
    assert!(t.get("auctionUrl").is_none() && t.get("auctionPeriod").is_none());
    assert_eq!(t["numberOfBids"], 1, "the draft bid is gone");
    assert_eq!(t["awards"][0]["bid_id"], only);
}

#[tokio::test]
async fn a_declined_award_passes_to_the_next_bidder_until_none_is_left() {
    let s = TestServer::start().await;
    let (id, token, bids) = after_tendering(&s, &[450.0, 420.0]).await;
    let awards = |t: &Value| t["awards"].as_array().cloned().unwrap_or_default();
    let first = awards(&s.until_status(&id, "active.qualification").await)[0].clone();
    assert_eq!(first["bid_id"], json!(bids[1].0));
    let first_id = first["id"].as_str().unwrap_or_default();
    s.decide_award(&id, &token, first_id, "unsuccessful")
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.qualification");
    let second = awards(&t)[1].clone();
    assert_eq!(
        (second["bid_id"].clone(), second["status"].clone()),
        (json!(bids[0].0), json!("pending"))
    );
    let second_id = second["id"].as_str().unwrap_or_default();
    s.decide_award(&id, &token, second_id, "unsuccessful").await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.awarded");
    assert!(
        t["next_check"].is_string(),
        "the stand-still of the last decision is awaited"
    );
    let again = s.decide_award(&id, &token, first_id, "active").await;
    assert_eq!(
        again.error().2,
        json!("Can't update award in current (unsuccessful) status")
    );
    s.until_status(&id, "unsuccessful").await;
}

#[tokio::test]
async fn a_cancelled_award_cancels_its_contract_and_awards_the_bid_anew() {
    let s = TestServer::start().await;
    let (id, token, bids, award) = s.awaiting_decision(&[400.0]).await;
    s.decide_award(&id, &token, &award, "active")
        .await
        .assert_status(200);
    s.decide_award(&id, &token, &award, "cancelled")
        .await
        .assert_status(200);
    let t = s.tender(&id).await;
    assert_eq!(t["contracts"][0]["status"], "cancelled");
    assert_eq!(t["awards"][1]["status"], "pending");
    assert_eq!(t["awards"][1]["bid_id"], json!(bids[0].0));
    assert_eq!(t["status"], "active.qualification");
}

#[tokio::test]
async fn award_decisions_are_the_owners() {
    let s = TestServer::start().await;
    let (id, _, bids, award) = s.awaiting_decision(&[400.0]).await;
    // The bidder's token in the owner's place.
    let r = s.decide_award(&id, &bids[0].1, &award, "active").await;
    r.assert_refused_on(403, "permission");
}

#[tokio::test]
async fn sandbox_acceleration_shortens_what_the_server_computes_but_not_the_auction() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let (id, token, _) = s
        .create(quick_tender(&now, days_after(&now, 1), days_after(&now, 4)))
        .await;
    s.advance("P1DT1M").await;
    s.bid(&id, 400.0).await;
    s.bid(&id, 450.0).await;
    s.advance("P3D").await;
    let t = s.tender(&id).await;
    assert_eq!(t["status"], "active.auction");
    assert_eq!(
        timestamp(&t["auctionPeriod"]["startDate"]) - timestamp(&t["tenderPeriod"]["endDate"]),
        time::Duration::minutes(15),
        "a quick auction starts on the quarter hour at least 12 minutes after tendering"
    );
    s.past(t["auctionPeriod"]["startDate"].as_str().unwrap_or_default())
        .await;
    let t = s.tender(&id).await;
    let end = timestamp(&t["next_check"]);
    assert_eq!(
        end - timestamp(&t["auctionPeriod"]["startDate"]),
        time::Duration::seconds(1260),
        "upstream's phases for two bidders, never divided by the accelerator"
    );
    s.advance("PT21M").await;
    let t = s.tender(&id).await;
    assert_eq!(
        t["status"], "active.qualification",
        "moving the clock past it ends it"
    );
    assert_eq!(timestamp(&t["auctionPeriod"]["endDate"]), end);
    let award = text(&t["awards"][0]["id"]);
    let r = s.decide_award(&id, &token, &award, "active").await;
    let award = &r.body["data"];
    assert_eq!(
        timestamp(&award["complaintPeriod"]["endDate"]) - timestamp(&award["date"]),
        time::Duration::minutes(2),
        "two days divided by 1440"
    );
}

/// A test-mode tender accelerated 1440 times, its auction on upstream's quick plan.
fn quick_tender(now: &str, enquiry_end: String, tender_end: String) -> Value {
    let mut body = tender_body(now, 1, 4);
    body["procurementMethodDetails"] = json!("quick, accelerator=1440");
    body["submissionMethodDetails"] = json!("quick");
    body["mode"] = json!("test");
    body["enquiryPeriod"]["endDate"] = json!(enquiry_end);
    body["tenderPeriod"]["endDate"] = json!(tender_end);
    body
}

fn timestamp(t: &Value) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(
        t.as_str().unwrap_or_default(),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("timestamp")
}

#[tokio::test]
async fn the_clock_only_moves_forward() {
    let s = TestServer::start().await;
    let now = s.now().await;
    let r = s
        .anyone()
        .move_clock(json!({"now": "2001-01-01T00:00:00+02:00"}))
        .await;
    r.assert_refused_on(422, "now");
    let r = s.anyone().move_clock(json!({"advance": "soon"})).await;
    r.assert_refused_on(422, "advance");
    let frozen = s
        .anyone()
        .move_clock(json!({"now": days_after(&now, 10), "frozen": true}))
        .await;
    assert_eq!(frozen.body["data"]["frozen"], true);
    assert_eq!(
        s.now().await,
        frozen.body["data"]["now"].as_str().unwrap_or_default()
    );
}

#[tokio::test]
async fn without_testing_the_scheduler_follows_the_real_clock() {
    let s = TestServer::start_with(tender_registry::Settings::default()).await;
    let now = time::OffsetDateTime::now_utc();
    let soon = |secs: i64| {
        (now + time::Duration::seconds(secs))
            .format(&time::format_description::well_known::Rfc3339)
            .expect("formats")
    };
    let mut body = tender_body(&soon(0), 0, 1);
    body["enquiryPeriod"]["endDate"] = json!(soon(2));
    body["tenderPeriod"]["endDate"] = json!(soon(60));
    let (id, _, data) = s.create(body).await;
    assert_eq!(data["status"], "active.enquiries");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if s.tender(&id).await["status"] == "active.tendering" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the scheduler did not move the tender"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn concurrent_writers_never_lose_an_acknowledged_write() {
    let s = std::sync::Arc::new(TestServer::start().await);
    let (id, token) = s.tendering().await;
    let mut tasks = Vec::new();
    for i in 0..24 {
        let s = s.clone();
        let (id, token) = (id.clone(), token.clone());
        tasks.push(tokio::spawn(async move {
            if i % 4 == 0 {
                let r = s
                    .owner(&token)
                    .patch(&id.to_string(), json!({"description": format!("{i}")}))
                    .await;
                (r.status, None)
            } else {
                let r = s
                    .by("broker1")
                    .post(
                        &format!("/api/2.3/tenders/{id}/bids"),
                        bid_body(100.0 + f64::from(i)),
                    )
                    .await;
                (r.status, Some((r.id(), r.token())))
            }
        }));
    }
    let mut placed = Vec::new();
    for task in tasks {
        let (status, bid) = task.await.expect("task");
        assert!(status == 200 || status == 201, "{status}");
        placed.extend(bid);
    }
    for (bid, token) in &placed {
        let r = s.bidder(token).get(&format!("{id}/bids/{bid}")).await;
        assert_eq!(r.status, 200, "acknowledged bid {bid} is stored");
    }
    s.advance("P3D").await;
    let t = s.until_status(&id, "active.qualification").await;
    assert_eq!(t["numberOfBids"], placed.len());
}

#[tokio::test]
async fn an_absurd_clock_move_is_refused_not_fatal() {
    let s = TestServer::start().await;
    let r = s
        .anyone()
        .move_clock(json!({"advance": "P999999999D"}))
        .await;
    r.assert_refused_on(422, "advance");
    assert_eq!(s.get("/testing/clock").send().await.status, 200);
}

#[tokio::test]
async fn the_end_of_the_calendar_is_refused_not_fatal() {
    let (s, id, _) = TestServer::with_published().await;
    let r = s
        .anyone()
        .move_clock(json!({"now": "9999-12-31T23:59:59+02:00"}))
        .await;
    r.assert_refused_on(422, "now");
    let now = s.now().await;
    let mut body = tender_body(&now, 7, 14);
    body["tenderPeriod"]["endDate"] = json!("9999-12-31T23:59:59Z");
    let r = s.try_create(body).await;
    r.assert_refused_on(422, "tenderPeriod.endDate");
    s.get("/api/2.3/tenders?offset=9999-12-31T23:59:59Z")
        .send()
        .await
        .assert_status(200);
    // The server and its scheduler are still there: time moves the tender on.
    s.advance("P1D").await;
    s.until_status(&id, "active.tendering").await;
}
