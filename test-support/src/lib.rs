//! The one fixture library of the workspace's tests: the built-in server on an ephemeral port
//! (every test starts it through [`build`] or [`serve`]), an HTTP client that has its crypto
//! provider, a request read as JSON, the auction's JSON interface beside a page, the
//! certifier's binary built beside the tests, a certifying run with its report read, and checks
//! of a run's scenarios and of the binary's refusals; the HTTP tests' fixtures ([`api`]: a
//! broker's client, bodies, pinned moments) and the browser tests' browser ([`browser`]).

pub mod api;
pub mod browser;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use tender_certify::{CucumberOpts, RunReport, outcome::Verdict};

/// The auction's JSON interface beside a page at `address` (its query kept): the certifier's
/// own rule, so that the tests and the certifier cannot drift apart.
pub use tender_certify::shape::interface;

/// The built-in server with `settings`, bound to an ephemeral port of 127.0.0.1 but not yet
/// serving (a test may read its address first), or why it would not start. Every test starts
/// the server through here.
pub async fn build(
    settings: tender_registry::Settings,
) -> std::io::Result<tender_registry::Application> {
    tender_registry::Application::build(tender_registry::Settings {
        listen: "127.0.0.1:0".into(),
        ..settings
    })
    .await
}

/// The built-in server with `settings`, serving on an ephemeral port of 127.0.0.1 (its
/// address is `base_url()`).
pub async fn serve(settings: tender_registry::Settings) -> tender_registry::RunningServer {
    build(settings)
        .await
        .expect("the built-in server starts")
        .spawn()
}

/// The built-in server with its clock control API (`--testing`), its clock standing at
/// `clock_start` when given: the server and its address.
pub async fn serve_testing(
    clock_start: Option<time::OffsetDateTime>,
) -> (tender_registry::RunningServer, String) {
    let server = serve(tender_registry::Settings {
        testing: true,
        clock_start,
        ..Default::default()
    })
    .await;
    let base_url = server.base_url();
    (server, base_url)
}

/// Installs ring as the process's crypto provider. reqwest is built with rustls and no
/// provider of its own (the server's ring is the one compiled), so every client needs this
/// first; the first call in a process installs it, later ones do nothing.
pub fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A client builder, the crypto provider installed.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto();
    reqwest::Client::builder()
}

/// A client with reqwest's defaults, the crypto provider installed.
pub fn client() -> reqwest::Client {
    client_builder().build().expect("an HTTP client")
}

/// Sends `request` and answers the response's status and its body read as JSON.
pub async fn call(request: reqwest::RequestBuilder) -> (u16, Value) {
    let answer = request.send().await.expect("the server answers");
    let status = answer.status().as_u16();
    let body = answer.json().await.expect("a JSON body");
    (status, body)
}

/// A request's answer read as JSON: whatever its status, or one that must be 200.
pub trait ReadJson {
    fn read_json(self) -> impl std::future::Future<Output = Value> + Send;
    /// The body of a read that must succeed: a refused read fails the test rather than
    /// standing in for the state it did not show.
    fn read_ok(self) -> impl std::future::Future<Output = Value> + Send;
}

impl ReadJson for reqwest::RequestBuilder {
    async fn read_json(self) -> Value {
        call(self).await.1
    }

    async fn read_ok(self) -> Value {
        let (status, body) = call(self).await;
        assert_eq!(status, 200, "a read that must succeed: {body}");
        body
    }
}

/// `target/<profile>/tender-certify`, built beside the running test by `cargo test` at the
/// workspace root.
pub fn certifier_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test runs from target/<profile>/deps");
    let binary = profile.join(format!("tender-certify{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is missing: run `cargo test` at the workspace root (or `cargo build -p tender-certify`) first",
        binary.display()
    );
    binary
}

/// Runs the workspace's features that `tags` selects against `base_url`, quietly, with the
/// settings as `configure` leaves them: the run's report and the Markdown certificate it wrote.
pub async fn certify(
    base_url: &str,
    tags: &str,
    configure: impl FnOnce(&mut tender_certify::Settings),
) -> (RunReport, String) {
    certify_with(base_url, tags, CucumberOpts::default(), configure).await
}

/// [`certify`] with the runner's options `opts`.
pub async fn certify_with(
    base_url: &str,
    tags: &str,
    opts: CucumberOpts,
    configure: impl FnOnce(&mut tender_certify::Settings),
) -> (RunReport, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut settings = tender_certify::Settings::new(base_url.to_owned());
    settings.features = Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../features").into());
    settings.tags = Some(tags.to_owned());
    settings.progress = tender_certify::LiveOutput::Off;
    settings.report = Some(dir.path().join("report.md"));
    configure(&mut settings);
    let report = tender_certify::certify(&settings, opts)
        .await
        .expect("the harness runs");
    let markdown =
        std::fs::read_to_string(dir.path().join("report.md")).expect("the report was written");
    (report, markdown)
}

/// The scenarios of `report` that did not pass, each as `file:line name verdict skip-reason`.
pub fn not_passed(report: &RunReport) -> Vec<String> {
    report
        .scenarios
        .iter()
        .filter(|s| s.verdict != Verdict::Passed)
        .map(|s| {
            let (verdict, skip) = (&s.verdict, &s.skip_reason);
            let why = s
                .failure
                .as_ref()
                .map(|f| format!(" at {}: {}", f.step, f.message))
                .unwrap_or_default();
            format!("{}:{} {} {verdict:?} {skip:?}{why}", s.file, s.line, s.name)
        })
        .collect()
}

/// Asserts that each scenario, named by its feature file and its title (not its line, which
/// any edit above it moves), ran in `report`.
pub fn assert_ran(report: &RunReport, scenarios: &[(&str, &str)]) {
    for (file, title) in scenarios {
        assert!(
            report
                .scenarios
                .iter()
                .any(|s| s.file == *file && s.name == *title),
            "{file}: \"{title}\" ran"
        );
    }
}

/// A finished process's exit status and what it wrote, for a failed check to show.
pub fn output_text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Asserts that the certifier stopped with exit status 2 before running a scenario, its one
/// line on stderr being `said`.
pub fn assert_stopped_before_running(output: &Output, said: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", output_text(output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [said],
        "{}",
        output_text(output)
    );
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("Scenario"),
        "{}",
        output_text(output)
    );
}
