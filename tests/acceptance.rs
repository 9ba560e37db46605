//! Every feature against the built-in server, started in-process on an ephemeral port with the
//! testing facilities (clock control API) on. The run fails on any failed, skipped or undefined
//! step, `@upstream` scenarios included, and ends with a plain `acceptance: N passed, N failed`
//! line. Cucumber options can follow `--`: `cargo test --test acceptance -- --tags @bids`; the
//! printed seed is reproduced with `TENDER_CERTIFY_SEED=N cargo test --test acceptance`.
use std::{path::PathBuf, process::ExitCode};

use tender_registry::Settings;

#[tokio::main]
async fn main() -> ExitCode {
    let opts = tender_certify::cucumber_options_from_args();
    tender_certify::silence_step_panics();
    let settings = Settings {
        testing: true,
        ..Default::default()
    };
    let app = match test_support::build(settings).await {
        Ok(app) => app,
        Err(e) => {
            println!("acceptance: the built-in server did not start: {e}");
            println!("acceptance: 0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    let mut harness = tender_certify::Settings::new(app.base_url());
    harness.features = Some(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/features"
    )));
    harness.seed = std::env::var("TENDER_CERTIFY_SEED")
        .ok()
        .and_then(|s| s.parse().ok());
    let server = app.spawn();
    let result = tender_certify::certify(&harness, opts).await;
    server.stop().await;

    match result {
        Ok(report) => {
            print!("{}", report.terminal_summary());
            let counts = report.counts();
            let failed = counts.failed + report.parsing_errors.len();
            if counts.skipped > 0 {
                println!(
                    "acceptance: {} passed, {failed} failed, {} skipped",
                    counts.passed, counts.skipped
                );
            } else {
                println!("acceptance: {} passed, {failed} failed", counts.passed);
            }
            if failed == 0 && counts.skipped == 0 && counts.passed > 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            println!("acceptance: the harness could not run: {e}");
            println!("acceptance: 0 passed, 1 failed");
            ExitCode::FAILURE
        }
    }
}
