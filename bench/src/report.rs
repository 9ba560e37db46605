//! The results: a table on the terminal, the targets held or missed, and `BENCHMARKS.md`
//! with the machine, the date and the exact command.

use crate::certification::{self, Certification};
use crate::flood::{self, Flood};
use crate::flows::FlowStats;
use crate::load::{Stats, quantile_ms};
use crate::{CONTRACT_GET, CONTRACT_PATCH, Plan};
use std::fmt::Write as _;
use std::time::Duration;

/// One line of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub case: String,
    /// Tenders held by the server when the case ran.
    pub held: usize,
    pub per_second: f64,
    pub p50: f64,
    pub p99: f64,
    /// Requests (flows, on the flows line) measured, for the errors column.
    pub requests: u64,
    pub failed: u64,
    pub failures: String,
    pub skipped: bool,
    /// Server CPU time per request (warm-up included), microseconds.
    pub server_cpu: Option<f64>,
}

impl Row {
    pub fn from_stats(case: &str, held: usize, stats: &Stats) -> Row {
        Row {
            case: case.to_string(),
            held,
            per_second: stats.per_second(),
            p50: stats.quantile_ms(0.5),
            p99: stats.quantile_ms(0.99),
            requests: stats.requests,
            failed: stats.failures.count(),
            failures: stats.failures.summary(),
            skipped: false,
            server_cpu: None,
        }
    }

    /// A line of flows (`name`, each one `a` flow): HTTP requests per second of the flows, and
    /// the latency of a whole flow.
    pub fn from_flows(name: &str, a: &str, held: usize, per_wave: usize, stats: &FlowStats) -> Row {
        Row {
            case: format!(
                "{name}, {per_wave} at a time: {:.1} flows/s (req/s: all their requests; p50/p99: {a})",
                stats.per_second()
            ),
            held,
            per_second: stats.requests_per_second(),
            p50: quantile_ms(&stats.wave_latencies, 0.5),
            p99: quantile_ms(&stats.wave_latencies, 0.99),
            // The errors column counts flows.
            requests: stats.started,
            failed: stats.failures.count(),
            failures: stats.failures.summary(),
            skipped: false,
            server_cpu: None,
        }
    }

    pub fn skipped(case: &str) -> Row {
        Row {
            case: case.to_string(),
            held: 0,
            per_second: f64::NAN,
            p50: f64::NAN,
            p99: f64::NAN,
            requests: 0,
            failed: 0,
            failures: String::new(),
            skipped: true,
            server_cpu: None,
        }
    }
}

/// `12,345` for 12345.4.
pub fn thousands(n: f64) -> String {
    if !n.is_finite() {
        return "n/a".into();
    }
    let digits = format!("{:.0}", n.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < -0.5 {
        out.insert(0, '-');
    }
    out
}

fn ms(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}")
    } else {
        "n/a".into()
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// A goal and whether this run met it (`None`: could not be measured).
#[derive(Debug)]
pub struct Goal {
    pub goal: String,
    pub measured: String,
    pub held: Option<bool>,
}

impl Goal {
    fn verdict(&self) -> &'static str {
        match self.held {
            Some(true) => "held",
            Some(false) => "MISSED",
            None => "n/a",
        }
    }
}

/// Memory reading: (tenders held, RSS then, RSS of the empty server).
pub type Memory = Option<(usize, u64, u64)>;

