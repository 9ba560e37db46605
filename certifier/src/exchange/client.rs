//! The one HTTP client of a run, built in one place from its settings: the roots it trusts (the
//! platform's, Mozilla's and `--cacert`), `--insecure`, the client certificate, the proxies the
//! environment names, the timeouts. Every exchange of the harness goes through it, so what the
//! certificate says of the target's identity holds for every request. Why it got no answer
//! reads as one line naming the cause.
use std::{error::Error as StdError, path::Path, time::Duration};

use reqwest::{Certificate, Client, Identity, NoProxy, Proxy, tls::TlsInfo};
use rustls::pki_types::{CertificateDer, UnixTime, pem::PemObject as _};

use crate::{
    exchange::settings::{ProxySetting, Settings},
    exchange::x509,
};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

fn read(option: &str, path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {option} {}: {e}", path.display()))
}

/// The run's client.
pub fn build(settings: &Settings) -> Result<Client, String> {
    // ring, the provider the server uses too; the first call in a process installs it.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let tls = &settings.tls;
    let mozilla = webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| Certificate::from_der(der).ok());
    let mut builder = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(settings.timeout)
        .connect_timeout(CONNECT_TIMEOUT.min(settings.timeout))
        .tls_info(true)
        // Mozilla's roots beside the platform's: a host without a CA bundle still reaches a
        // public target.
        .tls_certs_merge(mozilla)
        .no_proxy();
    if let Some(path) = &tls.cacert {
        let pem = read("--cacert", path)?;
        let certs = Certificate::from_pem_bundle(&pem)
            .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
        if certs.is_empty() {
            return Err(format!(
                "--cacert {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                path.display()
            ));
        }
        builder = builder.tls_certs_merge(certs);
    }
    if tls.insecure {
        builder = builder.tls_danger_accept_invalid_certs(true);
    }
    if !settings.http2 {
        builder = builder.http1_only();
    }
    match (&tls.cert, &tls.key) {
        (None, None) => {}
        (None, Some(_)) => return Err("--key needs --cert, the certificate it belongs to".into()),
        (Some(cert), key) => {
            let mut pem = read("--cert", cert)?;
            if let Some(key) = key {
                pem.push(b'\n');
                pem.extend(read("--key", key)?);
            }
            let identity = Identity::from_pem(&pem).map_err(|e| {
                format!(
                    "--cert {}{}: {} (a PEM certificate and its PEM private key are needed)",
                    cert.display(),
                    key.as_ref()
                        .map(|k| format!(" --key {}", k.display()))
                        .unwrap_or_default(),
                    cause(&e)
                )
            })?;
            builder = builder.identity(identity);
        }
    }
    let proxies = &settings.proxies;
    let exempt = || proxies.no_proxy.as_deref().and_then(NoProxy::from_string);
    for (setting, https) in [(&proxies.http, false), (&proxies.https, true)] {
        if let Some(setting) = setting {
            let made = match https {
                false => Proxy::http(setting.url.as_str()),
                true => Proxy::https(setting.url.as_str()),
            };
            let proxy = made.map_err(|e| {
                format!(
                    "{} in {} is not a proxy address: {}",
                    setting.shown(),
                    setting.variable,
                    cause(&e)
                )
            })?;
            builder = builder.proxy(proxy.no_proxy(exempt()));
        }
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {}", cause(&e)))
}

/// The deepest cause of an error, which names what went wrong.
fn cause(e: &(dyn StdError + 'static)) -> String {
    let mut last = e.to_string();
    let mut source = e.source();
    while let Some(c) = source {
        last = c.to_string();
        source = c.source();
    }
    last
}

/// Why an exchange got no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// One line naming the cause.
    pub line: String,
    /// A target still starting may answer later; a certificate or a proxy will not change.
    pub transient: bool,
}

