//! The scheduler: applies transitions at each tender's `next_check`, on the clock it lives on.
//!
//! It sleeps until the next check a running clock reaches, until an earlier check is
//! scheduled, or until any clock moves, so it burns nothing while idle and reacts at once to
//! time travel.

use crate::store::Store;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// The longest sleep: a safety net against a wall clock that jumps.
const MAX_SLEEP: Duration = Duration::from_secs(60);
/// The shortest sleep, so that a check that cannot be settled never spins.
const MIN_SLEEP: Duration = Duration::from_millis(5);

pub fn spawn(store: Arc<Store>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut moved = store.clocks().subscribe();
        loop {
            let moved_tenders = store.run_due(None).await;
            if moved_tenders > 0 {
                tracing::debug!(moved_tenders, "scheduler applied due transitions");
            }
            let sleep = match store.next_due_in() {
                Some(left) => Duration::try_from(left)
                    .unwrap_or(Duration::ZERO)
                    .clamp(MIN_SLEEP, MAX_SLEEP),
                None => MAX_SLEEP,
            };
            tokio::select! {
                _ = tokio::time::sleep(sleep) => {}
                changed = moved.changed() => if changed.is_err() { break },
                _ = store.rescheduled() => {}
            }
        }
    })
}
