//! Server settings: what the CLI parses and what tests set directly.
use crate::limits;
use std::path::PathBuf;
use time::OffsetDateTime;

#[derive(Debug, Clone)]
pub struct Settings {
    pub listen: String,
    pub brokers: Option<PathBuf>,
    /// The document service's own users, in upstream's file (groups of `user = sha512 hex`).
    pub ds_users: Option<PathBuf>,
    pub testing: bool,
    /// The public-sandbox facilities: the acceleration fields, faults on demand for each
    /// broker's own requests and each broker's own clock, never the server's (`testing`
    /// includes them).
    pub sandbox: bool,
    pub timezone: String,
    pub public_url: Option<String>,
    pub max_body: usize,
    /// Start the clock frozen at this moment instead of the wall clock's now (needs `testing`:
    /// only the clock control API can move it on).
    pub clock_start: Option<OffsetDateTime>,
    /// Keep the store, the clock and the signing key in `DIR/registry.sqlite3` across
    /// restarts; without it everything lives in memory.
    pub data_dir: Option<std::path::PathBuf>,
    /// The largest file an upload may carry, in bytes.
    pub max_upload: usize,
    /// Refuse document addresses that are not the embedded document service's.
    pub refuse_foreign_documents: bool,
    /// Serve HTTPS with this certificate chain (PEM, the server's certificate first) and
    /// `tls_key`; both or neither.
    pub tls_cert: Option<PathBuf>,
    /// The private key of `tls_cert` (PEM: PKCS#8, PKCS#1 or SEC1).
    pub tls_key: Option<PathBuf>,
    /// What each broker may take: a rate of requests and a bound on each kind of record it
    /// keeps live, as given (the mode decides the rest: see [`limits::Options::resolve`]).
    pub limits: limits::Options,
    /// Exchanges kept per broker in the request log (on `testing` or `sandbox`; 0 keeps
    /// none).
    pub request_log: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            listen: "127.0.0.1:6543".into(),
            brokers: None,
            ds_users: None,
            testing: false,
            sandbox: false,
            timezone: "Europe/Kyiv".into(),
            public_url: None,
            max_body: 10 * 1024 * 1024,
            clock_start: None,
            data_dir: None,
            max_upload: 50 * 1024 * 1024,
            refuse_foreign_documents: false,
            tls_cert: None,
            tls_key: None,
            limits: limits::Options::default(),
            request_log: 1000,
        }
    }
}
