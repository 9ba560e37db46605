//! The certifier toward a shared target: a read answered `429` or `503` with `Retry-After` is
//! asked again after the wait it names, and the certificate counts such waits; a write answered
//! 503 is never repeated, one answered 429 (refused undone) is; a read left unanswered past
//! `--timeout` is asked again at a slower pace, and one that never answers fails its scenario,
//! naming the request. A front in this test stands before the built-in server and answers as a
//! busy, throttling or stalled deployment would.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use salvo::conn::tcp::TcpAcceptor;
use salvo::http::{HeaderName, HeaderValue, StatusCode};
use salvo::prelude::*;
use tender_certify::{CucumberOpts, RunReport, outcome::Verdict};

/// How the front misbehaves.
#[derive(Clone, Copy)]
enum Busy {
    /// The first `n` reads of a tender, and the first creation, answer 503 with `Retry-After: 1`.
    AskToWait { n: usize },
    /// The run's first creation answers 429 with `Retry-After: 1`.
    Throttle,
    /// The first `n` reads of a tender are held longer than the run's timeout.
    Stall { n: usize },
}

struct Front {
    upstream: String,
    host: String,
    client: reqwest::Client,
    busy: Busy,
    tender_reads: AtomicUsize,
    creations: AtomicUsize,
}

