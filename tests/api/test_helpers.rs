//! The test helper `POST /testing/tenders`: a tender in each status it offers, made on a test
//! clock of its own through the API's own requests, with every token its caller needs working;
//! lots and features; a shape it cannot reach refused with nothing made; and credentials.

use crate::common::{Clock, Reply, TestServer, count, text};
use serde_json::{Value, json};

/// Asks the helper, as `broker`, for a tender of this shape.
async fn ask(s: &TestServer, data: Value) -> Reply {
    s.by("broker").post("/testing/tenders", data).await
}

/// A tender made in `status` (and the rest of `shape`): the whole answer.
async fn made(s: &TestServer, mut shape: Value) -> Value {
    let status = shape["status"].clone();
    let r = ask(s, shape.take()).await;
    r.assert_created_in(s, "/api/2.3/tenders");
    assert_eq!(r.body["data"]["status"], status, "{}", r.text);
    r.body
}

/// The bid `i` of an answer: (id, token, broker).
fn bid(answer: &Value, i: usize) -> (String, String, String) {
    let b = &answer["bids"][i];
    (text(&b["id"]), text(&b["token"]), text(&b["broker"]))
}

/// Reads a bid with its own token, as the broker that placed it.
async fn read_bid(s: &TestServer, answer: &Value, i: usize) -> Reply {
    let (id, token, broker) = bid(answer, i);
    let tender = text(&answer["data"]["id"]);
    s.by(&broker)
        .get(&format!(
            "/api/2.3/tenders/{tender}/bids/{id}?acc_token={token}"
        ))
        .await
}

/// Moves the made tender's own clock a second past `at`.
async fn past(s: &TestServer, answer: &Value, at: &str) {
    let id = text(&answer["clock"]["id"]);
    s.past_on(
        Clock::Test {
            broker: "broker",
            id: &id,
        },
        at,
    )
    .await;
}

#[tokio::test]
async fn a_draft_is_made_and_its_token_publishes_it() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "draft"})).await;
    assert_eq!(a["bids"], json!([]));
    let id = text(&a["data"]["id"]);
    let token = text(&a["access"]["token"]);
    assert_eq!(a["access"]["owner"], "broker");
    s.owner(&token)
        .patch(&id, json!({"status": "active.enquiries"}))
        .await
        .assert_status(200);
    assert_eq!(s.tender(&id).await["status"], "active.enquiries");
}

#[tokio::test]
async fn a_tender_in_enquiries_is_made_on_a_clock_of_its_own_and_its_token_changes_it() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "active.enquiries"})).await;
    let id = text(&a["data"]["id"]);
    let clock = text(&a["clock"]["id"]);
    assert_eq!(
        (a["clock"]["owner"].clone(), a["clock"]["frozen"].clone()),
        (json!("broker"), json!(true))
    );
    let lives_on = s.anyone().get(&format!("/testing/clock?tender={id}")).await;
    assert_eq!(
        lives_on.body["data"]["clock"],
        clock.as_str(),
        "{}",
        lives_on.text
    );
    s.owner(&text(&a["access"]["token"]))
        .patch(&id, json!({"title": "Змінено"}))
        .await
        .assert_status(200);
    assert_eq!(s.tender(&id).await["title"], "Змінено");
}

#[tokio::test]
async fn a_tender_in_tendering_holds_the_other_brokers_bids_each_read_with_its_token() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "active.tendering"})).await;
    let brokers: Vec<String> = (0..2).map(|i| bid(&a, i).2).collect();
    assert_eq!(brokers, ["broker1", "broker2"]);
    for i in 0..2 {
        let r = read_bid(&s, &a, i).await.assert_status(200);
        assert_eq!(r.body["data"]["id"], bid(&a, i).0.as_str());
        assert_eq!(r.body["data"]["status"], "active");
    }
    let (id, _, _) = bid(&a, 0);
    let tender = text(&a["data"]["id"]);
    let foreign = s
        .by("broker1")
        .get(&format!(
            "/api/2.3/tenders/{tender}/bids/{id}?acc_token={}",
            bid(&a, 1).1
        ))
        .await;
    assert_eq!(foreign.status, 403, "another bid's token: {}", foreign.text);
}

