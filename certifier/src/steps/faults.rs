//! Faults on demand (`@faults`): the target fails one chosen request of the scenario's broker
//! through its fault API (`/testing/faults`), and the client recovers as the spec's Errors rules
//! say. A target without the API (404) does not offer these scenarios.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;

use super::tenders;
use crate::{
    checks,
    exchange::short,
    exchange::timestamps,
    target::{FAULTS, offered::NOT_OFFERED},
    world::{Actor, Payload, Record, TenderWorld},
};

/// Where the ids of the listed tenders that carry the title sent are noted.
const FOUND: &str = "found";
/// At most this many pages of the listing are read when looking for a tender.
const MAX_PAGES: usize = 30;

fn not_offered(method: &str) -> String {
    format!("{NOT_OFFERED}faults: {method} {FAULTS} answers 404")
}

/// The fault API answered a `method` request with `expected`; a 404 says the target does not
/// offer faults at all.
fn fault_api_answered(
    w: &TenderWorld,
    method: &str,
    what: &str,
    expected: u16,
) -> Result<(), String> {
    match w.status()? {
        404 => Err(not_offered(method)),
        _ => super::common::expect_status(w, what, expected),
    }
}

#[given("the target offers faults on demand")]
async fn offers_faults(w: &mut TenderWorld) -> Result<(), String> {
    w.send(Actor::Owner, Method::GET, FAULTS, Payload::None)
        .await?;
    fault_api_answered(w, "GET", "listing the fault rules", 200)
}

/// Asks the target, as `actor`, to fail the actor's next `method` request to `path` with `fault`.
async fn set_fault(
    w: &mut TenderWorld,
    actor: Actor,
    method: &str,
    path: &str,
    fault: &str,
) -> Result<(), String> {
    let rule = json!({"match": {"method": method, "path": path}, "fault": fault, "times": 1});
    w.send_data(actor, Method::POST, FAULTS, rule).await?;
    fault_api_answered(w, "POST", "setting a fault rule", 201)
}

/// Sends a request whose connection the target is to close: its response must not arrive,
/// which the next step checks.
async fn send_unanswered(
    w: &mut TenderWorld,
    actor: Actor,
    method: Method,
    path: &str,
    payload: Payload,
) -> Result<(), String> {
    match w.send(actor, method, path, payload).await {
        Err(_) if w.last.as_ref().is_some_and(|l| l.response.is_none()) => Ok(()),
        other => other,
    }
}

/// Remembers the creation about to be sent: its body, and the listing offset just before it.
/// The title gets a mark of its own, so that the listing tells this tender from another
/// scenario's made in the same moment.
async fn before_creation(w: &mut TenderWorld, body: &mut Value) -> Result<(), String> {
    let mark = w.fakes.hex_id(8);
    if let Some(title) = body["data"]["title"].as_str() {
        body["data"]["title"] = json!(format!("{title} ({mark})"));
    }
    w.last_creation = Some(body.clone());
    // The listing is ordered by the target's own time, whichever clock the tender lives on.
    let from = w.target()?.server_now().await? - Duration::seconds(1);
    w.noted
        .insert("listing from".into(), json!(timestamps::format(from)));
    Ok(())
}

/// Asks the target to fail the owner's next tender creation with `fault`, and readies the body
/// to send (`shape` of a fresh tender body), remembered as the creation.
async fn creation_failing_with(
    w: &mut TenderWorld,
    fault: &str,
    shape: fn(Value) -> Value,
) -> Result<Value, String> {
    set_fault(w, Actor::Owner, "POST", "/api/2.3/tenders", fault).await?;
    let mut body = shape(w.tender_body().await?);
    before_creation(w, &mut body).await?;
    Ok(body)
}

#[when("the owner creates a tender in one request and is answered 503 after commit")]
async fn creation_answered_503(w: &mut TenderWorld) -> Result<(), String> {
    let body = creation_failing_with(w, "error-after-commit", |body| body).await?;
    w.send(
        Actor::Owner,
        Method::POST,
        "/api/2.3/tenders",
        Payload::Json(body),
    )
    .await
}

