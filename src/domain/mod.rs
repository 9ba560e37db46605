//! The records of the registry and their rules: pure, no HTTP, no I/O. "Now" is passed in.
//!
//! Two rooms: [`values`] holds the value types that know nothing of a tender (money, time,
//! ids, parties, items, documents, parsing); [`records`] holds the tender aggregate's
//! records, with the rules that move them through time in [`records::course`].

pub mod lookup;
pub mod records;
pub mod values;

// The rooms' modules by their short names, as the layers above the domain use them.
pub use records::course::{auction, lifecycle, working_days};
pub use records::{
    attachments, award, bid, cancellation, complaint, lot, question, tender, tender_contract, views,
};
pub use values::{
    document, ids, input, item, json, merge, money, organization, parse, stored, text, time,
};

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

impl From<document::Unfiled> for Refusal {
    fn from(u: document::Unfiled) -> Refusal {
        match u {
            document::Unfiled::Invalid(p) => p.into(),
            document::Unfiled::ForeignStore => Refusal::Forbidden {
                location: "body",
                name: "url",
                description: "Can add document only from document service.".into(),
            },
        }
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