#[tokio::test]
async fn named_bidders_place_the_bids() {
    let s = TestServer::start().await;
    let a = made(
        &s,
        json!({"status": "active.tendering", "bids": 1, "bidders": ["broker2"]}),
    )
    .await;
    assert_eq!(count(&a["bids"]), Some(1));
    assert_eq!(bid(&a, 0).2, "broker2");
    read_bid(&s, &a, 0).await.assert_status(200);
}

#[tokio::test]
async fn a_tender_in_its_auction_is_left_live_and_a_bid_token_reads_its_participation_address() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "active.auction"})).await;
    let url = text(&a["data"]["auctionUrl"]);
    assert!(url.starts_with(&s.base), "{url}");
    let own = read_bid(&s, &a, 0).await.assert_status(200);
    assert!(
        text(&own.body["data"]["participationUrl"]).starts_with(&url),
        "{}",
        own.text
    );
    // Left a second past the tendering's end, before the auction's start: live, waiting.
    let state = s.read(&format!("{url}/state")).await;
    assert_eq!(state["data"]["status"], "waiting", "{state}");
}

#[tokio::test]
async fn a_tender_in_qualification_has_its_auction_fast_forwarded_and_the_token_awards() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "active.qualification"})).await;
    let t = &a["data"];
    let award = &t["awards"][0];
    assert_eq!(award["status"], "pending");
    assert_eq!(
        award["bid_id"],
        bid(&a, 1).0.as_str(),
        "the cheaper bid, the second"
    );
    assert_eq!(
        t["auctionPeriod"]["startDate"],
        t["tenderPeriod"]["endDate"]
    );
    let (id, token) = (text(&t["id"]), text(&a["access"]["token"]));
    s.decide_award(&id, &token, &text(&award["id"]), "active")
        .await
        .assert_status(200);
    assert_eq!(s.tender(&id).await["status"], "active.awarded");
}

#[tokio::test]
async fn a_live_auction_asked_for_runs_its_course_on_the_way_to_qualification() {
    let s = TestServer::start().await;
    let a = made(
        &s,
        json!({"status": "active.qualification", "auction": "live"}),
    )
    .await;
    let t = &a["data"];
    assert_ne!(
        t["auctionPeriod"]["startDate"],
        t["tenderPeriod"]["endDate"]
    );
    assert!(t["auctionPeriod"]["endDate"].is_string(), "{t}");
    assert_eq!(t["awards"][0]["status"], "pending");
}

#[tokio::test]
async fn an_awarded_tender_is_signed_with_its_token_after_the_stand_still() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "active.awarded", "bids": 1})).await;
    let t = &a["data"];
    assert_eq!(t["awards"][0]["status"], "active");
    assert_eq!(t["contracts"][0]["status"], "pending");
    assert_eq!(a["contracts"], json!([]), "no contract is signed yet");
    past(&s, &a, &text(&t["awards"][0]["complaintPeriod"]["endDate"])).await;
    let (id, token) = (text(&t["id"]), text(&a["access"]["token"]));
    s.sign_contract(&id, &token, &text(&t["contracts"][0]["id"]))
        .await
        .assert_status(200);
    assert_eq!(s.tender(&id).await["status"], "complete");
}

#[tokio::test]
async fn a_complete_tender_answers_its_contract_s_credentials_which_write_the_contract() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "complete"})).await;
    let contract = &a["contracts"][0];
    assert_eq!(contract["id"], a["data"]["contracts"][0]["id"]);
    assert_eq!(contract["status"], "active");
    let path = format!(
        "/api/2.3/contracts/{}?acc_token={}",
        text(&contract["id"]),
        text(&contract["token"])
    );
    let r = s
        .by("broker")
        .patch(&path, json!({"amountPaid": {"amount": 100}}))
        .await
        .assert_status(200);
    assert_eq!(r.body["data"]["amountPaid"]["amount"], 100.0);
}

