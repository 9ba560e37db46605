//! `/auctions/{auction_id}` (a tender's id, or `{tender id}_{lot id}` for a lot): the auction's
//! page, for anyone to watch and, with a bidder's participation address, to bid from; and its
//! JSON interface beside it, which the page reads and scripts and the harness use:
//! `GET …/state` and `POST …/bids`.
//!
//! A participant is named by its participation address: `key_for_bid` (its bid's id) and
//! `hash` (the secret its address carries); a wrong secret is refused: 403, a page saying the
//! address is not valid to a browser, the error envelope to any other client. The address of
//! no auction is 404, likewise a page to a browser and the envelope to a client.

use super::view;
use crate::domain::Refusal;
use crate::domain::parse::FromJson;
use crate::domain::records::course::lots::LotRef;
use crate::domain::tender::Tender;
use crate::http::error::{ApiError, Handled, write_json};
use crate::http::pages::{self, Asset};
use crate::http::{App, app, body, param, reply};
use salvo::http::StatusCode;
use salvo::prelude::*;
use subtle::ConstantTimeEq;

const PAGE: &str = include_str!("page/page.html");

/// What a browser is shown for a participation address refused.
const INVALID: &str = include_str!("page/invalid.html");

/// What a browser is shown at the address of no auction.
const UNKNOWN: &str = include_str!("page/unknown.html");

/// The page's assets, served under `/auctions/assets/`.
pub const ASSETS: [Asset; 2] = [
    (
        "auction.css",
        "text/css; charset=utf-8",
        include_str!("page/auction.css"),
    ),
    (
        "auction.js",
        "text/javascript; charset=utf-8",
        include_str!("page/auction.js"),
    ),
];

const POLICY: &str = "default-src 'self'; style-src 'self'; img-src 'self' data:; \
     object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The tender and the lot an auction id names.
fn named(req: &Request) -> (String, LotRef) {
    let name = param(req, "auction_id");
    match name.split_once('_') {
        Some((tender, lot)) => (tender.to_string(), Some(lot.to_string())),
        None => (name, None),
    }
}

/// The participant the request names, as its place among the auction's bidders: `None` for
/// a viewer; refused when it names a bid that is no bidder, or with the wrong secret.
fn participant(req: &Request, tender: &Tender, lot: &LotRef) -> Result<Option<usize>, Refusal> {
    let Some(bid_id) = req.query::<String>("key_for_bid").filter(|b| !b.is_empty()) else {
        return Ok(None);
    };
    let hash = req.query::<String>("hash").unwrap_or_default();
    let refused = || Refusal::Forbidden {
        location: "url",
        name: "permission",
        description: "Forbidden".into(),
    };
    let live = tender
        .auction_of(lot)
        .0
        .live
        .as_deref()
        .ok_or_else(refused)?;
    let place = live.place(&bid_id).ok_or_else(refused)?;
    let secret = live.bidders[place].secret.as_bytes();
    if bool::from(secret.ct_eq(hash.as_bytes())) {
        Ok(Some(place))
    } else {
        Err(refused())
    }
}

/// Reads the auction; 404 `auction_id` when the tender, the lot or its auction is unknown.
fn read<T>(
    app: &App,
    req: &Request,
    f: impl FnOnce(&Tender, &LotRef) -> Result<Option<T>, Refusal>,
) -> Result<T, ApiError> {
    let (tender, lot) = named(req);
    app.store
        .read(&tender, |t| f(t, &lot))
        .ok_or_else(|| ApiError::not_found("auction_id"))??
        .ok_or_else(|| ApiError::not_found("auction_id"))
}

/// The page: the same for a viewer and a participant, whose script reads the state. A
/// participation address refused, or the address of no auction, is a page saying so to a
/// browser, the envelope to a client.
#[handler]
pub async fn page(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let named = read(&app, req, |t, lot| {
        Ok(match participant(req, t, lot) {
            Err(refused) => Some(Err(refused)),
            Ok(_) => t.auction_of(lot).1.map(|_| Ok(())),
        })
    });
    let named = match named {
        Ok(named) => named,
        Err(unknown) if pages::prefers_html(req) && unknown.status == StatusCode::NOT_FOUND => {
            pages::page_with(res, StatusCode::NOT_FOUND, POLICY, UNKNOWN);
            return Ok(());
        }
        Err(unknown) => return Err(unknown),
    };
    match named {
        Ok(()) => pages::page(res, POLICY, PAGE),
        Err(_) if pages::prefers_html(req) => {
            pages::page_with(res, StatusCode::FORBIDDEN, POLICY, INVALID);
        }
        Err(refused) => return Err(refused.into()),
    }
    Ok(())
}

#[handler]
pub async fn asset(req: &mut Request, res: &mut Response) -> Handled {
    pages::asset(req, res, &ASSETS)
}

/// `GET …/state`: the auction as it stands now.
#[handler]
pub async fn state(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let shown = read(&app, req, |t, lot| {
        let me = participant(req, t, lot)?;
        Ok(view::state(t, lot, app.store.now_for(t.clock_key()), me))
    })?;
    reply::ok(req, res, shown);
    Ok(())
}

/// `POST …/bids` with `{"data": {"bid": amount}}`: the participant's post in its turn.
#[handler]
pub async fn bid(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, lot) = named(req);
    let place = read(&app, req, |t, lot| Ok(Some(participant(req, t, lot)?)))?
        .ok_or_else(ApiError::forbidden)?;
    let body = body::read(req, app.max_body).await?;
    let data = body.data()?;
    let amount = match data.get("bid") {
        None => None,
        Some(v) if v.is_null() => None,
        Some(v) => Some(f64::from_json(v, &app.cx()).map_err(|p| {
            let (_, description) = p.leaves("bid").into_iter().next().unwrap_or_default();
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "body", "bid", description)
        })?),
    };
    let bidder = app
        .store
        .read(&tender_id, |t| {
            t.auction_of(&lot)
                .0
                .live
                .as_deref()
                .and_then(|l| l.bidders.get(place))
                .map(|b| b.bid_id.to_string())
        })
        .flatten()
        .ok_or_else(|| ApiError::not_found("auction_id"))?;
    app.store
        .update(
            &tender_id,
            |t, now| t.post_to_auction(&lot, &bidder, amount, now),
            |_| (),
        )
        .await?;
    let answer = serde_json::json!({"bid": amount, "bidder_id": bidder});
    write_json(res, StatusCode::OK, reply::render(answer, None, false));
    Ok(())
}

/// The auction's routes on the server's root.
pub fn router() -> Router {
    Router::with_path("auctions")
        .push(Router::with_path("assets/{asset}").get(asset))
        .push(
            Router::with_path("{auction_id}")
                .get(page)
                .push(Router::with_path("state").get(state))
                .push(Router::with_path("bids").post(bid)),
        )
}
