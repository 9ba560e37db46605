//! The checks: every rule one exchange or one record must meet, each a pure function of what
//! was sent and answered: the envelope and shapes ([`shape`]), the facts for the life of a
//! record ([`facts`]), what a write must read back as ([`readback`]) and the rule catalogue
//! ([`rules`]). They may use the exchange layer alone; the world applies them.
//!
//! Checks shared by many steps: the envelope, the timestamp form, decimal amounts, identifiers,
//! the Location header and the error triple. Each is written once and returns what it found
//! wrong.

pub mod facts;
pub mod readback;
pub mod rules;
pub mod shape;

use serde_json::Value;

use crate::{exchange::ReceivedResponse, exchange::timestamps};

/// `Ok` when `holds`, else the error `otherwise` words: the end of every check that compares
/// what it found with what it expected.
pub fn ensure(holds: bool, otherwise: impl FnOnce() -> String) -> Result<(), String> {
    if holds { Ok(()) } else { Err(otherwise()) }
}

/// A step's failure that names the rule of the spec it found broken, so that the certificate
/// counts it against that rule alone (not against every rule its scenario is tagged with).
pub fn breach(tag: &str, what: impl std::fmt::Display) -> String {
    format!("{}: {what}", rules::broken(tag))
}

/// The JSON kind expected under `data`.
#[derive(Clone, Copy, Debug)]
pub enum DataKind {
    Object,
    Array,
}

/// Convention 3: `Content-Type: application/json; charset=UTF-8`.
pub fn json_content_type(response: &ReceivedResponse) -> Result<(), String> {
    let raw = response
        .header("content-type")
        .ok_or("the response has no Content-Type header")?;
    let normalised: String = raw
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    ensure(normalised == "application/json;charset=utf-8", || {
        format!("Content-Type is {raw:?}, not \"application/json; charset=UTF-8\"")
    })
}

/// Convention 3: a success body `{"data": <object or array>}`.
pub fn data_envelope(
    response: &ReceivedResponse,
    body: &Value,
    kind: DataKind,
) -> Result<(), String> {
    json_content_type(response)?;
    let data = body
        .get("data")
        .ok_or_else(|| "the body has no top-level \"data\"".to_owned())?;
    match kind {
        DataKind::Object if data.is_object() => Ok(()),
        DataKind::Array if data.is_array() => Ok(()),
        _ => Err(format!(
            "\"data\" is not an {kind:?}: {}",
            crate::exchange::short(&data.to_string())
        )),
    }
}

/// Convention 9: whether `value` is a 32-character lowercase hexadecimal identifier.
pub fn is_hex_id(value: &Value) -> bool {
    value.as_str().is_some_and(|text| {
        text.len() == 32
            && text
                .bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    })
}

/// Convention 9: a 32-character lowercase hexadecimal identifier, or what it is instead.
pub fn hex_id(value: &Value) -> Result<(), String> {
    match value.as_str() {
        _ if is_hex_id(value) => Ok(()),
        Some(text) => Err(format!(
            "{text:?} is not 32 lowercase hexadecimal characters"
        )),
        None => Err(format!("{value} is not a string")),
    }
}

/// Convention 6: every timestamp field anywhere in `value` has an offset and microseconds.
pub fn timestamps_have_output_form(value: &Value) -> Result<(), String> {
    let mut wrong = Vec::new();
    let mut found = 0;
    walk(value, "", &mut |path, key, v| {
        if timestamps::is_timestamp_field(key)
            && let Some(text) = v.as_str()
        {
            found += 1;
            if !timestamps::has_output_form(text) {
                wrong.push(format!("{path} = {text:?}"));
            }
        }
    });
    if found == 0 {
        return Err("the response holds no timestamp at all".into());
    }
    ensure(wrong.is_empty(), || {
        format!(
            "timestamps without an offset or without six fractional digits: {}",
            wrong.join(", ")
        )
    })
}

/// Convention 7: every `amount` anywhere in `value` is written as a decimal number.
pub fn amounts_are_decimal(value: &Value) -> Result<(), String> {
    let mut wrong = Vec::new();
    let mut found = 0;
    walk(value, "", &mut |path, key, v| {
        if key == "amount" {
            found += 1;
            match v {
                Value::Number(n) if n.is_f64() => {}
                other => wrong.push(format!("{path} = {other}")),
            }
        }
    });
    if found == 0 {
        return Err("the response holds no amount at all".into());
    }
    ensure(wrong.is_empty(), || {
        format!(
            "amounts not written as decimal numbers: {}",
            wrong.join(", ")
        )
    })
}

