//! The refusal of a creation at one of a broker's bounds (see [`crate::limits`]): 409
//! `body`/`data`, as the bound on test clocks has always answered, saying what the broker
//! holds, the most it may keep, and what to do. Nothing of the refused creation is made.

use super::App;
use super::error::ApiError;
use crate::limits::{self, Kind};
use salvo::http::StatusCode;

/// `holder` ("Broker acme") holds `held` of `kind`, `most` at most; the refused creation
/// would have added `adding` (a file's bytes; 1 for a record).
pub fn refused(app: &App, holder: &str, kind: Kind, held: u64, most: u64, adding: u64) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        "body",
        "data",
        limits::refusal(holder, kind, held, most, adding, app.place()),
    )
}
