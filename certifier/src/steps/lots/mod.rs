//! Tenders divided into lots: created inline, changed while enquiries run, bid on with
//! `lotValues`, and awarded, contracted, cancelled and claimed one lot at a time; an upstream
//! extension (`@lots`). Lots are named by their position in the tender, from 1.

mod awards;
mod bids;
mod cancellations;
mod changing;
mod creating;
mod questions;
mod reading;

pub(super) use awards::contract_of;
pub(super) use bids::bid_on;
pub(super) use reading::{amount, lot, lot_id, lots};
