//! Receiving a file: the `file` part of a `multipart/form-data` body, streamed into the
//! document service's store as it arrives (never buffered whole), with its md5 counted on
//! the way. The document service's uploads and the API's legacy uploads both come here.

use super::App;
use super::bounds;
use super::error::ApiError;
use crate::files::{Bounds, Content, Refused, Uploader};
use bytes::Bytes;
use futures_util::StreamExt;
use salvo::http::StatusCode;
use salvo::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use salvo::prelude::*;

/// The part's Content-Type when it names none.
const DEFAULT_FORMAT: &str = "application/octet-stream";

/// Is the body `multipart/form-data`?
pub fn is_multipart(req: &Request) -> bool {
    content_type(req)
        .split(';')
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("multipart/form-data"))
}

fn content_type(req: &Request) -> &str {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

pub fn no_file() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "body", "file", "Not Found")
}

fn undecodable() -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "body",
        "data",
        "could not decode params",
    )
}

fn too_large(max: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "body",
        "file",
        format!("File is larger than the limit of {max} bytes"),
    )
}

pub fn storage_failed(e: &std::io::Error) -> ApiError {
    tracing::error!(error = %e, "storing an upload failed");
    ApiError::new(
        StatusCode::BAD_GATEWAY,
        "body",
        "data",
        "Upload failed, please try again later",
    )
}

/// A legacy upload to the API reports a storage failure as upstream's API did when its
/// document service failed.
pub fn as_api_upload(e: ApiError) -> ApiError {
    if e.status == StatusCode::BAD_GATEWAY {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "body",
            "data",
            "Can't upload document to document service.",
        )
    } else {
        e
    }
}

/// `uploader` in a refusal's words.
pub fn holder(uploader: &Uploader) -> String {
    match uploader {
        Uploader::Broker(name) => format!("Broker {name}"),
        Uploader::User(name) => format!("The document service's user {name}"),
    }
}

/// The bounds of the server on what one uploader keeps.
pub fn bounds_of(app: &App) -> Bounds {
    Bounds {
        files: app.limits.uploads,
        bytes: app.limits.upload_bytes,
    }
}

/// The refusal of an upload of `uploader`.
pub fn refused(app: &App, uploader: &Uploader, r: Refused) -> ApiError {
    match r {
        Refused::Full {
            kind,
            held,
            most,
            adding,
        } => bounds::refused(app, &holder(uploader), kind, held, most, adding),
        other => ApiError::from(other),
    }
}

impl From<Refused> for ApiError {
    /// A refusal that names no uploader's bounds ([`refused`] words those).
    fn from(r: Refused) -> ApiError {
        match r {
            Refused::Unknown => ApiError::new(StatusCode::NOT_FOUND, "url", "doc_id", "Not Found"),
            Refused::AlreadyUploaded => ApiError::new(
                StatusCode::FORBIDDEN,
                "url",
                "doc_id",
                "Content already uploaded",
            ),
            Refused::Checksum => {
                ApiError::new(StatusCode::FORBIDDEN, "body", "file", "Invalid checksum")
            }
            Refused::Storage(e) => storage_failed(&e),
            Refused::Full {
                kind, held, most, ..
            } => ApiError::new(
                StatusCode::CONFLICT,
                "body",
                "data",
                format!(
                    "The uploader holds {}, the most it may keep.",
                    crate::limits::Kind::amount(kind, held.max(most))
                ),
            ),
        }
    }
}

