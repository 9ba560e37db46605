//! Successful responses: the `{"data": ...}` envelope with the spec's Content-Type,
//! `201 Created` with `Location` and the access token, and `opt_pretty` indentation.

use super::error::write_json;
use salvo::http::StatusCode;
use salvo::http::header::{HeaderValue, LOCATION};
use salvo::prelude::*;
use serde::Serialize;
use serde_json::{Value as Json, json};

/// `opt_pretty` with any non-empty value asks for indented JSON, as upstream read it.
pub fn wants_pretty(req: &Request) -> bool {
    req.query::<String>("opt_pretty")
        .is_some_and(|v| !v.is_empty())
}

pub fn to_text<T: Serialize>(value: &T, pretty: bool) -> String {
    if !pretty {
        return serde_json::to_string(value).unwrap_or_default();
    }
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(
        &mut out,
        serde_json::ser::PrettyFormatter::with_indent(b"    "),
    );
    if value.serialize(&mut serializer).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// 200 with `{"data": data}`.
pub fn ok(req: &Request, res: &mut Response, data: Json) {
    write_json(
        res,
        StatusCode::OK,
        to_text(&json!({ "data": data }), wants_pretty(req)),
    );
}

/// 201 with `Location` and `{"data": data}`, plus `access.token` for objects that have one.
pub fn created(
    req: &Request,
    res: &mut Response,
    location: &str,
    data: Json,
    token: Option<String>,
) {
    let body = match token {
        Some(token) => json!({"access": {"token": token}, "data": data}),
        None => json!({ "data": data }),
    };
    write_json(res, StatusCode::CREATED, to_text(&body, wants_pretty(req)));
    if let Ok(value) = HeaderValue::from_str(location) {
        res.headers_mut().insert(LOCATION, value);
    }
}
