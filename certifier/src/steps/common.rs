//! Checks on the last response that hold anywhere: status, envelope, token, Location,
//! timestamps, amounts, fields and errors.
use cucumber::{then, when};
use reqwest::Method;
use serde_json::Value;

use crate::{
    checks::{self, DataKind, Description, ensure},
    exchange::short,
    world::{Actor, Payload, TenderWorld},
};

/// The last response has `expected` status; otherwise an error naming `what` was attempted,
/// the status seen and the body.
pub(super) fn expect_status(w: &TenderWorld, what: &str, expected: u16) -> Result<(), String> {
    match w.status()? {
        status if status == expected => Ok(()),
        status => Err(format!(
            "{what}: expected {expected}, got {status}: {}",
            short(&w.response()?.body)
        )),
    }
}

/// The step's docstring, trimmed.
fn docstring(step: &cucumber::gherkin::Step) -> Result<&str, String> {
    step.docstring
        .as_deref()
        .map(str::trim)
        .ok_or_else(|| "harness: the step needs a docstring".to_owned())
}

/// The step's docstring parsed as JSON: the data a step sends.
pub(super) fn docstring_json(step: &cucumber::gherkin::Step) -> Result<Value, String> {
    serde_json::from_str(docstring(step)?).map_err(|e| format!("harness: bad docstring: {e}"))
}

/// The step's docstring sent as it is written, as `application/json`: a body the service
/// may have to refuse.
pub(super) fn docstring_as_json_body(step: &cucumber::gherkin::Step) -> Result<Payload, String> {
    Ok(Payload::Raw {
        content_type: Some("application/json".into()),
        text: docstring(step)?.to_owned(),
    })
}

#[then(expr = "the response status is {int}")]
async fn response_status(w: &mut TenderWorld, expected: u16) -> Result<(), String> {
    let response = w.response()?;
    ensure(response.status == expected, || {
        format!(
            "expected status {expected}, got {}: {}",
            response.status,
            short(&response.body)
        )
    })
}

#[then(expr = "the response is a JSON data envelope holding an {word}")]
async fn data_envelope(w: &mut TenderWorld, kind: String) -> Result<(), String> {
    let kind = match kind.as_str() {
        "object" => DataKind::Object,
        "array" => DataKind::Array,
        other => return Err(format!("harness: unknown data kind {other}")),
    };
    checks::data_envelope(w.response()?, &w.body, kind).map_err(|e| checks::breach("conv-3", e))
}

#[then("the response carries an access token")]
async fn access_token(w: &mut TenderWorld) -> Result<(), String> {
    match w.body.pointer("/access/token") {
        Some(serde_json::Value::String(token)) if !token.is_empty() => Ok(()),
        _ => Err(checks::breach(
            "conv-4",
            format!(
                "no access.token string at the top level of {}",
                short(&w.body.to_string())
            ),
        )),
    }
}

#[then("the Location header is the full address of the created object")]
async fn location_full(w: &mut TenderWorld) -> Result<(), String> {
    let id = checks::as_text(&w.data()["id"]);
    checks::location_names(w.response()?, &id)
        .map(drop)
        .map_err(|e| checks::breach("conv-5", e))
}

#[then(expr = "the Location header ends with the {word} id")]
async fn location_ends_with_id(w: &mut TenderWorld, what: String) -> Result<(), String> {
    let id = match what.as_str() {
        "tender" => w.tender()?.id.clone(),
        "document" | "question" | "bid" => checks::as_text(&w.data()["id"]),
        other => return Err(format!("harness: unknown object kind {other}")),
    };
    checks::location_names(w.response()?, &id)
        .map(drop)
        .map_err(|e| checks::breach("conv-5", e))
}

#[then(expr = "the Location header points under {string}")]
async fn location_under(w: &mut TenderWorld, prefix: String) -> Result<(), String> {
    let location = w
        .response()?
        .header("location")
        .ok_or("no Location header")?
        .to_owned();
    let target = w.target()?;
    let expected = format!("{}{prefix}", target.base_url);
    let path_ok = location
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('/'))
        .is_some_and(|(_, path)| format!("/{path}").starts_with(&prefix));
    ensure(path_ok, || {
        format!("Location {location:?} is not under {expected:?}")
    })
}

#[then("every timestamp in the response has a UTC offset and microseconds")]
async fn timestamps_form(w: &mut TenderWorld) -> Result<(), String> {
    checks::timestamps_have_output_form(w.data()).map_err(|e| checks::breach("conv-6", e))
}

#[then("every amount in the response is a decimal number")]
async fn amounts_decimal(w: &mut TenderWorld) -> Result<(), String> {
    checks::amounts_are_decimal(w.data()).map_err(|e| checks::breach("conv-7", e))
}

