//! Tender registry: a reference implementation of the Tender Procurement Service Interface 2.3.
//!
//! [`Application::build`] assembles the whole server (router, store, clock, scheduler) from
//! [`Settings`]; `main`, the tests and the benchmark all start it through that one constructor.

pub mod api;
pub mod auction;
pub mod clock;
pub mod contracting;
pub mod domain;
pub mod edr;
pub mod faults;
pub mod files;
pub mod http;
pub mod limits;
pub mod requests;
#[cfg(test)]
mod rooms;
pub mod routes;
pub mod scheduler;
pub mod settings;
pub mod store;
mod stored_clocks;
pub mod tls;

pub use settings::Settings;

use domain::time::Zone;
use files::Files;
use files::signing::Signer;
use http::App;
pub use http::Mode;
use http::auth::Brokers;
use http::users::{Service, Users};
use salvo::conn::rustls::{RustlsAcceptor, RustlsListener};
use salvo::conn::tcp::TcpAcceptor;
use salvo::prelude::*;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use store::Store;
use tls::{TlsFiles, TlsReload};
use tokio::task::JoinHandle;

/// A built server, bound to its address but not yet serving.
pub struct Application {
    addr: SocketAddr,
    acceptor: Listening,
    app: Arc<App>,
}

/// The bound socket: plain HTTP, or TLS over it with a way to reload the certificate.
enum Listening {
    Plain(TcpAcceptor),
    Tls(RustlsAcceptor<TcpAcceptor>, TlsReload),
}

/// A server running in the background of the current tokio runtime.
pub struct RunningServer {
    pub addr: SocketAddr,
    /// Cancelled to stop serving (see [`http::serve::serve`]).
    stop: tokio_util::sync::CancellationToken,
    server: JoinHandle<()>,
    scheduler: JoinHandle<()>,
    tls: Option<TlsReload>,
    requests: Arc<requests::RequestLog>,
}

