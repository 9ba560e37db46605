//! HTTP-level tests of the server on an ephemeral port: every endpoint's success path and
//! its main refusals.

use test_support::api as common;

mod auction;
mod auth;
mod bids;
mod broker_clocks;
mod cancellations;
mod claims;
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
mod requests;
mod sandbox_modes;
mod tenders;
mod test_clocks;
mod test_helpers;
