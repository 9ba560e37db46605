//! The faces of the server beside the JSON API: the OpenAPI description agrees with the
//! router, the dashboard and its assets and the server's icon are served, and a browser shown a
//! participation address refused, or the address of no auction, gets a page saying so.

use crate::common::{Reply, TestServer, text};
use serde_json::Value;
use std::collections::BTreeSet;
use tender_registry::api::openapi::{described_routes, routes_of};
use tender_registry::routes::router;
use tender_registry::{Mode, Settings};

type Routes = BTreeSet<(String, String)>;

async fn described(server: &TestServer) -> serde_json::Value {
    let reply = server.get("/openapi.json").send().await.assert_status(200);
    assert_eq!(reply.body["openapi"], "3.1.0");
    reply.body
}

/// `server`'s description, which must name exactly the routes of the router built `testing`
/// and `sandbox`: the description and those routes.
async fn described_as_routed(
    server: &TestServer,
    testing: bool,
    sandbox: bool,
) -> (serde_json::Value, Routes) {
    let document = described(server).await;
    let routed: Routes = routes_of(&router(Mode::of(testing, sandbox)))
        .into_iter()
        .collect();
    let described: Routes = described_routes(&document).into_iter().collect();
    let undescribed: Vec<_> = routed.difference(&described).collect();
    let unrouted: Vec<_> = described.difference(&routed).collect();
    assert!(
        undescribed.is_empty() && unrouted.is_empty(),
        "routed but not described in /openapi.json: {undescribed:?}\n\
         described but not routed: {unrouted:?}"
    );
    (document, routed)
}

#[tokio::test]
async fn every_route_is_described_and_every_described_path_is_routed() {
    let server = TestServer::start().await;
    let (document, routed) = described_as_routed(&server, true, true).await;
    assert!(routed.contains(&("/testing/clock".to_string(), "post".to_string())));
    assert!(routed.len() > 40, "the walk found only {routed:?}");
    for method in ["get", "post"] {
        assert_eq!(
            document["paths"]["/testing/clock"][method]["x-only-with"],
            serde_json::json!(["--testing", "--sandbox"])
        );
    }
    assert_eq!(
        document["paths"]["/testing/faults"]["post"]["x-only-with"],
        serde_json::json!(["--testing", "--sandbox"])
    );
}

#[tokio::test]
async fn without_testing_the_description_has_no_testing_paths() {
    let server = TestServer::start_with(Settings::default()).await;
    let (document, _) = described_as_routed(&server, false, false).await;
    assert!(document["paths"].get("/testing/clock").is_none());
    assert_eq!(server.get("/testing/clock").send().await.status, 404);
}

#[tokio::test]
async fn a_sandbox_describes_its_fault_api_and_the_brokers_clocks() {
    let server = TestServer::sandbox().await;
    let (document, routed) = described_as_routed(&server, true, true).await;
    assert!(routed.contains(&("/testing/faults".to_string(), "post".to_string())));
    assert!(document["paths"].get("/testing/clock").is_some());
}

#[tokio::test]
async fn every_reference_of_the_description_resolves() {
    let server = TestServer::start().await;
    let document = described(&server).await;
    let mut missing = Vec::new();
    fn walk(value: &serde_json::Value, root: &serde_json::Value, missing: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(target) = map.get("$ref").and_then(|r| r.as_str()) {
                    let pointer = target.trim_start_matches('#');
                    if root.pointer(pointer).is_none() {
                        missing.push(target.to_string());
                    }
                }
                map.values().for_each(|v| walk(v, root, missing));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, root, missing)),
            _ => {}
        }
    }
    walk(&document, &document, &mut missing);
    assert!(missing.is_empty(), "unresolved references: {missing:?}");
    for scheme in ["broker", "acc_token", "X-Access-Token"] {
        assert!(
            document["components"]["securitySchemes"][scheme].is_object(),
            "{scheme}"
        );
    }
    assert_eq!(
        document["components"]["schemas"]["Error"]["required"],
        serde_json::json!(["status", "errors"])
    );
}

