//! What the server's tests, the browser tests and the certifier's tests share: the built-in
//! server on an ephemeral port, an HTTP client that has its crypto provider, a request read as JSON, the auction's JSON interface beside a
//! page, and the certifier's binary built beside the tests.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The auction's JSON interface beside a page at `address` (its query kept): the certifier's
/// own rule, so that the tests and the certifier cannot drift apart.
pub use tender_certify::shape::interface;

/// The built-in server with `settings`, listening on an ephemeral port of 127.0.0.1 (its
/// address is `base_url()`).
pub async fn serve(settings: tender_registry::Settings) -> tender_registry::RunningServer {
    let app = tender_registry::Application::build(tender_registry::Settings {
        listen: "127.0.0.1:0".into(),
        ..settings
    })
    .await
    .expect("the built-in server starts");
    app.spawn()
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

/// A request's answer read as JSON, whatever its status.
pub trait ReadJson {
    fn read_json(self) -> impl std::future::Future<Output = Value> + Send;
}

impl ReadJson for reqwest::RequestBuilder {
    async fn read_json(self) -> Value {
        call(self).await.1
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
