//! Successful responses: the `{"data": ...}` envelope with the spec's Content-Type,
//! `201 Created` with `Location` and the access token, and `opt_pretty` indentation.
//!
//! Bodies are written straight from typed values; [`render`] lets a handler produce the text
//! while it still holds the record, and [`ok_rendered`]/[`created_rendered`] send it.

use super::error::write_json;
use crate::domain::json;
use salvo::http::StatusCode;
use salvo::http::header::{HeaderValue, LOCATION};
use salvo::prelude::*;
use serde::Serialize;

/// `opt_pretty` with any non-empty value asks for indented JSON, as upstream read it.
pub fn wants_pretty(req: &Request) -> bool {
    req.query::<String>("opt_pretty")
        .is_some_and(|v| !v.is_empty())
}

/// `value` as the body of an answer: compact JSON, or indented (`opt_pretty`).
pub fn to_text<T: Serialize>(value: &T, pretty: bool) -> Vec<u8> {
    json::to_vec(value, pretty).unwrap_or_default()
}

#[derive(Serialize)]
struct Access<'a> {
    token: &'a str,
}

#[derive(Serialize)]
struct Envelope<'a, T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    access: Option<Access<'a>>,
    data: T,
}

/// `{"data": data}`, with `{"access": {"token": ...}}` before it for objects that have one.
pub fn render<T: Serialize>(data: T, token: Option<&str>, pretty: bool) -> Vec<u8> {
    to_text(
        &Envelope {
            access: token.map(|token| Access { token }),
            data,
        },
        pretty,
    )
}

/// `{"data": data}` as compact JSON: the form cached for reads.
pub fn render_plain<T: Serialize>(data: T) -> Vec<u8> {
    render(data, None, false)
}

/// 200 with `{"data": data}`.
pub fn ok<T: Serialize>(req: &Request, res: &mut Response, data: T) {
    ok_rendered(res, render(data, None, wants_pretty(req)));
}

pub fn ok_rendered(res: &mut Response, text: Vec<u8>) {
    write_json(res, StatusCode::OK, text);
}

/// 201 with `Location` and `{"data": data}`, plus `access.token` for objects that have one.
pub fn created<T: Serialize>(
    req: &Request,
    res: &mut Response,
    location: &str,
    data: T,
    token: Option<&str>,
) {
    created_rendered(res, location, render(data, token, wants_pretty(req)));
}

pub fn created_rendered(res: &mut Response, location: &str, text: Vec<u8>) {
    write_json(res, StatusCode::CREATED, text);
    if let Ok(value) = HeaderValue::from_str(location) {
        res.headers_mut().insert(LOCATION, value);
    }
}
