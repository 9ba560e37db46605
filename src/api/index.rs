//! `GET /` for whoever does not ask for the dashboard: what the server offers and where, as
//! JSON for a client that asks for JSON (with the server's time, in its zone), as short text
//! for anyone else (curl, a document service's status probe, which reads only the
//! `200 text/plain`).

use crate::files::Uploader;
use crate::http::{API_PREFIX, App, app, reply};
use crate::limits::{self, Kind};
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
    if app.mode.is_owned() {
        all.push((
            "clock",
            format!("{base}/testing/clock"),
            "the clock control API (a broker's call moves that broker's own clock)",
        ));
    } else if app.mode.offers_sandbox() {
        all.push((
            "clock",
            format!("{base}/testing/clock"),
            "each broker's own clock (with its credentials; the server's is not moved)",
        ));
    }
    if app.mode.offers_sandbox() {
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

/// What each broker may take of the server, as JSON: `null` for a limit the server does not
/// hold to (test clocks only where the server offers them).
fn limits_json(app: &App) -> Json {
    let l = &app.limits;
    json!({
        "appliesTo": "each broker; requests without a broker's credentials, each client address",
        "rate": l.rate.map(|r| json!({"requests": r.requests, "per": r.per.word(), "burst": r.burst})),
        "liveTenders": l.live_tenders,
        "testClocks": if app.mode.offers_sandbox() { json!(l.test_clocks) } else { Json::Null },
        "uploads": l.uploads,
        "uploadBytes": l.upload_bytes,
    })
}

/// What `broker` holds of each kind a bound counts.
struct Held {
    live_tenders: u64,
    test_clocks: u64,
    uploads: u64,
    upload_bytes: u64,
}

fn held(app: &App, broker: &str) -> Held {
    let files = app.files.held(&Uploader::Broker(broker.to_string()));
    Held {
        live_tenders: app.store.live_tenders_of(broker),
        test_clocks: app.clocks.tests().held_by(broker),
        uploads: files.files,
        upload_bytes: files.bytes,
    }
}

/// The limits in a line of words, or none when the server holds a broker to nothing.
fn limits_text(app: &App) -> Option<String> {
    let l = &app.limits;
    let mut parts = Vec::new();
    if let Some(rate) = &l.rate {
        parts.push(limits::rate_text(rate));
    }
    let bound = |kind: Kind, most: Option<u64>| most.map(|n| kind.amount(n));
    parts.extend(bound(Kind::LiveTenders, l.live_tenders));
    if app.mode.offers_sandbox() {
        parts.extend(bound(Kind::TestClocks, l.test_clocks));
    }
    parts.extend(bound(Kind::Uploads, l.uploads));
    parts.extend(bound(Kind::UploadBytes, l.upload_bytes));
    (!parts.is_empty()).then(|| parts.join("; "))
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
    // A broker's credentials add what it holds; others (none, or a name the server does not
    // know) see the limits alone: the index answers whoever asks.
    let broker = app
        .brokers
        .caller(req)
        .ok()
        .flatten()
        .map(|b| b.name.clone());
    let holding = broker.as_deref().map(|b| (b, held(&app, b)));
    if accepts(req, "application/json") {
        let links: serde_json::Map<String, Json> = offered
            .iter()
            .map(|(name, url, _)| (name.to_string(), json!(url)))
            .collect();
        let mut data = json!({
            "name": "tender-registry",
            "version": version,
            "interface": "Tender Procurement Service Interface 2.3",
            "links": links,
            "limits": limits_json(&app),
            "now": app.zone.at(app.clocks.server().now()),
        });
        if let Some((broker, h)) = &holding {
            data["held"] = json!({
                "broker": broker,
                "liveTenders": h.live_tenders,
                "testClocks": h.test_clocks,
                "uploads": h.uploads,
                "uploadBytes": h.upload_bytes,
            });
        }
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
    let indent = " ".repeat(width + 1);
    for (name, url, what) in &offered {
        text.push_str(&format!("{name:<width$} {url}\n{indent}{what}\n"));
    }
    match limits_text(&app) {
        Some(limits) => {
            text.push_str(&format!("{:<width$} each broker: {limits}\n", "limits"));
            if app.limits.rate.is_some() {
                text.push_str(&format!(
                    "{indent}(requests without a broker's credentials: each client address at \
                     the same rate)\n"
                ));
            }
        }
        None => text.push_str(&format!(
            "{:<width$} none: no rate, no bound on what a broker keeps\n",
            "limits"
        )),
    }
    if let Some((broker, h)) = &holding {
        let mut kinds = vec![Kind::LiveTenders.amount(h.live_tenders)];
        if app.mode.offers_sandbox() {
            kinds.push(Kind::TestClocks.amount(h.test_clocks));
        }
        kinds.push(format!(
            "{} ({})",
            Kind::Uploads.amount(h.uploads),
            limits::bytes(h.upload_bytes)
        ));
        text.push_str(&format!(
            "{:<width$} broker {broker}: {}\n",
            "held",
            kinds.join(", ")
        ));
    }
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    res.write_body(text).ok();
}
