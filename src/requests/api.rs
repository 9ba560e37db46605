//! `/testing/requests` and `/testing/report` (with `--testing` or `--sandbox`): a broker reads
//! its own exchanges, filtered and paged newest first, one by its request id, and the report
//! of the spec's rules for clients judged from them, as JSON or JUnit XML.

use super::exchange::Exchange;
use super::junit;
use super::report::judge;
use crate::http::auth::Broker;
use crate::http::error::ApiError;
use crate::http::{App, app, param, reply};
use salvo::http::StatusCode;
use salvo::http::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use salvo::prelude::*;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// Exchanges on a page unless `limit` says otherwise, and the most it may say.
const PAGE: usize = 100;
const MAX_PAGE: usize = 1000;

pub fn router() -> Router {
    Router::new()
        .push(
            Router::with_path("testing/requests")
                .get(list)
                .push(Router::with_path("{request_id}").get(show)),
        )
        .push(Router::with_path("testing/report").get(client_report))
}

/// The calling broker: the log is read with a broker's own credentials.
fn broker<'a>(app: &'a App, req: &Request) -> Result<&'a Broker, ApiError> {
    app.brokers.caller(req)?.ok_or_else(|| {
        ApiError::forbidden_because(
            "a broker's request log is read with that broker's credentials (HTTP Basic, its key)",
        )
    })
}

fn query(req: &Request, name: &str) -> Option<String> {
    req.query::<String>(name).filter(|v| !v.is_empty())
}

fn invalid(name: &str, description: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "query", name, description)
}

/// The test clock each exchange was on: the one it named, else its record's (a record never
/// changes clocks), looked up once per record.
struct Clocks<'a> {
    app: &'a App,
    seen: HashMap<String, Option<String>>,
}

impl Clocks<'_> {
    fn of(&mut self, e: &Exchange) -> Option<String> {
        if let Some(clock) = &e.clock_header {
            return Some(clock.clone());
        }
        let t = e.touched()?;
        let store = &self.app.store;
        self.seen
            .entry(t.id.clone())
            .or_insert_with(|| match t.kind {
                "contract" => store
                    .read_contract(&t.id, |c| c.clock.as_ref().map(|c| c.to_string()))
                    .flatten(),
                _ => store
                    .read(&t.id, |r| r.clock.as_ref().map(|c| c.to_string()))
                    .flatten(),
            })
            .clone()
    }
}

/// A status filter: a class (`5xx`) or one status (`503`).
enum StatusFilter {
    Class(u16),
    Exact(u16),
}

impl StatusFilter {
    fn parse(text: &str) -> Option<StatusFilter> {
        let lower = text.to_ascii_lowercase();
        if let Some(class) = lower.strip_suffix("xx") {
            let class: u16 = class.parse().ok().filter(|c| (1..=5).contains(c))?;
            return Some(StatusFilter::Class(class));
        }
        lower
            .parse()
            .ok()
            .filter(|s| (100..=599).contains(s))
            .map(StatusFilter::Exact)
    }

    fn holds(&self, status: u16) -> bool {
        match self {
            StatusFilter::Class(c) => status / 100 == *c,
            StatusFilter::Exact(s) => status == *s,
        }
    }
}

/// The filters of a listing, each checked before anything is read.
struct Filters {
    record: Option<String>,
    clock: Option<String>,
    status: Option<StatusFilter>,
    method: Option<String>,
    path: Option<String>,
    since: Option<i64>,
}

impl Filters {
    fn parse(app: &App, req: &Request) -> Result<Filters, ApiError> {
        let status = match query(req, "status") {
            None => None,
            Some(text) => Some(StatusFilter::parse(&text).ok_or_else(|| {
                invalid(
                    "status",
                    format!("status should be a class such as 4xx or 5xx, or a status such as 503, not {text:?}"),
                )
            })?),
        };
        let since = match query(req, "since") {
            None => None,
            Some(text) => Some(app.zone.parse(&text).map(|t| t.micros()).ok_or_else(|| {
                invalid(
                    "since",
                    format!("since should be an ISO 8601 moment, not {text:?}"),
                )
            })?),
        };
        Ok(Filters {
            record: query(req, "record"),
            clock: query(req, "clock"),
            status,
            method: query(req, "method").map(|m| m.to_ascii_uppercase()),
            path: query(req, "path"),
            since,
        })
    }

    fn hold(&self, e: &Exchange, clocks: &mut Clocks<'_>) -> bool {
        self.record
            .as_ref()
            .is_none_or(|r| e.touched().is_some_and(|t| &t.id == r))
            && self.status.as_ref().is_none_or(|s| s.holds(e.status))
            && self.method.as_ref().is_none_or(|m| &e.method == m)
            && self
                .path
                .as_ref()
                .is_none_or(|p| e.path.starts_with(p.as_str()))
            && self.since.is_none_or(|since| e.at >= since)
            && self
                .clock
                .as_ref()
                .is_none_or(|c| clocks.of(e).as_ref() == Some(c))
    }
}

fn shown(app: &App, req: &Request, e: &Exchange) -> Value {
    let zone = app.zone;
    let at = |micros: i64| {
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1000)
            .map(|t| zone.at(t).to_string())
            .unwrap_or_default()
    };
    e.shown(at, &app.base_url(req))
}

