//! Closed-loop load: one task per connection sends the next request as soon as the previous
//! answer is read, for a warm-up and then a measured time (or for a fixed number of requests
//! when preloading). Every answer that is not 2xx is counted and sampled, never fatal.

use crate::Error;
use crate::bodies::Rng;
use crate::client::{Call, Conn, Reply};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Makes the next request of a case from the worker's random source.
pub type Generator = Arc<dyn Fn(&mut Rng) -> Call + Send + Sync>;

/// Failed requests, grouped by kind ("HTTP 422", "transport"), with one sample message each.
#[derive(Debug, Default)]
pub struct Failures {
    pub by_kind: BTreeMap<String, (u64, String)>,
}

impl Failures {
    pub fn count(&self) -> u64 {
        self.by_kind.values().map(|(n, _)| n).sum()
    }

    pub fn add(&mut self, kind: String, sample: impl FnOnce() -> String) {
        let entry = self.by_kind.entry(kind).or_insert_with(|| (0, sample()));
        entry.0 += 1;
    }

    pub fn record(&mut self, call: &Call, outcome: &Result<Reply, Error>) {
        match outcome {
            Ok(reply) if reply.ok() => {}
            Ok(reply) => self.add(format!("HTTP {}", reply.status), || {
                format!("{} {}: {}", call.method, call.path, reply.snippet())
            }),
            Err(e) => self.add("transport".into(), || e.to_string()),
        }
    }

    pub fn merge(&mut self, other: Failures) {
        for (kind, (n, sample)) in other.by_kind {
            let entry = self.by_kind.entry(kind).or_insert((0, sample));
            entry.0 += n;
        }
    }

    pub fn summary(&self) -> String {
        self.by_kind
            .iter()
            .map(|(kind, (n, sample))| format!("{n} × {kind}, e.g. {sample}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// What a measured case saw.
#[derive(Debug, Default)]
pub struct Stats {
    /// Requests started in the measured window and answered (2xx or not).
    pub requests: u64,
    /// Every request answered, warm-up included.
    pub all_requests: u64,
    pub elapsed: Duration,
    /// Latencies in microseconds, sorted.
    pub latencies: Vec<u32>,
    pub failures: Failures,
}

impl Stats {
    pub fn per_second(&self) -> f64 {
        if self.elapsed.is_zero() {
            0.0
        } else {
            self.requests as f64 / self.elapsed.as_secs_f64()
        }
    }

    /// The `q` quantile (0..=1) of the latencies, in milliseconds.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        quantile_ms(&self.latencies, q)
    }

    /// Two measurements of one case as one.
    pub fn merge(mut self, other: Stats) -> Stats {
        self.requests += other.requests;
        self.all_requests += other.all_requests;
        self.elapsed += other.elapsed;
        self.latencies.extend(other.latencies);
        self.latencies.sort_unstable();
        self.failures.merge(other.failures);
        self
    }
}

pub fn quantile_ms(sorted_micros: &[u32], q: f64) -> f64 {
    if sorted_micros.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted_micros.len() - 1) as f64 * q).round() as usize;
    f64::from(sorted_micros[i.min(sorted_micros.len() - 1)]) / 1000.0
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// Runs `generate` on every connection for `warmup` (not measured) and then `duration`.
pub async fn timed(
    conns: &mut Vec<Conn>,
    generate: Generator,
    warmup: Duration,
    duration: Duration,
    seed: u64,
) -> Stats {
    let started = Instant::now();
    let measured_from = started + warmup;
    let until = measured_from + duration;
    let mut tasks = Vec::new();
    for (i, mut conn) in std::mem::take(conns).into_iter().enumerate() {
        let generate = generate.clone();
        let mut rng = Rng::new(seed ^ ((i as u64 + 1) << 32));
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(1 << 14);
            let mut failures = Failures::default();
            let mut last = measured_from;
            let mut all = 0u64;
            loop {
                let sent = Instant::now();
                if sent >= until {
                    break;
                }
                let call = generate(&mut rng);
                let outcome = conn.send(&call).await;
                let answered = Instant::now();
                all += 1;
                if sent >= measured_from {
                    latencies.push(micros(answered - sent));
                    failures.record(&call, &outcome);
                    last = answered;
                }
            }
            (conn, latencies, failures, last, all)
        }));
    }
    let mut stats = Stats::default();
    let mut last = measured_from;
    for task in tasks {
        match task.await {
            Ok((conn, latencies, failures, worker_last, all)) => {
                conns.push(conn);
                stats.all_requests += all;
                stats.latencies.extend(latencies);
                stats.failures.merge(failures);
                last = last.max(worker_last);
            }
            Err(e) => stats
                .failures
                .add("worker".into(), || format!("a load task failed: {e}")),
        }
    }
    stats.requests = stats.latencies.len() as u64;
    stats.elapsed = last.saturating_duration_since(measured_from);
    stats.latencies.sort_unstable();
    stats
}

/// Sends `count` requests (`call(i)` for i in 0..count) over all connections, as fast as
/// they go. Returns the 2xx answers by index when `keep` is set.
pub async fn counted(
    conns: &mut Vec<Conn>,
    call: Arc<dyn Fn(usize) -> Call + Send + Sync>,
    count: usize,
    keep: bool,
) -> (Vec<(usize, Reply)>, Failures, Duration) {
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for mut conn in std::mem::take(conns) {
        let (call, next) = (call.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut kept = Vec::new();
            let mut failures = Failures::default();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let request = call(i);
                let outcome = conn.send(&request).await;
                failures.record(&request, &outcome);
                if keep
                    && let Ok(reply) = outcome
                    && reply.ok()
                {
                    kept.push((i, reply));
                }
            }
            (conn, kept, failures)
        }));
    }
    let mut kept = Vec::new();
    let mut failures = Failures::default();
    for task in tasks {
        match task.await {
            Ok((conn, k, f)) => {
                conns.push(conn);
                kept.extend(k);
                failures.merge(f);
            }
            Err(e) => failures.add("worker".into(), || format!("a load task failed: {e}")),
        }
    }
    kept.sort_unstable_by_key(|(i, _)| *i);
    (kept, failures, started.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_sorted_latencies() {
        let l: Vec<u32> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(quantile_ms(&l, 0.5), 51.0);
        assert_eq!(quantile_ms(&l, 0.99), 99.0);
        assert!(quantile_ms(&[], 0.5).is_nan());
    }
}
