//! A broker flooding a `--sandbox`: on a fresh public sandbox (the workspace's release build,
//! `--sandbox` with a brokers file of two brokers and the server's default limits), one broker
//! creates tenders over 256 connections as fast as it is answered, while another reads its own
//! tenders at a steady, modest pace, on a thread of its own. The flooder's answers are counted
//! by status (created, refused at its rate, refused at its bound on live tenders), the server's
//! resident memory is read before and after, and the reader's latency is measured alone before
//! and after the flood and during it, so that its p50 and p99 under the flood are a ratio to
//! its own in the same run.

use crate::Error;
use crate::bodies::{Bodies, Periods};
use crate::client::{Broker, Call, Conn, Target};
use crate::load::quantile_ms;
use crate::server::{self, Server};
use bytes::Bytes;
use hyper::Method;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The name of the case (what `--only` matches).
pub const CASE: &str = "a broker flooding a --sandbox";

/// Connections the flooding broker sends over.
pub const FLOOD_CONNECTIONS: usize = 256;
/// Connections the reader reads over, and how often each reads.
pub const READER_CONNECTIONS: usize = 4;
const READ_EVERY: Duration = Duration::from_millis(40);
/// The reader's reads a second, in all.
pub const READS_A_SECOND: usize = READER_CONNECTIONS * 1000 / READ_EVERY.as_millis() as usize;
/// The reader's own tenders, which it reads in turn.
pub const READER_TENDERS: usize = 100;
/// The brokers of the sandbox: (name, key).
const FLOODER: (&str, &str) = ("flooder", "flooder-key");
const READER: (&str, &str) = ("reader", "reader-key");

/// The reader's latency over one stretch of time.
#[derive(Clone, Debug, Default)]
pub struct Reads {
    pub count: usize,
    pub p50: f64,
    pub p99: f64,
    /// Reads not answered 200 (a rate or a failure the reader should never meet).
    pub failed: u64,
}

impl Reads {
    fn of(mut latencies: Vec<u32>, failed: u64) -> Reads {
        latencies.sort_unstable();
        Reads {
            count: latencies.len(),
            p50: quantile_ms(&latencies, 0.5),
            p99: quantile_ms(&latencies, 0.99),
            failed,
        }
    }
}

/// What the case saw.
#[derive(Clone, Debug, Default)]
pub struct Flood {
    /// The sandbox's limits, as its index gives them.
    pub limits: String,
    pub seconds: f64,
    /// The flooder's answers by kind: `201`, `429`, `409`, any other status, `transport`.
    pub answers: BTreeMap<String, u64>,
    pub rss_before: Option<u64>,
    pub rss_after: Option<u64>,
    /// The reader alone (before and after the flood, together) and during it.
    pub quiet: Reads,
    pub flooded: Reads,
    pub error: Option<String>,
}

impl Flood {
    fn failed(error: Error) -> Flood {
        Flood {
            error: Some(error.to_string()),
            ..Flood::default()
        }
    }

    pub fn answered(&self, kind: &str) -> u64 {
        self.answers.get(kind).copied().unwrap_or(0)
    }

    /// The reader's p50 and p99 during the flood over those alone.
    pub fn ratios(&self) -> (f64, f64) {
        (
            self.flooded.p50 / self.quiet.p50,
            self.flooded.p99 / self.quiet.p99,
        )
    }
}

/// Runs the case on a fresh sandbox started from `binary` (the workspace's release build when
/// none): the reader alone for `alone` before and after a flood lasting `flood`.
pub async fn measure(
    binary: Option<PathBuf>,
    bodies: Bodies,
    alone: Duration,
    flood: Duration,
) -> Flood {
    match run(binary, bodies, alone, flood).await {
        Ok(flood) => flood,
        Err(e) => Flood::failed(e),
    }
}

