//! The run's pace: how many exchanges it keeps in flight on the target at once. A certifier
//! must never fail a target through its own load, and most implementations are slower than the
//! reference one, so the run starts with a few exchanges side by side and grows while answers
//! stay quick, and backs off when they slow down or one times out: additive increase and
//! multiplicative decrease, with TCP's slow start before the first sign of load. Slow reads are
//! the sign (a write's or a clock move's cost depends on what it does, a read's on the load), as
//! is a timeout; every answer in time lets the window grow. Every exchange is paced, and
//! measured for the certificate.
use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};

use tokio::sync::Semaphore;

/// Exchanges in flight at the start.
pub const START: usize = 4;
/// The most in flight: twice the scenarios cucumber runs side by side unless told (64), since
/// a scenario reads a write back with a few reads at once.
pub const MOST: usize = 128;
/// A read is slow when it takes this many times the quickest answer to its operation...
const SLOWER_THAN_QUICKEST: f64 = 4.0;
/// ... and at least this long: a target answering in a millisecond is never throttled for
/// answering in ten.
const SLOW_AT_LEAST: Duration = Duration::from_millis(250);
/// On a sign of load, the window shrinks to this part of itself.
const DECREASE: f64 = 0.5;

/// The pace of one run, shared by every scenario.
#[derive(Debug)]
pub struct Pace {
    /// Permits for the exchanges in flight; the window is the permits in circulation.
    permits: Arc<Semaphore>,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// The window: how many exchanges may be in flight (its fraction grows between whole ones).
    window: f64,
    /// Permits in circulation (the window's whole part), at most `most`.
    issued: usize,
    /// The window above which growth turns additive (none before the first sign of load).
    threshold: f64,
    most: usize,
    /// When the window last shrank: one burst of slow answers shrinks it once.
    shrunk: Option<Instant>,
    /// The quickest read of each operation, the answer of an unloaded target.
    quickest: BTreeMap<String, Duration>,
    /// Every exchange's time, by operation (`GET /api/2.3/tenders/{id}`).
    times: BTreeMap<String, Vec<Duration>>,
    /// The window at each exchange's end, for the concurrency the run settled on.
    windows: Vec<u16>,
    /// Reads that timed out and were asked again at a lower pace.
    timeouts: usize,
}

/// An exchange in flight: its permit, given back when it ends.
#[derive(Debug)]
pub struct InFlight {
    _permit: tokio::sync::OwnedSemaphorePermit,
    started: Instant,
    operation: String,
    read: bool,
}

/// What a run's pace came to, for the certificate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PaceRecord {
    pub start: usize,
    pub most: usize,
    /// The median window over the run's second half.
    pub settled: usize,
    /// The largest and smallest window the run reached.
    pub peak: usize,
    pub least: usize,
    pub exchanges: usize,
    pub timeouts: usize,
    /// Per operation, the most frequent first: exchanges, p50 and p95.
    pub latencies: Vec<(String, usize, Duration, Duration)>,
}

