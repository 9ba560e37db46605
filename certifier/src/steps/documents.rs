//! Tender documents and bid documents: upload, new version, metadata, reads.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::common::expect_status;
use crate::{
    checks::{self, ensure},
    exchange::short,
    exchange::timestamps,
    world::{Actor, Payload, TenderWorld},
};

/// Keeps a created document (from a 201) as the scenario's latest document.
fn keep_document(w: &mut TenderWorld, sent: Value) -> Result<(), String> {
    if let Some(document) = w.created_record(sent)? {
        w.documents.push(document);
    }
    Ok(())
}

pub(super) async fn upload_to_tender(
    w: &mut TenderWorld,
    actor: Actor,
    body: Value,
) -> Result<(), String> {
    let path = format!(
        "{}/documents?acc_token={}",
        w.tender_path()?,
        w.tender_token()?
    );
    w.send(actor, Method::POST, &path, Payload::Json(body.clone()))
        .await?;
    keep_document(w, body)
}

/// The owner uploads a PDF document to the object at `object` (a cancellation, a contract),
/// presenting the tender's token.
pub(super) async fn owner_uploads_pdf_to(w: &mut TenderWorld, object: &str) -> Result<(), String> {
    let path = format!("{object}/documents?acc_token={}", w.tender_token()?);
    let body = w.document_body().await?;
    w.send(Actor::Owner, Method::POST, &path, Payload::Json(body))
        .await
}

#[when("the owner uploads a PDF document to the tender")]
async fn uploads(w: &mut TenderWorld) -> Result<(), String> {
    let body = w.document_body().await?;
    upload_to_tender(w, Actor::Owner, body).await
}

#[given("the owner has uploaded a PDF document to the tender")]
async fn has_uploaded(w: &mut TenderWorld) -> Result<(), String> {
    uploads(w).await?;
    expect_status(w, "uploading a tender document", 201)
}

#[when("another broker uploads a PDF document to the tender with the owner's token")]
async fn other_uploads(w: &mut TenderWorld) -> Result<(), String> {
    let body = w.document_body().await?;
    upload_to_tender(w, Actor::Other, body).await
}

#[when("the owner uploads a PDF document to the tender without a token")]
async fn uploads_without_token(w: &mut TenderWorld) -> Result<(), String> {
    let path = format!("{}/documents", w.tender_path()?);
    let body = w.document_body().await?;
    w.send(Actor::Owner, Method::POST, &path, Payload::Json(body))
        .await
}

#[when(expr = "the owner uploads a PDF document whose hash is {string}")]
async fn uploads_with_hash(w: &mut TenderWorld, hash: String) -> Result<(), String> {
    let mut body = w.document_body().await?;
    body["data"]["hash"] = json!(hash);
    upload_to_tender(w, Actor::Owner, body).await
}

fn document_path(w: &TenderWorld) -> Result<String, String> {
    Ok(format!(
        "{}/documents/{}",
        w.tender_path()?,
        w.document()?.id
    ))
}

/// Keeps the response as the latest document's representation.
fn adopt_document(w: &mut TenderWorld, sent: Option<Value>) {
    let ok = matches!(w.status(), Ok(200));
    let data = w.data().clone();
    if let (true, Some(doc)) = (ok, w.documents.last_mut())
        && data["id"] == doc.id.as_str()
    {
        doc.data = data;
        if let Some(sent) = sent {
            doc.sent = sent;
        }
    }
}

#[when("the owner uploads a new version of the document")]
async fn uploads_new_version(w: &mut TenderWorld) -> Result<(), String> {
    w.document_before = w.document()?.data.clone();
    let body = w.document_body().await?;
    let path = format!("{}?acc_token={}", document_path(w)?, w.tender_token()?);
    w.send(
        Actor::Owner,
        Method::PUT,
        &path,
        Payload::Json(body.clone()),
    )
    .await?;
    adopt_document(w, Some(body));
    Ok(())
}

#[given("the owner has uploaded a new version of the document")]
async fn has_uploaded_new_version(w: &mut TenderWorld) -> Result<(), String> {
    uploads_new_version(w).await?;
    expect_status(w, "uploading a new version of the document", 200)
}

#[when(expr = "the owner sets the document's documentType to {string} with a description")]
async fn sets_document_type(w: &mut TenderWorld, document_type: String) -> Result<(), String> {
    w.document_before = w.document()?.data.clone();
    let body = json!({"data": {"documentType": document_type, "description": "Технічні вимоги до предмета закупівлі"}});
    let path = format!("{}?acc_token={}", document_path(w)?, w.tender_token()?);
    w.send(Actor::Owner, Method::PATCH, &path, Payload::Json(body))
        .await?;
    adopt_document(w, None);
    Ok(())
}

