//! `/tenders/{tender_id}/bids`: registered by brokers, each bid read and changed with its
//! own token; confidential while tendering and during the auction.

use crate::domain::bid::Bid;
use crate::domain::document::UrlStyle;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::{Change, Refusal};
use crate::http::auth::{Broker, presented_token};
use crate::http::error::{ApiError, Handled};
use crate::http::writes::Sent;
use crate::http::{App, app, guard, param, reply};
use salvo::prelude::*;

/// Bids are confidential while tendering and during the auction: `shown` says whether the
/// tender shows them now, else the read is refused in the words of upstream for `what`.
fn confidential<T: serde::Serialize>(
    t: &Tender,
    shown: bool,
    what: &str,
    pretty: bool,
    view: T,
) -> Result<Vec<u8>, Refusal> {
    if shown {
        Ok(reply::render(view, None, pretty))
    } else {
        Err(Refusal::phase(format!(
            "Can't view {what} in current ({}) tender status",
            t.status
        )))
    }
}

/// Answers what `read` renders of the tender the path names.
fn answer(
    app: &App,
    req: &Request,
    res: &mut Response,
    read: impl FnOnce(&Tender) -> Result<Vec<u8>, Refusal>,
) -> Handled {
    let text = app.store.read(&param(req, "tender_id"), read);
    reply::ok_rendered(res, text.ok_or_else(|| ApiError::not_found("tender_id"))??);
    Ok(())
}

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let pretty = reply::wants_pretty(req);
    answer(&app, req, res, |t| {
        let shown = t.status.reveals_bids() || t.status == TenderStatus::ActiveEnquiries;
        let bids: Vec<&Bid> = t.bids.iter().map(|b| &**b).collect();
        confidential(t, shown, "bids", pretty, bids)
    })
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "bid_id");
    let (broker, token) = (app.brokers.identify(req), presented_token(req, None));
    let pretty = reply::wants_pretty(req);
    answer(&app, req, res, |t| {
        let bid = t.bid(&id)?;
        let shown = t.status.reveals_bids() || guard::bidder(t, &id, broker, token.as_deref());
        confidential(t, shown, "bid", pretty, bid)
    })
}

/// Any accredited broker may bid while tendering; the answer carries the bid's token.
#[handler]
pub async fn place(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let tender_id = param(req, "tender_id");
    let (body, broker) = guard::participating(req, &app, &tender_id, "bid").await?;
    let data = body.data()?;
    let (cx, api_root) = (app.cx(), app.api_root(req));
    let filing = app.filing(req, UrlStyle::Signed);
    let pretty = reply::wants_pretty(req);
    let mut placed: Option<(String, Vec<u8>)> = None;
    app.store
        .update(
            &tender_id,
            |t, now| {
                let (bid, token) = t.place_bid(data, &cx, now, &broker.name, &api_root, &filing)?;
                placed = Some((bid.id.clone(), reply::render(bid, Some(&token), pretty)));
                Ok(Change::Silent)
            },
            |_| (),
        )
        .await?;
    let (id, text) = placed.unwrap_or_default();
    let location = format!("{api_root}/tenders/{tender_id}/bids/{id}");
    reply::created_rendered(res, &location, text);
    Ok(())
}

#[handler]
pub async fn change(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "bid_id"));
    let allowed = |t: &Tender, b: Option<&Broker>, tok: Option<&str>| guard::bidder(t, &id, b, tok);
    let body = guard::write(req, &app, &tender_id, |t| t.bid(&id).map(|_| ()), allowed).await?;
    let (data, cx, pretty) = (body.data()?, app.cx(), reply::wants_pretty(req));
    let text = app
        .store
        .update(
            &tender_id,
            |t, now| t.change_bid(&id, &Sent { data, cx: &cx, now }),
            |t| t.bid(&id).map(|bid| reply::render(bid, None, pretty)),
        )
        .await??;
    reply::ok_rendered(res, text);
    Ok(())
}

/// Withdrawal needs no body: the bid's credentials are enough.
#[handler]
pub async fn withdraw(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "bid_id"));
    guard::found(&app, &tender_id, |t| t.bid(&id).map(|_| ()))?;
    guard::permitted(&app, req, &tender_id, None, |t, b, tok| {
        guard::bidder(t, &id, b, tok)
    })?;
    let mut removed = None;
    app.store
        .update(
            &tender_id,
            |t, now| {
                let bid = t.withdraw_bid(&id, now)?;
                removed = Some(bid);
                Ok(Change::Silent)
            },
            |_| (),
        )
        .await?;
    reply::ok(req, res, removed);
    Ok(())
}
