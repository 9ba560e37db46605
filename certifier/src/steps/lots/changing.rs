//! Lots changed while enquiries run: added, listed, changed, sent back and deleted.
use cucumber::{then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::reading::{EXTENSION, amount, collection, lot, lot_id, lots};
use crate::{
    checks,
    checks::ensure,
    world::offered,
    world::{Actor, Payload, TenderWorld},
};

/// Sends `method` to the lots collection or to lot `n`; a 404 on the collection itself means
/// the target does not offer lots.
async fn send_lot(
    w: &mut TenderWorld,
    actor: Actor,
    method: Method,
    lot: Option<String>,
    payload: Payload,
    token: bool,
) -> Result<(), String> {
    let collection = collection(w)?;
    let mut path = match lot {
        Some(id) => format!("{collection}/{id}"),
        None => collection.clone(),
    };
    if token {
        path = format!("{path}?acc_token={}", w.tender_token()?);
    }
    w.send(actor, method, &path, payload).await?;
    offered::check(w, EXTENSION, &collection).await
}

/// The owner's change of `lot` to `data`.
async fn change_lot(w: &mut TenderWorld, lot: &Value, data: Value) -> Result<(), String> {
    let id = checks::as_text(&lot["id"]);
    let payload = Payload::Json(json!({ "data": data }));
    send_lot(w, Actor::Owner, Method::PATCH, Some(id), payload, true).await
}

async fn add(w: &mut TenderWorld, data: Value) -> Result<(), String> {
    let body = json!({ "data": data });
    send_lot(
        w,
        Actor::Owner,
        Method::POST,
        None,
        Payload::Json(body),
        true,
    )
    .await
}

#[when("the owner adds a lot")]
async fn adds(w: &mut TenderWorld) -> Result<(), String> {
    let base = amount(&lot(w, 1)?["value"]).ok_or("lot 1 has no value")? as u64;
    add(
        w,
        json!({
            "title": "Додаткова партія",
            "description": "Поставка додаткової партії товару",
            "value": {"amount": base / 2, "currency": "UAH", "valueAddedTaxIncluded": true},
            "minimalStep": {"amount": base / 200, "currency": "UAH", "valueAddedTaxIncluded": true},
        }),
    )
    .await
}

#[when("the owner adds a lot with this data:")]
async fn adds_with(w: &mut TenderWorld, step: &cucumber::gherkin::Step) -> Result<(), String> {
    let data = crate::steps::common::docstring_json(step)?;
    add(w, data).await
}

#[when("an anonymous client lists the lots")]
async fn lists(w: &mut TenderWorld) -> Result<(), String> {
    send_lot(w, Actor::Anonymous, Method::GET, None, Payload::None, false).await
}

#[then(regex = r"^the lots listed are the tender's (\d+) lots$")]
async fn listed(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    let listed: Vec<Value> = w
        .data()
        .as_array()
        .map(|l| l.iter().map(|lot| lot["id"].clone()).collect())
        .unwrap_or_default();
    let (last, body) = (w.last.clone(), w.body.clone());
    w.refresh_tender().await?;
    (w.last, w.body) = (last, body);
    let shown: Vec<Value> = lots(w)?.iter().map(|lot| lot["id"].clone()).collect();
    ensure(listed.len() == count && listed == shown, || {
        format!("the lots listed are {listed:?}, the tender shows {shown:?} (expected {count})")
    })
}

#[when(expr = "the owner changes the value of lot {int}")]
async fn changes_value(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let lot = lot(w, n)?;
    let now = amount(&lot["value"]).ok_or_else(|| format!("lot {n} has no value"))?;
    // Upstream's certification lowered a lot's budget to 99 %.
    let lowered = (now * 0.99).round();
    change_lot(w, &lot, json!({"value": {"amount": lowered}})).await
}

#[when(expr = "the owner sends the title of lot {int} back unchanged")]
async fn sends_back(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let lot = lot(w, n)?;
    let data = json!({"title": lot["title"]});
    change_lot(w, &lot, data).await
}

#[when("the owner adds a lot with an id of its own")]
async fn adds_with_id(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.fakes.hex_id(32);
    w.noted.insert("lot id".into(), json!(id));
    add(
        w,
        json!({
            "id": id,
            "title": "Додаткова партія",
            "value": {"amount": 10000, "currency": "UAH", "valueAddedTaxIncluded": true},
            "minimalStep": {"amount": 100, "currency": "UAH", "valueAddedTaxIncluded": true},
        }),
    )
    .await
}

#[then("the added lot keeps the id that was sent")]
async fn added_id_kept(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.noted.get("lot id").cloned().unwrap_or(Value::Null);
    let shown = &w.data()["id"];
    ensure(*shown == sent, || {
        format!("the lot was sent with id {sent}, shows {shown}")
    })
}

#[when(expr = "the owner deletes lot {int}")]
async fn deletes(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let id = lot_id(w, n)?;
    send_lot(
        w,
        Actor::Owner,
        Method::DELETE,
        Some(id),
        Payload::None,
        true,
    )
    .await
}

#[when("an anonymous client reads a lot that does not exist")]
async fn reads_unknown(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.fakes.hex_id(32);
    send_lot(
        w,
        Actor::Anonymous,
        Method::GET,
        Some(id),
        Payload::None,
        false,
    )
    .await
}
