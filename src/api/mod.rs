//! The API's resources, one module per resource (tenders and what they hold, the listings,
//! the document service, the EDR service, the clock, test clock and fault APIs, the dashboard,
//! the OpenAPI description),
//! each on the shared plumbing of `http`. `routes` composes them.

pub mod awards;
pub mod bids;
pub mod cancellations;
pub mod clock;
pub mod complaints;
pub mod dashboard;
pub mod docservice;
pub mod documents;
pub mod edr;
pub mod faults;
pub mod index;
pub mod listing;
pub mod lots;
pub mod openapi;
pub mod questions;
pub mod tenders;
pub mod test_clocks;
pub mod test_tenders;
