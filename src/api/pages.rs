//! Pages served by the server itself (the dashboard, the auction's page): each compiled into
//! the binary with its assets, served under a strict Content-Security-Policy, never cached
//! stale.

use super::error::ApiError;
use super::param;
use salvo::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use salvo::prelude::*;

/// `(name, media type, text)` of a page's asset.
pub type Asset = (&'static str, &'static str, &'static str);

/// Writes `text` as `media_type`, to be revalidated on every use.
pub fn write(res: &mut Response, media_type: &'static str, text: &'static str) {
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res.write_body(text).ok();
}

/// Writes an HTML page kept to `policy`.
pub fn page(res: &mut Response, policy: &'static str, html: &'static str) {
    res.headers_mut()
        .insert("Content-Security-Policy", HeaderValue::from_static(policy));
    write(res, "text/html; charset=utf-8", html);
}

/// Writes the asset the path parameter `asset` names; 404 `asset` for another name.
pub fn asset(req: &Request, res: &mut Response, assets: &[Asset]) -> Result<(), ApiError> {
    let name = param(req, "asset");
    let (_, media_type, text) = assets
        .iter()
        .find(|(n, _, _)| *n == name)
        .ok_or_else(|| ApiError::not_found("asset"))?;
    write(res, media_type, text);
    Ok(())
}
