//! A smoke run of the benchmark (`--quick`) against the workspace's release server: every
//! case runs, the report is written, no request fails. No figure is asserted: figures come
//! from the benchmark, never from tests.

use std::path::Path;
use std::process::Command;

#[test]
fn a_quick_run_measures_every_case_without_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if !root.join("target/release/tender-registry").exists() {
        // Building the release server from inside `cargo test` would add minutes to every
        // test run after a server change; the benchmark itself builds it when run.
        eprintln!(
            "skipped: no target/release/tender-registry (cargo build --release -p tender-registry)"
        );
        return;
    }
    let out = std::env::temp_dir().join(format!("tender-bench-{}.md", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_tender-bench"))
        .args(["--quick", "--no-build", "--connections", "8", "--output"])
        .arg(&out)
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
        "GET listing, limit 100 @ 100",
        "opt_fields",
        "PATCH tender",
        "POST bid",
        "whole flows",
        "POST tender",
    ] {
        assert!(report.contains(case), "{case} is missing from:\n{report}");
    }
    assert_eq!(
        report.matches("| GET listing, limit 100 @ ").count(),
        2,
        "the listing is measured at two sizes:\n{report}"
    );
    assert!(!report.contains("## Errors"), "{report}");
    assert!(!stdout.contains("ERRORS"), "{stdout}");
}
