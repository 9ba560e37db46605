//! Tender cancellations: requested pending or active by the owner, with documents; an active
//! one cancels the tender. An upstream extension (`@cancellations`).
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    checks::{self, ensure},
    exchange::short,
    world::offered,
    world::{Actor, Payload, TenderWorld},
};

/// Where the ids of the cancellations the scenario created are noted, in order.
const CREATED: &str = "cancellations";

fn collection(w: &TenderWorld) -> Result<String, String> {
    Ok(format!("{}/cancellations", w.tender_path()?))
}

fn cancellation_id(w: &TenderWorld, which: &str) -> Result<String, String> {
    let ids = w.noted_ids(CREATED);
    let id = if which == "first" {
        ids.first()
    } else {
        ids.last()
    };
    id.cloned()
        .ok_or_else(|| "harness: the scenario has no cancellation yet".to_owned())
}

/// Posts a cancellation as `actor` with `token`; keeps its id when it was created.
pub(super) async fn post(
    w: &mut TenderWorld,
    actor: Actor,
    token: &str,
    data: Value,
) -> Result<(), String> {
    let collection = collection(w)?;
    let path = format!("{collection}?acc_token={token}");
    w.send_data(actor, Method::POST, &path, data).await?;
    offered::check(w, "cancellations", &collection).await?;
    if w.status()? == 201 {
        let mut ids = w.noted_ids(CREATED);
        ids.push(checks::as_text(&w.data()["id"]));
        w.noted.insert(CREATED.into(), json!(ids));
    }
    Ok(())
}

#[when("the owner requests a cancellation of the tender")]
async fn requests(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    post(
        w,
        Actor::Owner,
        &token,
        json!({"reason": "Відсутність потреби"}),
    )
    .await
}

#[given("the owner has requested a cancellation of the tender")]
async fn has_requested(w: &mut TenderWorld) -> Result<(), String> {
    requests(w).await?;
    super::common::expect_status(w, "requesting a cancellation", 201)
}

#[when("the owner cancels the tender at once")]
async fn cancels_at_once(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    let data = json!({"reason": "Порушення законодавства", "status": "active"});
    post(w, Actor::Owner, &token, data).await
}

#[given("the owner has cancelled the tender")]
async fn has_cancelled(w: &mut TenderWorld) -> Result<(), String> {
    cancels_at_once(w).await?;
    super::common::expect_status(w, "cancelling the tender", 201)
}

#[when("the owner requests a cancellation with this data:")]
async fn requests_with(w: &mut TenderWorld, step: &cucumber::gherkin::Step) -> Result<(), String> {
    let data = super::common::docstring_json(step)?;
    let token = w.tender_token()?;
    post(w, Actor::Owner, &token, data).await
}

#[when("the bidder requests a cancellation of the tender with its bid token")]
async fn bidder_requests(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.bid(0)?.token.clone().ok_or("the bid has no token")?;
    let data = json!({"reason": "Чужий запит", "status": "active"});
    post(w, Actor::Other, &token, data).await
}

#[when(regex = r"^the owner activates the (first|last) cancellation$")]
async fn activates(w: &mut TenderWorld, which: String) -> Result<(), String> {
    let id = cancellation_id(w, &which)?;
    let path = format!("{}/{id}?acc_token={}", collection(w)?, w.tender_token()?);
    // Brokers send the object's id back in the body, as the reference client does.
    let data = json!({"data": {"status": "active", "id": id}});
    w.send(Actor::Owner, Method::PATCH, &path, Payload::Json(data))
        .await
}

#[when("the owner uploads a PDF document to the cancellation")]
async fn uploads(w: &mut TenderWorld) -> Result<(), String> {
    let id = cancellation_id(w, "last")?;
    let cancellation = format!("{}/{id}", collection(w)?);
    super::documents::owner_uploads_pdf_to(w, &cancellation).await
}

#[when("an anonymous client reads a cancellation that does not exist")]
async fn reads_unknown(w: &mut TenderWorld) -> Result<(), String> {
    let collection = collection(w)?;
    let path = format!("{collection}/{}", w.fakes.hex_id(32));
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    offered::check(w, "cancellations", &collection).await
}

#[when("an anonymous client lists the cancellations")]
async fn lists(w: &mut TenderWorld) -> Result<(), String> {
    let path = collection(w)?;
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    offered::check(w, "cancellations", &path).await
}

#[then("the cancellation is listed with its reason")]
async fn listed(w: &mut TenderWorld) -> Result<(), String> {
    let id = cancellation_id(w, "last")?;
    let found = w
        .data()
        .as_array()
        .and_then(|all| all.iter().find(|c| c["id"] == id.as_str()))
        .cloned()
        .ok_or_else(|| format!("cancellation {id} is not listed"))?;
    ensure(found["reason"].is_string(), || {
        format!("cancellation {id} has no reason: {found}")
    })
}

#[then("the tender shows no bids")]
async fn no_bids(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let bids = w.tender()?.data.get("bids").cloned().unwrap_or(json!([]));
    match bids.as_array() {
        Some(list) if list.is_empty() => Ok(()),
        _ => Err(format!(
            "the tender still shows bids: {}",
            short(&bids.to_string())
        )),
    }
}

#[then("the tender still shows its pending award")]
async fn keeps_award(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let awards = w.tender_field("/awards")?;
    if awards
        .as_array()
        .is_some_and(|a| a.iter().any(|x| x["status"] == "pending"))
    {
        Ok(())
    } else {
        Err(format!("the tender shows no pending award: {awards}"))
    }
}
