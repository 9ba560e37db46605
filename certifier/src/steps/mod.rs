//! Step definitions, one module per area of the interface. Steps read like sentences of the
//! spec and never know whether the target is the built-in server or another implementation.

mod awards;
mod bids;
mod cancellations;
mod claims;
mod common;
mod contracting;
mod docservice;
mod documents;
mod faults;
mod listing;
mod live_auction;
mod lots;
mod periods;
mod qualification;
mod questions;
mod refusals;
mod rereads;
mod sandbox;
mod tenders;
