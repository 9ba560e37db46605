//! Test clocks as objects: a broker creates, lists, reads, moves and deletes clocks of its
//! own; a tender created on one (by the `X-Testing-Clock` header or the `clock=` word) lives
//! on it with everything under it, apart from every other clock; and the listing still hands
//! a paging reader every change once.

use crate::common::{
    As, Clock, Reply, Seen, TestServer, UNKNOWN_ID, bid_body, count, ids, read_on, tender_body,
    text,
};
use serde_json::{Value, json};

fn moment(s: &str) -> time::OffsetDateTime {
    crate::common::moment(s)
}

fn rfc3339(t: time::OffsetDateTime) -> String {
    t.format(&time::format_description::well_known::Rfc3339)
        .expect("formats")
}

/// Asks to create a test clock as `broker` with `data`; the answer may be a refusal.
async fn try_new_clock(s: &TestServer, broker: &str, data: Value) -> Reply {
    s.by(broker).post("/testing/clocks", data).await
}

/// Creates a test clock as `broker` with `data`; answers the clock.
async fn new_clock(s: &TestServer, broker: &str, data: Value) -> Value {
    let r = try_new_clock(s, broker, data).await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.body["data"].clone()
}

/// Asks to delete test clock `id` as `broker`; the answer may be a refusal.
async fn delete_clock(s: &TestServer, broker: &str, id: &str) -> Reply {
    s.by(broker).delete(&format!("/testing/clocks/{id}")).await
}

/// The clock tender `tender` lives on, as `voice` reads it.
async fn clock_of_tender(voice: As<'_>, tender: &str) -> Reply {
    voice.get(&format!("/testing/clock?tender={tender}")).await
}

async fn read_clock(s: &TestServer, id: &str) -> Value {
    let r = s.anyone().get(&format!("/testing/clocks/{id}")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.body["data"].clone()
}

async fn move_test_clock(s: &TestServer, broker: &str, id: &str, data: Value) -> Reply {
    s.by(broker)
        .post(&format!("/testing/clocks/{id}"), data)
        .await
}

/// `broker`'s test clock `id`, as the clock a tender lives on.
fn test_clock(id: &str) -> Clock<'_> {
    Clock::Test {
        broker: "broker",
        id,
    }
}

/// A tender of `broker` created on `clock` by the header, dated from that clock.
async fn tender_on(s: &TestServer, broker: &str, clock: &str) -> (String, String, Value) {
    let now = text(&read_clock(s, clock).await["now"]);
    let r = s
        .post("/api/2.3/tenders")
        .broker(broker)
        .header("X-Testing-Clock", clock)
        .data(tender_body(&now, 1, 4))
        .send()
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    (r.id(), r.token(), r.body["data"].clone())
}

/// A test clock of broker's made standing at `now`, and a tender on it by the header, dated on
/// that clock: the clock, the tender's id and its data.
async fn tender_on_new_clock(s: &TestServer, now: &str) -> (Value, String, Value) {
    let clock = new_clock(s, "broker", json!({ "now": now })).await;
    let (tender, _, created) = tender_on(s, "broker", &text(&clock["id"])).await;
    assert_eq!(created["date"], clock["now"], "dated on its clock");
    (clock, tender, created)
}

/// A tender of `broker` on no test clock, dated `now`: its id and data.
async fn tender_off_test_clocks(s: &TestServer, broker: &str, now: &str) -> (String, Value) {
    let r = s
        .by(broker)
        .post("/api/2.3/tenders", tender_body(now, 1, 4))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    (r.id(), r.body["data"].clone())
}

/// A tender on `clock` played to `complete` with one bid of broker1's; answers the tender's
/// id and token and its contract's id.
async fn completed_on(s: &TestServer, clock: &str) -> (String, String, String) {
    let (id, token, _) = tender_on(s, "broker", clock).await;
    let on = test_clock(clock);
    s.until_status_on(on, &id, "active.tendering").await;
    let bid = s.try_bid(&id, bid_body(480.0)).await;
    assert_eq!(bid.status, 201, "{}", bid.text);
    assert_eq!(
        bid.body["data"]["date"],
        read_clock(s, clock).await["now"],
        "a bidder's write is judged and dated on the tender's clock"
    );
    s.until_status_on(on, &id, "active.qualification").await;
    let contract = s.award_and_sign(on, &id, &token).await;
    assert_eq!(s.tender(&id).await["status"], "complete");
    (id, token, contract)
}