async fn run(
    binary: Option<PathBuf>,
    mut bodies: Bodies,
    alone: Duration,
    duration: Duration,
) -> Result<Flood, Error> {
    let target_dir = server::workspace_root().join("target");
    std::fs::create_dir_all(&target_dir)?;
    let brokers = target_dir.join("tender-bench-brokers.ini");
    std::fs::write(
        &brokers,
        format!(
            "[brokers]\n{} = {}\n{} = {}\n",
            FLOODER.0, FLOODER.1, READER.0, READER.1
        ),
    )?;
    let mode = [
        "--sandbox".to_string(),
        "--brokers".to_string(),
        brokers.display().to_string(),
    ];
    // A sandbox runs on the wall clock: a clock start the benchmark's environment gives its
    // other servers is not for it.
    let unset = ["TENDER_CLOCK_START", "TENDER_TESTING"];
    let server = Server::start_as(false, binary, &mode, "tender-bench-sandbox.log", &unset).await?;
    let target = server.target.clone();
    println!(
        "{CASE}: a fresh sandbox at {} ({})",
        target.base_url(),
        mode.join(" ")
    );
    let (flooder, reader) = (Broker::new(FLOODER.1), Broker::new(READER.1));
    let mut control = Conn::open(&target).await?;
    let limits = control.send(&Call::get("/")).await?.checked("GET /")?.body;
    let limits = String::from_utf8_lossy(&limits)
        .lines()
        .find_map(|l| l.strip_prefix("limits"))
        .map_or_else(|| "not shown".into(), |l| l.trim().to_string());
    println!("  its limits: {limits}");

    // The reader's own tenders, and the flooder's bodies, dated from the wall clock the
    // sandbox runs on.
    let now = time::OffsetDateTime::now_utc();
    let periods = || Periods {
        enquiry: time::Duration::days(1),
        tender: time::Duration::days(3650),
    };
    let mut readable = Vec::new();
    for _ in 0..READER_TENDERS {
        let body = bodies.tender(now, periods(), false)?.body.to_string();
        let call = Call::new(Method::POST, "/api/2.3/tenders")
            .by(&reader)
            .json(body);
        let made = control.send(&call).await?.checked("the reader's tender")?;
        let id = made.json()["data"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        readable.push(id);
    }
    let readable = Arc::new(readable);
    let pool: Arc<Vec<Bytes>> = Arc::new(
        (0..FLOOD_CONNECTIONS)
            .map(|_| {
                Ok(Bytes::from(
                    bodies.tender(now, periods(), false)?.body.to_string(),
                ))
            })
            .collect::<Result<_, Error>>()?,
    );

    let mut flooders = Vec::new();
    for _ in 0..FLOOD_CONNECTIONS {
        flooders.push(Conn::open(&target).await?);
    }

    let alone_reads = || read_apart(&target, &readable, &reader, alone);
    let (before, failed_before) = joined(alone_reads()).await?;
    let rss_before = server::rss_bytes(server.pid());
    let started = Instant::now();
    let reading = read_apart(&target, &readable, &reader, duration);
    let answers = flood(&mut flooders, &pool, &flooder, duration).await;
    let (flooded, failed_flooded) = joined(reading).await?;
    let seconds = started.elapsed().as_secs_f64();
    let rss_after = server::rss_bytes(server.pid());
    let (after, failed_after) = joined(alone_reads()).await?;
    drop(server);

    let mut quiet = before;
    quiet.extend(after);
    let flood = Flood {
        limits,
        seconds,
        answers,
        rss_before,
        rss_after,
        quiet: Reads::of(quiet, failed_before + failed_after),
        flooded: Reads::of(flooded, failed_flooded),
        error: None,
    };
    println!("{}", progress_line(&flood));
    Ok(flood)
}

/// The reader's reads of `tenders` for `duration` (see [`read`]) on a thread and a runtime of
/// their own, over connections of their own: its latency is the server's, not the time its
/// answers wait behind the flooder's in the benchmark's own runtime.
fn read_apart(
    target: &Target,
    tenders: &Arc<Vec<String>>,
    reader: &Broker,
    duration: Duration,
) -> std::thread::JoinHandle<Result<(Vec<u32>, u64), Error>> {
    let (target, tenders, reader) = (target.clone(), tenders.clone(), reader.clone());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let mut conns = Vec::new();
            for _ in 0..READER_CONNECTIONS {
                conns.push(Conn::open(&target).await?);
            }
            Ok(read(&mut conns, &tenders, &reader, duration).await)
        })
    })
}

/// What the reader's thread read, once it is done.
async fn joined(
    reading: std::thread::JoinHandle<Result<(Vec<u32>, u64), Error>>,
) -> Result<(Vec<u32>, u64), Error> {
    tokio::task::spawn_blocking(move || reading.join())
        .await
        .map_err(|e| Error::new(format!("the reader's thread: {e}")))?
        .map_err(|_| Error::new("the reader's thread panicked"))?
}