/// `GET /api/2.3/tenders/{id}`, the read of one tender.
fn reads_a_tender(req: &Request) -> bool {
    let path = req.uri().path();
    req.method() == salvo::http::Method::GET
        && path
            .strip_prefix("/api/2.3/tenders/")
            .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

#[salvo::async_trait]
impl Handler for Front {
    async fn handle(&self, req: &mut Request, _: &mut Depot, res: &mut Response, _: &mut FlowCtrl) {
        let refuse = |res: &mut Response, status: StatusCode| {
            res.status_code(status);
            res.headers_mut()
                .insert("retry-after", HeaderValue::from_static("1"));
            let _ = res.write_body(
                r#"{"status":"error","errors":[{"location":"url","name":"busy","description":"Service Unavailable"}]}"#,
            );
        };
        let body = req.payload().await.map(|b| b.to_vec()).unwrap_or_default();
        let creation = req.method() == salvo::http::Method::POST
            && req.uri().path() == "/api/2.3/tenders"
            && !body.starts_with(br#"{"data":{}}"#);
        // Each count is taken once per request of its kind, whatever the answer.
        let (nth_read, nth_creation) = (
            reads_a_tender(req).then(|| self.tender_reads.fetch_add(1, Ordering::SeqCst)),
            creation.then(|| self.creations.fetch_add(1, Ordering::SeqCst)),
        );
        let busy = StatusCode::SERVICE_UNAVAILABLE;
        match (self.busy, nth_read, nth_creation) {
            (Busy::AskToWait { n }, Some(nth), _) if nth < n => return refuse(res, busy),
            // A write answered 503 is never repeated: this one to the run's second creation (the
            // probe's empty ones aside) stands, and its scenario judges it.
            (Busy::AskToWait { .. }, _, Some(1)) => return refuse(res, busy),
            (Busy::Throttle, _, Some(1)) => return refuse(res, StatusCode::TOO_MANY_REQUESTS),
            (Busy::Stall { n }, Some(nth), _) if nth < n => {
                tokio::time::sleep(Duration::from_secs(5)).await
            }
            _ => {}
        }
        let url = format!(
            "{}{}",
            self.upstream,
            req.uri().path_and_query().map_or("/", |p| p.as_str())
        );
        let mut forward = self
            .client
            .request(req.method().clone(), url)
            .header("host", self.host.as_str());
        for (name, value) in req.headers() {
            if !matches!(name.as_str(), "host" | "content-length" | "connection") {
                forward = forward.header(name.as_str(), value.as_bytes());
            }
        }
        let Ok(answer) = forward.body(body).send().await else {
            res.status_code(StatusCode::BAD_GATEWAY);
            return;
        };
        res.status_code(answer.status());
        for (name, value) in answer.headers() {
            if let Ok(name) = HeaderName::from_bytes(name.as_str().as_bytes())
                && !matches!(name.as_str(), "content-length" | "connection")
            {
                res.headers_mut().append(name, value.clone());
            }
        }
        let _ = res.write_body(answer.bytes().await.unwrap_or_default().to_vec());
    }
}

/// The built-in server with the front before it; the front's address.
async fn behind_a_front(busy: Busy) -> (tender_registry::RunningServer, String) {
    test_support::install_crypto();
    let server = test_support::serve(tender_registry::Settings {
        testing: true,
        ..Default::default()
    })
    .await;
    let upstream = server.base_url();
    let acceptor: TcpAcceptor = TcpListener::new("127.0.0.1:0")
        .try_bind()
        .await
        .expect("a free port");
    let host = acceptor.local_addr().expect("an address").to_string();
    let front = Front {
        upstream,
        host: host.clone(),
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client"),
        busy,
        tender_reads: AtomicUsize::new(0),
        creations: AtomicUsize::new(0),
    };
    let router = Router::with_path("{**rest}").goal(front);
    tokio::spawn(async move { Server::new(acceptor).serve(router).await });
    (server, format!("http://{host}"))
}

async fn certify(base_url: &str, tags: &str, timeout: Duration) -> (RunReport, String) {
    // One scenario at a time, so that the front's first answers fall to known requests.
    let mut opts = CucumberOpts::default();
    opts.runner.concurrency = Some(1);
    test_support::certify_with(base_url, tags, opts, |settings| settings.timeout = timeout).await
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_wait_as_the_target_asks_and_writes_are_never_repeated() {
    let (server, base_url) = behind_a_front(Busy::AskToWait { n: 2 }).await;
    let (report, markdown) =
        certify(&base_url, "@conventions and @spec", Duration::from_secs(30)).await;
    server.stop().await;

    assert_eq!(
        report.asked_waits.exchanges,
        2,
        "{}",
        report.terminal_summary()
    );
    assert!(
        report.asked_waits.waited >= Duration::from_secs(2),
        "{:?}",
        report.asked_waits
    );
    assert!(
        markdown.contains(
            "| Waits the target asked for | 2 exchange(s) answered with `Retry-After` (a read's 429 or 503, a write's 429) asked again after"
        ),
        "{markdown}"
    );
    // The second creation's 503 was not repeated: exactly one scenario failed, on it.
    let failures: Vec<_> = report
        .scenarios
        .iter()
        .filter(|s| s.verdict == Verdict::Failed)
        .map(|s| s.failure.as_ref())
        .collect();
    assert_eq!(failures.len(), 1, "{}", report.terminal_summary());
    let failure = failures[0].expect("the failed scenario says why");
    assert!(
        failure.message.starts_with("expected status 201, got 503:"),
        "{}",
        failure.message
    );
    let exchange = failure
        .exchange
        .as_ref()
        .expect("the failure shows its exchange");
    assert_eq!(
        (
            exchange.request.method.as_str(),
            exchange.request.url.as_str()
        ),
        ("POST", format!("{base_url}/api/2.3/tenders").as_str()),
        "{}",
        failure.message
    );
    assert_eq!(exchange.response.as_ref().map(|r| r.status), Some(503));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_refused_with_429_is_sent_again_after_the_wait() {
    let (server, base_url) = behind_a_front(Busy::Throttle).await;
    let (report, _) = certify(&base_url, "@conventions and @spec", Duration::from_secs(30)).await;
    server.stop().await;
    assert!(report.certified(), "{}", report.terminal_summary());
    assert_eq!(
        report.asked_waits.exchanges,
        1,
        "{}",
        report.terminal_summary()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_past_the_timeout_is_asked_again_at_a_slower_pace() {
    let (server, base_url) = behind_a_front(Busy::Stall { n: 1 }).await;
    let (report, _) = certify(&base_url, "@conventions and @spec", Duration::from_secs(1)).await;
    server.stop().await;
    assert!(report.certified(), "{}", report.terminal_summary());
    assert_eq!(report.pace.timeouts, 1, "{}", report.pace_story());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_exchange_past_the_timeout_fails_its_scenario_naming_the_request() {
    let (server, base_url) = behind_a_front(Busy::Stall { n: 3 }).await;
    let (report, _) = certify(&base_url, "@conventions and @spec", Duration::from_secs(1)).await;
    server.stop().await;

    let failures: Vec<String> = report
        .scenarios
        .iter()
        .filter(|s| s.verdict == Verdict::Failed)
        .filter_map(|s| s.failure.as_ref().map(|f| f.message.clone()))
        .collect();
    assert_eq!(failures.len(), 1, "{}", report.terminal_summary());
    assert!(
        failures[0].contains(&format!("reading {base_url}/api/2.3/tenders/"))
            && failures[0].ends_with(
                "no response: no answer within 1 s (--timeout), asked 3 time(s) at a slower pace"
            ),
        "{}",
        failures[0]
    );
    assert_eq!(report.asked_waits.exchanges, 0);
    assert_eq!(report.pace.timeouts, 3, "{}", report.pace_story());
}
