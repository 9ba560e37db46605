//! `/tenders/{tender_id}/lots`: read by anyone, added, changed and deleted by the owner while
//! enquiries are open.

use crate::domain::Change;
use crate::domain::lot::Lot;
use crate::domain::tender::Tender;
use crate::http::error::ApiError;
use crate::http::{app, guard, param, reads, reply, writes};
use salvo::prelude::*;
use serde_json::Value as Json;

fn to_json(l: &Lot) -> Json {
    reads::json(l)
}

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::list(req, depot, res, |t: &Tender| Ok(reads::all(&t.lots)))
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::one(req, depot, res, "lot_id", |t: &Tender, id| {
        t.lot(id).map(to_json)
    })
}

#[handler]
pub async fn add(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Result<(), ApiError> {
    writes::add(
        req,
        depot,
        res,
        "lots",
        guard::owner,
        |t: &mut Tender, s| t.add_lot(s.data, s.cx, s.now),
        |t, id| t.lot(id).map(to_json),
    )
    .await
}

/// A PATCH that changes nothing answers the lot as it is: upstream answered `null`, but the
/// spec's conventions give every success a `{"data": …}` body.
#[handler]
pub async fn change(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    writes::change(
        req,
        depot,
        res,
        "lot_id",
        guard::owner,
        |t: &mut Tender, id, s| t.change_lot(id, s.data, s.cx),
        |t, id| t.lot(id).map(to_json),
    )
    .await
}

#[handler]
pub async fn delete(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "lot_id"));
    guard::found(&app, &tender_id, |t| t.lot(&id).map(|_| ()))?;
    guard::permitted(&app, req, &tender_id, None, guard::owner)?;
    let mut removed = Json::Null;
    app.store
        .update(
            &tender_id,
            |t, _| {
                removed = to_json(&t.delete_lot(&id)?);
                Ok(Change::Public)
            },
            |_| (),
        )
        .await?;
    reply::ok(req, res, removed);
    Ok(())
}
