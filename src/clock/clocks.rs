//! The one place that says which clock a record lives on: its owner's. Every rule about a
//! tender or a contract takes "now" from here, through the store, never from a clock of
//! its own choosing.

use super::Clock;
use crate::domain::time::{Timestamp, Zone};
use std::sync::Arc;
use tokio::sync::watch;

pub struct Clocks {
    server: Arc<Clock>,
    zone: Zone,
    /// Counts every move of any of the clocks.
    moved: watch::Sender<u64>,
}

impl Clocks {
    pub fn new(server: Arc<Clock>, zone: Zone) -> Clocks {
        let (moved, _) = watch::channel(0);
        Clocks {
            server,
            zone,
            moved,
        }
    }

    /// A receiver that sees every move of any clock.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.moved.subscribe()
    }

    /// Moves the server's clock (see [`Clock::set`]).
    pub fn set_server(
        &self,
        target: Option<time::OffsetDateTime>,
        advance: Option<time::Duration>,
        frozen: Option<bool>,
    ) -> Result<time::OffsetDateTime, super::ClockError> {
        let moved = self.server.set(target, advance, frozen)?;
        self.moved.send_modify(|n| *n += 1);
        Ok(moved)
    }

    /// The server's own clock: the one without an owner.
    pub fn server(&self) -> &Arc<Clock> {
        &self.server
    }

    /// The clock the records of `owner` live on.
    pub fn of(&self, _owner: &str) -> Arc<Clock> {
        self.server.clone()
    }

    /// Whether `owner` has a clock of its own (its records are then stamped in its time).
    pub fn has_own(&self, _owner: &str) -> bool {
        false
    }

    /// "Now" for the records of `owner`, in the server's zone.
    pub fn now_for(&self, owner: &str) -> Timestamp {
        self.zone.at(self.of(owner).now())
    }
}
