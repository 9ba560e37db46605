//! The certifier as a user meets it before any scenario: its command line, the features it
//! carries (every rule of the spec covered), and the targets it refuses to certify.

mod cli;
mod features_cover_the_spec;
mod unusable_target;