impl Pace {
    /// A pace that never keeps more than `most` exchanges in flight.
    pub fn new(most: usize) -> Pace {
        let most = most.max(1);
        let start = START.min(most);
        Pace {
            permits: Arc::new(Semaphore::new(start)),
            state: Mutex::new(State {
                window: start as f64,
                issued: start,
                threshold: f64::INFINITY,
                most,
                shrunk: None,
                quickest: BTreeMap::new(),
                times: BTreeMap::new(),
                windows: Vec::new(),
                timeouts: 0,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for room for one exchange of `method` to `url`.
    pub async fn begin(&self, method: &str, url: &str) -> InFlight {
        // The semaphore is never closed, so acquiring only waits.
        let permit = loop {
            if let Ok(permit) = self.permits.clone().acquire_owned().await {
                break permit;
            }
        };
        InFlight {
            _permit: permit,
            started: Instant::now(),
            operation: operation(method, url),
            read: method == "GET" || method == "HEAD",
        }
    }

    /// The exchange `flight` ended with an answer: it is measured, and a read's time moves the
    /// window.
    pub fn answered(&self, flight: InFlight) {
        let took = flight.started.elapsed();
        let mut state = self.state();
        state
            .times
            .entry(flight.operation.clone())
            .or_default()
            .push(took);
        // A read's time tells the load; any answer in time lets the window grow.
        let slow = flight.read && {
            let quickest = *state
                .quickest
                .entry(flight.operation)
                .and_modify(|q| *q = (*q).min(took))
                .or_insert(took);
            took >= SLOW_AT_LEAST
                && took.as_secs_f64() > quickest.as_secs_f64() * SLOWER_THAN_QUICKEST
        };
        if slow {
            self.shrink(&mut state, took);
        } else {
            self.grow(&mut state);
        }
        let window = state.window.round() as u16;
        state.windows.push(window);
    }

    /// The exchange `flight` got no answer in time: the window shrinks at once.
    pub fn timed_out(&self, flight: InFlight) {
        let took = flight.started.elapsed();
        let mut state = self.state();
        state.timeouts += 1;
        self.shrink(&mut state, took);
    }

    /// Any other end without an answer (the connection failed): nothing is learned.
    pub fn failed(&self, flight: InFlight) {
        drop(flight);
    }

    fn grow(&self, state: &mut State) {
        state.window += if state.window < state.threshold {
            1.0
        } else {
            1.0 / state.window
        };
        state.window = state.window.min(state.most as f64);
        self.issue(state);
    }

    /// One sign of load per burst: answers slowed by the same load end together, so the window
    /// shrinks again only once an exchange begun after the last shrink could have ended.
    fn shrink(&self, state: &mut State, took: Duration) {
        let now = Instant::now();
        if state.shrunk.is_some_and(|at| now.duration_since(at) < took) {
            return;
        }
        state.shrunk = Some(now);
        state.window = (state.window * DECREASE).max(1.0);
        state.threshold = state.window;
        self.issue(state);
    }

    /// Permits in circulation follow the window's whole part: more are added at once; fewer are
    /// taken out of circulation as they come free.
    fn issue(&self, state: &mut State) {
        let wanted = state.window.floor().max(1.0) as usize;
        if wanted > state.issued {
            self.permits.add_permits(wanted - state.issued);
        } else if wanted < state.issued {
            let excess = state.issued - wanted;
            let permits = self.permits.clone();
            // A permit in use is taken out when its exchange gives it back.
            tokio::spawn(async move {
                if let Ok(taken) = permits.acquire_many_owned(excess as u32).await {
                    taken.forget();
                }
            });
        }
        state.issued = wanted;
    }

    /// How many exchanges may be in flight now.
    pub fn window(&self) -> usize {
        self.state().window.floor() as usize
    }

    /// What the run's pace came to.
    pub fn record(&self) -> PaceRecord {
        let state = self.state();
        let half = &state.windows[state.windows.len() / 2..];
        let mut settled: Vec<u16> = half.to_vec();
        settled.sort_unstable();
        let mut latencies: Vec<(String, usize, Duration, Duration)> = state
            .times
            .iter()
            .map(|(op, times)| {
                let mut sorted = times.clone();
                sorted.sort_unstable();
                (
                    op.clone(),
                    sorted.len(),
                    percentile(&sorted, 0.50),
                    percentile(&sorted, 0.95),
                )
            })
            .collect();
        latencies.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        PaceRecord {
            start: START.min(state.most),
            most: state.most,
            settled: settled.get(settled.len() / 2).copied().unwrap_or(0).into(),
            peak: state.windows.iter().copied().max().unwrap_or(0).into(),
            least: state.windows.iter().copied().min().unwrap_or(0).into(),
            exchanges: state.times.values().map(Vec::len).sum(),
            timeouts: state.timeouts,
            latencies,
        }
    }
}

/// The nearest-rank percentile `p` of sorted times.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// An exchange's operation: its method and its path, ids and keys written as `{id}`
/// (`GET /api/2.3/tenders/{id}/bids/{id}`).
pub fn operation(method: &str, url: &str) -> String {
    let path = reqwest::Url::parse(url)
        .map(|u| u.path().to_owned())
        .unwrap_or_else(|_| url.split(['?', '#']).next().unwrap_or(url).to_owned());
    let segments: Vec<&str> = path
        .split('/')
        .map(|s| if looks_like_id(s) { "{id}" } else { s })
        .collect();
    format!("{method} {}", segments.join("/"))
}

/// A segment that names a record rather than a collection: long and of hex digits (an auction's
/// `tender_lot` id included), or of digits.
fn looks_like_id(segment: &str) -> bool {
    let hex = |s: &str| s.len() >= 16 && s.chars().all(|c| c.is_ascii_hexdigit());
    (!segment.is_empty() && segment.chars().all(|c| c.is_ascii_digit()))
        || hex(segment)
        || segment.split('_').all(hex) && segment.contains('_')
}

#[cfg(test)]
mod tests {
    use crate::exchange::pace::{Pace, START, operation};
    use std::time::Duration;

    const T: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn an_operation_names_its_collections_and_hides_its_ids() {
        assert_eq!(
            operation(
                "GET",
                &format!("http://h:1/api/2.3/tenders/{T}/bids/{T}?acc_token=x")
            ),
            "GET /api/2.3/tenders/{id}/bids/{id}"
        );
        assert_eq!(
            operation("POST", &format!("http://h:1/auctions/{T}_{T}/bids?hash=1")),
            "POST /auctions/{id}/bids"
        );
        assert_eq!(
            operation("GET", "http://h:1/api/2.3/tenders"),
            "GET /api/2.3/tenders"
        );
    }

    /// Runs `exchanges` reads one after another, each taking `took`.
    async fn reads(pace: &Pace, exchanges: usize, took: impl Fn(usize) -> Duration) {
        for i in 0..exchanges {
            let mut flight = pace.begin("GET", "http://h/api/2.3/tenders").await;
            flight.started -= took(i);
            pace.answered(flight);
        }
    }

    #[tokio::test]
    async fn quick_answers_grow_the_window_to_its_most_and_slow_ones_halve_it() {
        let pace = Pace::new(64);
        reads(&pace, 200, |_| Duration::from_millis(1)).await;
        let record = pace.record();
        assert_eq!((record.start, record.peak, record.settled), (START, 64, 64));

        reads(&pace, 1, |_| Duration::from_millis(900)).await;
        assert_eq!(pace.window(), 32);
        // The same burst of slow answers shrinks it once.
        reads(&pace, 1, |_| Duration::from_millis(900)).await;
        assert_eq!(pace.window(), 32);
        // A slow answer of a slow operation is its usual pace, not a sign of load.
        let pace = Pace::new(64);
        reads(&pace, 20, |_| Duration::from_millis(400)).await;
        assert!(pace.window() > 20, "{}", pace.window());
    }

    #[tokio::test]
    async fn after_a_timeout_the_window_grows_one_a_round() {
        let pace = Pace::new(64);
        reads(&pace, 12, |_| Duration::from_millis(1)).await;
        let flight = pace.begin("GET", "http://h/api/2.3/tenders").await;
        pace.timed_out(flight);
        let after = pace.window();
        assert_eq!(after, 8, "16 halved");
        reads(&pace, 3 * after + 3, |_| Duration::from_millis(1)).await;
        let grown = pace.window();
        assert!(
            (after + 2..=after + 3).contains(&grown),
            "{after} then {grown}"
        );
        assert_eq!(pace.record().timeouts, 1);
    }
}