#[when(regex = r"^(an anonymous client|another broker) lists the tender documents$")]
async fn lists_documents(w: &mut TenderWorld, reader: String) -> Result<(), String> {
    let path = format!("{}/documents", w.tender_path()?);
    w.send(Actor::reader(&reader)?, Method::GET, &path, Payload::None)
        .await
}

#[when(regex = r"^(an anonymous client|another broker) reads the document$")]
async fn reads_document(w: &mut TenderWorld, reader: String) -> Result<(), String> {
    let path = document_path(w)?;
    w.send(Actor::reader(&reader)?, Method::GET, &path, Payload::None)
        .await?;
    adopt_document(w, None);
    Ok(())
}

#[when("an anonymous client reads a document of the tender that does not exist")]
async fn reads_missing_document(w: &mut TenderWorld) -> Result<(), String> {
    let path = format!("{}/documents/{}", w.tender_path()?, w.fakes.hex_id(32));
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await
}

// ---- bid documents ----

async fn upload_to_bid(w: &mut TenderWorld, token: Option<String>) -> Result<(), String> {
    let bid = w.bid(w.last_bid_index()?)?.id.clone();
    let mut path = format!("{}/bids/{bid}/documents", w.tender_path()?);
    if let Some(token) = token {
        path = format!("{path}?acc_token={token}");
    }
    let body = w.document_body().await?;
    w.send(
        Actor::Other,
        Method::POST,
        &path,
        Payload::Json(body.clone()),
    )
    .await?;
    keep_document(w, body)
}

fn bid_token(w: &TenderWorld) -> Result<String, String> {
    w.bid(w.last_bid_index()?)?
        .token
        .clone()
        .ok_or_else(|| "the bid has no token".to_owned())
}

#[when("the bidder uploads a PDF document to the bid")]
async fn bidder_uploads(w: &mut TenderWorld) -> Result<(), String> {
    let token = bid_token(w)?;
    upload_to_bid(w, Some(token)).await
}

#[given("the bidder has uploaded a PDF document to the bid")]
async fn bidder_has_uploaded(w: &mut TenderWorld) -> Result<(), String> {
    bidder_uploads(w).await?;
    expect_status(w, "uploading a bid document", 201)
}

#[when("the bidder uploads a PDF document to the bid without a token")]
async fn bidder_uploads_without_token(w: &mut TenderWorld) -> Result<(), String> {
    upload_to_bid(w, None).await
}

#[when("the bidder lists the bid documents")]
async fn bidder_lists_documents(w: &mut TenderWorld) -> Result<(), String> {
    let bid = w.bid(w.last_bid_index()?)?.id.clone();
    let path = format!(
        "{}/bids/{bid}/documents?acc_token={}",
        w.tender_path()?,
        bid_token(w)?
    );
    w.send(Actor::Other, Method::GET, &path, Payload::None)
        .await
}

/// Reading the first bid's documents as someone other than its bidder.
#[when(
    regex = r"^(an anonymous client|the second bidder|the owner) lists the first bid's documents (without a token|with its own bid token|with the tender token)$"
)]
async fn lists_first_bid_documents(
    w: &mut TenderWorld,
    who: String,
    token: String,
) -> Result<(), String> {
    let actor = match who.as_str() {
        "an anonymous client" => Actor::Anonymous,
        "the second bidder" => Actor::Other,
        _ => Actor::Owner,
    };
    let token = match token.as_str() {
        "with its own bid token" => Some(
            w.bid(1)?
                .token
                .clone()
                .ok_or("the second bid has no token")?,
        ),
        "with the tender token" => Some(w.tender_token()?),
        _ => None,
    };
    let mut path = format!("{}/bids/{}/documents", w.tender_path()?, w.bid(0)?.id);
    if let Some(token) = token {
        path = format!("{path}?acc_token={token}");
    }
    w.send(actor, Method::GET, &path, Payload::None).await
}

/// A refusal that carries the documents all the same has shown them.
#[then("the response shows none of the first bid's documents")]
async fn shows_no_bid_document(w: &mut TenderWorld) -> Result<(), String> {
    let documents = w.bid(0)?.data["documents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if documents.is_empty() {
        return Err("the first bid was registered without documents to look for".into());
    }
    let body = &w.response()?.body;
    for document in &documents {
        for key in ["id", "title", "url"] {
            let value = checks::as_text(&document[key]);
            if !value.is_empty() && body.contains(&value) {
                return Err(checks::breach(
                    "auth-2",
                    format!(
                        "the response shows the first bid's document {key} {value:?}: {}",
                        short(body)
                    ),
                ));
            }
        }
    }
    Ok(())
}

