//! `tender-certify` against deliberately non-conforming targets. A small proxy in front of the
//! built-in server breaks one rule of the spec at a time; the run must then fail and its report
//! must name the rule. The same proxy breaking nothing must pass, and hiding the clock control
//! API must make the harness wait in real time and report what it could not wait for as skipped.
use std::time::Duration;

use salvo::{
    conn::tcp::TcpAcceptor,
    http::{HeaderName, HeaderValue, StatusCode},
    prelude::*,
    server::ServerHandle,
};
use serde_json::Value;
use tender_certify::{CucumberOpts, RunReport, outcome::Verdict};

/// What the proxy passes back, before it is written out.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

type Breakage = fn(&str, &mut Answer);

struct Proxy {
    upstream: String,
    client: reqwest::Client,
    breakage: Breakage,
}

#[salvo::async_trait]
impl Handler for Proxy {
    async fn handle(&self, req: &mut Request, _: &mut Depot, res: &mut Response, _: &mut FlowCtrl) {
        let path = req
            .uri()
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default();
        let method =
            reqwest::Method::from_bytes(req.method().as_str().as_bytes()).expect("a method");
        let mut forward = self
            .client
            .request(method, format!("{}{path}", self.upstream));
        for (name, value) in req.headers() {
            if !matches!(name.as_str(), "host" | "content-length" | "connection") {
                forward = forward.header(name.as_str(), value.as_bytes());
            }
        }
        let body = req.payload().await.map(|b| b.to_vec()).unwrap_or_default();
        let upstream = forward
            .body(body)
            .send()
            .await
            .expect("the built-in server answers");
        let mut answer = Answer {
            status: upstream.status().as_u16(),
            headers: upstream
                .headers()
                .iter()
                .filter(|(n, _)| {
                    !matches!(
                        n.as_str(),
                        "content-length" | "connection" | "transfer-encoding"
                    )
                })
                .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                .collect(),
            body: upstream.text().await.unwrap_or_default(),
        };
        (self.breakage)(&path, &mut answer);
        res.status_code(StatusCode::from_u16(answer.status).expect("a status"));
        for (name, value) in answer.headers {
            if let (Ok(n), Ok(v)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                res.headers_mut().append(n, v);
            }
        }
        let _ = res.write_body(answer.body);
    }
}

/// The built-in server with a breaking proxy in front of it.
struct Target {
    base_url: String,
    server: tender_registry::RunningServer,
    proxy: ServerHandle,
}

async fn start(breakage: Breakage) -> Target {
    let app = tender_registry::Application::build(tender_registry::Settings {
        listen: "127.0.0.1:0".into(),
        testing: true,
        ..Default::default()
    })
    .await
    .expect("the built-in server starts");
    let upstream = app.base_url();
    let server = app.spawn();
    let acceptor: TcpAcceptor = TcpListener::new("127.0.0.1:0")
        .try_bind()
        .await
        .expect("a free port");
    let base_url = format!("http://{}", acceptor.local_addr().expect("a bound address"));
    let proxy = Proxy {
        upstream,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client"),
        breakage,
    };
    let router = Router::with_path("{**rest}").goal(proxy);
    let proxy_server = Server::new(acceptor);
    let proxy = proxy_server.handle();
    tokio::spawn(async move { proxy_server.serve(router).await });
    Target {
        base_url,
        server,
        proxy,
    }
}

impl Target {
    async fn stop(self) {
        self.proxy.stop_forceful();
        self.server.stop().await;
    }
}

/// Runs the scenarios selected by `tags` against `target`, writing the Markdown report.
async fn certify(
    target: &Target,
    tags: &str,
    configure: impl FnOnce(&mut tender_certify::Settings),
) -> (RunReport, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut settings = tender_certify::Settings::new(target.base_url.clone());
    settings.features = concat!(env!("CARGO_MANIFEST_DIR"), "/features").into();
    settings.tags = Some(tags.to_owned());
    settings.progress = false;
    settings.report = Some(dir.path().join("report.md"));
    configure(&mut settings);
    let report = tender_certify::certify(&settings, CucumberOpts::default())
        .await
        .expect("the harness runs");
    let markdown =
        std::fs::read_to_string(dir.path().join("report.md")).expect("the report was written");
    (report, markdown)
}

fn transparent(_: &str, _: &mut Answer) {}

fn strip_location(_: &str, answer: &mut Answer) {
    answer
        .headers
        .retain(|(n, _)| !n.eq_ignore_ascii_case("location"));
}

