//! `/tenders/{tender_id}/awards` and `/contracts`: read by anyone, decided by the owner.

use super::auth::presented_token;
use super::error::ApiError;
use super::{App, app, body, is_owner, param, reply};
use crate::domain::Refusal;
use crate::domain::tender::Tender;
use salvo::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;
use std::sync::Arc;

fn to_json<T: Serialize>(value: &T) -> Json {
    serde_json::to_value(value).unwrap_or_default()
}

fn read(
    req: &Request,
    app: &App,
    f: impl FnOnce(&Tender) -> Result<Json, Refusal>,
) -> Result<Json, ApiError> {
    Ok(app
        .store
        .read(&param(req, "tender_id"), f)
        .ok_or_else(|| ApiError::not_found("tender_id"))??)
}

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let awards = read(req, &app, |t| Ok(to_json(&t.awards)))?;
    reply::ok(req, res, awards);
    Ok(())
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let id = param(req, "award_id");
    let award = read(req, &app, |t| t.award(&id).map(to_json))?;
    reply::ok(req, res, award);
    Ok(())
}

#[handler]
pub async fn contracts(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let all = read(req, &app, |t| Ok(to_json(&t.contracts)))?;
    reply::ok(req, res, all);
    Ok(())
}

#[handler]
pub async fn contract(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let id = param(req, "contract_id");
    let one = read(req, &app, |t| t.contract(&id).map(to_json))?;
    reply::ok(req, res, one);
    Ok(())
}

/// The owner's write to a sub-record: 404s first, then Content-Type, credentials, the body.
async fn owner_write(
    req: &mut Request,
    depot: &Depot,
    exists: impl FnOnce(&Tender) -> Result<(), Refusal>,
) -> Result<(Arc<App>, String, body::Body), ApiError> {
    let app = app(depot)?;
    let tender_id = param(req, "tender_id");
    app.store
        .read(&tender_id, exists)
        .ok_or_else(|| ApiError::not_found("tender_id"))??;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req);
    let token = presented_token(req, body.token());
    if !app
        .store
        .read(&tender_id, |t| is_owner(t, broker, token.as_deref()))
        .unwrap_or(false)
    {
        return Err(ApiError::forbidden());
    }
    body.data()?;
    Ok((app, tender_id, body))
}

#[handler]
pub async fn decide(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let id = param(req, "award_id");
    let (app, tender_id, body) = owner_write(req, depot, |t| t.award(&id).map(|_| ())).await?;
    let data = body.data()?;
    let (cx, now) = (app.cx(), app.now());
    let view = app.store.update(
        &tender_id,
        now,
        |t| t.decide_award(&id, data, &cx, now),
        |t| t.award(&id).map(to_json),
    )??;
    reply::ok(req, res, view);
    Ok(())
}

#[handler]
pub async fn change_contract(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let id = param(req, "contract_id");
    let (app, tender_id, body) = owner_write(req, depot, |t| t.contract(&id).map(|_| ())).await?;
    let data = body.data()?;
    let (cx, now) = (app.cx(), app.now());
    let view = app.store.update(
        &tender_id,
        now,
        |t| t.change_contract(&id, data, &cx, now),
        |t| t.contract(&id).map(to_json),
    )??;
    reply::ok(req, res, view);
    Ok(())
}