// ---- what a document shows ----

#[then("the document has the title, hash and format that were sent")]
async fn document_as_sent(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.document()?.sent["data"].clone();
    let shown = w.data();
    for key in ["title", "hash", "format"] {
        if shown[key] != sent[key] {
            return Err(format!(
                "the document's {key} is {}, {} was sent",
                shown[key], sent[key]
            ));
        }
    }
    Ok(())
}

#[then("the document's url is a full address")]
async fn document_url_full(w: &mut TenderWorld) -> Result<(), String> {
    let url = checks::as_text(&w.data()["url"]);
    ensure(
        url.starts_with("http://") || url.starts_with("https://"),
        || format!("the document url {url:?} is not a full address"),
    )
}

#[then("the document's url carries a Signature and a KeyID")]
async fn document_url_signed(w: &mut TenderWorld) -> Result<(), String> {
    let url = checks::as_text(&w.data()["url"]);
    let parsed = reqwest::Url::parse(&url).map_err(|e| format!("url {url:?}: {e}"))?;
    let has = |name: &str| {
        parsed
            .query_pairs()
            .any(|(k, v)| k == name && !v.is_empty())
    };
    ensure(has("Signature") && has("KeyID"), || {
        format!("the document url {url:?} carries no Signature and KeyID")
    })
}

#[then("the document's url is a download address under the bid's document path")]
async fn bid_document_url(w: &mut TenderWorld) -> Result<(), String> {
    let bid = w.bid(w.last_bid_index()?)?.id.clone();
    let url = checks::as_text(&w.data()["url"]);
    let under = format!("/bids/{bid}/documents/");
    let parsed = reqwest::Url::parse(&url).map_err(|e| format!("url {url:?}: {e}"))?;
    let keyed = parsed
        .query_pairs()
        .any(|(k, v)| k == "download" && !v.is_empty());
    ensure(url.contains(&under) && keyed, || {
        format!("the bid document url {url:?} is not under …{under} with download=<key>")
    })
}

#[then("the document is listed once, in its latest version")]
async fn document_listed_once(w: &mut TenderWorld) -> Result<(), String> {
    let doc = w.document()?.clone();
    let rows: Vec<&Value> = w
        .data_list("the document list")?
        .iter()
        .filter(|d| d["id"] == doc.id.as_str())
        .collect();
    match rows.as_slice() {
        [row] if row["title"] == doc.sent["data"]["title"] => Ok(()),
        [row] => Err(format!(
            "listed with title {}, the latest version is {}",
            row["title"], doc.sent["data"]["title"]
        )),
        rows => Err(format!("the document is listed {} times", rows.len())),
    }
}

#[then("the document keeps its id and datePublished")]
async fn document_keeps_identity(w: &mut TenderWorld) -> Result<(), String> {
    let before = w.document_before.clone();
    let now = w.data();
    for key in ["id", "datePublished"] {
        if now[key] != before[key] {
            return Err(format!(
                "the document's {key} changed from {} to {}",
                before[key], now[key]
            ));
        }
    }
    Ok(())
}

/// A new version's `dateModified` is the moment of the upload: later than the replaced
/// version's, or the same moment on a target clock that stood still.
#[then("the document's dateModified is refreshed")]
async fn document_modified_refreshed(w: &mut TenderWorld) -> Result<(), String> {
    let parse = |v: &Value| v.as_str().and_then(timestamps::parse);
    let before =
        parse(&w.document_before["dateModified"]).ok_or("the document had no dateModified")?;
    let now = parse(&w.data()["dateModified"]).ok_or("the document has no dateModified")?;
    w.check_refreshed("the document's dateModified", before, now)
        .await
}

#[then("the document's previousVersions holds the replaced version")]
async fn previous_versions(w: &mut TenderWorld) -> Result<(), String> {
    let old_title = w.document_before["title"].clone();
    let versions = w.data()["previousVersions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    ensure(versions.iter().any(|v| v["title"] == old_title), || {
        format!(
            "previousVersions holds no version titled {old_title}: {}",
            Value::from(versions)
        )
    })
}

#[then("the tender shows the document")]
async fn tender_shows_document(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.document()?.id.clone();
    let documents = w.tender_field("/documents")?;
    if documents
        .as_array()
        .is_some_and(|d| d.iter().any(|doc| doc["id"] == id.as_str()))
    {
        Ok(())
    } else {
        Err(format!("the tender's documents do not include {id}"))
    }
}

#[then("the bid document is listed")]
async fn bid_document_listed(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.document()?.id.clone();
    let rows = w.data_list("the document list")?;
    ensure(rows.iter().any(|d| d["id"] == id.as_str()), || {
        format!("the bid documents do not include {id}")
    })
}
