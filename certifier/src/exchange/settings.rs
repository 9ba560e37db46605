//! What a certification run is told: the target, how to reach it (TLS, proxies), the brokers
//! that act on it, where reports go.
use std::{path::PathBuf, str::FromStr, time::Duration};

/// Basic-auth credentials of one broker: the user name is the broker's key (upstream's auth
/// file names the broker beside it), the password usually empty; and, when the run is told,
/// the name the target shows as the `owner` of what the broker creates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broker {
    /// The Basic-auth user name: the broker's key.
    pub name: String,
    pub password: String,
    /// The `owner` the key stands for (`KEY=NAME`), when the run is told.
    pub owner: Option<String>,
}

impl FromStr for Broker {
    type Err = String;

    /// `KEY`, `KEY:PASSWORD`, `KEY=NAME` or `KEY=NAME:PASSWORD` (a name holds no `:`; a
    /// password may hold anything).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (key, rest) = match s.find([':', '=']) {
            Some(at) => (&s[..at], Some(&s[at..])),
            None => (s, None),
        };
        if key.is_empty() {
            return Err("a broker needs a key (the Basic-auth user name)".into());
        }
        let (owner, password) = match rest {
            None => (None, ""),
            Some(rest) => match rest.strip_prefix('=') {
                Some(named) => {
                    let (name, password) = named.split_once(':').unwrap_or((named, ""));
                    if name.is_empty() {
                        return Err(format!("{s:?}: KEY=NAME needs the name the key stands for"));
                    }
                    (Some(name.to_owned()), password)
                }
                None => (None, &rest[1..]),
            },
        };
        Ok(Broker {
            name: key.into(),
            password: password.into(),
            owner,
        })
    }
}

impl Broker {
    fn keyed(name: &str) -> Broker {
        Broker {
            name: name.into(),
            password: String::new(),
            owner: None,
        }
    }

    /// `broker`, the default owner.
    pub fn default_owner() -> Broker {
        Broker::keyed("broker")
    }

    /// `broker1`, the default other party.
    pub fn default_other() -> Broker {
        Broker::keyed("broker1")
    }

    /// The broker as a certificate names it: its key, and the name it stands for when told.
    pub fn shown(&self) -> String {
        match &self.owner {
            Some(owner) => format!("{} (owner {owner})", self.name),
            None => self.name.clone(),
        }
    }
}

/// The most test clocks a run makes unless told (`--test-clocks N`). A clock whose records are
/// still live outlives the run (the target will not delete it), and a target bounds the clocks
/// a broker holds (the reference server: 100), so a run leaves room for the next. Measured on a
/// full run of the reference server at a 50 ms round trip: 16 clocks 12.8 s, 32 clocks 9.8 s,
/// 48 clocks 9.3 s, 100 clocks 9.3 s (the longest scenario and the serial ones set the floor).
pub const DEFAULT_TEST_CLOCKS: usize = 48;