async fn server_clock(s: &TestServer) -> Value {
    s.read("/testing/clock").await["data"].clone()
}

async fn own_clock(s: &TestServer, broker: &str) -> Value {
    s.by(broker)
        .get("/testing/clock")
        .await
        .assert_status(200)
        .body["data"]
        .clone()
}

#[tokio::test]
async fn a_broker_creates_lists_reads_moves_and_deletes_its_test_clocks() {
    let s = TestServer::start().await;
    let server = server_clock(&s).await;
    let made = s
        .by("broker")
        .post("/testing/clocks", json!({"name": "nightly"}))
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    let clock = made.body["data"].clone();
    let id = text(&clock["id"]);
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    assert_eq!(
        made.header("location"),
        Some(format!("{}/testing/clocks/{id}", s.base).as_str())
    );
    assert_eq!(
        (
            &clock["name"],
            &clock["now"],
            &clock["frozen"],
            &clock["owner"]
        ),
        (
            &json!("nightly"),
            &server["now"],
            &json!(true),
            &json!("broker")
        ),
        "made at the broker's now, standing still"
    );
    // Anywhere in time: a year back, and one without a name.
    let back = new_clock(&s, "broker", json!({"now": "2025-11-23T09:00:00+02:00"})).await;
    assert_eq!(
        (moment(&text(&back["now"])), &back["name"]),
        (moment("2025-11-23T09:00:00+02:00"), &Value::Null)
    );
    let theirs = new_clock(&s, "broker1", json!({})).await;

    let listed = s.by("broker").get("/testing/clocks").await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    let with_no_records = |c: &Value| {
        let mut c = c.clone();
        c["live"] = json!({"tenders": [], "contracts": []});
        c
    };
    assert_eq!(
        listed.body["data"],
        json!([with_no_records(&clock), with_no_records(&back)]),
        "its own, in order"
    );
    let read = s.anyone().get(&format!("/testing/clocks/{id}")).await;
    let mut as_anyone = clock.clone();
    as_anyone["movable"] = json!(false);
    assert_eq!(read.body["data"], as_anyone, "anyone reads one");

    let moved = move_test_clock(&s, "broker", &id, json!({"advance": "P30D"})).await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    let expected = rfc3339(moment(&text(&clock["now"])) + time::Duration::days(30));
    assert_eq!(moment(&text(&moved.body["data"]["now"])), moment(&expected));
    assert_eq!(moved.body["data"]["frozen"], true, "still standing");
    let thawed = move_test_clock(&s, "broker", &id, json!({"frozen": false})).await;
    assert_eq!(thawed.body["data"]["frozen"], false, "{}", thawed.text);
    assert_eq!(server_clock(&s).await, server, "the server's clock stays");
    assert_eq!(
        own_clock(&s, "broker").await["own"],
        false,
        "no own clock made"
    );
    assert_eq!(read_clock(&s, &text(&theirs["id"])).await, {
        let mut t = theirs.clone();
        t["movable"] = json!(false);
        t
    });

    let gone = delete_clock(&s, "broker", &id).await;
    assert_eq!(gone.status, 200, "{}", gone.text);
    assert_eq!(
        (&gone.body["data"]["deleted"], &gone.body["data"]["frozen"]),
        (&json!(true), &json!(true))
    );
    let listed = s.by("broker").get("/testing/clocks").await;
    assert_eq!(
        listed.body["data"],
        json!([with_no_records(&back)]),
        "no longer listed"
    );
    let after = read_clock(&s, &id).await;
    assert_eq!(
        (&after["deleted"], &after["now"], &after["movable"]),
        (&json!(true), &gone.body["data"]["now"], &json!(false)),
        "read as the record of its deletion, standing at its last moment"
    );
    move_test_clock(&s, "broker", &id, json!({"advance": "P1D"}))
        .await
        .assert_refused(
            409,
            "url",
            "clock_id",
            format!("The test clock {id} was deleted: it is no longer moved nor given records."),
        );
    delete_clock(&s, "broker", &id)
        .await
        .assert_refused_on(409, "clock_id");
    assert_eq!(read_clock(&s, &id).await, after, "nothing changed");
}

