//! A delaying TCP proxy on loopback: a server made to look far away. Every chunk read on
//! either side is sent on the other at its arrival plus the one-way delay, so the round trip
//! grows by twice the delay while throughput stays what the pipe gives (chunks are delayed,
//! not queued behind one another's sleeps). It counts the connections it carries and stops
//! when dropped.

use crate::Error;
use bytes::Bytes;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;

/// A running proxy; dropping it closes the listener and every connection it carries.
pub struct Proxy {
    /// `127.0.0.1:port` the proxy listens on.
    pub authority: String,
    connections: Arc<AtomicU64>,
    accept: JoinHandle<()>,
}

impl Proxy {
    /// Listens on a free loopback port and forwards each connection to `upstream`
    /// (`host:port`), `one_way` later in each direction.
    pub async fn start(upstream: &str, one_way: Duration) -> Result<Proxy, Error> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| Error::new(format!("the delaying proxy cannot listen: {e}")))?;
        let authority = listener.local_addr()?.to_string();
        let connections = Arc::new(AtomicU64::new(0));
        let counted = connections.clone();
        let upstream = upstream.to_string();
        let accept = tokio::spawn(async move {
            // Owned here, so that aborting the accept loop ends every connection with it.
            let mut carried = JoinSet::new();
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    // Out of file descriptors, say: try again soon rather than spin.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                counted.fetch_add(1, Ordering::Relaxed);
                let upstream = upstream.clone();
                carried.spawn(async move {
                    if let Ok(server) = TcpStream::connect(&upstream).await {
                        carry(client, server, one_way).await;
                    }
                });
                // Reap the finished ones, so that a long run holds only the open ones.
                while carried.try_join_next().is_some() {}
            }
        });
        Ok(Proxy {
            authority,
            connections,
            accept,
        })
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> u64 {
        self.connections.load(Ordering::Relaxed)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Both directions of one connection, each delayed by `one_way`.
async fn carry(client: TcpStream, server: TcpStream, one_way: Duration) {
    // Small writes (a request's head, then its body) must not wait for one another's ACKs.
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_in, client_out) = client.into_split();
    let (server_in, server_out) = server.into_split();
    tokio::join!(
        direction(client_in, server_out, one_way),
        direction(server_in, client_out, one_way),
    );
}

/// One direction: a reader stamps each chunk with its arrival and queues it; a writer sends
/// each at its stamp plus the delay. Stamps only grow, so order is kept; the reader never
/// waits for the writer, so a chunk's delay does not hold back the ones behind it. End of
/// stream (or an error) is passed on as a shutdown, delayed like the data.
async fn direction(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, one_way: Duration) {
    let (queue, mut queued) = mpsc::unbounded_channel::<(Instant, Option<Bytes>)>();
    let read = async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let chunk = match from.read(&mut buf).await {
                Ok(0) | Err(_) => None,
                Ok(n) => Some(Bytes::copy_from_slice(&buf[..n])),
            };
            let end = chunk.is_none();
            if queue.send((Instant::now() + one_way, chunk)).is_err() || end {
                return;
            }
        }
    };
    let write = async move {
        while let Some((due, chunk)) = queued.recv().await {
            tokio::time::sleep_until(due).await;
            match chunk {
                Some(bytes) => {
                    if to.write_all(&bytes).await.is_err() {
                        return;
                    }
                }
                None => break,
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(read, write);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An echo server: what the proxy carries there comes back, in order and whole.
    async fn echo() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let (mut r, mut w) = s.split();
                    let _ = tokio::io::copy(&mut r, &mut w).await;
                });
            }
        });
        addr
    }

    #[tokio::test]
    async fn the_proxy_carries_every_byte_in_order_both_ways_and_counts_connections() {
        let proxy = Proxy::start(&echo().await, Duration::from_millis(1))
            .await
            .unwrap();
        let sent: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for _ in 0..2 {
            let stream = TcpStream::connect(&proxy.authority).await.unwrap();
            let (mut r, mut w) = stream.into_split();
            let out = sent.clone();
            let writer = tokio::spawn(async move {
                for piece in out.chunks(7_000) {
                    w.write_all(piece).await.unwrap();
                }
                w.shutdown().await.unwrap();
            });
            let mut back = Vec::new();
            r.read_to_end(&mut back).await.unwrap();
            writer.await.unwrap();
            assert_eq!(back, sent);
        }
        assert_eq!(proxy.connections(), 2);
    }

    #[tokio::test]
    async fn a_stopped_proxy_refuses_new_connections() {
        let proxy = Proxy::start(&echo().await, Duration::ZERO).await.unwrap();
        let authority = proxy.authority.clone();
        drop(proxy);
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(TcpStream::connect(&authority).await.is_err());
    }
}
