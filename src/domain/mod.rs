//! The records of the registry and their rules: pure, no HTTP, no I/O. "Now" is passed in.

pub mod attachments;
pub mod auction;
pub mod award;
pub mod bid;
pub mod cancellation;
pub mod complaint;
pub mod contract;
pub mod document;
pub mod ids;
pub mod item;
pub mod lifecycle;
pub mod merge;
pub mod money;
pub mod organization;
pub mod parse;
pub mod question;
pub mod stored;
pub mod tender;
pub mod time;
pub mod views;
pub mod working_days;

use parse::Problem;

/// Why a request was refused by a rule of the domain.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// 422: field problems, one entry per top-level field.
    Invalid(Vec<(String, Problem)>),
    /// 403 with upstream's location and name (`body`/`data` for phase rules).
    Forbidden {
        location: &'static str,
        name: &'static str,
        description: String,
    },
    /// 404 for an unknown sub-record: the name is `<x>_id`.
    NotFound(&'static str),
    /// 415 with upstream's location and name.
    Unsupported {
        location: &'static str,
        name: &'static str,
        description: String,
    },
    /// 503: the change could not be saved, so it was not made.
    Unavailable(String),
}

impl Refusal {
    /// A business rule of the current phase: 403 `body`/`data`.
    pub fn phase(description: impl Into<String>) -> Refusal {
        Refusal::Forbidden {
            location: "body",
            name: "data",
            description: description.into(),
        }
    }

    pub fn field(name: &str, problem: Problem) -> Refusal {
        Refusal::Invalid(vec![(name.to_string(), problem)])
    }
}

impl From<Problem> for Refusal {
    fn from(p: Problem) -> Refusal {
        Refusal::Invalid(p.into_fields())
    }
}

/// What a write did to a tender, which decides whether `dateModified` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Nothing changed: the answer is the current state, nothing is saved.
    None,
    /// Saved without touching `dateModified` (bid activity stays out of the feed).
    Silent,
    /// Saved, and `dateModified` refreshed.
    Public,
}