/// How long a stopping server lets open requests finish.
pub const GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// `http://` or `https://` and the address.
fn base_url_of(addr: SocketAddr, tls: bool) -> String {
    format!("{}://{addr}", if tls { "https" } else { "http" })
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// A public sandbox must not run on the built-in brokers, whose keys are their names: anyone
/// who reaches it could act as any of them. On a loopback address it may, with a warning; so
/// may the clock and faults of `--testing`, which are everyone's, on any address.
fn check_exposure(settings: &Settings, addr: SocketAddr) -> io::Result<()> {
    let public = !addr.ip().is_loopback();
    let builtin_brokers = settings.brokers.is_none();
    if settings.sandbox && builtin_brokers {
        if public {
            return Err(invalid(format!(
                "--sandbox on {addr}, an address others reach, needs --brokers FILE: the built-in \
                 brokers' keys are their names, so anyone could act as any of them"
            )));
        }
        tracing::warn!(
            address = %addr,
            "--sandbox with the built-in brokers (broker, broker1, broker2, whose keys are their \
             names): fine on loopback; give --brokers FILE before opening it to others"
        );
    }
    if settings.testing && public {
        tracing::warn!(
            address = %addr,
            "--testing on an address others reach: its clock and faults on demand are everyone's"
        );
    }
    let https_public = settings
        .public_url
        .as_deref()
        .is_some_and(|url| url.starts_with("https://"));
    if settings.sandbox && public && settings.tls_cert.is_none() && !https_public {
        tracing::warn!(
            address = %addr,
            "--sandbox on an address others reach without TLS: brokers' credentials and \
             participation addresses would cross the network in the clear; give --tls-cert and \
             --tls-key, or a --public-url https://… of the TLS proxy in front"
        );
    }
    Ok(())
}

impl Application {
    /// Checks the settings, binds the listening socket and assembles the server.
    pub async fn build(settings: Settings) -> io::Result<Application> {
        let zone = Zone::named(&settings.timezone)
            .ok_or_else(|| invalid(format!("unknown time zone {:?}", settings.timezone)))?;
        let brokers = match &settings.brokers {
            Some(path) => Brokers::load(path).map_err(invalid)?,
            None => Brokers::builtin(),
        };
        // A service's users: the brokers file's sections of its groups, then the users file's.
        let users_of = |service| -> io::Result<Users> {
            let mut users = match &settings.brokers {
                Some(path) => Users::in_brokers_file(path, service).map_err(invalid)?,
                None => Users::default(),
            };
            if let Some(path) = &settings.ds_users {
                users.join(Users::load(path, service).map_err(invalid)?);
            }
            Ok(users)
        };
        let ds_users = users_of(Service::Documents)?;
        let edr_users = users_of(Service::Edr)?;
        if let Some(url) = &settings.public_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(invalid(format!(
                "--public-url must start with http:// or https://, not {url:?}"
            )));
        }
        if settings.clock_start.is_some() && !settings.testing {
            return Err(invalid(
                "a clock start needs --testing: without the clock control API a frozen clock \
                 could never move"
                    .into(),
            ));
        }
        if settings.testing && settings.sandbox {
            return Err(invalid(
                "--testing and --sandbox exclude each other: --testing is a private sandbox \
                 (the sandbox fields, faults on demand for anyone and the clock control API), \
                 --sandbox a public one (no server clock to move); give one of them"
                    .into(),
            ));
        }
        let listen = settings.listen.as_str();
        if std::net::ToSocketAddrs::to_socket_addrs(listen).is_err() {
            return Err(invalid(format!(
                "--listen {listen:?} is not an address to listen on: give HOST:PORT, such as \
                 127.0.0.1:6543 (this machine only) or 0.0.0.0:6543 (every interface)"
            )));
        }
        let tls = match (&settings.tls_cert, &settings.tls_key) {
            (None, None) => None,
            (Some(cert), Some(key)) => Some(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
            }),
            _ => {
                return Err(invalid(
                    "--tls-cert and --tls-key go together: the certificate chain and its key"
                        .into(),
                ));
            }
        };
        let cannot_listen =
            |e: salvo::Error| io::Error::other(format!("cannot listen on {listen}: {e}"));
        let (acceptor, addr) = match tls {
            None => {
                let acceptor = TcpListener::new(listen.to_string())
                    .try_bind()
                    .await
                    .map_err(cannot_listen)?;
                let addr = acceptor.local_addr()?;
                (Listening::Plain(acceptor), addr)
            }
            Some(files) => {
                let initial = files.load().map_err(invalid)?;
                let (configs, reload) = tls::configs(files, initial);
                let acceptor = RustlsListener::new(configs, TcpListener::new(listen.to_string()))
                    .try_bind()
                    .await
                    .map_err(cannot_listen)?;
                let addr = acceptor.inner().local_addr()?;
                (Listening::Tls(acceptor, reload), addr)
            }
        };
        check_exposure(&settings, addr)?;
        let store = match &settings.data_dir {
            Some(dir) => Store::open(zone, dir).map_err(|e| {
                io::Error::other(format!(
                    "cannot use the data directory {}: {e}",
                    dir.display()
                ))
            })?,
            None => Store::new(zone),
        };
        let store = Arc::new(store);
        let mode = Mode::of(settings.testing, settings.sandbox);
        let clocks =
            stored_clocks::clocks(&store, settings.clock_start, zone, mode.offers_sandbox())
                .map_err(io::Error::other)?;
        let clocks = Arc::new(clocks);
        store.keep_time(clocks.clone());
        let (signer, files) = match &settings.data_dir {
            None => (Signer::generate()?, Files::in_memory()),
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                (
                    Signer::load_or_create(&dir.join("signing.key"))?,
                    Files::in_dir(&dir.join("documents"))?,
                )
            }
        };
        // The log serves the /testing API alone, so a server without it keeps nothing.
        let bound = match mode.offers_sandbox() {
            true => settings.request_log,
            false => 0,
        };
        let requests = Arc::new(
            requests::RequestLog::new(bound, &store)
                .map_err(|e| io::Error::other(format!("the request log: {e}")))?,
        );
        let limits = settings.limits.resolve(mode.is_public());
        let throttle = limits
            .rate
            .map(|rate| limits::rate::Limiter::new(rate, brokers.names()));
        let app = App {
            store,
            clocks,
            brokers,
            ds_users,
            edr_users,
            zone,
            mode,
            public_url: settings.public_url.clone(),
            max_body: settings.max_body,
            max_upload: settings.max_upload,
            signer,
            files: Arc::new(files),
            refuse_foreign_documents: settings.refuse_foreign_documents,
            faults: faults::Faults::new(),
            limits,
            throttle,
            edr_answers: edr::Answers::default(),
            requests,
        };
        Ok(Application {
            addr,
            acceptor,
            app: Arc::new(app),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// What each broker may take of the server, as its settings and mode decided.
    pub fn limits(&self) -> limits::Limits {
        self.app.limits
    }

    /// `http://host:port` (`https://` when serving TLS) of the bound socket.
    pub fn base_url(&self) -> String {
        base_url_of(self.addr, matches!(self.acceptor, Listening::Tls(..)))
    }

    /// Starts serving, and the scheduler, in the background.
    pub fn spawn(self) -> RunningServer {
        let app = self.app;
        let requests = app.requests.clone();
        let scheduler = scheduler::spawn(app.store.clone());
        let service = routes::service(app);
        let stop = tokio_util::sync::CancellationToken::new();
        let stopping = stop.clone();
        let (server, tls) = match self.acceptor {
            Listening::Plain(acceptor) => (
                tokio::spawn(http::serve::serve(acceptor, service, stopping, GRACE)),
                None,
            ),
            Listening::Tls(acceptor, reload) => (
                tokio::spawn(http::serve::serve(acceptor, service, stopping, GRACE)),
                Some(reload),
            ),
        };
        RunningServer {
            addr: self.addr,
            stop,
            server,
            scheduler,
            tls,
            requests,
        }
    }
}

impl RunningServer {
    pub fn base_url(&self) -> String {
        base_url_of(self.addr, self.tls.is_some())
    }

    /// A handle that makes a TLS server read its certificate and key again (see
    /// [`tls::reload_on_hangup`]); none for plain HTTP.
    pub fn tls_reload(&self) -> Option<TlsReload> {
        self.tls.clone()
    }

    /// Serves until `stop_signal` resolves (see `shutdown_signal`).
    pub async fn run_until_stopped(self, stop_signal: impl Future<Output = ()>) {
        stop_signal.await;
        self.stop().await;
    }

    /// Stops accepting connections, lets open requests finish (for [`GRACE`] at most), and
    /// stops the scheduler.
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.server.await;
        self.scheduler.abort();
        // A scheduler inside a commit stops at its next await: wait for it while the
        // runtime still runs, so that no timer of it is polled during the shutdown.
        let _ = self.scheduler.await;
        // What the request log took last is committed before the process ends.
        let requests = self.requests;
        let _ = tokio::task::spawn_blocking(move || requests.flush()).await;
    }
}

/// Listens for Ctrl-C and SIGTERM from the moment it is called, so that a signal sent as soon as
/// the server announces its address already stops it gracefully.
pub fn shutdown_signal() -> impl Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut interrupt), Ok(mut terminate)) => {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                }
                _ => std::future::pending::<()>().await,
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