/// The list of a broker's clocks names each one's records still live, as a deletion would find
/// them: its tenders not finished (a draft too), then its contracts under management still
/// active; a finished record is no longer named, and no other broker's clock is listed.
#[tokio::test]
async fn the_list_names_each_clock_s_live_records() {
    let s = TestServer::start().await;
    let a = text(&new_clock(&s, "broker", json!({"name": "a"})).await["id"]);
    let b = text(&new_clock(&s, "broker", json!({"name": "b"})).await["id"]);
    new_clock(&s, "broker1", json!({})).await;
    let mut draft = tender_body(&text(&read_clock(&s, &a).await["now"]), 1, 4);
    draft["status"] = json!("draft");
    let draft = s
        .post("/api/2.3/tenders")
        .broker("broker")
        .header("X-Testing-Clock", &a)
        .data(draft)
        .send()
        .await
        .assert_status(201)
        .id();
    let (published, _, _) = tender_on(&s, "broker", &a).await;
    let (complete, _, contract) = completed_on(&s, &b).await;
    let listed = s
        .by("broker")
        .get("/testing/clocks")
        .await
        .assert_status(200);
    let live: Vec<(Value, Value)> = listed.body["data"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| (c["name"].clone(), c["live"].clone()))
        .collect();
    assert_eq!(
        live,
        [
            (
                json!("a"),
                json!({"tenders": [draft, published], "contracts": []})
            ),
            (json!("b"), json!({"tenders": [], "contracts": [contract]})),
        ],
        "{complete} is complete: {}",
        listed.text
    );
    let read = read_clock(&s, &a).await;
    assert!(
        read.get("live").is_none(),
        "a read by anyone names none: {read}"
    );
}

#[tokio::test]
async fn every_bad_request_is_refused_with_the_envelope_and_changes_nothing() {
    let s = TestServer::start().await;
    let clock = new_clock(&s, "broker", json!({"name": "ci"})).await;
    let id = text(&clock["id"]);
    let unknown = UNKNOWN_ID;
    for r in [
        s.anyone().get(&format!("/testing/clocks/{unknown}")).await,
        move_test_clock(&s, "broker", unknown, json!({"advance": "P1D"})).await,
        delete_clock(&s, "broker", unknown).await,
    ] {
        r.assert_refused(404, "url", "clock_id", "Not Found");
    }
    // Bad clocks asked for, each refused naming its field (some with what they say too).
    for (data, field) in [
        (json!({"name": ["nightly"]}), "name"),
        (json!({"now": "yesterday"}), "now"),
        (json!({"now": "9999-12-31T00:00:00+00:00"}), "now"),
    ] {
        let bad = try_new_clock(&s, "broker", data).await;
        bad.assert_refused_on(422, field);
    }
    for (data, field, description) in [
        (
            json!({"name": "x".repeat(201)}),
            "name",
            "A name holds at most 200 characters.",
        ),
        (json!({"frozen": false}), "frozen", "Rogue field"),
    ] {
        let bad = try_new_clock(&s, "broker", data).await;
        bad.assert_refused(422, "body", field, description);
    }
    let bad = s
        .post("/testing/clocks")
        .broker("broker")
        .json(&json!([1]))
        .send()
        .await;
    bad.assert_refused(422, "body", "data", "Data not available");
    for (data, field) in [
        (json!({"advance": "soon"}), "advance"),
        (json!({"now": 5}), "now"),
        (json!({"frozen": "yes"}), "frozen"),
        (json!({"now": "2020-01-01T00:00:00+02:00"}), "now"),
        (json!({"broker": "broker"}), "broker"),
    ] {
        move_test_clock(&s, "broker", &id, data)
            .await
            .assert_refused_on(422, field);
    }
    move_test_clock(
        &s,
        "broker",
        &id,
        json!({"now": "2020-01-01T00:00:00+02:00"}),
    )
    .await
    .assert_refused_saying(
        422,
        format!(
            "The clock only moves forward; it is now {}.",
            text(&clock["now"])
        ),
    );
    // Another broker's: read, never moved nor deleted.
    let foreign = format!(
        "Forbidden: the test clock {id} is another broker's: its owner alone moves or deletes it"
    );
    move_test_clock(&s, "broker1", &id, json!({"advance": "P1D"}))
        .await
        .assert_refused(403, "url", "permission", foreign.as_str());
    delete_clock(&s, "broker1", &id).await.assert_refused(
        403,
        "url",
        "permission",
        foreign.as_str(),
    );
    // Without credentials a clock has no owner, and the refusal says so.
    for r in [
        s.anyone().post("/testing/clocks", json!({})).await,
        s.anyone().get("/testing/clocks").await,
        s.anyone()
            .post(&format!("/testing/clocks/{id}"), json!({"advance": "P1D"}))
            .await,
        s.anyone().delete(&format!("/testing/clocks/{id}")).await,
    ] {
        r.assert_refused(
            403,
            "url",
            "permission",
            "Forbidden: test clocks are each a broker's own: call with your broker's \
             credentials (HTTP Basic, its key as the user name)",
        );
    }
    // A key that names no broker is refused.
    for r in [
        try_new_clock(&s, "brokr1", json!({})).await,
        s.by("brokr1").get("/testing/clocks").await,
        s.by("brokr1").get(&format!("/testing/clocks/{id}")).await,
        s.by("brokr1")
            .post(&format!("/testing/clocks/{id}"), json!({"advance": "P1D"}))
            .await,
        delete_clock(&s, "brokr1", &id).await,
    ] {
        r.assert_refused(403, "url", "permission", "Forbidden");
    }
    let mut as_anyone = clock.clone();
    as_anyone["movable"] = json!(false);
    assert_eq!(
        read_clock(&s, &id).await,
        as_anyone,
        "the clock stands as made"
    );
    let listed = s.by("broker").get("/testing/clocks").await;
    let mut as_listed = clock.clone();
    as_listed["live"] = json!({"tenders": [], "contracts": []});
    assert_eq!(
        listed.body["data"],
        json!([as_listed]),
        "and is the only one"
    );
    assert_eq!(
        s.by("broker1").get("/testing/clocks").await.body["data"],
        json!([])
    );
}

