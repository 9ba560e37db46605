//! The server's routes composed: [`router`] reads like the spec's endpoint table, over the
//! handlers of the API's resources (`api`), contract management (`contracting`) and the live
//! auction (`auction`); [`service`] wraps it in the shared state, the access log, the fault
//! layer and JSON errors.

use crate::api::{
    awards, bids, cancellations, clock, complaints, dashboard, docservice, documents, edr, faults,
    listing, lots, openapi, questions, tenders, test_clocks, test_tenders,
};
use crate::http::serve::Lost;
use crate::http::throttle::Throttle;
use crate::http::{App, Mode, error, pages};
use salvo::catcher::Catcher;
use salvo::http::header::HeaderValue;
use salvo::prelude::*;
use std::sync::Arc;
use std::time::Instant;

struct InjectApp(Arc<App>);

#[async_trait]
impl Handler for InjectApp {
    async fn handle(
        &self,
        _req: &mut Request,
        depot: &mut Depot,
        _res: &mut Response,
        _ctrl: &mut FlowCtrl,
    ) {
        depot.insert_typed(self.0.clone());
    }
}

/// One log line per request, naming the fault rule that hit it if any (after a dropped
/// connection, `status` is what the client never received), and an `X-Request-ID` on every
/// response; with `journal`, the exchange in its broker's request log too (the test helper's
/// own requests are its one request's, not the broker's).
struct AccessLog {
    journal: bool,
}

#[async_trait]
impl Handler for AccessLog {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        ctrl: &mut FlowCtrl,
    ) {
        let started = Instant::now();
        let at = time::OffsetDateTime::now_utc();
        let request_id = format!("req-{}", crate::domain::ids::new_id());
        ctrl.call_next(req, depot, res).await;
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            res.headers_mut().insert("X-Request-ID", value);
        }
        let status = res.status_code.map_or(200, |s| s.as_u16());
        let micros = started.elapsed().as_micros() as u64;
        let hit = depot.get::<(String, &str)>(faults::HIT_RULE).ok();
        {
            let (method, path) = (req.method(), req.uri().path());
            match hit {
                Some((rule, fault)) => tracing::info!(
                    method = %method, path = %path, status, micros, request_id, fault_rule = %rule,
                    fault, "request"
                ),
                None => tracing::info!(
                    method = %method, path = %path, status, micros, request_id, "request"
                ),
            }
        }
        if self.journal {
            let fault = hit.map(|(rule, fault)| (rule.clone(), fault.to_string()));
            journal(req, depot, res, request_id, at, micros, status, fault).await;
        }
    }
}

/// Paths the request log leaves out: its own (a broker reading its log would fill it), and
/// the dashboard's requests, which are not the platform's.
fn unjournaled(req: &Request) -> bool {
    let path = req.uri().path();
    path.starts_with("/testing/requests")
        || path.starts_with("/testing/report")
        || path.starts_with("/assets/")
        || req.headers().contains_key("X-Tender-Dashboard")
}

