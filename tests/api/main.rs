//! HTTP-level tests of the server on an ephemeral port: every endpoint's success path and
//! its main refusals.

mod auction;
mod auth;
mod bids;
mod broker_clocks;
mod cancellations;
mod claims;
mod common;
mod contracting;
mod conventions;
mod docservice;
mod documents;
mod edr;
mod faces;
mod faults;
mod lifecycle;
mod limits;
mod listing;
mod lots;
mod malformed;
mod qualification;
mod questions;
mod reconsideration;
mod sandbox_modes;
mod tenders;
mod test_clocks;
mod test_helpers;
