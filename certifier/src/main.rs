//! `tender-certify`: certifies an implementation of the Tender Procurement Service Interface
//! 2.3 at a base URL and writes a report.
//!
//! Exit code 0 when every selected `@spec` scenario passed (with `--strict`, every `@upstream`
//! one too), 1 when not, 2 when the run could not take place (unreachable, a certificate that
//! cannot be verified, a proxy that refuses, …).
use std::{
    io::{IsTerminal as _, Write as _},
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use clap::{CommandFactory as _, FromArgMatches as _};
use cucumber::cli;
use tender_certify::{
    Broker, LiveOutput, Opts, Settings, certify, feature_set::FeatureSet, settings::TlsOptions,
};

#[derive(clap::Args, Debug)]
struct CertifyArgs {
    /// Base URL of the implementation under test, without /api/2.3 (e.g. http://127.0.0.1:6543).
    #[arg(
        long,
        value_name = "URL",
        env = "TENDER_CERTIFY_BASE_URL",
        required_unless_present = "list"
    )]
    base_url: Option<String>,
    /// Print the selected scenarios (file:line, feature: name, tags) and exit, contacting nothing.
    #[arg(long)]
    list: bool,
    /// Broker that creates the tenders: NAME or NAME:PASSWORD (Basic auth).
    #[arg(long, value_name = "NAME[:PASSWORD]", default_value = "broker")]
    broker: Broker,
    /// Broker of the bidding party, which also asks questions and tries the owner's tokens.
    #[arg(long, value_name = "NAME[:PASSWORD]", default_value = "broker1")]
    other_broker: Broker,
    /// Count failures of advisory @upstream scenarios against certification too.
    #[arg(long)]
    strict: bool,
    /// Write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a cucumber JSON report to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the Markdown certificate to FILE.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Write the certificate as one self-contained HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Seed of the generated data; every run prints the one it used.
    #[arg(long, value_name = "N", env = "TENDER_CERTIFY_SEED")]
    seed: Option<u64>,
    /// Directory of .feature files to run instead of the set built into the harness.
    #[arg(long, value_name = "DIR")]
    features: Option<PathBuf>,
    /// Without a clock control API: length in seconds of each period of a tender that must move.
    #[arg(long, value_name = "SECONDS", default_value_t = 4)]
    period: u64,
    /// Without a clock control API: the longest wait for one date, in seconds. A date further
    /// away on the target's clock is not waited for (its scenario is skipped), and the target
    /// gets this long past a date to act.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    wait_budget: u64,
    /// Without a clock control API: send upstream's sandbox fields on every tender
    /// (procurementMethodDetails "quick, accelerator=N", submissionMethodDetails "quick"), so
    /// the durations the target computes pass N times faster (86400: a day a second). A probe
    /// tender checks first that the target takes them.
    #[arg(long, value_name = "N", env = "TENDER_CERTIFY_ACCELERATOR",
          value_parser = clap::value_parser!(u32).range(1..))]
    accelerator: Option<u32>,
    /// Fail the run when any selected scenario is skipped (beyond the time budget, or of an
    /// extension the target does not offer), @upstream ones included.
    #[arg(long)]
    fail_on_skip: bool,
    /// Leave the target's clock alone even when it offers the clock control API: the run
    /// waits in real time, as for a target without one, so other tenders on a shared target
    /// keep their dates. A frozen clock stays frozen, and what must wait for it is skipped.
    #[arg(long)]
    keep_clock: bool,
    /// Trust the certificate authorities in FILE (PEM) too, besides the platform's and
    /// Mozilla's: a private CA, a company proxy's CA.
    #[arg(long, value_name = "FILE", env = "TENDER_CERTIFY_CACERT")]
    cacert: Option<PathBuf>,
    /// Accept any certificate the target presents: its identity is not verified, and the
    /// certificate of the run says so on its first lines.
    #[arg(long)]
    insecure: bool,
    /// Client certificate (PEM) for a target that asks for one; FILE may hold its key too.
    #[arg(long, value_name = "FILE")]
    cert: Option<PathBuf>,
    /// Private key (PEM) of --cert.
    #[arg(long, value_name = "FILE", requires = "cert")]
    key: Option<PathBuf>,
    /// Offer HTTP/2 by ALPN over TLS (HTTP/1.1 otherwise). The scenarios then share one
    /// connection: a target that drops a connection to fail one exchange (faults on demand)
    /// fails every exchange in flight on it.
    #[arg(long)]
    http2: bool,
    /// The longest one exchange may take, in seconds; a request left unanswered that long
    /// fails its scenario, naming the request.
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// On a target that offers test clocks but has none for the run (the broker holds as many
    /// as it may), move the broker's own clock instead, for every tender of the broker; without
    /// it the run says so and waits in real time.
    #[arg(long)]
    move_own_clock: bool,
    /// Leave what the run made as it is at the end, for a look at it: without it the run cancels
    /// the tenders it left live, terminates the contracts under management it left active (with
    /// the tokens it holds, as a broker would) and deletes its test clocks.
    #[arg(long)]
    keep_records: bool,
    /// Upload every document's file to the document service at URL first, by upstream's
    /// protocol (POST URL/upload, multipart; credentials in the URL's user part as curl takes
    /// them, else the owner broker's). Without it: the target's root when it takes an upload
    /// there, else documents carry unsigned addresses.
    #[arg(long, value_name = "URL", env = "TENDER_CERTIFY_DOCUMENT_SERVICE")]
    document_service: Option<String>,
    /// On a target that offers test clocks: the most the run makes, each scenario that moves
    /// time taking one while it runs (clocks whose tenders are still live stay on the target:
    /// a broker holds a bounded number). 0: move the broker's clock, one such scenario at a time.
    #[arg(long, value_name = "N", default_value_t = tender_certify::settings::DEFAULT_TEST_CLOCKS)]
    test_clocks: usize,
}

