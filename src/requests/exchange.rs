//! One exchange as the log keeps it: what the request and its answer were, with their bodies
//! held as received (a cheap clone of the buffers, cut past [`BODY_CAP`]), and how it is shown
//! and kept: tokens and passwords masked, a `curl` line that repeats it.

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The most of a body kept: enough for any tender a client sends or reads in full, not for a
/// file upload.
pub const BODY_CAP: usize = 16 * 1024;

/// What a masked secret reads as.
pub const MASK: &str = "***";

/// A body as kept: its first [`BODY_CAP`] bytes and its whole size.
#[derive(Debug, Clone, Default)]
pub struct Body {
    pub bytes: Bytes,
    pub size: usize,
    /// Only the start of it is kept.
    pub cut: bool,
}

impl Body {
    /// Keeps `bytes` without copying them, unless they pass the cap (then their start only,
    /// so a large upload is not held alive by its log entry).
    pub fn of(bytes: &Bytes) -> Body {
        let size = bytes.len();
        let cut = size > BODY_CAP;
        let bytes = match cut {
            true => Bytes::copy_from_slice(&bytes[..BODY_CAP]),
            false => bytes.clone(),
        };
        Body { bytes, size, cut }
    }

    /// A body not kept, only counted (a multipart upload, a stream).
    pub fn counted(size: usize) -> Body {
        Body {
            bytes: Bytes::new(),
            size,
            cut: size > 0,
        }
    }

    pub fn cut(&self) -> bool {
        self.cut
    }

    /// The text, tokens and passwords masked.
    pub fn masked(&self) -> String {
        mask_json_text(&String::from_utf8_lossy(&self.bytes))
    }

    /// The body as JSON when it is whole and decodes, masked.
    pub fn json(&self) -> Option<Value> {
        if self.cut() || self.bytes.is_empty() {
            return None;
        }
        serde_json::from_str(&self.masked()).ok()
    }

    /// The body as shown: its JSON, else its text, with its size and whether it was cut.
    fn shown(&self) -> Value {
        let mut shown = json!({"size": self.size});
        if self.size > 0 {
            match self.json() {
                Some(json) => shown["json"] = json,
                None if self.bytes.is_empty() => {}
                None => shown["text"] = Value::String(self.masked()),
            }
        }
        if self.cut() {
            shown["cut"] = Value::Bool(true);
        }
        shown
    }
}

/// One exchange a broker's platform made, as answered.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The log's own order: later exchanges have larger numbers.
    pub seq: u64,
    /// The `X-Request-ID` it was answered with.
    pub id: String,
    pub broker: String,
    /// When it arrived, by the wall clock (test clocks jump; intervals between a client's
    /// requests do not), as Unix microseconds.
    pub at: i64,
    pub micros: u64,
    pub method: String,
    pub path: String,
    /// The query string as sent (masked when shown and kept).
    pub query: Option<String>,
    pub status: u16,
    /// The answer never reached the client (a `drop-*` fault).
    pub lost: bool,
    /// The fault rule that hit it: its id and fault.
    pub fault: Option<(String, String)>,
    /// The request's `Content-Type`.
    pub content_type: Option<String>,
    /// The `X-Testing-Clock` it named.
    pub clock_header: Option<String>,
    /// It carried an `X-Access-Token` header.
    pub token_header: bool,
    /// A token refused on a bid was the bid's tender's token.
    pub tender_token_on_bid: bool,
    /// The address of what a creation made (its `Location`), even when the answer was lost.
    pub location: Option<String>,
    pub request: Body,
    pub response: Body,
}

/// What a record an exchange touched is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub kind: &'static str,
    pub id: String,
}

impl Exchange {
    pub fn is_write(&self) -> bool {
        matches!(self.method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE")
    }

    pub fn is_read(&self) -> bool {
        matches!(self.method.as_str(), "GET" | "HEAD")
    }

    /// Answered 5xx, or not answered at all.
    pub fn failed(&self) -> bool {
        self.status >= 500 || self.lost
    }

    /// The tender, contract under management or auction its path names, or that a creation
    /// made.
    pub fn touched(&self) -> Option<Touched> {
        if let Some(t) = touched_by_path(&self.path) {
            return Some(t);
        }
        let location = self.location.as_deref()?;
        let path = location.find("/api/").map(|at| &location[at..])?;
        touched_by_path(path)
    }

    /// The query with its `acc_token` masked.
    pub fn masked_query(&self) -> Option<String> {
        self.query.as_deref().map(mask_query)
    }

    /// Whether it sent a token, where.
    pub fn token_sent(&self) -> Option<&'static str> {
        let in_query = self.query.as_deref().is_some_and(|q| {
            form_urlencoded::parse(q.as_bytes()).any(|(k, v)| k == "acc_token" && !v.is_empty())
        });
        if in_query {
            Some("acc_token")
        } else if self.token_header {
            Some("X-Access-Token")
        } else if self
            .request
            .masked()
            .contains(&format!("\"token\":\"{MASK}\""))
        {
            Some("access.token")
        } else {
            None
        }
    }