/// The rustls error somewhere in an error's causes (I/O errors carry it inside, nested).
fn tls_error<'a>(e: &'a (dyn StdError + 'static)) -> Option<&'a rustls::Error> {
    let mut next = Some(e);
    while let Some(err) = next {
        if let Some(tls) = err.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        next = match err
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            Some(inner) => Some(inner as &(dyn StdError + 'static)),
            None => err.source(),
        };
    }
    None
}

fn moment(t: &UnixTime) -> String {
    time::OffsetDateTime::from_unix_timestamp(t.as_secs() as i64)
        .ok()
        .map(crate::exchange::timestamps::format)
        .unwrap_or_else(|| format!("{} s after 1970", t.as_secs()))
}

/// One line for an exchange with the target at `base_url` that got no answer.
pub fn failure(base_url: &str, settings: &Settings, e: &reqwest::Error) -> Failure {
    let fatal = |line: String| Failure {
        line,
        transient: false,
    };
    if let Some(tls) = tls_error(e) {
        return fatal(format!(
            "the target at {base_url} {}",
            tls_cause(tls, settings, e)
        ));
    }
    let scheme = e
        .url()
        .map(|u| u.scheme().to_owned())
        .unwrap_or_else(|| base_url.split("://").next().unwrap_or("http").to_owned());
    let tunnel = {
        let mut next: Option<&(dyn StdError + 'static)> = Some(e);
        let mut found = None;
        while let Some(err) = next {
            let text = err.to_string();
            if text.starts_with("tunnel error") {
                found = Some(text);
                break;
            }
            next = err.source();
        }
        found
    };
    if let Some(tunnel) = tunnel {
        let proxy = settings
            .proxies
            .for_scheme(&scheme)
            .map(|p| format!("the proxy {} ({})", p.shown(), p.variable))
            .unwrap_or_else(|| "the proxy".to_owned());
        let host = e
            .url()
            .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)))
            .unwrap_or_else(|| base_url.to_owned());
        let line = if tunnel.ends_with("unsuccessful") {
            // The client does not say what the proxy answered: asking once more by hand does.
            let answered = settings
                .proxies
                .for_scheme(&scheme)
                .and_then(|p| super::tunnel::refusal(p, &host))
                .map(|status| format!("it answered CONNECT with {status}"))
                .unwrap_or_else(|| "its answer to CONNECT was not 200".to_owned());
            format!(
                "{proxy} refused to open a tunnel to {host}: {answered}; check NO_PROXY, or the proxy's rules for {host}"
            )
        } else if tunnel.ends_with("proxy authorization required") {
            format!(
                "{proxy} asks for credentials (407): give them in its address, http://USER:PASSWORD@HOST:PORT"
            )
        } else {
            format!(
                "the target at {base_url} cannot be reached through {proxy}: {}",
                cause(e)
            )
        };
        return fatal(line);
    }
    let through = settings
        .proxies
        .for_scheme(&scheme)
        .filter(|_| e.is_connect() && !exempted(settings, e.url()))
        .map(|p| format!(" through the proxy {} ({})", p.shown(), p.variable))
        .unwrap_or_default();
    // An https server answers plain http with TLS bytes, which do not parse as HTTP.
    let hint = if scheme == "http" && cause(e).contains("invalid HTTP version") {
        "; does it serve https at this address?"
    } else {
        ""
    };
    Failure {
        line: format!(
            "the target at {base_url} cannot be reached{through}: {}{hint}",
            cause(e)
        ),
        transient: (e.is_connect() && through.is_empty()) || closed_after_handshake(&scheme, e),
    }
}

/// A name a certificate presents, as rustls writes it (`DnsName("sandbox.example.test")`,
/// `IpAddress(10.0.0.7)`), as a person writes it.
fn plain_name(presented: &str) -> String {
    let inner = presented
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or(presented);
    inner.trim_matches('"').to_owned()
}

/// Over TLS 1.3 a server that refuses the client (no client certificate, say) says so in an
/// alert after the client has finished its handshake, so the alert may lose the race to the
/// first request: the connection is then seen closed, without the alert. Asking again lets
/// the alert, which names the cause, arrive first.
fn closed_after_handshake(scheme: &str, e: &reqwest::Error) -> bool {
    let text = cause(e);
    scheme == "https"
        && [
            "not ready",
            "closed before message completed",
            "reset by peer",
        ]
        .iter()
        .any(|closed| text.contains(closed))
}

