//! The server state other than records that a data directory keeps in its database: the
//! server's clock, the brokers' own clocks and the test clocks. Without a data directory it
//! starts afresh.

use crate::clock::clocks::{Clocks, Keeper};
use crate::clock::test_clocks;
use crate::clock::{Clock, Saved};
use crate::domain::stored;
use crate::domain::time::Zone;
use crate::store::Store;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use time::OffsetDateTime;

const CLOCK: &str = "clock";
const BROKER_CLOCKS: &str = "broker_clocks";

/// The clocks as the data directory left them (a `--clock-start` counts only for a new one);
/// every later move is committed before it is made. With `own_clocks`, brokers may move
/// clocks of their own and have test clocks.
pub fn clocks(
    store: &Arc<Store>,
    start: Option<OffsetDateTime>,
    zone: Zone,
    own_clocks: bool,
) -> Result<Clocks, String> {
    let clocks = Clocks::new(Arc::new(clock(store, start)?), zone);
    if !own_clocks {
        return Ok(clocks);
    }
    let kept: BTreeMap<String, Saved> = match store.kept_state(BROKER_CLOCKS) {
        Some(json) => {
            stored::from_json(json).map_err(|e| format!("the kept broker clocks: {e}"))?
        }
        None => BTreeMap::new(),
    };
    let keeper: Option<Keeper> = store.database_file().map(|_| {
        let (store, version) = (store.clone(), AtomicU64::new(1));
        Box::new(move |all: &BTreeMap<String, Saved>| {
            let json = stored::to_json(all).map_err(|e| e.to_string())?;
            let version = version.fetch_add(1, Ordering::SeqCst) + 1;
            store.keep_state(BROKER_CLOCKS, json, version)
        }) as Keeper
    });
    let tests = store
        .kept_clocks()
        .iter()
        .map(|(id, json)| {
            stored::from_json::<test_clocks::Kept>(json)
                .map_err(|e| format!("the kept test clock {id}: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let test_keeper: Option<test_clocks::Keeper> = store.database_file().map(|_| {
        let store = store.clone();
        Box::new(move |kept: &test_clocks::Kept| {
            let json = stored::to_json(kept).map_err(|e| e.to_string())?;
            store.keep_clock(&kept.id, json)
        }) as test_clocks::Keeper
    });
    Ok(clocks
        .offering_own(kept, keeper)
        .offering_tests(tests, test_keeper))
}

/// The server's clock as the data directory left it.
fn clock(store: &Arc<Store>, start: Option<OffsetDateTime>) -> Result<Clock, String> {
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
