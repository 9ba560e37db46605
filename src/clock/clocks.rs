//! The one place that says which clock a record lives on: its owner's. Every rule about a
//! tender or a contract takes "now" from here, through the store, never from a clock of
//! its own choosing.

use super::Clock;
use crate::domain::time::{Timestamp, Zone};
use std::sync::Arc;

pub struct Clocks {
    server: Arc<Clock>,
    zone: Zone,
}

impl Clocks {
    pub fn new(server: Arc<Clock>, zone: Zone) -> Clocks {
        Clocks { server, zone }
    }

    /// The server's own clock: the one without an owner.
    pub fn server(&self) -> &Arc<Clock> {
        &self.server
    }

    /// The clock the records of `owner` live on.
    pub fn of(&self, _owner: &str) -> Arc<Clock> {
        self.server.clone()
    }

    /// "Now" for the records of `owner`, in the server's zone.
    pub fn now_for(&self, owner: &str) -> Timestamp {
        self.zone.at(self.of(owner).now())
    }
}
