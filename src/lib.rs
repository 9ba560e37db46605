//! Tender registry: a reference implementation of the Tender Procurement Service Interface 2.3.
//!
//! [`Application::build`] assembles the whole server (router, store, clock, scheduler) from
//! [`Settings`]; `main`, the tests and the benchmark all start it through that one constructor.

pub mod settings;

pub use settings::Settings;

use std::net::SocketAddr;

/// A built server, bound to its address but not yet serving.
pub struct Application {
    addr: SocketAddr,
}

/// A server running in the background of the current tokio runtime.
pub struct RunningServer {
    pub addr: SocketAddr,
}

impl Application {
    pub async fn build(_settings: Settings) -> std::io::Result<Application> {
        Err(std::io::Error::other("not built yet"))
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://host:port` of the bound socket.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }
}
