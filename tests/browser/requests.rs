//! The dashboard's request log and report: signed in, a broker sees its exchanges newest
//! first with the failed ones marked, filters them by status, opens one and reads both of its
//! bodies (the token masked) and the curl line that repeats it, follows a tender's page to the
//! exchanges that touched it, and reads its report naming the rules its platform broke.

use crate::{Dashboard, assert_shows, screenshot, sign_in, string, wait_for_text};
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_reads_its_requests_one_exchange_and_its_report() {
    let Some(dashboard) = Dashboard::start().await else {
        return;
    };
    let (base, client) = (&dashboard.base, &dashboard.client);
    // A careless platform: a creation answered 503 (stored all the same), repeated at once,
    // then a body sent as text/plain.
    let rule = dashboard
        .post_as_broker(
            "/testing/faults",
            json!({"match": {"method": "POST", "path": "/api/2.3/tenders"}, "fault": "error-after-commit"}),
        )
        .await;
    assert_eq!(rule["data"]["fault"], "error-after-commit", "{rule}");
    let failed = client
        .post(format!("{base}/api/2.3/tenders"))
        .basic_auth("broker", Some(""))
        .json(&crate::tender_body())
        .send()
        .await
        .expect("the server answers");
    assert_eq!(failed.status(), 503);
    let failed_id = failed
        .headers()
        .get("X-Request-ID")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let created = dashboard.create_tender(None).await;
    let id = string(&created["data"]["id"], "a tender");
    let token = string(&created["access"]["token"], "its token");
    let plain = client
        .post(format!("{base}/api/2.3/tenders"))
        .basic_auth("broker", Some(""))
        .header("Content-Type", "text/plain")
        .body("title=paper")
        .send()
        .await
        .expect("the server answers");
    assert_eq!(plain.status(), 415);

    let (driver, session) = dashboard
        .open(&format!("{base}/#/requests"), 1280, 1000)
        .await;
    sign_in(&session, "broker").await;
    session.goto(&format!("{base}/#/requests")).await;
    let row = |request: &str| format!("#requests tr[data-id='{request}']");
    session
        .wait_for(&row(&failed_id), Duration::from_secs(15))
        .await;
    let rows: Value = session
        .run(
            "return [...document.querySelectorAll('#requests tbody tr')].map(r => \
             [r.querySelector('td:nth-child(4)').textContent, r.className]);",
        )
        .await;
    // Newest first: the 415, the repeat, the 503, the fault rule; errors marked.
    assert_eq!(
        rows,
        json!([["415", "error"], ["201", ""], ["503", "error"], ["201", ""]]),
        "{rows}"
    );
    screenshot(&session, "dashboard-requests.png").await;

    // Filtered to the server's errors: the 503 alone.
    session
        .run("const s = document.getElementById('request-status'); s.value = '5xx'; s.dispatchEvent(new Event('change'));")
        .await;
    wait_for_text(
        &session,
        "#requests-count",
        "1 shown of 4 kept (the last 1000)",
    )
    .await;

    // One exchange: both bodies, the fault rule, the tender it made, the curl line.
    session.click_on(&format!("{} a", row(&failed_id))).await;
    assert_shows(&session, "#exchange-status", "503").await;
    let request = session.text_of("#exchange-request").await;
    assert!(
        request.contains("\"procurementMethodType\": \"belowThreshold\""),
        "{request}"
    );
    let response = session.text_of("#exchange-response").await;
    assert!(response.contains("Service Unavailable"), "{response}");
    let page = session.text_of("#request-view").await;
    assert!(page.contains("error-after-commit"), "{page}");
    assert!(page.contains("curl -X POST -u \"$BROKER_KEY:\""), "{page}");
    screenshot(&session, "dashboard-request.png").await;

    // The tender's page links to the exchanges that touched it: its creation.
    session.goto(&format!("{base}/#/tenders/{id}")).await;
    session
        .wait_for("#tender-requests", Duration::from_secs(15))
        .await;
    session.click_on("#tender-requests").await;
    let creation = created_request(&session).await;
    assert_eq!(creation.len(), 1, "{creation:?}");
    session.click_on("#requests tbody tr a").await;
    let shown = wait_for_text(&session, "#exchange-status", "201").await;
    assert_eq!(shown, "201");
    let response = session.text_of("#exchange-response").await;
    assert!(response.contains("\"token\": \"***\""), "{response}");
    assert!(
        !session.source().await.contains(&token),
        "the token is shown"
    );

    // The report: the broken rules, each with its exchanges.
    session.goto(&format!("{base}/#/report")).await;
    assert_shows(&session, "#report-verdict", "4 rule(s) broken").await;
    let broken: Value = session
        .run("return [...document.querySelectorAll('.rule.failed')].map(r => r.dataset.rule);")
        .await;
    assert_eq!(
        broken,
        json!(["errors-1", "errors-3", "two-phase", "conventions-2"])
    );
    let errors_1 = session.text_of(".rule[data-rule='errors-1']").await;
    assert!(errors_1.contains("Errors, rule 1"), "{errors_1}");
    assert!(errors_1.contains(&failed_id), "{errors_1}");
    screenshot(&session, "dashboard-report.png").await;
    dashboard.close(driver, session).await;
}

/// The rows of the request log once the page has drawn them from its filter.
async fn created_request(session: &crate::webdriver::Session) -> Vec<String> {
    let started = std::time::Instant::now();
    loop {
        let rows: Value = session
            .run("return [...document.querySelectorAll('#requests tbody tr')].map(r => r.dataset.id);")
            .await;
        let rows: Vec<String> = rows
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let filtered = session
            .run("return document.getElementById('request-record').value;")
            .await;
        if (filtered != "" && !rows.is_empty()) || started.elapsed() > Duration::from_secs(15) {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
