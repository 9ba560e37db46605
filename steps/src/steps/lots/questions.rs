//! Questions and documents about one lot.
use cucumber::when;
use serde_json::json;

use super::super::{documents, questions};
use super::reading::lot_id;
use crate::world::{Actor, TenderWorld};

/// Lot `n` of the tender, or, for `which` naming no lot, an id the tender does not have.
pub(super) fn named_lot(w: &mut TenderWorld, which: &str, n: &str) -> Result<String, String> {
    if which.starts_with("lot") {
        lot_id(w, n.parse().map_err(|_| format!("harness: lot {n:?}"))?)
    } else {
        Ok(w.fakes.hex_id(32))
    }
}

#[when(regex = r"^a participant asks a question about (lot (\d+)|a lot the tender does not have)$")]
async fn asks_about(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    let mut body = w.fakes.question();
    body["data"]["questionOf"] = json!("lot");
    body["data"]["relatedItem"] = json!(lot);
    questions::ask_with(w, Actor::Other, body).await
}

#[when(
    regex = r"^the owner uploads a PDF document about (lot (\d+)|a lot the tender does not have)$"
)]
async fn uploads_about(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    let mut body = w.fakes.document();
    body["data"]["documentOf"] = json!("lot");
    body["data"]["relatedItem"] = json!(lot);
    documents::upload_to_tender(w, Actor::Owner, body).await
}