fn main() -> ExitCode {
    let command = Opts::<CertifyArgs>::command()
        .name("tender-certify")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Certifies an implementation of the Tender Procurement Service Interface 2.3 at a base URL")
        .long_about(None);
    let opts = match Opts::<CertifyArgs>::from_arg_matches(&command.get_matches()) {
        Ok(opts) => opts,
        Err(e) => e.exit(),
    };
    // Cucumber's own options go on to the runner; ours become the settings.
    let cli::Opts {
        re_filter,
        tags_filter,
        parser,
        runner,
        writer,
        custom: args,
    } = opts;
    let opts: Opts<cli::Empty> = cli::Opts {
        re_filter,
        tags_filter,
        parser,
        runner,
        writer,
        custom: cli::Empty,
    };
    if args.list {
        return list(args.features.as_deref(), &opts);
    }
    let mut settings = Settings::new(args.base_url.unwrap_or_default());
    settings.owner = args.broker;
    settings.other = args.other_broker;
    settings.strict = args.strict;
    settings.junit = args.junit;
    settings.json = args.json;
    settings.report = args.report;
    settings.html = args.html;
    settings.seed = args.seed;
    settings.features = args.features;
    settings.period = Duration::from_secs(args.period.max(1));
    settings.wait_budget = Duration::from_secs(args.wait_budget);
    settings.accelerator = args.accelerator;
    settings.fail_on_skip = args.fail_on_skip;
    settings.keep_clock = args.keep_clock;
    settings.http2 = args.http2;
    settings.timeout = Duration::from_secs(args.timeout);
    settings.test_clocks = args.test_clocks;
    settings.document_service = args.document_service;
    settings.keep_records = args.keep_records;
    settings.move_own_clock = args.move_own_clock;
    settings.stop_on_interrupt = true;
    settings.tls = TlsOptions {
        cacert: args.cacert,
        insecure: args.insecure,
        cert: args.cert,
        key: args.key,
    };
    // A status line on a terminal; cucumber's step-by-step output in a log or a file.
    settings.progress = if std::io::stdout().is_terminal() && std::io::stderr().is_terminal() {
        LiveOutput::Bar
    } else {
        LiveOutput::Steps
    };

    tender_certify::silence_step_panics();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("tender-certify: cannot start: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(certify(&settings, opts)) {
        Ok(report) => {
            print!("{}", report.terminal_summary());
            for (what, path) in [
                ("JUnit", &settings.junit),
                ("JSON", &settings.json),
                ("report", &settings.report),
                ("HTML report", &settings.html),
            ] {
                if let Some(path) = path {
                    println!("tender-certify: {what} written to {}", path.display());
                }
            }
            println!("tender-certify: {}", report.summary_line());
            if report.settled.interrupted {
                // As a shell reports a process Ctrl-C stopped.
                ExitCode::from(130)
            } else if report.certified() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("tender-certify: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--list`: the scenarios the same options would run, one a line.
fn list(features: Option<&Path>, opts: &Opts<cli::Empty>) -> ExitCode {
    let listed = FeatureSet::choose(features)
        .and_then(|set| set.scenarios(opts.tags_filter.as_ref(), opts.re_filter.as_ref()));
    match listed {
        Ok(scenarios) => {
            // A reader that stops early (`| head`) closes the pipe: the listing just ends.
            let mut out = std::io::stdout().lock();
            for s in &scenarios {
                if writeln!(out, "{}", s.line()).is_err() {
                    break;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tender-certify: {e}");
            ExitCode::from(2)
        }
    }
}
