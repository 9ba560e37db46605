//! The embedded EDR service, at upstream's path on the server's root, so that a broker's EDR
//! address is simply the server's base address: `GET /api/{version}/verify?id=<code>` (or
//! `?passport=`) answers whether a bidder's code is in the state register, as upstream's EDR
//! integration service answered it, from the test data of [`crate::edr`]. Any version but
//! the tender API's own is taken: upstream's was `1.0`, and its test suite asked `0`.
//!
//! On a sandbox, `/testing/edr` sets answers per code on demand, for the broker that sets
//! them as fault rules are ([`Asker`]).
//!
//! Its answers keep upstream's shapes, even where they differ from the rest of the server: a
//! refusal's description is a list, as the clients of the service read it.

use crate::domain::Refusal;
use crate::domain::ids;
use crate::domain::parse::Problem;
use crate::domain::time::Timestamp;
use crate::edr::answers::{Draft, Setting};
use crate::edr::{Answer, Code, Status, built_in, subjects};
use crate::http::auth::{Asker, SettingKind, basic};
use crate::http::error::{ApiError, Handled, write_json};
use crate::http::{API_PREFIX, App, app, body, param, reply};
use salvo::http::StatusCode;
use salvo::http::header::{HeaderValue, RETRY_AFTER};
use salvo::prelude::*;
use serde_json::{Value as Json, json};
use std::time::Duration;

/// How long upstream's service waited for EDR, at its shortest, before answering a timeout.
const TIMEOUT_WAIT: Duration = Duration::from_secs(1);

/// Who checks: a broker by its key, as the document service takes one (its name, whose own
/// clock and answers apply), or one of the service's own `[platforms]` users.
fn checker(app: &App, req: &Request) -> Result<Option<String>, ApiError> {
    if let Some(broker) = app.brokers.identify(req) {
        return Ok(Some(broker.name.clone()));
    }
    match basic(req).filter(|(user, password)| app.edr_users.admit(user, password)) {
        Some(_) => Ok(None),
        None => Err(ApiError::forbidden()),
    }
}

fn message(text: &str) -> Json {
    json!({"message": text})
}

/// Upstream's 404: the code is not in the register, as of `now`.
fn not_found(now: Timestamp) -> ApiError {
    let error = json!({"errorDetails": "Couldn't find this code in EDR.", "code": "notFound"});
    let entry = json!({"error": error, "meta": {"sourceDate": now}});
    ApiError::listed(StatusCode::NOT_FOUND, "body", "data", vec![entry])
}

/// 200: the subject `code` names, in `status`.
fn found(req: &Request, res: &mut Response, code: &Code, status: Status, now: Timestamp) {
    let subject = subjects::of(code);
    let data = json!({
        "x_edrInternalId": subject.internal_id,
        "registrationStatus": status.name(),
        "registrationStatusDetails": status.details(),
        "identification": {
            "schema": "UA-EDR",
            "id": subject.id,
            "legalName": subject.legal_name,
            "url": subject.url(),
        },
    });
    let body = json!({"data": [data], "meta": {"sourceDate": now}});
    let text = reply::to_text(&body, reply::wants_pretty(req));
    write_json(res, StatusCode::OK, text);
}

/// A query parameter as upstream read it: an empty one is none.
fn given(req: &Request, name: &str) -> Option<String> {
    req.query::<String>(name).filter(|v| !v.is_empty())
}