#[tokio::test]
async fn a_contract_under_management_is_made_terminated() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "complete", "contract": "terminated"})).await;
    let contract = &a["contracts"][0];
    assert_eq!(contract["status"], "terminated");
    let read = s
        .anyone()
        .get(&format!("/api/2.3/contracts/{}", text(&contract["id"])))
        .await
        .assert_status(200);
    assert_eq!(read.body["data"]["status"], "terminated");
}

#[tokio::test]
async fn a_tender_without_bids_is_made_unsuccessful() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "unsuccessful"})).await;
    assert_eq!(a["bids"], json!([]));
    let closed = s
        .owner(&text(&a["access"]["token"]))
        .patch(&text(&a["data"]["id"]), json!({"title": "x"}))
        .await;
    closed.assert_refused_saying(403, "Can't update tender in current (unsuccessful) status");
}

#[tokio::test]
async fn a_tender_is_made_cancelled_in_enquiries_or_with_its_bids() {
    let s = TestServer::start().await;
    let early = made(&s, json!({"status": "cancelled"})).await;
    assert_eq!(early["data"]["cancellations"][0]["status"], "active");
    assert!(early["data"].get("tenderPeriod").is_some());
    let late = made(&s, json!({"status": "cancelled", "bids": 2})).await;
    assert_eq!(count(&late["bids"]), Some(2));
    assert_eq!(late["data"]["cancellations"][0]["status"], "active");
    assert!(late["data"]["tenderPeriod"]["startDate"].is_string());
}

#[tokio::test]
async fn lots_each_get_their_award_and_contract_with_its_credentials() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "complete", "lots": 2})).await;
    let t = &a["data"];
    assert_eq!(count(&t["lots"]), Some(2));
    for lot in t["lots"].as_array().into_iter().flatten() {
        assert_eq!(lot["status"], "complete", "{lot}");
    }
    assert_eq!(count(&a["contracts"]), Some(2));
    for contract in a["contracts"].as_array().into_iter().flatten() {
        s.by("broker")
            .patch(
                &format!(
                    "/api/2.3/contracts/{}?acc_token={}",
                    text(&contract["id"]),
                    text(&contract["token"])
                ),
                json!({"amountPaid": {"amount": 10}}),
            )
            .await
            .assert_status(200);
    }
}

#[tokio::test]
async fn features_are_offered_and_each_bid_gives_its_parameters() {
    let s = TestServer::start().await;
    let a = made(
        &s,
        json!({"status": "active.qualification", "features": true, "lots": 1}),
    )
    .await;
    let t = &a["data"];
    assert_eq!(t["features"][0]["code"], "delivery");
    let bids = t["bids"].as_array().cloned().unwrap_or_default();
    assert_eq!(bids.len(), 2, "{t}");
    let given: Vec<Value> = bids
        .iter()
        .map(|b| b["parameters"][0]["value"].clone())
        .collect();
    assert_eq!(given, [json!(0.0), json!(0.1)]);
    let lot = &t["lots"][0]["id"];
    assert!(bids.iter().all(|b| b["lotValues"][0]["relatedLot"] == *lot));
}

#[tokio::test]
async fn the_caller_s_fields_are_merged_over_the_default_tender() {
    let s = TestServer::start().await;
    let a = made(
        &s,
        json!({"status": "active.enquiries", "tender": {"title": "Свій", "value": {"amount": 900}}}),
    )
    .await;
    assert_eq!(a["data"]["title"], "Свій");
    assert_eq!(
        (
            a["data"]["value"]["amount"].clone(),
            a["data"]["value"]["currency"].clone()
        ),
        (json!(900.0), json!("UAH"))
    );
}

