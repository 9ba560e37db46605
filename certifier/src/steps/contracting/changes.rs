//! Changes of the contract under management and their documents.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::super::common;
use super::contract::*;
use crate::{
    checks::ensure,
    checks::{self},
    world::{Actor, Payload, TenderWorld},
};

pub(super) fn change_body(w: &mut TenderWorld) -> Value {
    json!({
        "rationale": format!("Зменшення обсягів закупівлі (додаткова угода № {})", w.fakes.code(3)),
        "rationale_en": "Volume cuts",
        "rationaleTypes": ["volumeCuts", "priceReduction"],
    })
}

#[when(regex = r"^the owner records (a|another) change of the contract$")]
async fn records_change(w: &mut TenderWorld, which: String) -> Result<(), String> {
    let data = change_body(w);
    write(w, Method::POST, "/changes", data).await?;
    if which == "a" && w.status()? == 201 {
        let change = w.data().clone();
        w.noted.insert(CHANGE.into(), change);
    }
    Ok(())
}

#[given("the owner has recorded a change of the contract")]
async fn has_recorded_change(w: &mut TenderWorld) -> Result<(), String> {
    records_change(w, "a".into()).await?;
    common::expect_status(w, "recording a change of the contract", 201)
}

fn change_id(w: &TenderWorld) -> Result<String, String> {
    Ok(checks::as_text(&w.recall(CHANGE)?["id"]))
}

#[when(regex = r"^the owner uploads (?:a|another) PDF document to the contract$")]
async fn uploads_document(w: &mut TenderWorld) -> Result<(), String> {
    let body = w.document_body().await?;
    let token = w.recall_text(TOKEN)?;
    let path = format!("{}/documents", contract_path(w)?);
    send(
        w,
        Actor::Owner,
        Method::POST,
        &path,
        Some(token),
        Payload::Json(body),
    )
    .await?;
    if w.status()? == 201 {
        let id = w.data()["id"].clone();
        w.noted.insert(DOCUMENT.into(), id);
    }
    Ok(())
}

#[given("the owner has uploaded a PDF document to the contract")]
async fn has_uploaded_document(w: &mut TenderWorld) -> Result<(), String> {
    uploads_document(w).await?;
    common::expect_status(w, "uploading a document to the contract", 201)
}

#[when(regex = r"^the owner binds the document to the (?:pending|applied) change$")]
async fn binds_document(w: &mut TenderWorld) -> Result<(), String> {
    let (document, change) = (w.recall_text(DOCUMENT)?, change_id(w)?);
    let data = json!({"documentOf": "change", "relatedItem": change});
    write(w, Method::PATCH, &format!("/documents/{document}"), data).await
}

#[when("the owner uploads a new version of the contract document")]
async fn uploads_version(w: &mut TenderWorld) -> Result<(), String> {
    let document = w.recall_text(DOCUMENT)?;
    let data = w.document_body().await?["data"].clone();
    write(w, Method::PUT, &format!("/documents/{document}"), data).await
}

#[then("the document is bound to the change")]
async fn bound(w: &mut TenderWorld) -> Result<(), String> {
    let change = change_id(w)?;
    let data = w.data();
    ensure(
        data["documentOf"] == "change" && data["relatedItem"] == change.as_str(),
        || {
            format!(
                "the document shows documentOf {} and relatedItem {}, not the change {change}",
                data["documentOf"], data["relatedItem"]
            )
        },
    )
}

#[when("the owner applies the change without a signature date")]
async fn applies_unsigned(w: &mut TenderWorld) -> Result<(), String> {
    let change = change_id(w)?;
    write(
        w,
        Method::PATCH,
        &format!("/changes/{change}"),
        json!({"status": "active"}),
    )
    .await
}

/// The moment the change was recorded is on the target's clock: never in the future, and
/// never before the contract was signed.
#[when("the owner applies the change, signed when it was recorded")]
async fn applies_signed(w: &mut TenderWorld) -> Result<(), String> {
    let change = w.recall(CHANGE)?;
    let data = json!({"status": "active", "dateSigned": change["date"]});
    let path = format!("/changes/{}", checks::as_text(&change["id"]));
    write(w, Method::PATCH, &path, data).await
}

#[when("the owner edits the rationale of the applied change")]
async fn edits_applied(w: &mut TenderWorld) -> Result<(), String> {
    let change = change_id(w)?;
    let data = json!({"rationale": "Зміна ціни за одиницю товару"});
    write(w, Method::PATCH, &format!("/changes/{change}"), data).await
}

#[then("the contract shows the change applied, with its document")]
async fn shows_applied(w: &mut TenderWorld) -> Result<(), String> {
    let (change, document) = (w.recall(CHANGE)?, w.recall(DOCUMENT)?);
    let contract = read_contract(w).await?;
    let shown = contract["changes"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == change["id"]))
        .ok_or_else(|| format!("the contract does not show the change {}", change["id"]))?;
    if shown["status"] != "active" || !same_instant(&shown["dateSigned"], &change["date"]) {
        return Err(format!(
            "the change shows status {} and dateSigned {}, not applied as signed at {}",
            shown["status"], shown["dateSigned"], change["date"]
        ));
    }
    let bound = contract["documents"]
        .as_array()
        .and_then(|d| d.iter().rev().find(|d| d["id"] == document))
        .ok_or_else(|| format!("the contract does not show the document {document}"))?;
    ensure(
        bound["documentOf"] == "change" && bound["relatedItem"] == change["id"],
        || {
            format!(
                "the contract shows the document with documentOf {} and relatedItem {}",
                bound["documentOf"], bound["relatedItem"]
            )
        },
    )
}
