//! The error envelope, `{"status": "error", "errors": [{location, name, description}]}`,
//! and the mapping of every refusal onto it. This is the only place errors are rendered.
//!
//! Every description is a string, as the spec types it: an entry holds text, never JSON. A
//! validation problem becomes one entry per field at fault, named by its dotted path. The one
//! exception is the EDR service's answers, whose description is upstream's list, since the
//! clients of that service read it so.

use crate::domain::Refusal;
use salvo::http::StatusCode;
use salvo::http::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use salvo::prelude::*;
use serde_json::{Value as Json, json};

pub const JSON_UTF8: &str = "application/json; charset=UTF-8";

/// One entry of the envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorEntry {
    pub location: String,
    pub name: String,
    pub description: Description,
}

/// What an entry says.
#[derive(Debug, Clone, PartialEq)]
pub enum Description {
    Text(String),
    /// Upstream's EDR service's list of objects.
    Listed(Vec<Json>),
}

impl Description {
    fn to_json(&self) -> Json {
        match self {
            Description::Text(text) => json!(text),
            Description::Listed(entries) => json!(entries),
        }
    }
}

/// What a handler answers: done, or the error the API shows.
pub type Handled = Result<(), ApiError>;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub errors: Vec<ErrorEntry>,
}

impl ApiError {
    pub fn new(
        status: StatusCode,
        location: &str,
        name: &str,
        description: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            errors: vec![ErrorEntry {
                location: location.to_string(),
                name: name.to_string(),
                description: Description::Text(description.into()),
            }],
        }
    }

    /// An EDR answer's refusal, its description upstream's list of `entries`.
    pub fn listed(status: StatusCode, location: &str, name: &str, entries: Vec<Json>) -> ApiError {
        ApiError {
            status,
            errors: vec![ErrorEntry {
                location: location.to_string(),
                name: name.to_string(),
                description: Description::Listed(entries),
            }],
        }
    }

    pub fn forbidden() -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "url", "permission", "Forbidden")
    }

    /// The same refusal (403 `url`/`permission`, which clients match), saying why: the
    /// description reads "Forbidden: " and the reason.
    pub fn forbidden_because(reason: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "url",
            "permission",
            format!("Forbidden: {reason}"),
        )
    }

    pub fn not_found(name: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "url", name, "Not Found")
    }

    /// A status with nothing more to say than its standard reason, as a proxy or a failing
    /// server would answer it.
    pub fn bare(status: StatusCode) -> ApiError {
        ApiError::new(
            status,
            "url",
            "error",
            status.canonical_reason().unwrap_or("Error"),
        )
    }

    /// The entries in one line, each `location/name: description`, for a message that quotes
    /// a refusal.
    pub fn summary(&self) -> String {
        let entries = self.errors.iter().map(|e| {
            let description = match &e.description {
                Description::Text(text) => text.clone(),
                Description::Listed(entries) => Json::from(entries.clone()).to_string(),
            };
            format!("{}/{}: {description}", e.location, e.name)
        });
        entries.collect::<Vec<_>>().join(", ")
    }

    pub fn body(&self) -> Json {
        let errors: Vec<Json> = self
            .errors
            .iter()
            .map(|e| json!({"location": e.location, "name": e.name, "description": e.description.to_json()}))
            .collect();
        json!({"status": "error", "errors": errors})
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        match r {
            Refusal::Invalid(fields) => ApiError {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                errors: fields
                    .iter()
                    .flat_map(|(name, p)| p.leaves(name))
                    .map(|(name, description)| ErrorEntry {
                        location: "body".to_string(),
                        name,
                        description: Description::Text(description),
                    })
                    .collect(),
            },
            Refusal::Forbidden {
                location,
                name,
                description,
            } => ApiError::new(StatusCode::FORBIDDEN, location, name, description),
            Refusal::NotFound(name) => ApiError::not_found(name),
            Refusal::Unsupported {
                location,
                name,
                description,
            } => ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                location,
                name,
                description,
            ),
            Refusal::Unavailable(reason) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "body",
                "data",
                format!("The change could not be saved, so it was not made: {reason}"),
            ),
        }
    }
}

