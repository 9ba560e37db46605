//! The document service (`@documents`): files uploaded to the target's document service at
//! its root (`POST /upload`, `POST /register`, `GET /get/<key>`), registered with the API by
//! address or sent to it as multipart, and read back byte for byte. A target whose root
//! answers these paths with a 404 of its own does not offer a document service.
use super::common::expect_status;
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::json;

use crate::{
    checks,
    exchange::bodies,
    exchange::short,
    target::offered::NOT_OFFERED,
    world::{Actor, Payload, TenderWorld},
};

/// md5 of `hello`, announced by a registration whose upload then sends something else.
const HELLO_MD5: &str = "5d41402abc4b2a76b9719d911017c592";

fn multipart(file_name: &str, content: &str) -> Payload {
    let (content_type, text) = bodies::multipart(file_name, "text/plain", content);
    Payload::Raw {
        content_type: Some(content_type),
        text,
    }
}

/// One exchange with the document service. Its paths are not the interface's, so the
/// interface's statements are not checked against it.
async fn ds(
    w: &mut TenderWorld,
    actor: Actor,
    method: Method,
    path: &str,
    payload: Payload,
) -> Result<(), String> {
    let (exchange, body) = w.exchange(actor, method, path, payload, &[]).await?;
    let failed = exchange
        .transport_error
        .as_ref()
        .map(|e| format!("{path}: no response: {e}"));
    w.body = body;
    w.last = Some(exchange);
    failed.map_or(Ok(()), Err)
}

/// A 404 that is not the service's own (`file` or `hash` missing) means there is none.
fn offered(w: &TenderWorld, what: &str) -> Result<(), String> {
    let own = ["file", "hash"].contains(&checks::as_text(&w.body["errors"][0]["name"]).as_str());
    if w.status()? == 404 && !own {
        return Err(format!("{NOT_OFFERED}document service: {what} answers 404"));
    }
    Ok(())
}

#[given("the owner has uploaded a file to the document service")]
#[when("the owner uploads a file to the document service")]
async fn uploads_file(w: &mut TenderWorld) -> Result<(), String> {
    let content = format!("Технічне завдання {}", w.fakes.document()["data"]["title"]);
    ds(
        w,
        Actor::Owner,
        Method::POST,
        "/upload",
        multipart("ТЗ.txt", &content),
    )
    .await?;
    offered(w, "POST /upload")?;
    expect_status(w, "uploading to the document service", 200)?;
    let data = w.data().clone();
    w.noted.insert("ds_url".into(), data["url"].clone());
    w.noted.insert("ds_hash".into(), data["hash"].clone());
    w.noted.insert("ds_content".into(), json!(content));
    Ok(())
}

async fn register_with_tender(w: &mut TenderWorld, url: String) -> Result<(), String> {
    let body = json!({"data": {
        "title": "ТЗ.txt",
        "url": url,
        "hash": w.recall_text("ds_hash")?,
        "format": "text/plain",
    }});
    let path = format!(
        "{}/documents?acc_token={}",
        w.tender_path()?,
        w.tender_token()?
    );
    w.send(Actor::Owner, Method::POST, &path, Payload::Json(body))
        .await
}

#[when("the owner registers the file's address as a tender document")]
async fn registers_address(w: &mut TenderWorld) -> Result<(), String> {
    let url = w.recall_text("ds_url")?;
    register_with_tender(w, url).await
}

/// The address with its signature's first character changed (still base64).
fn forged(url: &str) -> Result<String, String> {
    let (before, signature) = url
        .split_once("Signature=")
        .ok_or_else(|| format!("the address {url:?} has no Signature"))?;
    let mut chars = signature.chars();
    let first = chars.next().unwrap_or('A');
    let swapped = if first == 'A' { 'B' } else { 'A' };
    Ok(format!("{before}Signature={swapped}{}", chars.as_str()))
}

