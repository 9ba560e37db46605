//! Runs the features against a target and gathers the results: the one entry point shared by
//! the `tender-certify` binary and the in-process acceptance test.
use std::{
    fs::File,
    io::{self, Write},
    path::Path,
    sync::Arc,
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use cucumber::{
    World as _, WriterExt as _, cli, gherkin, parser,
    runner::{self, basic::ScenarioType},
    writer::{self, Coloring},
};
use futures::FutureExt as _;
use time::{OffsetDateTime, format_description::well_known::Rfc3339};

use crate::{
    exchange::settings::{LiveOutput, Settings},
    run::feature_set::{self, FeatureSet},
    run::outcome::{Reclassify, Recorder, Shared, Verdict, verdict_of},
    run::progress::Progress,
    run::report::RunReport,
    target::acceleration::Acceleration,
    target::ledger::ScenarioRef,
    target::made::SettleRecord,
    target::{ClockMode, Target},
    world::TenderWorld,
};

type Out = Box<dyn Write>;

/// The writer stack: live progress, cucumber JSON and the recorder, normalised; budget skips
/// reclassified; undefined steps failed. JUnit is written from the run's report at its end.
pub type CertifyWriter = writer::FailOnSkipped<
    Reclassify<
        writer::Normalize<
            TenderWorld,
            writer::Tee<
                writer::Tee<
                    writer::Summarize<writer::Basic<Out>>,
                    writer::discard::Arbitrary<writer::discard::Stats<writer::Json<Out>>>,
                >,
                Recorder,
            >,
        >,
    >,
>;

/// Cucumber's parser without its `-i/--input` glob. That glob would read files from wherever
/// it points, past the set the run was given (built in, or `--features DIR`), so the
/// certificate's digest would name scenarios that did not run.
#[derive(Clone, Copy, Debug, Default)]
pub struct FeatureFiles;

impl<I: AsRef<Path>> cucumber::Parser<I> for FeatureFiles {
    type Cli = cli::Empty;
    type Output = <parser::Basic as cucumber::Parser<I>>::Output;

    fn parse(self, input: I, _: cli::Empty) -> Self::Output {
        cucumber::Parser::parse(parser::Basic::new(), input, parser::basic::Cli::default())
    }
}

/// Cucumber's own options (`--tags`, `--name`, `--concurrency`, `--color`, …) plus `Custom`.
pub type Opts<Custom> = cli::Opts<
    cli::Empty,
    runner::basic::Cli,
    <CertifyWriter as cucumber::Writer<TenderWorld>>::Cli,
    Custom,
>;

fn output(path: Option<&Path>) -> Result<Out, String> {
    match path {
        Some(p) => File::create(p)
            .map(|f| Box::new(f) as Out)
            .map_err(|e| format!("cannot write {}: {e}", p.display())),
        None => Ok(Box::new(io::sink())),
    }
}

/// A seed for a run that was given none.
fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    (nanos ^ (u64::from(std::process::id()) << 32)) % 1_000_000_000
}

/// A tag expression written back as text, for the report.
fn tag_expression(op: &gherkin::tagexpr::TagOperation) -> String {
    use gherkin::tagexpr::TagOperation::{And, Not, Or, Tag};
    match op {
        And(a, b) => format!("({} and {})", tag_expression(a), tag_expression(b)),
        Or(a, b) => format!("({} or {})", tag_expression(a), tag_expression(b)),
        Not(a) => format!("not {}", tag_expression(a)),
        Tag(t) => format!("@{t}"),
    }
}

