//! The target: what the harness knows of the implementation under test, learned once at the
//! start of a run and shared by every scenario: its clock and how time is moved there, the
//! sandbox acceleration it takes ([`acceleration`]), what it offers ([`offered`]), the test
//! clocks the run's scenarios that move time take ([`clock_pool`], made by `test_clocks`), where waits on its clock
//! are shown ([`waits`]); the probe that learns all this (`probe`). It may use the
//! exchange and checks layers.
//!
//! The implementation under test as the harness sees it: a base URL, an HTTP client, the two
//! brokers, and how time can be moved there.

pub mod acceleration;
pub mod clock_pool;
pub mod documents;
pub mod ledger;
pub mod made;
pub mod offered;
pub mod owners;
mod probe;
mod settle;
mod test_clocks;
mod uploads;
pub mod waits;

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::Duration,
};

use reqwest::Client;
use serde_json::Value;
use time::OffsetDateTime;

use crate::{
    exchange::client::{self, Connection},
    exchange::pace::Pace,
    exchange::settings::{Broker, Settings},
    exchange::timestamps,
    target::acceleration::Acceleration,
    target::clock_pool::{TestClockRecord, TestClocks},
    target::documents::Documents,
    target::ledger::Ledger,
    target::made::Made,
    target::owners::OwnersSeen,
    target::waits::WaitBoard,
};

/// A step failure with this prefix means "could not finish within the time budget" (the
/// target's `wait_budget`): the run reports the scenario as skipped with the rest of the
/// message as the reason.
pub const BUDGET_SKIP: &str = "[time budget] ";

/// How a scenario makes time pass on the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockMode {
    /// The target answers `GET /testing/clock`; time is moved with `POST /testing/clock`.
    ControlApi,
    /// No control API: tenders get short periods and the harness waits on the target's clock.
    RealTime,
}

/// The target's clock as its control API shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockReading {
    pub now: OffsetDateTime,
    pub frozen: bool,
}

/// What a run did with the target's clock, for the certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClockRecord {
    /// The clock before the first scenario and after the last (a target with a clock API).
    pub start: Option<ClockReading>,
    pub end: Option<ClockReading>,
    /// `--keep-clock`: the target has a clock API, and the run did not use it to move time.
    pub kept: bool,
    /// The broker whose own clock the run read and moved (a target that gives each broker
    /// one); otherwise the run moved the target's one clock.
    pub own: Option<String>,
    /// Moves the run made through the clock API.
    pub moves: usize,
    /// Refreshed timestamps equal to the ones they replaced, taken as refreshed because the
    /// target's clock stood still at that moment.
    pub still_stamps: usize,
    /// The test clocks the scenarios that move time ran on, when the target offers them.
    pub test_clocks: Option<TestClockRecord>,
    /// Why a target that offers test clocks had none for the run (the broker's own clock was
    /// then left alone, unless `--move-own-clock`).
    pub test_clocks_refused: Option<String>,
}

/// The waits a target asked for with `Retry-After` (on a `429`, or a `503` to a read), which the
/// run honoured before asking again; the certificate counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AskedWaits {
    /// Exchanges repeated: reads after a 429 or a 503, writes after a 429.
    pub exchanges: usize,
    pub waited: Duration,
}

/// The fault API's path.
pub const FAULTS: &str = "/testing/faults";

