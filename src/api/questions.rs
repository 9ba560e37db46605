//! `/tenders/{tender_id}/questions`: asked by any broker, answered by the owner.

use super::auth::{Level, presented_token};
use super::error::ApiError;
use super::{app, body, is_owner, param, reply};
use crate::domain::Refusal;
use crate::domain::views;
use salvo::prelude::*;
use serde_json::Value as Json;

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let questions = app
        .store
        .read(&param(req, "tender_id"), |t| {
            Json::Array(
                t.questions
                    .iter()
                    .map(|q| views::question(q, t.status))
                    .collect(),
            )
        })
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    reply::ok(req, res, questions);
    Ok(())
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let id = param(req, "question_id");
    let question = app
        .store
        .read(&param(req, "tender_id"), |t| {
            t.question(&id).map(|q| views::question(q, t.status))
        })
        .ok_or_else(|| ApiError::not_found("tender_id"))??;
    reply::ok(req, res, question);
    Ok(())
}

#[handler]
pub async fn ask(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Result<(), ApiError> {
    let app = app(depot)?;
    let tender_id = param(req, "tender_id");
    let is_test = app
        .store
        .read(&tender_id, |t| t.is_test())
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req).ok_or_else(ApiError::forbidden)?;
    let data = body.data()?;
    let refused = |name| Refusal::Forbidden {
        location: "procurementMethodType",
        name,
        description: "Broker Accreditation level does not permit question creation".into(),
    };
    if !broker.accredited(Level::Participation) {
        return Err(refused("accreditation").into());
    }
    if broker.test_only() && !is_test {
        return Err(refused("mode").into());
    }
    let (cx, now) = (app.cx(), app.now());
    let mut asked: Option<Json> = None;
    let id = app.store.update(
        &tender_id,
        now,
        |t| {
            let question = t.ask(data, &cx, now)?;
            asked = Some(serde_json::to_value(question).unwrap_or_default());
            Ok(crate::domain::Change::Public)
        },
        |_| (),
    );
    id?;
    let question = asked.unwrap_or_default();
    let location = format!(
        "{}/tenders/{tender_id}/questions/{}",
        app.api_root(req),
        question["id"].as_str().unwrap_or_default()
    );
    reply::created(req, res, &location, question, None);
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
    app.store
        .read(&tender_id, |t| t.question(&id).map(|_| ()))
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
    let data = body.data()?;
    let (cx, now) = (app.cx(), app.now());
    let view = app.store.update(
        &tender_id,
        now,
        |t| t.answer(&id, data, &cx, now),
        |t| t.question(&id).map(|q| views::question(q, t.status)),
    )??;
    reply::ok(req, res, view);
    Ok(())
}