#[tokio::test]
async fn two_clocks_side_by_side_a_jump_of_one_ends_its_tender_while_the_other_s_waits() {
    let s = TestServer::start().await;
    let server = server_clock(&s).await;
    let a = text(&new_clock(&s, "broker", json!({"name": "a"})).await["id"]);
    let b = text(&new_clock(&s, "broker", json!({"name": "b"})).await["id"]);
    let (on_a, _, _) = tender_on(&s, "broker", &a).await;
    let (on_b, _, before_b) = tender_on(&s, "broker", &b).await;
    let now = text(&server["now"]);
    let (on_own, before_own) = tender_off_test_clocks(&s, "broker", &now).await;
    let (theirs, before_theirs) = tender_off_test_clocks(&s, "broker1", &now).await;

    let jumped = move_test_clock(&s, "broker", &a, json!({"advance": "P30D"})).await;
    assert_eq!(jumped.status, 200, "{}", jumped.text);
    // Answered once every transition due on that clock was applied: the tender ended without
    // bids at the end of its tendering, dated on its clock.
    let ended = s.tender(&on_a).await;
    assert_eq!(ended["status"], "unsuccessful", "{ended}");
    assert!(text(&ended["dateModified"]) > text(&server["now"]));
    assert!(text(&ended["dateModified"]) <= text(&jumped.body["data"]["now"]));
    assert_eq!(
        s.tender(&on_b).await,
        before_b,
        "the other clock's tender waits"
    );
    assert_eq!(
        s.tender(&on_own).await,
        before_own,
        "as does one on its owner's"
    );
    assert_eq!(
        s.tender(&theirs).await,
        before_theirs,
        "and another broker's"
    );
    assert_eq!(server_clock(&s).await, server, "the server's clock stays");
    assert_eq!(
        (
            own_clock(&s, "broker").await["own"].clone(),
            own_clock(&s, "broker1").await["own"].clone()
        ),
        (json!(false), json!(false)),
        "no broker's own clock moved"
    );
    assert_eq!(read_clock(&s, &b).await["now"], server["now"]);
    // A tender is not moved on by a read or a write on another clock: the other one's
    // enquiries are still open on its clock.
    let question = s.ask_question("broker1", &on_b, "Доставка?").await;
    assert_eq!(question.status, 201, "{}", question.text);
    assert_eq!(question.body["data"]["date"], server["now"]);
    assert_eq!(s.tender(&on_b).await["status"], "active.enquiries");
    // A bidder's write is judged on the tender's clock, not on the bidder's nor the server's:
    // refused while b's enquiries run, taken and dated on b once b's tendering is open.
    let early = s.try_bid(&on_b, bid_body(450.0)).await;
    assert_eq!(early.status, 403, "{}", early.text);
    let enquiries_end = text(&before_b["enquiryPeriod"]["endDate"]);
    s.past_on(test_clock(&b), &enquiries_end).await;
    let b_now = read_clock(&s, &b).await["now"].clone();
    let bid = s.try_bid(&on_b, bid_body(450.0)).await;
    assert_eq!(bid.status, 201, "{}", bid.text);
    assert_eq!(
        bid.body["data"]["date"], b_now,
        "dated on the tender's clock"
    );
    assert_eq!(
        server_clock(&s).await,
        server,
        "the server's clock still stays"
    );
}

