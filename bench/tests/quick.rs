//! A smoke run of the benchmark (`--quick`) against the workspace's server: every case runs
//! (the certification on a subset of its scenarios), the report is written, no request
//! fails. No figure is asserted: figures come from the benchmark, never from tests.

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn a_quick_run_measures_every_case_without_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    // The release server when one is built; otherwise the debug one that `cargo test` builds
    // with the server's own tests (building a release server here would add minutes).
    let server = ["release", "debug"]
        .iter()
        .map(|profile| target.join(profile).join("tender-registry"))
        .find(|path| path.exists())
        .expect("a built server: `cargo test` at the workspace root builds target/debug/tender-registry");
    // The certifier `cargo test` builds beside the server, else a release one.
    let certifier = ["debug", "release"]
        .iter()
        .map(|profile| target.join(profile).join("tender-certify"))
        .find(|path| path.exists())
        .expect("a built certifier: `cargo test` at the workspace root builds target/debug/tender-certify");
    let out = std::env::temp_dir().join(format!("tender-bench-{}.md", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_tender-bench"))
        .args(["--quick", "--no-build", "--connections", "8", "--server"])
        .arg(&server)
        .arg("--certify")
        .arg(&certifier)
        .arg("--output")
        .arg(&out)
        // The server starts with its clock pinned at a named moment (a Monday morning in
        // Kyiv), so the flows it runs never depend on the day the test runs.
        .env("TENDER_CLOCK_START", "2026-11-23T09:00:00+02:00")
        .output()
        .expect("the benchmark runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    let report = std::fs::read_to_string(&out).expect("the report is written");
    let _ = std::fs::remove_file(&out);
    for case in [
        "baseline: HEAD /api/2.3/spore",
        "GET tender",
        "GET tender with ten documents",
        "GET listing, limit 100 @ 100",
        "opt_fields",
        "PATCH tender",
        "POST bid",
        "whole flows",
        "whole procurements with a live auction",
        "GET contract",
        "PATCH contract",
        "POST tender",
        "lot tender: POST with 3 lots",
        "lot tender: GET with 3 lots",
    ] {
        assert!(report.contains(case), "{case} is missing from:\n{report}");
    }
    // The certification case: a subset of the scenarios, directly and a little away.
    for row in [
        "## Full certification near and far",
        "| 0 ms (direct) |",
        "| 10 ms (5 ms each way) |",
    ] {
        assert!(report.contains(row), "{row} is missing from:\n{report}");
    }
    // The flood of a sandbox: the flooder's answers and the reader's reads, alone and during.
    for row in [
        "## A broker flooding a --sandbox",
        "| 201: created |",
        "| 429: past its rate |",
        "| during the flood |",
    ] {
        assert!(report.contains(row), "{row} is missing from:\n{report}");
    }
    assert_eq!(
        report.matches("| GET listing, limit 100 @ ").count(),
        2,
        "the listing is measured at two sizes:\n{report}"
    );
    assert!(!report.contains("## Errors"), "{report}");
    assert!(!stdout.contains("ERRORS"), "{stdout}");
}