/// Calls `visit(path, key, value)` for every object member in `value`, depth first.
fn walk(value: &Value, path: &str, visit: &mut dyn FnMut(&str, &str, &Value)) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let here = format!("{path}.{key}");
                visit(&here, key, v);
                walk(v, &here, visit);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(v, &format!("{path}[{i}]"), visit);
            }
        }
        _ => {}
    }
}

/// Convention 5: a `Location` with the full address of the object whose id is `id`.
pub fn location_names(response: &ReceivedResponse, id: &str) -> Result<String, String> {
    let location = response
        .header("location")
        .ok_or("the 201 response has no Location header")?;
    if !(location.starts_with("http://") || location.starts_with("https://")) {
        return Err(format!("Location {location:?} is not a full address"));
    }
    let path = location.split(['?', '#']).next().unwrap_or(location);
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    if last != id {
        return Err(format!(
            "Location {location:?} does not end with the id {id:?}"
        ));
    }
    Ok(location.to_owned())
}

/// How an error description is matched.
#[derive(Clone, Debug)]
pub enum Description {
    Exactly(String),
    Containing(String),
    Any,
}

/// The error envelope `{status: "error", errors: [{description, location, name}]}`.
pub fn error_envelope(body: &Value) -> Result<&Vec<Value>, String> {
    if body["status"] != "error" {
        return Err(format!(
            "the body's status is {}, not \"error\"",
            body["status"]
        ));
    }
    let errors = body["errors"]
        .as_array()
        .filter(|e| !e.is_empty())
        .ok_or("the body has no non-empty \"errors\" list")?;
    for e in errors {
        for field in ["description", "location", "name"] {
            if e.get(field).is_none() {
                return Err(format!("an error entry has no {field}: {e}"));
            }
        }
    }
    Ok(errors)
}

/// One entry of the error envelope with this location, name and description.
pub fn error_triple(
    body: &Value,
    location: &str,
    name: &str,
    description: &Description,
) -> Result<(), String> {
    let errors = error_envelope(body)?;
    let matches = |e: &Value| {
        let text = match &e["description"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        e["location"] == location
            && e["name"] == name
            && match description {
                Description::Exactly(d) => {
                    text == *d || e["description"] == Value::from(vec![d.clone()])
                }
                Description::Containing(d) => text.contains(d.as_str()),
                Description::Any => true,
            }
    };
    ensure(errors.iter().any(matches), || {
        format!(
            "no error with location {location:?}, name {name:?} and description {description:?} in {}",
            Value::from(errors.clone())
        )
    })
}

/// A member by dotted path (`data.value.amount`, `data.items.0.id`).
pub fn field<'a>(value: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted.split('.').try_fold(value, |v, part| match v {
        Value::Array(items) => part.parse::<usize>().ok().and_then(|i| items.get(i)),
        Value::Object(map) => map.get(part),
        _ => None,
    })
}

/// A value as the features write it: strings bare, anything else as JSON.
pub fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_amounts_are_not_decimal() {
        let ok: Value = serde_json::from_str(r#"{"value":{"amount":500.0}}"#).unwrap();
        let bad: Value = serde_json::from_str(r#"{"value":{"amount":500}}"#).unwrap();
        assert!(amounts_are_decimal(&ok).is_ok());
        assert!(
            amounts_are_decimal(&bad)
                .unwrap_err()
                .contains(".value.amount")
        );
    }

    #[test]
    fn timestamps_are_found_at_any_depth() {
        let bad = json!({"date": "2026-01-01T00:00:00.000001+02:00",
                         "items": [{"deliveryDate": {"endDate": "2026-01-01T00:00:00+02:00"}}]});
        assert!(
            timestamps_have_output_form(&bad)
                .unwrap_err()
                .contains("endDate")
        );
    }

    #[test]
    fn location_must_end_with_the_id() {
        let response = ReceivedResponse {
            headers: vec![("location".into(), "http://h/api/2.3/tenders/abc".into())],
            ..ReceivedResponse::default()
        };
        assert!(location_names(&response, "abc").is_ok());
        assert!(location_names(&response, "abd").is_err());
    }

    #[test]
    fn upstream_list_descriptions_match_exactly() {
        let body = json!({"status": "error", "errors": [
            {"location": "body", "name": "title", "description": ["This field is required."]}]});
        let d = Description::Exactly("This field is required.".into());
        assert!(error_triple(&body, "body", "title", &d).is_ok());
    }
}