#[handler]
pub async fn verify(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    // The tender API's own version is the tender API's: it has no such path.
    if API_PREFIX.strip_prefix("/api/") == Some(param(req, "version").as_str()) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "url",
            "not_found",
            "Not Found",
        ));
    }
    let broker = checker(&app, req)?;
    let now = app.clocks.reading(broker.as_deref()).now;
    // `id` wins; the register never knows an id of another form, and refuses such a passport.
    let code = match (given(req, "id"), given(req, "passport")) {
        (Some(id), _) => Code::id(&id).ok_or_else(|| not_found(now))?,
        (None, Some(passport)) => Code::passport(&passport).ok_or_else(|| {
            let said = json!({"code": 11, "message": "`passport` parameter has wrong value."});
            ApiError::listed(StatusCode::FORBIDDEN, "body", "data", vec![said])
        })?,
        (None, None) => {
            let said = message("Wrong name of the GET parameter");
            return Err(ApiError::listed(
                StatusCode::FORBIDDEN,
                "url",
                "id",
                vec![said],
            ));
        }
    };
    let answer = app
        .edr_answers
        .consume(&code, broker.as_deref())
        .unwrap_or_else(|| built_in(&code));
    match answer {
        Answer::Found(status) => found(req, res, &code, status, now),
        Answer::NotFound => return Err(not_found(now)),
        Answer::Throttled { retry_after } => {
            let said = message(&format!("Retry request after {retry_after} seconds."));
            let refusal = vec![said];
            ApiError::listed(StatusCode::TOO_MANY_REQUESTS, "body", "data", refusal).render(res);
            res.headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(retry_after));
        }
        Answer::Timeout => {
            tokio::time::sleep(TIMEOUT_WAIT).await;
            let said = message("Gateway Timeout Error");
            return Err(ApiError::listed(
                StatusCode::FORBIDDEN,
                "url",
                "id",
                vec![said],
            ));
        }
        Answer::Unavailable => {
            let said = message("Service is disabled or upgrade.");
            return Err(ApiError::listed(
                StatusCode::FORBIDDEN,
                "body",
                "data",
                vec![said],
            ));
        }
    }
    Ok(())
}

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    reply::ok(req, res, app.edr_answers.list(|b| asker.sees(b)));
    Ok(())
}

/// Sets the answer of a code for the caller's checks (or, on a server the caller owns,
/// everyone's or a named broker's), in place of the one set before for them.
#[handler]
pub async fn set(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let data = body.data()?;
    let named = data.get("broker").and_then(|b| b.as_str());
    let broker = Asker::of(&app, req)?.whose(
        named,
        SettingKind {
            one: "an EDR answer",
            many: "EDR answers",
            field: "broker",
        },
    )?;
    let draft = Draft::parse(data, &app.cx()).map_err(Refusal::from)?;
    if let Some(name) = broker.as_deref().filter(|n| !app.brokers.knows(n)) {
        let problem = Problem::msg(format!("No broker is named {name}."));
        return Err(Refusal::field("broker", problem).into());
    }
    let id = ids::new_id();
    let view = app.edr_answers.set(Setting::new(id.clone(), draft, broker));
    let location = format!("{}/testing/edr/{id}", app.base_url(req));
    reply::created(req, res, &location, view, None);
    Ok(())
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let answer = app
        .edr_answers
        .get(&param(req, "answer_id"), |b| asker.sees(b))
        .ok_or_else(|| ApiError::not_found("answer_id"))?;
    reply::ok(req, res, answer);
    Ok(())
}

/// Removes one answer and shows it as it was, with its hits; the code answers as built in.
#[handler]
pub async fn remove(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let answer = app
        .edr_answers
        .remove(&param(req, "answer_id"), |b| asker.sees(b))
        .ok_or_else(|| ApiError::not_found("answer_id"))?;
    reply::ok(req, res, answer);
    Ok(())
}

/// Removes every answer the caller sees and shows them as they were.
#[handler]
pub async fn clear(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    reply::ok(req, res, app.edr_answers.remove_all(|b| asker.sees(b)));
    Ok(())
}

/// The service's route, on the server's root.
pub fn router() -> Router {
    Router::with_path("api/{version}/verify").get(verify)
}

/// Answers set on demand, beside the fault rules.
pub fn testing_router() -> Router {
    Router::with_path("testing/edr")
        .get(list)
        .post(set)
        .delete(clear)
        .push(Router::with_path("{answer_id}").get(show).delete(remove))
}
