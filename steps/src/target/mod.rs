//! The target: what the harness knows of the implementation under test, learned once at the
//! start of a run and shared by every scenario: its clock and how time is moved there, the
//! sandbox acceleration it takes ([`acceleration`]), what it offers ([`offered`]). It may use
//! the exchange and checks layers.
//!
//! The implementation under test as the harness sees it: a base URL, an HTTP client, the two
//! brokers, and how time can be moved there.

pub mod acceleration;
pub mod offered;

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
    exchange::settings::{Broker, Settings},
    exchange::timestamps,
    run::progress::Progress,
    target::acceleration::Acceleration,
};

/// Tries, 250 ms apart, to reach a target that is still starting.
const STARTUP_ATTEMPTS: u32 = 40;

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
}

/// The waits a target asked for with `Retry-After` on a `429` or `503` to a read, which the
/// run honoured before asking again; the certificate counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AskedWaits {
    pub reads: usize,
    pub waited: Duration,
}

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
    pub progress: Arc<Progress>,
    /// How the run reached the target: scheme, the certificate it presented, the proxy.
    pub connection: Connection,
    /// The run's settings, for naming the cause of a failed exchange.
    settings: Settings,
}

impl Target {
    /// Probes the target once: is it reachable, does it offer the clock control API, how far is
    /// its clock from ours, and (when asked for) does it take the sandbox acceleration fields.
    pub async fn probe(settings: &Settings, seed: u64) -> Result<Target, String> {
        let client = client::build(settings)?;
        let base_url = settings.base_url.trim_end_matches('/').to_owned();
        let mut target = Target {
            base_url,
            client,
            owner: settings.owner.clone(),
            other: settings.other.clone(),
            clock: ClockMode::RealTime,
            clock_api: false,
            own_clock: None,
            clock_at_start: None,
            moves: AtomicUsize::new(0),
            still_stamps: AtomicUsize::new(0),
            asked_waits: AtomicUsize::new(0),
            asked_wait_ms: AtomicU64::new(0),
            timeout: settings.timeout,
            skew: Duration::ZERO,
            skew_ahead: false,
            period: settings.period,
            wait_budget: settings.wait_budget,
            seed,
            acceleration: Acceleration::Off,
            progress: Arc::new(Progress::hidden()),
            connection: Connection::default(),
            settings: settings.clone(),
        };
        // A target started just before the run may still be binding its socket; a certificate
        // or a proxy that refuses will not change, so those stop the run at once.
        let mut attempts = 0;
        let (local, listing) = loop {
            let local = OffsetDateTime::now_utc();
            match target
                .client
                .get(target.url("/api/2.3/tenders"))
                .send()
                .await
            {
                Ok(response) => break (local, response),
                Err(e) => {
                    let failure = target.failure(&e);
                    attempts += 1;
                    if !failure.transient || attempts >= STARTUP_ATTEMPTS {
                        return Err(failure.line);
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            }
        };
        target.connection = Connection::of(settings, &listing);
        if let Some(server) = date_header(listing.headers()) {
            let diff = server - local;
            target.skew_ahead = diff.is_positive();
            target.skew = diff.unsigned_abs();
        }
        is_this_api(&target.base_url, listing).await?;
        for (broker, option) in [
            (&target.owner, "--broker"),
            (&target.other, "--other-broker"),
        ] {
            target.knows(broker, option).await?;
        }
        if let Ok((reading, broker)) = target.clock_read().await {
            target.clock_api = true;
            target.own_clock = broker.filter(|b| *b == target.owner.name);
            target.clock_at_start = Some(reading);
            if !settings.keep_clock {
                target.clock = ClockMode::ControlApi;
            }
        }
        target.acceleration = match (settings.accelerator, target.clock) {
            (None, _) => Acceleration::Off,
            (Some(factor), ClockMode::ControlApi) => Acceleration::NotNeeded { factor },
            (Some(factor), ClockMode::RealTime) => acceleration::probe(&target, factor).await,
        };
        Ok(target)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// A broker whose credentials the target refuses would fail every scenario: the run stops
    /// before the first. Asked with a creation whose body holds nothing, which the target
    /// refuses whoever asks (422), so the question creates nothing; a 401, or a 403
    /// `permission` (the spec's answer to credentials it does not know), is the refusal.
    async fn knows(&self, broker: &Broker, option: &str) -> Result<(), String> {
        let response = self
            .client
            .post(self.url("/api/2.3/tenders"))
            .basic_auth(&broker.name, Some(&broker.password))
            .json(&serde_json::json!({"data": {}}))
            .send()
            .await
            .map_err(|e| self.failure(&e).line)?;
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let permission =
            body.pointer("/errors/0/name").and_then(Value::as_str) == Some("permission");
        if status == 401 || (status == 403 && permission) {
            return Err(format!(
                "the target at {} refuses the credentials of {option} {}: POST /api/2.3/tenders answered {status}; name a broker the target knows",
                self.base_url, broker.name
            ));
        }
        Ok(())
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

    /// The clock the owner broker reads, and the broker it says it belongs to (a target that
    /// gives each broker a clock of its own names it).
    async fn clock_read(&self) -> Result<(ClockReading, Option<String>), String> {
        let request = self
            .client
            .get(self.url("/testing/clock"))
            .basic_auth(&self.owner.name, Some(&self.owner.password));
        let (reading, body) = read_clock(request).await?;
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
        read_clock(self.client.get(self.url("/testing/clock")))
            .await
            .map(|(reading, _)| reading.now)
    }
}

/// A clock control API's answer: its reading and the whole body.
async fn read_clock(request: reqwest::RequestBuilder) -> Result<(ClockReading, Value), String> {
    let response = request.send().await.map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("GET /testing/clock answered {}", response.status()));
    }
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    let now = body
        .pointer("/data/now")
        .and_then(Value::as_str)
        .and_then(timestamps::parse)
        .ok_or_else(|| "GET /testing/clock has no data.now".to_owned())?;
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
                    .client
                    .get(self.url("/api/2.3/tenders"))
                    .send()
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
            reads: self.asked_waits.load(Ordering::Relaxed),
            waited: Duration::from_millis(self.asked_wait_ms.load(Ordering::Relaxed)),
        }
    }

