//! The HTTP plumbing every router shares (the API's resources in `api`, contract management
//! in `contracting`, the live auction in `auction`): the server's state ([`App`]), the
//! envelope and its errors, reading a body, who is calling, the checks of a write, the reads
//! and writes of a record's collections, document writes, received files, pages compiled
//! into the binary, and the loop that serves connections. It names none of the routers.

pub mod auth;
pub mod body;
pub mod bounds;
pub mod collection;
pub mod documents;
pub mod error;
pub mod guard;
pub mod pages;
pub mod reads;
pub mod reply;
pub mod serve;
pub mod throttle;
pub mod upload;
pub mod users;
pub mod writes;

use crate::clock::clocks::Clocks;
use crate::domain::document::{Filing, UrlStyle};
use crate::domain::parse::Cx;
use crate::domain::time::{Timestamp, Zone};
use crate::faults::Faults;
use crate::files::Files;
use crate::files::signing::Signer;
use crate::limits::Limits;
use crate::limits::rate::Limiter;
use crate::store::Store;
use auth::Brokers;
use error::ApiError;
use salvo::http::header::HOST;
use salvo::prelude::*;
use std::sync::Arc;

pub const API_PREFIX: &str = "/api/2.3";

/// What a server offers beyond the spec, as its flags choose it (`--testing` and `--sandbox`
/// exclude each other).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The spec's service alone, on the server's clock.
    Default,
    /// A public sandbox shared by brokers (`--sandbox`): each broker's own clock, faults and
    /// EDR answers for its own requests; the server's clock runs with the wall clock.
    Sandbox,
    /// A private sandbox its runner owns (`--testing`): the same, and the server's clock and
    /// every broker's faults for anyone to set.
    Testing,
}

impl Mode {
    pub fn of(testing: bool, sandbox: bool) -> Mode {
        match (testing, sandbox) {
            (true, _) => Mode::Testing,
            (false, true) => Mode::Sandbox,
            (false, false) => Mode::Default,
        }
    }

    /// What every sandbox offers: the acceleration fields, the clock control API and test
    /// clocks, faults on demand and EDR answers.
    pub fn offers_sandbox(self) -> bool {
        self != Mode::Default
    }

    /// A server its runner owns: the server's clock, and any broker's settings, anyone's.
    pub fn is_owned(self) -> bool {
        self == Mode::Testing
    }

    /// A sandbox shared by brokers, where each acts for itself alone.
    pub fn is_public(self) -> bool {
        self == Mode::Sandbox
    }
}

/// Everything a request handler needs, shared by all requests of one server.
pub struct App {
    pub store: Arc<Store>,
    /// Every clock: the server's, and the brokers' own (records live on their owner's).
    pub clocks: Arc<Clocks>,
    pub brokers: Brokers,
    /// The document service's own users (`--ds-users`, or the brokers file's uploaders).
    pub ds_users: users::Users,
    /// The EDR service's own users (the same files' `[platforms]`).
    pub edr_users: users::Users,
    pub zone: Zone,
    /// What the server offers beyond the spec: a sandbox's facilities, and whose they are.
    pub mode: Mode,
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
    /// What each broker may take of the server.
    pub limits: Limits,
    /// The buckets of the rate, when the server has one.
    pub throttle: Option<Limiter>,
    /// EDR answers set per code on demand (with `--testing` or `--sandbox`).
    pub edr_answers: crate::edr::Answers,
    /// Each broker's last exchanges (kept with `--testing` or `--sandbox`).
    pub requests: Arc<crate::requests::RequestLog>,
}

impl App {
    /// The server's own "now" (not a record's: the store reads that on the record's clock).
    pub fn server_now(&self) -> Timestamp {
        self.zone.at(self.clocks.server().now())
    }

    pub fn cx(&self) -> Cx {
        Cx {
            zone: self.zone,
            testing: self.mode.offers_sandbox(),
        }
    }

    /// Where the limits hold, in a refusal's words.
    pub fn place(&self) -> &'static str {
        if self.mode.offers_sandbox() {
            "this sandbox"
        } else {
            "this server"
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
            addresses: &self.signer,
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
