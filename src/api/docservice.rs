//! The embedded document service, at upstream's paths on the server's root, so that a
//! broker's document service address is simply the server's base address: `POST /register`,
//! `POST /upload`, `POST /upload/{key}`, `GET /get/{key}`, and the public key of every
//! signature at `GET /keys`. Its status probe, `GET /`, is the server's index.

use crate::files::signing::SignatureFault;
use crate::files::{Uploader, address};
use crate::http::error::{ApiError, Handled, write_json};
use crate::http::{App, app, reply, upload};
use salvo::http::StatusCode;
use salvo::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE, HeaderValue, LOCATION};
use salvo::prelude::*;
use serde_json::{Value as Json, json};

fn forbidden(location: &str, name: &str, description: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, location, name, description)
}

fn signature_error(fault: SignatureFault) -> ApiError {
    match fault {
        SignatureFault::Missing => forbidden("url", "Signature", "Not Found"),
        SignatureFault::UnknownKey => forbidden("url", "KeyID", "Key Id does not exist"),
        SignatureFault::Malformed => forbidden("url", "Signature", "Signature invalid"),
        SignatureFault::Mismatch => forbidden("url", "Signature", "Signature does not match"),
    }
}

/// Uploads need a broker's credentials, as writes to the API do, or those of one of the
/// service's own uploading users: the one the files count against.
fn uploader(app: &App, req: &Request) -> Result<Uploader, ApiError> {
    if let Some(broker) = app.brokers.identify(req) {
        return Ok(Uploader::Broker(broker.name.clone()));
    }
    match crate::http::auth::basic(req) {
        Some((user, password)) if app.ds_users.admit(&user, &password) => Ok(Uploader::User(user)),
        // Upstream's service read its users' names in lower case, so a name written with
        // capitals never matched; the refusal says so rather than leave it a puzzle.
        Some((user, password))
            if user != user.to_lowercase()
                && app.ds_users.admit(&user.to_lowercase(), &password) =>
        {
            Err(ApiError::forbidden_because(format!(
                "the document service knows its users by their names in lower case, as \
                 upstream's did: sign in as {}, not {user}",
                user.to_lowercase()
            )))
        }
        _ => Err(ApiError::forbidden()),
    }
}

fn send(res: &mut Response, status: StatusCode, location: &str, body: Json) {
    write_json(res, status, body.to_string());
    if let Ok(value) = HeaderValue::from_str(location) {
        res.headers_mut().insert(LOCATION, value);
    }
}

/// The public key that verifies every signature the server shows.
#[handler]
pub async fn keys(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let key = json!({
        "KeyID": app.signer.key_id(),
        "algorithm": "Ed25519",
        "publicKey": app.signer.public_key(),
    });
    reply::ok(req, res, json!([key]));
    Ok(())
}

/// Upstream answered a GET of an upload address with a plain 404.
#[handler]
pub async fn not_here(res: &mut Response) {
    res.status_code(StatusCode::NOT_FOUND);
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    res.body("Not Found");
}

/// The `hash` of a registration: `{"data": {"hash": …}}` as JSON, or a form field.
async fn registered_hash(req: &mut Request, max_body: usize) -> Option<String> {
    let is_json = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if is_json {
        let bytes = req.payload_with_max_size(max_body).await.ok()?;
        let json: Json = serde_json::from_slice(bytes).ok()?;
        return json.get("data")?.get("hash")?.as_str().map(str::to_string);
    }
    req.form::<String>("hash").await
}

fn check_md5(hash: &str) -> Result<String, ApiError> {
    let invalid = |m: &str| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "body", "hash", m);
    let digest = hash
        .strip_prefix("md5:")
        .ok_or_else(|| invalid("Hash type is not supported."))?;
    if digest.len() != 32 {
        return Err(invalid("Hash value is wrong length."));
    }
    if !digest.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(invalid("Hash value is not hexadecimal."));
    }
    Ok(digest.to_ascii_lowercase())
}

#[handler]
pub async fn register(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let uploader = uploader(&app, req)?;
    let hash = registered_hash(req, app.max_body)
        .await
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "body", "hash", "Not Found"))?;
    let md5 = check_md5(&hash)?;
    let key = app
        .files
        .register(&md5, &uploader, &upload::bounds_of(&app))
        .map_err(|r| upload::refused(&app, &uploader, r))?;
    let root = app.base_url(req);
    let upload_url = address::upload(&root, &app.signer, &key);
    let url = address::permanent(&root, &app.signer, &key, &md5);
    let body =
        json!({"data": {"hash": format!("md5:{md5}"), "url": url}, "upload_url": upload_url});
    send(res, StatusCode::CREATED, &upload_url, body);
    Ok(())
}

