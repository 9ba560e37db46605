//! `/tenders/{tender_id}/lots`: read by anyone, added, changed and deleted by the owner while
//! enquiries are open.

use super::error::ApiError;
use super::{app, guard, param, reply};
use crate::domain::Change;
use crate::domain::lot::Lot;
use salvo::prelude::*;
use serde_json::Value as Json;

fn to_json(l: &Lot) -> Json {
    serde_json::to_value(l).unwrap_or_default()
}

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let all = app
        .store
        .read(&param(req, "tender_id"), |t| {
            Json::Array(t.lots.iter().map(to_json).collect())
        })
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    reply::ok(req, res, all);
    Ok(())
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let id = param(req, "lot_id");
    let one = app
        .store
        .read(&param(req, "tender_id"), |t| t.lot(&id).map(to_json))
        .ok_or_else(|| ApiError::not_found("tender_id"))??;
    reply::ok(req, res, one);
    Ok(())
}

#[handler]
pub async fn add(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Result<(), ApiError> {
    let app = app(depot)?;
    let tender_id = param(req, "tender_id");
    let body = guard::write(req, &app, &tender_id, |_| Ok(()), guard::owner).await?;
    let (data, cx, now) = (body.data()?, app.cx(), app.now());
    let mut new_id = String::new();
    let view = app
        .store
        .update(
            &tender_id,
            now,
            |t| {
                new_id = t.add_lot(data, &cx, now)?;
                Ok(Change::Public)
            },
            |t| t.lots.last().map(to_json).unwrap_or_default(),
        )
        .await?;
    let location = format!("{}/tenders/{tender_id}/lots/{new_id}", app.api_root(req));
    reply::created(req, res, &location, view, None);
    Ok(())
}

/// A PATCH that changes nothing answers the lot as it is: upstream answered `null`, but the
/// spec's conventions give every success a `{"data": …}` body.
#[handler]
pub async fn change(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "lot_id"));
    let body = guard::write(
        req,
        &app,
        &tender_id,
        |t| t.lot(&id).map(|_| ()),
        guard::owner,
    )
    .await?;
    let (data, cx, now) = (body.data()?, app.cx(), app.now());
    let view = app
        .store
        .update(
            &tender_id,
            now,
            |t| t.change_lot(&id, data, &cx),
            |t| t.lot(&id).map(to_json),
        )
        .await??;
    reply::ok(req, res, view);
    Ok(())
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
    let now = app.now();
    let mut removed = Json::Null;
    app.store
        .update(
            &tender_id,
            now,
            |t| {
                removed = to_json(&t.delete_lot(&id)?);
                Ok(Change::Public)
            },
            |_| (),
        )
        .await?;
    reply::ok(req, res, removed);
    Ok(())
}