/// A legacy upload of a new version as the raw body of a PUT: the bytes are the file, its
/// format the request's Content-Type, its title the document's current one (as upstream).
pub async fn receive_raw(
    req: &mut Request,
    app: &App,
    title: &str,
    uploader: &Uploader,
) -> Result<(String, Content), ApiError> {
    let max = app.max_upload;
    let bounds = bounds_of(app);
    let full = |r| refused(app, uploader, r);
    let room = app.files.room(uploader, None, &bounds).map_err(full)?;
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large(max));
    }
    if let (Some(n), Some(room)) = (declared, room) {
        past_room(room, n, &bounds, app, uploader).map_err(full)?;
    }
    let format = match content_type(req).split(';').next().map(str::trim) {
        Some(m) if !m.is_empty() => m.to_string(),
        _ => DEFAULT_FORMAT.to_string(),
    };
    let mut body = req.take_body();
    let mut sink = app.files.sink().await.map_err(|e| storage_failed(&e))?;
    while let Some(frame) = body.next().await {
        let Ok(chunk) = frame.map_err(|_| undecodable())?.into_data() else {
            continue;
        };
        if sink.size() + chunk.len() as u64 > max as u64 {
            return Err(too_large(max));
        }
        if let Some(room) = room {
            past_room(
                room,
                sink.size() + chunk.len() as u64,
                &bounds,
                app,
                uploader,
            )
            .map_err(full)?;
        }
        sink.write(&chunk).await.map_err(|e| storage_failed(&e))?;
    }
    app.files
        .commit(None, sink, title, &format, uploader, &bounds)
        .await
        .map_err(full)
}

/// Refused when a file of `size` bytes passes the `room` the uploader had left.
fn past_room(
    room: u64,
    size: u64,
    bounds: &Bounds,
    app: &App,
    uploader: &Uploader,
) -> Result<(), Refused> {
    match bounds.bytes {
        Some(most) if size > room => Err(Refused::Full {
            kind: crate::limits::Kind::UploadBytes,
            held: app.files.held(uploader).bytes,
            most,
            adding: size,
        }),
        _ => Ok(()),
    }
}

/// Streams the body's `file` part into the store, under the registered `key` or a new one;
/// returns the key and the stored file's description. Other parts are read past.
pub async fn receive(
    req: &mut Request,
    app: &App,
    key: Option<&str>,
    uploader: &Uploader,
) -> Result<(String, Content), ApiError> {
    let max = app.max_upload;
    if !is_multipart(req) {
        return Err(no_file());
    }
    let boundary = multra::parse_boundary(content_type(req)).map_err(|_| undecodable())?;
    app.files.may_upload(key)?;
    let bounds = bounds_of(app);
    let full = |r| refused(app, uploader, r);
    let room = app.files.room(uploader, key, &bounds).map_err(full)?;
    // Room for the parts' headers and boundaries around a file of the largest size.
    let slack = 64 * 1024;
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > (max + slack) as u64) {
        return Err(too_large(max));
    }
    let body = req
        .take_body()
        .map(|frame| frame.map(|f| f.into_data().unwrap_or_else(|_| Bytes::new())));
    let limits = multra::SizeLimit::new().whole_stream((max + slack) as u64);
    let mut multipart = multra::Multipart::with_constraints(
        body,
        boundary,
        multra::Constraints::new().size_limit(limits),
    );
    let read_error = |e: multra::Error| match e {
        multra::Error::StreamSizeExceeded { .. } | multra::Error::FieldSizeExceeded { .. } => {
            too_large(max)
        }
        _ => undecodable(),
    };
    let mut received = None;
    while let Some(mut field) = multipart.next_field().await.map_err(read_error)? {
        let is_file = field.name() == Some("file") && field.file_name().is_some();
        if !is_file || received.is_some() {
            while field.chunk().await.map_err(read_error)?.is_some() {}
            continue;
        }
        let title = field.file_name().unwrap_or_default().to_string();
        let format = field
            .content_type()
            .map_or(DEFAULT_FORMAT.to_string(), |m| m.essence_str().to_string());
        let mut sink = app.files.sink().await.map_err(|e| storage_failed(&e))?;
        while let Some(chunk) = field.chunk().await.map_err(read_error)? {
            if sink.size() + chunk.len() as u64 > max as u64 {
                return Err(too_large(max));
            }
            if let Some(room) = room {
                let size = sink.size() + chunk.len() as u64;
                past_room(room, size, &bounds, app, uploader).map_err(full)?;
            }
            sink.write(&chunk).await.map_err(|e| storage_failed(&e))?;
        }
        received = Some((sink, title, format));
    }
    let (sink, title, format) = received.ok_or_else(no_file)?;
    app.files
        .commit(key, sink, &title, &format, uploader, &bounds)
        .await
        .map_err(full)
}
