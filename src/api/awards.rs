//! `/tenders/{tender_id}/awards` and `/contracts`: read by anyone, decided by the owner.

use super::error::ApiError;
use super::{App, app, guard, param, reply};
use crate::domain::Refusal;
use crate::domain::tender::Tender;
use salvo::http::header::{HeaderValue, LOCATION};
use salvo::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;

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

#[handler]
pub async fn decide(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "award_id"));
    let body = guard::write(
        req,
        &app,
        &tender_id,
        |t| t.award(&id).map(|_| ()),
        guard::owner,
    )
    .await?;
    let (data, cx, now) = (body.data()?, app.cx(), app.now());
    let mut fresh = None;
    let view = app
        .store
        .update(
            &tender_id,
            now,
            |t| {
                let known = t.awards.len();
                let change = t.decide_award(&id, data, &cx, now)?;
                fresh = t
                    .awards
                    .get(known..)
                    .and_then(|new| new.last())
                    .map(|a| a.id.clone());
                Ok(change)
            },
            |t| t.award(&id).map(to_json),
        )
        .await??;
    reply::ok(req, res, view);
    // A decision that awarded a bid anew points at the fresh award, as upstream did.
    if let Some(fresh) = fresh {
        let location = format!("{}/tenders/{tender_id}/awards/{fresh}", app.api_root(req));
        if let Ok(value) = HeaderValue::from_str(&location) {
            res.headers_mut().insert(LOCATION, value);
        }
    }
    Ok(())
}

#[handler]
pub async fn change_contract(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "contract_id"));
    let body = guard::write(
        req,
        &app,
        &tender_id,
        |t| t.contract(&id).map(|_| ()),
        guard::owner,
    )
    .await?;
    let (data, cx, now) = (body.data()?, app.cx(), app.now());
    let view = app
        .store
        .update(
            &tender_id,
            now,
            |t| t.change_contract(&id, data, &cx, now),
            |t| t.contract(&id).map(to_json),
        )
        .await??;
    reply::ok(req, res, view);
    Ok(())
}
