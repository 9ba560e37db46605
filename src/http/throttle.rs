//! The rate of requests each broker may send (see [`crate::limits::rate`]): a hoop of the
//! service, before the fault layer and every handler, on a server with a rate. A request past
//! its broker's rate (or, without a broker's credentials, its client address's) answers 429
//! with `Retry-After` and the envelope, and is not handled at all: a refused request changes
//! nothing.
//!
//! The refusal is answered after a hold of about a second ([`hold`]), not at once. Refusing
//! costs the server little, but a client that does not wait as `Retry-After` asks would
//! otherwise be refused as fast as the server can answer, and its refusals alone would take
//! the cores from every other broker; held, each of its connections sends about one request a
//! second. A client that waits as asked loses nothing by it: it would not have sent again
//! sooner. The holds differ (half a second to a second and a half), so that the connections
//! of one client held together do not all come back in the same instant.

use super::App;
use super::error::ApiError;
use crate::limits::rate::{Caller, Limiter, retry_after_seconds};
use crate::limits::rate_text;
use salvo::http::StatusCode;
use salvo::http::header::{HeaderValue, RETRY_AFTER};
use salvo::prelude::*;
use std::sync::Arc;
use std::time::Duration;

/// How long a request refused at `now` (nanoseconds of the limiter's time) waits for its
/// answer, no thread held meanwhile: from half a second to a second and a half, spread by the
/// moment of the refusal.
pub fn hold(now: u64) -> Duration {
    Duration::from_millis(500 + (now / 1000) % 1000)
}

/// The hoop, holding the server's state (whose limiter it takes tokens from).
pub struct Throttle(pub Arc<App>);

/// The refusal of a request of `caller` past the rate, `wait` before a token is free.
pub fn refusal(limiter: &Limiter, caller: Caller<'_>, wait: Duration) -> ApiError {
    let rate = rate_text(&limiter.rate());
    let seconds = retry_after_seconds(wait);
    let who = match caller {
        Caller::Broker(name) => format!("Broker {name} made more than {rate}"),
        Caller::Address(Some(address)) => format!(
            "Requests from {address} without a broker's credentials came at more than {rate}"
        ),
        Caller::Address(None) => {
            format!("Requests without a broker's credentials came at more than {rate}")
        }
    };
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "url",
        "too_many_requests",
        format!("{who}: retry after {seconds} s"),
    )
}

#[async_trait]
impl Handler for Throttle {
    async fn handle(
        &self,
        req: &mut Request,
        _depot: &mut Depot,
        res: &mut Response,
        ctrl: &mut FlowCtrl,
    ) {
        let Some(limiter) = &self.0.throttle else {
            return;
        };
        let caller = match self.0.brokers.identify(req) {
            Some(broker) => Caller::Broker(&broker.name),
            None => Caller::Address(req.remote_addr().ip()),
        };
        let now = limiter.now();
        let Err(wait) = limiter.take(caller, now) else {
            return;
        };
        let hold = hold(now);
        let wait = wait.saturating_sub(hold);
        let refused = refusal(limiter, caller, wait);
        tokio::time::sleep(hold).await;
        refused.render(res);
        let seconds = retry_after_seconds(wait).to_string();
        if let Ok(value) = HeaderValue::from_str(&seconds) {
            res.headers_mut().insert(RETRY_AFTER, value);
        }
        ctrl.skip_rest();
    }
}
