//! Creating a tender divided into lots, and the lot bodies a service must refuse.
use cucumber::{given, when};
use serde_json::{Value, json};

use super::super::{common, tenders};
use super::reading::EXTENSION;
use crate::{
    checks,
    world::offered,
    world::{Actor, TenderWorld},
};

/// A tender body divided into `count` lots with ids of the client's own, one item per lot.
/// Lot `i` is worth `(i + 2) / 2` times the generated value, so the sum and the least minimal
/// step differ from any single lot's; the tender's own value and step are sent as they must
/// read back.
async fn lot_tender_body(w: &mut TenderWorld, count: usize) -> Result<Value, String> {
    let mut body = w.tender_body().await?;
    let data = &mut body["data"];
    let base = data["value"]["amount"]
        .as_u64()
        .ok_or("harness: the tender template has no whole value")?;
    let item = data["items"][0].clone();
    let mut lots = Vec::new();
    let mut items = Vec::new();
    for i in 0..count as u64 {
        let id = w.fakes.hex_id(32);
        let value = base * (i + 2) / 2;
        let description = checks::as_text(&item["description"]);
        lots.push(json!({
            "id": id,
            "title": format!("Лот {}: {description}", i + 1),
            "description": format!("Поставка партії {} ({description})", i + 1),
            "value": {"amount": value, "currency": "UAH", "valueAddedTaxIncluded": true},
            "minimalStep": {"amount": value / 100, "currency": "UAH", "valueAddedTaxIncluded": true},
        }));
        let mut lot_item = item.clone();
        lot_item["relatedLot"] = json!(id);
        items.push(lot_item);
    }
    let sum: u64 = lots
        .iter()
        .filter_map(|l| l["value"]["amount"].as_u64())
        .sum();
    let step = lots
        .iter()
        .filter_map(|l| l["minimalStep"]["amount"].as_u64())
        .min()
        .unwrap_or(0);
    data["value"]["amount"] = json!(sum);
    data["minimalStep"]["amount"] = json!(step);
    data["lots"] = json!(lots);
    data["items"] = json!(items);
    Ok(body)
}

/// Sends a lot tender's creation; a target that does not know `lots` does not offer them.
async fn create(w: &mut TenderWorld, body: Value) -> Result<(), String> {
    tenders::create(w, Actor::Owner, body).await?;
    offered::rogue_field(w, EXTENSION, "lots")
}

#[when(regex = r"^the owner creates a tender with (\d+) lots?$")]
async fn creates(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    let body = lot_tender_body(w, count).await?;
    create(w, body).await
}

#[given(regex = r"^the owner has created a draft tender with (\d+) lots?$")]
async fn has_created_draft(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    let body = tenders::draft(lot_tender_body(w, count).await?);
    create(w, body).await?;
    tenders::require_created(w, "creating a draft tender with lots")
}

#[given(regex = r"^the owner has published a tender with (\d+) lots?$")]
async fn has_published(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    has_created_draft(w, count).await?;
    tenders::publish(w).await?;
    common::expect_status(w, "publishing the draft tender with lots", 200)
}

#[when(
    regex = r"^the owner creates a tender with (\d+) lots (sharing one id|whose first item names an unknown lot|whose guarantees differ in currency)$"
)]
async fn creates_wrong(w: &mut TenderWorld, count: usize, wrong: String) -> Result<(), String> {
    let mut body = lot_tender_body(w, count).await?;
    let data = &mut body["data"];
    match wrong.as_str() {
        "sharing one id" => {
            let first = data["lots"][0]["id"].clone();
            data["lots"][1]["id"] = first.clone();
            data["items"][1]["relatedLot"] = first;
        }
        "whose first item names an unknown lot" => {
            data["items"][0]["relatedLot"] = json!(w.fakes.hex_id(32));
        }
        _ => {
            data["lots"][0]["guarantee"] = json!({"amount": 1000, "currency": "UAH"});
            data["lots"][1]["guarantee"] = json!({"amount": 1000, "currency": "USD"});
        }
    }
    create(w, body).await
}
