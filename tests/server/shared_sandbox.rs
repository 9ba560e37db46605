//! Certifying on a shared sandbox disturbs nobody: against the built-in server started with
//! `--sandbox`, the harness finds test clocks, moves only its own (through the scenarios that
//! move time; the listing's page past another broker's tender), and leaves that tender and its
//! broker's clock as they were.

use serde_json::{Value, json};
use tender_certify::LiveOutput;
use tender_registry::Settings;

async fn get(client: &reqwest::Client, url: String, broker: Option<&str>) -> Value {
    let mut request = client.get(url);
    if let Some(broker) = broker {
        request = request.basic_auth(broker, Some(""));
    }
    let answer = request.send().await.expect("the server answers");
    assert_eq!(answer.status(), 200);
    answer.json().await.expect("JSON")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_certification_on_a_shared_sandbox_leaves_other_brokers_alone() {
    let server = test_support::serve(Settings {
        sandbox: true,
        ..Default::default()
    })
    .await;
    let base = server.base_url();
    let client = test_support::client();

    // Another broker's tender, its enquiries open for a day of real time.
    let now = get(&client, format!("{base}/testing/clock"), Some("broker1")).await["data"]["now"]
        .as_str()
        .expect("now")
        .to_string();
    let mut body = json!({"data": tender(&now)});
    body["data"]["title"] = json!("Тендер іншого брокера");
    let created = client
        .post(format!("{base}/api/2.3/tenders"))
        .basic_auth("broker1", Some(""))
        .json(&body)
        .send()
        .await
        .expect("created");
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.expect("JSON");
    let theirs = created["data"]["id"].as_str().expect("an id").to_string();
    let before = get(&client, format!("{base}/api/2.3/tenders/{theirs}"), None).await;

    let mut harness = tender_certify::Settings::new(base.clone());
    harness.progress = LiveOutput::Off;
    harness.fail_on_skip = true;
    harness.tags = Some("(@spec and @clock) or @ep-list".into());
    let report = tender_certify::certify(&harness, tender_certify::CucumberOpts::default())
        .await
        .unwrap();

    let unchecked = test_support::not_passed(&report);
    assert!(unchecked.is_empty(), "{unchecked:#?}");
    assert!(report.scenarios.len() > 10, "{}", report.terminal_summary());
    assert!(report.certified(), "{}", report.terminal_summary());
    // Time moved on the run's own test clocks, not on the broker's clock.
    let story = report.target_clock_story();
    assert!(story.starts_with("not moved by the run"), "{story}");
    let made = report
        .target_clock
        .test_clocks
        .as_ref()
        .map_or(0, |t| t.made.len());
    assert!(made > 0, "{:?}", report.target_clock);
    assert_eq!(
        get(&client, format!("{base}/api/2.3/tenders/{theirs}"), None).await,
        before,
        "the other broker's tender is as it was"
    );
    let clock = get(&client, format!("{base}/testing/clock"), Some("broker1")).await;
    assert_eq!(clock["data"]["own"], false, "broker1 moved nothing");
    let real = time::OffsetDateTime::now_utc();
    let shown = time::OffsetDateTime::parse(
        clock["data"]["now"].as_str().expect("now"),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("a moment");
    assert!(
        (shown - real).abs() < time::Duration::minutes(1),
        "broker1's clock (the server's) still reads the wall clock: {clock}"
    );
    server.stop().await;
}

/// A belowThreshold tender whose enquiries end a day after `now`.
fn tender(now: &str) -> Value {
    let at = |days: i64| {
        (time::OffsetDateTime::parse(now, &time::format_description::well_known::Rfc3339)
            .expect("a moment")
            + time::Duration::days(days))
        .format(&time::format_description::well_known::Rfc3339)
        .expect("formats")
    };
    let entity = json!({
        "name": "Школа №2", "kind": "general",
        "identifier": {"scheme": "UA-EDR", "id": "00037256"},
        "address": {"countryName": "Україна", "locality": "м. Київ"},
        "contactPoint": {"name": "Олена", "telephone": "0440000000"}
    });
    json!({
        "procurementMethodType": "belowThreshold",
        "title": "Папір",
        "value": {"amount": 500, "currency": "UAH"},
        "minimalStep": {"amount": 15, "currency": "UAH"},
        "enquiryPeriod": {"endDate": at(1)},
        "tenderPeriod": {"endDate": at(5)},
        "procuringEntity": entity,
        "items": [{
            "description": "Папір А4",
            "classification": {"scheme": "ДК021", "id": "30197630-1", "description": "Папір для друку"},
            "unit": {"code": "H87", "name": "штука"},
            "quantity": 10,
            "deliveryDate": {"endDate": at(30)},
            "deliveryAddress": {"countryName": "Україна", "locality": "м. Київ"}
        }]
    })
}