#[when("an anonymous client downloads the file with a forged signature")]
async fn downloads_forged(w: &mut TenderWorld) -> Result<(), String> {
    let url = forged(&w.recall_text("ds_url")?)?;
    ds(w, Actor::Anonymous, Method::GET, &url, Payload::None).await
}

#[when("the owner registers the file's address with a forged signature as a tender document")]
async fn registers_forged(w: &mut TenderWorld) -> Result<(), String> {
    let url = forged(&w.recall_text("ds_url")?)?;
    register_with_tender(w, url).await
}

#[when("the owner registers a hash with the document service")]
async fn registers_hash(w: &mut TenderWorld) -> Result<(), String> {
    let body = json!({"data": {"hash": format!("md5:{HELLO_MD5}")}});
    ds(
        w,
        Actor::Owner,
        Method::POST,
        "/register",
        Payload::Json(body),
    )
    .await?;
    offered(w, "POST /register")?;
    expect_status(w, "registering with the document service", 201)?;
    let upload_url = w.body["upload_url"].clone();
    w.noted.insert("ds_upload_url".into(), upload_url);
    Ok(())
}

#[when("the owner uploads other content to the registered address")]
async fn uploads_other(w: &mut TenderWorld) -> Result<(), String> {
    let url = w.recall_text("ds_upload_url")?;
    ds(
        w,
        Actor::Owner,
        Method::POST,
        &url,
        multipart("hello.txt", "not hello"),
    )
    .await
}

/// GETs `url` and checks it serves the noted content.
async fn serves_content(w: &mut TenderWorld, url: &str) -> Result<(), String> {
    ds(w, Actor::Anonymous, Method::GET, url, Payload::None).await?;
    let expected = w.recall_text("ds_content")?;
    let response = w.response()?;
    if response.status != 200 || response.body != expected {
        return Err(format!(
            "GET {url}: expected 200 with {expected:?}, got {} with {}",
            response.status,
            short(&response.body)
        ));
    }
    Ok(())
}

#[then("the document's address serves the uploaded bytes")]
async fn document_serves(w: &mut TenderWorld) -> Result<(), String> {
    let url = checks::as_text(&w.data()["url"]);
    serves_content(w, &url).await
}

fn bid_token(w: &TenderWorld) -> Result<(String, String), String> {
    let bid = w.bid(w.last_bid_index()?)?;
    let token = bid.token.clone().ok_or("the bid has no token")?;
    Ok((bid.id.clone(), token))
}

#[when("the bidder sends a file as a bid document")]
async fn bidder_sends_file(w: &mut TenderWorld) -> Result<(), String> {
    let (bid, token) = bid_token(w)?;
    let content = format!("Пропозиція {}", w.fakes.document()["data"]["title"]);
    w.noted.insert("ds_content".into(), json!(content));
    let path = format!(
        "{}/bids/{bid}/documents?acc_token={token}",
        w.tender_path()?
    );
    w.send(
        Actor::Other,
        Method::POST,
        &path,
        multipart("Пропозиція.txt", &content),
    )
    .await?;
    if [404, 415].contains(&w.status()?) {
        return Err(format!(
            "{NOT_OFFERED}multipart uploads: POST {path} answers {}",
            w.status()?
        ));
    }
    let url = w.data()["url"].clone();
    w.noted.insert("bid_document_url".into(), url);
    Ok(())
}

#[then("the bid document's download address redirects the bidder to the file")]
async fn bid_document_redirects(w: &mut TenderWorld) -> Result<(), String> {
    let (_, token) = bid_token(w)?;
    let url = format!("{}&acc_token={token}", w.recall_text("bid_document_url")?);
    ds(w, Actor::Other, Method::GET, &url, Payload::None).await?;
    expect_status(w, "the bid document's download address", 302)?;
    let location = w
        .response()?
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("location"))
        .map(|(_, v)| v.clone())
        .ok_or("the redirect has no Location")?;
    if !location.contains("Expires=") {
        return Err(format!(
            "the redirect {location:?} is not a temporary address (no Expires)"
        ));
    }
    serves_content(w, &location).await
}