#[when("the owner creates a draft tender and the connection is closed after commit")]
async fn draft_creation_dropped(w: &mut TenderWorld) -> Result<(), String> {
    let body = creation_failing_with(w, "drop-after-commit", tenders::draft).await?;
    send_unanswered(
        w,
        Actor::Owner,
        Method::POST,
        "/api/2.3/tenders",
        Payload::Json(body),
    )
    .await
}

#[when("the owner publishes the draft tender and the connection is closed after commit")]
async fn publication_dropped(w: &mut TenderWorld) -> Result<(), String> {
    let path = w.tender_path()?;
    set_fault(w, Actor::Owner, "PATCH", &path, "drop-after-commit").await?;
    let body = json!({"data": {"status": "active.enquiries"}});
    let path = w.tender_path_with_token()?;
    send_unanswered(w, Actor::Owner, Method::PATCH, &path, Payload::Json(body)).await
}

#[when("the bidder activates the bid and is answered 503 after commit")]
async fn activation_answered_503(w: &mut TenderWorld) -> Result<(), String> {
    let bid = w.bid(w.last_bid_index()?)?.clone();
    let path = format!("{}/bids/{}", w.tender_path()?, bid.id);
    set_fault(w, Actor::Other, "PATCH", &path, "error-after-commit").await?;
    let token = bid.token.ok_or("the bid has no token")?;
    super::bids::activate_last(w, Actor::Other, &token).await
}

#[then("the answer is a 503 in the error envelope")]
async fn answered_503(w: &mut TenderWorld) -> Result<(), String> {
    let response = w.response()?;
    if response.status != 503 {
        return Err(format!(
            "expected 503, got {}: {}",
            response.status,
            short(&response.body)
        ));
    }
    checks::error_envelope(&w.body).map(drop)
}

#[then("no response arrives")]
async fn no_response(w: &mut TenderWorld) -> Result<(), String> {
    let last = w.last.as_ref().ok_or("harness: no request was sent yet")?;
    match &last.response {
        None => Ok(()),
        Some(r) => Err(format!(
            "the connection was to be closed without a response, but {} arrived: {}",
            r.status,
            short(&r.body)
        )),
    }
}

/// Pages through the listing from just before the creation and reads every listed tender; the
/// ids of those with the title sent are noted, and the first becomes the scenario's tender if
/// it has none (its token was lost with the response).
#[when("the owner looks in the listing for the tender it sent")]
async fn looks_in_listing(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.last_creation()?;
    let title = sent["data"]["title"].clone();
    let offset = w.recall_text("listing from")?;
    let rows = super::listing::page_through(w, Actor::Owner, offset, &[], MAX_PAGES).await?;
    let mut found = Vec::new();
    for id in rows.iter().map(|r| checks::as_text(&r["id"])) {
        let path = format!("/api/2.3/tenders/{id}");
        w.read("reading a listed tender", Actor::Owner, &path)
            .await?;
        if w.data()["title"] == title && !found.iter().any(|(f, _)| *f == id) {
            found.push((id, w.data().clone()));
        }
    }
    w.noted.insert(
        FOUND.into(),
        json!(found.iter().map(|(id, _)| id).collect::<Vec<_>>()),
    );
    if let (None, Some((id, data))) = (&w.tender, found.first()) {
        w.tender = Some(Record {
            id: id.clone(),
            token: None,
            data: data.clone(),
            sent,
        });
    }
    Ok(())
}

#[then("the tender it sent is listed once")]
async fn listed_once(w: &mut TenderWorld) -> Result<(), String> {
    match w.noted_ids(FOUND).len() {
        1 => Ok(()),
        n => Err(format!(
            "the listing holds {n} tenders with the title sent: {:?}",
            w.noted_ids(FOUND)
        )),
    }
}

#[then("the tender it sent is listed once, as the tender it published")]
async fn listed_once_as_published(w: &mut TenderWorld) -> Result<(), String> {
    listed_once(w).await?;
    let published = w.tender()?.id.clone();
    match w.noted_ids(FOUND).first() {
        Some(id) if *id == published => Ok(()),
        other => Err(format!(
            "the listed tender is {other:?}, not the published {published}"
        )),
    }
}
