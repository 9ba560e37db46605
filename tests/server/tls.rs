//! HTTPS end to end, with a certificate authority made here: the server serves TLS (HTTP/2 by
//! ALPN, a lost answer resetting its own stream, addresses in https, the certificate read again
//! on SIGHUP, one out of its dates served with a warning) and the certifier checks it
//! (`--cacert`, `--insecure`, `--cert`/`--key`, a CONNECT proxy from `HTTPS_PROXY`), stopping
//! with exit 2 and one line on a certificate it cannot trust or a proxy that refuses.
use std::{
    io::{BufRead as _, BufReader},
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair,
};
use tender_certify::{
    CucumberOpts, LiveOutput, RunReport,
    settings::{Proxies, TlsOptions},
};
use tender_registry::{RunningServer, Settings};
use test_support::{assert_stopped_before_running, output_text};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// A certificate authority of the test's own, and the files it issued, in a temporary directory.
struct Pki {
    dir: tempfile::TempDir,
    issuer: Issuer<'static, KeyPair>,
    ca: PathBuf,
}

/// What a certificate is for.
enum Use {
    Server,
    Client,
}

impl Pki {
    fn new() -> Pki {
        Pki::named("Tender Test CA")
    }

    fn named(authority: &str) -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, authority);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, params.self_signed(&key).unwrap().pem()).unwrap();
        Pki {
            dir,
            issuer: Issuer::new(params, key),
            ca,
        }
    }

    /// Writes `NAME.pem` and `NAME.key`: a certificate for `names`, valid from `from` to
    /// `until` (years; far from any day the tests run).
    fn issue(
        &self,
        file: &str,
        common_name: &str,
        names: &[&str],
        (from, until): (i32, i32),
        usage: Use,
    ) -> (PathBuf, PathBuf) {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        params.not_before = rcgen::date_time_ymd(from, 1, 1);
        params.not_after = rcgen::date_time_ymd(until, 1, 1);
        params.extended_key_usages = vec![match usage {
            Use::Server => ExtendedKeyUsagePurpose::ServerAuth,
            Use::Client => ExtendedKeyUsagePurpose::ClientAuth,
        }];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        let cert_path = self.dir.path().join(format!("{file}.pem"));
        let key_path = self.dir.path().join(format!("{file}.key"));
        std::fs::write(&cert_path, cert.pem()).unwrap();
        std::fs::write(&key_path, key.serialize_pem()).unwrap();
        (cert_path, key_path)
    }

    /// A server certificate for this machine, valid on any day the tests run.
    fn localhost(&self, file: &str, common_name: &str) -> (PathBuf, PathBuf) {
        self.issue(
            file,
            common_name,
            &["localhost", "127.0.0.1"],
            (2000, 4000),
            Use::Server,
        )
    }

    /// A server certificate for another host, `elsewhere.example.test`, not this machine.
    fn elsewhere(&self) -> (PathBuf, PathBuf) {
        self.issue(
            "elsewhere",
            "elsewhere.example.test",
            &["elsewhere.example.test"],
            (2000, 4000),
            Use::Server,
        )
    }
}

/// The registry with the clock control API, serving TLS with `cert` and `key`: the server and
/// its address.
async fn serving_tls(cert: &Path, key: &Path) -> (RunningServer, String) {
    let server = test_support::serve(Settings {
        testing: true,
        tls_cert: Some(cert.to_owned()),
        tls_key: Some(key.to_owned()),
        ..Default::default()
    })
    .await;
    let base_url = server.base_url();
    (server, base_url)
}

/// A certificate authority of the test's own, and the registry serving TLS on this machine
/// with a certificate it issued to `common_name`: the authority, the server and its address.
async fn https_server(common_name: &str) -> (Pki, RunningServer, String) {
    let pki = Pki::new();
    let (cert, key) = pki.localhost("server", common_name);
    let (server, base_url) = serving_tls(&cert, &key).await;
    (pki, server, base_url)
}

/// The harness's settings for an in-process run of the `@conventions` scenarios of the spec.
fn harness(base_url: &str, tls: TlsOptions) -> tender_certify::Settings {
    let mut settings = tender_certify::Settings::new(base_url);
    settings.tags = Some("@conventions and @spec".into());
    settings.progress = LiveOutput::Off;
    settings.seed = Some(1);
    settings.proxies = Proxies::default();
    settings.tls = tls;
    settings
}