/// The answer to an upload: the permanent address in `data`, a temporary one in `get_url`.
fn uploaded(app: &App, req: &Request, res: &mut Response, key: &str, c: &crate::files::Content) {
    let root = app.base_url(req);
    let url = address::permanent(&root, &app.signer, key, &c.md5);
    let expires = app.clocks.server().now().unix_timestamp() + address::TEMPORARY_SECONDS;
    let get_url = address::temporary(&root, &app.signer, key, expires);
    let data =
        json!({"url": url, "hash": format!("md5:{}", c.md5), "format": c.format, "title": c.title});
    send(
        res,
        StatusCode::OK,
        &get_url,
        json!({"data": data, "get_url": get_url}),
    );
}

#[handler]
pub async fn upload_new(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let uploader = uploader(&app, req)?;
    let (key, content) = upload::receive(req, &app, None, &uploader).await?;
    uploaded(&app, req, res, &key, &content);
    Ok(())
}

#[handler]
pub async fn upload_registered(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Handled {
    let app = app(depot)?;
    let uploader = uploader(&app, req)?;
    let key = crate::http::param(req, "key");
    let (signature, key_id) = (
        req.query::<String>("Signature"),
        req.query::<String>("KeyID"),
    );
    app.signer
        .verify(&key, signature.as_deref(), key_id.as_deref())
        .map_err(signature_error)?;
    let (key, content) = upload::receive(req, &app, Some(&key), &uploader).await?;
    uploaded(&app, req, res, &key, &content);
    Ok(())
}

/// `attachment` with the file name: a plain `filename` (ASCII, as clients that split the
/// header at `; filename=` read it) and `filename*` in UTF-8 when the name is not ASCII.
pub fn content_disposition(title: &str) -> String {
    let fallback: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let quoted = fallback.replace('\\', "\\\\").replace('"', "\\\"");
    if fallback == title {
        return format!("attachment; filename=\"{quoted}\"");
    }
    let encoded: String = title
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("attachment; filename=\"{quoted}\"; filename*=UTF-8''{encoded}")
}

#[handler]
pub async fn get(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let key = crate::http::param(req, "key");
    let (signature, key_id, expires) = (
        req.query::<String>("Signature"),
        req.query::<String>("KeyID"),
        req.query::<String>("Expires"),
    );
    if signature.is_none() {
        return Err(signature_error(SignatureFault::Missing));
    }
    if key_id.as_deref() != Some(app.signer.key_id()) {
        return Err(signature_error(SignatureFault::UnknownKey));
    }
    if let Some(expires) = &expires {
        let now = app.clocks.server().now().unix_timestamp();
        if expires.parse::<i64>().map_or(true, |e| e < now) {
            return Err(forbidden("url", "Expires", "Request has expired"));
        }
    }
    let entry = app
        .files
        .get(&key)
        .ok_or_else(|| ApiError::not_found("doc_id"))?;
    let md5 = entry
        .content
        .as_ref()
        .map(|c| c.md5.clone())
        .or(entry.registered.clone())
        .unwrap_or_default();
    let message = match &expires {
        Some(expires) => format!("{key}\0{expires}"),
        None => format!("{key}\0{md5}"),
    };
    app.signer
        .verify(&message, signature.as_deref(), key_id.as_deref())
        .map_err(signature_error)?;
    let content = entry.content.ok_or_else(|| ApiError::not_found("doc_id"))?;
    if content.size == 0 {
        res.status_code(StatusCode::NO_CONTENT);
        return Ok(());
    }
    let bytes = app
        .files
        .read(&key, &content)
        .await
        .map_err(|e| upload::storage_failed(&e))?;
    res.status_code(StatusCode::OK);
    let headers = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&content.format) {
        headers.insert(CONTENT_TYPE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&content_disposition(&content.title)) {
        headers.insert(CONTENT_DISPOSITION, v);
    }
    res.body(bytes);
    Ok(())
}

/// The service's routes, on the server's root.
pub fn router() -> Router {
    Router::new()
        .push(Router::with_path("keys").get(keys))
        .push(Router::with_path("register").post(register).get(not_here))
        .push(
            Router::with_path("upload")
                .post(upload_new)
                .get(not_here)
                .push(
                    Router::with_path("{key}")
                        .post(upload_registered)
                        .get(not_here),
                ),
        )
        .push(Router::with_path("get/{key}").get(get))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_given_plainly_and_in_utf8() {
        assert_eq!(
            content_disposition("a b.pdf"),
            "attachment; filename=\"a b.pdf\""
        );
        assert_eq!(
            content_disposition("Звіт.pdf"),
            "attachment; filename=\"____.pdf\"; filename*=UTF-8''%D0%97%D0%B2%D1%96%D1%82.pdf"
        );
        assert_eq!(
            content_disposition("a\"b.txt"),
            "attachment; filename=\"a\\\"b.txt\""
        );
    }
}
