//! Cancelling one lot, and claims about one lot.
use cucumber::{given, when};
use serde_json::json;

use super::super::{cancellations, claims, common};
use super::questions::named_lot;
use super::reading::lot_id;
use crate::world::{Actor, TenderWorld};

async fn cancel(w: &mut TenderWorld, lot: String) -> Result<(), String> {
    let token = w.tender_token()?;
    let data = json!({
        "reason": "Потреба в цій партії відпала",
        "status": "active",
        "cancellationOf": "lot",
        "relatedLot": lot,
    });
    cancellations::post(w, Actor::Owner, &token, data).await
}

#[when(regex = r"^the owner cancels (lot (\d+)|a lot the tender does not have)(?: at once)?$")]
async fn cancels(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    cancel(w, lot).await
}

#[given(regex = r"^the owner has cancelled lot (\d+)$")]
async fn has_cancelled(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let lot = lot_id(w, n)?;
    cancel(w, lot).await?;
    common::expect_status(w, "cancelling a lot", 201)
}

#[when(regex = r"^a participant submits a claim on (lot (\d+)|a lot the tender does not have)$")]
async fn claims_on(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    claims::file(w, "tender", None, "claim", Some(lot)).await
}

#[given(regex = r"^a participant has submitted a claim on lot (\d+)$")]
async fn has_claimed_on(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let lot = lot_id(w, n)?;
    claims::file(w, "tender", None, "claim", Some(lot)).await?;
    common::expect_status(w, "submitting a claim on a lot", 201)
}
