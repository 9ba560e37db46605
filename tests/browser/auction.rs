//! The auction's participant page in a real browser: a bidder opens its `participationUrl`,
//! gives its consent once, and in its turn posts a lower amount through the page's form; the
//! page says it was accepted, and the auction's result awards the bidder at that amount. The
//! address with a wrong secret is a page saying it is not valid.

use crate::webdriver::{Driver, Session};
use crate::{browser, screenshot, tender_body, testing_server, wait_for_text};
use serde_json::{Value, json};
use std::time::Duration;
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
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let (server, base) = testing_server().await;
    let client = test_support::client();
    let call = |request: reqwest::RequestBuilder| async move {
        let answer = request.send().await.expect("the server answers");
        let status = answer.status().as_u16();
        let body: Value = answer.json().await.expect("JSON");
        (status, body)
    };
    let move_clock = |now: String| {
        call(
            client
                .post(format!("{base}/testing/clock"))
                .json(&json!({"data": {"now": now}})),
        )
    };

    let (status, created) = call(
        client
            .post(format!("{base}/api/2.3/tenders"))
            .basic_auth("broker", Some(""))
            .json(&tender_body()),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["id"]
        .as_str()
        .expect("a tender")
        .to_string();
    let tendering = created["data"]["enquiryPeriod"]["endDate"]
        .as_str()
        .expect("a date")
        .to_string();
    move_clock(tendering).await;
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
            placed["data"]["id"].as_str().expect("a bid").to_string(),
            placed["access"]["token"]
                .as_str()
                .expect("a token")
                .to_string(),
        ));
    }
    let end = created["data"]["tenderPeriod"]["endDate"]
        .as_str()
        .expect("a date")
        .to_string();
    move_clock(end).await;
    let (broker, bid, token) = &bids[0];
    let (_, read) = call(
        client
            .get(format!(
                "{base}/api/2.3/tenders/{id}/bids/{bid}?acc_token={token}"
            ))
            .basic_auth(*broker, Some("")),
    )
    .await;
    let address = read["data"]["participationUrl"]
        .as_str()
        .expect("a participation address")
        .to_string();

    // Into the dearer bidder's first turn: it bids first, 480 being the higher amount.
    let (_, own) = call(client.get(interface(&address, "state"))).await;
    let turn = own["data"]["participant"]["nextTurn"]
        .as_str()
        .expect("its next turn")
        .to_string();
    move_clock(turn).await;

    let driver = Driver::start(&chromedriver).await;
    let session = Session::open(&driver, &chromium, 1280, 1000).await;
    session.goto(&address).await;
    // Upstream's suites press the first "btn btn-success" on the page: the consent's "Так".
    let consent = session
        .wait_for("button.btn.btn-success", Duration::from_secs(15))
        .await;
    assert_eq!(session.text(&consent).await, "Так");
    session.click(&consent).await;
    let most = wait_for_text(&session, "#max_bid_amount_price", "465,00").await;
    assert_eq!(
        most, "465,00",
        "480 less the minimal step, in upstream's format"
    );
    let input = session
        .wait_for("#bid-amount-input", Duration::from_secs(5))
        .await;
    session.type_text(&input, "440").await;
    let place = session
        .wait_for("#place-bid-button", Duration::from_secs(5))
        .await;
    session.click(&place).await;
    let accepted = wait_for_text(&session, "alert.bids-form-alert", "Заявку прийнято").await;
    assert_eq!(accepted, "Заявку прийнято");
    screenshot(&session, "auction.png").await;

    // The address with another secret: a page saying it is not valid, no bidding form.
    session.goto(&address.replace("&hash=", "&hash=0")).await;
    let refused = session
        .wait_for("#invalid-address", Duration::from_secs(15))
        .await;
    let said = session.text(&refused).await;
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

    // The dashboard shows the tender's auction stage, and links to its page.
    session.goto(&format!("{base}/#/tenders/{id}")).await;
    let stage = session
        .wait_for(".auction-stage", Duration::from_secs(15))
        .await;
    let shown = session.text(&stage).await;
    assert!(
        shown.starts_with("round 1: Учасник №1's turn until"),
        "{shown}"
    );
    let link = session
        .wait_for("a.auction-link", Duration::from_secs(5))
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
    let planned_end = tender["data"]["next_check"]
        .as_str()
        .expect("the auction's planned end")
        .to_string();
    move_clock(planned_end).await;
    let (_, tender) = call(client.get(format!("{base}/api/2.3/tenders/{id}"))).await;
    let award = &tender["data"]["awards"][0];
    assert_eq!(
        (award["bid_id"].as_str(), award["value"]["amount"].as_f64()),
        (Some(bid.as_str()), Some(440.0)),
        "{tender}"
    );
    server.stop().await;
}
