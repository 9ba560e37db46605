//! Tenders: creating, publishing, reading back and changing them, and what a tender must show.

mod changing;
mod creating;
mod publishing;
mod reading;
mod showing;

pub(super) use creating::{create, draft, require_created};
pub(super) use publishing::{has_published, publish};
