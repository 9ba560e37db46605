//! Questions and documents about one lot.
use cucumber::when;
use serde_json::{Value, json};

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

/// `body` made about `lot`: its `of` field says "lot", its relatedItem is the lot's id.
fn about_lot(mut body: Value, of: &str, lot: String) -> Value {
    body["data"][of] = json!("lot");
    body["data"]["relatedItem"] = json!(lot);
    body
}

#[when(regex = r"^a participant asks a question about (lot (\d+)|a lot the tender does not have)$")]
async fn asks_about(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    let body = about_lot(w.fakes.question(), "questionOf", lot);
    questions::ask_with(w, Actor::Other, body).await
}

#[when(
    regex = r"^the owner uploads a PDF document about (lot (\d+)|a lot the tender does not have)$"
)]
async fn uploads_about(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    let body = about_lot(w.document_body().await?, "documentOf", lot);
    documents::upload_to_tender(w, Actor::Owner, body).await
}
