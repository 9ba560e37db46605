//! HTTPS for the server: the certificate chain and key read from PEM files and checked, and read
//! again on each reload request (SIGHUP), keeping the previous pair when the new one is unusable.
use futures_util::stream::{self, Stream, StreamExt as _};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject as _};
use rustls::sign::CertifiedKey;
use salvo::conn::rustls::{Keycert, RustlsConfig, ServerConfig};
use std::path::PathBuf;
use tokio::sync::mpsc;

/// `--tls-cert` and `--tls-key`.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl TlsFiles {
    /// Reads and checks both files: a chain whose first certificate the key belongs to. The
    /// listener offers HTTP/2 and HTTP/1.1 by ALPN.
    pub fn load(&self) -> Result<RustlsConfig, String> {
        let read = |option: &str, path: &PathBuf| {
            std::fs::read(path).map_err(|e| format!("cannot read {option} {}: {e}", path.display()))
        };
        let cert = read("--tls-cert", &self.cert)?;
        let key = read("--tls-key", &self.key)?;
        let chain = CertificateDer::pem_slice_iter(&cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("--tls-cert {}: {e}", self.cert.display()))?;
        if chain.is_empty() {
            return Err(format!(
                "--tls-cert {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                self.cert.display()
            ));
        }
        let private = PrivateKeyDer::from_pem_slice(&key).map_err(|e| {
            format!(
                "--tls-key {} holds no PEM private key: {e}",
                self.key.display()
            )
        })?;
        let provider = rustls::crypto::ring::default_provider();
        CertifiedKey::from_der(chain, private, &provider).map_err(|e| match e {
            rustls::Error::InconsistentKeys(_) => format!(
                "the key in --tls-key {} does not belong to the certificate in --tls-cert {}",
                self.key.display(),
                self.cert.display()
            ),
            e => format!(
                "--tls-cert {} with --tls-key {}: {e}",
                self.cert.display(),
                self.key.display()
            ),
        })?;
        let config = RustlsConfig::new(Keycert::new().cert(cert).key(key));
        let _: ServerConfig = config
            .clone()
            .try_into()
            .map_err(|e: std::io::Error| format!("--tls-cert and --tls-key: {e}"))?;
        Ok(config)
    }
}

/// Asks a TLS listener to read its certificate and key again.
#[derive(Clone, Debug)]
pub struct TlsReload(mpsc::UnboundedSender<()>);

impl TlsReload {
    /// Queues a reload; false once the listener is gone.
    pub fn request(&self) -> bool {
        self.0.send(()).is_ok()
    }
}

/// The listener's configurations: `initial`, then one per reload request whose files load.
/// A pair that does not load is logged and skipped, so the listener keeps the one it has.
pub fn configs(
    files: TlsFiles,
    initial: RustlsConfig,
) -> (impl Stream<Item = RustlsConfig> + Send + 'static, TlsReload) {
    let (send, receive) = mpsc::unbounded_channel();
    let reloads = stream::unfold((receive, files), |(mut receive, files)| async move {
        loop {
            receive.recv().await?;
            match files.load() {
                Ok(config) => {
                    tracing::info!(
                        cert = %files.cert.display(),
                        "TLS certificate reloaded"
                    );
                    return Some((config, (receive, files)));
                }
                Err(e) => {
                    tracing::error!("TLS certificate not reloaded, the previous one is kept: {e}")
                }
            }
        }
    });
    (
        stream::once(async move { initial }).chain(reloads),
        TlsReload(send),
    )
}

/// Reloads on each SIGHUP, as a renewal hook (certbot's `--deploy-hook`) sends it.
pub fn reload_on_hangup(reload: TlsReload) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::hangup()) {
            Ok(mut hangup) => {
                tokio::spawn(async move {
                    while hangup.recv().await.is_some() {
                        tracing::info!("SIGHUP: reading the TLS certificate and key again");
                        if !reload.request() {
                            break;
                        }
                    }
                });
            }
            Err(e) => tracing::warn!("cannot listen for SIGHUP to reload the certificate: {e}"),
        }
    }
    #[cfg(not(unix))]
    drop(reload);
}