/// Everything a run needs besides cucumber's own options.
#[derive(Clone, Debug)]
pub struct Settings {
    /// `http://host:port` of the implementation under test, without `/api/2.3`.
    pub base_url: String,
    /// The broker that creates tenders and acts as their owner.
    pub owner: Broker,
    /// The broker that bids, asks questions and tries another broker's token.
    pub other: Broker,
    /// When set, advisory `@upstream` failures also fail the run.
    pub strict: bool,
    pub junit: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub report: Option<PathBuf>,
    /// The certificate as one self-contained HTML page.
    pub html: Option<PathBuf>,
    /// Seed of the generated names, addresses and amounts; a fresh one when absent.
    pub seed: Option<u64>,
    /// Directory holding the `.feature` files; the set built into the harness when absent.
    pub features: Option<PathBuf>,
    /// Tag expression limiting the scenarios run.
    pub tags: Option<String>,
    /// Without a clock control API: length of each period of a tender that must move in time.
    pub period: Duration,
    /// Without a clock control API: the longest wait for one date. A date further away than
    /// this on the target's clock is not waited for, and the target gets this long past a date
    /// to act.
    pub wait_budget: Duration,
    /// Without a clock control API: ask the target to compute its durations N times shorter,
    /// with upstream's sandbox fields on every tender the run creates.
    pub accelerator: Option<u32>,
    /// A scenario that could not be checked (beyond the time budget, or of an extension the
    /// target does not offer) fails the run.
    pub fail_on_skip: bool,
    /// Never move the target's clock, even through its control API: wait in real time, as
    /// for a target without one.
    pub keep_clock: bool,
    /// What the run shows while it goes.
    pub progress: LiveOutput,
    /// How the target's identity is checked, and the run's own.
    pub tls: TlsOptions,
    /// The proxies to reach the target through, as the environment names them.
    pub proxies: Proxies,
    /// `--http2`: offer HTTP/2 by ALPN over TLS (else HTTP/1.1 alone). Scenarios run side by
    /// side then share one connection, so a target that drops a connection to fail one
    /// exchange fails every exchange in flight on it.
    pub http2: bool,
    /// `--timeout SECONDS`: the longest one exchange may take; past it the exchange fails its
    /// scenario, naming the request.
    pub timeout: Duration,
    /// `--move-own-clock`: on a target that offers test clocks but has none for the run, move
    /// the broker's own clock instead (every tender of the broker moves with it); without it the
    /// run waits in real time.
    pub move_own_clock: bool,
    /// `--keep-records`: leave what the run made as it is at the end, for a look at it (else the
    /// run cancels the tenders still live and terminates the contracts under management still
    /// active, then deletes its test clocks).
    pub keep_records: bool,
    /// Stop the scenarios on Ctrl-C, then settle what they made (the binary's runs).
    pub stop_on_interrupt: bool,
    /// `--document-service URL`: where the run uploads its documents' files (credentials in the
    /// URL's user part, else the owner broker's); without it, the target's root when it is its
    /// own document service.
    pub document_service: Option<String>,
    /// `--test-clocks N`: on a target that offers test clocks, the most the run makes, one for
    /// each scenario that moves time while it runs; 0 moves the owner's clock instead, one such
    /// scenario at a time.
    pub test_clocks: usize,
}

/// curl's TLS options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// `--cacert FILE`: more authorities to trust (PEM), besides the platform's and Mozilla's.
    pub cacert: Option<PathBuf>,
    /// `--insecure`: accept any certificate; the certificate says the target was not verified.
    pub insecure: bool,
    /// `--cert FILE`: the run's client certificate (PEM; may hold the key too).
    pub cert: Option<PathBuf>,
    /// `--key FILE`: the key of `--cert` (PEM).
    pub key: Option<PathBuf>,
}

/// One proxy and the environment variable that named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProxySetting {
    pub url: String,
    pub variable: &'static str,
}

impl ProxySetting {
    /// The address without its credentials, for messages and the certificate.
    pub fn shown(&self) -> String {
        match self.url.split_once("://") {
            Some((scheme, rest)) => match rest.split_once('@') {
                Some((_, host)) => format!("{scheme}://{host}"),
                None => self.url.clone(),
            },
            None => self.url.clone(),
        }
    }
}

/// The proxies of a run, read as curl reads them: `https_proxy`/`HTTPS_PROXY` for https,
/// `http_proxy`/`HTTP_PROXY` for http, `all_proxy`/`ALL_PROXY` for either when the first is
/// unset, and `no_proxy`/`NO_PROXY` for the hosts reached directly (lowercase first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proxies {
    pub http: Option<ProxySetting>,
    pub https: Option<ProxySetting>,
    pub no_proxy: Option<String>,
}

impl Proxies {
    pub fn from_env() -> Proxies {
        Proxies::from_lookup(|name| std::env::var(name).ok())
    }

    /// From any source of variables; empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Proxies {
        let first = |names: &[&'static str]| {
            names.iter().find_map(|name| {
                lookup(name)
                    .map(|v| v.trim().to_owned())
                    .filter(|v| !v.is_empty())
                    .map(|url| ProxySetting {
                        url: if url.contains("://") {
                            url
                        } else {
                            format!("http://{url}")
                        },
                        variable: name,
                    })
            })
        };
        let all = first(&["all_proxy", "ALL_PROXY"]);
        // Under CGI, HTTP_PROXY is the client's `Proxy:` header, not a setting (httpoxy).
        let http_names: &[&'static str] = if lookup("REQUEST_METHOD").is_some() {
            &["http_proxy"]
        } else {
            &["http_proxy", "HTTP_PROXY"]
        };
        Proxies {
            http: first(http_names).or_else(|| all.clone()),
            https: first(&["https_proxy", "HTTPS_PROXY"]).or(all),
            no_proxy: ["no_proxy", "NO_PROXY"]
                .iter()
                .find_map(|name| lookup(name))
                .filter(|v| !v.trim().is_empty()),
        }
    }

    /// The proxy for URLs of this scheme (`no_proxy` aside).
    pub fn for_scheme(&self, scheme: &str) -> Option<&ProxySetting> {
        match scheme {
            "https" => self.https.as_ref(),
            "http" => self.http.as_ref(),
            _ => None,
        }
    }
}

