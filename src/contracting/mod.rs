//! Contract management after signing, as upstream's contracting service ran it, inside the
//! one server: a tender's active contracts are handed over in the write that completes their
//! lot, and live on at `/api/2.3/contracts` with their own token, changes, documents, payment
//! and termination. Nothing flows back to the tender.
//!
//! The rules are pure (`managed`, the contract under management, `change`, `documents`: "now" is passed in); `api` serves
//! them over HTTP.

pub mod api;
pub mod change;
pub mod documents;
pub mod managed;

pub use managed::Contract;