/// `500.0` becomes `500`.
fn integer_amounts(_: &str, answer: &mut Answer) {
    fn walk(v: &mut Value) {
        match v {
            Value::Number(n) => {
                if let Some(f) = n
                    .as_f64()
                    .filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15)
                {
                    *v = Value::from(f as i64);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::Object(map) => map.values_mut().for_each(walk),
            _ => {}
        }
    }
    if let Ok(mut json) = serde_json::from_str::<Value>(&answer.body) {
        walk(&mut json);
        answer.body = json.to_string();
    }
}

/// `…T10:27:24.123456+02:00` becomes `…T10:27:24+02:00`.
fn seconds_only(_: &str, answer: &mut Answer) {
    answer.body = drop_fractions(&answer.body);
}

/// Drops the six fractional digits of every `hh:mm:ss.ffffff±` in a body.
fn drop_fractions(body: &str) -> String {
    let bytes = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while i < bytes.len() {
        let is_fraction = i >= 8
            && bytes[i] == b'.'
            && bytes[i - 3] == b':'
            && bytes[i - 6] == b':'
            && bytes
                .get(i + 1..i + 7)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
            && matches!(bytes.get(i + 7), Some(b'+' | b'-' | b'Z'));
        if is_fraction {
            i += 7;
        } else {
            let ch = body[i..].chars().next().expect("a char");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn no_charset(_: &str, answer: &mut Answer) {
    for (name, value) in &mut answer.headers {
        if name.eq_ignore_ascii_case("content-type") {
            *value = "application/json".into();
        }
    }
}

fn no_access_token(_: &str, answer: &mut Answer) {
    if let Ok(mut json) = serde_json::from_str::<Value>(&answer.body)
        && let Some(map) = json.as_object_mut()
        && map.remove("access").is_some()
    {
        answer.body = json.to_string();
    }
}

/// A target without the clock control API.
fn no_clock_api(path: &str, answer: &mut Answer) {
    if path.starts_with("/testing/") {
        answer.status = 404;
        answer.body = r#"{"status":"error","errors":[{"location":"url","name":"not_found","description":"Not Found"}]}"#.into();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transparent_proxy_conforms() {
    let target = start(transparent).await;
    let (report, markdown) = certify(&target, "@conventions and @spec", |_| {}).await;
    target.stop().await;
    assert!(report.certified(), "{}", report.terminal_summary());
    assert!(markdown.contains("**Conforms**"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_broken_rule_fails_the_run_and_is_named_in_the_report() {
    let cases: [(&str, Breakage, &str, &str); 5] = [
        (
            "Location header stripped",
            strip_location,
            "@conv-5 and @spec",
            "conv-5",
        ),
        (
            "500.0 written as 500",
            integer_amounts,
            "@conv-7 and @spec",
            "conv-7",
        ),
        (
            "timestamps without microseconds",
            seconds_only,
            "@conv-6 and @spec",
            "conv-6",
        ),
        (
            "Content-Type without charset",
            no_charset,
            "@conv-3 and @spec",
            "conv-3",
        ),
        (
            "no access token",
            no_access_token,
            "@conv-4 and @spec",
            "conv-4",
        ),
    ];
    for (what, breakage, tags, rule) in cases {
        let target = start(breakage).await;
        let (report, markdown) = certify(&target, tags, |_| {}).await;
        target.stop().await;
        assert!(
            !report.certified(),
            "{what}: the run passed:\n{}",
            report.terminal_summary()
        );
        assert!(
            markdown.contains(&format!("Rule broken: `{rule}`")),
            "{what}: the report does not name {rule}:\n{markdown}"
        );
        assert!(
            markdown.contains("Request:") && markdown.contains("Response:"),
            "{what}: no exchange shown"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_clock_api_it_waits_in_real_time_and_skips_what_exceeds_the_budget() {
    let target = start(no_clock_api).await;
    let (report, markdown) = certify(&target, "(@scheduler and @spec) or @stand-still", |s| {
        s.period = Duration::from_secs(2);
        s.wait_budget = Duration::from_secs(6);
    })
    .await;
    target.stop().await;
    let scheduler: Vec<_> = report
        .scenarios
        .iter()
        .filter(|s| s.file == "scheduler.feature")
        .collect();
    assert!(!scheduler.is_empty());
    assert!(
        scheduler.iter().all(|s| s.verdict == Verdict::Passed),
        "{}",
        report.terminal_summary()
    );
    let stand_still = report
        .scenarios
        .iter()
        .find(|s| s.tags.iter().any(|t| t == "stand-still"))
        .expect("the stand-still scenario ran");
    assert_eq!(
        stand_still.verdict,
        Verdict::Skipped,
        "{}",
        report.terminal_summary()
    );
    assert!(
        stand_still
            .skip_reason
            .as_deref()
            .is_some_and(|r| r.contains("budget"))
    );
    assert!(markdown.contains("real time"));
    assert!(
        !report.certified(),
        "a skipped @spec scenario is not certified"
    );
}
