//! `/tenders` (creation) and `/tenders/{tender_id}`: read and change a tender.

use super::auth::{Level, presented_token};
use super::error::{ApiError, write_json};
use super::reply::{self, to_text, wants_pretty};
use super::{app, body, is_owner, param};
use crate::domain::Refusal;
use crate::domain::ids;
use crate::domain::tender::{NewTender, Tender};
use crate::domain::views;
use salvo::http::StatusCode;
use salvo::prelude::*;
use serde_json::json;

/// `HEAD`/`GET /api/2.3/spore`: the reference client calls it first to check the service.
#[handler]
pub async fn spore(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    reply::ok(
        req,
        res,
        json!({"name": "tender-registry", "apiVersion": "2.3", "apiRoot": app.api_root(req)}),
    );
    Ok(())
}

#[handler]
pub async fn create(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req).ok_or_else(ApiError::forbidden)?;
    let data = body.data()?;
    let refused = |name: &'static str| Refusal::Forbidden {
        location: "procurementMethodType",
        name,
        description: "Broker Accreditation level does not permit tender creation".into(),
    };
    if !broker.accredited(Level::Tenders) {
        return Err(refused("accreditation").into());
    }
    if broker.test_only() && data.get("mode").and_then(|m| m.as_str()) != Some("test") {
        return Err(refused("mode").into());
    }
    let input = NewTender::parse(data, &app.cx())?;
    let now = app.now();
    let (token, token_hash) = ids::new_token();
    let tender = Tender::create(
        input,
        ids::new_id(),
        app.store.next_tender_id(now),
        broker.name.clone(),
        token_hash,
        app.base_url(req),
        now,
    );
    let tender = app.store.insert(tender, now);
    let location = format!("{}/tenders/{}", app.api_root(req), tender.id);
    reply::created(req, res, &location, views::tender(&tender), Some(token));
    Ok(())
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let id = param(req, "tender_id");
    let text = if wants_pretty(req) {
        app.store
            .read(&id, |t| to_text(&json!({"data": views::tender(t)}), true))
            .map(Into::into)
    } else {
        app.store
            .public_json(&id, |t| to_text(&json!({"data": views::tender(t)}), false))
    };
    let text = text.ok_or_else(|| ApiError::not_found("tender_id"))?;
    write_json(res, StatusCode::OK, text);
    Ok(())
}

#[handler]
pub async fn change(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let id = param(req, "tender_id");
    if !app.store.contains(&id) {
        return Err(ApiError::not_found("tender_id"));
    }
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req);
    let token = presented_token(req, body.token());
    let owner = app
        .store
        .read(&id, |t| is_owner(t, broker, token.as_deref()))
        .unwrap_or(false);
    if !owner {
        return Err(ApiError::forbidden());
    }
    let data = body.data()?;
    let (cx, now) = (app.cx(), app.now());
    let view = app
        .store
        .update(&id, now, |t| t.patch(data, &cx, now), views::tender)?;
    reply::ok(req, res, view);
    Ok(())
}
