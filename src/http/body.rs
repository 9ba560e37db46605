//! Reading a JSON request body: the Content-Type, the size limit, the decoding and the
//! `{"data": {...}}` envelope, each with upstream's error.

use super::error::{ApiError, Handled};
use crate::domain::input::Input;
use salvo::http::ParseError;
use salvo::http::StatusCode;
use salvo::http::header::CONTENT_TYPE;
use salvo::hyper::body::Bytes;
use salvo::prelude::*;

/// The JSON of a body, if it decodes: read once, its strings borrowed from the bytes.
type Decoded<'a> = Option<Input<'a>>;

self_cell::self_cell!(
    /// A body's bytes and what they decode to.
    struct Parsed {
        owner: Bytes,
        #[covariant]
        dependent: Decoded,
    }
);

/// A request body that passed the Content-Type check. Decoding problems are kept, not
/// raised, because a missing permission outranks them.
pub struct Body {
    parsed: Parsed,
}

/// Only `application/json` is accepted (parameters such as `charset` may follow).
pub fn check_content_type(req: &Request) -> Handled {
    let ok = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
    if ok {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "header",
            "Content-Type",
            "Content-Type header should be one of ['application/json']",
        ))
    }
}

pub async fn read(req: &mut Request, max_body: usize) -> Result<Body, ApiError> {
    check_content_type(req)?;
    let bytes = match req.payload_with_max_size(max_body).await {
        Ok(bytes) => bytes,
        Err(ParseError::PayloadTooLarge) => {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body",
                "data",
                format!("Request body is larger than the limit of {max_body} bytes"),
            ));
        }
        Err(e) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "body",
                "data",
                format!("Could not read the body: {e}"),
            ));
        }
    };
    Ok(Body {
        parsed: Parsed::new(bytes.clone(), |bytes| serde_json::from_slice(bytes).ok()),
    })
}

impl Body {
    fn json(&self) -> Option<&Input<'_>> {
        self.parsed.borrow_dependent().as_ref()
    }

    /// `access.token` at the top level of the body.
    pub fn token(&self) -> Option<&str> {
        self.json()?.get("access")?.get("token")?.as_str()
    }

    /// `options.pretty` at the top level asks for indented output.
    pub fn pretty(&self) -> bool {
        self.json()
            .and_then(|j| j.get("options")?.get("pretty")?.as_bool())
            .unwrap_or(false)
    }

    /// The `data` object.
    pub fn data(&self) -> Result<&Input<'_>, ApiError> {
        let json = self.json().ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "body",
                "data",
                "No JSON object could be decoded",
            )
        })?;
        json.get("data").filter(|d| d.is_object()).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "body",
                "data",
                "Data not available",
            )
        })
    }
}
