//! The fault API (with `--testing` or `--sandbox`), beside the clock control API:
//! `/testing/faults` sets, lists and removes rules; [`Layer`] applies them to every request of
//! the versioned API and of the live auctions.
//!
//! Whose requests a rule may hit is decided by [`Asker`]: a broker's rule hits only that
//! broker's requests; rules without credentials, or for any broker, only where the server
//! belongs to whoever runs it (`--testing`). A shared sandbox turns that one switch off.
//!
//! A broker may scope a rule to one test clock of its own (`X-Testing-Clock`, or
//! `match.clock`): the rule then hits the requests on that clock alone (a tender creation
//! naming it, any request to a record living on it), whoever sends them, since the clock's
//! records are the broker's; `GET` and `DELETE` sent with the header see and remove that
//! clock's rules alone. So jobs of one broker, each on its own clock, never break each other.

use super::test_clocks;
use crate::domain::Refusal;
use crate::domain::ids;
use crate::domain::input::Input;
use crate::domain::parse::Problem;
use crate::faults::{Call, Draft, Fault, Rule, in_scope};
use crate::http::auth::{Asker, SettingKind};
use crate::http::error::{ApiError, Handled};
use crate::http::serve::Lost;
use crate::http::{API_PREFIX, App, app, body, param, reply};
use salvo::http::{Method, StatusCode};
use salvo::prelude::*;
use std::sync::Arc;
use std::time::Duration;

/// What a refusal of a rule's broker names.
const RULES: SettingKind = SettingKind {
    one: "a fault rule",
    many: "fault rules",
    field: "match.broker",
};

/// Where the layer leaves the rule that hit a request (its id and fault), for the access log.
pub const HIT_RULE: &str = "fault_rule";

/// Where the layer leaves the `Location` of what a request answered with an error after its
/// commit had made, for the request log.
pub const COMMITTED_AT: &str = "committed_at";

/// Whether the caller sees `rule` in a call scoped to the test clock `scope` (any clock's
/// rules when `None`): a rule for its requests, or one it set on its clock for anyone's.
fn sees_on(asker: &Asker, rule: &Rule, scope: Option<&str>) -> bool {
    asker.sees_made(rule.matcher.broker.as_deref(), rule.set_by.as_deref())
        && scope.is_none_or(|clock| rule.matcher.clock.as_deref() == Some(clock))
}

/// The test clock a call to the fault API is scoped to: the one the `X-Testing-Clock` header
/// names (or, for a new rule, `match.clock`, which must agree with it); only its owner may
/// name it, and an unknown or deleted clock is refused (the test clocks' ownership check).
fn scope(
    app: &App,
    req: &Request,
    asker: &Asker,
    in_body: Option<&str>,
) -> Result<Option<String>, ApiError> {
    let header = test_clocks::header_clock(req)?;
    let Some((id, location, name)) =
        test_clocks::one_named(header, in_body, "body", "match.clock")?
    else {
        return Ok(None);
    };
    let broker = asker.broker().ok_or_else(ApiError::forbidden)?;
    app.clocks
        .tests()
        .check(id, broker)
        .map_err(|e| test_clocks::named_refused(id, e, (location, name), "fault rules"))?;
    Ok(Some(id.to_string()))
}

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let scope = scope(&app, req, &asker, None)?;
    reply::ok(
        req,
        res,
        app.faults.list(|r| sees_on(&asker, r, scope.as_deref())),
    );
    Ok(())
}

#[handler]
pub async fn create(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let data = body.data()?;
    let matcher = |field: &str| data.get("match").and_then(|m| m.get(field)?.as_str());
    let asker = Asker::of(&app, req)?;
    let clock = scope(&app, req, &asker, matcher("clock"))?;
    let broker = match clock {
        Some(_) => asker.whose_on_clock(matcher("broker"), RULES)?,
        None => asker.whose(matcher("broker"), RULES)?,
    };
    let mut draft = Draft::parse(data, &app.cx()).map_err(Refusal::from)?;
    if let Some(name) = broker.as_deref().filter(|n| !app.brokers.knows(n)) {
        let problem = Problem::msg(format!("No broker is named {name}."));
        return Err(Refusal::field("match", Problem::field("broker", problem)).into());
    }
    draft.matcher.broker = broker;
    draft.matcher.clock = clock;
    let id = ids::new_id();
    let seed = u64::from(uuid::Uuid::new_v4().as_u128() as u32);
    let rule = Rule::new(id.clone(), draft, seed).set_by(asker.broker().map(str::to_string));
    let view = app.faults.add(rule);
    let location = format!("{}/testing/faults/{id}", app.base_url(req));
    reply::created(req, res, &location, view, None);
    Ok(())
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let scope = scope(&app, req, &asker, None)?;
    let rule = app
        .faults
        .get(&param(req, "fault_id"), |r| {
            sees_on(&asker, r, scope.as_deref())
        })
        .ok_or_else(|| ApiError::not_found("fault_id"))?;
    reply::ok(req, res, rule);
    Ok(())
}

