//! `/tenders` (creation) and `/tenders/{tender_id}`: read and change a tender.

use super::auth::Level;
use super::error::{ApiError, write_json};
use super::reply::{self, to_text, wants_pretty};
use super::{app, body, guard, param};
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
    let test_mode = data.get("mode").and_then(|m| m.as_str()) == Some("test");
    broker.may_create(Level::Tenders, test_mode, "tender")?;
    let input = NewTender::parse(data, &app.cx())?;
    let now = app.now();
    let (token, token_hash) = ids::new_token();
    let tender_id = app.store.next_tender_id(now);
    let tender = Tender::create(
        input,
        ids::new_id(),
        tender_id,
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
    let render = |t: &Tender, pretty| to_text(&json!({"data": views::tender(t)}), pretty);
    let text = if wants_pretty(req) {
        app.store.read(&id, |t| render(t, true)).map(Into::into)
    } else {
        app.store.public_json(&id, |t| render(t, false))
    };
    write_json(
        res,
        StatusCode::OK,
        text.ok_or_else(|| ApiError::not_found("tender_id"))?,
    );
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
    let body = guard::write(req, &app, &id, |_| Ok(()), guard::owner).await?;
    let (data, cx, now) = (body.data()?, app.cx(), app.now());
    let view = app
        .store
        .update(&id, now, |t| t.patch(data, &cx, now), views::tender)?;
    reply::ok(req, res, view);
    Ok(())
}
