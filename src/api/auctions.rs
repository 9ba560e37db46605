//! `GET /auctions/{tender_id}` (and `/auctions/{tender_id}_{lot_id}` for a lot): a small page
//! describing the embedded auction.

use super::error::ApiError;
use super::{app, param};
use crate::domain::auction::ranking;
use crate::domain::records::course::lots::LotRef;
use crate::domain::tender::Tender;
use salvo::prelude::*;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page of one lot's auction (the tender's own for the implicit lot).
fn page_of(t: &Tender, lot: &LotRef) -> Option<String> {
    let (period, url) = t.auction_of(lot);
    url?;
    let start = period.start_date.map(|d| d.to_string()).unwrap_or_default();
    let title = match lot {
        Some(id) => t.lot(id).ok()?.terms.title.as_str(),
        None => t.terms.title.as_str(),
    };
    let mut html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Auction {id}</title></head><body>\
         <h1>Auction of tender {id}</h1><p>{title}</p><p>Start: {start}</p>",
        id = escape(&t.tender_id),
        title = escape(title),
    );
    let offers = t.offers(lot);
    let alias = |bid_id: &str| {
        offers
            .iter()
            .position(|o| o.bid.id == bid_id)
            .map_or(0, |i| i + 1)
    };
    html.push_str("<h2>Participants</h2><ol>");
    for i in 0..offers.len() {
        html.push_str(&format!("<li>Bidder {}</li>", i + 1));
    }
    html.push_str("</ol>");
    if let Some(end) = period.end_date {
        html.push_str(&format!("<h2>Result</h2><p>Ended: {end}</p><ol>"));
        for offer in ranking(offers.clone(), &t.features_of(lot)) {
            html.push_str(&format!(
                "<li>Bidder {}: {} {}</li>",
                alias(&offer.bid.id),
                offer.value.amount,
                escape(&offer.value.currency)
            ));
        }
        html.push_str("</ol>");
    }
    html.push_str("</body></html>");
    Some(html)
}

#[handler]
pub async fn page(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    // A lot's auction is `{tender id}_{lot id}`.
    let name = param(req, "tender_id");
    let (tender_id, lot) = match name.split_once('_') {
        Some((tender, lot)) => (tender, Some(lot.to_string())),
        None => (name.as_str(), None),
    };
    let html = app
        .store
        .read(tender_id, |t| page_of(t, &lot))
        .flatten()
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    res.render(Text::Html(html));
    Ok(())
}
