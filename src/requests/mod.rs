//! The request log: each broker's last exchanges with the server (on `--testing` or
//! `--sandbox`), newest kept, oldest dropped past the bound, and with `--data-dir` kept in the
//! store's database by a thread of its own, off the requests' path. The report judges them
//! against the spec's rules for clients (`report.rs`); `api` serves both.

pub mod api;
pub mod exchange;
pub mod junit;
pub mod report;

use crate::store::Store;
use crate::store::database::Write;
use exchange::{Exchange, Kept};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};

/// The exchanges kept per broker unless `--request-log` says otherwise.
pub const DEFAULT_BOUND: usize = 1000;

/// What the keeper thread is given.
enum Job {
    Keep(Arc<Exchange>),
    /// Answered once every exchange sent before it is committed.
    Flush(mpsc::SyncSender<()>),
}

/// The log of every broker.
pub struct RequestLog {
    bound: usize,
    next: AtomicU64,
    rings: Mutex<HashMap<String, VecDeque<Arc<Exchange>>>>,
    keeper: Option<Mutex<mpsc::Sender<Job>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl RequestLog {
    /// A log of `bound` exchanges per broker (0: none kept), read back from the store's
    /// database and kept there when it has one.
    pub fn new(bound: usize, store: &Arc<Store>) -> Result<RequestLog, String> {
        let mut rings: HashMap<String, VecDeque<Arc<Exchange>>> = HashMap::new();
        let mut last = 0;
        for (seq, text) in store.take_kept_exchanges() {
            let kept: Kept =
                serde_json::from_str(&text).map_err(|e| format!("the kept exchange {seq}: {e}"))?;
            last = last.max(kept.seq);
            let exchange = Exchange::from(kept);
            rings
                .entry(exchange.broker.clone())
                .or_default()
                .push_back(Arc::new(exchange));
        }
        for ring in rings.values_mut() {
            while ring.len() > bound {
                ring.pop_front();
            }
        }
        let keeper = store.database_file().map(|_| {
            let (jobs, queue) = mpsc::channel();
            let store = store.clone();
            std::thread::Builder::new()
                .name("request-log".into())
                .spawn(move || keep_loop(&store, queue, bound))
                .map(|_| Mutex::new(jobs))
        });
        let keeper = keeper
            .transpose()
            .map_err(|e| format!("cannot start the request log's keeper: {e}"))?;
        Ok(RequestLog {
            bound,
            next: AtomicU64::new(last + 1),
            rings: Mutex::new(rings),
            keeper,
        })
    }

    pub fn bound(&self) -> usize {
        self.bound
    }

    /// Takes one exchange (its `seq` is given here) and, past the bound, drops the broker's
    /// oldest.
    pub fn record(&self, mut exchange: Exchange) {
        if self.bound == 0 {
            return;
        }
        exchange.seq = self.next.fetch_add(1, Ordering::Relaxed);
        let exchange = Arc::new(exchange);
        let dropped = {
            let mut rings = lock(&self.rings);
            let ring = match rings.get_mut(&exchange.broker) {
                Some(ring) => ring,
                None => rings.entry(exchange.broker.clone()).or_default(),
            };
            ring.push_back(exchange.clone());
            match ring.len() > self.bound {
                true => ring.pop_front(),
                false => None,
            }
        };
        // Its buffers are freed outside the lock.
        drop(dropped);
        if let Some(keeper) = &self.keeper {
            // A stopped keeper has logged why; the log in memory goes on.
            let _ = lock(keeper).send(Job::Keep(exchange));
        }
    }

    /// The broker's exchanges, oldest first.
    pub fn of(&self, broker: &str) -> Vec<Arc<Exchange>> {
        lock(&self.rings)
            .get(broker)
            .map(|ring| ring.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Waits until every exchange recorded so far is committed (at a stop).
    pub fn flush(&self) {
        if let Some(keeper) = &self.keeper {
            let (done, wait) = mpsc::sync_channel(1);
            if lock(keeper).send(Job::Flush(done)).is_ok() {
                let _ = wait.recv();
            }
        }
    }

    /// The exchanges kept of `broker` and the bytes they hold: their bodies, strings and the
    /// entries themselves.
    pub fn footprint(&self, broker: &str) -> (usize, usize) {
        let rings = lock(&self.rings);
        let mut bytes = 0;
        let mut count = 0;
        if let Some(ring) = rings.get(broker) {
            for e in ring {
                count += 1;
                bytes += std::mem::size_of::<Exchange>()
                    + e.request.bytes.len()
                    + e.response.bytes.len()
                    + e.id.len()
                    + e.broker.len()
                    + e.path.len()
                    + e.query.as_ref().map_or(0, String::len)
                    + e.location.as_ref().map_or(0, String::len)
                    + e.content_type.as_ref().map_or(0, String::len);
            }
        }
        (count, bytes)
    }
}

/// The keeper: takes what queued up while the last commit was being written, keeps the last
/// `bound` of each broker's, and trims the broker's rows to the bound in the same
/// transaction.
fn keep_loop(store: &Store, queue: mpsc::Receiver<Job>, bound: usize) {
    while let Ok(first) = queue.recv() {
        let mut exchanges = Vec::new();
        let mut flushes = Vec::new();
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Keep(e) => exchanges.push(e),
                Job::Flush(done) => flushes.push(done),
            }
            if exchanges.len() < 8 * bound.max(64) {
                next = queue.try_recv().ok();
            }
        }
        let mut per_broker: HashMap<&str, usize> = HashMap::new();
        let mut writes = Vec::new();
        for e in exchanges.iter().rev() {
            let n = per_broker.entry(e.broker.as_str()).or_default();
            *n += 1;
            if *n > bound {
                continue;
            }
            match serde_json::to_vec(&e.kept()) {
                Ok(record) => writes.push(Write::Exchange {
                    seq: e.seq as i64,
                    broker: e.broker.clone(),
                    record,
                }),
                Err(e) => tracing::warn!(error = %e, "an exchange could not be kept"),
            }
        }
        writes.reverse();
        for broker in per_broker.keys() {
            writes.push(Write::ExchangesTrimmed {
                broker: broker.to_string(),
                keep: bound as i64,
            });
        }
        if !writes.is_empty()
            && let Err(e) = store.keep_exchanges(writes)
        {
            tracing::warn!(error = %e, "the request log could not be kept");
        }
        for done in flushes {
            let _ = done.send(());
        }
    }
}
