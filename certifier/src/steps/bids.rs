//! Bids: registered step by step or in one batch request, activated and read with their own
//! token.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    checks::{self, ensure},
    world::{Actor, Payload, TenderWorld},
};

pub(super) async fn register(w: &mut TenderWorld, body: Value) -> Result<(), String> {
    let path = format!("{}/bids", w.tender_path()?);
    w.send(
        Actor::Other,
        Method::POST,
        &path,
        Payload::Json(body.clone()),
    )
    .await?;
    if let Some(bid) = w.created_record(body)? {
        w.bids.push(bid);
    }
    Ok(())
}

pub(super) fn require_registered(w: &TenderWorld, what: &str) -> Result<(), String> {
    super::common::expect_status(w, what, 201)
}

/// A batch bid: no status, the documents in the body.
async fn batch(w: &mut TenderWorld) -> Result<Value, String> {
    let mut body = w.fakes.bid(None);
    let document = w.document_body().await?["data"].clone();
    if let Some(data) = body["data"].as_object_mut() {
        data.remove("status");
        data.insert("documents".into(), json!([document]));
    }
    Ok(body)
}

#[when("a bidder registers a draft bid")]
async fn registers_draft(w: &mut TenderWorld) -> Result<(), String> {
    let body = w.fakes.bid(None);
    register(w, body).await
}

#[given("a bidder has registered a draft bid")]
async fn has_registered_draft(w: &mut TenderWorld) -> Result<(), String> {
    registers_draft(w).await?;
    require_registered(w, "registering a draft bid")
}

#[when("a bidder registers a bid with a PDF document in one batch request")]
async fn registers_batch(w: &mut TenderWorld) -> Result<(), String> {
    let body = batch(w).await?;
    register(w, body).await
}

#[given(regex = r"^a (?:second )?bidder has registered an active bid$")]
pub(super) async fn has_registered_active(w: &mut TenderWorld) -> Result<(), String> {
    registers_batch(w).await?;
    require_registered(w, "registering an active bid in one batch request")
}

#[when("a bidder registers a draft bid above the tender value")]
async fn registers_above_value(w: &mut TenderWorld) -> Result<(), String> {
    let value = w
        .tender_field("/value/amount")?
        .as_f64()
        .ok_or("the tender value has no amount")?;
    let body = w.fakes.bid(Some(value as u64 + 1000));
    register(w, body).await
}

#[when("a bidder posts this body as JSON to the bids:")]
async fn posts_raw_bid(w: &mut TenderWorld, step: &cucumber::gherkin::Step) -> Result<(), String> {
    let path = format!("{}/bids", w.tender_path()?);
    let payload = super::common::docstring_as_json_body(step)?;
    w.send(Actor::Other, Method::POST, &path, payload).await
}

pub(super) fn bid_path(w: &TenderWorld, index: usize, token: &str) -> Result<String, String> {
    Ok(format!(
        "{}/bids/{}?acc_token={token}",
        w.tender_path()?,
        w.bid(index)?.id
    ))
}

pub(super) fn bid_token(w: &TenderWorld, index: usize) -> Result<String, String> {
    w.bid(index)?
        .token
        .clone()
        .ok_or_else(|| "the bid has no token".to_owned())
}

/// Asks, as `actor` presenting `token`, for the last bid to become active.
pub(super) async fn activate_last(
    w: &mut TenderWorld,
    actor: Actor,
    token: &str,
) -> Result<(), String> {
    let path = bid_path(w, w.last_bid_index()?, token)?;
    w.send_data(actor, Method::PATCH, &path, json!({"status": "active"}))
        .await
}

#[when("the bidder activates the bid")]
async fn activates(w: &mut TenderWorld) -> Result<(), String> {
    let token = bid_token(w, w.last_bid_index()?)?;
    activate_last(w, Actor::Other, &token).await
}

#[when("the owner activates the bid with the tender token")]
async fn owner_activates(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    activate_last(w, Actor::Owner, &token).await
}

#[when("the bidder reads the bid with its token")]
async fn reads_bid(w: &mut TenderWorld) -> Result<(), String> {
    let index = w.last_bid_index()?;
    let path = bid_path(w, index, &bid_token(w, index)?)?;
    w.send(Actor::Other, Method::GET, &path, Payload::None)
        .await
}

#[when("the owner reads the bid with the tender token")]
async fn owner_reads_bid(w: &mut TenderWorld) -> Result<(), String> {
    let index = w.last_bid_index()?;
    let path = bid_path(w, index, &w.tender_token()?)?;
    w.send(Actor::Owner, Method::GET, &path, Payload::None)
        .await
}

#[when("each bidder reads its bid with its token")]
async fn each_reads_bid(w: &mut TenderWorld) -> Result<(), String> {
    for index in 0..w.bids.len() {
        let path = bid_path(w, index, &bid_token(w, index)?)?;
        w.read("reading a bid with its token", Actor::Other, &path)
            .await?;
        w.bids[index].data = w.data().clone();
    }
    Ok(())
}

#[then("the bid value has the tender's currency")]
async fn bid_currency(w: &mut TenderWorld) -> Result<(), String> {
    let expected = w.tender_field("/value/currency")?;
    let shown = w.data()["value"]["currency"].clone();
    ensure(shown == expected, || {
        format!("the bid's currency is {shown}, the tender's is {expected}")
    })
}

#[then(expr = "the bid has {int} document(s)")]
async fn bid_documents(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    let shown = w.data()["documents"].as_array().map_or(0, Vec::len);
    ensure(shown == count, || {
        format!("the bid has {shown} documents, expected {count}")
    })
}

#[then(expr = "the response field {string} is the bid's id")]
async fn field_is_bid_id(w: &mut TenderWorld, path: String) -> Result<(), String> {
    let id = w.bid(0)?.id.clone();
    let shown = checks::field(&w.body, &path)
        .cloned()
        .unwrap_or(Value::Null);
    ensure(shown == id.as_str(), || {
        format!("{path} is {shown}, the bid is {id}")
    })
}

/// Whether `url` is the auction's address `auction` with `key_for_bid` set to the bid's id, as
/// a bidder's participationUrl must be.
pub(super) fn is_participation_url(url: &str, auction: &str, bid_id: &str) -> Result<bool, String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("participationUrl {url:?}: {e}"))?;
    let key = parsed
        .query_pairs()
        .find(|(k, _)| k == "key_for_bid")
        .map(|(_, v)| v.into_owned());
    Ok(url.starts_with(auction) && key.as_deref() == Some(bid_id))
}

#[then("each participationUrl is the auction URL with key_for_bid set to its bid id")]
async fn participation_urls(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let auction = checks::as_text(&w.tender_field("/auctionUrl")?);
    let mut seen = Vec::new();
    for bid in &w.bids {
        let url = checks::as_text(&bid.data["participationUrl"]);
        if !is_participation_url(&url, &auction, &bid.id)? {
            return Err(format!(
                "bid {} has participationUrl {url:?}, expected {auction}?key_for_bid={}",
                bid.id, bid.id
            ));
        }
        if seen.contains(&url) {
            return Err(format!("two bids share the participationUrl {url:?}"));
        }
        seen.push(url);
    }
    Ok(())
}
