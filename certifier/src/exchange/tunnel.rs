//! A tunnel through an HTTP proxy opened by hand (`CONNECT host:port`), as the run's client
//! opens one, to learn what the client does not tell: the status a refusing proxy answered, and
//! the certificate the target presents through the tunnel, which the certificate names as it
//! does for a target reached directly. The run's own exchanges never go through here.
use std::{
    io::{BufRead, BufReader, Write},
    net::{TcpStream, ToSocketAddrs},
    sync::Arc,
    time::Duration,
};

use base64::Engine as _;
use rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme,
    client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    pki_types::{CertificateDer, ServerName, UnixTime},
};

use crate::exchange::{settings::ProxySetting, x509};

const TIMEOUT: Duration = Duration::from_secs(5);

/// A tunnel to `authority` (`host:port`) through `proxy`, or the proxy's status line when it
/// refuses (`403 Forbidden`).
fn open(proxy: &ProxySetting, authority: &str) -> Result<TcpStream, String> {
    let url = reqwest::Url::parse(&proxy.url).map_err(|e| e.to_string())?;
    let address = (
        url.host_str().ok_or("no host")?,
        url.port_or_known_default().unwrap_or(3128),
    )
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no address")?;
    let mut stream = TcpStream::connect_timeout(&address, TIMEOUT).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(TIMEOUT)).ok();
    stream.set_write_timeout(Some(TIMEOUT)).ok();
    let mut request = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
    if !url.username().is_empty() {
        let credentials = format!("{}:{}", url.username(), url.password().unwrap_or(""));
        let encoded = base64::engine::general_purpose::STANDARD.encode(credentials);
        request.push_str(&format!("Proxy-Authorization: Basic {encoded}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
    let mut status = String::new();
    reader.read_line(&mut status).map_err(|e| e.to_string())?;
    // The rest of the proxy's answer, up to the blank line that ends it.
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 || line == "\r\n" {
            break;
        }
    }
    let status = status
        .trim()
        .split_once(' ')
        .map(|(_, rest)| rest.to_owned())
        .unwrap_or_default();
    if status.starts_with("200") {
        Ok(stream)
    } else {
        Err(status)
    }
}

/// What a proxy that refused to open a tunnel to `authority` answered (`403 Forbidden`).
pub fn refusal(proxy: &ProxySetting, authority: &str) -> Option<String> {
    match open(proxy, authority) {
        Err(status) if !status.is_empty() => Some(status),
        _ => None,
    }
}

/// The certificate `host` presents through a tunnel of `proxy`, read (never checked: the run's
/// client has checked it) for the certificate to name.
pub fn presented(proxy: &ProxySetting, host: &str, port: u16) -> Option<x509::Named> {
    let mut stream = open(proxy, &format!("{host}:{port}")).ok()?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .ok()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(ReadOnly(provider)))
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_owned()).ok()?;
    let mut connection = ClientConnection::new(Arc::new(config), name).ok()?;
    while connection.is_handshaking() {
        connection.complete_io(&mut stream).ok()?;
    }
    let first = connection.peer_certificates()?.first()?.clone();
    x509::named(first.as_ref())
}

/// Takes any certificate: the names are read, the trust was decided by the run's own client.
#[derive(Debug)]
struct ReadOnly(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for ReadOnly {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &CertificateDer<'_>,
        _: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }

    fn verify_tls13_signature(
        &self,
        _: &[u8],
        _: &CertificateDer<'_>,
        _: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
