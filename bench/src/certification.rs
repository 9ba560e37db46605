//! The full certification near and far: the `tender-certify` binary runs a whole
//! certification (every scenario, the clock moved through the testing API) against a fresh
//! server, once directly and once through the delaying proxy, and its wall time, its counts
//! (from its last line) and the connections the proxy carried are kept for the report.

use crate::Error;
use crate::distance::Proxy;
use crate::server::{Server, build_release, workspace_root};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The name of the case (what `--only` matches).
pub const CASE: &str = "full certification";

/// The longest a certification may take before the benchmark gives up on it.
const LONGEST: Duration = Duration::from_secs(30 * 60);

/// One certification of a fresh server.
#[derive(Clone, Debug)]
pub struct Run {
    /// Delay added to each direction (zero: the certifier reached the server directly).
    pub one_way: Duration,
    pub seconds: f64,
    /// (passed, failed, skipped), from the certifier's last line.
    pub counts: Option<(u64, u64, u64)>,
    /// Connections the proxy carried (none without a proxy).
    pub connections: Option<u64>,
    pub error: Option<String>,
}

impl Run {
    /// The round trip the proxy added, in milliseconds.
    pub fn added_round_trip_ms(&self) -> f64 {
        self.one_way.as_secs_f64() * 2000.0
    }
}

/// The case: which certifier, which scenarios, and its runs, nearest first.
#[derive(Clone, Debug)]
pub struct Certification {
    pub certifier: PathBuf,
    /// The tag expression given to the certifier (none: every scenario).
    pub tags: Option<String>,
    pub runs: Vec<Run>,
}

impl Certification {
    /// Wall time of the farthest run over the nearest, when both finished cleanly.
    pub fn far_over_near(&self) -> Option<f64> {
        let near = self.runs.first().filter(|r| r.error.is_none())?;
        let far = self.runs.last().filter(|r| r.error.is_none())?;
        (self.runs.len() > 1 && near.seconds > 0.0).then(|| far.seconds / near.seconds)
    }

    pub fn errors(&self) -> impl Iterator<Item = (&Run, &str)> {
        self.runs
            .iter()
            .filter_map(|r| r.error.as_deref().map(|e| (r, e)))
    }
}

/// The certifier to run: `given` as it is; otherwise, in a quick run, the debug build when
/// there is one (`cargo test` makes it); otherwise the release build, built first when
/// `build` is on (a no-op when it is up to date).
pub fn certifier(given: Option<&Path>, quick: bool, build: bool) -> Result<PathBuf, Error> {
    if let Some(path) = given {
        return Ok(path.to_path_buf());
    }
    let root = workspace_root();
    let target_dir = root.join("target");
    let debug = target_dir.join("debug").join("tender-certify");
    if quick && debug.exists() {
        return Ok(debug);
    }
    let release = target_dir.join("release").join("tender-certify");
    if build || !release.exists() {
        build_release(&root, &target_dir, "tender-certify", "the certifier")?;
    }
    Ok(release)
}

/// Certifies a fresh server (`server`: the binary to start, the workspace's release build
/// when none) directly, then through a proxy adding `one_way` each way.
pub async fn measure(
    certifier: PathBuf,
    server: Option<PathBuf>,
    tags: Option<String>,
    one_way: Duration,
    seed: u64,
) -> Certification {
    let mut case = Certification {
        certifier,
        tags,
        runs: Vec::new(),
    };
    for delay in [Duration::ZERO, one_way] {
        let run = match once(&case, server.clone(), delay, seed).await {
            Ok(run) => run,
            Err(e) => Run {
                one_way: delay,
                seconds: f64::NAN,
                counts: None,
                connections: None,
                error: Some(e.to_string()),
            },
        };
        println!("{}", progress_line(&run));
        case.runs.push(run);
    }
    case
}

/// The line printed when a run ends.
fn progress_line(run: &Run) -> String {
    let distance = if run.one_way.is_zero() {
        "0 ms added (direct)".to_string()
    } else {
        format!(
            "{:.0} ms added round trip ({} connections through the proxy)",
            run.added_round_trip_ms(),
            run.connections.unwrap_or(0)
        )
    };
    let outcome = match (&run.counts, &run.error) {
        (_, Some(e)) => format!("ERROR: {e}"),
        (Some((passed, failed, skipped)), None) => format!(
            "{:.2} s, {} scenarios: {passed} passed, {failed} failed, {skipped} skipped",
            run.seconds,
            passed + failed + skipped
        ),
        (None, None) => "no result".into(),
    };
    format!("  {CASE}, {distance}: {outcome}")
}

