//! The HTTP layer: routing, the envelope and errors, authentication, and one module per
//! resource. [`router`] reads like the spec's endpoint table.

pub mod auth;
mod awards;
mod bids;
pub mod body;
mod cancellations;
mod clock;
mod complaints;
mod dashboard;
mod docservice;
pub mod documents;
pub mod error;
mod faults;
pub mod guard;
mod index;
pub mod listing;
mod lots;
pub mod openapi;
pub mod pages;
mod questions;
pub mod reads;
pub mod reply;
mod tenders;
mod upload;
pub mod writes;

use crate::clock::clocks::Clocks;
use crate::domain::document::{Filing, UrlStyle};
use crate::domain::parse::Cx;
use crate::domain::time::{Timestamp, Zone};
use crate::faults::Faults;
use crate::files::Files;
use crate::files::signing::Signer;
use crate::store::Store;
use auth::Brokers;
use error::ApiError;
use salvo::catcher::Catcher;
use salvo::http::header::{HOST, HeaderValue};
use salvo::prelude::*;
use std::sync::Arc;
use std::time::Instant;

pub const API_PREFIX: &str = "/api/2.3";

/// Everything a request handler needs, shared by all requests of one server.
pub struct App {
    pub store: Arc<Store>,
    /// Every clock: the server's, and the brokers' own (records live on their owner's).
    pub clocks: Arc<Clocks>,
    pub brokers: Brokers,
    /// The document service's own users (`--ds-users`, or the brokers file's uploaders).
    pub ds_users: crate::files::users::Users,
    pub zone: Zone,
    /// The clock control API and faults on demand for anyone (`--testing`).
    pub testing: bool,
    /// The acceleration fields and faults on demand for each broker's own requests
    /// (`--sandbox`, and `--testing`).
    pub sandbox: bool,
    pub public_url: Option<String>,
    pub max_body: usize,
    /// The largest file an upload may carry, in bytes.
    pub max_upload: usize,
    /// The one signing key of every document address.
    pub signer: Signer,
    /// The document service's files.
    pub files: Arc<Files>,
    /// Refuse document addresses of other stores.
    pub refuse_foreign_documents: bool,
    /// Fault rules set through the fault API (with `--testing`).
    pub faults: Faults,
}

impl App {
    /// The server's own "now" (not a record's: the store reads that on the record's clock).
    pub fn server_now(&self) -> Timestamp {
        self.zone.at(self.clocks.server().now())
    }

    pub fn cx(&self) -> Cx {
        Cx {
            zone: self.zone,
            testing: self.sandbox,
        }
    }

    /// The server's public base address: `--public-url`, else the scheme the request came in
    /// on (`https` on a TLS listener) and its Host (HTTP/2 sends the authority instead).
    pub fn base_url(&self, req: &Request) -> String {
        if let Some(url) = &self.public_url {
            return url.trim_end_matches('/').to_string();
        }
        let host = req
            .headers()
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_string)
            .or_else(|| req.uri().authority().map(|a| a.as_str().to_owned()));
        let scheme = if *req.scheme() == salvo::http::uri::Scheme::HTTPS {
            "https"
        } else {
            "http"
        };
        format!(
            "{scheme}://{}",
            host.unwrap_or_else(|| req.local_addr().to_string())
        )
    }

    /// How documents written by this request are checked and shown; the document service
    /// is at the server's root.
    pub fn filing(&self, req: &Request, style: UrlStyle) -> Filing<'_> {
        Filing {
            signer: &self.signer,
            ds_root: self.base_url(req),
            ds_only: self.refuse_foreign_documents,
            style,
        }
    }

    /// `{base}/api/2.3`.
    pub fn api_root(&self, req: &Request) -> String {
        format!("{}{API_PREFIX}", self.base_url(req))
    }
}

/// The app of the current request.
pub fn app(depot: &Depot) -> Result<Arc<App>, ApiError> {
    depot.get_typed::<Arc<App>>().ok().cloned().ok_or_else(|| {
        ApiError::new(
            salvo::http::StatusCode::INTERNAL_SERVER_ERROR,
            "url",
            "state",
            "Server state is missing",
        )
    })
}

/// A path parameter (always present on the routes that use it).
pub fn param(req: &Request, name: &str) -> String {
    req.param::<String>(name).unwrap_or_default()
}

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

/// The whole API surface, in the order of the spec's endpoint table, with the clock control API
/// when `clock_api` and faults on demand when `faults_api`.
pub fn router(clock_api: bool, faults_api: bool) -> Router {
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
                .push(crate::contracting::api::router()),
        )
        .push(crate::auction::api::router());
    if clock_api {
        root = root.push(
            Router::with_path("testing/clock")
                .get(clock::show)
                .post(clock::set),
        );
    }
    if faults_api {
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
    }
    root
}

/// The service: the router with the shared state, the access log, the fault layer (inside the
/// log, so that the log line names the rule that hit a request) and JSON errors.
pub fn service(app: Arc<App>) -> Service {
    Service::new(router(app.sandbox, app.sandbox))
        .hoop(InjectApp(app.clone()))
        .hoop(access_log)
        .hoop(faults::Layer(app))
        .catcher(Catcher::default().hoop(error::catcher))
}