#[derive(Debug)]
pub struct Report {
    pub command: String,
    pub date: String,
    pub machine: String,
    pub target: String,
    pub plan: Option<Plan>,
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
    pub baseline: f64,
    pub baseline_again: f64,
    pub rss_empty: Option<u64>,
    pub rss_held: Memory,
    pub rss_large: Memory,
    /// (tenders held, p50 of the plain listing, p50 of the listing with opt_fields)
    pub listing_small: Option<(usize, f64, f64)>,
    pub listing_large: Option<(usize, f64, f64)>,
    /// (flows per second, completed, started)
    pub flows: Option<(f64, u64, u64)>,
    /// With `--data-dir`: (tenders held, seconds from the durable server's start to its answer)
    pub durable_startup: Option<(usize, f64)>,
    /// The full certification near and far, in a table of its own (not a req/s figure).
    pub certification: Option<Certification>,
    /// A broker flooding a sandbox, in a section of its own.
    pub flood: Option<Flood>,
    pub aborted: Option<String>,
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quoted: Vec<String> = args
        .iter()
        .map(|a| {
            if a.is_empty() || a.contains([' ', '\'', '"', '$', '&', ';']) {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a.clone()
            }
        })
        .collect();
    // Run by `cargo run`: the binary sits in target/release (or target/debug).
    let profile = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.file_name()?.to_string_lossy().into_owned()));
    let cargo_run = match profile.as_deref() {
        Some("release") => Some("cargo run --release --bin tender-bench"),
        Some("debug") => Some("cargo run --bin tender-bench"),
        _ => None,
    };
    if let Some(cargo_run) = cargo_run.filter(|_| std::env::var_os("CARGO").is_some()) {
        let mut c = cargo_run.to_string();
        if !quoted.is_empty() {
            c.push_str(" -- ");
            c.push_str(&quoted.join(" "));
        }
        c
    } else {
        let program = std::env::args()
            .next()
            .unwrap_or_else(|| "tender-bench".into());
        std::iter::once(program)
            .chain(quoted)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or_else(|| "unknown CPU".to_string(), |m| m.trim().to_string());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<f64>().ok())
        .map_or_else(
            || "unknown memory".to_string(),
            |kib| format!("{:.1} GiB memory", kib / (1024.0 * 1024.0)),
        );
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|k| format!(", Linux {}", k.trim()))
        .unwrap_or_default();
    format!("{cores} cores ({model}), {memory}{kernel}")
}

impl Report {
    pub fn new() -> Report {
        let date = time::OffsetDateTime::now_utc()
            .format(&time::macros::format_description!(
                "[year]-[month]-[day] [hour]:[minute] UTC"
            ))
            .unwrap_or_default();
        Report {
            command: command_line(),
            date,
            machine: machine(),
            target: String::new(),
            plan: None,
            rows: Vec::new(),
            notes: Vec::new(),
            baseline: f64::NAN,
            baseline_again: f64::NAN,
            rss_empty: None,
            rss_held: None,
            rss_large: None,
            listing_small: None,
            listing_large: None,
            flows: None,
            durable_startup: None,
            certification: None,
            flood: None,
            aborted: None,
        }
    }

    fn ratio(&self, row: &Row) -> String {
        if row.skipped || !self.baseline.is_finite() || self.baseline <= 0.0 {
            return "n/a".into();
        }
        format!("{:.2}", row.per_second / self.baseline)
    }

    fn cells(&self, row: &Row) -> [String; 8] {
        if row.skipped {
            return [
                row.case.clone(),
                "".into(),
                "".into(),
                "skipped".into(),
                "".into(),
                "".into(),
                "".into(),
                "".into(),
            ];
        }
        [
            row.case.clone(),
            thousands(row.held as f64),
            thousands(row.per_second),
            ms(row.p50),
            ms(row.p99),
            self.ratio(row),
            row.server_cpu.map_or("n/a".into(), |us| format!("{us:.0}")),
            if row.failed == 0 {
                "0".into()
            } else {
                format!(
                    "{} of {}",
                    thousands(row.failed as f64),
                    thousands(row.requests as f64)
                )
            },
        ]
    }

    const HEADERS: [&'static str; 8] = [
        "case",
        "tenders held",
        "req/s",
        "p50 ms",
        "p99 ms",
        "× baseline",
        "server CPU µs/req",
        "errors",
    ];

    /// The line printed as soon as a case is measured.
    pub fn progress_line(&self, row: &Row) -> String {
        let c = self.cells(row);
        let ratio = if self.baseline.is_finite() {
            format!(", {} × baseline", c[5])
        } else {
            String::new()
        };
        let cpu = row
            .server_cpu
            .map_or(String::new(), |us| format!(", server CPU {us:.0} µs/req"));
        let errors = if row.failed > 0 {
            format!(", ERRORS: {}", row.failures)
        } else {
            String::new()
        };
        format!(
            "  {}: {} req/s, p50 {} ms, p99 {} ms{ratio}{cpu}{errors}",
            c[0], c[2], c[3], c[4]
        )
    }

    fn rss_per_tender(memory: Memory) -> Option<(usize, f64, u64)> {
        memory.map(|(held, now, empty)| {
            (
                held,
                now.saturating_sub(empty) as f64 / held.max(1) as f64,
                now,
            )
        })
    }

