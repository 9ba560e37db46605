//! What the document routes of every holder share (a tender's holders in `api`, a contract
//! under management in `contracting`): a document write's `data`, from a JSON body, a file in
//! a multipart body or a new version's raw bytes, and the answer to `?download=<key>`.

use super::auth::Broker;
use super::error::{ApiError, Handled};
use super::guard::{self, Kept};
use super::upload as files_in;
use super::{App, body};
use crate::domain::Refusal;
use crate::files::{Uploader, address};
use salvo::http::StatusCode;
use salvo::http::header::{HeaderValue, LOCATION};
use salvo::prelude::*;
use serde_json::{Value as Json, json};

/// The answer to `?download=<key>`: a file the document service holds is handed out through
/// a temporary address, another store's address as it was sent.
pub fn redirect(app: &App, req: &Request, res: &mut Response, key: &str, sent: String) -> Handled {
    let url = if app.files.knows(key) {
        let expires = app.clocks.server().now().unix_timestamp() + address::TEMPORARY_SECONDS;
        address::temporary(&app.base_url(req), &app.signer, key, expires)
    } else {
        sent
    };
    res.status_code(StatusCode::FOUND);
    let location = HeaderValue::from_str(&url).map_err(|_| ApiError::not_found("download"))?;
    res.headers_mut().insert(LOCATION, location);
    Ok(())
}

/// What a document write does.
#[derive(Debug, Clone, Copy)]
pub enum Writing<'a> {
    /// A new document (POST): JSON, or a file in a multipart body.
    New,
    /// A new version of the document (PUT): JSON, a file in a multipart body, or the raw
    /// bytes of the file.
    Version(&'a str),
    /// The document's metadata (PATCH): JSON only.
    Metadata(&'a str),
}

impl<'a> Writing<'a> {
    pub fn document(self) -> Option<&'a str> {
        match self {
            Writing::New => None,
            Writing::Version(id) | Writing::Metadata(id) => Some(id),
        }
    }
}

/// The checks every document write shares (the record and the document exist, the
/// credentials fit, in upstream's order), and the document's `data`: from a JSON body, or
/// made from a file received in a multipart body or, for a new version, as the raw body
/// (only once the credentials are checked; `title` reads the document's, which the raw bytes
/// do not carry). Answers the data and the token a JSON body held.
pub async fn document_data<K: Kept>(
    req: &mut Request,
    app: &App,
    id: &str,
    writing: Writing<'_>,
    exists: impl Fn(&K) -> Result<(), Refusal>,
    allowed: impl Fn(&K, Option<&Broker>, Option<&str>) -> bool,
    title: impl FnOnce(&K) -> Option<String>,
) -> Result<(Json, Option<String>), ApiError> {
    let takes_files = !matches!(writing, Writing::Metadata(_));
    if takes_files && files_in::is_multipart(req) {
        guard::found_in(app, id, &exists)?;
        guard::permitted_in(app, req, id, None, &allowed)?;
        let uploader = uploader(app, req)?;
        let received = files_in::receive(req, app, None, &uploader).await;
        return Ok((uploaded(req, app, received)?, None));
    }
    if takes_files && body::check_content_type(req).is_err() {
        guard::found_in(app, id, &exists)?;
        // A PUT whose body is neither JSON nor multipart is the new version's raw bytes.
        if writing.document().is_none() {
            return Err(files_in::no_file());
        }
        guard::permitted_in(app, req, id, None, &allowed)?;
        let uploader = uploader(app, req)?;
        let title = K::read(app, id, title).flatten().unwrap_or_default();
        let received = files_in::receive_raw(req, app, &title, &uploader).await;
        return Ok((uploaded(req, app, received)?, None));
    }
    let body: body::Body = guard::write_in(req, app, id, &exists, &allowed).await?;
    Ok((body.data()?.to_value(), body.token().map(str::to_string)))
}

/// The broker whose credentials a file sent to the API came with (a document write is
/// permitted to a broker only): the file counts against its bounds.
fn uploader(app: &App, req: &Request) -> Result<Uploader, ApiError> {
    app.brokers
        .identify(req)
        .map(|b| Uploader::Broker(b.name.clone()))
        .ok_or_else(ApiError::forbidden)
}

/// A received file as a document's `data`: its title, format, md5 and permanent address.
fn uploaded(
    req: &Request,
    app: &App,
    received: Result<(String, crate::files::Content), ApiError>,
) -> Result<Json, ApiError> {
    let (key, file) = received.map_err(files_in::as_api_upload)?;
    let url = address::permanent(&app.base_url(req), &app.signer, &key, &file.md5);
    Ok(json!({
        "title": file.title,
        "format": file.format,
        "hash": format!("md5:{}", file.md5),
        "url": url,
    }))
}
