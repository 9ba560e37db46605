//! What a certification run is told: the target, the brokers that act on it, where reports go.
use std::{path::PathBuf, str::FromStr, time::Duration};

/// Basic-auth credentials of one broker: the user name identifies the broker, the password is
/// usually empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broker {
    pub name: String,
    pub password: String,
}

impl FromStr for Broker {
    type Err = String;

    /// `NAME` or `NAME:PASSWORD`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, password) = s.split_once(':').unwrap_or((s, ""));
        if name.is_empty() {
            return Err("a broker needs a name".into());
        }
        Ok(Broker {
            name: name.into(),
            password: password.into(),
        })
    }
}

impl Broker {
    /// `broker`, the default owner.
    pub fn default_owner() -> Broker {
        Broker {
            name: "broker".into(),
            password: String::new(),
        }
    }

    /// `broker1`, the default other party.
    pub fn default_other() -> Broker {
        Broker {
            name: "broker1".into(),
            password: String::new(),
        }
    }
}

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
        }
    }
}

/// The `features/` directory of the source tree this harness was built from (the built-in set
/// is compiled from it).
pub fn default_features_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../features"))
}