    fn find(&self, prefix: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| !r.skipped && r.case.starts_with(prefix))
    }

    pub fn goals(&self) -> Vec<Goal> {
        let mut goals = Vec::new();
        let versus = |row: Option<&Row>, goal: &str, at_least: f64| {
            let ratio = row.map(|r| r.per_second / self.baseline);
            Goal {
                goal: goal.to_string(),
                measured: ratio.map_or("n/a".into(), |r| {
                    format!(
                        "{} × baseline ({} of {} req/s)",
                        against(r, at_least),
                        thousands(row.map_or(f64::NAN, |r| r.per_second)),
                        thousands(self.baseline)
                    )
                }),
                held: ratio.filter(|r| r.is_finite()).map(|r| r >= at_least),
            }
        };
        goals.push(versus(
            self.find("GET tender"),
            "GET tender ≥ 0.8 × baseline",
            0.8,
        ));
        goals.push(versus(
            self.find("GET tender with ten documents"),
            "GET tender with ten documents ≥ 0.8 × baseline",
            0.8,
        ));
        goals.push(versus(
            self.find(CONTRACT_GET),
            "GET contract ≥ 0.8 × baseline",
            0.8,
        ));
        for (case, goal, at_least) in [
            ("POST tender", "POST tender ≥ 0.3 × baseline", 0.3),
            ("PATCH tender", "PATCH tender ≥ 0.4 × baseline", 0.4),
            ("POST bid (draft", "POST bid ≥ 0.4 × baseline", 0.4),
            (CONTRACT_PATCH, "PATCH contract ≥ 0.4 × baseline", 0.4),
        ] {
            goals.push(versus(self.find(case), goal, at_least));
        }
        for (i, what) in [(1, "plain"), (2, "with opt_fields")] {
            let pair = self.listing_small.zip(self.listing_large);
            let pick = |l: (usize, f64, f64)| if i == 1 { l.1 } else { l.2 };
            let ratio = pair.map(|(s, l)| pick(l) / pick(s));
            goals.push(Goal {
                goal: format!("listing ({what}) p50 at 100k ≤ 1.2 × p50 at 1k"),
                measured: pair.map_or("n/a".into(), |(s, l)| {
                    format!(
                        "{} × ({} ms with {} held, {} ms with {})",
                        against(pick(l) / pick(s), 1.2),
                        ms(pick(l)),
                        thousands(l.0 as f64),
                        ms(pick(s)),
                        thousands(s.0 as f64)
                    )
                }),
                held: ratio.filter(|r| r.is_finite()).map(|r| r <= 1.2),
            });
        }
        if let (Some(crowded), Some(empty)) = (
            self.find("POST bid, tender holding 200 bids"),
            self.find("POST bid, tender holding no bids"),
        ) {
            let ratio = crowded.per_second / empty.per_second;
            goals.push(Goal {
                goal: "POST bid to a tender holding 200 bids ≥ 0.9 × to one holding none".into(),
                measured: format!(
                    "{} × ({} of {} req/s)",
                    against(ratio, 0.9),
                    thousands(crowded.per_second),
                    thousands(empty.per_second)
                ),
                held: ratio.is_finite().then_some(ratio >= 0.9),
            });
        }
        // PATCH's durable cost is its commit: about 0.45 × its in-memory rate on this machine
        // kind, measured over many runs (see BENCHMARKS.md).
        for (case, at_least) in [
            ("POST tender", 0.5),
            ("PATCH tender", 0.45),
            ("POST bid", 0.5),
        ] {
            let durable = format!("durable: {case}");
            // Against the twin measured beside it; a report without one, against the case.
            let twin = format!("{}{case}", crate::PAIRED);
            let memory = self.find(&twin).or_else(|| self.find(case));
            let (Some(memory), Some(kept)) = (memory, self.find(&durable)) else {
                continue;
            };
            let ratio = kept.per_second / memory.per_second;
            goals.push(Goal {
                goal: format!(
                    "{case} with --data-dir ≥ {at_least} × in memory (measured side by side)"
                ),
                measured: format!(
                    "{} × ({} of {} req/s)",
                    against(ratio, at_least),
                    thousands(kept.per_second),
                    thousands(memory.per_second)
                ),
                held: ratio.is_finite().then_some(ratio >= at_least),
            });
        }
        if let Some((held, secs)) = self.durable_startup {
            goals.push(Goal {
                goal: format!(
                    "start-up with --data-dir and {} tenders ≤ 5 s",
                    thousands(held as f64)
                ),
                measured: format!("{secs:.2} s"),
                held: Some(secs <= 5.0),
            });
        }
        if let Some(f) = self.flood.as_ref().filter(|f| f.error.is_none()) {
            let (p50, p99) = f.ratios();
            for (what, ratio, during, alone, at_most) in [
                ("p50", p50, f.flooded.p50, f.quiet.p50, 1.5),
                ("p99", p99, f.flooded.p99, f.quiet.p99, 3.0),
            ] {
                goals.push(Goal {
                    goal: format!(
                        "another broker's read {what} while one floods a --sandbox ≤ {at_most} × \
                         alone"
                    ),
                    measured: format!(
                        "{} × ({} ms during the flood, {} ms alone)",
                        against(ratio, at_most),
                        ms(during),
                        ms(alone)
                    ),
                    held: ratio.is_finite().then_some(ratio <= at_most),
                });
            }
        }
        let per = Self::rss_per_tender(self.rss_held);
        goals.push(Goal {
            goal: "≤ 8 KiB resident memory per typical tender".into(),
            measured: per.map_or("n/a (no server process to read)".into(), |(held, b, _)| {
                format!(
                    "{:.1} KiB per tender (RSS growth over {} tenders)",
                    b / 1024.0,
                    thousands(held as f64)
                )
            }),
            held: per.map(|(_, b, _)| b <= 8.0 * 1024.0),
        });
        goals
    }

    fn memory_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let Some(empty) = self.rss_empty else {
            lines.push("resident memory: n/a (the server is not a child of the benchmark)".into());
            return lines;
        };
        lines.push(format!(
            "resident memory of the empty server: {}",
            mib(empty)
        ));
        for (label, m) in [
            ("after preloading", self.rss_held),
            ("at the large listing size", self.rss_large),
        ] {
            if let Some((held, per, now)) = Self::rss_per_tender(m) {
                lines.push(format!(
                    "resident memory {label}: {} with {} tenders, {:.1} KiB per tender",
                    mib(now),
                    thousands(held as f64),
                    per / 1024.0
                ));
            }
        }
        lines
    }

    /// A warning when the baseline moved during the run (another load on the machine).
    fn drift_warning(&self) -> Option<String> {
        let drift = self.baseline_again / self.baseline - 1.0;
        (drift.is_finite() && drift.abs() > 0.10).then(|| {
            format!(
                "WARNING: the baseline moved by {:+.0} % during the run: something else used the \
                 CPU, so the ratios are unreliable; rerun on a quiet machine.",
                drift * 100.0
            )
        })
    }

    /// The rows in reading order: the baseline, the cases, the listing at two sizes, the
    /// baseline's drift check (the run measures them in another order).
    fn ordered(&self) -> Vec<&Row> {
        let rank = |r: &Row| {
            if r.case.starts_with("baseline again") {
                3
            } else if r.case.starts_with("baseline") {
                0
            } else if r.case.contains(" @ ") {
                2
            } else {
                1
            }
        };
        let mut rows: Vec<&Row> = self.rows.iter().collect();
        rows.sort_by_key(|r| rank(r));
        rows
    }

    fn widths(&self) -> [usize; 8] {
        let mut w = Self::HEADERS.map(|h| h.chars().count());
        for row in self.ordered() {
            for (i, c) in self.cells(row).iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        w
    }

    const CERTIFICATION_HEADERS: [&'static str; 8] = [
        "added round trip",
        "wall time",
        "scenarios",
        "passed",
        "failed",
        "skipped",
        "connections through the proxy",
        "× direct",
    ];

    /// The full certification's rows: one per distance, the ratio on the farther.
    fn certification_rows(c: &Certification) -> Vec<[String; 8]> {
        let ratio = c.far_over_near();
        c.runs
            .iter()
            .enumerate()
            .map(|(i, run)| {
                let distance = if run.one_way.is_zero() {
                    "0 ms (direct)".to_string()
                } else {
                    format!(
                        "{:.0} ms ({} ms each way)",
                        run.added_round_trip_ms(),
                        run.one_way.as_millis()
                    )
                };
                let count = |pick: fn((u64, u64, u64)) -> u64| {
                    run.counts
                        .map_or("n/a".to_string(), |c| thousands(pick(c) as f64))
                };
                [
                    distance,
                    if run.error.is_some() {
                        "error".into()
                    } else {
                        format!("{:.2} s", run.seconds)
                    },
                    count(|(p, f, s)| p + f + s),
                    count(|(p, _, _)| p),
                    count(|(_, f, _)| f),
                    count(|(_, _, s)| s),
                    run.connections
                        .map_or("—".to_string(), |n| thousands(n as f64)),
                    match (i, ratio) {
                        (0, _) if run.error.is_none() => "1.00".into(),
                        (_, Some(r)) if i + 1 == c.runs.len() => format!("{r:.2}"),
                        _ => "n/a".into(),
                    },
                ]
            })
            .collect()
    }

    /// What the certification table shows, in a sentence.
    fn certification_lead(c: &Certification) -> String {
        let which = c.tags.as_ref().map_or(
            "every scenario, the clock moved through the testing API".to_string(),
            |t| format!("the scenarios of `--tags {t}`"),
        );
        let far = c
            .runs
            .last()
            .filter(|r| !r.one_way.is_zero())
            .map_or(String::new(), |r| {
                format!(
                    ", and once through a proxy the benchmark starts that delays every chunk \
                     {} ms each way",
                    r.one_way.as_millis()
                )
            });
        format!(
            "`{}` certifies a fresh server (started as the benchmark starts its servers) with \
             {which}: once directly on loopback{far}. Wall time from the certifier's start to \
             its exit; the counts from its last line.",
            // The workspace's own build by its path in the workspace, wherever that is.
            c.certifier
                .strip_prefix(crate::server::workspace_root())
                .unwrap_or(&c.certifier)
                .display()
        )
    }

    /// Errors of the run: failed requests of a case, a certification that did not finish
    /// cleanly.
    pub fn has_errors(&self) -> bool {
        self.rows.iter().any(|r| r.failed > 0)
            || self
                .certification
                .as_ref()
                .is_some_and(|c| c.errors().next().is_some())
            || self
                .flood
                .as_ref()
                .is_some_and(|f| flood_error(f).is_some())
    }

    fn error_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.failed > 0)
            .map(|r| format!("{}: {}", r.case, r.failures))
            .collect();
        if let Some(c) = &self.certification {
            lines.extend(c.errors().map(|(run, e)| {
                format!(
                    "{}, {:.0} ms added: {e}",
                    certification::CASE,
                    run.added_round_trip_ms()
                )
            }));
        }
        if let Some(e) = self.flood.as_ref().and_then(flood_error) {
            lines.push(format!("{}: {e}", flood::CASE));
        }
        lines
    }

    /// The flood's section of `BENCHMARKS.md`.
    pub fn flood_markdown(f: &Flood) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "\n## A broker flooding a --sandbox\n");
        if let Some(e) = &f.error {
            let _ = writeln!(md, "The case did not run: {e}");
            return md;
        }
        let _ = writeln!(
            md,
            "A fresh `--sandbox` (started as the benchmark starts its servers, with a brokers \
             file of two brokers and the server's default limits: {}): broker `flooder` \
             creates tenders (`scenarios/tender.json`) over {} connections, closed loop, for \
             {:.1} s; broker `reader` reads its own {} tenders, {} a second over {} \
             connections, alone before and after the flood and during it.\n",
            f.limits,
            flood::FLOOD_CONNECTIONS,
            f.seconds,
            flood::READER_TENDERS,
            flood::READS_A_SECOND,
            flood::READER_CONNECTIONS,
        );
        let _ = writeln!(md, "| the flooder's answers | count |\n|---|---:|");
        for (what, n) in [
            ("201: created", f.answered("201")),
            ("429: past its rate", f.answered("429")),
            ("409: at its bound on live tenders", f.answered("409")),
        ] {
            let _ = writeln!(md, "| {what} | {} |", thousands(n as f64));
        }
        if let Some(others) = flood::others(f) {
            let _ = writeln!(md, "| other | {others} |");
        }
        let (p50, p99) = f.ratios();
        let _ = writeln!(
            md,
            "\n| the reader | reads | p50 ms | p99 ms |\n|---|---:|---:|---:|"
        );
        let _ = writeln!(
            md,
            "| alone (before and after the flood) | {} | {} | {} |",
            thousands(f.quiet.count as f64),
            ms(f.quiet.p50),
            ms(f.quiet.p99)
        );
        let _ = writeln!(
            md,
            "| during the flood | {} | {} | {} |",
            thousands(f.flooded.count as f64),
            ms(f.flooded.p50),
            ms(f.flooded.p99)
        );
        let _ = writeln!(md, "| during ÷ alone | | {p50:.2} | {p99:.2} |");
        let _ = writeln!(
            md,
            "\nResident memory of the server over the flood: {}.",
            flood::memory_text(f)
        );
        md
    }

    /// The certification's section of `BENCHMARKS.md`.
    pub fn certification_markdown(c: &Certification) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "\n## Full certification near and far\n");
        let _ = writeln!(md, "{}\n", Self::certification_lead(c));
        let _ = writeln!(md, "| {} |", Self::CERTIFICATION_HEADERS.join(" | "));
        let _ = writeln!(
            md,
            "|---|{}",
            "---:|".repeat(Self::CERTIFICATION_HEADERS.len() - 1)
        );
        for r in Self::certification_rows(c) {
            let _ = writeln!(md, "| {} |", r.join(" | "));
        }
        md
    }

    pub fn table_text(&self) -> String {
        let w = self.widths();
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            for (i, c) in cells.iter().enumerate() {
                let pad = w[i].saturating_sub(c.chars().count());
                if i == 0 {
                    let _ = write!(out, "{c}{}", " ".repeat(pad));
                } else {
                    let _ = write!(out, "  {}{c}", " ".repeat(pad));
                }
            }
            out.push('\n');
        };
        line(&Self::HEADERS.map(String::from), &mut out);
        for row in self.ordered() {
            line(&self.cells(row), &mut out);
        }
        out.push('\n');
        if let Some(c) = &self.certification {
            let rows = Self::certification_rows(c);
            let mut w = Self::CERTIFICATION_HEADERS.map(|h| h.chars().count());
            for r in &rows {
                for (i, cell) in r.iter().enumerate() {
                    w[i] = w[i].max(cell.chars().count());
                }
            }
            let _ = writeln!(out, "{}:", certification::CASE);
            for r in std::iter::once(Self::CERTIFICATION_HEADERS.map(String::from)).chain(rows) {
                out.push(' ');
                for (i, cell) in r.iter().enumerate() {
                    let pad = " ".repeat(w[i].saturating_sub(cell.chars().count()));
                    if i == 0 {
                        let _ = write!(out, " {cell}{pad}");
                    } else {
                        let _ = write!(out, "  {pad}{cell}");
                    }
                }
                out.push('\n');
            }
            out.push('\n');
        }
        if let Some(f) = &self.flood {
            let _ = writeln!(out, "{}\n", flood::progress_line(f).trim_start());
        }
        for l in self.memory_lines() {
            let _ = writeln!(out, "{l}");
        }
        if self.baseline_again.is_finite() {
            let _ = writeln!(
                out,
                "baseline at the end of the run: {} req/s ({:+.0} % against the first)",
                thousands(self.baseline_again),
                (self.baseline_again / self.baseline - 1.0) * 100.0
            );
        }
        if let Some(w) = self.drift_warning() {
            let _ = writeln!(out, "{w}");
        }
        out.push_str("\ntargets:\n");
        for g in self.goals() {
            let _ = writeln!(out, "  {:<7} {}: {}", g.verdict(), g.goal, g.measured);
        }
        let errors = self.error_lines();
        if !errors.is_empty() {
            out.push_str("\nerrors:\n");
            for e in errors {
                let _ = writeln!(out, "  {e}");
            }
        }
        if let Some(e) = &self.aborted {
            let _ = writeln!(out, "\nTHE RUN STOPPED EARLY: {e}");
        }
        out
    }

    pub fn markdown(&self, took: Duration) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# Benchmarks\n");
        let _ = writeln!(
            md,
            "Generated by `tender-bench` ([`bench/`](bench/)) from one run of the code in this \
             repository; rerun it with the command below to refresh this page. Figures come from \
             this benchmark only, never from timed tests.\n"
        );
        let _ = writeln!(md, "- **Date:** {}", self.date);
        let _ = writeln!(md, "- **Machine:** {}", self.machine);
        let _ = writeln!(
            md,
            "- **Command:** `{}` (the run took {:.0} s)",
            self.command,
            took.as_secs_f64()
        );
        let _ = writeln!(md, "- **Server:** {}", self.target);
        if let Some(p) = &self.plan {
            let _ = writeln!(
                md,
                "- **Load:** {} concurrent HTTP/1.1 keep-alive connections on loopback, closed loop \
                 (each sends its next request when the answer is read); each case {:.1} s measured \
                 after {:.1} s of warm-up; {} tenders preloaded for the main cases; listing \
                 measured with {} and with {} tenders held",
                p.connections,
                p.duration.as_secs_f64(),
                p.warmup.as_secs_f64(),
                thousands(p.tenders as f64),
                thousands(p.small as f64),
                thousands(p.large as f64)
            );
        }
        let _ = writeln!(md, "\n## Results\n");
        let w = Self::HEADERS.len();
        let _ = writeln!(md, "| {} |", Self::HEADERS.join(" | "));
        let _ = writeln!(md, "|---|{}", "---:|".repeat(w - 1));
        for row in self.ordered() {
            let _ = writeln!(md, "| {} |", self.cells(row).join(" | "));
        }
        let _ = write!(
            md,
            "\n× baseline is the case's requests per second divided by those of the baseline \
             (`HEAD /api/2.3/spore`, measured in the same run with {} tenders held).",
            thousands(self.plan.as_ref().map_or(0.0, |p| p.tenders as f64)),
        );
        if self.baseline_again.is_finite() {
            let _ = write!(
                md,
                " At the end of the run the baseline gave {} req/s ({:+.0} %).",
                thousands(self.baseline_again),
                (self.baseline_again / self.baseline - 1.0) * 100.0
            );
        }
        md.push('\n');
        if let Some(w) = self.drift_warning() {
            let _ = writeln!(md, "\n**{w}**");
        }
        if let Some(c) = &self.certification {
            md.push_str(&Self::certification_markdown(c));
        }
        if let Some(f) = &self.flood {
            md.push_str(&Self::flood_markdown(f));
        }
        let _ = writeln!(md, "\n## Memory\n");
        for l in self.memory_lines() {
            let _ = writeln!(md, "- {l}");
        }
        let _ = writeln!(md, "\n## Targets\n");
        let _ = writeln!(md, "Goals for the code, not assertions of any test.\n");
        let _ = writeln!(md, "| target | measured | |\n|---|---|---|");
        for g in self.goals() {
            let _ = writeln!(md, "| {} | {} | **{}** |", g.goal, g.measured, g.verdict());
        }
        let errors = self.error_lines();
        if !errors.is_empty() {
            let _ = writeln!(md, "\n## Errors\n");
            for e in errors {
                let _ = writeln!(md, "- {}", e.replace('|', "\\|"));
            }
        }
        let _ = writeln!(md, "\n## Steps of the run\n");
        for n in &self.notes {
            let _ = writeln!(md, "- {n}");
        }
        let _ = writeln!(md, "\n## Method\n");
        md.push_str(METHOD);
        md
    }
}

