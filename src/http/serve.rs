//! Serving connections: salvo's acceptors and protocol builder, driven by a loop of the
//! server's own so that a response marked [`Lost`] is lost the way its protocol allows: on
//! HTTP/2 its stream alone is reset (`RST_STREAM`, before any header), every other stream on
//! the connection going on; on HTTP/1.1, which has no streams, the connection is closed
//! without a response.
//!
//! Hyper resets one stream (or closes an HTTP/1 connection) when the service answers a
//! request with an error. Salvo's own loop hands hyper a service that never errs, and its one
//! way of losing a response, aborting the connection, ends every stream multiplexed on it;
//! the hook that would let another service in (a `Coupler`) is handed a type salvo does not
//! export. So this loop accepts as salvo's does, with the same default fuse (handshake and
//! header timeouts) and a graceful stop with a deadline, and serves each connection through
//! salvo's handler wrapped in [`Losing`], which turns the mark into that error.

use salvo::Service;
use salvo::conn::{Accepted, Acceptor, HttpBuilder};
use salvo::fuse::{ArcFusePolicy, FuseConfig};
use salvo::hyper;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// The mark a handler leaves in a response's extensions when the client must never receive
/// it (the fault `drop-after-commit`).
#[derive(Debug, Clone, Copy)]
pub struct Lost;

/// The error a lost response is answered with, for hyper alone: it resets the stream with
/// `INTERNAL_ERROR`, as for any service that fails, or closes an HTTP/1 connection.
#[derive(Debug)]
struct LostOnPurpose;

impl fmt::Display for LostOnPurpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the response was lost on purpose")
    }
}

impl StdError for LostOnPurpose {}

type BoxError = Box<dyn StdError + Send + Sync>;

/// A connection's service: salvo's handler, with a response marked [`Lost`] turned into an
/// error.
struct Losing<S>(S);

impl<S, B> hyper::service::Service<hyper::Request<hyper::body::Incoming>> for Losing<S>
where
    S: hyper::service::Service<
            hyper::Request<hyper::body::Incoming>,
            Response = hyper::Response<B>,
        >,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
{
    type Response = hyper::Response<B>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn call(&self, req: hyper::Request<hyper::body::Incoming>) -> Self::Future {
        let answer = self.0.call(req);
        Box::pin(async move {
            let response = answer.await.map_err(Into::into)?;
            if response.extensions().get::<Lost>().is_some() {
                return Err(Box::new(LostOnPurpose) as BoxError);
            }
            Ok(response)
        })
    }
}

/// Serves `service` on every connection `acceptor` accepts until `stop` is cancelled; then
/// accepts no more, lets open requests finish for `grace` at most, and closes what is left.
pub async fn serve<A>(mut acceptor: A, service: Service, stop: CancellationToken, grace: Duration)
where
    A: Acceptor + Send,
    A::Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = Arc::new(service);
    let builder = Arc::new(HttpBuilder::new());
    let fuse: Option<ArcFusePolicy> = Some(Arc::new(FuseConfig::default()));
    let draining = CancellationToken::new();
    let mut connections = JoinSet::new();
    loop {
        while let Some(ended) = connections.try_join_next() {
            if let Err(error) = ended {
                tracing::error!(%error, "a connection's task failed");
            }
        }
        let accepted = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = acceptor.accept(fuse.clone()) => accepted,
        };
        let Accepted {
            stream,
            fuse_config,
            conn_ctrl,
            local_addr,
            remote_addr,
            http_scheme,
            ..
        } = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::error!(%error, "accepting a connection failed");
                // A lasting error (out of file descriptors) must not spin the loop.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let handler = service.hyper_handler(
            local_addr,
            remote_addr,
            http_scheme,
            fuse_config,
            conn_ctrl.clone(),
            None,
        );
        let (builder, draining) = (builder.clone(), draining.clone());
        connections.spawn(async move {
            let served = builder
                .serve_connection(
                    stream,
                    Losing(handler),
                    fuse_config,
                    conn_ctrl,
                    Some(draining),
                )
                .await;
            if let Err(error) = served {
                tracing::debug!(%error, "a connection ended with an error");
            }
        });
    }
    draining.cancel();
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(grace, drained).await.is_err() {
        tracing::info!(
            open = connections.len(),
            "connections still open after the grace period are closed"
        );
    }
    connections.shutdown().await;
}
