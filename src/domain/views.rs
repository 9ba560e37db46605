//! What each reader sees of a record in each phase.
//!
//! Before qualification bids are confidential (absent from the tender) and question authors
//! are hidden; from qualification on both are public.

use super::question::Question;
use super::tender::{Tender, TenderStatus};
use serde_json::{Value as Json, json};

/// The tender as anyone reads it.
pub fn tender(t: &Tender) -> Json {
    let mut v = serde_json::to_value(t).unwrap_or_default();
    if t.status.reveals_bids() {
        v["bids"] = serde_json::to_value(&t.bids).unwrap_or_default();
        v["numberOfBids"] = json!(t.bids.len());
    } else if let Some(questions) = v.get_mut("questions").and_then(Json::as_array_mut) {
        for q in questions.iter_mut().filter_map(Json::as_object_mut) {
            q.shift_remove("author");
        }
    }
    v
}

/// A question as anyone reads it; the asker sees the author in the creation response.
pub fn question(q: &Question, status: TenderStatus) -> Json {
    let mut v = serde_json::to_value(q).unwrap_or_default();
    if !status.reveals_bids()
        && let Some(map) = v.as_object_mut()
    {
        map.shift_remove("author");
    }
    v
}