const METHOD: &str = "\
- Client and server run on the same machine and share its cores over loopback, so every \
figure includes the load generator's own cost. That is why each case is given as a ratio to \
a trivial endpoint of the same server measured in the same run: the ratio says how much the \
case's own work costs, largely independent of the machine.
- Load is closed-loop: each connection sends its next request as soon as it has read the \
answer, so req/s and latency are two views of the same run; p50 and p99 are over every request \
started in the measured window. *Server CPU µs/req* is the server process's user + system \
CPU time during the case (warm-up included, from `/proc/<pid>/stat`, 10 ms ticks) divided by \
the requests it answered: what a request costs the server, whatever the load generator takes. \
Answers that are not 2xx are counted as errors (shown in the \
table) and never stop the run.
- Request bodies are the templates of `scenarios/` filled with varied Ukrainian names, \
addresses, ДК021 items and amounts; every date is computed from the server's clock \
(`GET /testing/clock`). Preloaded tenders are published in one step, enquiries end a day \
later, tendering ten years later (so the clock moves of the flows case leave them alone).
- Order of the run: preload to the small listing size and measure the listing; preload to \
`--tenders`, read the server's resident memory (`VmRSS`; growth over the empty, warmed-up \
server divided by the tenders held); measure the baseline, `GET` of a random preloaded \
tender, a listing page from a random `offset` (limit 100, with and without `opt_fields`) and a \
`PATCH` of a random tender (with ten documents on 1,000 tenders, `GET` of those); move the \
clock a day (every preloaded tender enters `active.tendering`), then `POST` draft bids to \
random tenders; then bids posted to 256 tenders holding 200 bids each and to 256 holding none, \
half a second at a time in the order crowded, empty, empty, crowded, each pair merged into \
its row; then whole flows, and whole procurements with a live auction; then preload up to \
the large listing size, read the resident \
memory again and measure the listing again; then `POST` tenders and the lot-tender cases \
(after the large listing, so that what they create does not take the count past it).
- With `--data-dir`, after all of that: a durable server (`--data-dir DIR`) and a twin in \
memory start side by side, each preloaded with `--tenders`; `PATCH`, `POST` bid and `POST` \
tender run on both, half a case at a time in the order memory, durable, durable, memory, each \
pair merged into its row, so that the ratio compares the two under the same load on the \
machine. Then the durable server is filled up to the large listing size, killed (SIGKILL) and \
started again: its start-up time runs from the process start until it answers.
- A whole flow: create a draft, publish, a question, its answer, two bids (each posted as a \
draft and activated), the auction, the pending award activated, the contract signed, the \
tender read back as `complete`. The clock is global, so flows run in waves of one flow per \
connection; between steps the benchmark moves the clock once for the wave. Its row gives all \
HTTP requests of the flows per second (clock requests included) and the latency of a whole \
flow (its wave).
- The full certification: after the cases above, `tender-certify` (the workspace's release \
build) runs a whole certification (every scenario, the clock moved through the testing API) \
against a fresh server started as the benchmark starts its servers, once directly and once \
through a delaying proxy the benchmark starts on loopback: every chunk read on either side is \
sent on the other 25 ms after it arrived (50 ms added to each round trip), without holding \
back the chunks behind it. Its table gives each run's wall time, its scenarios and how they \
ended (the certifier's last line), the connections the proxy carried (a certifier that reuses \
its connections opens few) and the far run's wall time over the near one's.
- A broker flooding a `--sandbox`: after the cases above, a fresh public sandbox \
(`--sandbox --brokers FILE`, two brokers, every limit at its default) is started as the \
benchmark starts its servers. Broker `reader` creates 100 tenders, then reads them by id \
with its credentials at a steady pace (each of 4 connections every 40 ms, never catching up \
on a late read; on a thread and a runtime of its own, so that its answers never wait behind \
the flooder's in the benchmark) for one case's time alone, then during the flood, then alone \
again. The \
flood: broker `flooder` creates tenders over 256 keep-alive connections, closed loop, for \
twice a case's time; its answers are counted by status. Resident memory is read just before and \
just after the flood. The reader's p50 and p99 during the flood are given over those of its \
reads alone (before and after together), measured in the same run.
- A whole procurement with a live auction: a whole flow whose bidders take part in the \
auction. Once tendering ends, each bidder reads its bid's `participationUrl` and its view of \
the auction; the benchmark moves the clock into the first bidding turn of the wave's auctions, \
slot by slot (ten auctions share a half-hour slot), and the bidder in its turn posts 5 % below \
the other bid through the auction's JSON interface; the pending award must be that bid at the \
amount posted. Its row reads as the whole flows' row.
";

/// What went wrong in the flood case: it did not run, or the reader met refusals (its reads
/// are within its own rate, so none should be refused).
fn flood_error(f: &Flood) -> Option<String> {
    if let Some(e) = &f.error {
        return Some(e.clone());
    }
    let failed = f.quiet.failed + f.flooded.failed;
    (failed > 0).then(|| format!("{failed} of the reader's reads were not answered 200"))
}

/// A ratio held to `bound`, to two decimals; to three where two would print the bound
/// itself and hide which side of it the ratio fell on (0.496 is missed, 0.504 held).
fn against(ratio: f64, bound: f64) -> String {
    let two = format!("{ratio:.2}");
    if ratio != bound && two == format!("{bound:.2}") {
        format!("{ratio:.3}")
    } else {
        two
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_next_to_its_bound_shows_which_side_it_is_on() {
        assert_eq!(against(0.4957, 0.5), "0.496");
        assert_eq!(against(0.5041, 0.5), "0.504");
        assert_eq!(against(0.5, 0.5), "0.50");
        assert_eq!(against(0.4812, 0.5), "0.48");
        assert_eq!(against(1.1981, 1.2), "1.198");
        assert_eq!(against(0.91, 0.8), "0.91");
    }
}