/// `/` asked for `accept`: answered 200 with `content_type`.
async fn index_as(server: &TestServer, accept: &str, content_type: &str) -> Reply {
    let r = server.get("/").header("Accept", accept).send().await;
    assert_eq!(r.status, 200, "{accept}");
    assert_eq!(r.header("content-type"), Some(content_type), "{accept}");
    r
}

#[tokio::test]
async fn the_dashboard_and_its_assets_are_served_from_the_binary() {
    let server = TestServer::start().await;
    let html = "text/html,application/xhtml+xml";
    let page = index_as(&server, html, "text/html; charset=utf-8").await;
    assert!(page.text.contains("/assets/script.js"), "{}", page.text);
    assert!(
        page.header("content-security-policy")
            .is_some_and(|p| p.starts_with("default-src 'self'"))
    );
    for (name, media_type) in [
        ("style.css", "text/css; charset=utf-8"),
        ("script.js", "text/javascript; charset=utf-8"),
    ] {
        let asset = server.get(&format!("/assets/{name}")).send().await;
        assert_eq!(asset.status, 200, "{name}");
        assert_eq!(asset.header("content-type"), Some(media_type), "{name}");
        assert!(!asset.text.is_empty());
    }
    // Without asking for HTML, `/` is the server's index: short text for curl and a
    // document service's status probe (a 200 text/plain), JSON for a client that asks.
    let plain = index_as(&server, "*/*", "text/plain; charset=UTF-8").await;
    for line in [
        format!("{}/api/2.3/tenders", server.base),
        format!("{}/openapi.json", server.base),
        format!("{}/testing/clock", server.base),
    ] {
        assert!(plain.text.contains(&line), "{line} in {}", plain.text);
    }
    let json = index_as(
        &server,
        "application/json",
        "application/json; charset=UTF-8",
    )
    .await;
    assert_eq!(json.body["data"]["name"], "tender-registry");
    assert_eq!(
        json.body["data"]["links"]["api"],
        format!("{}/api/2.3/tenders", server.base)
    );
    assert_eq!(
        json.body["data"]["now"],
        server.now().await,
        "the server's time, in its zone, as the clock shows it"
    );
    let bare = TestServer::start_with(tender_registry::Settings::default()).await;
    let bare_index = bare
        .get("/")
        .header("Accept", "application/json")
        .send()
        .await;
    let now = text(&bare_index.body["data"]["now"]);
    assert!(
        now.ends_with("+02:00") || now.ends_with("+03:00"),
        "without a clock API too, in Kyiv's offset: {now}"
    );
    let index = bare.get("/").send().await;
    assert!(
        !index.text.contains("/testing/"),
        "no clock or faults without --testing: {}",
        index.text
    );
    let missing = server.get("/assets/secret.txt").send().await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.error().0, "url");
}

#[tokio::test]
async fn the_icon_every_browser_asks_for_is_served() {
    let server = TestServer::start().await;
    let icon = server.get("/favicon.ico").send().await;
    assert_eq!(icon.status, 200);
    assert_eq!(icon.header("content-type"), Some("image/x-icon"));
    assert_eq!(icon.header("cache-control"), Some("no-cache"));
    let asset = server.get("/assets/style.css").send().await;
    assert_eq!(
        icon.header("cache-control"),
        asset.header("cache-control"),
        "cached as the other assets are"
    );
    let bytes = reqwest::get(server.url("/favicon.ico"))
        .await
        .expect("the server answers")
        .bytes()
        .await
        .expect("a body");
    // An icon directory (reserved 0, type 1) of one image or more.
    assert_eq!(&bytes[..4], b"\0\0\x01\0", "no ICO: {:?}", &bytes[..8]);
    assert!(bytes[4] > 0);
}