/// One target, shared by every scenario of a run.
#[derive(Debug)]
pub struct Target {
    pub base_url: String,
    pub client: Client,
    pub owner: Broker,
    pub other: Broker,
    /// How scenarios make time pass.
    pub clock: ClockMode,
    /// Whether the target answers `GET /testing/clock`. Its reading is then the target's "now",
    /// also when `--keep-clock` leaves it unmoved.
    pub clock_api: bool,
    /// The owner broker, when the target gives each broker a clock of its own: the run reads
    /// and moves that clock alone, and the records of other brokers are not touched.
    pub own_clock: Option<String>,
    /// The clock as read when the run started (a target with a clock API).
    pub clock_at_start: Option<ClockReading>,
    /// The run's test clocks, when the target offers them and the run moves time: each
    /// scenario that moves time then runs on a clock of its own, beside the others.
    pub test_clocks: Option<Arc<TestClocks>>,
    /// Why a target that offers test clocks is certified without them (it made none for the
    /// owner).
    pub test_clocks_refused: Option<String>,
    /// Whether the target scopes fault rules to a test clock, so that scenarios failing
    /// requests on demand each do so on their own clock, beside the others.
    pub faults_by_clock: bool,
    moves: AtomicUsize,
    still_stamps: AtomicUsize,
    /// Reads repeated after the wait a `429` or `503` named in `Retry-After`, and the
    /// milliseconds waited.
    asked_waits: AtomicUsize,
    asked_wait_ms: AtomicU64,
    /// The longest one exchange may take (`--timeout`).
    pub timeout: Duration,
    /// Target clock minus local clock, measured once at the start of the run.
    pub skew: Duration,
    pub skew_ahead: bool,
    pub period: Duration,
    pub wait_budget: Duration,
    pub seed: u64,
    /// Whether tenders carry upstream's sandbox acceleration fields, and why.
    pub acceleration: Acceleration,
    /// Where waits in real time are shown while they last.
    pub waits: Arc<dyn WaitBoard>,
    /// How the run reached the target: scheme, the certificate it presented, the proxy.
    pub connection: Connection,
    /// What every check applied to every exchange found, over the whole run.
    pub ledger: Ledger,
    /// `--strict`: upstream's behaviour counts as the spec's does.
    pub strict: bool,
    /// The owner each broker's tenders show.
    pub owners: OwnersSeen,
    /// Where the run's documents come from.
    pub documents: Documents,
    /// How many exchanges the run keeps in flight on the target, and how long they took.
    pub pace: Pace,
    /// What the run made, with the tokens it holds, for settling at its end.
    pub made: Made,
    /// The run's settings, for naming the cause of a failed exchange.
    settings: Settings,
}

impl Target {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// `now` of the clock control API.
    pub async fn clock_now(&self) -> Result<OffsetDateTime, String> {
        self.clock_reading().await.map(|r| r.now)
    }

    /// `now` and `frozen` of the clock control API: the clock the run's tenders live on (the
    /// owner broker's own, on a target that gives brokers clocks of their own).
    pub async fn clock_reading(&self) -> Result<ClockReading, String> {
        self.clock_read().await.map(|(reading, _)| reading)
    }

    /// Sends one request of the run's own (a clock read, a test clock's move, an upload) at the
    /// run's pace, as the scenarios' exchanges go.
    pub async fn paced(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let request = request.build()?;
        let flight = self
            .pace
            .begin(request.method().as_str(), request.url().as_str())
            .await;
        let answer = self.client.execute(request).await;
        match &answer {
            Ok(_) => self.pace.answered(flight),
            Err(e) if e.is_timeout() => self.pace.timed_out(flight),
            Err(_) => self.pace.failed(flight),
        }
        answer
    }

    /// The clock the owner broker reads, and the broker it says it belongs to (a target that
    /// gives each broker a clock of its own names it).
    async fn clock_read(&self) -> Result<(ClockReading, Option<String>), String> {
        let request = self
            .client
            .get(self.url("/testing/clock"))
            .basic_auth(&self.owner.name, Some(&self.owner.password));
        let (reading, body) = self.read_clock(request, "/testing/clock").await?;
        let broker = body
            .pointer("/data/broker")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok((reading, broker))
    }

    /// The target's own time, whichever broker's clock the run moves: its clock control API
    /// read without credentials, else its `Date` header. Listings are ordered by it.
    pub async fn server_now(&self) -> Result<OffsetDateTime, String> {
        if !self.clock_api {
            return self.now().await;
        }
        self.read_clock(
            self.client.get(self.url("/testing/clock")),
            "/testing/clock",
        )
        .await
        .map(|(reading, _)| reading.now)
    }

