//! Each broker's own clock on one shared server: a broker moves its own clock and its records
//! live on it, whoever writes to them; nobody moves another broker's clock; and the listing
//! still hands a paging reader every change once, in the order the server made them.

use crate::common::{Clock, Seen, TestServer, bid_body, ids, read_on, tender_body, text};
use serde_json::{Value, json};
use std::collections::HashMap;

/// `broker`'s clock as it reads it.
async fn clock_of(s: &TestServer, broker: &str) -> Value {
    let r = s.by(broker).get("/testing/clock").await.assert_status(200);
    r.body["data"].clone()
}

/// A tender of `broker`'s, dated from its own clock.
async fn create_as(s: &TestServer, broker: &str) -> (String, String, Value) {
    let now = text(&clock_of(s, broker).await["now"]);
    let r = s
        .by(broker)
        .post("/api/2.3/tenders", tender_body(&now, 1, 4))
        .await
        .assert_status(201);
    (r.id(), r.token(), r.body["data"].clone())
}

async fn place_bid(
    s: &TestServer,
    broker: &str,
    tender: &str,
    amount: f64,
) -> super::common::Reply {
    s.by(broker)
        .post(&format!("/api/2.3/tenders/{tender}/bids"), bid_body(amount))
        .await
}

#[tokio::test]
async fn a_broker_jumps_thirty_days_to_a_signed_contract_while_another_s_tender_waits() {
    let s = TestServer::start().await;
    let server_before = s.get("/testing/clock").send().await.body["data"].clone();
    let (theirs, _, before) = create_as(&s, "broker1").await;
    assert_eq!(before["status"], "active.enquiries");
    let own_clock = Clock::Broker("broker");

    let jumped = s
        .by("broker")
        .move_clock(json!({"advance": "P30D"}))
        .await
        .assert_status(200);
    assert_eq!(
        (&jumped.body["data"]["broker"], &jumped.body["data"]["own"]),
        (&json!("broker"), &json!(true))
    );
    let (id, token, created) = create_as(&s, "broker").await;
    assert_eq!(
        created["date"], jumped.body["data"]["now"],
        "the tender is dated on its owner's clock"
    );
    let t = s.until_status_on(own_clock, &id, "active.tendering").await;
    // Bids of other brokers are judged on the owner's clock, not on theirs.
    let first = place_bid(&s, "broker1", &id, 480.0)
        .await
        .assert_status(201);
    assert_eq!(
        first.body["data"]["date"],
        clock_of(&s, "broker").await["now"],
        "a bid is dated on the tender owner's clock"
    );
    assert!(text(&first.body["data"]["date"]) > text(&t["tenderPeriod"]["startDate"]));
    assert_eq!(place_bid(&s, "broker2", &id, 450.0).await.status, 201);
    s.until_status_on(own_clock, &id, "active.qualification")
        .await;
    s.award_and_sign(own_clock, &id, &token).await;
    assert_eq!(s.tender(&id).await["status"], "complete");

    let after = s.tender(&theirs).await;
    assert_eq!(
        after, before,
        "broker1's tender lives on its own clock, untouched"
    );
    assert_eq!(
        s.get("/testing/clock").send().await.body["data"],
        server_before,
        "the server's clock did not move"
    );
    let other = clock_of(&s, "broker1").await;
    assert_eq!(
        (&other["now"], &other["own"]),
        (&server_before["now"], &json!(false)),
        "broker1 reads the server's time until it moves a clock of its own"
    );
}

#[tokio::test]
async fn a_write_is_judged_on_the_clock_of_the_record_s_owner_years_apart_from_the_writer_s() {
    let s = TestServer::start().await;
    let (mine, _, _) = create_as(&s, "broker").await;
    s.by("broker1")
        .move_clock(json!({"advance": "P1095D"}))
        .await;
    // broker1 is three years on: on its clock broker's tender would have ended long ago, but
    // on broker's, enquiries are still open.
    let question = s.ask_question("broker1", &mine, "Доставка?").await;
    question.assert_status(201);
    assert_eq!(
        s.tender(&mine).await["status"],
        "active.enquiries",
        "the write did not move the tender on by the writer's clock"
    );
    let early = place_bid(&s, "broker1", &mine, 400.0).await;
    assert_eq!(
        early.error().2,
        json!("Can't add bid in current (active.enquiries) tender status"),
        "{}",
        early.text
    );
    // broker1's tender, on broker1's clock: once its tendering starts there, broker (three
    // years behind) bids in it, dated by broker1's clock.
    let (theirs, _, _) = create_as(&s, "broker1").await;
    let theirs_clock = Clock::Broker("broker1");
    s.until_status_on(theirs_clock, &theirs, "active.tendering")
        .await;
    let behind = place_bid(&s, "broker", &theirs, 400.0)
        .await
        .assert_status(201);
    assert_eq!(
        behind.body["data"]["date"],
        clock_of(&s, "broker1").await["now"]
    );
    assert!(
        text(&behind.body["data"]["date"]) > text(&clock_of(&s, "broker").await["now"]),
        "years ahead of the bidder's own clock"
    );
}

