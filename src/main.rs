//! `tender-registry`: the server.

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Parser};
use mimalloc::MiMalloc;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use tender_registry::domain::time::Zone;
use tender_registry::limits::{self, Limit, Per};
use tender_registry::{Application, Settings};

/// The server allocates many small strings per request; mimalloc serves them faster than the
/// system allocator and keeps the heap's cost flat as the store grows (see BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: MiMalloc = MiMalloc;

/// A reference implementation of the Tender Procurement Service Interface 2.3.
#[derive(Debug, Parser)]
#[command(name = "tender-registry", version, about)]
struct Cli {
    /// Address to listen on.
    #[arg(long, env = "TENDER_LISTEN", default_value = "127.0.0.1:6543")]
    listen: String,
    /// Brokers file in upstream auth.ini form ([brokers] entries `name = key[,levels]`).
    /// Without it the brokers `broker`, `broker1` and `broker2` exist, each with its name
    /// as key and every accreditation level.
    #[arg(long, env = "TENDER_BROKERS")]
    brokers: Option<PathBuf>,
    /// The own users of the document service and the EDR service, in upstream's file:
    /// sections are groups, entries `user = <SHA-512 hex of the password>`; users of
    /// [uploaders] and [api] may upload, users of [platforms] verify codes in EDR (the same
    /// sections in the brokers file count too). Brokers use their key with both.
    #[arg(long, env = "TENDER_DS_USERS", value_name = "FILE")]
    ds_users: Option<PathBuf>,
    /// Sandbox facilities: the clock control API at /testing/clock (the server's clock for
    /// anyone, a broker's own for that broker), faults on demand at /testing/faults, and the
    /// procurementMethodDetails / submissionMethodDetails acceleration fields.
    #[arg(long, env = "TENDER_TESTING", action = ArgAction::SetTrue, value_parser = BoolishValueParser::new())]
    testing: bool,
    /// A public sandbox, shared by brokers: the acceleration fields, faults on demand for each
    /// broker's own requests, and a clock of its own for each broker to move (the server's
    /// runs in real time, moved by nobody).
    #[arg(long, env = "TENDER_SANDBOX", action = ArgAction::SetTrue, value_parser = BoolishValueParser::new())]
    sandbox: bool,
    /// Time zone of the service: input without an offset is read in it, output is shown in it.
    #[arg(long, env = "TENDER_TIMEZONE", default_value = "Europe/Kyiv")]
    timezone: String,
    /// Public base address for Location headers and auction addresses, such as
    /// https://sandbox.example.test behind a TLS proxy (default: each request's scheme and Host).
    #[arg(long, env = "TENDER_PUBLIC_URL")]
    public_url: Option<String>,
    /// Largest accepted request body, in bytes.
    #[arg(long, env = "TENDER_MAX_BODY", default_value_t = 10 * 1024 * 1024)]
    max_body: usize,
    /// With --testing: start the clock frozen at this moment (ISO 8601; without an offset it is
    /// read in --timezone), for demonstrations and tests that must not depend on the day they
    /// run. Move it on with POST /testing/clock.
    #[arg(long, env = "TENDER_CLOCK_START")]
    clock_start: Option<String>,
    /// Directory for data that survives a restart: tenders, the clock and the auction
    /// calendar in DIR/registry.sqlite3 (SQLite, WAL mode; every write is acknowledged once
    /// committed there), uploaded files under DIR/documents/ and the key that signs their
    /// addresses. Without it everything is kept in memory and lost on stop.
    #[arg(long, env = "TENDER_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Largest file a document upload may carry, in bytes.
    #[arg(long, env = "TENDER_MAX_UPLOAD", default_value_t = 50 * 1024 * 1024)]
    max_upload: usize,
    /// Accept document addresses of the embedded document service only (upstream's 403
    /// "Can add document only from document service." for any other address).
    #[arg(long, env = "TENDER_REFUSE_FOREIGN_DOCUMENTS", action = ArgAction::SetTrue, value_parser = BoolishValueParser::new())]
    refuse_foreign_documents: bool,
    /// Serve HTTPS (HTTP/2 and HTTP/1.1) with this certificate chain, PEM, the server's
    /// certificate first (Let's Encrypt's fullchain.pem). Read again on SIGHUP.
    #[arg(
        long,
        env = "TENDER_TLS_CERT",
        value_name = "FILE",
        requires = "tls_key"
    )]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert, PEM (Let's Encrypt's privkey.pem). Read again on SIGHUP.
    #[arg(
        long,
        env = "TENDER_TLS_KEY",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    tls_key: Option<PathBuf>,
    /// Requests each broker may send (and each client address without a broker's
    /// credentials): N a second, or N/s, N/min, N/h; `off` for no rate. A request past it
    /// answers 429 with Retry-After (after a second). Default with --sandbox: 1000 (a
    /// second); else off.
    #[arg(long, env = "TENDER_RATE", value_name = "N[/PERIOD]", value_parser = limits::parse_rate)]
    rate: Option<Limit<(u32, Per)>>,
    /// Requests a broker's full bucket gives at once, above the rate. Default: a period's
    /// worth of the rate (1000 at 1000 a second). Given alone, turns the default rate on.
    #[arg(long, env = "TENDER_BURST", value_name = "N", value_parser = limits::parse_burst)]
    burst: Option<u32>,
    /// Tenders a broker may keep live (not yet complete, cancelled or unsuccessful; drafts
    /// count); a creation past it answers 409. Default with --sandbox: 5000; else off.
    #[arg(long, env = "TENDER_LIVE_TENDERS", value_name = "N", value_parser = limits::parse_count)]
    live_tenders: Option<Limit<u64>>,
    /// Test clocks a broker may keep (not deleted); one more answers 409. Default: 100.
    #[arg(long, env = "TENDER_TEST_CLOCKS", value_name = "N", value_parser = limits::parse_count)]
    test_clocks: Option<Limit<u64>>,
    /// Files a broker (or a document service user) may keep on the document service, which
    /// keeps every file for good; one more answers 409. Default with --sandbox: 100000; else off.
    #[arg(long, env = "TENDER_UPLOADS", value_name = "N", value_parser = limits::parse_count)]
    uploads: Option<Limit<u64>>,
    /// Bytes of those files (a number, or with KiB, MiB, GiB); a file that would pass it
    /// answers 409. Default with --sandbox: 512MiB; else off.
    #[arg(long, env = "TENDER_UPLOAD_BYTES", value_name = "BYTES", value_parser = limits::parse_bytes)]
    upload_bytes: Option<Limit<u64>>,
    /// Exchanges kept per broker in its request log (GET /testing/requests, with --testing
    /// or --sandbox), the oldest dropped first; kept across restarts with --data-dir. 0 keeps
    /// none.
    #[arg(
        long,
        env = "TENDER_REQUEST_LOG",
        value_name = "N",
        default_value_t = 1000
    )]
    request_log: usize,
    /// Log level: error, warn, info (one line per request), debug or trace.
    #[arg(long, env = "TENDER_LOG", default_value = "info")]
    log: tracing::Level,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_max_level(cli.log)
        .with_target(false)
        .with_ansi(std::io::stdout().is_terminal())
        .init();
    let clock_start = match &cli.clock_start {
        None => None,
        Some(text) => {
            let Some(zone) = Zone::named(&cli.timezone) else {
                eprintln!("tender-registry: unknown time zone {:?}", cli.timezone);
                return ExitCode::FAILURE;
            };
            let Some(moment) = zone.parse(text) else {
                eprintln!("tender-registry: --clock-start {text:?} is not an ISO 8601 moment");
                return ExitCode::FAILURE;
            };
            Some(moment.instant())
        }
    };
    let settings = Settings {
        listen: cli.listen,
        brokers: cli.brokers,
        ds_users: cli.ds_users,
        testing: cli.testing,
        sandbox: cli.sandbox,
        timezone: cli.timezone,
        public_url: cli.public_url,
        max_body: cli.max_body,
        clock_start,
        data_dir: cli.data_dir,
        max_upload: cli.max_upload,
        refuse_foreign_documents: cli.refuse_foreign_documents,
        tls_cert: cli.tls_cert,
        tls_key: cli.tls_key,
        limits: limits::Options {
            rate: cli.rate,
            burst: cli.burst,
            live_tenders: cli.live_tenders,
            test_clocks: cli.test_clocks,
            uploads: cli.uploads,
            upload_bytes: cli.upload_bytes,
        },
        request_log: cli.request_log,
    };
    let app = match Application::build(settings.clone()).await {
        Ok(app) => app,
        Err(e) => {
            eprintln!("tender-registry: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stop_signal = tender_registry::shutdown_signal();
    let address = app.base_url();
    let limits = limits::summary(&app.limits());
    let running = app.spawn();
    // SIGHUP is taken before the server says it listens: one sent as soon as it does (a
    // renewal hook, a test) must reload, not end the process as SIGHUP's default would.
    if let Some(reload) = running.tls_reload() {
        tender_registry::tls::reload_on_hangup(reload);
    }
    tracing::info!(%address, testing = settings.testing, sandbox = settings.sandbox, timezone = %settings.timezone, %limits, "tender-registry listening");
    running.run_until_stopped(stop_signal).await;
    ExitCode::SUCCESS
}