#[tokio::test]
async fn a_contract_under_management_lives_on_its_tender_s_clock() {
    let s = TestServer::start().await;
    let a = text(&new_clock(&s, "broker", json!({})).await["id"]);
    let b = text(&new_clock(&s, "broker", json!({})).await["id"]);
    let (_, token_a, contract_a) = completed_on(&s, &a).await;
    let (_, token_b, contract_b) = completed_on(&s, &b).await;
    let found = s
        .anyone()
        .get(&format!("/testing/clock?contract={contract_a}"))
        .await;
    assert_eq!(
        (
            &found.body["data"]["clock"],
            &found.body["data"]["contract"]
        ),
        (&json!(a), &json!(contract_a)),
        "{}",
        found.text
    );
    let jumped = move_test_clock(&s, "broker", &a, json!({"advance": "P30D"})).await;
    assert_eq!(jumped.status, 200, "{}", jumped.text);
    for (contract, tender_token, clock) in
        [(&contract_a, &token_a, &a), (&contract_b, &token_b, &b)]
    {
        let token = s.contract_credentials(contract, tender_token).await;
        let change = json!({"description": "Уточнений опис"});
        let changed = s.change_contract(contract, &token, change).await;
        assert_eq!(changed.status, 200, "{}", changed.text);
        // On a clock standing still a record's changes follow one another by a microsecond.
        let shown = moment(&text(&changed.body["data"]["dateModified"]));
        let now = moment(&text(&read_clock(&s, clock).await["now"]));
        assert!(
            shown >= now && shown - now < time::Duration::seconds(1),
            "dated on its tender's clock: {shown} at {now}"
        );
    }
}

#[tokio::test]
async fn the_header_and_the_clock_word_attach_a_tender_and_a_reader_finds_its_clock() {
    let s = TestServer::start().await;
    let (clock, by_header, created) = tender_on_new_clock(&s, "2027-02-01T10:00:00+02:00").await;
    let id = text(&clock["id"]);
    assert!(
        created.get("clock").is_none(),
        "the tender keeps upstream's shape: {created}"
    );
    let mut body = tender_body(&text(&clock["now"]), 1, 4);
    body["procurementMethodDetails"] = json!(format!("quick, accelerator=1440, clock={id}"));
    let by_word = s.by("broker").post("/api/2.3/tenders", body).await;
    assert_eq!(by_word.status, 201, "{}", by_word.text);
    assert_eq!(by_word.body["data"]["date"], clock["now"]);
    let by_word = by_word.id();
    for tender in [&by_header, &by_word] {
        let r = clock_of_tender(s.anyone(), tender).await;
        assert_eq!(r.status, 200, "{}", r.text);
        assert_eq!(
            r.body["data"],
            json!({
                "clock": id, "name": null, "now": clock["now"], "frozen": true,
                "owner": "broker", "movable": false, "tender": tender
            })
        );
    }
    let mine = clock_of_tender(s.by("broker"), &by_word).await;
    assert_eq!(mine.body["data"]["movable"], true, "for its owner");
    // One on its owner's clock reads that broker's clock, as ?broker= does.
    let (plain, _, _) = s.published().await;
    let r = clock_of_tender(s.anyone(), &plain).await;
    assert_eq!(
        (&r.body["data"]["broker"], &r.body["data"]["tender"]),
        (&json!("broker"), &json!(plain))
    );
    s.anyone()
        .get(&format!("/testing/clock?tender={UNKNOWN_ID}"))
        .await
        .assert_refused(404, "url", "tender_id", "Not Found");
    // Both move with their clock, and the one on its owner's clock does not.
    move_test_clock(&s, "broker", &id, json!({"advance": "P1DT1M"}))
        .await
        .assert_status(200);
    assert_eq!(s.tender(&by_word).await["status"], "active.tendering");
    assert_eq!(s.tender(&by_header).await["status"], "active.tendering");
    assert_eq!(s.tender(&plain).await["status"], "active.enquiries");
}