#[tokio::test]
async fn nobody_moves_a_broker_s_clock_but_that_broker_and_the_server_s_owner() {
    let s = TestServer::start().await;
    let other = s
        .by("broker1")
        .move_clock(json!({"advance": "P1D", "broker": "broker"}))
        .await;
    other.assert_refused(
        403,
        "url",
        "permission",
        "Forbidden: a broker moves its own clock alone, and the body names broker's; leave \
         broker out to move broker1's",
    );
    assert_eq!(clock_of(&s, "broker").await["own"], false, "nothing made");
    let unknown = s
        .anyone()
        .move_clock(json!({"advance": "P1D", "broker": "nobody"}))
        .await;
    assert_eq!(unknown.error().1, "broker");
    // The server's owner (no credentials, --testing) may move any broker's clock.
    let owner = s
        .anyone()
        .move_clock(json!({"advance": "P1D", "broker": "broker"}))
        .await
        .assert_status(200);
    assert_eq!(owner.body["data"]["own"], true);
    let read = s.get("/testing/clock?broker=broker").send().await;
    assert_eq!(read.body["data"], owner.body["data"], "anyone reads it");
    let back = s
        .by("broker")
        .move_clock(json!({"now": "2026-01-01T00:00:00+02:00"}))
        .await;
    assert_eq!(back.status, 422, "a broker's clock only moves forward too");
    assert_eq!(clock_of(&s, "broker").await, owner.body["data"]);
}

#[tokio::test]
async fn a_paging_reader_meets_every_change_once_whatever_the_brokers_clocks_do() {
    let s = TestServer::start().await;
    let start = text(&s.get("/testing/clock").send().await.body["data"]["now"]);
    let mut seen = Seen::new();
    let mut offset = start.clone();
    let mut last: HashMap<String, String> = HashMap::new();
    let mut tenders: Vec<(String, String, String)> = Vec::new();
    for round in 0..4 {
        for broker in ["broker", "broker1", "broker2"] {
            let (id, token, data) = create_as(&s, broker).await;
            last.insert(id.clone(), text(&data["dateModified"]));
            tenders.push((broker.to_string(), id, token));
        }
        // Jumps far apart: broker years ahead, broker1 days, broker2 never.
        s.by("broker")
            .move_clock(json!({"advance": "P400D"}))
            .await
            .assert_status(200);
        s.by("broker1")
            .move_clock(json!({"advance": "P2D"}))
            .await
            .assert_status(200);
        for (broker, id, token) in tenders.iter().skip(round) {
            // A tender its owner's clock carried past its end refuses the change; a live one
            // takes it.
            let status = text(&s.tender(id).await["status"]);
            let finished = matches!(status.as_str(), "unsuccessful" | "cancelled" | "complete");
            assert!(
                finished || broker != "broker",
                "a tender 400 days on is over: {status}"
            );
            let changed = s
                .with_token(broker, token)
                .patch(id, json!({"description": format!("зміна {round}")}))
                .await;
            assert_eq!(
                changed.status,
                if finished { 403 } else { 200 },
                "{status}: {}",
                changed.text
            );
            if changed.status == 200 {
                last.insert(id.clone(), text(&changed.body["data"]["dateModified"]));
            }
        }
        offset = read_on(&s, &offset, &mut seen).await;
    }
    // The scheduler's own changes (a broker's jump moves its tenders on) count too.
    for (_, id, _) in &tenders {
        last.insert(id.clone(), text(&s.tender(id).await["dateModified"]));
    }
    read_on(&s, &offset, &mut seen).await;
    for (id, shown) in &last {
        let met = seen.get(id).cloned().unwrap_or_default();
        assert_eq!(
            met.last(),
            Some(shown),
            "the reader met {id}'s latest change last: {met:?}"
        );
        let mut distinct = met.clone();
        distinct.dedup();
        assert_eq!(distinct, met, "no change of {id} is met twice");
    }
    // Upstream's feed client: the newest first (`feed=changes&descending=1`), then back to
    // the start, then on from the newest as further changes come.
    let newest = s
        .get("/api/2.3/tenders?feed=changes&descending=1&limit=100")
        .send()
        .await;
    let rows = newest.body["data"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), tenders.len(), "{}", newest.text);
    let forward = ids(&s.changes_from(&start).await);
    let mut backward = ids(&newest.body);
    backward.reverse();
    assert_eq!(backward, forward, "one order, read either way");
    let on = text(&newest.body["prev_page"]["offset"]);
    // broker2 never moved its clock: its tenders still take changes.
    let (broker, id, token) = tenders
        .iter()
        .find(|(b, _, _)| b == "broker2")
        .expect("a tender of broker2");
    s.by(broker)
        .patch(
            &format!("/api/2.3/tenders/{id}?acc_token={token}"),
            json!({"description": "остання зміна"}),
        )
        .await
        .assert_status(200);
    let met = ids(&s.changes_from(&on).await);
    assert_eq!(
        met,
        std::slice::from_ref(id),
        "only the change after the newest page"
    );
}

