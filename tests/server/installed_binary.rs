//! `tender-certify` as a third party gets it: the built binary copied into a directory outside
//! the source tree and run from there, with the features compiled into it.
//!
//! The binary is the one `cargo test` builds for the workspace's `tender-certify` package, next
//! to this test's own executable.
use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::Mutex,
};

use tender_certify::feature_set::FeatureSet;
use test_support::{ReadJson, assert_stopped_before_running, output_text, serve_testing};

/// Held while a copy is written and while a process is spawned. A child forked by one test
/// keeps, until its exec, every file the process had open, so a copy still being written by
/// another test would be "busy" (ETXTBSY) when that test runs it.
static SPAWNING: Mutex<()> = Mutex::new(());

/// A copy of the binary alone in a fresh temporary directory.
fn installed() -> (tempfile::TempDir, PathBuf) {
    let place = tempfile::tempdir().unwrap();
    let copy = place
        .path()
        .join(format!("tender-certify{}", std::env::consts::EXE_SUFFIX));
    let _alone = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
    std::fs::copy(test_support::certifier_binary(), &copy).unwrap();
    (place, copy)
}

fn run(binary: &Path, dir: &Path, args: &[&str]) -> Output {
    let child = {
        let _alone = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
        Command::new(binary)
            .current_dir(dir)
            .args(args)
            .env_remove("TENDER_CERTIFY_BASE_URL")
            .env_remove("TENDER_CERTIFY_SEED")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    child.wait_with_output().unwrap()
}

/// [`run`], off the threads of the async runtime that serves the target in-process.
async fn run_beside_server(binary: &Path, dir: &Path, args: &[&str]) -> Output {
    let (binary, dir) = (binary.to_owned(), dir.to_owned());
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&binary, &dir, &args)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_copied_binary_certifies_a_server_with_its_built_in_features() {
    let (place, binary) = installed();
    let (server, base_url) = serve_testing(None).await;
    let output = run_beside_server(
        &binary,
        place.path(),
        &[
            "--base-url",
            &base_url,
            "--tags",
            "@conventions and @spec",
            "--report",
            "certificate.md",
        ],
    )
    .await;
    server.stop().await;

    assert_eq!(output.status.code(), Some(0), "{}", output_text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("features: built-in set"), "{stdout}");
    let certificate = std::fs::read_to_string(place.path().join("certificate.md")).unwrap();
    assert!(certificate.contains("**Conforms**"), "{certificate}");
    let features = format!(
        "| Features | built-in set, {} files, SHA-256 `{}` |",
        FeatureSet::built_in().len(),
        FeatureSet::built_in().digest()
    );
    assert!(certificate.contains(&features), "{certificate}");
}

#[test]
fn a_copied_binary_lists_its_scenarios_without_any_target() {
    let (place, binary) = installed();
    let output = run(&binary, place.path(), &["--list", "--tags", "@bids"]);
    assert_eq!(output.status.code(), Some(0), "{}", output_text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() > 3, "{stdout}");
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("bids.feature:") && l.contains("@bids")),
        "{stdout}"
    );
}