/// `GET /testing/requests`: the caller's exchanges, newest first, filtered, a page at a time;
/// `next_page` leads to older ones.
#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let broker = broker(&app, req)?;
    let filters = Filters::parse(&app, req)?;
    let offset = match query(req, "offset") {
        None => None,
        Some(text) => Some(text.parse::<u64>().map_err(|_| {
            invalid(
                "offset",
                format!("offset should be the next_page.offset of an earlier page, not {text:?}"),
            )
        })?),
    };
    let limit = match query(req, "limit") {
        None => PAGE,
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|l| (1..=MAX_PAGE).contains(l))
            .ok_or_else(|| {
                invalid(
                    "limit",
                    format!("limit should be a number from 1 to {MAX_PAGE}, not {text:?}"),
                )
            })?,
    };
    let log = app.requests.of(&broker.name);
    let mut clocks = Clocks {
        app: &app,
        seen: HashMap::new(),
    };
    let page: Vec<&Arc<Exchange>> = log
        .iter()
        .rev()
        .filter(|e| offset.is_none_or(|o| e.seq < o))
        .filter(|e| filters.hold(e, &mut clocks))
        .take(limit)
        .collect();
    let next = match page.last() {
        Some(last) => last.seq.to_string(),
        None => offset.map(|o| o.to_string()).unwrap_or_default(),
    };
    let mut params: Vec<(String, String)> = req
        .queries()
        .iter()
        .filter(|(k, _)| k.as_str() != "offset")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    params.push(("offset".into(), next.clone()));
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    let path = format!("/testing/requests?{encoded}");
    let (kept, bytes) = app.requests.footprint(&broker.name);
    let body = json!({
        "next_page": {"offset": next, "path": path, "uri": format!("{}{path}", app.base_url(req))},
        "data": page.iter().map(|e| shown(&app, req, e)).collect::<Vec<_>>(),
        "log": {"kept": kept, "bound": app.requests.bound(), "bytes": bytes},
    });
    reply::ok_rendered(res, reply::to_text(&body, reply::wants_pretty(req)));
    Ok(())
}

/// `GET /testing/requests/{request_id}`: one of the caller's exchanges.
#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let broker = broker(&app, req)?;
    let id = param(req, "request_id");
    let log = app.requests.of(&broker.name);
    let e = log
        .iter()
        .find(|e| e.id == id)
        .ok_or_else(|| ApiError::not_found("request_id"))?;
    reply::ok(req, res, shown(&app, req, e));
    Ok(())
}

/// Whether the report is asked for as JUnit XML.
fn wants_junit(req: &Request) -> Result<bool, ApiError> {
    match query(req, "format").as_deref() {
        Some("junit" | "xml") => return Ok(true),
        Some("json") => return Ok(false),
        Some(other) => {
            return Err(invalid(
                "format",
                format!("format should be json or junit, not {other:?}"),
            ));
        }
        None => {}
    }
    let accept = req
        .headers()
        .get(ACCEPT)
        .and_then(|a| a.to_str().ok())
        .unwrap_or_default();
    Ok(accept.contains("application/xml") || accept.contains("text/xml"))
}

/// `GET /testing/report`: the spec's rules for clients judged from the caller's exchanges
/// (on one test clock with `clock=`).
#[handler]
pub async fn client_report(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let broker = broker(&app, req)?;
    let junit = wants_junit(req)?;
    let clock = query(req, "clock");
    let all = app.requests.of(&broker.name);
    let whole = all.len() < app.requests.bound();
    let mut clocks = Clocks {
        app: &app,
        seen: HashMap::new(),
    };
    let log: Vec<Arc<Exchange>> = match &clock {
        None => all,
        Some(c) => all
            .into_iter()
            .filter(|e| clocks.of(e).as_ref() == Some(c))
            .collect(),
    };
    let judged = judge(&log, whole);
    if junit {
        let name = match &clock {
            Some(c) => format!("{} on {c}", broker.name),
            None => broker.name.clone(),
        };
        res.status_code(StatusCode::OK);
        res.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/xml; charset=UTF-8"),
        );
        let _ = res.write_body(junit::render(&name, &judged));
        return Ok(());
    }
    let rules: Vec<Value> = judged
        .iter()
        .map(|j| {
            json!({
                "rule": j.rule.id,
                "title": j.rule.title,
                "spec": j.rule.spec,
                "words": j.rule.words,
                "passed": j.findings.is_empty(),
                "findings": j.findings,
            })
        })
        .collect();
    let failed = judged.iter().filter(|j| !j.findings.is_empty()).count();
    let zone = app.zone;
    let at = |e: Option<&Arc<Exchange>>| {
        e.and_then(|e| {
            time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(e.at) * 1000).ok()
        })
        .map(|t| Value::String(zone.at(t).to_string()))
        .unwrap_or(Value::Null)
    };
    reply::ok(
        req,
        res,
        json!({
            "broker": broker.name,
            "clock": clock,
            "exchanges": log.len(),
            "from": at(log.first()),
            "to": at(log.last()),
            "passed": failed == 0,
            "failed": failed,
            "rules": rules,
        }),
    );
    Ok(())
}