/// The broker's listing and its test clocks, to show that a refused shape leaves nothing.
async fn what_is_there(s: &TestServer) -> (Value, Value) {
    let listing = s.anyone().get("/api/2.3/tenders").await.assert_status(200);
    let clocks = s
        .by("broker")
        .get("/testing/clocks")
        .await
        .assert_status(200);
    (listing.body["data"].clone(), clocks.body["data"].clone())
}

#[tokio::test]
async fn a_shape_it_cannot_reach_is_refused_saying_why_and_nothing_is_made() {
    let s = TestServer::start().await;
    let before = what_is_there(&s).await;
    assert_eq!(before.1, json!([]));
    ask(&s, json!({"status": "active.auction", "bids": 1})).await.assert_refused_saying(
        422,
        "A tender reaches active.auction with 2 bids or more: with fewer it goes from tendering straight to qualification or to unsuccessful.",
    );
    ask(&s, json!({"status": "unsuccessful", "bids": 1}))
        .await
        .assert_refused_on(422, "bids");
    ask(&s, json!({"status": "active.enquiries", "bids": 1}))
        .await
        .assert_refused_on(422, "bids");
    ask(&s, json!({"status": "complete", "bids": 0}))
        .await
        .assert_refused_on(422, "bids");
    ask(&s, json!({"status": "active.tendering", "bids": 3}))
        .await
        .assert_refused(
            422,
            "body",
            "bids",
            "3 bids need 3 bidders, one bid each; 2 are known: broker1, broker2.",
        );
    ask(
        &s,
        json!({"status": "active.tendering", "bidders": ["nobody"]}),
    )
    .await
    .assert_refused_saying(422, "No broker is named nobody.");
    ask(
        &s,
        json!({"status": "active.auction", "auction": "fast-forward"}),
    )
    .await
    .assert_refused_on(422, "auction");
    ask(
        &s,
        json!({"status": "active.awarded", "contract": "active"}),
    )
    .await
    .assert_refused_on(422, "contract");
    ask(&s, json!({"status": "closed"}))
        .await
        .assert_refused_on(422, "status");
    ask(&s, json!({"status": "draft", "colour": "red"}))
        .await
        .assert_refused(422, "body", "colour", "Rogue field");
    ask(&s, json!({})).await.assert_refused_on(422, "status");
    assert_eq!(what_is_there(&s).await, before);
}

#[tokio::test]
async fn a_tender_the_api_refuses_to_create_takes_its_new_clock_with_it() {
    let s = TestServer::start().await;
    let before = what_is_there(&s).await;
    assert_eq!(before.1, json!([]));
    let r = ask(
        &s,
        json!({"status": "active.tendering", "tender": {"value": {"amount": "много"}}}),
    )
    .await;
    r.assert_refused_on(422, "value.amount");
    assert_eq!(what_is_there(&s).await, before);
}

#[tokio::test]
async fn no_credentials_or_unknown_ones_are_refused() {
    let s = TestServer::start().await;
    s.anyone()
        .post("/testing/tenders", json!({"status": "draft"}))
        .await
        .assert_refused(
            403,
            "url",
            "permission",
            "Forbidden: the test helper makes a broker's tender: call with your broker's \
             credentials",
        );
    s.by("stranger")
        .post("/testing/tenders", json!({"status": "draft"}))
        .await
        .assert_refused(403, "url", "permission", "Forbidden");
    assert_eq!(what_is_there(&s).await.1, json!([]));
}

#[tokio::test]
async fn the_made_tender_lives_on_its_own_clock_alone() {
    let s = TestServer::start().await;
    let a = made(&s, json!({"status": "active.tendering"})).await;
    let id = text(&a["data"]["id"]);
    let other = s
        .by("broker")
        .post("/testing/clocks", json!({}))
        .await
        .assert_status(201);
    s.by("broker")
        .post(
            &format!("/testing/clocks/{}", other.id()),
            json!({"advance": "P30D"}),
        )
        .await
        .assert_status(200);
    s.by("broker")
        .move_clock(json!({"advance": "P30D"}))
        .await
        .assert_status(200);
    s.advance("P30D").await;
    assert_eq!(s.tender(&id).await["status"], "active.tendering");
    past(&s, &a, &text(&a["data"]["tenderPeriod"]["endDate"])).await;
    assert_eq!(s.tender(&id).await["status"], "active.qualification");
}

