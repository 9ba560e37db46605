//! `tender-bench`: throughput, latency, memory and growth of a tender registry, every case
//! measured against a trivial endpoint of the same server in the same run.
//!
//! Without `--base-url` it builds (if needed) and starts the workspace's release server
//! itself. It preloads realistic tenders (bodies from `scenarios/`, dates from the server's
//! clock), drives closed-loop load over a fixed number of keep-alive connections for a fixed
//! time per case, prints a table and writes `BENCHMARKS.md`.

mod bodies;
mod certification;
mod client;
mod distance;
mod flood;
mod flows;
mod load;
mod report;
mod server;
#[path = "../../scenarios/vocabulary.rs"]
mod vocabulary;

use bodies::{Bodies, Periods, Rng, Templates};
use bytes::Bytes;
use clap::Parser;
use client::{Broker, Call, Conn, Target};
use hyper::Method;
use load::{Generator, Stats};
use report::{Report, Row};
use serde_json::json;
use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An error of the benchmark itself (not a failed request, which is counted instead).
#[derive(Debug)]
pub struct Error(String);

impl Error {
    pub fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error(e.to_string())
    }
}

/// Throughput, latency, memory and growth benchmark of a Tender Procurement Service
/// Interface 2.3 server.
#[derive(Debug, Parser)]
#[command(name = "tender-bench", version, about)]
pub struct Cli {
    /// Benchmark the server at this address (http://host:port) instead of starting the
    /// workspace's release build. Without its clock control API (`--testing`), the bid and
    /// flow cases are skipped; resident memory is not available.
    #[arg(long, env = "TENDER_BENCH_BASE_URL")]
    base_url: Option<String>,
    /// Tenders preloaded before the main cases [default: 10000; --quick: 300].
    #[arg(long)]
    tenders: Option<usize>,
    /// Concurrent keep-alive connections (and flows per wave).
    #[arg(long, default_value_t = 64)]
    connections: usize,
    /// Measured seconds per case [default: 4; --quick: 0.3].
    #[arg(long)]
    duration: Option<f64>,
    /// Unmeasured warm-up seconds before each case [default: 0.5; --quick: 0.1].
    #[arg(long)]
    warmup: Option<f64>,
    /// Tenders held for the first listing measurement [default: 1000; --quick: 100].
    #[arg(long)]
    listing_small: Option<usize>,
    /// Tenders held for the second listing measurement [default: 100000; --quick: 1000].
    #[arg(long)]
    listing_large: Option<usize>,
    /// A smoke run of a few seconds (small counts, short cases); writes no report unless
    /// --output is given.
    #[arg(long)]
    quick: bool,
    /// Where to write the report [default: BENCHMARKS.md at the workspace root; with
    /// --quick: nowhere].
    #[arg(long)]
    output: Option<PathBuf>,
    /// Directory of the request body templates [default: scenarios/ of the workspace].
    #[arg(long)]
    scenarios: Option<PathBuf>,
    /// Basic-auth keys of the brokers: tender owner, bidder, asker.
    #[arg(long, value_delimiter = ',', default_value = "broker,broker1,broker2")]
    brokers: Vec<String>,
    /// Do not run `cargo build --release --bin tender-registry` before starting the server.
    #[arg(long)]
    no_build: bool,
    /// Start this server binary instead of the workspace's release build (to compare two
    /// builds); it must accept `--testing --log warn --listen ADDR`.
    #[arg(long, conflicts_with = "base_url")]
    server: Option<PathBuf>,
    /// The certifier of the full-certification case [default: the workspace's release build
    /// of tender-certify, built first unless --no-build; with --quick: the debug build when
    /// there is one].
    #[arg(long, value_name = "PATH", conflicts_with = "base_url")]
    certify: Option<PathBuf>,
    /// Run only the cases whose name contains this text (case-insensitive; the baseline
    /// always runs), e.g. to profile one case; writes no report unless --output is given.
    #[arg(long)]
    only: Option<String>,
    /// Also measure the durable store: after the in-memory cases, start a second server with
    /// `--data-dir DIR` (DIR must hold no registry yet) and run POST tender, PATCH tender and
    /// POST bid on it, reported as ratios to the same cases in memory; then fill it to
    /// --listing-large tenders and time a restart.
    #[arg(long, conflicts_with = "base_url")]
    data_dir: Option<PathBuf>,
    /// Seed of the generated data.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
}

/// The run's settings, with the defaults and --quick applied.
#[derive(Clone, Debug)]
pub struct Plan {
    pub tenders: usize,
    pub connections: usize,
    pub duration: Duration,
    pub warmup: Duration,
    pub small: usize,
    pub large: usize,
}

impl Plan {
    fn from(cli: &Cli) -> Result<Plan, Error> {
        let pick = |v: Option<usize>, normal: usize, quick: usize| {
            v.unwrap_or(if cli.quick { quick } else { normal })
        };
        let secs = |v: Option<f64>, normal: f64, quick: f64| -> Result<Duration, Error> {
            let s = v.unwrap_or(if cli.quick { quick } else { normal });
            Duration::try_from_secs_f64(s).map_err(|e| Error::new(format!("{s} s: {e}")))
        };
        let plan = Plan {
            tenders: pick(cli.tenders, 10_000, 300),
            connections: cli.connections.max(1),
            duration: secs(cli.duration, 4.0, 0.3)?,
            warmup: secs(cli.warmup, 0.5, 0.1)?,
            small: pick(cli.listing_small, 1_000, 100),
            large: pick(cli.listing_large, 100_000, 1_000),
        };
        if plan.tenders == 0 || plan.small == 0 {
            return Err(Error::new("--tenders and --listing-small must be above 0"));
        }
        Ok(Plan {
            small: plan.small.min(plan.tenders),
            large: plan.large.max(plan.tenders),
            ..plan
        })
    }
}

