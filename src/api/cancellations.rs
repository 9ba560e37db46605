//! `/tenders/{tender_id}/cancellations`: read by anyone, made and activated by the owner.

// The handlers keep the lower-case names the router reads.
#![allow(non_upper_case_globals)]

use crate::domain::cancellation::Cancellation;
use crate::domain::tender::Tender;
use crate::http::collection::{Collection, Served};
use crate::http::guard::owner;

static CANCELLATIONS: Collection<Tender, Cancellation> =
    Collection::of("cancellations", "cancellation_id", |t| &t.cancellations);

pub const list: Served<Tender, Cancellation> = CANCELLATIONS.list();
pub const show: Served<Tender, Cancellation> = CANCELLATIONS.show();
pub const add: Served<Tender, Cancellation> = CANCELLATIONS.adds(owner, Tender::add_cancellation);
pub const change: Served<Tender, Cancellation> =
    CANCELLATIONS.changes(owner, Tender::change_cancellation);
