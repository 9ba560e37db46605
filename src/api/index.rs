//! `GET /` for whoever does not ask for the dashboard: what the server offers and where, as
//! JSON for a client that asks for JSON (with the server's time, in its zone), as short text
//! for anyone else (curl, a document service's status probe, which reads only the
//! `200 text/plain`).

use crate::http::{API_PREFIX, App, app, reply};
use salvo::http::header::{CONTENT_TYPE, HeaderValue};
use salvo::prelude::*;
use serde_json::{Value as Json, json};

/// What the server offers at `base`, by name: (name, address, what it is).
fn offers(app: &App, base: &str) -> Vec<(&'static str, String, &'static str)> {
    let mut all = vec![
        (
            "api",
            format!("{base}{API_PREFIX}/tenders"),
            "the tenders (JSON; Basic auth with a broker's key to write)",
        ),
        (
            "dashboard",
            format!("{base}/"),
            "the dashboard, in a browser",
        ),
        (
            "openapi",
            format!("{base}/openapi.json"),
            "OpenAPI 3.1 of every route",
        ),
        (
            "documents",
            format!("{base}/upload"),
            "the document service (POST /register, /upload; GET /get/{key})",
        ),
        (
            "edr",
            format!("{base}/api/1.0/verify"),
            "the EDR service (GET ?id=<code>; Basic auth as for documents)",
        ),
    ];
    if app.testing {
        all.push((
            "clock",
            format!("{base}/testing/clock"),
            "the clock control API (a broker's call moves that broker's own clock)",
        ));
    } else if app.sandbox {
        all.push((
            "clock",
            format!("{base}/testing/clock"),
            "each broker's own clock (with its credentials; the server's is not moved)",
        ));
    }
    if app.sandbox {
        all.push((
            "faults",
            format!("{base}/testing/faults"),
            "faults on demand",
        ));
        all.push((
            "edr-answers",
            format!("{base}/testing/edr"),
            "EDR answers on demand, per code",
        ));
    }
    all
}

fn accepts(req: &Request, media: &str) -> bool {
    req.headers()
        .get_all(salvo::http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains(media))
}

/// The index: JSON when asked for, short text otherwise.
pub async fn answer(req: &mut Request, depot: &mut Depot, res: &mut Response) {
    let Ok(app) = app(depot) else {
        return;
    };
    let base = app.base_url(req);
    let offered = offers(&app, &base);
    let version = env!("CARGO_PKG_VERSION");
    if accepts(req, "application/json") {
        let links: serde_json::Map<String, Json> = offered
            .iter()
            .map(|(name, url, _)| (name.to_string(), json!(url)))
            .collect();
        let data = json!({
            "name": "tender-registry",
            "version": version,
            "interface": "Tender Procurement Service Interface 2.3",
            "links": links,
            "now": app.zone.at(app.clocks.server().now()),
        });
        reply::ok(req, res, data);
        return;
    }
    let mut text =
        format!("tender-registry {version}: the Tender Procurement Service Interface 2.3\n\n");
    let width = offered
        .iter()
        .map(|(name, ..)| name.len())
        .max()
        .unwrap_or(0);
    for (name, url, what) in &offered {
        let indent = " ".repeat(width + 1);
        text.push_str(&format!("{name:<width$} {url}\n{indent}{what}\n"));
    }
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    res.write_body(text).ok();
}