async fn certify(settings: &tender_certify::Settings) -> Result<RunReport, String> {
    tender_certify::certify(settings, CucumberOpts::default()).await
}

/// The report of a run that must have certified the target.
fn certified(run: Result<RunReport, String>) -> RunReport {
    let report = run.unwrap();
    assert!(report.certified(), "{}", report.markdown());
    report
}

fn cacert(pki: &Pki) -> TlsOptions {
    TlsOptions {
        cacert: Some(pki.ca.clone()),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_over_https_is_certified_with_a_private_ca_and_the_certificate_names_it() {
    let (pki, server, base_url) = https_server("sandbox.example.test").await;
    assert!(base_url.starts_with("https://127.0.0.1:"), "{base_url}");
    let report = certify(&harness(&base_url, cacert(&pki))).await;
    server.stop().await;

    let report = certified(report);
    assert!(report.counts().passed > 0);
    let md = report.markdown();
    let ca = pki.ca.display();
    assert!(
        md.contains(&format!(
            "| Connection | https (HTTP/1.1), certificate `CN=sandbox.example.test` issued by `CN=Tender Test CA`, valid until 4000-01-01 00:00:00 UTC, verified against the platform's and Mozilla's roots and `--cacert {ca}` |"
        )),
        "{md}"
    );
    assert!(!md.contains("not verified"), "{md}");
}

#[tokio::test(flavor = "multi_thread")]
async fn addresses_handed_out_over_tls_are_https() {
    let (pki, server, base_url) = https_server("localhost").await;
    test_support::install_crypto();
    let ca = reqwest::Certificate::from_pem_bundle(&std::fs::read(&pki.ca).unwrap()).unwrap();
    for version in [reqwest::Version::HTTP_11, reqwest::Version::HTTP_2] {
        let builder = reqwest::Client::builder().tls_certs_only(ca.clone());
        let client = match version {
            reqwest::Version::HTTP_2 => builder,
            _ => builder.http1_only(),
        }
        .build()
        .unwrap();
        let response = client
            .get(format!("{base_url}/api/2.3/tenders"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.version(), version);
        let body: serde_json::Value = response.json().await.unwrap();
        let next = body["next_page"]["uri"].as_str().unwrap_or_default();
        assert!(
            next.starts_with(&format!("{base_url}/api/2.3/tenders?")),
            "{version:?}: {body}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_http2_the_certifier_speaks_it_to_a_server_that_offers_it() {
    let (pki, server, base_url) = https_server("localhost").await;
    let mut settings = harness(&base_url, cacert(&pki));
    settings.http2 = true;
    let report = certify(&settings).await;
    server.stop().await;

    let report = certified(report);
    let md = report.markdown();
    assert!(
        md.contains("| Connection | https (HTTP/2), certificate `CN=localhost`"),
        "{md}"
    );
}

/// A response lost on purpose over HTTP/2 resets its own stream alone: a slow read on the
/// same connection, in flight meanwhile, is answered, and the connection serves on. Every
/// request goes through one tunnel of a CONNECT proxy, so they share one connection.
#[tokio::test(flavor = "multi_thread")]
async fn drop_after_commit_over_http2_resets_its_stream_and_the_others_on_the_connection_go_on() {
    let (pki, server, base_url) = https_server("localhost").await;
    let (proxy, tunnels) = connect_proxy(false).await;
    test_support::install_crypto();
    let ca = reqwest::Certificate::from_pem_bundle(&std::fs::read(&pki.ca).unwrap()).unwrap();
    let client = reqwest::Client::builder()
        .tls_certs_only(ca)
        .proxy(reqwest::Proxy::all(&proxy).unwrap())
        .build()
        .unwrap();
    let spore = format!("{base_url}/api/2.3/spore");
    let first = client.get(&spore).send().await.unwrap();
    assert_eq!(first.version(), reqwest::Version::HTTP_2);
    for rule in [
        serde_json::json!({"match": {"method": "GET", "path": "/api/2.3/spore"}, "fault": "delay", "delay_ms": 1500}),
        serde_json::json!({"match": {"method": "GET", "path": "/api/2.3/tenders"}, "fault": "drop-after-commit"}),
    ] {
        let set = client
            .post(format!("{base_url}/testing/faults"))
            .json(&serde_json::json!({ "data": rule }))
            .send()
            .await
            .unwrap();
        assert_eq!(set.status(), 201);
    }
    let slow = tokio::spawn(client.get(&spore).send());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let lost = client
        .get(format!("{base_url}/api/2.3/tenders"))
        .send()
        .await
        .expect_err("the listing's answer is lost");
    assert!(
        format!("{lost:?}").contains("INTERNAL_ERROR"),
        "its stream is reset: {lost:?}"
    );
    let slow = slow.await.unwrap().expect("the slow read is answered");
    assert_eq!(slow.status(), 200);
    let after = client.get(&spore).send().await.unwrap();
    assert_eq!(
        (after.status().as_u16(), after.version()),
        (200, reqwest::Version::HTTP_2)
    );
    assert_eq!(
        tunnels.load(Ordering::SeqCst),
        1,
        "one connection throughout"
    );
    server.stop().await;
}

/// Runs the certifier on `base_url` over the spec's `@conventions` scenarios with `settings`,
/// expecting it to stop before any scenario; returns the line.
async fn stopped(settings: tender_certify::Settings) -> String {
    match certify(&settings).await {
        Ok(report) => panic!("the run went ahead: {}", report.markdown()),
        Err(line) => {
            assert!(!line.contains('\n'), "one line: {line}");
            line
        }
    }
}

/// The registry serving TLS with `cert` and `key`, and the run with `tls` that stops before any
/// scenario: the server's address and the line the run stopped with.
async fn stopped_by((cert, key): (&Path, &Path), tls: TlsOptions) -> (String, String) {
    let (server, base_url) = serving_tls(cert, key).await;
    let line = stopped(harness(&base_url, tls)).await;
    server.stop().await;
    (base_url, line)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_issuer_a_wrong_name_and_an_expired_certificate_stop_the_run() {
    let pki = Pki::new();
    let (cert, key) = pki.localhost("server", "localhost");
    let (base_url, line) = stopped_by((&cert, &key), TlsOptions::default()).await;
    assert_eq!(
        line,
        format!(
            "the target at {base_url} cannot be trusted: its certificate has an unknown issuer; pass --cacert FILE with the certificate of the authority that issued it (PEM), or --insecure to skip the check"
        )
    );

    let (cert, key) = pki.elsewhere();
    let (base_url, line) = stopped_by((&cert, &key), cacert(&pki)).await;
    assert!(
        line.starts_with(&format!(
            "the target at {base_url} cannot be trusted: its certificate is not valid for 127.0.0.1 (it is for "
        )) && line.contains("elsewhere.example.test"),
        "{line}"
    );

    let (cert, key) = pki.issue(
        "expired",
        "localhost",
        &["localhost", "127.0.0.1"],
        (2000, 2001),
        Use::Server,
    );
    let (base_url, line) = stopped_by((&cert, &key), cacert(&pki)).await;
    assert!(
        line.starts_with(&format!(
            "the target at {base_url} cannot be trusted: its certificate has expired (valid until 2001-01-01T"
        )),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn insecure_takes_any_certificate_and_the_certificate_says_so_first() {
    let pki = Pki::new();
    let (cert, key) = pki.elsewhere();
    let (server, base_url) = serving_tls(&cert, &key).await;
    let report = certify(&harness(
        &base_url,
        TlsOptions {
            insecure: true,
            ..Default::default()
        },
    ))
    .await;
    server.stop().await;

    let report = certified(report);
    let md = report.markdown();
    let opening: Vec<&str> = md.lines().take(3).collect();
    assert_eq!(
        opening[2],
        "> **Warning**: The target's identity was not verified (`--insecure`): the run took the certificate it presented (`CN=elsewhere.example.test`) without checking it, so these results could be another server's.",
        "{md}"
    );
    assert!(md.contains("**not verified** (`--insecure`)"), "{md}");
    let html = report.html();
    assert!(
        html.contains("<h1>")
            && html.split("<h1>").nth(1).is_some_and(|after| after
                .split("<table")
                .next()
                .is_some_and(
                    |opening| opening.contains("The target&#39;s identity was not verified")
                )),
        "{html}"
    );
}

/// A TLS front that asks every client for a certificate issued by `ca`, and passes what comes
/// through to the plain server at `backend`; the listener is bound before the server so that
/// the server can hand out the front's address.
async fn client_certificate_front(
    listener: tokio::net::TcpListener,
    ca: &Path,
    cert: &Path,
    key: &Path,
    backend: SocketAddr,
) {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject as _};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let verifier =
        rustls::server::WebPkiClientVerifier::builder_with_provider(roots.into(), provider.clone())
            .build()
            .unwrap();
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, PrivateKeyDer::from_pem_file(key).unwrap())
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(backend).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
}

#[tokio::test(flavor = "multi_thread")]
async fn a_target_that_asks_for_a_client_certificate_gets_the_one_given() {
    let pki = Pki::new();
    let (cert, key) = pki.localhost("front", "front.example.test");
    let (client_cert, client_key) = pki.issue(
        "client",
        "certifier.example.test",
        &[],
        (2000, 4000),
        Use::Client,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let front = format!("https://{}", listener.local_addr().unwrap());
    let app = test_support::build(Settings {
        testing: true,
        public_url: Some(front.clone()),
        ..Default::default()
    })
    .await
    .unwrap();
    let backend = app.local_addr();
    let server = app.spawn();
    client_certificate_front(listener, &pki.ca, &cert, &key, backend).await;

    let line = stopped(harness(&front, cacert(&pki))).await;
    assert!(
        line.starts_with(&format!("the target at {front} "))
            && line.contains("pass --cert FILE and --key FILE"),
        "{line}"
    );
    let report = certify(&harness(
        &front,
        TlsOptions {
            cacert: Some(pki.ca.clone()),
            cert: Some(client_cert),
            key: Some(client_key),
            insecure: false,
        },
    ))
    .await;
    server.stop().await;

    let report = certified(report);
    let md = report.markdown();
    assert!(
        md.contains("; client certificate `CN=certifier.example.test` |"),
        "{md}"
    );
}

/// The certifier binary on `base_url` (the spec's `@conventions` scenarios, the certificate
/// in `dir`) with `HTTPS_PROXY` set to `proxy` when given, and no other proxy variable.
async fn certifier(base_url: &str, proxy: Option<String>, ca: &Path, dir: &Path) -> Output {
    let mut command = Command::new(test_support::certifier_binary());
    command
        .current_dir(dir)
        .args(["--base-url", base_url, "--seed", "1", "--cacert"])
        .arg(ca)
        .args([
            "--tags",
            "@conventions and @spec",
            "--report",
            "certificate.md",
        ]);
    for name in [
        "TENDER_CERTIFY_BASE_URL",
        "TENDER_CERTIFY_CACERT",
        "https_proxy",
        "HTTPS_PROXY",
        "http_proxy",
        "HTTP_PROXY",
        "all_proxy",
        "ALL_PROXY",
        "no_proxy",
        "NO_PROXY",
    ] {
        command.env_remove(name);
    }
    if let Some(proxy) = proxy {
        command.env("HTTPS_PROXY", proxy);
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// A CONNECT proxy: opens the tunnels asked for and counts them, or, when `refuse`, answers
/// 403 to every CONNECT.
async fn connect_proxy(refuse: bool) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let tunnels = Arc::new(AtomicUsize::new(0));
    let counted = tunnels.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let counted = counted.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match client.read(&mut byte).await {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let mut words = head.split_whitespace();
                let (Some("CONNECT"), Some(authority)) = (words.next(), words.next()) else {
                    let _ = client
                        .write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
                        .await;
                    return;
                };
                if refuse {
                    let _ = client
                        .write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
                        .await;
                    return;
                }
                let Ok(mut upstream) = tokio::net::TcpStream::connect(authority).await else {
                    let _ = client
                        .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
                        .await;
                    return;
                };
                counted.fetch_add(1, Ordering::SeqCst);
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
                    .is_ok()
                {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                }
            });
        }
    });
    (address, tunnels)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_certifier_goes_through_the_proxy_https_proxy_names() {
    let (pki, server, base_url) = https_server("localhost").await;
    let (proxy, tunnels) = connect_proxy(false).await;
    let output = certifier(&base_url, Some(proxy.clone()), &pki.ca, pki.dir.path()).await;
    server.stop().await;

    assert_eq!(output.status.code(), Some(0), "{}", output_text(&output));
    assert!(
        tunnels.load(Ordering::SeqCst) >= 1,
        "{}",
        output_text(&output)
    );
    let certificate = std::fs::read_to_string(pki.dir.path().join("certificate.md")).unwrap();
    assert!(
        certificate.contains(&format!("; through the proxy `{proxy} (HTTPS_PROXY)` |")),
        "{certificate}"
    );
    // Through the tunnel the certificate names what the target presented, as a direct run does.
    assert!(
        certificate.contains("| Connection | https (HTTP/1.1), certificate `CN=localhost` issued by `CN=Tender Test CA`")
            && !certificate.contains("could not be read"),
        "{certificate}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proxy_that_refuses_stops_the_run_with_exit_2_and_a_line_naming_it() {
    let (pki, server, base_url) = https_server("localhost").await;
    let (proxy, _) = connect_proxy(true).await;
    let output = certifier(&base_url, Some(proxy.clone()), &pki.ca, pki.dir.path()).await;
    server.stop().await;

    let target = base_url.trim_start_matches("https://");
    assert_stopped_before_running(
        &output,
        &format!(
            "tender-certify: the proxy {proxy} (HTTPS_PROXY) refused to open a tunnel to {target}: it answered CONNECT with 403 Forbidden; check NO_PROXY, or the proxy's rules for {target}"
        ),
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_stops_with_exit_2_on_an_unknown_issuer() {
    let (pki, server, base_url) = https_server("localhost").await;
    // A bundle that holds another authority only.
    let other = Pki::named("Another CA");
    let output = certifier(&base_url, None, &other.ca, pki.dir.path()).await;
    server.stop().await;

    assert_eq!(output.status.code(), Some(2), "{}", output_text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{}", output_text(&output));
    assert!(
        stderr.starts_with(&format!(
            "tender-certify: the target at {base_url} cannot be trusted: its certificate has an unknown issuer; pass --cacert FILE"
        )),
        "{}",
        output_text(&output)
    );
}

/// The subject of the certificate the server at `addr` presents.
async fn presented_subject(addr: SocketAddr, ca: &Path) -> String {
    use rustls::pki_types::{CertificateDer, ServerName, pem::PemObject as _};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    let der = tls.get_ref().1.peer_certificates().unwrap()[0].clone();
    tender_certify::x509::named(&der).unwrap().subject
}

/// The server binary serving TLS with a certificate and key, its log read line by line as it
/// comes; stopped however the test ends, so that a failure leaves no process behind (one would
/// hold the run that started it).
struct Logged {
    child: std::process::Child,
    lines: Arc<Mutex<std::sync::mpsc::Receiver<String>>>,
}

impl Logged {
    fn start(cert: &Path, key: &Path) -> Logged {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tender-registry"))
            .args(["--testing", "--listen", "127.0.0.1:0", "--tls-cert"])
            .arg(cert)
            .arg("--tls-key")
            .arg(key)
            .env("TENDER_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (send, lines) = std::sync::mpsc::channel::<String>();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Logged {
            child,
            lines: Arc::new(Mutex::new(lines)),
        }
    }

    /// The lines of the log up to the next one holding `needle`, that one last; fails after
    /// 30 s without one.
    async fn until(&self, needle: &'static str) -> Vec<String> {
        let lines = self.lines.clone();
        tokio::task::spawn_blocking(move || {
            let lines = lines.lock().unwrap();
            let mut seen = Vec::new();
            loop {
                match lines.recv_timeout(std::time::Duration::from_secs(30)) {
                    Ok(line) => {
                        let found = line.contains(needle);
                        seen.push(line);
                        if found {
                            return seen;
                        }
                    }
                    Err(_) => panic!("no {needle:?} in the log: {seen:#?}"),
                }
            }
        })
        .await
        .unwrap()
    }

    /// The next line of the log holding `needle`; fails after 30 s without one.
    async fn wait_for(&self, needle: &'static str) -> String {
        self.until(needle).await.pop().unwrap_or_default()
    }

    /// The address it says it listens on.
    async fn listening(&self) -> SocketAddr {
        let listening = self.wait_for("tender-registry listening").await;
        listening
            .split("address=https://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("{listening}"))
    }

    /// Sends it SIGHUP: read the certificate and key again.
    fn hangup(&self) {
        let status = Command::new("kill")
            .args(["-HUP", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_reloads_the_certificate_and_a_bad_file_keeps_the_one_served() {
    let pki = Pki::new();
    let (cert, key) = pki.localhost("live", "before renewal");
    let server = Logged::start(&cert, &key);
    let addr = server.listening().await;
    assert_eq!(presented_subject(addr, &pki.ca).await, "CN=before renewal");

    let (renewed_cert, renewed_key) = pki.localhost("renewed", "after renewal");
    std::fs::copy(&renewed_cert, &cert).unwrap();
    std::fs::copy(&renewed_key, &key).unwrap();
    server.hangup();
    server.wait_for("TLS certificate reloaded").await;
    // The listener takes the new pair a moment after the server has read it: new connections
    // get it from then on, and within a few seconds at the most.
    let mut presented = presented_subject(addr, &pki.ca).await;
    for _ in 0..50 {
        if presented == "CN=after renewal" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        presented = presented_subject(addr, &pki.ca).await;
    }
    assert_eq!(presented, "CN=after renewal");

    std::fs::write(&cert, "not a certificate\n").unwrap();
    server.hangup();
    let refused = server.wait_for("TLS certificate not reloaded").await;
    assert!(
        refused.contains("the previous one is kept")
            && refused.contains("holds no PEM certificate"),
        "{refused}"
    );
    assert_eq!(presented_subject(addr, &pki.ca).await, "CN=after renewal");
}

/// A certificate out of its dates is served all the same, with a warning naming it and its
/// dates: an expired one at start, one not valid yet on a reload, and nothing of the kind for a
/// valid one.
#[tokio::test(flavor = "multi_thread")]
async fn a_certificate_out_of_its_dates_is_served_with_a_warning_at_start_and_on_reload() {
    let pki = Pki::new();
    let (cert, key) = pki.issue(
        "lapsed",
        "lapsed.example.test",
        &["localhost", "127.0.0.1"],
        (2000, 2001),
        Use::Server,
    );
    let server = Logged::start(&cert, &key);
    let expired = server.wait_for("the TLS certificate has expired").await;
    for part in [
        "subject=CN=lapsed.example.test",
        "not_before=2000-01-01T00:00:00Z",
        "not_after=2001-01-01T00:00:00Z",
        "WARN",
    ] {
        assert!(expired.contains(part), "{part} in {expired}");
    }
    let addr = server.listening().await;
    let tcp = tokio::net::TcpStream::connect(addr).await;
    assert!(tcp.is_ok(), "it serves: {tcp:?}");

    let (early_cert, early_key) = pki.issue(
        "early",
        "early.example.test",
        &["localhost", "127.0.0.1"],
        (3000, 4000),
        Use::Server,
    );
    std::fs::copy(&early_cert, &cert).unwrap();
    std::fs::copy(&early_key, &key).unwrap();
    server.hangup();
    let early = server
        .wait_for("the TLS certificate is not valid yet")
        .await;
    assert!(
        early.contains("subject=CN=early.example.test")
            && early.contains("not_before=3000-01-01T00:00:00Z"),
        "{early}"
    );
    server.wait_for("TLS certificate reloaded").await;

    let (good_cert, good_key) = pki.localhost("good", "good.example.test");
    std::fs::copy(&good_cert, &cert).unwrap();
    std::fs::copy(&good_key, &key).unwrap();
    server.hangup();
    let reload = server.until("TLS certificate reloaded").await;
    assert!(
        !reload.iter().any(|line| line.contains("WARN")),
        "no warning for a valid one: {reload:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_full_certification_passes_over_tls() {
    let (pki, server, base_url) = https_server("localhost").await;
    let mut settings = harness(&base_url, cacert(&pki));
    settings.tags = None;
    settings.features = Some(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/features"
    )));
    let report = certify(&settings).await;
    server.stop().await;

    let report = report.unwrap();
    let counts = report.counts();
    assert!(
        counts.failed == 0 && counts.skipped == 0 && counts.passed > 200,
        "{}",
        report.terminal_summary()
    );
    assert!(report.certified(), "{}", report.terminal_summary());
}
