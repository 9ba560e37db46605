//! The exchange, the harness's bottom layer: one request and its response, the HTTP client
//! and the run's settings it is built from (TLS, proxies, timeouts), the interface's
//! timestamps and the JSON bodies the features send. It names no other layer.
//!
//! One HTTP request and the response to it, kept so that a failure can show both.

pub mod bodies;
pub mod client;
pub mod pace;
pub mod settings;
pub mod timestamps;
pub mod tunnel;
#[path = "../../../scenarios/vocabulary.rs"]
mod vocabulary;
pub mod x509;

use std::fmt;

/// What was sent.
#[derive(Clone, Debug, Default)]
pub struct SentRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

/// What came back.
#[derive(Clone, Debug, Default)]
pub struct ReceivedResponse {
    pub status: u16,
    pub reason: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl ReceivedResponse {
    /// The first header of that name, compared case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Debug, Default)]
pub struct Exchange {
    pub request: SentRequest,
    pub response: Option<ReceivedResponse>,
    /// Set when no response arrived (connection refused, timeout).
    pub transport_error: Option<String>,
}

/// Bodies longer than this are cut in reports.
const SHOWN_BODY: usize = 6000;

fn shown(body: &str) -> String {
    let pretty = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| body.to_owned());
    if pretty.len() <= SHOWN_BODY {
        return pretty;
    }
    let mut end = SHOWN_BODY;
    while !pretty.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… ({} more bytes)", &pretty[..end], pretty.len() - end)
}

impl fmt::Display for SentRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.method, self.url)?;
        for (name, value) in &self.headers {
            writeln!(f, "{name}: {value}")?;
        }
        if let Some(body) = &self.body {
            writeln!(f)?;
            writeln!(f, "{}", shown(body))?;
        }
        Ok(())
    }
}

impl fmt::Display for ReceivedResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.status, self.reason)?;
        for (name, value) in &self.headers {
            writeln!(f, "{name}: {value}")?;
        }
        if !self.body.is_empty() {
            writeln!(f)?;
            writeln!(f, "{}", shown(&self.body))?;
        }
        Ok(())
    }
}

/// The start of a response body, for one-line messages.
pub fn short(body: &str) -> String {
    let mut end = body.len().min(300);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    if end < body.len() {
        format!("{}…", &body[..end])
    } else {
        body.to_owned()
    }
}
