//! The whole contract sent back: the fields a broker may change and those it may not.
use cucumber::{then, when};
use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;

use super::contract::*;
use crate::{
    checks::ensure,
    checks::{self},
    exchange::timestamps,
    world::TenderWorld,
};

/// A CPV code other than `code`, for a classification the broker may not change.
fn another_code(code: &Value) -> &'static str {
    if code == "44617100-9" {
        "30192700-8"
    } else {
        "44617100-9"
    }
}

/// As upstream's brokers edited a contract: read it whole, change some fields, send it all back.
#[when(
    "the owner sends the whole contract back with a new description, value and item quantity, and with another contractID, owner, dateSigned, change rationale and item classification"
)]
async fn sends_whole(w: &mut TenderWorld) -> Result<(), String> {
    let before = read_contract(w).await?;
    let mut whole = before.clone();
    let amount = before["value"]["amount"]
        .as_f64()
        .ok_or("the contract shows no value amount")?;
    let quantity = before["items"][0]["quantity"]
        .as_f64()
        .ok_or("the contract shows no item quantity")?;
    let signed = before["dateSigned"]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or("the contract shows no dateSigned")?;
    whole["description"] = json!(format!(
        "Поставка за договором зі змінами № {}",
        w.fakes.code(3)
    ));
    whole["value"]["amount"] = json!((amount * 0.9 * 100.0).round() / 100.0);
    whole["items"][0]["quantity"] = json!(quantity + 1.0);
    whole["contractID"] = json!(format!("{}-1", checks::as_text(&before["contractID"])));
    whole["owner"] = json!(w.target()?.other.name.clone());
    whole["dateSigned"] = json!(timestamps::format(signed - Duration::days(1)));
    whole["changes"][0]["rationale"] = json!("Змінено без додаткової угоди");
    let code = another_code(&before["items"][0]["classification"]["id"]);
    whole["items"][0]["classification"]["id"] = json!(code);
    w.noted
        .insert(WHOLE.into(), json!({"before": before, "sent": whole}));
    write(w, Method::PATCH, "", whole).await
}

#[then("reading the contract shows the new description, value and item quantity")]
async fn shows_new(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.recall(WHOLE)?["sent"].clone();
    let shown = read_contract(w).await?;
    let mut wrong = Vec::new();
    if shown["description"] != sent["description"] {
        wrong.push(format!(
            "description is {}, {} was sent",
            shown["description"], sent["description"]
        ));
    }
    for pointer in ["/value/amount", "/items/0/quantity"] {
        let (a, b) = (shown.pointer(pointer), sent.pointer(pointer));
        if a.and_then(Value::as_f64) != b.and_then(Value::as_f64) {
            wrong.push(format!("{pointer} is {a:?}, {b:?} was sent"));
        }
    }
    ensure(wrong.is_empty(), || wrong.join("; "))
}

#[then(
    "reading the contract shows its contractID, owner, dateSigned, changes and item classification as they were"
)]
async fn shows_kept(w: &mut TenderWorld) -> Result<(), String> {
    let before = w.recall(WHOLE)?["before"].clone();
    let shown = read_contract(w).await?;
    let mut wrong = Vec::new();
    for pointer in [
        "/id",
        "/awardID",
        "/contractID",
        "/contractNumber",
        "/owner",
        "/tender_id",
        "/suppliers",
        "/procuringEntity",
        "/changes",
        "/documents",
        "/items/0/classification",
        "/items/0/additionalClassifications",
    ] {
        if shown.pointer(pointer) != before.pointer(pointer) {
            wrong.push(format!(
                "{pointer} was {}, is now {}",
                before.pointer(pointer).unwrap_or(&Value::Null),
                shown.pointer(pointer).unwrap_or(&Value::Null)
            ));
        }
    }
    if !same_instant(&shown["dateSigned"], &before["dateSigned"]) {
        wrong.push(format!(
            "dateSigned was {}, is now {}",
            before["dateSigned"], shown["dateSigned"]
        ));
    }
    ensure(wrong.is_empty(), || {
        format!(
            "what the broker may not change changed: {}",
            wrong.join("; ")
        )
    })
}