/// The reader's steady reads over `conns` for `duration`: each connection reads one of its
/// tenders every [`READ_EVERY`] (never catching up on a late one, so the pace stays the same
/// whatever the latency). Answers each read's latency in microseconds and the reads that
/// failed.
async fn read(
    conns: &mut Vec<Conn>,
    tenders: &Arc<Vec<String>>,
    reader: &Broker,
    duration: Duration,
) -> (Vec<u32>, u64) {
    let until = Instant::now() + duration;
    let mut tasks = Vec::new();
    for (i, mut conn) in std::mem::take(conns).into_iter().enumerate() {
        let (tenders, reader) = (tenders.clone(), reader.clone());
        // Spread over the interval, so the connections do not read in step.
        let offset = READ_EVERY * i as u32 / READER_CONNECTIONS as u32;
        tasks.push(tokio::spawn(async move {
            let (mut latencies, mut failed) = (Vec::new(), 0u64);
            let mut next = tokio::time::Instant::now() + offset;
            let mut n = i;
            loop {
                tokio::time::sleep_until(next).await;
                if Instant::now() >= until {
                    break;
                }
                let id = &tenders[n % tenders.len().max(1)];
                n += READER_CONNECTIONS;
                let call = Call::get(format!("/api/2.3/tenders/{id}")).by(&reader);
                let sent = Instant::now();
                match conn.send(&call).await {
                    Ok(reply) if reply.status == 200 => {
                        latencies
                            .push(u32::try_from(sent.elapsed().as_micros()).unwrap_or(u32::MAX));
                    }
                    _ => failed += 1,
                }
                next = (next + READ_EVERY).max(tokio::time::Instant::now());
            }
            (conn, latencies, failed)
        }));
    }
    let (mut all, mut failed) = (Vec::new(), 0);
    for task in tasks {
        if let Ok((conn, latencies, f)) = task.await {
            conns.push(conn);
            all.extend(latencies);
            failed += f;
        }
    }
    (all, failed)
}

/// The flooder's creations over `conns` for `duration`, closed loop: the answers by kind.
async fn flood(
    conns: &mut Vec<Conn>,
    bodies: &Arc<Vec<Bytes>>,
    flooder: &Broker,
    duration: Duration,
) -> BTreeMap<String, u64> {
    let until = Instant::now() + duration;
    let mut tasks = Vec::new();
    for (i, mut conn) in std::mem::take(conns).into_iter().enumerate() {
        let call = Call::new(Method::POST, "/api/2.3/tenders")
            .by(flooder)
            .json(bodies[i % bodies.len()].clone());
        tasks.push(tokio::spawn(async move {
            let mut answers: BTreeMap<String, u64> = BTreeMap::new();
            while Instant::now() < until {
                let kind = match conn.send(&call).await {
                    Ok(reply) => reply.status.to_string(),
                    Err(_) => "transport".to_string(),
                };
                *answers.entry(kind).or_default() += 1;
            }
            (conn, answers)
        }));
    }
    let mut all = BTreeMap::new();
    for task in tasks {
        if let Ok((conn, answers)) = task.await {
            conns.push(conn);
            for (kind, n) in answers {
                *all.entry(kind).or_default() += n;
            }
        }
    }
    all
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The resident memory's growth during the flood, in words.
pub fn memory_text(f: &Flood) -> String {
    match (f.rss_before, f.rss_after) {
        (Some(before), Some(after)) => format!(
            "{:+.1} MiB ({:.1} MiB before, {:.1} MiB after)",
            mib(after) - mib(before),
            mib(before),
            mib(after)
        ),
        _ => "n/a".into(),
    }
}

/// The line printed when the case ends.
pub fn progress_line(f: &Flood) -> String {
    if let Some(e) = &f.error {
        return format!("  {CASE}: ERROR: {e}");
    }
    let total: u64 = f.answers.values().sum();
    let (p50, p99) = f.ratios();
    format!(
        "  {CASE}: {} requests in {:.1} s, {} created (201), {} refused at the rate (429), {} \
         at the bound on live tenders (409){}; memory {}; the reader's p50 {:.2} ms and p99 {:.2} \
         ms during the flood, {:.2} and {:.2} alone: {p50:.2} × and {p99:.2} ×",
        total,
        f.seconds,
        f.answered("201"),
        f.answered("429"),
        f.answered("409"),
        others(f).map_or(String::new(), |o| format!(", {o}")),
        memory_text(f),
        f.flooded.p50,
        f.flooded.p99,
        f.quiet.p50,
        f.quiet.p99,
    )
}

/// The flooder's answers other than 201, 429 and 409, in words, if any.
pub fn others(f: &Flood) -> Option<String> {
    let rest: Vec<String> = f
        .answers
        .iter()
        .filter(|(k, _)| !["201", "429", "409"].contains(&k.as_str()))
        .map(|(k, n)| format!("{n} × {k}"))
        .collect();
    (!rest.is_empty()).then(|| rest.join(", "))
}