#[tokio::test]
async fn faults_set_for_a_broker_s_requests_never_hit_the_helper_s_own() {
    let s = TestServer::start().await;
    for (broker, path) in [
        ("broker", "/api/2.3/tenders"),
        ("broker1", "/api/2.3/tenders/*/bids"),
    ] {
        s.by(broker)
            .post(
                "/testing/faults",
                json!({"match": {"method": "POST", "path": path}, "fault": "error-after-commit"}),
            )
            .await
            .assert_status(201);
    }
    let a = ask(&s, json!({"status": "active.tendering", "bids": 1}))
        .await
        .assert_status(201);
    assert_eq!(a.body["data"]["status"], "active.tendering");
    read_bid(&s, &a.body, 0).await.assert_status(200);
    let own = s
        .by("broker1")
        .post(
            &format!("/api/2.3/tenders/{}/bids", text(&a.body["data"]["id"])),
            crate::common::bid_body(300.0),
        )
        .await;
    assert_eq!(own.status, 503, "the broker's own request meets its fault");
}

/// On a public sandbox nobody acts as another broker, the test helper included: a shape
/// naming another broker among the bidders (or a name no broker has: a sandbox does not say
/// which names exist) is refused before anything is made.
#[tokio::test]
async fn on_a_sandbox_naming_another_broker_among_the_bidders_is_refused_and_nothing_is_made() {
    let s = TestServer::sandbox().await;
    for other in ["broker1", "stranger"] {
        let r = s
            .by("broker")
            .post(
                "/testing/tenders",
                json!({"status": "active.tendering", "bidders": ["broker", other]}),
            )
            .await;
        r.assert_refused(
            403,
            "body",
            "bidders",
            format!(
                "On a public sandbox the test helper bids in its caller's name alone, and \
                 {other} is not broker: nobody acts as another broker here. Leave bidders out, \
                 or name only broker: the bids are then broker's own, each from a tenderer of \
                 its own."
            ),
        );
    }
    let (tenders, clocks) = what_is_there(&s).await;
    assert_eq!(
        (tenders, clocks),
        (json!([]), json!([])),
        "no tender, no clock"
    );
}

/// On a public sandbox the helper's bids are the caller's own, each from a tenderer of its
/// own, and the procurement goes on with them as with any.
#[tokio::test]
async fn on_a_sandbox_the_default_bids_are_the_caller_s_own() {
    let s = TestServer::sandbox().await;
    let a = made(&s, json!({"status": "active.qualification"})).await;
    assert_eq!(count(&a["bids"]), Some(2), "{a}");
    let mut tenderers = Vec::new();
    for i in 0..2 {
        let (_, _, broker) = bid(&a, i);
        assert_eq!(broker, "broker", "{a}");
        let read = read_bid(&s, &a, i).await.assert_status(200);
        tenderers.push(read.body["data"]["tenderers"][0].clone());
    }
    assert_ne!(tenderers[0]["name"], tenderers[1]["name"]);
    assert_ne!(
        tenderers[0]["identifier"]["id"], tenderers[1]["identifier"]["id"],
        "each bid from a tenderer of its own"
    );
    assert_eq!(count(&a["data"]["awards"]), Some(1), "{}", a["data"]);
    // Naming the caller alone is the same.
    let named = made(
        &s,
        json!({"status": "active.tendering", "bids": 3, "bidders": ["broker"]}),
    )
    .await;
    let brokers: Vec<String> = (0..3).map(|i| bid(&named, i).2).collect();
    assert_eq!(brokers, ["broker", "broker", "broker"]);
}
