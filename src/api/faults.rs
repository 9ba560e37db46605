//! The fault API (only with `--testing`), beside the clock control API: `/testing/faults` sets,
//! lists and removes rules; [`Layer`] applies them to every request of the versioned API.
//!
//! Whose requests a rule may hit is decided by [`Asker`]: a broker's rule hits only that
//! broker's requests; rules without credentials, or for any broker, only where the server
//! belongs to whoever runs it (`--testing`). A shared sandbox turns that one switch off.

use crate::domain::Refusal;
use crate::domain::ids;
use crate::domain::parse::Problem;
use crate::faults::{Call, Draft, Fault, Rule, in_scope};
use crate::http::auth::Asker;
use crate::http::error::ApiError;
use crate::http::{App, app, body, param, reply};
use salvo::http::StatusCode;
use salvo::prelude::*;
use std::sync::Arc;
use std::time::Duration;

/// Where the layer leaves the rule that hit a request (its id and fault), for the access log.
pub const HIT_RULE: &str = "fault_rule";

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    reply::ok(
        req,
        res,
        app.faults.list(|r| asker.sees(r.matcher.broker.as_deref())),
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
    let data = body.data()?;
    let named = data.get("match").and_then(|m| m.get("broker")?.as_str());
    let broker = Asker::of(&app, req)?.whose(named)?;
    let mut draft = Draft::parse(data, &app.cx()).map_err(Refusal::from)?;
    if let Some(name) = broker.as_deref().filter(|n| !app.brokers.knows(n)) {
        let problem = Problem::msg(format!("No broker is named {name}."));
        return Err(Refusal::field("match", Problem::field("broker", problem)).into());
    }
    draft.matcher.broker = broker;
    let id = ids::new_id();
    let seed = u64::from(uuid::Uuid::new_v4().as_u128() as u32);
    let view = app.faults.add(Rule::new(id.clone(), draft, seed));
    let location = format!("{}/testing/faults/{id}", app.base_url(req));
    reply::created(req, res, &location, view, None);
    Ok(())
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let rule = app
        .faults
        .get(&param(req, "fault_id"), |r| {
            asker.sees(r.matcher.broker.as_deref())
        })
        .ok_or_else(|| ApiError::not_found("fault_id"))?;
    reply::ok(req, res, rule);
    Ok(())
}

/// Removes one rule and answers it as it was, with its hits.
#[handler]
pub async fn remove(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let rule = app
        .faults
        .remove(&param(req, "fault_id"), |r| {
            asker.sees(r.matcher.broker.as_deref())
        })
        .ok_or_else(|| ApiError::not_found("fault_id"))?;
    reply::ok(req, res, rule);
    Ok(())
}

/// Removes every rule the caller sees and answers them as they were.
#[handler]
pub async fn clear(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    reply::ok(
        req,
        res,
        app.faults
            .remove_all(|r| asker.sees(r.matcher.broker.as_deref())),
    );
    Ok(())
}

/// The hoop that applies the rules. The rule is consumed before the request runs; then the
/// request fails as the rule says. The answer is what a failing deployment gives, and says
/// nothing of the rule; only the access log names it.
pub struct Layer(pub Arc<App>);

#[async_trait]
impl Handler for Layer {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        ctrl: &mut FlowCtrl,
    ) {
        let app = &self.0;
        if !app.faults.any() || !in_scope(req.uri().path()) {
            return;
        }
        let broker = app.brokers.identify(req).map(|b| b.name.as_str());
        let call = Call {
            method: req.method().as_str(),
            path: req.uri().path(),
            broker,
        };
        let Some(hit) = app.faults.consume(call) else {
            return;
        };
        depot.insert(HIT_RULE, (hit.rule, hit.fault.name()));
        match hit.fault {
            // The rest of the flow then runs as usual.
            Fault::Delay { ms } => tokio::time::sleep(Duration::from_millis(ms)).await,
            Fault::ErrorBeforeCommit { status } => {
                fail(res, status);
                ctrl.skip_rest();
            }
            Fault::ErrorAfterCommit { status } => {
                ctrl.call_next(req, depot, res).await;
                // Nothing of the real answer (Location, token) may leak into the failure.
                *res = Response::new();
                fail(res, status);
            }
            Fault::DropAfterCommit => {
                ctrl.call_next(req, depot, res).await;
                // Salvo then closes the connection without writing the response.
                ctrl.conn().abort();
            }
        }
    }
}

fn fail(res: &mut Response, status: u16) {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    ApiError::bare(status).render(res);
}
