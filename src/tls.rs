//! HTTPS for the server: the certificate chain and key read from PEM files and checked, and read
//! again on each reload request (SIGHUP), keeping the previous pair when the new one is unusable.
//!
//! A certificate out of its dates (expired, or not valid yet) is served all the same, as web
//! servers do, with a warning naming it and its dates at start and at each reload: refusing to
//! start would turn a lapsed renewal into an outage of the whole sandbox (its plain-HTTP
//! clients, its health checks, the fix itself), while clients refuse the certificate anyway;
//! the warning says what to renew.
use futures_util::stream::{self, Stream, StreamExt as _};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject as _};
use rustls::sign::CertifiedKey;
use salvo::conn::rustls::{Keycert, RustlsConfig, ServerConfig};
use std::path::PathBuf;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
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
        let validity = Validity::of(&chain[0]);
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
        if let Some(validity) = validity {
            self.warn_if_out_of_date(&validity, OffsetDateTime::now_utc());
        }
        Ok(config)
    }

    /// Warns when the certificate served is out of its dates at `now` (the wall clock, which
    /// clients judge it by, whatever a test clock says).
    fn warn_if_out_of_date(&self, validity: &Validity, now: OffsetDateTime) {
        let Some(problem) = validity.problem_at(now) else {
            return;
        };
        let date = |t: OffsetDateTime| t.format(&Rfc3339).unwrap_or_else(|_| t.to_string());
        tracing::warn!(
            cert = %self.cert.display(),
            subject = %validity.subject,
            not_before = %date(validity.not_before),
            not_after = %date(validity.not_after),
            "the TLS certificate {problem}: clients will refuse it; it is served all the same \
             until a valid one replaces it (renew it, then send SIGHUP)"
        );
    }
}

/// Whom a certificate names and the dates it is valid between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validity {
    /// `CN=sandbox.example.test`, as the certificate writes it.
    pub subject: String,
    pub not_before: OffsetDateTime,
    pub not_after: OffsetDateTime,
}

impl Validity {
    /// The validity of a DER certificate; `None` when it does not parse (rustls then says why).
    pub fn of(der: &[u8]) -> Option<Validity> {
        let (_, certificate) = x509_parser::parse_x509_certificate(der).ok()?;
        let dates = certificate.validity();
        let at = |t: &x509_parser::time::ASN1Time| {
            OffsetDateTime::from_unix_timestamp(t.timestamp()).ok()
        };
        Some(Validity {
            subject: certificate.subject().to_string(),
            not_before: at(&dates.not_before)?,
            not_after: at(&dates.not_after)?,
        })
    }

    /// What is wrong with it at `now`: `None` within its dates.
    pub fn problem_at(&self, now: OffsetDateTime) -> Option<&'static str> {
        if now < self.not_before {
            Some("is not valid yet")
        } else if now > self.not_after {
            Some("has expired")
        } else {
            None
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn certificate(from: i32, until: i32) -> Vec<u8> {
        let key = rcgen::KeyPair::generate().expect("a key");
        let mut params =
            rcgen::CertificateParams::new(vec!["localhost".to_string()]).expect("params");
        params.distinguished_name = rcgen::DistinguishedName::new();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "sandbox.example.test");
        params.not_before = rcgen::date_time_ymd(from, 1, 1);
        params.not_after = rcgen::date_time_ymd(until, 1, 1);
        params.self_signed(&key).expect("signed").der().to_vec()
    }

    #[test]
    fn a_certificate_is_judged_by_its_dates() {
        let v = Validity::of(&certificate(2020, 2030)).expect("parses");
        assert_eq!(v.subject, "CN=sandbox.example.test");
        assert_eq!(
            (v.not_before, v.not_after),
            (
                datetime!(2020-01-01 0:00 UTC),
                datetime!(2030-01-01 0:00 UTC)
            )
        );
        assert_eq!(
            v.problem_at(datetime!(2019-12-31 23:59 UTC)),
            Some("is not valid yet")
        );
        assert_eq!(v.problem_at(datetime!(2026-11-27 14:30 UTC)), None);
        assert_eq!(
            v.problem_at(datetime!(2030-01-01 0:00:01 UTC)),
            Some("has expired")
        );
        assert_eq!(Validity::of(b"not a certificate"), None);
    }
}