    fn target(&self) -> String {
        match self.masked_query() {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// A `curl` line that repeats it against `base`, the broker's key and any token as
    /// shell variables rather than their values.
    pub fn curl(&self, base: &str) -> String {
        let target = self.target().replace("acc_token=***", "acc_token=$TOKEN");
        let mut line = format!("curl -X {} -u \"$BROKER_KEY:\"", self.method);
        if self.token_header {
            line.push_str(" -H \"X-Access-Token: $TOKEN\"");
        }
        if let Some(clock) = &self.clock_header {
            line.push_str(&format!(
                " -H {}",
                quoted(&format!("X-Testing-Clock: {clock}"))
            ));
        }
        if let Some(ct) = &self.content_type {
            line.push_str(&format!(" -H {}", quoted(&format!("Content-Type: {ct}"))));
        }
        line.push_str(&format!(" \"{base}{}\"", target.replace('"', "%22")));
        if self.request.size > 0 {
            if self.request.cut() || self.request.bytes.is_empty() {
                line.push_str(" --data-binary @body");
            } else {
                line.push_str(&format!(
                    " --data-binary {}",
                    quoted(&self.request.masked())
                ));
            }
        }
        line
    }

    /// The exchange as `GET /testing/requests` shows it.
    pub fn shown(&self, zone_at: impl Fn(i64) -> String, base: &str) -> Value {
        let mut v = json!({
            "id": self.id,
            "at": zone_at(self.at),
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "ms": self.micros as f64 / 1000.0,
            "request": self.request.shown(),
            "response": self.response.shown(),
            "curl": self.curl(base),
        });
        if let Some(q) = self.masked_query() {
            v["query"] = Value::String(q);
        }
        if self.lost {
            v["lost"] = Value::Bool(true);
        }
        if let Some((rule, fault)) = &self.fault {
            v["fault"] = json!({"rule": rule, "fault": fault});
        }
        if let Some(t) = self.touched() {
            v["record"] = json!({"kind": t.kind, "id": t.id});
        }
        if let Some(ct) = &self.content_type {
            v["request"]["contentType"] = Value::String(ct.clone());
        }
        if let Some(where_) = self.token_sent() {
            v["request"]["token"] = Value::String(where_.into());
        }
        if let Some(location) = &self.location {
            v["response"]["location"] = Value::String(location.clone());
        }
        v
    }

    /// The kept form: masked, as a data directory holds it.
    pub fn kept(&self) -> Kept {
        Kept {
            seq: self.seq,
            id: self.id.clone(),
            broker: self.broker.clone(),
            at: self.at,
            micros: self.micros,
            method: self.method.clone(),
            path: self.path.clone(),
            query: self.masked_query(),
            status: self.status,
            lost: self.lost,
            fault: self.fault.clone(),
            content_type: self.content_type.clone(),
            clock_header: self.clock_header.clone(),
            token_header: self.token_header,
            tender_token_on_bid: self.tender_token_on_bid,
            location: self.location.clone(),
            request: KeptBody::of(&self.request),
            response: KeptBody::of(&self.response),
        }
    }
}

/// An exchange as a data directory keeps it (already masked).
#[derive(Debug, Serialize, Deserialize)]
pub struct Kept {
    pub seq: u64,
    pub id: String,
    pub broker: String,
    pub at: i64,
    pub micros: u64,
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub status: u16,
    pub lost: bool,
    pub fault: Option<(String, String)>,
    pub content_type: Option<String>,
    pub clock_header: Option<String>,
    pub token_header: bool,
    pub tender_token_on_bid: bool,
    pub location: Option<String>,
    pub request: KeptBody,
    pub response: KeptBody,
}

/// A body as kept: its text masked, its size, whether it was cut.
#[derive(Debug, Serialize, Deserialize)]
pub struct KeptBody {
    pub text: String,
    pub size: usize,
    pub cut: bool,
}

impl KeptBody {
    fn of(body: &Body) -> KeptBody {
        KeptBody {
            text: body.masked(),
            size: body.size,
            cut: body.cut,
        }
    }
}

impl From<Kept> for Exchange {
    fn from(k: Kept) -> Exchange {
        let body = |b: KeptBody| Body {
            bytes: Bytes::from(b.text.into_bytes()),
            size: b.size,
            cut: b.cut,
        };
        Exchange {
            seq: k.seq,
            id: k.id,
            broker: k.broker,
            at: k.at,
            micros: k.micros,
            method: k.method,
            path: k.path,
            query: k.query,
            status: k.status,
            lost: k.lost,
            fault: k.fault,
            content_type: k.content_type,
            clock_header: k.clock_header,
            token_header: k.token_header,
            tender_token_on_bid: k.tender_token_on_bid,
            location: k.location,
            request: body(k.request),
            response: body(k.response),
        }
    }
}

/// The record a path names: `/api/2.3/tenders/{id}…`, `/api/2.3/contracts/{id}…`,
/// `/auctions/{id}…`.
pub fn touched_by_path(path: &str) -> Option<Touched> {
    let mut parts = path.split('/').filter(|p| !p.is_empty());
    let (kind, id) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("api"), Some(_), Some("tenders"), Some(id)) => ("tender", id),
        (Some("api"), Some(_), Some("contracts"), Some(id)) => ("contract", id),
        (Some("auctions"), Some(id), ..) => ("auction", id),
        _ => return None,
    };
    let id = id.split('_').next().unwrap_or(id);
    crate::domain::ids::is_id(id).then(|| Touched {
        kind,
        id: id.to_string(),
    })
}

