//! One HTTP/1.1 keep-alive connection per load worker, driven through hyper directly: the
//! load generator shares the cores with the server, so it must cost as little as possible,
//! and a fixed set of connections is exactly what `--connections` promises.

use crate::Error;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

/// Where the server is: `http://host:port[/prefix]` (no TLS: the benchmark runs on loopback).
#[derive(Clone, Debug)]
pub struct Target {
    /// `host:port`, for connecting and for the `Host` header.
    pub authority: String,
    /// Path prefix before `/api/2.3` (empty for a server at the root).
    pub prefix: String,
}

impl Target {
    pub fn parse(base_url: &str) -> Result<Target, Error> {
        let rest = base_url.strip_prefix("http://").ok_or_else(|| {
            Error::new(format!(
                "--base-url must start with http:// (the benchmark speaks plain HTTP/1.1): {base_url}"
            ))
        })?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
            None => (rest, ""),
        };
        if authority.is_empty() {
            return Err(Error::new(format!("no host in --base-url {base_url}")));
        }
        let authority = if authority.contains(':') {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        Ok(Target {
            authority,
            prefix: path.to_string(),
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}{}", self.authority, self.prefix)
    }
}

/// HTTP Basic credentials of a broker whose key is its user name and whose password is empty.
#[derive(Clone, Debug)]
pub struct Broker {
    header: String,
}

impl Broker {
    pub fn new(key: &str) -> Broker {
        Broker {
            header: format!("Basic {}", base64(format!("{key}:").as_bytes())),
        }
    }
}

fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A request as the load generator describes it.
#[derive(Clone, Debug)]
pub struct Call {
    pub method: Method,
    /// Path below the target's prefix, with its query, e.g. `/api/2.3/tenders?limit=100`.
    pub path: String,
    pub broker: Option<Broker>,
    pub body: Option<Bytes>,
}

impl Call {
    pub fn new(method: Method, path: impl Into<String>) -> Call {
        Call {
            method,
            path: path.into(),
            broker: None,
            body: None,
        }
    }

    pub fn get(path: impl Into<String>) -> Call {
        Call::new(Method::GET, path)
    }

    pub fn by(mut self, broker: &Broker) -> Call {
        self.broker = Some(broker.clone());
        self
    }

    pub fn json(mut self, body: impl Into<Bytes>) -> Call {
        self.body = Some(body.into());
        self
    }
}

/// What came back.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Bytes,
}

impl Reply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The start of the body, for error messages.
    pub fn snippet(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let mut s: String = text.chars().take(300).collect();
        if text.chars().count() > 300 {
            s.push('…');
        }
        s
    }

    /// `Err` with the status and the body's start unless the answer is 2xx.
    pub fn checked(self, what: &str) -> Result<Reply, Error> {
        if self.ok() {
            Ok(self)
        } else {
            Err(Error::new(format!(
                "{what}: HTTP {}: {}",
                self.status,
                self.snippet()
            )))
        }
    }
}

/// A keep-alive connection; it reconnects by itself after the server closed it.
pub struct Conn {
    target: Target,
    sender: Option<SendRequest<Full<Bytes>>>,
}

impl Conn {
    pub async fn open(target: &Target) -> Result<Conn, Error> {
        let mut conn = Conn {
            target: target.clone(),
            sender: None,
        };
        conn.connect().await?;
        Ok(conn)
    }

    async fn connect(&mut self) -> Result<(), Error> {
        let stream = TcpStream::connect(&self.target.authority)
            .await
            .map_err(|e| Error::new(format!("connecting to {}: {e}", self.target.authority)))?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| Error::new(format!("HTTP handshake: {e}")))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        self.sender = Some(sender);
        Ok(())
    }

    pub async fn send(&mut self, call: &Call) -> Result<Reply, Error> {
        let mut request = Request::builder()
            .method(call.method.clone())
            .uri(format!("{}{}", self.target.prefix, call.path))
            .header(hyper::header::HOST, &self.target.authority);
        if let Some(broker) = &call.broker {
            request = request.header(hyper::header::AUTHORIZATION, &broker.header);
        }
        let body = match &call.body {
            Some(body) => {
                request = request.header(hyper::header::CONTENT_TYPE, "application/json");
                Full::new(body.clone())
            }
            None => Full::new(Bytes::new()),
        };
        let request = request
            .body(body)
            .map_err(|e| Error::new(format!("bad request {} {}: {e}", call.method, call.path)))?;
        let healthy = match self.sender.as_mut() {
            Some(sender) => sender.ready().await.is_ok(),
            None => false,
        };
        if !healthy {
            self.connect().await?;
        }
        let Some(sender) = self.sender.as_mut() else {
            return Err(Error::new("no connection"));
        };
        let response = match sender.send_request(request).await {
            Ok(response) => response,
            Err(e) => {
                self.sender = None;
                return Err(Error::new(format!("{} {}: {e}", call.method, call.path)));
            }
        };
        let status = response.status().as_u16();
        let body = match response.into_body().collect().await {
            Ok(body) => body.to_bytes(),
            Err(e) => {
                self.sender = None;
                return Err(Error::new(format!(
                    "{} {}: reading the body: {e}",
                    call.method, call.path
                )));
            }
        };
        Ok(Reply { status, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_of_a_broker_with_an_empty_password() {
        assert_eq!(Broker::new("broker").header, "Basic YnJva2VyOg==");
        assert_eq!(Broker::new("broker1").header, "Basic YnJva2VyMTo=");
        assert_eq!(base64(b"ab"), "YWI=");
    }

    #[test]
    fn base_urls_with_and_without_a_prefix() {
        let t = Target::parse("http://127.0.0.1:6543").unwrap();
        assert_eq!(
            (t.authority.as_str(), t.prefix.as_str()),
            ("127.0.0.1:6543", "")
        );
        let t = Target::parse("http://example.net/registry/").unwrap();
        assert_eq!(
            (t.authority.as_str(), t.prefix.as_str()),
            ("example.net:80", "/registry")
        );
        assert!(Target::parse("https://example.net").is_err());
    }
}