fn response_field<'a>(w: &'a TenderWorld, path: &str) -> Result<&'a serde_json::Value, String> {
    checks::field(&w.body, path).ok_or_else(|| format!("the response has no {path}"))
}

#[then(expr = "the response field {string} is {string}")]
async fn field_is(w: &mut TenderWorld, path: String, expected: String) -> Result<(), String> {
    let value = checks::as_text(response_field(w, &path)?);
    ensure(value == expected, || {
        format!("{path} is {value:?}, expected {expected:?}")
    })
}

#[then(expr = "the response field {string} is present")]
async fn field_present(w: &mut TenderWorld, path: String) -> Result<(), String> {
    response_field(w, &path).map(drop)
}

#[then(expr = "the response field {string} is absent")]
async fn field_absent(w: &mut TenderWorld, path: String) -> Result<(), String> {
    match checks::field(&w.body, &path) {
        None => Ok(()),
        Some(v) => Err(format!("{path} is present: {}", short(&v.to_string()))),
    }
}

#[then(expr = "the response field {string} is an empty list")]
async fn field_empty_list(w: &mut TenderWorld, path: String) -> Result<(), String> {
    match response_field(w, &path)? {
        serde_json::Value::Array(items) if items.is_empty() => Ok(()),
        other => Err(format!(
            "{path} is {}, not an empty list",
            short(&other.to_string())
        )),
    }
}

#[then(expr = "the response field {string} is a 32-character lowercase hexadecimal identifier")]
async fn field_hex_id(w: &mut TenderWorld, path: String) -> Result<(), String> {
    checks::hex_id(response_field(w, &path)?).map_err(|e| checks::breach("conv-9", e))
}

#[then(expr = "the response has Content-Type {string}")]
async fn content_type(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    if expected.eq_ignore_ascii_case("application/json; charset=UTF-8") {
        return checks::json_content_type(w.response()?);
    }
    let found = w
        .response()?
        .header("content-type")
        .unwrap_or("")
        .to_owned();
    ensure(found.eq_ignore_ascii_case(&expected), || {
        format!("Content-Type is {found:?}, expected {expected:?}")
    })
}

#[then("the response has an Allow header")]
async fn allow_header(w: &mut TenderWorld) -> Result<(), String> {
    w.response()?
        .header("allow")
        .map(drop)
        .ok_or_else(|| "the response has no Allow header".to_owned())
}

/// The last response has a status `accepted` takes and is in the error envelope; otherwise an
/// error saying what was `expected`.
fn expect_error(
    w: &TenderWorld,
    accepted: impl Fn(u16) -> bool,
    expected: &str,
) -> Result<(), String> {
    let response = w.response()?;
    if !accepted(response.status) {
        return Err(format!(
            "expected {expected}, got {}: {}",
            response.status,
            short(&response.body)
        ));
    }
    checks::error_envelope(&w.body).map(drop)
}

fn error_status(w: &TenderWorld, status: u16) -> Result<(), String> {
    expect_error(w, |s| s == status, &format!("an error {status}"))
}

/// The last response refuses the request: any 4xx, in the error envelope.
pub(super) fn expect_refusal(w: &TenderWorld) -> Result<(), String> {
    expect_error(w, |s| (400..500).contains(&s), "a refusal (4xx)")
}

#[then(expr = "the response is an error {int} at {string} named {string}")]
async fn error_named(
    w: &mut TenderWorld,
    status: u16,
    location: String,
    name: String,
) -> Result<(), String> {
    error_status(w, status)?;
    checks::error_triple(&w.body, &location, &name, &Description::Any)
}

#[then(expr = "the response is an error {int} at {string} named {string} saying {string}")]
async fn error_saying(
    w: &mut TenderWorld,
    status: u16,
    location: String,
    name: String,
    description: String,
) -> Result<(), String> {
    error_status(w, status)?;
    checks::error_triple(
        &w.body,
        &location,
        &name,
        &Description::Exactly(description),
    )
}

#[then(
    expr = "the response is an error {int} at {string} named {string} whose description mentions {string}"
)]
async fn error_mentioning(
    w: &mut TenderWorld,
    status: u16,
    location: String,
    name: String,
    text: String,
) -> Result<(), String> {
    error_status(w, status)?;
    checks::error_triple(&w.body, &location, &name, &Description::Containing(text))
}

/// The spec leaves the status of most refusals open: any 4xx in the error envelope will do.
#[then("the request is refused with an error")]
async fn refused(w: &mut TenderWorld) -> Result<(), String> {
    expect_refusal(w)
}

#[when(expr = "an anonymous client requests {string}")]
async fn anonymous_get(w: &mut TenderWorld, path: String) -> Result<(), String> {
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await
}
