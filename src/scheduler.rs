//! The scheduler: applies transitions at each tender's `next_check`.
//!
//! It sleeps until the earliest `next_check` in the store, until an earlier check is
//! scheduled, or until the clock moves, so it burns nothing while idle and reacts at once to
//! time travel.

use crate::clock::Clock;
use crate::store::Store;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// The longest sleep: a safety net against a wall clock that jumps.
const MAX_SLEEP: Duration = Duration::from_secs(60);
/// The shortest sleep, so that a check that cannot be settled never spins.
const MIN_SLEEP: Duration = Duration::from_millis(5);

pub fn spawn(store: Arc<Store>, clock: Arc<Clock>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut moved = clock.subscribe();
        loop {
            let moved_tenders = store.run_due().await;
            if moved_tenders > 0 {
                tracing::debug!(moved_tenders, "scheduler applied due transitions");
            }
            let sleep = match store.earliest_check() {
                Some(due) if !clock.is_frozen() => {
                    let left = due.instant() - clock.now();
                    Duration::try_from(left)
                        .unwrap_or(Duration::ZERO)
                        .clamp(MIN_SLEEP, MAX_SLEEP)
                }
                _ => MAX_SLEEP,
            };
            tokio::select! {
                _ = tokio::time::sleep(sleep) => {}
                changed = moved.changed() => if changed.is_err() { break },
                _ = store.rescheduled() => {}
            }
        }
    })
}