/// Runs every selected scenario against `settings.base_url` and returns what happened. The
/// JUnit, JSON, Markdown and HTML reports are written when their paths are set.
pub async fn certify<Custom: clap::Args>(
    settings: &Settings,
    mut opts: Opts<Custom>,
) -> Result<RunReport, String> {
    let seed = settings.seed.unwrap_or_else(fresh_seed);
    println!(
        "tender-certify: seed {seed} (reproduce with --seed {seed} or TENDER_CERTIFY_SEED={seed})"
    );
    let features = FeatureSet::choose(settings.features.as_deref())?;
    let mut target = Target::probe(settings, seed).await?;
    let mode = target.clock;
    println!(
        "tender-certify: connection: {}",
        target.connection.describe().replace(['`', '*'], "")
    );
    println!(
        "tender-certify: target {} ({})",
        target.base_url,
        match (mode, target.clock_api) {
            (ClockMode::ControlApi, _) => "time moved through its clock control API",
            (ClockMode::RealTime, true) =>
                "--keep-clock: its clock is not moved, waiting in real time",
            (ClockMode::RealTime, false) => "no clock control API: waiting in real time",
        }
    );
    if let (ClockMode::ControlApi, Some(start)) = (mode, target.clock_at_start) {
        // A shared target's other tenders jump with the clock: say so before anything moves.
        let whose = match &target.own_clock {
            Some(broker) => format!(
                "broker {broker}'s own clock reads {}{}; scenarios that need dates to pass move it forward, for {broker}'s tenders alone (the target gives each broker a clock of its own)",
                crate::exchange::timestamps::format(start.now),
                if start.frozen { " (frozen)" } else { "" }
            ),
            None => format!(
                "the target's clock reads {}{}; scenarios that need dates to pass move it forward, for every tender on the target (--keep-clock leaves it alone)",
                crate::exchange::timestamps::format(start.now),
                if start.frozen { " (frozen)" } else { "" }
            ),
        };
        println!("tender-certify: {whose}");
    }
    if let Some(pool) = &target.test_clocks {
        println!(
            "tender-certify: test clocks: each scenario that moves time runs on a test clock of its own (named `{} N`), beside the others; the owner's clock is not moved",
            pool.prefix
        );
    }
    if let Some(why) = &target.test_clocks_refused {
        let then = if mode == ClockMode::ControlApi {
            "--move-own-clock: the broker's own clock is moved instead, for every tender of the broker, and scenarios that move time run one at a time"
        } else {
            "the broker's own clock is left alone, and scenarios that move time wait in real time (--move-own-clock moves it instead, for every tender of the broker)"
        };
        println!(
            "tender-certify: WARNING: test clocks are offered but none could be had ({why}): {then}"
        );
    }
    if target.acceleration != Acceleration::Off {
        println!(
            "tender-certify: acceleration: {}",
            target.acceleration.describe().replace('`', "")
        );
    }
    println!(
        "tender-certify: documents: {}",
        target.documents.describe().replace('`', "")
    );
    println!(
        "tender-certify: features: {}",
        features.describe().replace('`', "")
    );
    let features_dir = features.materialise()?;
    let date = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .ok()
        .and_then(|d| d.format(&Rfc3339).ok())
        .unwrap_or_default();
    let started = Instant::now();

    // `--tags` on the command line wins over the settings; both end in one filter.
    let tags = match opts.tags_filter.take() {
        Some(t) => Some(t),
        None => match &settings.tags {
            Some(text) => Some(
                text.parse()
                    .map_err(|e| format!("bad tag expression {text:?}: {e}"))?,
            ),
            None => None,
        },
    };
    let tags_text = tags.as_ref().map(tag_expression);
    // The tags and `--name` both apply, as `--list` shows; cucumber alone drops the tags for a name.
    let name = opts.re_filter.take();

    let progress = Arc::new(if settings.progress == LiveOutput::Bar {
        let total = features.scenarios(tags.as_ref(), name.as_ref())?.len();
        Progress::on_terminal(total)
    } else {
        Progress::hidden()
    });
    target.waits = progress.clone();
    let target = Arc::new(target);

    let shared = Shared::default();
    let steps: Out = if settings.progress == LiveOutput::Steps {
        Box::new(io::stdout())
    } else {
        Box::new(io::sink())
    };
    let writer: CertifyWriter = Reclassify::new(
        writer::Basic::raw(steps, Coloring::Auto, 0)
            .summarized()
            .tee::<TenderWorld, _>(writer::Json::for_tee(output(settings.json.as_deref())?))
            .tee::<TenderWorld, _>(Recorder::new(shared.clone()))
            .normalized(),
        shared.clone(),
    )
    .fail_on_skipped();

    let test_clocks = target.test_clocks.is_some();
    let faults_by_clock = target.faults_by_clock;
    let hook_target = target.clone();
    let shown = progress.clone();
    let cucumber = TenderWorld::cucumber::<std::path::PathBuf>()
        .with_parser(FeatureFiles)
        .before(move |feature, rule, scenario, world| {
            let tags: Vec<String> = feature_set::all_tags(feature, rule, scenario)
                .cloned()
                .collect();
            let place = ScenarioRef {
                file: feature_set::file_name(feature),
                line: scenario.position.line,
                feature: feature.name.clone(),
                name: scenario.name.clone(),
            };
            world.enter(hook_target.clone(), place, &tags);
            async {}.boxed_local()
        })
        .after(move |feature, _, scenario, finished, world| {
            // Steps that passed while their exchanges broke rules of the spec: the scenario
            // fails here, once it has gone to its end, naming every rule broken.
            let mut broken = None;
            if let Some(world) = world {
                world.release_clock();
                if verdict_of(finished) == Verdict::Passed && !world.broken().is_empty() {
                    broken = Some(world.broken().join("; "));
                }
            }
            let verdict = match broken {
                Some(_) => Verdict::Failed,
                None => verdict_of(finished),
            };
            shown.finished(
                verdict,
                &format!(
                    "{}:{} {}",
                    feature_set::file_name(feature),
                    scenario.position.line,
                    scenario.name
                ),
            );
            async move {
                if let Some(broken) = broken {
                    std::panic::panic_any(broken);
                }
            }
            .boxed_local()
        })
        // `@serial` runs alone: moving a shared clock, or changing what the whole target does
        // (faults on every creation). A `@clock` scenario that waits in real time moves
        // nothing, and one on a test clock of its own moves nobody else's tenders, so either
        // may run beside the others; so may a `@faults` one whose rules hit its own clock alone.
        .which_scenario(move |feature, rule, scenario: &gherkin::Scenario| {
            let tagged =
                |tag: &str| feature_set::all_tags(feature, rule, scenario).any(|t| t == tag);
            let shared_clock = mode == ClockMode::ControlApi && !test_clocks;
            let moves_shared_time = tagged("clock") && shared_clock;
            let faults_everywhere = tagged("faults") && !faults_by_clock;
            let alone = moves_shared_time || faults_everywhere;
            if tagged("serial") && (alone || !(tagged("clock") || tagged("faults"))) {
                ScenarioType::Serial
            } else {
                ScenarioType::Concurrent
            }
        })
        .with_writer(writer)
        .with_cli(opts);
    let run = cucumber.filter_run(features_dir.dir.clone(), move |feature, rule, scenario| {
        feature_set::selects(tags.as_ref(), name.as_ref(), feature, rule, scenario)
    });
    // Ctrl-C stops the scenarios where they stand; what they made is settled all the same.
    let interrupted = if settings.stop_on_interrupt {
        tokio::select! {
            _ = run => false,
            _ = tokio::signal::ctrl_c() => true,
        }
    } else {
        run.await;
        false
    };

    progress.clear();
    if interrupted {
        println!(
            "tender-certify: interrupted: settling what the run made and deleting its test clocks (Ctrl-C again stops at once)"
        );
        tokio::spawn(async {
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        });
    }
    let mut settled = if settings.keep_records {
        SettleRecord {
            tenders: target.made.tenders().len(),
            kept: true,
            ..SettleRecord::default()
        }
    } else {
        target.settle().await
    };
    settled.interrupted = interrupted;
    let target_clock = target.clock_record(!settings.keep_records).await;
    let collected = std::mem::take(
        &mut *shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let sign = if target.skew_ahead { "+" } else { "-" };
    let report = RunReport {
        target: target.base_url.clone(),
        connection: target.connection.clone(),
        date,
        suite_version: env!("CARGO_PKG_VERSION"),
        seed,
        clock: mode,
        target_clock,
        skew: format!(
            "{sign}{:.1} s (target {} local)",
            target.skew.as_secs_f64(),
            if target.skew_ahead {
                "ahead of"
            } else {
                "behind"
            }
        ),
        owner: target.owner.shown(),
        other: target.other.shown(),
        tags: tags_text,
        features: features.describe(),
        acceleration: target.acceleration.describe(),
        documents: target.documents.describe(),
        pace: target.pace.record(),
        strict: settings.strict,
        fail_on_skip: settings.fail_on_skip,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        asked_waits: target.asked_waits(),
        scenarios: collected.scenarios,
        violations: target.ledger.tallies(),
        settled,
        parsing_errors: collected.parsing_errors,
    };
    if let Some(path) = &settings.report {
        std::fs::write(path, report.markdown())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &settings.html {
        std::fs::write(path, report.html())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &settings.junit {
        std::fs::write(path, report.junit())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &settings.json {
        feature_set::name_features_by_file(path)?;
    }
    Ok(report)
}

/// Cucumber's options with nothing of our own, as the acceptance test takes them.
pub type CucumberOpts = Opts<cli::Empty>;

/// Cucumber's options from the process arguments (`--tags`, `--name`, `-c`, …). Arguments meant
/// for libtest, which `cargo test` may pass to every test binary, are ignored with a note
/// instead of failing the run.
pub fn cucumber_options_from_args() -> CucumberOpts {
    use clap::Parser as _;
    CucumberOpts::try_parse().unwrap_or_else(|e| {
        let args: Vec<String> = std::env::args().skip(1).collect();
        println!(
            "tender-certify: ignoring arguments it does not know ({}): {}",
            args.join(" "),
            e.kind()
        );
        CucumberOpts::default()
    })
}

/// Step failures reach cucumber as panics, and cucumber reports each one with its step. The
/// default panic hook would print them a second time, with a backtrace when `RUST_BACKTRACE` is
/// set; binaries that run the harness call this first.
pub fn silence_step_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}
