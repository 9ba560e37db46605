//! `/tenders/{tender_id}/bids`: registered by brokers, each bid read and changed with its
//! own token; confidential while tendering and during the auction.

use crate::domain::bid::Bid;
use crate::domain::document::UrlStyle;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::{Change, Refusal};
use crate::http::auth::{Broker, Level, presented_token};
use crate::http::error::{ApiError, Handled};
use crate::http::writes::Sent;
use crate::http::{app, body, guard, param, reply};
use salvo::prelude::*;

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let pretty = reply::wants_pretty(req);
    let text = app.store.read(&param(req, "tender_id"), |t: &Tender| {
        if t.status.reveals_bids() || t.status == TenderStatus::ActiveEnquiries {
            let bids: Vec<&Bid> = t.bids.iter().map(|b| &**b).collect();
            Ok(reply::render(bids, None, pretty))
        } else {
            Err(Refusal::phase(format!(
                "Can't view bids in current ({}) tender status",
                t.status
            )))
        }
    });
    reply::ok_rendered(res, text.ok_or_else(|| ApiError::not_found("tender_id"))??);
    Ok(())
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "bid_id");
    let (broker, token) = (app.brokers.identify(req), presented_token(req, None));
    let pretty = reply::wants_pretty(req);
    let text = app.store.read(&param(req, "tender_id"), |t| {
        let bid = t.bid(&id)?;
        if t.status.reveals_bids() || guard::bidder(t, &id, broker, token.as_deref()) {
            Ok(reply::render(bid, None, pretty))
        } else {
            Err(Refusal::phase(format!(
                "Can't view bid in current ({}) tender status",
                t.status
            )))
        }
    });
    reply::ok_rendered(res, text.ok_or_else(|| ApiError::not_found("tender_id"))??);
    Ok(())
}

/// Any accredited broker may bid while tendering; the answer carries the bid's token.
#[handler]
pub async fn place(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let tender_id = param(req, "tender_id");
    let test_mode = app
        .store
        .read(&tender_id, |t| t.is_test())
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req).ok_or_else(ApiError::forbidden)?;
    let data = body.data()?;
    broker.may_create(Level::Participation, test_mode, "bid")?;
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