#[tokio::test]
async fn a_foreign_unknown_or_deleted_clock_is_refused_and_nothing_is_created() {
    let s = TestServer::start().await;
    let theirs = text(&new_clock(&s, "broker1", json!({})).await["id"]);
    let gone = text(&new_clock(&s, "broker", json!({})).await["id"]);
    let deleted = delete_clock(&s, "broker", &gone).await;
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    let unknown = UNKNOWN_ID;
    let now = s.now().await;
    let header = |clock: &str| {
        s.post("/api/2.3/tenders")
            .broker("broker")
            .header("X-Testing-Clock", clock)
            .data(tender_body(&now, 1, 4))
    };
    let word = |clock: &str| {
        let mut body = tender_body(&now, 1, 4);
        body["procurementMethodDetails"] = json!(format!("quick, clock={clock}"));
        s.post("/api/2.3/tenders").broker("broker").data(body)
    };
    header(&theirs).send().await.assert_refused(
        403,
        "header",
        "X-Testing-Clock",
        format!("The test clock {theirs} is another broker's."),
    );
    word(&theirs).send().await.assert_refused(
        403,
        "body",
        "procurementMethodDetails",
        format!("The test clock {theirs} is another broker's."),
    );
    header(unknown).send().await.assert_refused(
        422,
        "header",
        "X-Testing-Clock",
        format!("No test clock has the id {unknown}."),
    );
    word(unknown).send().await.assert_refused(
        422,
        "body",
        "procurementMethodDetails",
        format!("No test clock has the id {unknown}."),
    );
    header(&gone).send().await.assert_refused(
        422,
        "header",
        "X-Testing-Clock",
        format!("The test clock {gone} was deleted: it is given no records."),
    );
    let mut both = tender_body(&now, 1, 4);
    both["procurementMethodDetails"] = json!(format!("quick, clock={unknown}"));
    s.post("/api/2.3/tenders")
        .broker("broker")
        .header("X-Testing-Clock", &theirs)
        .data(both)
        .send()
        .await
        .assert_refused_on(422, "procurementMethodDetails");
    let listing = s.get("/api/2.3/tenders").send().await;
    assert_eq!(listing.body["data"], json!([]), "nothing was created");
    let (_, _, first) = s.published().await;
    assert!(
        text(&first["tenderID"]).ends_with("-000001"),
        "no tenderID was used up: {}",
        first["tenderID"]
    );
}

#[tokio::test]
async fn a_clock_is_deleted_once_its_records_are_finished_and_they_stay() {
    let s = TestServer::start().await;
    let id = text(&new_clock(&s, "broker", json!({})).await["id"]);
    let (tender, _, _) = tender_on(&s, "broker", &id).await;
    let refused = delete_clock(&s, "broker", &id).await;
    refused.assert_refused(
        409,
        "url",
        "clock_id",
        format!(
            "The test clock {id} holds records in a live status: tender {tender} (active.enquiries). A clock is deleted once its records are finished. Finish them, or delete it with ?settle=true."
        ),
    );
    assert_eq!(read_clock(&s, &id).await["deleted"], Value::Null);
    move_test_clock(&s, "broker", &id, json!({"advance": "P30D"}))
        .await
        .assert_status(200);
    let ended = s.tender(&tender).await;
    assert_eq!(ended["status"], "unsuccessful");
    let gone = delete_clock(&s, "broker", &id).await;
    assert_eq!(gone.status, 200, "{}", gone.text);
    assert_eq!(
        s.tender(&tender).await,
        ended,
        "the finished tender stays as it was"
    );
    let listing = s.get("/api/2.3/tenders").send().await;
    assert_eq!(listing.body["data"][0]["id"], json!(tender), "still listed");
    let found = clock_of_tender(s.anyone(), &tender).await;
    assert_eq!(
        (&found.body["data"]["clock"], &found.body["data"]["deleted"]),
        (&json!(id), &json!(true))
    );
}