/// `acc_token=…` (and any `password=…`) in a query string, masked.
pub fn mask_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if is_secret(k) && !v.is_empty() => format!("{k}={MASK}"),
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn is_secret(name: &str) -> bool {
    matches!(name, "acc_token" | "token" | "transfer" | "password")
}

/// JSON text (whole or cut) with the string values of its `token`, `transfer` and `password`
/// members masked, wherever they stand. Works on the text, so a cut body is masked too.
pub fn mask_json_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('"') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = string_end(rest) else {
            out.push_str(rest);
            return out;
        };
        let (string, after) = rest.split_at(end);
        out.push_str(string);
        rest = after;
        let name = &string[1..string.len() - 1];
        if !is_secret(name) {
            continue;
        }
        let spaced = rest.trim_start();
        let Some(value) = spaced.strip_prefix(':').map(str::trim_start) else {
            continue;
        };
        if !value.starts_with('"') {
            continue;
        }
        out.push_str(&rest[..rest.len() - value.len()]);
        out.push('"');
        out.push_str(MASK);
        match string_end(value) {
            Some(end) => {
                out.push('"');
                rest = &value[end..];
            }
            // A value cut short: nothing of it is shown.
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The length of the JSON string at the start of `text` (quotes included), if it ends.
fn string_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// `text` quoted for a POSIX shell.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_passwords_are_masked_wherever_they_stand() {
        let text = r#"{"access": {"token": "abc\"d", "transfer":"x"}, "data": {"id": "t", "password":"p"}}"#;
        assert_eq!(
            mask_json_text(text),
            r#"{"access": {"token": "***", "transfer":"***"}, "data": {"id": "t", "password":"***"}}"#
        );
        assert_eq!(
            mask_json_text(r#"{"access":{"token":"abc"#),
            r#"{"access":{"token":"***"#
        );
        assert_eq!(mask_json_text(r#"{"token": 5}"#), r#"{"token": 5}"#);
        assert_eq!(
            mask_query("opt_pretty=1&acc_token=secret"),
            "opt_pretty=1&acc_token=***"
        );
    }

    #[test]
    fn the_record_is_read_from_the_path() {
        let id = "0123456789abcdef0123456789abcdef";
        let t = touched_by_path(&format!("/api/2.3/tenders/{id}/bids")).unwrap();
        assert_eq!((t.kind, t.id.as_str()), ("tender", id));
        let a = touched_by_path(&format!("/auctions/{id}_{id}/state")).unwrap();
        assert_eq!((a.kind, a.id.as_str()), ("auction", id));
        assert_eq!(touched_by_path("/api/2.3/tenders"), None);
    }
}
