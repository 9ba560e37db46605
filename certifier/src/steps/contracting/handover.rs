//! The hand-over: a tender's signed contract appearing under the contracts when its tender
//! (or lot) completes, and what it must show there.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::Value;

use super::super::{awards, bids, common, lots, periods, tenders};
use super::contract::*;
use crate::{
    checks::ensure,
    exchange::short,
    world::{Actor, Payload, TenderWorld},
};

/// The tender's signed contract, as the tender last showed it.
fn signed_contract(w: &TenderWorld) -> Result<Value, String> {
    w.tender_field("/contracts")?
        .as_array()
        .and_then(|c| c.iter().rev().find(|c| c["status"] == "active").cloned())
        .ok_or_else(|| "the tender shows no signed contract".to_owned())
}

#[given("a bidder has won a tender and the owner has signed the contract")]
async fn won_and_signed(w: &mut TenderWorld) -> Result<(), String> {
    tenders::has_published(w).await?;
    periods::tender_period_starts(w).await?;
    bids::has_registered_active(w).await?;
    periods::award_stage(w).await?;
    awards::has_confirmed(w).await?;
    periods::stand_still_ends(w).await?;
    awards::signs(w).await?;
    common::expect_status(w, "signing the contract", 200)?;
    w.refresh_tender().await?;
    let status = w.tender_field("/status")?;
    if status != "complete" {
        return Err(format!(
            "after its contract was signed the tender is {status}, not complete"
        ));
    }
    let id = signed_contract(w)?["id"].clone();
    w.noted.insert(CONTRACT.into(), id);
    Ok(())
}

#[when("an anonymous client reads the contract under management")]
async fn reads(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let id = signed_contract(w)?["id"].clone();
    w.noted.insert(CONTRACT.into(), id);
    let path = contract_path(w)?;
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await
}

#[when(regex = r"^an anonymous client reads the contract of lot (\d+) under management$")]
async fn reads_of_lot(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let contract = lots::contract_of(w, n).await?;
    w.noted.insert(CONTRACT.into(), contract["id"].clone());
    let path = contract_path(w)?;
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await
}

#[then("the contract under management is the signed contract, with its tender's id and owner")]
async fn is_the_signed_contract(w: &mut TenderWorld) -> Result<(), String> {
    let shown = w.data().clone();
    let tender = w.tender()?.data.clone();
    let id = w.recall(CONTRACT)?;
    let signed = tender["contracts"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == id))
        .cloned()
        .ok_or_else(|| format!("the tender shows no contract {id}"))?;
    let mut wrong = Vec::new();
    for field in [
        "id",
        "awardID",
        "contractID",
        "contractNumber",
        "status",
        "suppliers",
    ] {
        if shown[field] != signed[field] {
            wrong.push(format!(
                "{field} is {}, the tender's contract shows {}",
                shown[field], signed[field]
            ));
        }
    }
    let (value, held) = (&shown["value"], &signed["value"]);
    if value["amount"].as_f64() != held["amount"].as_f64()
        || value["currency"] != held["currency"]
        || value["valueAddedTaxIncluded"] != held["valueAddedTaxIncluded"]
    {
        wrong.push(format!(
            "value is {value}, the tender's contract shows {held}"
        ));
    }
    if !same_instant(&shown["dateSigned"], &signed["dateSigned"]) {
        wrong.push(format!(
            "dateSigned is {}, the tender's contract shows {}",
            shown["dateSigned"], signed["dateSigned"]
        ));
    }
    if ids(&shown["items"]) != ids(&signed["items"]) {
        wrong.push(format!(
            "the items are {:?}, the tender's contract holds {:?}",
            ids(&shown["items"]),
            ids(&signed["items"])
        ));
    }
    let documents = ids(&shown["documents"]);
    for document in ids(&signed["documents"]) {
        if !documents.contains(&document) {
            wrong.push(format!("the document {document} was not handed over"));
        }
    }
    if shown["tender_id"] != tender["id"] {
        wrong.push(format!(
            "tender_id is {}, the tender is {}",
            shown["tender_id"], tender["id"]
        ));
    }
    if shown["owner"] != tender["owner"] {
        wrong.push(format!(
            "owner is {}, the tender's owner is {}",
            shown["owner"], tender["owner"]
        ));
    }
    let entity = |v: &Value| (v["name"].clone(), v["identifier"]["id"].clone());
    if entity(&shown["procuringEntity"]) != entity(&tender["procuringEntity"]) {
        wrong.push(format!(
            "procuringEntity is {}, the tender's is {}",
            short(&shown["procuringEntity"].to_string()),
            short(&tender["procuringEntity"].to_string())
        ));
    }
    ensure(wrong.is_empty(), || {
        format!(
            "the contract under management is not the signed contract: {}",
            wrong.join("; ")
        )
    })
}

#[then(regex = r"^the contract under management holds the items of lot (\d+)$")]
async fn holds_items_of_lot(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let lot = lots::lot_id(w, n)?;
    let expected: Vec<Value> = w
        .tender_field("/items")?
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["relatedLot"] == lot.as_str())
        .map(|i| i["id"].clone())
        .collect();
    let shown = ids(&w.data()["items"]);
    ensure(!expected.is_empty() && shown == expected, || {
        format!("the contract under management holds the items {shown:?}, lot {n} has {expected:?}")
    })
}

/// Upstream's brokers found a handed-over contract in the newest page of the listing.
#[then("the newest contracts listed show the contract with its contractID")]
async fn newest_listed(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.recall(CONTRACT)?;
    let contract_id = w.data()["contractID"].clone();
    let path = format!("{COLLECTION}?descending=1&opt_fields=contractID&mode=_all_");
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await?;
    common::expect_status(w, "listing the newest contracts", 200)?;
    let row = w
        .data()
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["id"] == id));
    match row {
        Some(row) if row["contractID"] == contract_id => Ok(()),
        Some(row) => Err(format!(
            "the contract is listed with contractID {}, it shows {contract_id}",
            row["contractID"]
        )),
        None => Err(format!(
            "the newest contracts listed do not show {id}: {}",
            short(&w.data().to_string())
        )),
    }
}
