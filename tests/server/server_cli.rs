//! `tender-registry` as a user starts it: what it says when it will not start, and the warnings
//! it gives before it serves.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SERVER: &str = env!("CARGO_BIN_EXE_tender-registry");

/// Runs the server with `args` until it exits or `limit` passes; returns its exit code (none
/// when it was still serving and was stopped) and everything it printed.
fn run(args: &[&str], limit: Duration) -> (Option<i32>, String) {
    let mut child = Command::new(SERVER)
        .args(args)
        .env_remove("TENDER_BROKERS")
        .env_remove("TENDER_LISTEN")
        .env("TENDER_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let stdout = child.stdout.take().expect("stdout");
    let (serving_tx, serving) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let listening = line.contains("tender-registry listening");
            lines.push(line);
            if listening {
                let _ = serving_tx.send(());
                break;
            }
        }
        lines
    });
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status.code();
        }
        // Only the line saying it listens tells that it serves: its stdout also ends when it
        // exits, which `try_wait` may see a moment later.
        if started.elapsed() > limit || serving.try_recv().is_ok() {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut printed = reader.join().unwrap_or_default().join("\n");
    if let Some(mut stderr) = child.stderr.take() {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut rest);
        printed.push('\n');
        printed.push_str(&rest);
    }
    (code, printed)
}

/// Runs the server with `args`, which must start it serving: everything it printed.
fn serves(args: &[&str]) -> String {
    let (code, printed) = run(args, Duration::from_secs(10));
    assert_eq!(code, None, "it serves: {printed}");
    printed
}

fn refused(args: &[&str]) -> String {
    let (code, printed) = run(args, Duration::from_secs(10));
    assert_eq!(code, Some(1), "{args:?} must not start: {printed}");
    printed
}

#[test]
fn a_public_sandbox_on_the_built_in_brokers_does_not_start() {
    let printed = refused(&["--sandbox", "--listen", "0.0.0.0:0"]);
    assert!(
        printed.contains("needs --brokers FILE") && printed.contains("keys are their names"),
        "{printed}"
    );
}

#[test]
fn a_sandbox_on_loopback_and_a_public_testing_server_start_with_a_warning() {
    for (args, warning) in [
        (
            ["--sandbox", "--listen", "127.0.0.1:0"],
            "give --brokers FILE before opening it",
        ),
        (
            ["--testing", "--listen", "0.0.0.0:0"],
            "clock and faults on demand are everyone's",
        ),
    ] {
        let printed = serves(&args);
        assert!(
            printed.contains("WARN") && printed.contains(warning),
            "{printed}"
        );
    }
    let printed = serves(&["--testing", "--listen", "127.0.0.1:0"]);
    assert!(!printed.contains("WARN"), "nothing to warn of: {printed}");
}

#[test]
fn a_listen_address_that_is_none_is_named_with_the_form_expected() {
    let printed = refused(&["--listen", "nonsense"]);
    assert!(
        printed.contains("--listen \"nonsense\" is not an address to listen on")
            && printed.contains("HOST:PORT"),
        "{printed}"
    );
}

#[test]
fn a_busy_port_is_named() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = busy.local_addr().expect("bound").to_string();
    let printed = refused(&["--listen", &address]);
    assert!(
        printed.contains(&format!("cannot listen on {address}")),
        "{printed}"
    );
}

#[test]
fn testing_and_sandbox_together_are_refused() {
    let printed = refused(&["--testing", "--sandbox", "--listen", "127.0.0.1:0"]);
    assert!(
        printed.contains("--testing and --sandbox exclude each other"),
        "{printed}"
    );
}