/// What a TLS failure says about the target, after "the target at URL".
fn tls_cause(tls: &rustls::Error, settings: &Settings, e: &reqwest::Error) -> String {
    use rustls::{AlertDescription as A, CertificateError as C, Error as E};
    let host = e
        .url()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default();
    let client_cert = settings.tls.cert.as_ref().map(|p| p.display().to_string());
    match tls {
        E::InvalidCertificate(C::UnknownIssuer) => format!(
            "cannot be trusted: its certificate has an unknown issuer; pass --cacert FILE with the certificate of the authority that issued it (PEM){}, or --insecure to skip the check",
            settings
                .tls
                .cacert
                .as_ref()
                .map(|p| format!(" ({} does not hold it)", p.display()))
                .unwrap_or_default()
        ),
        E::InvalidCertificate(C::Expired) => {
            "cannot be trusted: its certificate has expired; the target must renew it (or pass --insecure to skip the check)".to_owned()
        }
        E::InvalidCertificate(C::ExpiredContext { time, not_after }) => format!(
            "cannot be trusted: its certificate has expired (valid until {}, now {}); the target must renew it (or pass --insecure to skip the check)",
            moment(not_after),
            moment(time)
        ),
        E::InvalidCertificate(C::NotValidYet | C::NotValidYetContext { .. }) => {
            "cannot be trusted: its certificate is not valid yet (is this machine's clock right?)".to_owned()
        }
        E::InvalidCertificate(C::NotValidForName) => format!(
            "cannot be trusted: its certificate is not valid for {host}; use the name it was issued for in --base-url (or --insecure to skip the check)"
        ),
        E::InvalidCertificate(C::NotValidForNameContext { presented, .. }) => format!(
            "cannot be trusted: its certificate is not valid for {host} (it is for {}); use a name it was issued for in --base-url (or --insecure to skip the check)",
            if presented.is_empty() {
                "no name".to_owned()
            } else {
                presented
                    .iter()
                    .map(|name| plain_name(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        E::InvalidCertificate(C::Revoked) => {
            "cannot be trusted: its certificate has been revoked".to_owned()
        }
        E::InvalidCertificate(other) => format!(
            "cannot be trusted: its certificate cannot be verified ({other:?}); pass --cacert FILE for a private authority, or --insecure to skip the check"
        ),
        E::AlertReceived(A::CertificateRequired) => match client_cert {
            None => "asks for a client certificate: pass --cert FILE and --key FILE".to_owned(),
            Some(cert) => format!("did not take the client certificate --cert {cert}"),
        },
        E::AlertReceived(
            alert @ (A::BadCertificate
            | A::UnknownCA
            | A::CertificateUnknown
            | A::UnsupportedCertificate
            | A::CertificateExpired
            | A::CertificateRevoked
            | A::AccessDenied
            | A::HandshakeFailure),
        ) => match client_cert {
            Some(cert) => format!(
                "refused the TLS handshake ({alert:?}): it does not take the client certificate --cert {cert}"
            ),
            None => format!(
                "refused the TLS handshake ({alert:?}): if it asks for a client certificate, pass --cert FILE and --key FILE"
            ),
        },
        E::InvalidMessage(_) => format!(
            "does not speak TLS ({tls}): does it serve plain http at this address?"
        ),
        other => format!("refused the TLS handshake: {other}"),
    }
}

/// Whether `NO_PROXY` sends the URL's host past the proxy (as curl reads it: `*`, a host, a
/// domain and its subdomains, an IP).
fn exempted(settings: &Settings, url: Option<&reqwest::Url>) -> bool {
    let (Some(list), Some(host)) = (
        settings.proxies.no_proxy.as_deref(),
        url.and_then(|u| u.host_str()),
    ) else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    list.split(',').map(str::trim).any(|entry| {
        let entry = entry.trim_start_matches('.');
        entry == "*"
            || (!entry.is_empty()
                && (host.eq_ignore_ascii_case(entry)
                    || host
                        .to_ascii_lowercase()
                        .ends_with(&format!(".{}", entry.to_ascii_lowercase()))))
    })
}

/// How the run reached the target, for the certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    /// `http` or `https`.
    pub scheme: String,
    /// `HTTP/1.1`, `HTTP/2`.
    pub http_version: String,
    /// The certificate the target presented (https).
    pub presented: Option<x509::Named>,
    /// `--insecure`: the certificate was taken without a check.
    pub insecure: bool,
    /// The extra authority trusted (`--cacert`).
    pub cacert: Option<String>,
    /// The subject of the run's own certificate (`--cert`).
    pub client_certificate: Option<String>,
    /// `http://proxy:3128 (HTTPS_PROXY)`.
    pub proxy: Option<String>,
}

impl Connection {
    /// From the first answer of the target.
    pub fn of(settings: &Settings, response: &reqwest::Response) -> Connection {
        let url = response.url();
        let scheme = url.scheme().to_owned();
        let presented = response
            .extensions()
            .get::<TlsInfo>()
            .and_then(TlsInfo::peer_certificate)
            .and_then(x509::named);
        let client_certificate = settings.tls.cert.as_ref().and_then(|path| {
            let pem = std::fs::read(path).ok()?;
            let der = CertificateDer::pem_slice_iter(&pem).next()?.ok()?;
            x509::named(&der).map(|n| n.subject)
        });
        let proxy = settings
            .proxies
            .for_scheme(&scheme)
            .filter(|_| !exempted(settings, Some(url)))
            .map(|p: &ProxySetting| format!("{} ({})", p.shown(), p.variable));
        Connection {
            http_version: match response.version() {
                reqwest::Version::HTTP_2 => "HTTP/2".to_owned(),
                reqwest::Version::HTTP_3 => "HTTP/3".to_owned(),
                other => format!("{other:?}"),
            },
            presented,
            insecure: scheme == "https" && settings.tls.insecure,
            cacert: settings
                .tls
                .cacert
                .as_ref()
                .map(|p| p.display().to_string()),
            client_certificate: client_certificate.filter(|_| scheme == "https"),
            proxy,
            scheme,
        }
    }

    /// The target's identity was taken without a check (`--insecure`).
    pub fn unverified(&self) -> bool {
        self.scheme == "https" && self.insecure
    }

    /// The warning the certificate opens with, when the target's identity was not verified.
    pub fn warning(&self) -> Option<String> {
        self.unverified().then(|| {
            format!(
                "The target's identity was not verified (`--insecure`): the run took the certificate it presented{} without checking it, so these results could be another server's.",
                self.presented
                    .as_ref()
                    .map(|n| format!(" (`{}`)", n.subject))
                    .unwrap_or_default()
            )
        })
    }

    /// One sentence: scheme, protocol, the certificate and whether it was verified, the run's
    /// own certificate, the proxy.
    pub fn describe(&self) -> String {
        let mut text = if self.scheme != "https" {
            format!(
                "{} ({}), not encrypted: the target's identity is not checked",
                self.scheme, self.http_version
            )
        } else {
            let certificate = match &self.presented {
                Some(n) => format!(
                    "certificate `{}` issued by `{}`, valid until {}",
                    n.subject, n.issuer, n.not_after
                ),
                None => "a certificate that could not be read".to_owned(),
            };
            let check = if self.insecure {
                "**not verified** (`--insecure`)".to_owned()
            } else {
                format!(
                    "verified against the platform's and Mozilla's roots{}",
                    self.cacert
                        .as_ref()
                        .map(|p| format!(" and `--cacert {p}`"))
                        .unwrap_or_default()
                )
            };
            format!("https ({}), {certificate}, {check}", self.http_version)
        };
        if let Some(subject) = &self.client_certificate {
            text.push_str(&format!("; client certificate `{subject}`"));
        }
        if let Some(proxy) = &self.proxy {
            text.push_str(&format!("; through the proxy `{proxy}`"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use crate::exchange::client::plain_name;

    #[test]
    fn a_presented_name_reads_as_written() {
        assert_eq!(
            plain_name("DnsName(\"sandbox.example.test\")"),
            "sandbox.example.test"
        );
        assert_eq!(plain_name("IpAddress(10.0.0.7)"), "10.0.0.7");
        assert_eq!(plain_name("plain"), "plain");
    }
}
