//! `/tenders/{tender_id}/lots`: read by anyone, added, changed and deleted by the owner while
//! enquiries are open.

// The handlers keep the lower-case names the router reads.
#![allow(non_upper_case_globals)]

use crate::domain::Change;
use crate::domain::lot::Lot;
use crate::domain::tender::Tender;
use crate::http::collection::{Collection, Served};
use crate::http::error::Handled;
use crate::http::{app, guard, param, reads, reply};
use salvo::prelude::*;

static LOTS: Collection<Tender, Lot> = Collection::of("lots", "lot_id", |t| &t.lots);

pub const list: Served<Tender, Lot> = LOTS.list();
pub const show: Served<Tender, Lot> = LOTS.show();
pub const add: Served<Tender, Lot> = LOTS.adds(guard::owner, Tender::add_lot);
/// A PATCH that changes nothing answers the lot as it is: upstream answered `null`, but the
/// spec's conventions give every success a `{"data": …}` body.
pub const change: Served<Tender, Lot> =
    LOTS.changes(guard::owner, |t, id, s| t.change_lot(id, s.data, s.cx));

#[handler]
pub async fn delete(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "lot_id"));
    guard::found(&app, &tender_id, |t| t.lot(&id).map(|_| ()))?;
    guard::permitted(&app, req, &tender_id, None, guard::owner)?;
    let mut removed = serde_json::Value::Null;
    app.store
        .update(
            &tender_id,
            |t, _| {
                removed = reads::json(&t.delete_lot(&id)?);
                Ok(Change::Public)
            },
            |_| (),
        )
        .await?;
    reply::ok(req, res, removed);
    Ok(())
}