pub fn write_json(res: &mut Response, status: StatusCode, body: impl Into<salvo::http::ResBody>) {
    res.status_code(status);
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(JSON_UTF8));
    res.body(body);
}

impl Scribe for ApiError {
    fn render(self, res: &mut Response) {
        write_json(res, self.status, self.body().to_string());
    }
}

/// Turns the framework's empty 404 and 405 (and any other bodiless error) into the envelope.
#[handler]
pub async fn catcher(res: &mut Response, ctrl: &mut FlowCtrl) {
    let status = res.status_code.unwrap_or(StatusCode::NOT_FOUND);
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::new(status, "url", "not_found", "Not Found"),
        StatusCode::METHOD_NOT_ALLOWED => {
            ApiError::new(status, "url", "method_not_allowed", "Method Not Allowed")
        }
        StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(status, "body", "data", "Request body is too large")
        }
        other => ApiError::bare(other),
    };
    let allow = res.headers().get(ALLOW).cloned();
    error.render(res);
    if let Some(allow) = allow {
        res.headers_mut().insert(ALLOW, allow);
    }
    ctrl.skip_rest();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::parse::{Problem, REQUIRED};

    fn entries(e: &ApiError) -> Json {
        e.body()["errors"].clone()
    }

    #[test]
    fn a_validation_problem_is_one_string_entry_per_field_at_fault() {
        let items = Problem::Items(vec![
            Problem::NONE,
            Problem::field(
                "classification",
                Problem::field("id", Problem::msg("Value must be one of [...].")),
            ),
        ]);
        let refusal = Refusal::Invalid(vec![
            ("title".into(), Problem::msg(REQUIRED)),
            (
                "enquiryPeriod".into(),
                Problem::field(
                    "endDate",
                    Problem::Messages(vec!["First.".into(), "Second.".into()]),
                ),
            ),
            ("items".into(), items),
            ("colour".into(), Problem::Rogue),
            ("guarantee".into(), Problem::field("extra", Problem::Rogue)),
        ]);
        let error = ApiError::from(refusal);
        assert_eq!(error.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            entries(&error),
            json!([
                {"location": "body", "name": "title", "description": "This field is required."},
                {"location": "body", "name": "enquiryPeriod.endDate", "description": "First. Second."},
                {"location": "body", "name": "items.1.classification.id", "description": "Value must be one of [...]."},
                {"location": "body", "name": "colour", "description": "Rogue field"},
                {"location": "body", "name": "guarantee.extra", "description": "Rogue field"}
            ])
        );
    }

    #[test]
    fn every_other_refusal_is_one_string_entry() {
        for (refusal, status) in [
            (Refusal::phase("Can't add bid"), StatusCode::FORBIDDEN),
            (Refusal::NotFound("bid_id"), StatusCode::NOT_FOUND),
            (
                Refusal::Unsupported {
                    location: "data",
                    name: "procurementMethodType",
                    description: "Not implemented".into(),
                },
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ),
            (
                Refusal::Unavailable("database or disk is full".into()),
                StatusCode::SERVICE_UNAVAILABLE,
            ),
        ] {
            let error = ApiError::from(refusal);
            assert_eq!(error.status, status);
            let body = error.body();
            assert_eq!(body["status"], "error");
            let list = body["errors"].as_array().cloned().unwrap_or_default();
            assert_eq!(list.len(), 1, "{body}");
            assert!(list[0]["description"].is_string(), "{body}");
        }
    }

    #[test]
    fn an_edr_refusal_keeps_upstream_s_list() {
        let said = json!({"message": "Wrong name of the GET parameter"});
        let error = ApiError::listed(StatusCode::FORBIDDEN, "url", "id", vec![said.clone()]);
        assert_eq!(
            error.body(),
            json!({"status": "error", "errors": [{"location": "url", "name": "id", "description": [said]}]})
        );
    }
}