/// The refusal of a broker's 101st clock.
const HUNDRED_CLOCKS: &str = "Broker broker holds 100 live test clocks, the most a broker keeps \
    on this sandbox: delete one it no longer needs (a clock is deleted once its records are \
    finished).";

/// A deletion with `?settle=true` finishes what still lives on the clock as its owner would:
/// a live tender and a draft cancelled, a contract under management terminated with its value
/// paid; each change reaches the feed and every record stays readable.
#[tokio::test]
async fn a_deletion_asked_to_settle_finishes_the_clock_s_live_records_first() {
    let s = TestServer::start().await;
    let id = text(&new_clock(&s, "broker", json!({})).await["id"]);
    let (completed, _, contract) = completed_on(&s, &id).await;
    let (live, _, _) = tender_on(&s, "broker", &id).await;
    let now = text(&read_clock(&s, &id).await["now"]);
    let mut draft_body = tender_body(&now, 1, 4);
    draft_body["status"] = json!("draft");
    let draft = s
        .post("/api/2.3/tenders")
        .broker("broker")
        .header("X-Testing-Clock", &id)
        .data(draft_body)
        .send()
        .await
        .assert_status(201)
        .id();
    // The feed is ordered by the server's own time, whichever clock a tender lives on.
    let feed_from = s.now().await;
    let path = format!("/testing/clocks/{id}");
    for bad in ["yes", ""] {
        s.by("broker")
            .delete(&format!("{path}?settle={bad}"))
            .await
            .assert_refused(422, "url", "settle", "settle should be true or false.");
    }
    let refused = delete_clock(&s, "broker", &id).await;
    refused.assert_refused(
        409,
        "url",
        "clock_id",
        format!(
            "The test clock {id} holds records in a live status: tender {live} (active.enquiries), tender {draft} (draft), contract {contract} (active). A clock is deleted once its records are finished. Finish them, or delete it with ?settle=true."
        ),
    );
    s.by("otherbroker")
        .delete(&format!("{path}?settle=true"))
        .await
        .assert_status(403);
    assert_eq!(s.tender(&live).await["status"], "active.enquiries");

    let gone = s
        .by("broker")
        .delete(&format!("{path}?settle=true"))
        .await
        .assert_status(200);
    assert_eq!(gone.body["data"]["deleted"], true);
    let mut settled_tenders: Vec<Value> = gone.body["data"]["settled"]["tenders"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    settled_tenders.sort_by_key(|v| v.to_string());
    let mut expected = vec![json!(live), json!(draft)];
    expected.sort_by_key(|v| v.to_string());
    assert_eq!(settled_tenders, expected);
    assert_eq!(gone.body["data"]["settled"]["contracts"], json!([contract]));

    let reason = format!("The test clock {id} was deleted with settle=true.");
    for tender in [&live, &draft] {
        let read = s.tender(tender).await;
        assert_eq!(read["status"], "cancelled", "{read}");
        assert_eq!(read["cancellations"][0]["reason"], json!(reason));
        assert_eq!(read["cancellations"][0]["status"], "active");
    }
    assert_eq!(s.tender(&completed).await["status"], "complete");
    let ended = s.read(&format!("/api/2.3/contracts/{contract}")).await["data"].clone();
    assert_eq!(ended["status"], "terminated", "{ended}");
    assert_eq!(ended["amountPaid"]["amount"], ended["value"]["amount"]);
    assert_eq!(ended["terminationDetails"], json!(reason));

    let feed = s.changes_from(&feed_from).await;
    let fed: Vec<&Value> = feed["data"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| &r["id"])
        .collect();
    for tender in [&live, &draft] {
        assert!(
            fed.contains(&&json!(tender)),
            "{tender} in the feed: {feed}"
        );
    }
}

#[tokio::test]
async fn a_broker_holds_at_most_a_hundred_clocks() {
    let s = TestServer::start().await;
    let mut first = String::new();
    for n in 0..100 {
        let made = new_clock(&s, "broker", json!({"name": format!("job {n}")})).await;
        if n == 0 {
            first = text(&made["id"]);
        }
    }
    let refused = try_new_clock(&s, "broker", json!({})).await;
    refused.assert_refused(409, "body", "data", HUNDRED_CLOCKS);
    // The test helper, which makes each tender a clock of its own, says so too, and makes
    // nothing.
    let helped = s
        .by("broker")
        .post("/testing/tenders", json!({"status": "active.tendering"}))
        .await;
    helped.assert_refused(
        409,
        "body",
        "data",
        format!("The test helper makes the tender a test clock of its own: {HUNDRED_CLOCKS}"),
    );
    let none = s.get("/api/2.3/tenders?mode=_all_").send().await;
    assert_eq!(none.body["data"], json!([]), "{}", none.text);
    let listed = s.by("broker").get("/testing/clocks").await;
    assert_eq!(count(&listed.body["data"]), Some(100));
    // Each broker holds its own hundred.
    new_clock(&s, "broker1", json!({})).await;
    let gone = delete_clock(&s, "broker", &first).await;
    assert_eq!(gone.status, 200, "{}", gone.text);
    // A deleted clock makes room.
    new_clock(&s, "broker", json!({})).await;
}

#[tokio::test]
async fn a_paging_reader_meets_every_change_once_across_test_clocks() {
    let s = TestServer::start().await;
    let start = s.now().await;
    // One clock years ahead, one a year back, one never moved, and broker1's.
    let ahead = text(&new_clock(&s, "broker", json!({})).await["id"]);
    let behind =
        text(&new_clock(&s, "broker", json!({"now": "2025-11-23T09:00:00+02:00"})).await["id"]);
    let still = text(&new_clock(&s, "broker", json!({})).await["id"]);
    let other = text(&new_clock(&s, "broker1", json!({})).await["id"]);
    let clocks = [
        ("broker", &ahead),
        ("broker", &behind),
        ("broker", &still),
        ("broker1", &other),
    ];
    let mut seen = Seen::new();
    let mut offset = start.clone();
    let mut tenders: Vec<(String, String)> = Vec::new();
    for round in 0..3 {
        for (broker, clock) in clocks {
            let (id, token, _) = tender_on(&s, broker, clock).await;
            tenders.push((id, token));
        }
        move_test_clock(&s, "broker", &ahead, json!({"advance": "P400D"}))
            .await
            .assert_status(200);
        move_test_clock(&s, "broker", &behind, json!({"advance": "P2D"}))
            .await
            .assert_status(200);
        move_test_clock(&s, "broker1", &other, json!({"advance": "PT3H"}))
            .await
            .assert_status(200);
        for (i, (id, token)) in tenders.iter().enumerate().skip(round) {
            let (broker, clock) = clocks[i % clocks.len()];
            // A tender its clock has carried past its end refuses the change; a live one takes it.
            let status = text(&s.tender(id).await["status"]);
            let finished = matches!(status.as_str(), "unsuccessful" | "cancelled" | "complete");
            assert!(
                finished || clock != &ahead,
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
        }
        offset = read_on(&s, &offset, &mut seen).await;
    }
    read_on(&s, &offset, &mut seen).await;
    for (id, _) in &tenders {
        let shown = text(&s.tender(id).await["dateModified"]);
        let met = seen.get(id).cloned().unwrap_or_default();
        assert_eq!(
            met.last(),
            Some(&shown),
            "the reader met {id}'s latest change last: {met:?}"
        );
        let mut distinct = met.clone();
        distinct.dedup();
        assert_eq!(distinct, met, "no change of {id} is met twice");
    }
    // The whole feed, read either way, holds each tender once, in one order.
    let forward = ids(&s.changes_from(&start).await);
    let mut backward = ids(&s
        .read("/api/2.3/tenders?feed=changes&descending=1&limit=100")
        .await);
    backward.reverse();
    assert_eq!(forward.len(), tenders.len());
    assert_eq!(backward, forward, "one order, read either way");
}

/// A sandbox runs on real time; its brokers' test clocks stand still where made.
#[tokio::test]
async fn test_clocks_on_a_sandbox_too() {
    let s = TestServer::sandbox().await;
    let (clock, tender, _) = tender_on_new_clock(&s, "2026-11-23T09:00:00+02:00").await;
    let id = text(&clock["id"]);
    let moved = move_test_clock(&s, "broker", &id, json!({"advance": "P30D"})).await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    assert_eq!(s.tender(&tender).await["status"], "unsuccessful");
    move_test_clock(&s, "broker1", &id, json!({"advance": "P1D"}))
        .await
        .assert_refused_on(403, "permission");
    let listed = s.by("broker").get("/testing/clocks").await;
    assert_eq!(listed.body["data"][0]["id"], json!(id));
}
