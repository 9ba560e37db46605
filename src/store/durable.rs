//! The store's side of its database file: a change committed before memory shows it (a
//! tender's record unless it is as the file holds it, the rows of its bids that changed, and
//! whatever else changed with it), and the server state kept beside the records.

use super::bid_rows::{BidRows, Bids};
use super::database::Write;
use super::shelf::lock;
use super::{Place, Store};
use crate::domain::Refusal;
use crate::domain::stored;
use crate::domain::tender::Tender;
use std::path::Path;

/// Runs a wait for the database without starving the other tasks of this worker thread.
fn blocking<R>(f: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

impl Store {
    /// A piece of server state as the data directory held it at start-up.
    pub fn kept_state(&self, name: &str) -> Option<&str> {
        self.durable.as_ref()?.state.get(name).map(String::as_str)
    }

    /// Commits a piece of server state (later `version`s win); without a data directory,
    /// nothing to do.
    pub fn keep_state(
        &self,
        name: &'static str,
        value: Vec<u8>,
        version: u64,
    ) -> Result<(), String> {
        let Some(durable) = &self.durable else {
            return Ok(());
        };
        blocking(|| {
            durable.database.commit(vec![Write::State {
                name,
                value,
                version,
            }])
        })
    }

    /// The test clocks the data directory held at start-up: (id, record as JSON text).
    pub fn kept_clocks(&self) -> &[(String, String)] {
        self.durable.as_ref().map_or(&[], |d| d.clocks.as_slice())
    }

    /// Commits a test clock's record (JSON text) by id, replacing the one kept; without a
    /// data directory, nothing to do. The caller orders the writes of one clock.
    pub fn keep_clock(&self, id: &str, record: Vec<u8>) -> Result<(), String> {
        let Some(durable) = &self.durable else {
            return Ok(());
        };
        blocking(|| {
            durable.database.commit(vec![Write::Clock {
                id: id.to_string(),
                record,
            }])
        })
    }

    /// The request log's exchanges the data directory held at start-up, (seq, JSON text),
    /// handed over once.
    pub fn take_kept_exchanges(&self) -> Vec<(i64, String)> {
        self.durable.as_ref().map_or_else(Vec::new, |d| {
            std::mem::take(&mut *d.exchanges.lock().unwrap_or_else(|p| p.into_inner()))
        })
    }

    /// Commits the request log's rows, blocking the calling thread (the log's own keeper);
    /// without a data directory, nothing to do.
    pub fn keep_exchanges(&self, writes: Vec<Write>) -> Result<(), String> {
        match &self.durable {
            Some(durable) => durable.database.commit(writes),
            None => Ok(()),
        }
    }

    /// The database file, when the store is kept in one.
    pub fn database_file(&self) -> Option<&Path> {
        self.durable.as_ref().map(|d| d.database.path())
    }

    /// Commits a tender (and whatever else changed with it) before it may be shown: its
    /// record without the bids unless that is as `before` holds it, and the bids that are not
    /// the very ones `before` holds, in the rows `bid_rows` keeps (updated once committed).
    /// `before`: the place of a tender already stored, whose turn the caller holds (so its
    /// committed state cannot change meanwhile), with `bid_rows`.
    pub(super) async fn commit(
        &self,
        row: i64,
        tender: &mut Tender,
        before: Option<&Place>,
        bid_rows: &mut BidRows,
        with: Vec<Write>,
    ) -> Result<(), Refusal> {
        let Some(durable) = &self.durable else {
            return Ok(());
        };
        let unstorable = |e: serde_json::Error| {
            Refusal::Unavailable(format!("the tender cannot be stored: {e}"))
        };
        // The record is written without its bids (an empty list is not written), and only
        // when it changed: a bid's write often leaves its tender as it was.
        let bids = std::mem::take(&mut tender.bids);
        let (held, kept) = match before {
            Some(place) => {
                let mut entry = lock(&place.entry);
                let held = std::mem::take(&mut entry.record.bids);
                let kept = entry.record == *tender;
                entry.record.bids = held.clone();
                (held, kept)
            }
            None => (Bids::new(), false),
        };
        let record = (!kept).then(|| stored::to_json(&*tender));
        tender.bids = bids;
        let mut writes = Vec::new();
        if let Some(record) = record {
            writes.push(Write::Tender {
                row,
                id: tender.id.to_string(),
                record: record.map_err(unstorable)?,
            });
        }
        let moves = bid_rows
            .writes(
                &tender.id,
                &held,
                &tender.bids,
                &durable.next_bid_row,
                &mut writes,
            )
            .map_err(unstorable)?;
        writes.extend(with);
        if writes.is_empty() {
            return Ok(());
        }
        durable
            .database
            .committed(writes)
            .await
            .map_err(Refusal::Unavailable)?;
        bid_rows.apply(moves);
        Ok(())
    }
}