/// What a run shows while it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveOutput {
    /// Cucumber's step-by-step output (logs, files).
    Steps,
    /// One status line: scenarios done of the total and the dates being waited for (a terminal).
    Bar,
    /// Nothing (tests that run the harness many times).
    Off,
}

impl Settings {
    pub fn new(base_url: impl Into<String>) -> Settings {
        Settings {
            base_url: base_url.into(),
            owner: Broker::default_owner(),
            other: Broker::default_other(),
            strict: false,
            junit: None,
            json: None,
            report: None,
            html: None,
            seed: None,
            features: None,
            tags: None,
            period: Duration::from_secs(4),
            wait_budget: Duration::from_secs(60),
            accelerator: None,
            fail_on_skip: false,
            keep_clock: false,
            progress: LiveOutput::Steps,
            tls: TlsOptions::default(),
            proxies: Proxies::from_env(),
            http2: false,
            timeout: Duration::from_secs(30),
            test_clocks: DEFAULT_TEST_CLOCKS,
            document_service: None,
            keep_records: false,
            move_own_clock: false,
            stop_on_interrupt: false,
        }
    }
}

/// The `features/` directory of the source tree this harness was built from (the built-in set
/// is compiled from it).
pub fn default_features_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../features"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broker_is_a_key_with_its_password_and_the_name_it_stands_for() {
        let parsed = |text: &str| text.parse::<Broker>();
        let broker = |name: &str, password: &str, owner: Option<&str>| Broker {
            name: name.into(),
            password: password.into(),
            owner: owner.map(str::to_owned),
        };
        assert_eq!(parsed("acme"), Ok(broker("acme", "", None)));
        assert_eq!(parsed("7d1f:s=c:r"), Ok(broker("7d1f", "s=c:r", None)));
        assert_eq!(parsed("7d1f=acme"), Ok(broker("7d1f", "", Some("acme"))));
        assert_eq!(
            parsed("7d1f=acme:s=cr:et"),
            Ok(broker("7d1f", "s=cr:et", Some("acme")))
        );
        assert!(parsed("").is_err());
        assert!(parsed(":pw").is_err());
        assert!(parsed("7d1f=").is_err());
        assert_eq!(
            parsed("7d1f=acme").map(|b| b.shown()).as_deref(),
            Ok("7d1f (owner acme)")
        );
    }

    fn proxies(vars: &[(&str, &str)]) -> Proxies {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Proxies::from_lookup(move |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn each_scheme_takes_its_own_variable_then_all_proxy() {
        let p = proxies(&[
            ("HTTPS_PROXY", "proxy.corp:3128"),
            ("ALL_PROXY", "http://all:1"),
            ("NO_PROXY", "localhost,.internal"),
        ]);
        let https = p.for_scheme("https").expect("an https proxy");
        assert_eq!(
            (https.url.as_str(), https.variable),
            ("http://proxy.corp:3128", "HTTPS_PROXY")
        );
        let http = p.for_scheme("http").expect("all_proxy for http");
        assert_eq!(
            (http.url.as_str(), http.variable),
            ("http://all:1", "ALL_PROXY")
        );
        assert_eq!(p.no_proxy.as_deref(), Some("localhost,.internal"));
    }

    #[test]
    fn lowercase_wins_and_empty_is_unset() {
        let p = proxies(&[
            ("https_proxy", "http://low:1"),
            ("HTTPS_PROXY", "http://up:2"),
            ("http_proxy", ""),
        ]);
        assert_eq!(p.https.map(|s| s.variable), Some("https_proxy"));
        assert_eq!(p.http, None);
    }

    #[test]
    fn uppercase_http_proxy_is_ignored_under_cgi() {
        let plain = proxies(&[("HTTP_PROXY", "http://p:1")]);
        assert_eq!(plain.http.map(|s| s.variable), Some("HTTP_PROXY"));
        let cgi = proxies(&[("HTTP_PROXY", "http://p:1"), ("REQUEST_METHOD", "GET")]);
        assert_eq!(cgi.http, None);
    }

    #[test]
    fn credentials_are_not_shown() {
        let p = ProxySetting {
            url: "http://user:secret@proxy:3128".into(),
            variable: "HTTPS_PROXY",
        };
        assert_eq!(p.shown(), "http://proxy:3128");
    }
}
