//! `/tenders/{tender_id}/questions`: asked by any broker, answered by the owner.

use crate::domain::tender::Tender;
use crate::domain::{Change, views};
use crate::http::auth::Level;
use crate::http::error::ApiError;
use crate::http::reply::{self, wants_pretty};
use crate::http::{app, body, guard, param, reads};
use salvo::prelude::*;
use serde_json::Value as Json;

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::list(req, depot, res, |t: &Tender| {
        let shown: Vec<_> = t
            .questions
            .iter()
            .map(|q| views::question(q, t.status))
            .collect();
        Ok(reads::json(&shown))
    })
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::one(req, depot, res, "question_id", |t: &Tender, id| {
        t.question(id)
            .map(|q| reads::json(&views::question(q, t.status)))
    })
}

/// Any accredited broker may ask; no token is needed. The asker sees the author.
#[handler]
pub async fn ask(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Result<(), ApiError> {
    let app = app(depot)?;
    let tender_id = param(req, "tender_id");
    let test_mode = app
        .store
        .read(&tender_id, |t| t.is_test())
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req).ok_or_else(ApiError::forbidden)?;
    let data = body.data()?;
    broker.may_create(Level::Participation, test_mode, "question")?;
    let cx = app.cx();
    let mut asked = Json::Null;
    app.store
        .update(
            &tender_id,
            |t, now| {
                asked =
                    serde_json::to_value(views::asked(t.ask(data, &cx, now)?)).unwrap_or_default();
                Ok(Change::Public)
            },
            |_| (),
        )
        .await?;
    let location = format!(
        "{}/tenders/{tender_id}/questions/{}",
        app.api_root(req),
        asked["id"].as_str().unwrap_or_default()
    );
    reply::created(req, res, &location, asked, None);
    Ok(())
}

#[handler]
pub async fn answer(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "question_id"));
    let body = guard::write(
        req,
        &app,
        &tender_id,
        |t| t.question(&id).map(|_| ()),
        guard::owner,
    )
    .await?;
    let (data, cx, pretty) = (body.data()?, app.cx(), wants_pretty(req));
    let render = |t: &Tender| {
        t.question(&id)
            .map(|q| reply::render(views::question(q, t.status), None, pretty))
    };
    let text = app
        .store
        .update(&tender_id, |t, now| t.answer(&id, data, &cx, now), render)
        .await??;
    reply::ok_rendered(res, text);
    Ok(())
}
