//! Which bids a write changed, and the rows of the database file that hold them.
//!
//! A durable store keeps each bid in a row of its own, numbered by the store (not found by an
//! index of ids, so that a new bid extends the table's last page instead of dirtying a random
//! page of an index). The numbers only grow, so a tender's bids read back in row order come
//! in the order the tender held them.

use super::database::Write;
use crate::domain::bid::Bid;
use crate::domain::stored;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

pub type Bids = imbl::Vector<Arc<Bid>>;

/// The rows of one tender's bids, by bid id.
#[derive(Debug, Default)]
pub struct BidRows(HashMap<String, i64>);

/// The rows a commit adds or frees, applied once it is committed.
#[derive(Debug, Default)]
pub struct Moves {
    added: Vec<(String, i64)>,
    freed: Vec<String>,
}

impl BidRows {
    pub fn insert(&mut self, bid: String, row: i64) {
        self.0.insert(bid, row);
    }

    /// The highest row in use (0 for none).
    pub fn last(&self) -> i64 {
        self.0.values().copied().max().unwrap_or(0)
    }

    /// Takes the rows a committed write added and freed.
    pub fn apply(&mut self, moves: Moves) {
        for bid in moves.freed {
            self.0.remove(&bid);
        }
        self.0.extend(moves.added);
    }

    /// The writes that take the bids `held` to the bids `now`: each bid of `now` that is not
    /// the very bid `held` had (new or changed), and the removal of each bid `now` lacks. A
    /// write changes a bid only by replacing its `Arc`, and bids keep their order, so the
    /// common case is one walk over both lists. New bids take rows from `next`.
    pub fn writes(
        &self,
        tender: &str,
        held: &Bids,
        now: &Bids,
        next: &AtomicI64,
        writes: &mut Vec<Write>,
    ) -> serde_json::Result<Moves> {
        let mut moves = Moves::default();
        let mut put = |bid: &Bid, writes: &mut Vec<Write>| -> serde_json::Result<()> {
            let row = match self.0.get(&bid.id) {
                Some(row) => *row,
                None => {
                    let row = next.fetch_add(1, Ordering::Relaxed);
                    moves.added.push((bid.id.clone(), row));
                    row
                }
            };
            writes.push(Write::Bid {
                row,
                tender: tender.to_string(),
                id: bid.id.clone(),
                record: stored::to_json(bid)?,
            });
            Ok(())
        };
        let mut same = 0;
        for (old, new) in held.iter().zip(now.iter()) {
            if old.id != new.id {
                break;
            }
            if !Arc::ptr_eq(old, new) {
                put(new, writes)?;
            }
            same += 1;
        }
        // Past the first difference in ids, some bids were removed: match the rest by id.
        let mut rest: HashMap<&str, &Arc<Bid>> =
            held.iter().skip(same).map(|b| (b.id.as_str(), b)).collect();
        for new in now.iter().skip(same) {
            match rest.remove(new.id.as_str()) {
                Some(old) if Arc::ptr_eq(old, new) => {}
                _ => put(new, writes)?,
            }
        }
        for id in held.iter().skip(same).map(|b| b.id.as_str()) {
            if rest.contains_key(id)
                && let Some(row) = self.0.get(id)
            {
                writes.push(Write::BidGone { row: *row });
                moves.freed.push(id.to_string());
            }
        }
        Ok(moves)
    }
}