/// What people set in environments for a switch: 1/0, yes/no, on/off, true/false; anything
/// else is refused, naming the option.
#[test]
fn switches_set_in_the_environment_take_what_people_write() {
    let with_env = |vars: &[(&str, &str)], args: &[&str]| {
        let mut command = Command::new(SERVER);
        command
            .args(args)
            .env_remove("TENDER_BROKERS")
            .env_remove("TENDER_LISTEN")
            .env_remove("TENDER_TESTING")
            .env_remove("TENDER_SANDBOX");
        for (name, value) in vars {
            command.env(name, value);
        }
        let output = command.output().expect("the server runs");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.code(), printed)
    };
    let listen = ["--listen", "127.0.0.1:0"];
    for (testing, sandbox) in [("1", "yes"), ("on", "true"), ("Y", "1")] {
        let (code, printed) = with_env(
            &[("TENDER_TESTING", testing), ("TENDER_SANDBOX", sandbox)],
            &listen,
        );
        assert_eq!(code, Some(1), "{printed}");
        assert!(
            printed.contains("--testing and --sandbox exclude each other"),
            "{testing}, {sandbox}: both taken as set: {printed}"
        );
    }
    for off in ["0", "no", "off", "false"] {
        let (code, printed) = with_env(
            &[("TENDER_TESTING", off)],
            &[
                "--clock-start",
                "2026-11-27T16:30",
                "--listen",
                "127.0.0.1:0",
            ],
        );
        assert_eq!(code, Some(1), "{printed}");
        assert!(
            printed.contains("a clock start needs --testing"),
            "{off}: taken as unset: {printed}"
        );
    }
    let (code, printed) = with_env(&[("TENDER_SANDBOX", "maybe")], &listen);
    assert_eq!(code, Some(2), "{printed}");
    assert!(
        printed.contains("invalid value 'maybe' for '--sandbox': value was not a boolean"),
        "{printed}"
    );
}

#[test]
fn a_public_sandbox_without_tls_warns_that_credentials_cross_in_the_clear() {
    let dir = tempfile::tempdir().expect("a directory");
    let brokers = dir.path().join("brokers.ini");
    std::fs::write(&brokers, "[brokers]\nacme = acme-key\n").expect("written");
    let key = rcgen::KeyPair::generate().expect("a key");
    let cert = rcgen::CertificateParams::new(vec!["sandbox.example.test".to_owned()])
        .and_then(|params| params.self_signed(&key))
        .expect("a certificate");
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert.pem()).expect("written");
    std::fs::write(&key_path, key.serialize_pem()).expect("written");
    let brokers = brokers.to_str().expect("a path");
    let public = ["--sandbox", "--listen", "0.0.0.0:0", "--brokers", brokers];
    let in_the_clear =
        "credentials and participation addresses would cross the network in the clear";

    let printed = serves(&public);
    assert!(
        printed.contains("WARN") && printed.contains(in_the_clear),
        "{printed}"
    );
    let tls = [
        "--tls-cert",
        cert_path.to_str().expect("a path"),
        "--tls-key",
        key_path.to_str().expect("a path"),
    ];
    let behind_tls = ["--public-url", "https://sandbox.example.test"];
    for more in [&tls[..], &behind_tls[..]] {
        let args: Vec<&str> = public.iter().chain(more).copied().collect();
        let printed = serves(&args);
        assert!(!printed.contains(in_the_clear), "{more:?}: {printed}");
    }
    let (code, printed) = run(&["--tls-cert", tls[1]], Duration::from_secs(10));
    assert_eq!(code, Some(2), "a certificate without its key: {printed}");
    assert!(printed.contains("--tls-key"), "{printed}");
}

#[test]
fn the_limits_are_taken_as_people_write_them_and_said_as_the_server_starts() {
    let printed = serves(&[
        "--sandbox",
        "--rate",
        "50/min",
        "--upload-bytes",
        "1GiB",
        "--test-clocks",
        "off",
        "--listen",
        "127.0.0.1:0",
    ]);
    assert!(
        printed.contains(
            "rate 50 requests a minute (burst 50), live tenders 5,000, test clocks off, \
             uploads 100,000, upload bytes 1 GiB"
        ),
        "{printed}"
    );
    let printed = serves(&["--testing", "--listen", "127.0.0.1:0"]);
    assert!(
        printed
            .contains("rate off, live tenders off, test clocks 100, uploads off, upload bytes off"),
        "--testing keeps its freedom: {printed}"
    );
    for (args, says) in [
        (["--rate", "0"], "a rate of 0 would refuse every request"),
        (["--rate", "10/day"], "is no period"),
        (["--burst", "0"], "a burst of 0 would refuse every request"),
        (["--live-tenders", "many"], "is no number"),
        (["--upload-bytes", "lots"], "is no size"),
    ] {
        let mut all = args.to_vec();
        all.extend(["--listen", "127.0.0.1:0"]);
        let (code, printed) = run(&all, Duration::from_secs(10));
        assert_eq!(code, Some(2), "{args:?}: {printed}");
        assert!(printed.contains(says), "{args:?}: {printed}");
        assert!(printed.contains(args[0]), "names the option: {printed}");
    }
}
