//! The server's routes composed: [`router`] reads like the spec's endpoint table, over the
//! handlers of the API's resources (`api`), contract management (`contracting`) and the live
//! auction (`auction`); [`service`] wraps it in the shared state, the access log, the fault
//! layer and JSON errors.

use crate::api::{
    awards, bids, cancellations, clock, complaints, dashboard, docservice, documents, edr, faults,
    listing, lots, openapi, questions, tenders, test_clocks, test_tenders,
};
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
/// response.
#[handler]
async fn access_log(req: &mut Request, depot: &mut Depot, res: &mut Response, ctrl: &mut FlowCtrl) {
    let started = Instant::now();
    let request_id = format!("req-{}", crate::domain::ids::new_id());
    ctrl.call_next(req, depot, res).await;
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        res.headers_mut().insert("X-Request-ID", value);
    }
    let status = res.status_code.map_or(200, |s| s.as_u16());
    let micros = started.elapsed().as_micros() as u64;
    let (method, path) = (req.method(), req.uri().path());
    match depot.get::<(String, &str)>(faults::HIT_RULE) {
        Ok((rule, fault)) => tracing::info!(
            method = %method, path = %path, status, micros, request_id, fault_rule = %rule,
            fault, "request"
        ),
        Err(_) => tracing::info!(
            method = %method, path = %path, status, micros, request_id, "request"
        ),
    }
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
        .hoop(access_log)
        .catcher(Catcher::default().hoop(error::catcher))
}

/// The service: the router with the shared state, the access log, the rate of requests on a
/// server with one, the fault layer (inside the log, so that the log line names the rule that
/// hit a request; behind the rate, so that a refused request meets no fault) and JSON errors.
pub fn service(app: Arc<App>) -> Service {
    let mut service = Service::new(router(app.mode))
        .hoop(InjectApp(app.clone()))
        .hoop(access_log);
    if app.throttle.is_some() {
        service = service.hoop(Throttle(app.clone()));
    }
    service
        .hoop(faults::Layer(app))
        .catcher(Catcher::default().hoop(error::catcher))
}