/// Credentials that name no broker are refused on the testing routes as on the API's writes,
/// and move nothing: not the server's clock, nor any broker's.
#[tokio::test]
async fn a_key_that_names_no_broker_moves_no_clock_and_sets_no_fault() {
    for sandbox in [false, true] {
        let s = TestServer::start_with(tender_registry::Settings {
            testing: !sandbox,
            sandbox,
            // A sandbox runs on real time (it has no clock start).
            clock_start: (!sandbox).then(|| crate::common::moment("2026-11-27T16:30:00+02:00")),
            ..Default::default()
        })
        .await;
        let mode = if sandbox { "--sandbox" } else { "--testing" };
        let server_before = s.get("/testing/clock").send().await.body["data"].clone();
        let (id, _, created) = create_as(&s, "broker").await;
        for call in [
            s.post("/testing/clock")
                .basic("brokr1", "")
                .data(json!({"advance": "PT2H"})),
            s.post("/testing/clock")
                .header("Authorization", "Bearer brokr1")
                .data(json!({"now": "2027-01-01T00:00:00+02:00"})),
            s.post("/testing/clock")
                .basic("", "")
                .data(json!({"advance": "P1D"})),
            s.get("/testing/clock").basic("brokr1", ""),
            s.get("/testing/clock?broker=broker").basic("brokr1", ""),
            s.post("/testing/faults")
                .basic("brokr1", "")
                .data(json!({"fault": "error-before-commit", "status": 503})),
            s.get("/testing/faults").basic("brokr1", ""),
        ] {
            let r = call.send().await;
            assert_eq!(r.status, 403, "{mode}: {}", r.text);
            assert_eq!(
                r.body,
                json!({"status": "error", "errors": [
                    {"location": "url", "name": "permission", "description": "Forbidden"}
                ]}),
                "{mode}"
            );
        }
        let server_after = s.get("/testing/clock").send().await.body["data"].clone();
        let moved = crate::common::moment(server_after["now"].as_str().unwrap_or_default())
            - crate::common::moment(server_before["now"].as_str().unwrap_or_default());
        assert!(
            moved < time::Duration::minutes(1),
            "{mode}: the server's clock moved no more than real time: {moved}"
        );
        assert_eq!(clock_of(&s, "broker").await["own"], false, "{mode}");
        assert_eq!(
            s.tender(&id).await["dateModified"],
            created["dateModified"],
            "{mode}: the tender was not moved on"
        );
        let faults = s.by("broker").get("/testing/faults").await;
        assert_eq!(faults.body["data"], json!([]), "{mode}: no rule was set");
        // A known broker still reads and moves its own.
        let own = s.by("broker1").move_clock(json!({"advance": "PT2H"})).await;
        assert_eq!(own.status, 200, "{mode}: {}", own.text);
    }
}

/// On a public sandbox the refusals of the testing routes keep upstream's triple (403
/// url/permission) and say why in the description: the server's clock moved without
/// credentials, a fault rule without them, test clocks listed without them.
#[tokio::test]
async fn on_a_sandbox_a_refused_move_says_why() {
    let s = TestServer::sandbox().await;
    let before = s.get("/testing/clock").send().await.body["data"].clone();
    s.anyone()
        .move_clock(json!({"advance": "P1D"}))
        .await
        .assert_refused(
            403,
            "url",
            "permission",
            "Forbidden: on a public sandbox the server's clock runs with the wall clock; move \
             your broker's own clock with your credentials",
        );
    s.anyone()
        .post(
            "/testing/faults",
            json!({"fault": "error-before-commit", "status": 503}),
        )
        .await
        .assert_refused(
            403,
            "url",
            "permission",
            "Forbidden: on a public sandbox a fault rule hits one broker's own requests: set it \
             with your broker's credentials",
        );
    s.anyone().get("/testing/clocks").await.assert_refused(
        403,
        "url",
        "permission",
        "Forbidden: test clocks are each a broker's own: call with your broker's credentials \
         (HTTP Basic, its key as the user name)",
    );
    let after = s.get("/testing/clock").send().await.body["data"].clone();
    let moved = crate::common::moment(after["now"].as_str().unwrap_or_default())
        - crate::common::moment(before["now"].as_str().unwrap_or_default());
    assert!(moved < time::Duration::minutes(1), "not moved: {moved}");
    assert_eq!(
        s.by("broker").get("/testing/faults").await.body["data"],
        json!([])
    );
}
