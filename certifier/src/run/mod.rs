//! The run and its verdict, the harness's top layer: the runner that feeds the features to
//! cucumber against one target, what happened to each scenario ([`outcome`]), what a long run
//! shows on a terminal ([`progress`]), the certificate ([`report`]) and the feature files a run
//! uses ([`feature_set`]). It may use every layer beneath it.

pub mod feature_set;
pub mod outcome;
pub mod progress;
pub mod report;
pub mod runner;
