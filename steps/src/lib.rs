//! Conformance harness for the Tender Procurement Service Interface 2.3.
//!
//! It runs the Gherkin features of the repository against any base URL and knows the service
//! only through HTTP. [`certify`] is the single entry point: the `tender-certify` binary calls
//! it for an external target, and the server's acceptance test calls it for the built-in one.

pub mod acceleration;
pub mod bodies;
pub mod checks;
pub mod client;
pub mod exchange;
pub mod facts;
pub mod feature_set;
pub mod offered;
pub mod outcome;
pub mod progress;
pub mod readback;
pub mod report;
pub mod rules;
pub mod runner;
pub mod settings;
pub mod shape;
mod steps;
pub mod target;
pub mod timeline;
pub mod timestamps;
mod verify;
#[path = "../../scenarios/vocabulary.rs"]
mod vocabulary;
pub mod world;
pub mod x509;

pub use report::RunReport;
pub use runner::{CucumberOpts, Opts, certify, cucumber_options_from_args, silence_step_panics};
pub use settings::{Broker, LiveOutput, Settings};
pub use world::TenderWorld;
