//! `/tenders/{tender_id}/cancellations`: read by anyone, made and activated by the owner.

use super::error::ApiError;
use super::{app, guard, param, reply};
use crate::domain::Change;
use crate::domain::cancellation::Cancellation;
use salvo::prelude::*;
use serde_json::Value as Json;

fn to_json(c: &Cancellation) -> Json {
    serde_json::to_value(c).unwrap_or_default()
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
            Json::Array(t.cancellations.iter().map(to_json).collect())
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
    let id = param(req, "cancellation_id");
    let one = app
        .store
        .read(&param(req, "tender_id"), |t| {
            t.cancellation(&id).map(to_json)
        })
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
                new_id = t.add_cancellation(data, &cx, now)?;
                Ok(Change::Public)
            },
            |t| t.cancellations.last().map(to_json).unwrap_or_default(),
        )
        .await?;
    let location = format!(
        "{}/tenders/{tender_id}/cancellations/{new_id}",
        app.api_root(req)
    );
    reply::created(req, res, &location, view, None);
    Ok(())
}

#[handler]
pub async fn change(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "cancellation_id"));
    let body = guard::write(
        req,
        &app,
        &tender_id,
        |t| t.cancellation(&id).map(|_| ()),
        guard::owner,
    )
    .await?;
    let (data, cx, now) = (body.data()?, app.cx(), app.now());
    let view = app
        .store
        .update(
            &tender_id,
            now,
            |t| t.change_cancellation(&id, data, &cx, now),
            |t| t.cancellation(&id).map(to_json),
        )
        .await??;
    reply::ok(req, res, view);
    Ok(())
}