/// Keeps the exchange in its broker's request log: the bodies as the request and the
/// response hold them (cheap clones of their buffers, cut past the log's cap), the masking
/// left to whoever shows or keeps it.
#[allow(clippy::too_many_arguments)]
async fn journal(
    req: &mut Request,
    depot: &Depot,
    res: &Response,
    id: String,
    at: time::OffsetDateTime,
    micros: u64,
    status: u16,
    fault: Option<(String, String)>,
) {
    use crate::requests::exchange::{Body, Exchange};
    use salvo::http::ResBody;
    use salvo::http::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
    let Ok(app) = crate::http::app(depot) else {
        return;
    };
    if app.requests.bound() == 0 || unjournaled(req) {
        return;
    }
    let Some(broker) = app.brokers.identify(req).map(|b| b.name.clone()) else {
        return;
    };
    let header = |name| {
        req.headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    let content_type = header(CONTENT_TYPE);
    let length = header(CONTENT_LENGTH)
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let clock_header = header(salvo::http::header::HeaderName::from_static(
        "x-testing-clock",
    ));
    let token_header = req.headers().contains_key("X-Access-Token");
    let method = req.method().as_str().to_string();
    let bodied = matches!(method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE");
    let multipart = content_type
        .as_deref()
        .is_some_and(|ct| ct.starts_with("multipart/"));
    // A body past the size limit was never read whole: only its size is told.
    let request = match bodied && !multipart && status != 413 {
        true => match req.payload_with_max_size(app.max_body).await {
            Ok(bytes) => Body::of(bytes),
            Err(_) => Body::counted(length),
        },
        false => Body::counted(length),
    };
    let response = match &res.body {
        ResBody::Once(bytes) => Body::of(bytes),
        ResBody::Chunks(chunks) => {
            let whole: Vec<u8> = chunks.iter().flat_map(|c| c.iter().copied()).collect();
            Body::of(&bytes::Bytes::from(whole))
        }
        _ => Body::default(),
    };
    let location = res
        .headers()
        .get(LOCATION)
        .or_else(|| depot.get::<HeaderValue>(faults::COMMITTED_AT).ok())
        .and_then(|l| l.to_str().ok())
        .map(str::to_string);
    let path = req.uri().path().to_string();
    let tender_token_on_bid = status == 403 && tender_token_on_bid(&app, req, &path);
    app.requests.record(Exchange {
        seq: 0,
        id,
        broker,
        at: (at.unix_timestamp_nanos() / 1000) as i64,
        micros,
        method,
        path,
        query: req.uri().query().map(str::to_string),
        status,
        lost: res.extensions.get::<Lost>().is_some(),
        fault,
        content_type,
        clock_header,
        token_header,
        tender_token_on_bid,
        location,
        request,
        response,
    });
}

/// A request to a bid refused with the token of the bid's tender.
fn tender_token_on_bid(app: &App, req: &Request, path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let Some(at) = parts.iter().position(|p| *p == "bids") else {
        return false;
    };
    if at != 5 || parts.len() <= 6 || parts.get(3) != Some(&"tenders") {
        return false;
    }
    let token = crate::http::auth::presented_token(req, None);
    let Some(token) = token else { return false };
    app.store
        .read(parts[4], |t| t.owner_token.matches(&token))
        .unwrap_or(false)
}

/// `documents` and `documents/{document_id}`, the same under a tender, a bid, an award, a
/// contract, a cancellation or a claim.
fn documents() -> Router {
    let one = Router::with_path("{document_id}")
        .get(documents::show)
        .patch(documents::describe)
        .put(documents::replace);
    Router::with_path("documents")
        .get(documents::list)
        .post(documents::upload)
        .push(one)
}

/// `complaints` and `complaints/{complaint_id}`, the same under a tender or an award.
fn complaints() -> Router {
    let one = Router::with_path("{complaint_id}")
        .get(complaints::show)
        .patch(complaints::change)
        .push(documents());
    Router::with_path("complaints")
        .get(complaints::list)
        .post(complaints::file)
        .push(one)
}

/// The whole API surface, in the order of the spec's endpoint table, with what a sandbox offers
/// where `mode` is one: the clock control API and test clocks, faults and EDR answers on demand.
pub fn router(mode: Mode) -> Router {
    let questions = Router::with_path("questions")
        .get(questions::list)
        .post(questions::ask)
        .push(
            Router::with_path("{question_id}")
                .get(questions::show)
                .patch(questions::answer),
        );
    let bid = Router::with_path("{bid_id}")
        .get(bids::show)
        .patch(bids::change)
        .delete(bids::withdraw)
        .push(documents());
    let bids = Router::with_path("bids")
        .get(bids::list)
        .post(bids::place)
        .push(bid);
    let awards = Router::with_path("awards").get(awards::list).push(
        Router::with_path("{award_id}")
            .get(awards::show)
            .patch(awards::decide)
            .push(documents())
            .push(complaints()),
    );
    let contract = Router::with_path("{contract_id}")
        .get(awards::contract)
        .patch(awards::change_contract)
        .push(documents());
    let contracts = Router::with_path("contracts")
        .get(awards::contracts)
        .push(contract);
    let lots = Router::with_path("lots")
        .get(lots::list)
        .post(lots::add)
        .push(
            Router::with_path("{lot_id}")
                .get(lots::show)
                .patch(lots::change)
                .delete(lots::delete),
        );
    let cancellations = Router::with_path("cancellations")
        .get(cancellations::list)
        .post(cancellations::add)
        .push(
            Router::with_path("{cancellation_id}")
                .get(cancellations::show)
                .patch(cancellations::change)
                .push(documents()),
        );
    let tender = Router::with_path("{tender_id}")
        .get(tenders::show)
        .patch(tenders::change)
        .push(documents())
        .push(lots)
        .push(questions)
        .push(bids)
        .push(awards)
        .push(contracts)
        .push(cancellations)
        .push(complaints());
    let tenders = Router::with_path("tenders")
        .get(listing::list)
        .head(listing::list)
        .post(tenders::create)
        .push(tender);
    let contracts = Router::with_path("contracts")
        .get(listing::contracts)
        .head(listing::contracts)
        .push(crate::contracting::api::router());
    let spore = Router::with_path("spore")
        .get(tenders::spore)
        .head(tenders::spore);
    let mut root = Router::new()
        .get(dashboard::page)
        .push(Router::with_path("assets/{asset}").get(dashboard::asset))
        .push(Router::with_path("favicon.ico").get(pages::favicon))
        .push(Router::with_path("openapi.json").get(openapi::serve))
        .push(docservice::router())
        .push(
            Router::with_path("api/2.3")
                .push(spore)
                .push(tenders)
                .push(contracts),
        )
        // Upstream's EDR service: every other version under /api.
        .push(edr::router())
        .push(crate::auction::api::router());
    if mode.offers_sandbox() {
        root = root.push(
            Router::with_path("testing/clock")
                .get(clock::show)
                .post(clock::set),
        );
        let clock = Router::with_path("{clock_id}")
            .get(test_clocks::show)
            .post(test_clocks::set)
            .delete(test_clocks::remove);
        root = root.push(
            Router::with_path("testing/clocks")
                .get(test_clocks::list)
                .post(test_clocks::create)
                .push(clock),
        );
        root = root.push(Router::with_path("testing/tenders").post(test_tenders::Create(driven)));
    }
    if mode.offers_sandbox() {
        let rule = Router::with_path("{fault_id}")
            .get(faults::show)
            .delete(faults::remove);
        root = root.push(
            Router::with_path("testing/faults")
                .get(faults::list)
                .post(faults::create)
                .delete(faults::clear)
                .push(rule),
        );
        root = root.push(edr::testing_router());
        root = root.push(crate::requests::api::router());
    }
    root
}

/// The service the test helper sends its own requests through: the same, without the fault
/// layer, so that faults set for a broker's requests never break a helper's procurement halfway,
/// and without the rate, which the request to the helper met (the bounds on what a broker
/// keeps hold for the helper's records as for any).
fn driven(app: Arc<App>) -> Service {
    Service::new(router(app.mode))
        .hoop(InjectApp(app))
        .hoop(AccessLog { journal: false })
        .catcher(Catcher::default().hoop(error::catcher))
}

/// The service: the router with the shared state, the access log, the rate of requests on a
/// server with one, the fault layer (inside the log, so that the log line names the rule that
/// hit a request; behind the rate, so that a refused request meets no fault) and JSON errors.
pub fn service(app: Arc<App>) -> Service {
    let mut service = Service::new(router(app.mode))
        .hoop(InjectApp(app.clone()))
        .hoop(AccessLog { journal: true });
    if app.throttle.is_some() {
        service = service.hoop(Throttle(app.clone()));
    }
    service
        .hoop(faults::Layer(app))
        .catcher(Catcher::default().hoop(error::catcher))
}