    /// Counts a refreshed timestamp taken as refreshed though equal to the one it replaced.
    pub fn accepted_still_stamp(&self) {
        self.still_stamps.fetch_add(1, Ordering::Relaxed);
    }

    /// What the run did with the clock, read once more at its end.
    pub async fn clock_record(&self) -> ClockRecord {
        let end = match self.clock_api {
            true => self.clock_reading().await.ok(),
            false => None,
        };
        ClockRecord {
            start: self.clock_at_start,
            end,
            own: self.own_clock.clone(),
            kept: self.clock_api && self.clock == ClockMode::RealTime,
            moves: self.moves.load(Ordering::Relaxed),
            still_stamps: self.still_stamps.load(Ordering::Relaxed),
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

/// The first listing must be this API's: a JSON page with a `data` array and a `next_page`.
/// Anything else (a web page, another service, an error) stops the run before any scenario.
async fn is_this_api(base_url: &str, listing: reqwest::Response) -> Result<(), String> {
    let not_it = |what: String| {
        format!(
            "the target at {base_url} is not a Tender Procurement Service Interface 2.3: GET {base_url}/api/2.3/tenders {what}"
        )
    };
    let status = listing.status();
    let content_type = listing
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("no content type")
        .to_owned();
    if !status.is_success() {
        return Err(not_it(format!("answered {status} ({content_type})")));
    }
    if !content_type.starts_with("application/json") {
        return Err(not_it(format!(
            "answered {status} with {content_type}, not JSON"
        )));
    }
    let body: Value = listing
        .json()
        .await
        .map_err(|_| not_it(format!("answered {status} with a body that is not JSON")))?;
    if !body.get("data").is_some_and(Value::is_array) || body.get("next_page").is_none() {
        return Err(not_it(
            "answered JSON without a `data` array and a `next_page`".to_owned(),
        ));
    }
    Ok(())
}

/// The `Date` header of a response, as an instant.
pub fn date_header(headers: &reqwest::header::HeaderMap) -> Option<OffsetDateTime> {
    let text = headers.get(reqwest::header::DATE)?.to_str().ok()?;
    let system = httpdate::parse_http_date(text).ok()?;
    Some(OffsetDateTime::from(system))
}