/// A tender in its auction with two bids: the first bid's participation address.
async fn participation_address(server: &TestServer) -> String {
    let (id, _) = server.tendering().await;
    let (bid, token) = server.bid(&id, 480.0).await;
    server.bid(&id, 450.0).await;
    server.until_status(&id, "active.auction").await;
    let read = server.bidder(&token).get(&format!("{id}/bids/{bid}")).await;
    let address = text(&read.body["data"]["participationUrl"]);
    assert!(address.contains("&hash="), "{}", read.text);
    address
}

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

#[tokio::test]
async fn a_browser_is_told_a_participation_address_is_not_valid_and_a_client_gets_the_envelope() {
    let server = TestServer::start().await;
    let address = participation_address(&server).await;
    let (page, _) = address.split_once('?').unwrap_or((&address, ""));
    let wrong_secret = address.replace("&hash=", "&hash=0");
    let no_bidder = format!("{page}?key_for_bid=nobody&hash=0");

    // The right address is the auction's page, to a browser and to anyone.
    let right = server.get(&address).header("Accept", BROWSER).send().await;
    assert_eq!(right.status, 200);
    assert!(right.text.contains("id=\"BidsForm\""), "{}", right.text);

    for wrong in [&wrong_secret, &no_bidder] {
        let shown = server.get(wrong).header("Accept", BROWSER).send().await;
        assert_eq!(shown.status, 403, "{wrong}: {}", shown.text);
        assert_eq!(
            shown.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(
            shown
                .header("content-security-policy")
                .is_some_and(|p| p.starts_with("default-src 'self'"))
        );
        assert!(
            shown
                .text
                .contains("This participation address is not valid"),
            "{}",
            shown.text
        );
        assert!(!shown.text.contains("BidsForm"), "no bidding form");
        assert_eq!(shown.body, Value::Null, "no JSON to a browser");

        for accept in [None, Some("application/json"), Some("*/*")] {
            let mut call = server.get(wrong);
            if let Some(accept) = accept {
                call = call.header("Accept", accept);
            }
            let answer = call.send().await;
            assert_eq!(answer.status, 403, "{accept:?}");
            assert_eq!(
                answer.body,
                serde_json::json!({"status": "error", "errors": [
                    {"location": "url", "name": "permission", "description": "Forbidden"}
                ]}),
                "{accept:?}: {}",
                answer.text
            );
        }
    }
}

/// The address of no auction (an unknown id, a tender without one) is a page saying so to a
/// browser, 404, and the envelope to any other client.
#[tokio::test]
async fn a_browser_is_told_no_auction_is_there_and_a_client_gets_the_envelope() {
    let server = TestServer::start().await;
    let (without, _, _) = server.published().await;
    for id in [
        crate::common::UNKNOWN_ID.to_string(),
        without,
        format!("{}_lot", crate::common::UNKNOWN_ID),
    ] {
        let page = format!("/auctions/{id}");
        let shown = server.get(&page).header("Accept", BROWSER).send().await;
        assert_eq!(shown.status, 404, "{page}: {}", shown.text);
        assert_eq!(
            shown.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(
            shown
                .header("content-security-policy")
                .is_some_and(|p| p.starts_with("default-src 'self'"))
        );
        assert!(
            shown.text.contains("id=\"unknown-auction\"")
                && shown.text.contains("No auction is found at this address"),
            "{}",
            shown.text
        );
        for accept in [None, Some("application/json"), Some("*/*")] {
            let mut call = server.get(&page);
            if let Some(accept) = accept {
                call = call.header("Accept", accept);
            }
            call.send()
                .await
                .assert_refused(404, "url", "auction_id", "Not Found");
        }
        server
            .get(&format!("{page}/state"))
            .header("Accept", BROWSER)
            .send()
            .await
            .assert_refused(404, "url", "auction_id", "Not Found");
    }
}
