//! The error envelope, `{"status": "error", "errors": [{location, name, description}]}`,
//! and the mapping of every refusal onto it. This is the only place errors are rendered.

use crate::domain::Refusal;
use salvo::http::StatusCode;
use salvo::http::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use salvo::prelude::*;
use serde_json::{Value as Json, json};

pub const JSON_UTF8: &str = "application/json; charset=UTF-8";

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub errors: Vec<(String, String, Json)>,
}

impl ApiError {
    pub fn new(
        status: StatusCode,
        location: &str,
        name: &str,
        description: impl Into<Json>,
    ) -> ApiError {
        ApiError {
            status,
            errors: vec![(location.to_string(), name.to_string(), description.into())],
        }
    }

    pub fn forbidden() -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "url", "permission", "Forbidden")
    }

    pub fn not_found(name: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "url", name, "Not Found")
    }

    pub fn body(&self) -> Json {
        let errors: Vec<Json> = self
            .errors
            .iter()
            .map(|(location, name, description)| json!({"location": location, "name": name, "description": description}))
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
                    .into_iter()
                    .map(|(name, p)| ("body".to_string(), name, p.to_json()))
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
        other => ApiError::new(
            other,
            "url",
            "error",
            other.canonical_reason().unwrap_or("Error"),
        ),
    };
    let allow = res.headers().get(ALLOW).cloned();
    error.render(res);
    if let Some(allow) = allow {
        res.headers_mut().insert(ALLOW, allow);
    }
    ctrl.skip_rest();
}
