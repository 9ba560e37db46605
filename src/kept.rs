//! The server state other than tenders that a data directory keeps: the clock and the
//! document-signing key. Without a data directory both start afresh.

use crate::clock::{Clock, Saved};
use crate::domain::document::Signer;
use crate::domain::stored;
use crate::store::Store;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use time::OffsetDateTime;

const CLOCK: &str = "clock";
const SIGNER: &str = "document_signer";

/// The clock as the data directory left it (a `--clock-start` counts only for a new one);
/// every later move is committed before it is made.
pub fn clock(store: &Arc<Store>, start: Option<OffsetDateTime>) -> Result<Clock, String> {
    let clock = match store.kept_state(CLOCK) {
        Some(json) => {
            let saved: Saved =
                stored::from_json(json).map_err(|e| format!("the kept clock: {e}"))?;
            if start.is_some() {
                tracing::warn!("--clock-start ignored: the data directory keeps the clock");
            }
            Clock::restore(saved)
        }
        None => match start {
            Some(start) => Clock::frozen_at(start),
            None => Clock::new(),
        },
    };
    if store.database_file().is_none() {
        return Ok(clock);
    }
    let version = Arc::new(AtomicU64::new(1));
    keep_clock(store, clock.saved(), 1)?;
    let store = store.clone();
    Ok(clock.kept_by(Box::new(move |saved| {
        keep_clock(&store, saved, version.fetch_add(1, Ordering::SeqCst) + 1)
    })))
}

fn keep_clock(store: &Store, saved: Saved, version: u64) -> Result<(), String> {
    let json = stored::to_json(&saved).map_err(|e| e.to_string())?;
    store.keep_state(CLOCK, json, version)
}

#[derive(Serialize, Deserialize)]
struct KeptSigner {
    key: String,
    key_id: String,
}

/// The signing key of the data directory, made and kept on its first start.
pub fn signer(store: &Store) -> Result<Signer, String> {
    if let Some(json) = store.kept_state(SIGNER) {
        let kept: KeptSigner =
            stored::from_json(json).map_err(|e| format!("the kept signing key: {e}"))?;
        let key = STANDARD
            .decode(&kept.key)
            .map_err(|e| format!("the kept signing key: {e}"))?;
        return Ok(Signer::restore(key, kept.key_id));
    }
    let signer = Signer::generate();
    let (key, key_id) = signer.parts();
    let kept = KeptSigner {
        key: STANDARD.encode(key),
        key_id: key_id.to_string(),
    };
    let json = stored::to_json(&kept).map_err(|e| e.to_string())?;
    store.keep_state(SIGNER, json, 0)?;
    Ok(signer)
}
