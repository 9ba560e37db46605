//! The servers under test when no `--base-url` is given: the workspace's release build of
//! `tender-registry` (or the binary `--server` names), each started as a child process on a
//! free loopback port (with `--data-dir`, a durable one, restarted to time its start-up, and
//! its twin in memory) and stopped when the benchmark ends, also on error.

use crate::Error;
use crate::client::{Call, Conn, Target};
use hyper::Method;
use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Builds one binary of the workspace in release: no `-p`, so that the workspace's default
/// members are selected, as by `cargo build --release` and `cargo run --release --bin
/// tender-bench`; crate features resolve the same way and nothing already built compiles a
/// second time. A no-op when it is up to date.
pub fn build_release(root: &Path, target_dir: &Path, bin: &str, what: &str) -> Result<(), Error> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    println!(
        "building {what}: cargo build --release --bin {bin} --target-dir {}",
        target_dir.display()
    );
    let status = Command::new(&cargo)
        .args(["build", "--release", "--bin", bin])
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(root)
        .status()
        .map_err(|e| Error::new(format!("running {cargo}: {e}")))?;
    if !status.success() {
        return Err(Error::new(format!(
            "cargo build --release --bin {bin} failed ({status})"
        )));
    }
    Ok(())
}

/// The workspace root (the bench crate lives in `<root>/bench`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// A started server; dropping it kills the process.
pub struct Server {
    child: Child,
    binary: PathBuf,
    args: Vec<String>,
    unset: Vec<String>,
    pub target: Target,
    pub log: PathBuf,
}

impl Server {
    /// Builds the release server (a no-op when it is up to date, unless `build` is off),
    /// or takes `binary` as it is; starts it with `--testing --log warn` (and `--data-dir`
    /// when given) on a free port and waits until it answers.
    pub async fn start(
        build: bool,
        binary: Option<PathBuf>,
        data_dir: Option<&Path>,
    ) -> Result<Server, Error> {
        let mut mode = vec!["--testing".to_string()];
        if let Some(dir) = data_dir {
            mode.extend(["--data-dir".to_string(), dir.display().to_string()]);
        }
        Server::start_as(build, binary, &mode, "tender-bench-server.log", &[]).await
    }

    /// [`Server::start`] with `mode` (the options other than `--log warn --listen ADDR`)
    /// instead of `--testing`, its output in `log_name` under the workspace's target
    /// directory, and without the environment variables `unset` (options of the benchmark's
    /// own environment that `mode` does not take).
    pub async fn start_as(
        build: bool,
        binary: Option<PathBuf>,
        mode: &[String],
        log_name: &str,
        unset: &[&str],
    ) -> Result<Server, Error> {
        let root = workspace_root();
        // Always the workspace's own target directory, whatever CARGO_TARGET_DIR says, so
        // that the benchmark measures the server this workspace builds with `cargo build`.
        let target_dir = root.join("target");
        let given = binary.is_some();
        let binary = binary.unwrap_or_else(|| target_dir.join("release").join("tender-registry"));
        if !given && (build || !binary.exists()) {
            build_release(&root, &target_dir, "tender-registry", "the server")?;
        }
        if !binary.exists() {
            return Err(Error::new(format!(
                "no server binary at {}",
                binary.display()
            )));
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| Error::new(format!("finding a free port: {e}")))?
            .port();
        // With another CARGO_TARGET_DIR the workspace's own may not exist yet.
        std::fs::create_dir_all(&target_dir)?;
        let log = target_dir.join(log_name);
        let listen = format!("127.0.0.1:{port}");
        let mut args: Vec<String> = mode.to_vec();
        args.extend(["--log", "warn", "--listen", &listen].map(String::from));
        println!(
            "starting the server: {} {}",
            binary.display(),
            args.join(" ")
        );
        let unset: Vec<String> = unset.iter().map(|v| v.to_string()).collect();
        let child = spawn(&binary, &args, &log, &unset)?;
        let mut server = Server {
            child,
            binary,
            args,
            unset,
            target: Target::parse(&format!("http://{listen}"))?,
            log,
        };
        server.wait_until_ready().await?;
        Ok(server)
    }

    /// Kills the server and starts it again with the same options; returns how long the new
    /// process took from its start until it answered.
    pub async fn restart(&mut self) -> Result<Duration, Error> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let started = Instant::now();
        self.child = spawn(&self.binary, &self.args, &self.log, &self.unset)?;
        self.wait_until_ready().await?;
        Ok(started.elapsed())
    }

    async fn wait_until_ready(&mut self) -> Result<(), Error> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(Error::new(format!(
                    "the server exited at start ({status}); its log: {}",
                    self.log_tail()
                )));
            }
            if let Ok(mut conn) = Conn::open(&self.target).await
                && let Ok(reply) = conn.send(&Call::new(Method::HEAD, "/api/2.3/spore")).await
                && reply.ok()
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Error::new(format!(
                    "the server did not answer HEAD /api/2.3/spore within 60 s; its log: {}",
                    self.log_tail()
                )));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

fn spawn(binary: &Path, args: &[String], log: &Path, unset: &[String]) -> Result<Child, Error> {
    let out =
        File::create(log).map_err(|e| Error::new(format!("creating {}: {e}", log.display())))?;
    let err = out.try_clone()?;
    let mut command = Command::new(binary);
    for var in unset {
        command.env_remove(var);
    }
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .map_err(|e| Error::new(format!("starting {}: {e}", binary.display())))
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Resident memory of a process in bytes (`VmRSS` of `/proc/<pid>/status`).
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// CPU time a process has used so far (user + system), from `/proc/<pid>/stat`.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces: the
    // state is field 3 of the line, utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on Linux.
    Some(Duration::from_millis(ticks * 10))
}
