//! `GET /openapi.json`: an OpenAPI 3.1 description of everything this server routes.
//!
//! [`paths`] holds one entry per route, in the order of [`crate::routes::router`]; [`schemas`] the
//! shapes they exchange. `routes_of` walks a router, so a test can prove that the two agree.

#[cfg(test)]
mod drift;
mod links;
mod operation;
mod paths;
mod schemas;

use crate::http::{app, error::Handled, reply};
use crate::limits::Rate;
use salvo::prelude::*;
use salvo::routing::FilterInfo;
use serde_json::{Map, Value as Json, json};

/// The description of a server, with or without the clock control API (`--testing`) and the
/// fault API (`--testing` or `--sandbox`), as [`crate::routes::router`] takes them; on a
/// server with a `rate` every operation may answer 429.
pub fn document(clock_api: bool, faults_api: bool, rate: Option<&Rate>, server_url: &str) -> Json {
    let mut described = Map::new();
    for (path, mut item) in paths::paths(clock_api, faults_api) {
        if rate.is_some() {
            past_the_rate(&mut item);
        }
        described.insert(path.to_string(), item);
    }
    links::add(&mut described);
    let mut description = "The tender registry's JSON API under /api/2.3, the upstream \
        extensions it serves, the upstream services it also is (the document service, the EDR \
        service), its auction pages and dashboard, and, only on a server started with the \
        options its `x-only-with` names, the clock control API (--testing) and the fault API \
        and EDR answers on demand (--testing or --sandbox). Every error answers the envelope \
        {status: \"error\", errors: [{location, name, description}]}; the EDR service's \
        descriptions are lists, as upstream's service wrote them."
        .to_string();
    if let Some(rate) = rate {
        description.push_str(&format!(
            " This server takes at most {} from each broker (without a broker's credentials, \
             from each client address): a request past it answers 429 with Retry-After.",
            crate::limits::rate_text(rate)
        ));
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Tender Procurement Service Interface",
            "version": "2.3",
            "description": description,
        },
        "servers": [{"url": server_url}],
        "tags": paths::tags(clock_api || faults_api),
        "paths": described,
        "components": {
            "schemas": schemas::schemas(),
            "securitySchemes": schemas::security_schemes(),
            "responses": schemas::responses(),
            "headers": schemas::headers(),
            "parameters": schemas::parameters(),
        },
    })
}

#[handler]
pub async fn serve(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let rate = app.limits.rate;
    let document = document(
        app.mode.offers_sandbox(),
        app.mode.offers_sandbox(),
        rate.as_ref(),
        &app.base_url(req),
    );
    reply::ok_rendered(res, reply::to_text(&document, reply::wants_pretty(req)));
    Ok(())
}

/// Every operation of a path item may be answered 429 on a server with a rate: the rate is
/// taken before any route is.
fn past_the_rate(item: &mut Json) {
    let Some(methods) = item.as_object_mut() else {
        return;
    };
    for (method, operation) in methods {
        if !operation::METHODS.contains(&method.as_str()) {
            continue;
        }
        if let Some(responses) = operation.get_mut("responses").and_then(Json::as_object_mut) {
            responses.insert(
                "429".into(),
                json!({"$ref": "#/components/responses/Error429"}),
            );
        }
    }
}

/// Every `(path, method)` a router answers, with paths written as OpenAPI writes them
/// (`/api/2.3/tenders/{tender_id}`) and methods in lower case.
pub fn routes_of(router: &Router) -> Vec<(String, String)> {
    fn walk(router: &Router, prefix: &str, found: &mut Vec<(String, String)>) {
        let mut path = prefix.to_string();
        for filter in router.filters() {
            match filter.info() {
                FilterInfo::Path(segment) => {
                    path = format!("{}/{}", prefix.trim_end_matches('/'), segment);
                }
                FilterInfo::Method(method) => {
                    let at = if path.is_empty() { "/" } else { &path };
                    found.push((at.to_string(), method.as_str().to_lowercase()));
                }
                _ => {}
            }
        }
        for child in router.routers() {
            walk(child, &path, found);
        }
    }
    let mut found = Vec::new();
    walk(router, "", &mut found);
    found.sort();
    found
}

/// Every `(path, method)` a description names.
pub fn described_routes(document: &Json) -> Vec<(String, String)> {
    let mut found = Vec::new();
    if let Some(paths) = document["paths"].as_object() {
        for (path, item) in paths {
            for method in item.as_object().into_iter().flat_map(|o| o.keys()) {
                if operation::METHODS.contains(&method.as_str()) {
                    found.push((path.clone(), method.clone()));
                }
            }
        }
    }
    found.sort();
    found
}