#[test]
fn an_external_set_given_with_features_replaces_the_built_in_one() {
    let (place, binary) = installed();
    let features = place.path().join("mine");
    std::fs::create_dir(&features).unwrap();
    std::fs::write(
        features.join("one.feature"),
        "Feature: Mine\n  @only\n  Scenario: Just this\n    Given nothing\n",
    )
    .unwrap();
    let output = run(
        &binary,
        place.path(),
        &["--list", "--features", features.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(0), "{}", output_text(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "one.feature:3\tMine: Just this\t@only"
    );
}

/// `--list` shows what a run would do: as many lines as the run counts scenarios, an outline's
/// examples one by one, and the same `file:line` a failure would name.
#[tokio::test(flavor = "multi_thread")]
async fn the_list_counts_what_a_run_counts() {
    let (place, binary) = installed();
    let (server, base_url) = serve_testing(None).await;
    let tags = "(@cancellations or @refusals) and not @clock";
    let listed = run(&binary, place.path(), &["--list", "--tags", tags]);
    let ran = run_beside_server(
        &binary,
        place.path(),
        &["--base-url", &base_url, "--tags", tags],
    )
    .await;
    server.stop().await;

    assert_eq!(listed.status.code(), Some(0), "{}", output_text(&listed));
    assert_eq!(ran.status.code(), Some(0), "{}", output_text(&ran));
    let lines = String::from_utf8_lossy(&listed.stdout).lines().count();
    assert!(lines > 12, "{}", output_text(&listed));
    let summary = format!("tender-certify: {lines} passed, 0 failed, 0 skipped");
    assert!(
        String::from_utf8_lossy(&ran.stdout).contains(&summary),
        "{summary}\n{}",
        output_text(&ran)
    );
}

/// A broker the target does not know would fail every scenario with 403: the run stops before
/// the first with exit 2 ("could not take place", not "not certified"), whichever of the two
/// brokers it is, and creates nothing and moves no clock on the target.
#[tokio::test(flavor = "multi_thread")]
async fn a_broker_the_target_refuses_stops_the_run_before_any_scenario() {
    let (place, binary) = installed();
    let (server, base_url) =
        serve_testing(Some(time::macros::datetime!(2026-11-27 16:30 +2))).await;
    let client = test_support::client();
    let clock = format!("{base_url}/testing/clock");
    let before = client.get(&clock).read_ok().await;
    for option in ["--broker", "--other-broker"] {
        let output = run_beside_server(
            &binary,
            place.path(),
            &["--base-url", &base_url, option, "nosuch"],
        )
        .await;
        assert_stopped_before_running(
            &output,
            &format!(
                "tender-certify: the target at {base_url} refuses the credentials of {option} nosuch: POST /api/2.3/tenders answered 403; name a broker the target knows"
            ),
        );
    }
    let after = client.get(&clock).read_ok().await;
    assert_eq!(after, before, "the target's clock stood");
    let listing = client
        .get(format!("{base_url}/api/2.3/tenders?mode=_all_"))
        .read_ok()
        .await;
    assert_eq!(
        listing["data"],
        serde_json::json!([]),
        "nothing was created"
    );
    server.stop().await;
}

/// Names a CI keeps a test's history by: each JUnit suite and case, and each cucumber JSON
/// feature by its file and scenario by its name.
fn report_names(dir: &Path) -> (Vec<String>, Vec<String>) {
    let junit = std::fs::read_to_string(dir.join("certify.xml")).unwrap();
    let attribute = |line: &str, name: &str| {
        line.split(&format!(" {name}=\""))
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map(str::to_owned)
    };
    let cases: Vec<String> = junit
        .lines()
        .filter(|l| {
            l.trim_start().starts_with("<testcase ") || l.trim_start().starts_with("<testsuite ")
        })
        .filter_map(|l| {
            attribute(l, "name")
                .map(|n| format!("{} {n}", attribute(l, "classname").unwrap_or_default()))
        })
        .collect();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("certify.json")).unwrap()).unwrap();
    let scenarios: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let uri = f["uri"].as_str().unwrap_or("").to_owned();
            f["elements"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |e| format!("{uri}: {}", e["name"].as_str().unwrap_or("")))
        })
        .collect();
    (cases, scenarios)
}

#[tokio::test(flavor = "multi_thread")]
async fn two_runs_name_their_tests_the_same_way_in_junit_and_json() {
    let (place, binary) = installed();
    let (server, base_url) = serve_testing(None).await;
    let mut names = Vec::new();
    for _ in 0..2 {
        let output = run_beside_server(
            &binary,
            place.path(),
            &[
                "--base-url",
                &base_url,
                "--tags",
                "@questions or @auction",
                "--junit",
                "certify.xml",
                "--json",
                "certify.json",
            ],
        )
        .await;
        assert_eq!(output.status.code(), Some(0), "{}", output_text(&output));
        names.push(report_names(place.path()));
    }
    server.stop().await;
    let (cases, scenarios) = &names[0];
    assert!(
        cases.iter().any(|c| c.starts_with(" questions.feature")),
        "{cases:?}"
    );
    assert!(
        cases
            .iter()
            .any(|c| c == "questions.feature A participant asks a question without a token"),
        "{cases:?}"
    );
    assert!(
        scenarios
            .iter()
            .any(|s| s.starts_with("questions.feature: ")),
        "{scenarios:?}"
    );
    assert!(
        cases.iter().chain(scenarios).all(|n| !n.contains("tmp")),
        "{cases:?} {scenarios:?}"
    );
    assert_eq!(names[0], names[1]);

    // A suite's time is its own span, never more than the run's.
    let junit = std::fs::read_to_string(place.path().join("certify.xml")).unwrap();
    let time_of = |tag: &str| -> f64 {
        junit
            .lines()
            .find(|l| l.trim_start().starts_with(tag))
            .and_then(|l| l.split("time=\"").nth(1))
            .and_then(|t| t.split('"').next())
            .and_then(|t| t.parse().ok())
            .unwrap()
    };
    let run = time_of("<testsuites ");
    let auction = time_of("<testsuite name=\"auction.feature\"");
    assert!(
        auction <= run,
        "the auction suite took {auction} s of a {run} s run"
    );
}
