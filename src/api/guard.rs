//! The checks every write under a tender shares, in upstream's order: the tender and the
//! record exist (404), the Content-Type is JSON (415), the credentials fit (403), and the body
//! holds a `data` object (422).

use super::App;
use super::auth::{Broker, presented_token};
use super::body::{self, Body};
use super::error::ApiError;
use crate::domain::Refusal;
use crate::domain::tender::Tender;
use salvo::prelude::*;

/// 404 unless the tender exists and `exists` finds the record under it.
pub fn found(
    app: &App,
    tender_id: &str,
    exists: impl FnOnce(&Tender) -> Result<(), Refusal>,
) -> Result<(), ApiError> {
    match app.store.read(tender_id, exists) {
        None => Err(ApiError::not_found("tender_id")),
        Some(result) => result.map_err(ApiError::from),
    }
}

/// 403 unless `allowed` accepts the request's broker and token.
pub fn permitted(
    app: &App,
    req: &Request,
    tender_id: &str,
    body_token: Option<&str>,
    allowed: impl FnOnce(&Tender, Option<&Broker>, Option<&str>) -> bool,
) -> Result<(), ApiError> {
    let broker = app.brokers.identify(req);
    let token = presented_token(req, body_token);
    if app
        .store
        .read(tender_id, |t| allowed(t, broker, token.as_deref()))
        .unwrap_or(false)
    {
        Ok(())
    } else {
        Err(ApiError::forbidden())
    }
}

/// All four checks of a write with a body; the body is returned with its `data` checked.
pub async fn write(
    req: &mut Request,
    app: &App,
    tender_id: &str,
    exists: impl FnOnce(&Tender) -> Result<(), Refusal>,
    allowed: impl FnOnce(&Tender, Option<&Broker>, Option<&str>) -> bool,
) -> Result<Body, ApiError> {
    found(app, tender_id, exists)?;
    let body = body::read(req, app.max_body).await?;
    permitted(app, req, tender_id, body.token(), allowed)?;
    body.data()?;
    Ok(body)
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