    /// A clock's answer to `GET path`: its reading and the whole body.
    pub(crate) async fn read_clock(
        &self,
        request: reqwest::RequestBuilder,
        path: &str,
    ) -> Result<(ClockReading, Value), String> {
        read_clock_answer(self.paced(request).await, path).await
    }
}

/// A clock's reading out of its answer to `GET path`, and the whole body.
async fn read_clock_answer(
    answer: Result<reqwest::Response, reqwest::Error>,
    path: &str,
) -> Result<(ClockReading, Value), String> {
    let response = answer.map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("GET {path} answered {}", response.status()));
    }
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    let now = body
        .pointer("/data/now")
        .and_then(Value::as_str)
        .and_then(timestamps::parse)
        .ok_or_else(|| format!("GET {path} has no data.now"))?;
    let frozen = body.pointer("/data/frozen").and_then(Value::as_bool);
    Ok((
        ClockReading {
            now,
            frozen: frozen.unwrap_or(false),
        },
        body,
    ))
}

impl Target {
    /// The target's "now": from the clock control API, or else from the `Date` header of a
    /// cheap request (never from the local clock).
    pub async fn now(&self) -> Result<OffsetDateTime, String> {
        match self.clock_api {
            true => self.clock_now().await,
            false => {
                let response = self
                    .paced(self.client.get(self.url("/api/2.3/tenders")))
                    .await
                    .map_err(|e| e.to_string())?;
                date_header(response.headers())
                    .ok_or_else(|| "the target sends no Date header".to_owned())
            }
        }
    }
}

impl Target {
    /// Counts a move of the clock made through its control API.
    pub fn moved_clock(&self) {
        self.moves.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a read repeated after the wait the target asked for.
    pub fn waited_as_asked(&self, wait: Duration) {
        self.asked_waits.fetch_add(1, Ordering::Relaxed);
        self.asked_wait_ms
            .fetch_add(wait.as_millis() as u64, Ordering::Relaxed);
    }

    /// The reads repeated after a `Retry-After`, and the time waited for them.
    pub fn asked_waits(&self) -> AskedWaits {
        AskedWaits {
            exchanges: self.asked_waits.load(Ordering::Relaxed),
            waited: Duration::from_millis(self.asked_wait_ms.load(Ordering::Relaxed)),
        }
    }

    /// Counts a refreshed timestamp taken as refreshed though equal to the one it replaced.
    pub fn accepted_still_stamp(&self) {
        self.still_stamps.fetch_add(1, Ordering::Relaxed);
    }

    /// What the run did with the clock, read once more at its end; the run's test clocks are
    /// deleted where the target lets them go, after it finishes what lives on them when
    /// `settle`.
    pub async fn clock_record(&self, settle: bool) -> ClockRecord {
        let end = match self.clock_api {
            true => self.clock_reading().await.ok(),
            false => None,
        };
        let test_clocks = match &self.test_clocks {
            Some(pool) => Some(self.finish_test_clocks(pool, settle).await),
            None => None,
        };
        ClockRecord {
            start: self.clock_at_start,
            end,
            own: self.own_clock.clone(),
            kept: self.clock_api && self.clock == ClockMode::RealTime,
            moves: self.moves.load(Ordering::Relaxed),
            still_stamps: self.still_stamps.load(Ordering::Relaxed),
            test_clocks,
            test_clocks_refused: self.test_clocks_refused.clone(),
        }
    }
}

impl Target {
    /// Why an exchange got no answer: one line with the cause (refused, unknown host, a
    /// certificate, a proxy), and whether a target still starting might answer later.
    fn failure(&self, e: &reqwest::Error) -> client::Failure {
        client::failure(&self.base_url, &self.settings, e)
    }
}

/// The `Date` header of a response, as an instant.
pub fn date_header(headers: &reqwest::header::HeaderMap) -> Option<OffsetDateTime> {
    let text = headers.get(reqwest::header::DATE)?.to_str().ok()?;
    let system = httpdate::parse_http_date(text).ok()?;
    Some(OffsetDateTime::from(system))
}
