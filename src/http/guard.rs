//! The checks every write shares, in upstream's order: the record (a tender, or a contract
//! under management, which `contracting` makes [`Kept`]) and the sub-record exist (404), the
//! Content-Type is JSON (415), the credentials fit (403), and the body holds a `data` object
//! (422).

use super::App;
use super::auth::{Broker, Level, presented_token};
use super::body::{self, Body};
use super::error::{ApiError, Handled};
use crate::domain::tender::Tender;
use crate::domain::time::Timestamp;
use crate::domain::{Change, Refusal};
use salvo::prelude::*;

/// A kind of record the API reads and writes by id: where it is read and changed, the path
/// of its collection, and the name its id takes in paths and in a 404.
pub trait Kept: Sized + Send + Sync + 'static {
    const PATH: &'static str;
    const ID: &'static str;
    fn read<R>(app: &App, id: &str, f: impl FnOnce(&Self) -> R) -> Option<R>;
    /// The store's write of the record: `op` on a copy, at "now" on its owner's clock;
    /// `view` of what it left.
    fn update<V: Send>(
        app: &App,
        id: &str,
        op: impl FnOnce(&mut Self, Timestamp) -> Result<Change, Refusal> + Send,
        view: impl FnOnce(&Self) -> V + Send,
    ) -> impl Future<Output = Result<V, Refusal>> + Send;
}

impl Kept for Tender {
    const PATH: &'static str = "tenders";
    const ID: &'static str = "tender_id";
    fn read<R>(app: &App, id: &str, f: impl FnOnce(&Tender) -> R) -> Option<R> {
        app.store.read(id, f)
    }
    fn update<V: Send>(
        app: &App,
        id: &str,
        op: impl FnOnce(&mut Tender, Timestamp) -> Result<Change, Refusal> + Send,
        view: impl FnOnce(&Tender) -> V + Send,
    ) -> impl Future<Output = Result<V, Refusal>> + Send {
        app.store.update(id, op, view)
    }
}

/// 404 unless the record exists and `exists` finds the sub-record under it.
pub fn found_in<K: Kept>(
    app: &App,
    id: &str,
    exists: impl FnOnce(&K) -> Result<(), Refusal>,
) -> Handled {
    match K::read(app, id, exists) {
        None => Err(ApiError::not_found(K::ID)),
        Some(result) => result.map_err(ApiError::from),
    }
}

/// 403 unless `allowed` accepts the request's broker and token.
pub fn permitted_in<K: Kept>(
    app: &App,
    req: &Request,
    id: &str,
    body_token: Option<&str>,
    allowed: impl FnOnce(&K, Option<&Broker>, Option<&str>) -> bool,
) -> Handled {
    let broker = app.brokers.identify(req);
    let token = presented_token(req, body_token);
    if K::read(app, id, |r| allowed(r, broker, token.as_deref())).unwrap_or(false) {
        Ok(())
    } else {
        Err(ApiError::forbidden())
    }
}

/// All four checks of a write with a body; the body is returned with its `data` checked.
pub async fn write_in<K: Kept>(
    req: &mut Request,
    app: &App,
    id: &str,
    exists: impl FnOnce(&K) -> Result<(), Refusal>,
    allowed: impl FnOnce(&K, Option<&Broker>, Option<&str>) -> bool,
) -> Result<Body, ApiError> {
    found_in(app, id, exists)?;
    let body = body::read(req, app.max_body).await?;
    permitted_in(app, req, id, body.token(), allowed)?;
    body.data()?;
    Ok(body)
}

/// The checks of a participant's creation under a tender (a bid, a question), in upstream's
/// order: the tender exists (404), the caller is an accredited broker (403), the body holds
/// `data` (422), and the broker may take part in a tender of its kind (403); the body and the
/// broker are returned.
pub async fn participating<'a>(
    req: &mut Request,
    app: &'a App,
    tender_id: &str,
    what: &str,
) -> Result<(Body, &'a Broker), ApiError> {
    let test_mode = app
        .store
        .read(tender_id, |t| t.is_test())
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req).ok_or_else(ApiError::forbidden)?;
    body.data()?;
    broker.may_create(Level::Participation, test_mode, what)?;
    Ok((body, broker))
}

/// [`found_in`] a tender.
pub fn found(
    app: &App,
    tender_id: &str,
    exists: impl FnOnce(&Tender) -> Result<(), Refusal>,
) -> Handled {
    found_in(app, tender_id, exists)
}

/// [`permitted_in`] a tender.
pub fn permitted(
    app: &App,
    req: &Request,
    tender_id: &str,
    body_token: Option<&str>,
    allowed: impl FnOnce(&Tender, Option<&Broker>, Option<&str>) -> bool,
) -> Handled {
    permitted_in(app, req, tender_id, body_token, allowed)
}

/// [`write_in`] a tender.
pub async fn write(
    req: &mut Request,
    app: &App,
    tender_id: &str,
    exists: impl FnOnce(&Tender) -> Result<(), Refusal>,
    allowed: impl FnOnce(&Tender, Option<&Broker>, Option<&str>) -> bool,
) -> Result<Body, ApiError> {
    write_in(req, app, tender_id, exists, allowed).await
}

/// The tender's owner: the broker that created it, presenting its token.
pub fn owner(t: &Tender, broker: Option<&Broker>, token: Option<&str>) -> bool {
    matches!((broker, token), (Some(b), Some(tok)) if b.name == t.owner && t.owner_token.matches(tok))
}

/// A bid's owner: the broker that placed it, presenting the bid's token.
pub fn bidder(t: &Tender, bid_id: &str, broker: Option<&Broker>, token: Option<&str>) -> bool {
    let Ok(bid) = t.bid(bid_id) else { return false };
    matches!((broker, token), (Some(b), Some(tok)) if b.name == bid.owner && bid.token.matches(tok))
}
