//! Server settings: what the CLI parses and what tests set directly.
use std::path::PathBuf;
use time::OffsetDateTime;

#[derive(Debug, Clone)]
pub struct Settings {
    pub listen: String,
    pub brokers: Option<PathBuf>,
    pub testing: bool,
    /// The public-sandbox facilities without the clock control API: the acceleration fields,
    /// and faults on demand for each broker's own requests (`testing` includes them).
    pub sandbox: bool,
    pub timezone: String,
    pub public_url: Option<String>,
    pub max_body: usize,
    /// The least length of an accelerated (sandbox) auction, in seconds of server time.
    pub quick_auction_seconds: u64,
    /// Start the clock frozen at this moment instead of the wall clock's now (needs `testing`:
    /// only the clock control API can move it on).
    pub clock_start: Option<OffsetDateTime>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            listen: "127.0.0.1:6543".into(),
            brokers: None,
            testing: false,
            sandbox: false,
            timezone: "Europe/Kyiv".into(),
            public_url: None,
            max_body: 10 * 1024 * 1024,
            quick_auction_seconds: 30,
            clock_start: None,
        }
    }
}
