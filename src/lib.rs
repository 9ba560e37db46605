//! Tender registry: a reference implementation of the Tender Procurement Service Interface 2.3.
//!
//! [`Application::build`] assembles the whole server (router, store, clock, scheduler) from
//! [`Settings`]; `main`, the tests and the benchmark all start it through that one constructor.

pub mod api;
pub mod clock;
pub mod domain;
pub mod faults;
pub mod files;
pub mod scheduler;
pub mod settings;
pub mod store;

pub use settings::Settings;

use api::App;
use api::auth::Brokers;
use clock::Clock;
use domain::time::Zone;
use files::Files;
use files::signing::Signer;
use salvo::conn::tcp::TcpAcceptor;
use salvo::prelude::*;
use salvo::server::ServerHandle;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use store::Store;
use tokio::task::JoinHandle;

/// A built server, bound to its address but not yet serving.
pub struct Application {
    addr: SocketAddr,
    acceptor: TcpAcceptor,
    app: Arc<App>,
}

/// A server running in the background of the current tokio runtime.
pub struct RunningServer {
    pub addr: SocketAddr,
    handle: ServerHandle,
    server: JoinHandle<()>,
    scheduler: JoinHandle<()>,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
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
        if let Some(url) = &settings.public_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(invalid(format!(
                "--public-url must start with http:// or https://, not {url:?}"
            )));
        }
        let quick_auction = i64::try_from(settings.quick_auction_seconds)
            .map(time::Duration::seconds)
            .map_err(|_| {
                invalid(format!(
                    "--quick-auction-seconds is too large: {}",
                    settings.quick_auction_seconds
                ))
            })?;
        if settings.clock_start.is_some() && !settings.testing {
            return Err(invalid(
                "a clock start needs --testing: without the clock control API a frozen clock \
                 could never move"
                    .into(),
            ));
        }
        let clock = match settings.clock_start {
            Some(start) => Clock::frozen_at(start),
            None => Clock::new(),
        };
        let acceptor = TcpListener::new(settings.listen.clone())
            .try_bind()
            .await
            .map_err(io::Error::other)?;
        let addr = acceptor.local_addr()?;
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
        let app = App {
            store: Arc::new(Store::new(zone, quick_auction)),
            clock: Arc::new(clock),
            brokers,
            zone,
            testing: settings.testing,
            sandbox: settings.testing || settings.sandbox,
            public_url: settings.public_url.clone(),
            max_body: settings.max_body,
            max_upload: settings.max_upload,
            signer,
            files: Arc::new(files),
            refuse_foreign_documents: settings.refuse_foreign_documents,
            faults: faults::Faults::new(),
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

    /// `http://host:port` of the bound socket.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Starts serving, and the scheduler, in the background.
    pub fn spawn(self) -> RunningServer {
        let app = self.app;
        let scheduler = scheduler::spawn(app.store.clone(), app.clock.clone(), app.zone);
        let server = Server::new(self.acceptor);
        let handle = server.handle();
        let service = api::service(app);
        let server = tokio::spawn(async move { server.serve(service).await });
        RunningServer {
            addr: self.addr,
            handle,
            server,
            scheduler,
        }
    }
}

impl RunningServer {
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Serves until the process is told to stop (Ctrl-C or SIGTERM).
    pub async fn run_until_stopped(self) {
        shutdown_signal().await;
        self.stop().await;
    }

    /// Stops accepting connections, lets open requests finish, and stops the scheduler.
    pub async fn stop(self) {
        self.handle
            .stop_graceful(Some(std::time::Duration::from_secs(5)));
        let _ = self.server.await;
        self.scheduler.abort();
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = terminate => {}
    }
}
