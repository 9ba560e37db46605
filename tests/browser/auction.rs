//! The auction's participant page in a real browser: a bidder opens its `participationUrl`,
//! gives its consent once, and in its turn posts a lower amount through the page's form; the
//! page says it was accepted (the refusal of a post too high before it gone), and the auction's
//! result awards the bidder at that amount. The address with a wrong secret is a page saying it
//! is not valid, that of no auction a page saying none is there; the dashboard says once when a
//! waiting auction starts.

use crate::{Dashboard, assert_shows, screenshot, string};
use serde_json::{Value, json};
use test_support::interface;

/// The auction's address for anyone: the participation address without its query.
fn tender_link(address: &str) -> Option<String> {
    address.split_once('?').map(|(page, _)| page.to_string())
}

fn bidder(name: &str, amount: u32) -> Value {
    json!({"data": {"value": {"amount": amount}, "tenderers": [{
        "name": name,
        "identifier": {"scheme": "UA-EDR", "id": "14360570"},
        "address": {"countryName": "Україна", "locality": "м. Київ"},
        "contactPoint": {"name": "Олена", "telephone": "0440000000"}
    }]}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bidder_posts_a_lower_amount_in_its_turn_from_its_page() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let (base, client) = (&dashboard.base, &dashboard.client);
    let call = test_support::call;
    let move_clock = |now: String| {
        call(
            client
                .post(format!("{base}/testing/clock"))
                .json(&json!({"data": {"now": now}})),
        )
    };

    let created = dashboard.create_tender(None).await;
    let id = string(&created["data"]["id"], "a tender");
    move_clock(string(
        &created["data"]["enquiryPeriod"]["endDate"],
        "a date",
    ))
    .await;
    let mut bids = Vec::new();
    for (broker, name, amount) in [
        ("broker1", "ТОВ Постачальник", 480),
        ("broker2", "ФОП Коваль", 450),
    ] {
        let (status, placed) = call(
            client
                .post(format!("{base}/api/2.3/tenders/{id}/bids"))
                .basic_auth(broker, Some(""))
                .json(&bidder(name, amount)),
        )
        .await;
        assert_eq!(status, 201, "{placed}");
        bids.push((
            broker,
            string(&placed["data"]["id"], "a bid"),
            string(&placed["access"]["token"], "a token"),
        ));
    }
    move_clock(string(
        &created["data"]["tenderPeriod"]["endDate"],
        "a date",
    ))
    .await;
    let (broker, bid, token) = &bids[0];
    let (_, read) = call(
        client
            .get(format!(
                "{base}/api/2.3/tenders/{id}/bids/{bid}?acc_token={token}"
            ))
            .basic_auth(*broker, Some("")),
    )
    .await;
    let address = string(&read["data"]["participationUrl"], "a participation address");

    // Before it starts, the dashboard says once when the auction starts.
    let (driver, session) = dashboard
        .open(&format!("{base}/#/tenders/{id}"), 1280, 1000)
        .await;
    let (_, waiting) = call(client.get(interface(&address, "state"))).await;
    let starts = format!(
        "starts {}",
        crate::short(&string(&waiting["data"]["startDate"], "its start"))
    );
    assert_shows(&session, ".auction-stage", &starts).await;
    session.close().await;
    drop(driver);

    // Into the dearer bidder's first turn: it bids first, 480 being the higher amount.
    let (_, own) = call(client.get(interface(&address, "state"))).await;
    move_clock(string(
        &own["data"]["participant"]["nextTurn"],
        "its next turn",
    ))
    .await;

    let (driver, session) = dashboard.open(&address, 1280, 1000).await;
    // Upstream's suites press the first "btn btn-success" on the page: the consent's "Так".
    let consent = session
        .wait_for("button.btn.btn-success", std::time::Duration::from_secs(15))
        .await;
    assert_eq!(session.text(&consent).await, "Так");
    session.click(&consent).await;
    // 480 less the minimal step, in upstream's format.
    assert_shows(&session, "#max_bid_amount_price", "465,00").await;
    let input = session
        .wait_for("#bid-amount-input", std::time::Duration::from_secs(5))
        .await;
    // Too high first: refused, in red; then lower, accepted: the newer message replaces it.
    session.type_text(&input, "470").await;
    session.click_on("#place-bid-button").await;
    assert_shows(&session, "alert.bids-form-alert", "Надто висока заявка").await;
    session.click_on("#clear-bid-button").await;
    session.type_text(&input, "440").await;
    session.click_on("#place-bid-button").await;
    // Read the moment the acceptance shows: the refusal would still stand (an alert lasts 4 s).
    let alerts = session
        .run_async(
            "const done = arguments[arguments.length - 1];
             const look = () => document.querySelector('alert.alert-success')
                 ? done([...document.querySelectorAll('alert.bids-form-alert')]
                     .map((a) => [a.className, a.textContent]))
                 : setTimeout(look, 20);
             look();",
        )
        .await;
    assert_eq!(
        alerts,
        json!([["bids-form-alert alert-success", "Заявку прийнято"]]),
        "the refusal is gone"
    );
    screenshot(&session, "auction.png").await;

    // The address with another secret: a page saying it is not valid, no bidding form.
    session.goto(&address.replace("&hash=", "&hash=0")).await;
    let said = session.text_of("#invalid-address").await;
    assert!(
        said.contains("This participation address is not valid"),
        "{said}"
    );
    assert!(session.find("#BidsForm").await.is_none(), "no bidding form");
    screenshot(&session, "auction-invalid.png").await;
    let watch = session
        .run("return document.getElementById('watch').href;")
        .await;
    assert_eq!(
        watch.as_str(),
        tender_link(&address)
            .map(|page| format!("{page}?"))
            .as_deref(),
        "a link to the auction for anyone"
    );

    // The address of no auction: a page saying so, not the JSON.
    let nowhere = format!("{base}/auctions/0123456789abcdef0123456789abcdef");
    session.goto(&nowhere).await;
    let said = session.text_of("#unknown-auction").await;
    assert!(
        said.contains("No auction is found at this address"),
        "{said}"
    );

    // The dashboard shows the tender's auction stage, and links to its page.
    session.goto(&format!("{base}/#/tenders/{id}")).await;
    let shown = session.text_of(".auction-stage").await;
    assert!(
        shown.starts_with("round 1: Учасник №1's turn until"),
        "{shown}"
    );
    let link = session
        .wait_for("a.auction-link", std::time::Duration::from_secs(5))
        .await;
    let href = session
        .run("return document.querySelector('a.auction-link').getAttribute('href');")
        .await;
    assert_eq!(
        href.as_str(),
        tender_link(&address).as_deref(),
        "the link is the auction's address for anyone: {link}"
    );
    session.close().await;
    drop(driver);

    let (_, own) = call(client.get(interface(&address, "state"))).await;
    assert_eq!(own["data"]["participant"]["posted"], 440.0, "{own}");
    let (_, tender) = call(client.get(format!("{base}/api/2.3/tenders/{id}"))).await;
    move_clock(string(
        &tender["data"]["next_check"],
        "the auction's planned end",
    ))
    .await;
    let (_, tender) = call(client.get(format!("{base}/api/2.3/tenders/{id}"))).await;
    let award = &tender["data"]["awards"][0];
    assert_eq!(
        (award["bid_id"].as_str(), award["value"]["amount"].as_f64()),
        (Some(bid.as_str()), Some(440.0)),
        "{tender}"
    );
    dashboard.server.stop().await;
}