const LIMIT: usize = 100;
const OPT_FIELDS: &str = "tenderID,status,title,value";

/// Preloaded tenders: far-off tendering end, so that the clock moves of the flows case
/// never push them through auctions.
fn preload_periods() -> Periods {
    Periods {
        enquiry: time::Duration::days(1),
        tender: time::Duration::days(3650),
    }
}

/// A preloaded tender.
/// The case of a tender read with documents on it.
const DOCUMENTED: &str = "GET tender with ten documents";
const DOCUMENTS_PER_TENDER: usize = 10;
const DOCUMENTED_TENDERS: usize = 1000;

#[derive(Clone, Debug)]
struct Held {
    id: String,
    token: String,
    bid: Bytes,
}

struct Bench {
    plan: Plan,
    server_pid: Option<u32>,
    conns: Vec<Conn>,
    control: Conn,
    bodies: Bodies,
    owner: Broker,
    bidder: Broker,
    asker: Broker,
    seed: u64,
    has_clock: bool,
    /// Published tenders the server holds (those of this run, and any it held before).
    listed: usize,
    held: Vec<Held>,
    only: Option<String>,
    report: Report,
}

/// Server CPU time per request, in microseconds.
fn server_cpu_per_request(
    before: Option<Duration>,
    after: Option<Duration>,
    requests: u64,
) -> Option<f64> {
    let used = after?.checked_sub(before?)?;
    (requests > 0).then(|| used.as_secs_f64() * 1e6 / requests as f64)
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Bench {
    /// A bench on `target` (the process `server_pid`, when the benchmark started it), with
    /// `report` to fill.
    #[allow(clippy::too_many_arguments)]
    async fn on(
        plan: &Plan,
        target: &Target,
        server_pid: Option<u32>,
        scenarios: &std::path::Path,
        [owner, bidder, asker]: &[Broker; 3],
        cli: &Cli,
        has_clock: bool,
        report: Report,
    ) -> Result<Bench, Error> {
        let mut conns = Vec::with_capacity(plan.connections);
        for _ in 0..plan.connections {
            conns.push(Conn::open(target).await?);
        }
        Ok(Bench {
            plan: plan.clone(),
            server_pid,
            conns,
            control: Conn::open(target).await?,
            bodies: Bodies::new(Templates::load(scenarios)?, cli.seed),
            owner: owner.clone(),
            bidder: bidder.clone(),
            asker: asker.clone(),
            seed: cli.seed,
            has_clock,
            listed: 0,
            held: Vec::new(),
            only: cli.only.as_ref().map(|o| o.to_lowercase()),
            report,
        })
    }

    fn cpu(&self) -> Option<Duration> {
        self.server_pid.and_then(server::cpu_time)
    }

    fn rss(&self) -> Option<u64> {
        self.server_pid.and_then(server::rss_bytes)
    }

    async fn server_now(&mut self) -> Result<time::OffsetDateTime, Error> {
        if self.has_clock {
            flows::Clock {
                conn: &mut self.control,
            }
            .now()
            .await
        } else {
            Ok(time::OffsetDateTime::now_utc())
        }
    }

    /// Whether `--only` lets this case run.
    fn wanted(&self, name: &str) -> bool {
        name.starts_with("baseline")
            || self
                .only
                .as_ref()
                .is_none_or(|only| name.to_lowercase().contains(only))
    }

    /// Whether `--only` lets a listing case run (the name of the second contains the first).
    fn wants_listing(&self) -> bool {
        self.wanted(&format!(
            "GET listing, limit {LIMIT}, opt_fields={OPT_FIELDS}"
        ))
    }

    /// One measured case; prints its line as soon as it is known.
    async fn case(&mut self, name: &str, generate: Generator) -> Stats {
        if !self.wanted(name) {
            return Stats::default();
        }
        let (warmup, duration) = (self.plan.warmup, self.plan.duration);
        let (stats, cpu) = self.measured(generate, warmup, duration).await;
        self.record(name, &stats, cpu);
        stats
    }

    /// One timed load and the server CPU time it took (None without a server to read).
    async fn measured(
        &mut self,
        generate: Generator,
        warmup: Duration,
        duration: Duration,
    ) -> (Stats, Option<Duration>) {
        self.seed = self.seed.wrapping_add(1);
        let cpu_before = self.cpu();
        let stats = load::timed(&mut self.conns, generate, warmup, duration, self.seed).await;
        let cpu = self
            .cpu()
            .zip(cpu_before)
            .and_then(|(after, before)| after.checked_sub(before));
        (stats, cpu)
    }

    /// Adds a measured case to the report and prints its line.
    fn record(&mut self, name: &str, stats: &Stats, cpu: Option<Duration>) {
        let mut row = Row::from_stats(name, self.listed, stats);
        row.server_cpu = server_cpu_per_request(Some(Duration::ZERO), cpu, stats.all_requests);
        println!("{}", self.report.progress_line(&row));
        self.report.rows.push(row);
    }

    /// Creates tenders until `total` are held; `keep` remembers their ids and tokens.
    async fn preload(&mut self, total: usize, keep: bool) -> Result<(), Error> {
        // Cases that change tenders need their tokens, so tenders the target held before
        // the run count for the listing only.
        let own = if keep {
            total.saturating_sub(self.held.len())
        } else {
            0
        };
        let count = total.saturating_sub(self.listed).max(own);
        if count == 0 {
            return Ok(());
        }
        let now = self.server_now().await?;
        let pool: Vec<(Bytes, u64)> = (0..count.min(1024))
            .map(|_| {
                let t = self.bodies.tender(now, preload_periods(), false)?;
                Ok((Bytes::from(t.body.to_string()), t.value_amount))
            })
            .collect::<Result<_, Error>>()?;
        let bids: Vec<Bytes> = if keep {
            pool.iter()
                .map(|(_, value)| Ok(Bytes::from(self.bodies.bid(*value)?.to_string())))
                .collect::<Result<_, Error>>()?
        } else {
            Vec::new()
        };
        let pool = Arc::new(pool);
        let owner = self.owner.clone();
        let bodies = pool.clone();
        let make = Arc::new(move |i: usize| {
            Call::new(Method::POST, "/api/2.3/tenders")
                .by(&owner)
                .json(bodies[i % bodies.len()].0.clone())
        });
        let (kept, failures, took) = load::counted(&mut self.conns, make, count, keep).await;
        let made = if keep {
            kept.len()
        } else {
            count.saturating_sub(failures.count() as usize)
        };
        for (i, reply) in kept {
            let body = reply.json();
            if let (Some(id), Some(token)) = (
                body["data"]["id"].as_str(),
                body["access"]["token"].as_str(),
            ) {
                self.held.push(Held {
                    id: id.to_owned(),
                    token: token.to_owned(),
                    bid: bids[i % bids.len()].clone(),
                });
            }
        }
        self.listed += made;
        let line = format!(
            "preloaded {} tenders in {:.1} s ({}/s), {} held",
            report::thousands(made as f64),
            took.as_secs_f64(),
            report::thousands(made as f64 / took.as_secs_f64().max(1e-9)),
            report::thousands(self.listed as f64)
        );
        println!("{line}");
        self.report.notes.push(line);
        if failures.count() > 0 {
            return Err(Error::new(format!(
                "preloading failed: {}",
                failures.summary()
            )));
        }
        Ok(())
    }

    /// `dateModified` of every listed tender, in feed order (walking the feed by 1,000).
    async fn feed_offsets(&mut self) -> Result<Vec<String>, Error> {
        let mut offsets = Vec::new();
        let mut next = String::new();
        for _ in 0..(self.plan.large / 1000 + 1000) {
            let mut path = "/api/2.3/tenders?limit=1000".to_string();
            if !next.is_empty() {
                path.push_str(&format!("&offset={}", percent_encode(&next)));
            }
            let page = self
                .control
                .send(&Call::get(path))
                .await?
                .checked("walking the listing")?
                .json();
            let rows = page["data"].as_array().cloned().unwrap_or_default();
            if rows.is_empty() {
                break;
            }
            offsets.extend(
                rows.iter()
                    .filter_map(|r| r["dateModified"].as_str().map(str::to_owned)),
            );
            next = page["next_page"]["offset"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if next.is_empty() {
                break;
            }
        }
        Ok(offsets)
    }

    /// The two listing cases (plain, and with opt_fields) at the current number of tenders.
    async fn listings(&mut self, label: &str) -> Result<(Stats, Stats), Error> {
        if !self.wants_listing() {
            return Ok((Stats::default(), Stats::default()));
        }
        let offsets = self.feed_offsets().await?;
        let usable = offsets.len().saturating_sub(LIMIT).max(1);
        let offsets: Arc<Vec<String>> = Arc::new(
            offsets
                .iter()
                .take(usable)
                .map(|o| percent_encode(o))
                .collect(),
        );
        let page = |fields: bool| -> Generator {
            let offsets = offsets.clone();
            Arc::new(move |rng: &mut Rng| {
                let mut path = format!("/api/2.3/tenders?limit={LIMIT}");
                if fields {
                    path.push_str("&opt_fields=");
                    path.push_str(&percent_encode(OPT_FIELDS));
                }
                if !offsets.is_empty() {
                    path.push_str("&offset=");
                    path.push_str(&offsets[rng.below(offsets.len())]);
                }
                Call::get(path)
            })
        };
        let plain = self
            .case(&format!("GET listing, limit {LIMIT}{label}"), page(false))
            .await;
        let with_fields = self
            .case(
                &format!("GET listing, limit {LIMIT}, opt_fields={OPT_FIELDS}{label}"),
                page(true),
            )
            .await;
        Ok((plain, with_fields))
    }

    /// The listing cases named by the tenders held: (held, p50 plain, p50 with fields).
    async fn listings_at_size(&mut self) -> Result<Option<(usize, f64, f64)>, Error> {
        let label = format!(" @ {}", report::thousands(self.listed as f64));
        let (plain, fields) = self.listings(&label).await?;
        Ok((plain.requests > 0)
            .then(|| (self.listed, plain.quantile_ms(0.5), fields.quantile_ms(0.5))))
    }

    fn baseline_generator() -> Generator {
        Arc::new(|_: &mut Rng| Call::new(Method::HEAD, "/api/2.3/spore"))
    }

    fn held_tenders(&self) -> Arc<Vec<Held>> {
        Arc::new(self.held.clone())
    }

    /// PATCH of a held tender's description.
    fn patch_generator(&self) -> Generator {
        let tenders = self.held_tenders();
        let owner = self.owner.clone();
        Arc::new(move |rng: &mut Rng| {
            let t = &tenders[rng.below(tenders.len())];
            let body = json!({"data": {"description": format!(
                "Уточнені технічні вимоги, редакція {}", rng.next_u64() % 1_000_000
            )}});
            Call::new(
                Method::PATCH,
                format!("/api/2.3/tenders/{}?acc_token={}", t.id, t.token),
            )
            .by(&owner)
            .json(body.to_string())
        })
    }

    /// A bid on a held tender (in tendering once the clock moved).
    fn bid_generator(&self) -> Generator {
        self.bids_on(self.held_tenders())
    }

    /// A bid on one of `tenders`, picked at random.
    fn bids_on(&self, tenders: Arc<Vec<Held>>) -> Generator {
        let bidder = self.bidder.clone();
        Arc::new(move |rng: &mut Rng| {
            let t = &tenders[rng.below(tenders.len())];
            Call::new(Method::POST, format!("/api/2.3/tenders/{}/bids", t.id))
                .by(&bidder)
                .json(t.bid.clone())
        })
    }

    /// A new tender from a pool of generated bodies.
    async fn tender_generator(&mut self) -> Result<Generator, Error> {
        let now = self.server_now().await?;
        let pool: Vec<Bytes> = (0..1024)
            .map(|_| {
                let t = self.bodies.tender(now, preload_periods(), false)?;
                Ok(Bytes::from(t.body.to_string()))
            })
            .collect::<Result<_, Error>>()?;
        let owner = self.owner.clone();
        Ok(Arc::new(move |rng: &mut Rng| {
            Call::new(Method::POST, "/api/2.3/tenders")
                .by(&owner)
                .json(pool[rng.below(pool.len())].clone())
        }))
    }

    /// Moves the clock past the enquiry period of the held tenders.
    async fn move_to_tendering(&mut self) -> Result<(), Error> {
        let started = Instant::now();
        flows::Clock {
            conn: &mut self.control,
        }
        .advance("P1DT1M")
        .await?;
        let line = format!(
            "clock moved past the enquiry period of {} tenders (all to active.tendering) in {:.0} ms",
            report::thousands(self.listed as f64),
            started.elapsed().as_secs_f64() * 1000.0
        );
        println!("{line}");
        self.report.notes.push(line);
        Ok(())
    }

    /// Gives up to [`DOCUMENTED_TENDERS`] held tenders [`DOCUMENTS_PER_TENDER`] documents
    /// each (registered by address, as a broker's document service would hand them out);
    /// returns their ids.
    async fn attach_documents(&mut self) -> Result<Arc<Vec<String>>, Error> {
        let tenders: Vec<(String, String)> = self
            .held
            .iter()
            .take(DOCUMENTED_TENDERS)
            .map(|h| (h.id.clone(), h.token.clone()))
            .collect();
        let owner = self.owner.clone();
        let targets = Arc::new(tenders.clone());
        let make = Arc::new(move |i: usize| {
            let (id, token) = &targets[i / DOCUMENTS_PER_TENDER];
            let body = json!({"data": {
                "title": format!("Технічна специфікація, частина {}.pdf", i % DOCUMENTS_PER_TENDER + 1),
                "url": format!("https://documents.example.test/get/{i:032x}"),
                "hash": format!("md5:{i:032x}"),
                "format": "application/pdf",
            }});
            Call::new(
                Method::POST,
                format!("/api/2.3/tenders/{id}/documents?acc_token={token}"),
            )
            .by(&owner)
            .json(body.to_string())
        });
        let count = tenders.len() * DOCUMENTS_PER_TENDER;
        let took = self.fill(make, count, "attaching documents").await?;
        self.note(format!(
            "attached {DOCUMENTS_PER_TENDER} documents to each of {} tenders in {:.1} s",
            report::thousands(tenders.len() as f64),
            took.as_secs_f64()
        ));
        Ok(Arc::new(tenders.into_iter().map(|(id, _)| id).collect()))
    }

    /// Sends the `count` requests `make` makes, every one of which must succeed (`what` names
    /// them otherwise); returns how long they took.
    async fn fill(
        &mut self,
        make: Arc<dyn Fn(usize) -> Call + Send + Sync>,
        count: usize,
        what: &str,
    ) -> Result<Duration, Error> {
        let (_, failures, took) = load::counted(&mut self.conns, make, count, false).await;
        if failures.count() > 0 {
            return Err(Error::new(format!("{what} failed: {}", failures.summary())));
        }
        Ok(took)
    }

    /// A line of the run's steps, printed and kept for the report.
    fn note(&mut self, line: String) {
        println!("{line}");
        self.report.notes.push(line);
    }
}

/// Tenders of each group of the crowded-tender cases.
const CROWDED_TENDERS: usize = 256;
/// Bids on each tender of the crowded group before its case is measured.
const CROWD: usize = 200;
const CROWDED_CASE: &str = "POST bid, tender holding 200 bids";
const UNCROWDED_CASE: &str = "POST bid, tender holding no bids";

/// A durable case and its twin in memory, half a case at a time in the order memory,
/// durable, durable, memory, so that neither gains from the moment it runs; each pair is
/// merged into its row.
async fn paired(b: &mut Bench, memory: &mut Bench, case: &str, kept: Generator, twin: Generator) {
    let name = format!("durable: {case}");
    if !b.wanted(&name) {
        return;
    }
    let (warmup, half) = (b.plan.warmup, b.plan.duration / 2);
    let (m1, m1_cpu) = memory.measured(twin.clone(), warmup, half).await;
    let (k1, k1_cpu) = b.measured(kept.clone(), warmup, half).await;
    let (k2, k2_cpu) = b.measured(kept, warmup, half).await;
    let (m2, m2_cpu) = memory.measured(twin, warmup, half).await;
    let sum = |x: Option<Duration>, y: Option<Duration>| x.zip(y).map(|(x, y)| x + y);
    b.record(&name, &k1.merge(k2), sum(k1_cpu, k2_cpu));
    b.record(
        &format!("{PAIRED}{case}"),
        &m1.merge(m2),
        sum(m1_cpu, m2_cpu),
    );
}

/// Whether a bid's cost grows with the bids already on its tender: bids posted for a short
/// while to tenders that held [`CROWD`] each and to tenders that held none. Each case adds
/// about the same number of bids to its group, so the two differ by the bids held before.
async fn crowded_cases(b: &mut Bench) -> Result<(), Error> {
    if !b.has_clock || !(b.wanted(CROWDED_CASE) || b.wanted(UNCROWDED_CASE)) {
        return Ok(());
    }
    let before = b.held.len();
    b.preload(b.listed + 2 * CROWDED_TENDERS, true).await?;
    let made = b.held.split_off(before);
    if made.len() < 2 * CROWDED_TENDERS {
        return Err(Error::new(
            "the crowded-tender cases could not create their tenders",
        ));
    }
    let crowded: Arc<Vec<Held>> = Arc::new(made[..CROWDED_TENDERS].to_vec());
    let empty: Arc<Vec<Held>> = Arc::new(made[CROWDED_TENDERS..2 * CROWDED_TENDERS].to_vec());
    b.held.extend(made);
    b.move_to_tendering().await?;
    let targets = crowded.clone();
    let bidder = b.bidder.clone();
    let fill = Arc::new(move |i: usize| {
        let t = &targets[i % targets.len()];
        Call::new(Method::POST, format!("/api/2.3/tenders/{}/bids", t.id))
            .by(&bidder)
            .json(t.bid.clone())
    });
    let took = b
        .fill(fill, CROWDED_TENDERS * CROWD, "crowding tenders with bids")
        .await?;
    b.note(format!(
        "posted {CROWD} bids to each of {CROWDED_TENDERS} tenders in {:.1} s",
        took.as_secs_f64()
    ));
    // Short, so that neither group grows far from where it started; in the order A, B, B, A,
    // so that neither case gains from the moment it runs (a later case ran slower here).
    let (warmup, half) = (Duration::from_millis(100), Duration::from_millis(500));
    let (crowded, empty) = (b.bids_on(crowded), b.bids_on(empty));
    let (a1, a1_cpu) = b.measured(crowded.clone(), warmup, half).await;
    let (b1, b1_cpu) = b.measured(empty.clone(), warmup, half).await;
    let (b2, b2_cpu) = b.measured(empty, warmup, half).await;
    let (a2, a2_cpu) = b.measured(crowded, warmup, half).await;
    let sum = |x: Option<Duration>, y: Option<Duration>| x.zip(y).map(|(x, y)| x + y);
    b.record(CROWDED_CASE, &a1.merge(a2), sum(a1_cpu, a2_cpu));
    b.record(UNCROWDED_CASE, &b1.merge(b2), sum(b1_cpu, b2_cpu));
    Ok(())
}

const PATCH_CASE: &str = "PATCH tender (description)";
pub const CONTRACT_GET: &str = "GET contract";
pub const CONTRACT_PATCH: &str = "PATCH contract (description)";
/// Contracts the contract cases write to (their credentials are taken one by one first).
const MANAGED_CONTRACTS: usize = 256;
const BID_CASE: &str = "POST bid (draft, scenarios/bid.json)";
const LIVE_CASE: &str = "whole procurements with a live auction";
const TENDER_CASE: &str = "POST tender (scenarios/tender.json)";

async fn run(cli: &Cli, report: Report) -> Result<Report, Error> {
    let plan = Plan::from(cli)?;
    let root = server::workspace_root();
    let scenarios = cli.scenarios.clone().unwrap_or(root.join("scenarios"));
    let brokers: Vec<Broker> = cli.brokers.iter().map(|b| Broker::new(b)).collect();
    let brokers = <[Broker; 3]>::try_from(brokers)
        .map_err(|_| Error::new("--brokers takes three keys: owner,bidder,asker"))?;

    let build = !cli.no_build && std::env::var_os("CARGO").is_some();
    let server = match &cli.base_url {
        Some(_) => None,
        None => Some(server::Server::start(build, cli.server.clone(), None).await?),
    };
    // Built (or found) before anything is measured, so that a missing one stops the run at
    // once.
    let wants_certification = cli
        .only
        .as_ref()
        .is_none_or(|only| certification::CASE.contains(&only.to_lowercase()));
    let certifier = match &cli.base_url {
        None if wants_certification => Some(certification::certifier(
            cli.certify.as_deref(),
            cli.quick,
            build,
        )?),
        _ => None,
    };
    let target = match (&server, &cli.base_url) {
        (Some(s), _) => s.target.clone(),
        (None, Some(url)) => Target::parse(url)?,
        (None, None) => return Err(Error::new("no target")),
    };
    let mut control = Conn::open(&target).await?;
    control
        .send(&Call::new(Method::HEAD, "/api/2.3/spore"))
        .await?
        .checked("HEAD /api/2.3/spore")?;
    let has_clock = control
        .send(&Call::get("/testing/clock"))
        .await
        .is_ok_and(|r| r.ok());
    drop(control);
    println!(
        "target {}{}; {} connections, {:.1} s per case after {:.1} s warm-up",
        target.base_url(),
        if has_clock {
            " (clock control API)"
        } else {
            " (no clock control API: bid and flow cases skipped)"
        },
        plan.connections,
        plan.duration.as_secs_f64(),
        plan.warmup.as_secs_f64(),
    );
    let pid = server.as_ref().map(server::Server::pid);
    let mut b = Bench::on(
        &plan, &target, pid, &scenarios, &brokers, cli, has_clock, report,
    )
    .await?;
    b.report.plan = Some(plan.clone());
    b.report.target = match (&server, &cli.server) {
        (Some(_), None) => format!(
            "the workspace's release build of tender-registry, started by the benchmark \
             (`--testing --log warn`, {})",
            target.base_url()
        ),
        (Some(_), Some(path)) => format!(
            "{}, started by the benchmark (`--testing --log warn`, {})",
            path.display(),
            target.base_url()
        ),
        (None, _) => target.base_url(),
    };
    let result = measure(&mut b).await;
    let mut report = b.report;
    drop(server);
    if let Err(e) = result {
        report.aborted = Some(e.to_string());
        return Ok(report);
    }
    if let Some(certifier) = certifier {
        // A quick run certifies a subset, a little away, so that the smoke test stays short.
        let (tags, one_way) = if cli.quick {
            (Some("@conventions".to_string()), Duration::from_millis(5))
        } else {
            (None, Duration::from_millis(25))
        };
        report.certification = Some(
            certification::measure(certifier, cli.server.clone(), tags, one_way, cli.seed).await,
        );
    } else if cli.base_url.is_some() && wants_certification {
        let line = format!(
            "{} skipped: it certifies fresh servers the benchmark starts (not a --base-url)",
            certification::CASE
        );
        println!("{line}");
        report.notes.push(line);
    }
    let wants_flood = cli
        .only
        .as_ref()
        .is_none_or(|only| flood::CASE.contains(&only.to_lowercase()));
    if wants_flood && cli.base_url.is_none() {
        let bodies = Bodies::new(Templates::load(&scenarios)?, cli.seed);
        // The reader alone for a case's time before and after, the flood twice as long: long
        // enough for the flooder to reach its bound on live tenders at the default rate. A
        // second at least, even in a quick run, for the reader's 99th percentile.
        let alone = plan.duration.max(Duration::from_secs(1));
        report.flood = Some(flood::measure(cli.server.clone(), bodies, alone, alone * 2).await);
    } else if wants_flood {
        let line = format!(
            "{} skipped: it floods a fresh sandbox the benchmark starts (not a --base-url)",
            flood::CASE
        );
        println!("{line}");
        report.notes.push(line);
    }
    let Some(dir) = &cli.data_dir else {
        return Ok(report);
    };
    // The same cases again on a durable server, in the same run.
    if dir.join("registry.sqlite3").exists() {
        report.aborted = Some(format!(
            "{} already holds a registry: give --data-dir a new directory",
            dir.display()
        ));
        return Ok(report);
    }
    let mut server = server::Server::start(false, cli.server.clone(), Some(dir)).await?;
    // A twin in memory, started the same way, whose cases run interleaved with the durable
    // ones: measured side by side, the two see the same machine.
    let twin = server::Server::start(false, cli.server.clone(), None).await?;
    let (pid, twin_pid) = (Some(server.pid()), Some(twin.pid()));
    let mut kept = Bench::on(
        &plan,
        &server.target,
        pid,
        &scenarios,
        &brokers,
        cli,
        has_clock,
        report,
    )
    .await?;
    let mut memory = Bench::on(
        &plan,
        &twin.target,
        twin_pid,
        &scenarios,
        &brokers,
        cli,
        has_clock,
        Report::new(),
    )
    .await?;
    let result = measure_durable(&mut kept, &mut memory, &mut server).await;
    drop(twin);
    let mut report = kept.report;
    if let Err(e) = result {
        report.aborted = Some(e.to_string());
    }
    Ok(report)
}

/// The prefix of a durable case's twin in memory.
pub const PAIRED: &str = "in memory, paired with the durable: ";

/// The write cases on the durable store, each paired with the same case on a twin server in
/// memory; then the durable store's start-up time with the large count held.
async fn measure_durable(
    b: &mut Bench,
    memory: &mut Bench,
    server: &mut server::Server,
) -> Result<(), Error> {
    let plan = b.plan.clone();
    b.preload(plan.tenders, true).await?;
    memory.preload(plan.tenders, true).await?;
    let (kept, twin) = (b.patch_generator(), memory.patch_generator());
    paired(b, memory, PATCH_CASE, kept, twin).await;
    if b.has_clock {
        b.move_to_tendering().await?;
        memory.move_to_tendering().await?;
        let (kept, twin) = (b.bid_generator(), memory.bid_generator());
        paired(b, memory, BID_CASE, kept, twin).await;
    }
    let (kept, twin) = (
        b.tender_generator().await?,
        memory.tender_generator().await?,
    );
    paired(b, memory, TENDER_CASE, kept, twin).await;
    b.listed = count_listed(b).await?;
    b.preload(plan.large, false).await?;
    let held = b.listed;
    let took = server.restart().await?;
    b.control = Conn::open(&server.target).await?;
    let found = count_listed(b).await?;
    if found != held {
        return Err(Error::new(format!(
            "the restarted durable server lists {found} tenders, not the {held} it held"
        )));
    }
    let line = format!(
        "durable start-up with {} tenders held: {:.2} s (process start until HEAD /api/2.3/spore answers)",
        report::thousands(held as f64),
        took.as_secs_f64()
    );
    println!("{line}");
    b.report.durable_startup = Some((held, took.as_secs_f64()));
    Ok(())
}

async fn measure(b: &mut Bench) -> Result<(), Error> {
    let plan = b.plan.clone();
    // Warm the connections and the server's buffers, then take the empty server's memory.
    load::timed(
        &mut b.conns,
        Bench::baseline_generator(),
        Duration::ZERO,
        Duration::from_secs(1).min(plan.duration * 2),
        0,
    )
    .await;
    let rss_empty = b.rss();
    b.report.rss_empty = rss_empty;
    b.listed = count_listed(b).await?;
    if b.listed > 0 {
        let line = format!(
            "the target already holds {} published tenders: they count as held",
            report::thousands(b.listed as f64)
        );
        println!("{line}");
        b.report.notes.push(line);
    }

    b.preload(plan.small, true).await?;
    b.report.listing_small = b.listings_at_size().await?;

    b.preload(plan.tenders, true).await?;
    b.report.rss_held = b
        .rss()
        .zip(rss_empty)
        .map(|(now, empty)| (b.listed, now, empty));
    if b.held.is_empty() {
        return Err(Error::new("no tender could be preloaded"));
    }

    let baseline = b
        .case("baseline: HEAD /api/2.3/spore", Bench::baseline_generator())
        .await;
    b.report.baseline = baseline.per_second();

    let held = b.held_tenders();
    let tenders = held.clone();
    b.case(
        "GET tender",
        Arc::new(move |rng: &mut Rng| {
            Call::get(format!(
                "/api/2.3/tenders/{}",
                tenders[rng.below(tenders.len())].id
            ))
        }),
    )
    .await;

    // The same reads sent with a broker's credentials: each kept in its request log.
    let tenders = held.clone();
    let reader = b.owner.clone();
    b.case(
        LOGGED_GET,
        Arc::new(move |rng: &mut Rng| {
            Call::get(format!(
                "/api/2.3/tenders/{}",
                tenders[rng.below(tenders.len())].id
            ))
            .by(&reader)
        }),
    )
    .await;
    request_log_footprint(b).await;

    if b.wanted(DOCUMENTED) {
        let documented = b.attach_documents().await?;
        b.case(
            DOCUMENTED,
            Arc::new(move |rng: &mut Rng| {
                Call::get(format!(
                    "/api/2.3/tenders/{}",
                    documented[rng.below(documented.len())]
                ))
            }),
        )
        .await;
    }

    b.listings("").await?;

    b.case(PATCH_CASE, b.patch_generator()).await;

    let contracts = b.wanted(CONTRACT_GET) || b.wanted(CONTRACT_PATCH);
    if b.has_clock && (b.wanted("POST bid") || b.wanted("whole flows") || contracts) {
        b.move_to_tendering().await?;
        b.case(BID_CASE, b.bid_generator()).await;
    }
    crowded_cases(b).await?;
    // The contract cases run on the contracts the flows signed.
    if b.has_clock && (b.wanted("whole flows") || contracts) {
        let parties = flows::Parties {
            owner: b.owner.clone(),
            bidder: b.bidder.clone(),
            asker: b.asker.clone(),
        };
        let cpu_before = b.cpu();
        let stats = flows::run(
            &mut b.conns,
            &mut b.control,
            &mut b.bodies,
            parties,
            plan.duration,
            false,
        )
        .await;
        b.listed += stats.completed as usize;
        let mut row = Row::from_flows(
            "whole flows",
            "a whole flow",
            b.listed,
            plan.connections,
            &stats,
        );
        row.server_cpu = server_cpu_per_request(cpu_before, b.cpu(), stats.requests);
        println!("{}", b.report.progress_line(&row));
        b.report.flows = Some((stats.per_second(), stats.completed, stats.started));
        b.report.rows.push(row);
        contract_cases(b, stats.contracts).await?;
    }
    if b.has_clock && b.wanted(LIVE_CASE) {
        live_auction_case(b).await;
    }
    if !b.has_clock {
        b.report
            .rows
            .push(Row::skipped("POST bid (needs the clock control API)"));
        b.report
            .rows
            .push(Row::skipped("whole flows (need the clock control API)"));
        b.report.rows.push(Row::skipped(&format!(
            "{LIVE_CASE} (need the clock control API)"
        )));
    }

    // Tenders created during warm-ups are held too: count the feed.
    b.listed = count_listed(b).await?;
    // The large listing before the creating cases, which on a fast machine would take the
    // count far past it.
    if b.wants_listing() {
        b.preload(plan.large, false).await?;
        b.report.rss_large = b
            .rss()
            .zip(rss_empty)
            .map(|(now, empty)| (b.listed, now, empty));
        b.report.listing_large = b.listings_at_size().await?;
    }

    let make = b.tender_generator().await?;
    b.case(TENDER_CASE, make).await;
    lot_cases(b).await?;
    if !b.wants_listing() {
        return Ok(());
    }

    let again = b
        .case("baseline again (drift check)", Bench::baseline_generator())
        .await;
    b.report.baseline_again = again.per_second();
    Ok(())
}

/// Whole procurements whose bidders take part in the live auction, in waves like the whole
/// flows.
async fn live_auction_case(b: &mut Bench) {
    let parties = flows::Parties {
        owner: b.owner.clone(),
        bidder: b.bidder.clone(),
        asker: b.asker.clone(),
    };
    let cpu_before = b.cpu();
    let stats = flows::run(
        &mut b.conns,
        &mut b.control,
        &mut b.bodies,
        parties,
        b.plan.duration,
        true,
    )
    .await;
    b.listed += stats.completed as usize;
    let mut row = Row::from_flows(
        LIVE_CASE,
        "a whole procurement",
        b.listed,
        b.plan.connections,
        &stats,
    );
    row.server_cpu = server_cpu_per_request(cpu_before, b.cpu(), stats.requests);
    println!("{}", b.report.progress_line(&row));
    b.report.rows.push(row);
}

/// The contracts the flows signed, under management: read, and changed with their own
/// tokens (taken first, with their tenders' tokens). A target without contract management
/// answers 404 and the cases are skipped.
async fn contract_cases(b: &mut Bench, signed: Vec<(String, String)>) -> Result<(), Error> {
    if !(b.wanted(CONTRACT_GET) || b.wanted(CONTRACT_PATCH)) {
        return Ok(());
    }
    let mut managed = Vec::new();
    for (contract, tender_token) in signed.into_iter().take(MANAGED_CONTRACTS) {
        let call = Call::new(
            Method::PATCH,
            format!("/api/2.3/contracts/{contract}/credentials?acc_token={tender_token}"),
        )
        .by(&b.owner);
        let reply = b.control.send(&call).await?;
        if reply.status == 404 {
            b.note(
                "the target has no contract management (404): the contract cases are skipped"
                    .into(),
            );
            return Ok(());
        }
        let taken = reply.checked("take a contract's credentials")?.json();
        let token = taken["access"]["token"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        managed.push((contract, token));
    }
    if managed.is_empty() {
        return Ok(());
    }
    let managed = Arc::new(managed);
    let read = managed.clone();
    b.case(
        CONTRACT_GET,
        Arc::new(move |rng: &mut Rng| {
            Call::get(format!(
                "/api/2.3/contracts/{}",
                read[rng.below(read.len())].0
            ))
        }),
    )
    .await;
    let owner = b.owner.clone();
    b.case(
        CONTRACT_PATCH,
        Arc::new(move |rng: &mut Rng| {
            let (id, token) = &managed[rng.below(managed.len())];
            let body = json!({"data": {"description": format!(
                "Поставка за графіком, редакція {}", rng.next_u64() % 1_000_000
            )}});
            Call::new(
                Method::PATCH,
                format!("/api/2.3/contracts/{id}?acc_token={token}"),
            )
            .by(&owner)
            .json(body.to_string())
        }),
    )
    .await;
    Ok(())
}

/// Lots in the tender.
const LOTS: u64 = 3;
/// Lot tenders created for the GET case.
const LOT_TENDERS: usize = 256;

/// A tender divided into lots, created inline and read; a target that does not offer lots
/// (`422 Rogue field` for them) gets the cases reported as skipped.
async fn lot_cases(b: &mut Bench) -> Result<(), Error> {
    let post = format!("lot tender: POST with {LOTS} lots");
    let get = format!("lot tender: GET with {LOTS} lots");
    if !b.wanted(&post) && !b.wanted(&get) {
        return Ok(());
    }
    let now = b.server_now().await?;
    let pool: Vec<Bytes> = (0..1024)
        .map(|_| {
            let t = b.bodies.lot_tender(now, preload_periods(), LOTS)?;
            Ok(Bytes::from(t.body.to_string()))
        })
        .collect::<Result<_, Error>>()?;
    let owner = b.owner.clone();
    let probe = b
        .control
        .send(
            &Call::new(Method::POST, "/api/2.3/tenders")
                .by(&owner)
                .json(pool[0].clone()),
        )
        .await?;
    if probe.status != 201 {
        let line = format!(
            "the target refuses a tender with lots ({}): the lot cases are skipped",
            probe.status
        );
        println!("{line}");
        b.report.notes.push(line);
        b.report
            .rows
            .push(Row::skipped(&format!("{post} (lots not offered)")));
        b.report
            .rows
            .push(Row::skipped(&format!("{get} (lots not offered)")));
        return Ok(());
    }
    let pool = Arc::new(pool);
    let bodies = pool.clone();
    let by = owner.clone();
    b.case(
        &post,
        Arc::new(move |rng: &mut Rng| {
            Call::new(Method::POST, "/api/2.3/tenders")
                .by(&by)
                .json(bodies[rng.below(bodies.len())].clone())
        }),
    )
    .await;
    if !b.wanted(&get) {
        return Ok(());
    }
    let bodies = pool.clone();
    let make = Arc::new(move |i: usize| {
        Call::new(Method::POST, "/api/2.3/tenders")
            .by(&owner)
            .json(bodies[i % bodies.len()].clone())
    });
    let (kept, failures, _) = load::counted(&mut b.conns, make, LOT_TENDERS, true).await;
    if failures.count() > 0 {
        return Err(Error::new(format!(
            "creating lot tenders failed: {}",
            failures.summary()
        )));
    }
    let ids: Arc<Vec<String>> = Arc::new(
        kept.iter()
            .filter_map(|(_, reply)| reply.json()["data"]["id"].as_str().map(str::to_owned))
            .collect(),
    );
    if ids.is_empty() {
        return Err(Error::new("no lot tender could be created"));
    }
    b.case(
        &get,
        Arc::new(move |rng: &mut Rng| {
            Call::get(format!("/api/2.3/tenders/{}", ids[rng.below(ids.len())]))
        }),
    )
    .await;
    Ok(())
}

/// Tenders in the feed (walked by 1,000), i.e. published tenders held by the server.
/// The GET tender case sent as the tender owner's broker, so that each read is kept in its
/// request log.
const LOGGED_GET: &str = "GET tender, as a broker (kept in its request log)";

/// What the owner's request log holds after the logged reads, as the log counts it: the
/// exchanges kept and the bytes each holds (its bodies, fields and entry); a note of the
/// report. A target without the log (404) is noted so.
async fn request_log_footprint(b: &mut Bench) {
    let call = Call::get("/testing/requests?limit=1").by(&b.owner);
    let line = match b.control.send(&call).await {
        Ok(reply) if reply.ok() => {
            let log = reply.json()["log"].clone();
            let kept = log["kept"].as_f64().unwrap_or(0.0);
            let bytes = log["bytes"].as_f64().unwrap_or(0.0);
            match kept > 0.0 {
                true => format!(
                    "request log: {} exchanges of the owner's kept (bound {}), {} bytes each on average (bodies, fields and entry, as the log counts them; the GET tender answer is most of it)",
                    report::thousands(kept),
                    report::thousands(log["bound"].as_f64().unwrap_or(0.0)),
                    report::thousands((bytes / kept).round()),
                ),
                false => "request log: nothing kept (the target keeps none)".to_string(),
            }
        }
        Ok(reply) => format!("request log: not offered by the target ({})", reply.status),
        Err(e) => format!("request log: not read ({e})"),
    };
    println!("{line}");
    b.report.notes.push(line);
}

async fn count_listed(b: &mut Bench) -> Result<usize, Error> {
    Ok(b.feed_offsets().await?.len())
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let started = Instant::now();
    let report = Report::new();
    let report = match run(&cli, report).await {
        Ok(report) => report,
        Err(e) => {
            eprintln!("tender-bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = report.table_text();
    println!("\n{text}");
    let output = cli.output.clone().or_else(|| {
        (!cli.quick && cli.only.is_none()).then(|| server::workspace_root().join("BENCHMARKS.md"))
    });
    let failed = report.aborted.is_some();
    if let Some(path) = output {
        if failed {
            eprintln!(
                "tender-bench: not writing {} after an aborted run",
                path.display()
            );
        } else {
            match std::fs::write(&path, report.markdown(started.elapsed())) {
                Ok(()) => println!("wrote {}", path.display()),
                Err(e) => {
                    eprintln!("tender-bench: writing {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    println!("finished in {:.0} s", started.elapsed().as_secs_f64());
    if let Some(e) = &report.aborted {
        eprintln!("tender-bench: the run stopped early: {e}");
        return ExitCode::FAILURE;
    }
    if report.has_errors() {
        eprintln!("tender-bench: some requests failed (see errors above)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
