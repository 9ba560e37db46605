//! The dashboard at `/`: one page, its script and its style sheet, compiled into the binary.
//! A request that does not prefer HTML (curl, a client, a document service's status probe)
//! gets the server's index instead.
//!
//! The page is static; its script reads the public JSON API as any anonymous client does,
//! so it can show nothing the API hides from the public. A strict Content-Security-Policy
//! keeps the page to its own assets.

use crate::http::error::Handled;
use crate::http::pages::{self, Asset};
use salvo::prelude::*;

const PAGE: &str = include_str!("page.html");

const ASSETS: [Asset; 2] = [
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("style.css"),
    ),
    (
        "script.js",
        "text/javascript; charset=utf-8",
        include_str!("script.js"),
    ),
];

const POLICY: &str = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
     object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

#[handler]
pub async fn page(req: &mut Request, depot: &mut Depot, res: &mut Response) {
    if !pages::prefers_html(req) {
        super::index::answer(req, depot, res).await;
        return;
    }
    pages::page(res, POLICY, PAGE);
}

#[handler]
pub async fn asset(req: &mut Request, res: &mut Response) -> Handled {
    pages::asset(req, res, &ASSETS)
}
