//! `GET /auctions/{tender_id}`: a small page describing the embedded auction.

use super::error::ApiError;
use super::{app, param};
use crate::domain::auction::ranking;
use crate::domain::tender::Tender;
use salvo::prelude::*;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page_of(t: &Tender) -> Option<String> {
    t.auction_url.as_ref()?;
    let start = t
        .auction_period
        .start_date
        .map(|d| d.to_string())
        .unwrap_or_default();
    let mut html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Auction {id}</title></head><body>\
         <h1>Auction of tender {id}</h1><p>{title}</p><p>Start: {start}</p>",
        id = escape(&t.tender_id),
        title = escape(&t.terms.title),
    );
    html.push_str("<h2>Participants</h2><ol>");
    for (i, _) in t.bids.iter().enumerate() {
        html.push_str(&format!("<li>Bidder {}</li>", i + 1));
    }
    html.push_str("</ol>");
    if let Some(end) = t.auction_period.end_date {
        html.push_str(&format!("<h2>Result</h2><p>Ended: {end}</p><ol>"));
        for bid in ranking(t.bids.iter(), &t.terms.features) {
            let alias = t
                .bids
                .iter()
                .position(|b| b.id == bid.id)
                .map_or(0, |i| i + 1);
            html.push_str(&format!(
                "<li>Bidder {alias}: {} {}</li>",
                bid.value.amount,
                escape(&bid.value.currency)
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
    let html = app
        .store
        .read(&param(req, "tender_id"), page_of)
        .flatten()
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    res.render(Text::Html(html));
    Ok(())
}