/// One certification of a fresh server, `one_way` away (directly when zero).
async fn once(
    case: &Certification,
    server: Option<PathBuf>,
    one_way: Duration,
    seed: u64,
) -> Result<Run, Error> {
    let server = Server::start(false, server, None).await?;
    let proxy = if one_way.is_zero() {
        None
    } else {
        Some(Proxy::start(&server.target.authority, one_way).await?)
    };
    let base_url = match &proxy {
        Some(p) => format!("http://{}{}", p.authority, server.target.prefix),
        None => server.target.base_url(),
    };
    let log = workspace_root().join("target").join(format!(
        "tender-bench-certify-{}ms.log",
        one_way.as_millis() * 2
    ));
    let out =
        File::create(&log).map_err(|e| Error::new(format!("creating {}: {e}", log.display())))?;
    let err = out.try_clone()?;
    let mut command = Command::new(&case.certifier);
    command
        .arg("--base-url")
        .arg(&base_url)
        .arg("--seed")
        .arg(seed.to_string());
    if let Some(tags) = &case.tags {
        command.arg("--tags").arg(tags);
    }
    // The run reaches the server (or the proxy) on loopback, whatever proxy the environment
    // names, and selects its scenarios by the arguments alone.
    for var in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
        "CUCUMBER_FILTER_TAGS",
        "TENDER_CERTIFY_BASE_URL",
    ] {
        command.env_remove(var);
    }
    println!(
        "certifying {base_url}{}: {} --base-url {base_url} --seed {seed}{} (log: {})",
        if one_way.is_zero() {
            String::new()
        } else {
            format!(" (a proxy {} ms away each way)", one_way.as_millis())
        },
        case.certifier.display(),
        case.tags
            .as_ref()
            .map_or(String::new(), |t| format!(" --tags {t}")),
        log.display()
    );
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .map_err(|e| Error::new(format!("starting {}: {e}", case.certifier.display())))?;
    // Polled, so that the proxy's tasks keep running on this runtime meanwhile.
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > LONGEST {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::new(format!(
                "the certification took longer than {} min (log: {})",
                LONGEST.as_secs() / 60,
                log.display()
            )));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let seconds = started.elapsed().as_secs_f64();
    let connections = proxy.as_ref().map(Proxy::connections);
    drop(proxy);
    drop(server);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let counts = text.lines().rev().find_map(summary);
    let error = match (status.success(), counts) {
        (true, Some(_)) => None,
        (true, None) => Some(format!(
            "the certifier printed no summary line (log: {})",
            log.display()
        )),
        (false, _) => Some(format!(
            "the certifier exited with {status}{} (log: {})",
            counts.map_or(String::new(), |(p, f, s)| format!(
                ": {p} passed, {f} failed, {s} skipped"
            )),
            log.display()
        )),
    };
    Ok(Run {
        one_way,
        seconds,
        counts,
        connections,
        error,
    })
}

/// (passed, failed, skipped) of the certifier's summary line,
/// `tender-certify: N passed, N failed, N skipped`.
fn summary(line: &str) -> Option<(u64, u64, u64)> {
    let rest = line.trim().strip_prefix("tender-certify: ")?;
    let mut parts = rest.split(", ");
    let mut count =
        |word: &str| -> Option<u64> { parts.next()?.strip_suffix(word)?.trim_end().parse().ok() };
    let counts = (count("passed")?, count("failed")?, count("skipped")?);
    parts.next().is_none().then_some(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_gives_the_three_counts_and_nothing_else_does() {
        assert_eq!(
            summary("tender-certify: 280 passed, 0 failed, 3 skipped"),
            Some((280, 0, 3))
        );
        assert_eq!(
            summary("tender-certify: seed 2026 (reproduce with --seed 2026)"),
            None
        );
        assert_eq!(
            summary("  conventions  12 passed, 0 failed, 0 skipped"),
            None
        );
        assert_eq!(summary("tender-certify: 1 passed, 2 failed"), None);
        assert_eq!(
            summary("tender-certify: 1 passed, 2 failed, 3 skipped, 4 more"),
            None
        );
    }
}
