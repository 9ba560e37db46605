//! Pages served by the server itself (the dashboard, the auction's page): each compiled into
//! the binary with its assets, served under a strict Content-Security-Policy, never cached
//! stale; the server's icon; and whether a request is a browser's, which prefers HTML.

use super::error::{ApiError, Handled};
use super::param;
use salvo::http::StatusCode;
use salvo::http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use salvo::prelude::*;

/// `(name, media type, text)` of a page's asset.
pub type Asset = (&'static str, &'static str, &'static str);

/// The icon browsers ask every site for at `/favicon.ico`: 16 and 32 pixels.
const FAVICON: &[u8] = include_bytes!("favicon.ico");

/// Writes `body` as `media_type`, to be revalidated on every use.
pub fn write(res: &mut Response, media_type: &'static str, body: &'static [u8]) {
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res.write_body(body).ok();
}

/// Writes an HTML page kept to `policy`.
pub fn page(res: &mut Response, policy: &'static str, html: &'static str) {
    res.headers_mut()
        .insert("Content-Security-Policy", HeaderValue::from_static(policy));
    write(res, "text/html; charset=utf-8", html.as_bytes());
}

/// Writes an HTML page kept to `policy` with `status` (a refusal shown to a browser).
pub fn page_with(res: &mut Response, status: StatusCode, policy: &'static str, html: &'static str) {
    res.status_code(status);
    page(res, policy, html);
}

/// Writes the asset the path parameter `asset` names; 404 `asset` for another name.
pub fn asset(req: &Request, res: &mut Response, assets: &[Asset]) -> Handled {
    let name = param(req, "asset");
    let (_, media_type, text) = assets
        .iter()
        .find(|(n, _, _)| *n == name)
        .ok_or_else(|| ApiError::not_found("asset"))?;
    write(res, media_type, text.as_bytes());
    Ok(())
}

/// `GET /favicon.ico`: without it every page's visit logs a 404 in the browser's console.
#[handler]
pub async fn favicon(res: &mut Response) {
    write(res, "image/x-icon", FAVICON);
}

/// The quality `accept` (an `Accept` header's value) gives `media`: that of its most specific
/// range matching it, 0 when none does.
fn quality(accept: &str, media: &str) -> f32 {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    let mut best = (0, 0.0);
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
            .and_then(|(_, v)| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let specificity = if name == media {
            3
        } else if name.strip_suffix("/*") == Some(kind) {
            2
        } else if name == "*/*" {
            1
        } else {
            0
        };
        if specificity > best.0 {
            best = (specificity, q);
        }
    }
    best.1
}

/// Whether the request prefers an HTML page to JSON, as a browser's `Accept` does; a client
/// that sends none, JSON, or `*/*` does not.
pub fn prefers_html(req: &Request) -> bool {
    let accept = req
        .headers()
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    quality(&accept, "text/html") > quality(&accept, "application/json")
}

#[cfg(test)]
mod tests {
    use super::quality;

    #[test]
    fn a_browser_prefers_html_and_a_client_json() {
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert!(quality(browser, "text/html") > quality(browser, "application/json"));
        for client in [
            "",
            "*/*",
            "application/json",
            "application/json, text/html;q=0.5",
        ] {
            assert!(
                quality(client, "text/html") <= quality(client, "application/json"),
                "{client:?}"
            );
        }
        assert_eq!(quality("text/*;q=0.3, */*;q=0.1", "text/html"), 0.3);
        assert_eq!(quality("TEXT/HTML; Q=0.4", "text/html"), 0.4);
    }
}