/// Removes one rule and answers it as it was, with its hits.
#[handler]
pub async fn remove(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let scope = scope(&app, req, &asker, None)?;
    let rule = app
        .faults
        .remove(&param(req, "fault_id"), |r| {
            sees_on(&asker, r, scope.as_deref())
        })
        .ok_or_else(|| ApiError::not_found("fault_id"))?;
    reply::ok(req, res, rule);
    Ok(())
}

/// Removes every rule the caller sees (with the header, that clock's) and answers them as
/// they were.
#[handler]
pub async fn clear(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let asker = Asker::of(&app, req)?;
    let scope = scope(&app, req, &asker, None)?;
    let removed = app
        .faults
        .remove_all(|r| sees_on(&asker, r, scope.as_deref()));
    reply::ok(req, res, removed);
    Ok(())
}

/// The test clock a request is on, for the rules of one clock: the one a tender creation
/// names (the header, or the `clock=` word of `procurementMethodDetails`, read from the body
/// the handler reads next), else the one the tender, contract under management or auction its
/// path names lives on. A creation whose body cannot be read is answered as its handler would
/// answer it.
async fn request_clock(app: &App, req: &mut Request) -> Result<Option<String>, ApiError> {
    let path = req.uri().path();
    let tender_s = |id: &str| app.store.read(id, |t| t.clock.clone()).flatten();
    let clock = if let Some(rest) = path.strip_prefix(API_PREFIX) {
        let mut parts = rest.split('/').skip(1);
        match (parts.next(), parts.next()) {
            (Some("tenders"), None) if req.method() == Method::POST => {
                return created_on(app, req).await;
            }
            (Some("tenders"), Some(id)) => tender_s(id),
            (Some("contracts"), Some(id)) => {
                app.store.read_contract(id, |c| c.clock.clone()).flatten()
            }
            _ => None,
        }
    } else if let Some(rest) = path.strip_prefix("/auctions/") {
        let auction = rest.split('/').next().unwrap_or_default();
        tender_s(auction.split('_').next().unwrap_or_default())
    } else {
        None
    };
    Ok(clock.map(String::from))
}

/// The test clock a tender creation names, as its handler reads it.
async fn created_on(app: &App, req: &mut Request) -> Result<Option<String>, ApiError> {
    if let Ok(Some(header)) = test_clocks::header_clock(req) {
        return Ok(Some(header.to_string()));
    }
    if body::check_content_type(req).is_err() {
        return Ok(None);
    }
    let body = body::read(req, app.max_body).await?;
    let word = body
        .data()
        .ok()
        .and_then(|data| data.get("procurementMethodDetails"))
        .and_then(Input::as_str)
        .and_then(test_clocks::clock_word)
        .map(str::to_string);
    Ok(word)
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
        let clock = match app.faults.any_on_clocks() {
            true => match request_clock(app, req).await {
                Ok(clock) => clock,
                Err(refused) => {
                    refused.render(res);
                    ctrl.skip_rest();
                    return;
                }
            },
            false => None,
        };
        let broker = app.brokers.identify(req).map(|b| b.name.as_str());
        let call = Call {
            method: req.method().as_str(),
            path: req.uri().path(),
            broker,
            clock: clock.as_deref(),
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
                if let Some(location) = res.headers().get(salvo::http::header::LOCATION) {
                    depot.insert(COMMITTED_AT, location.clone());
                }
                // Nothing of the real answer (Location, token) may leak into the failure.
                *res = Response::new();
                fail(res, status);
            }
            Fault::DropAfterCommit => {
                ctrl.call_next(req, depot, res).await;
                // The listener loses it: the request's HTTP/2 stream is reset, an HTTP/1.1
                // connection closed, without a response.
                res.extensions.insert(Lost);
            }
        }
    }
}

fn fail(res: &mut Response, status: u16) {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    ApiError::bare(status).render(res);
}
