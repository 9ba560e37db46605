//! The server state other than tenders that a data directory keeps in its database: the
//! clock. Without a data directory it starts afresh.

use crate::clock::{Clock, Saved};
use crate::domain::stored;
use crate::store::Store;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use time::OffsetDateTime;

const CLOCK: &str = "clock";

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
