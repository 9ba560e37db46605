//! The server as a process and as a target: its command line and warnings, `--data-dir` across
//! restarts, TLS, and certification runs against it as a third party's service is certified
//! (the installed binary, a shared sandbox, a frozen clock, a polite pace, the real-time path).

mod durable;
mod installed_binary;
mod politeness;
mod sandbox_certification;
mod server_cli;
mod shared_sandbox;
mod target_clock;
mod tls;
