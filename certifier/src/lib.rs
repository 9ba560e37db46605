//! Conformance harness for the Tender Procurement Service Interface 2.3.
//!
//! It runs the Gherkin features of the repository against any base URL and knows the service
//! only through HTTP. [`certify`] is the single entry point: the `tender-certify` binary calls
//! it for an external target, and the server's acceptance test calls it for the built-in one.
//!
//! The harness stands in layers, each a folder naming only the layers beneath it, from the
//! bottom: [`exchange`] (one request and its response), [`checks`] (the rules one exchange or
//! one record must meet), [`target`] (what the harness knows of the implementation under test),
//! [`world`] (one scenario's state), `steps` (the step definitions) and [`run`] (the run and
//! its verdict). A test in `layers.rs` holds every `crate::` path to that order.

pub mod checks;
pub mod exchange;
#[cfg(test)]
mod layers;
pub mod run;
mod steps;
pub mod target;
pub mod world;

// The paths the binary, the server's tests and the test-support crate have always used.
pub use checks::{rules, shape};
pub use exchange::settings::{Broker, LiveOutput, Settings};
pub use exchange::{settings, timestamps, x509};
pub use run::report::RunReport;
pub use run::runner::{
    CucumberOpts, Opts, certify, cucumber_options_from_args, silence_step_panics,
};
pub use run::{feature_set, outcome};
pub use world::TenderWorld;
