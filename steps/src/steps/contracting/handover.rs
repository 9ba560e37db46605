//! Contract management after signing, an upstream extension (`@contracting`): a tender's
//! signed contract is handed over to `/api/2.3/contracts` when its tender (or its lot)
//! completes; the tender owner's broker takes its credentials with the tender token and then
//! writes with the contract's own token, as upstream's broker client did (the token in
//! `X-Access-Token`): changes, documents, the whole contract sent back, the amount paid and
//! termination.
use crate::checks::ensure;
use cucumber::{gherkin::Step, given, then, when};
use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;

use super::{awards, bids, cancellations, lots, periods, tenders};
use crate::{
    checks::{self, Description},
    exchange::short,
    exchange::timestamps,
    world::offered,
    world::{Actor, Payload, TenderWorld},
};

const EXTENSION: &str = "contracting";
const COLLECTION: &str = "/api/2.3/contracts";

// What a scenario keeps in `noted`.
const CONTRACT: &str = "contract under management";
const TOKEN: &str = "contract token";
const TOKEN_BEFORE: &str = "contract token before";
const CHANGE: &str = "change of the contract under management";
const DOCUMENT: &str = "document of the contract under management";
const DESCRIPTION: &str = "contract description last accepted";
const WHOLE: &str = "whole contract sent back";
const PAID: &str = "amount paid sent";

fn noted(w: &TenderWorld, key: &str) -> Result<Value, String> {
    w.noted
        .get(key)
        .cloned()
        .ok_or_else(|| format!("harness: the scenario has no {key} yet"))
}

fn noted_text(w: &TenderWorld, key: &str) -> Result<String, String> {
    Ok(checks::as_text(&noted(w, key)?))
}

fn contract_path(w: &TenderWorld) -> Result<String, String> {
    Ok(format!("{COLLECTION}/{}", noted_text(w, CONTRACT)?))
}

/// One request under the contracts, with `token` in `X-Access-Token` as upstream's client sent
/// it; a 404 on the collection itself means the target does not offer contract management.
async fn send(
    w: &mut TenderWorld,
    actor: Actor,
    method: Method,
    path: &str,
    token: Option<String>,
    payload: Payload,
) -> Result<(), String> {
    let headers: Vec<(&str, String)> = token.map(|t| ("X-Access-Token", t)).into_iter().collect();
    w.send_with_headers(actor, method, path, payload, &headers)
        .await?;
    offered::check(w, EXTENSION, COLLECTION).await
}

/// The owner's write under the contract (`suffix` after its address), with the contract token.
async fn write(
    w: &mut TenderWorld,
    method: Method,
    suffix: &str,
    data: Value,
) -> Result<(), String> {
    let token = noted_text(w, TOKEN)?;
    let path = format!("{}{suffix}", contract_path(w)?);
    let payload = Payload::Json(json!({ "data": data }));
    send(w, Actor::Owner, method, &path, Some(token), payload).await
}

/// The contract under management as anyone reads it.
async fn read_contract(w: &mut TenderWorld) -> Result<Value, String> {
    let path = contract_path(w)?;
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await?;
    cancellations::require(w, 200, "reading the contract under management")?;
    Ok(w.data().clone())
}

fn actor(who: &str) -> Actor {
    if who == "the owner" {
        Actor::Owner
    } else {
        Actor::Other
    }
}

fn same_instant(a: &Value, b: &Value) -> bool {
    match (
        a.as_str().and_then(timestamps::parse),
        b.as_str().and_then(timestamps::parse),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn ids(list: &Value) -> Vec<Value> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|x| x["id"].clone())
        .collect()
}

// ---- the hand-over ----

/// The tender's signed contract, as the tender last showed it.
fn signed_contract(w: &TenderWorld) -> Result<Value, String> {
    w.tender_field("/contracts")?
        .as_array()
        .and_then(|c| c.iter().rev().find(|c| c["status"] == "active").cloned())
        .ok_or_else(|| "the tender shows no signed contract".to_owned())
}

#[given("a bidder has won a tender and the owner has signed the contract")]
async fn won_and_signed(w: &mut TenderWorld) -> Result<(), String> {
    tenders::has_published(w).await?;
    periods::tender_period_starts(w).await?;
    bids::has_registered_active(w).await?;
    periods::award_stage(w).await?;
    awards::has_confirmed(w).await?;
    periods::stand_still_ends(w).await?;
    awards::signs(w).await?;
    cancellations::require(w, 200, "signing the contract")?;
    w.refresh_tender().await?;
    let status = w.tender_field("/status")?;
    if status != "complete" {
        return Err(format!(
            "after its contract was signed the tender is {status}, not complete"
        ));
    }
    let id = signed_contract(w)?["id"].clone();
    w.noted.insert(CONTRACT.into(), id);
    Ok(())
}

#[when("an anonymous client reads the contract under management")]
async fn reads(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let id = signed_contract(w)?["id"].clone();
    w.noted.insert(CONTRACT.into(), id);
    let path = contract_path(w)?;
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await
}

#[when(regex = r"^an anonymous client reads the contract of lot (\d+) under management$")]
async fn reads_of_lot(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let contract = lots::contract_of(w, n).await?;
    w.noted.insert(CONTRACT.into(), contract["id"].clone());
    let path = contract_path(w)?;
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await
}

#[then("the contract under management is the signed contract, with its tender's id and owner")]
async fn is_the_signed_contract(w: &mut TenderWorld) -> Result<(), String> {
    let shown = w.data().clone();
    let tender = w.tender()?.data.clone();
    let id = noted(w, CONTRACT)?;
    let signed = tender["contracts"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["id"] == id))
        .cloned()
        .ok_or_else(|| format!("the tender shows no contract {id}"))?;
    let mut wrong = Vec::new();
    for field in [
        "id",
        "awardID",
        "contractID",
        "contractNumber",
        "status",
        "suppliers",
    ] {
        if shown[field] != signed[field] {
            wrong.push(format!(
                "{field} is {}, the tender's contract shows {}",
                shown[field], signed[field]
            ));
        }
    }
    let (value, held) = (&shown["value"], &signed["value"]);
    if value["amount"].as_f64() != held["amount"].as_f64()
        || value["currency"] != held["currency"]
        || value["valueAddedTaxIncluded"] != held["valueAddedTaxIncluded"]
    {
        wrong.push(format!(
            "value is {value}, the tender's contract shows {held}"
        ));
    }
    if !same_instant(&shown["dateSigned"], &signed["dateSigned"]) {
        wrong.push(format!(
            "dateSigned is {}, the tender's contract shows {}",
            shown["dateSigned"], signed["dateSigned"]
        ));
    }
    if ids(&shown["items"]) != ids(&signed["items"]) {
        wrong.push(format!(
            "the items are {:?}, the tender's contract holds {:?}",
            ids(&shown["items"]),
            ids(&signed["items"])
        ));
    }
    let documents = ids(&shown["documents"]);
    for document in ids(&signed["documents"]) {
        if !documents.contains(&document) {
            wrong.push(format!("the document {document} was not handed over"));
        }
    }
    if shown["tender_id"] != tender["id"] {
        wrong.push(format!(
            "tender_id is {}, the tender is {}",
            shown["tender_id"], tender["id"]
        ));
    }
    if shown["owner"] != tender["owner"] {
        wrong.push(format!(
            "owner is {}, the tender's owner is {}",
            shown["owner"], tender["owner"]
        ));
    }
    let entity = |v: &Value| (v["name"].clone(), v["identifier"]["id"].clone());
    if entity(&shown["procuringEntity"]) != entity(&tender["procuringEntity"]) {
        wrong.push(format!(
            "procuringEntity is {}, the tender's is {}",
            short(&shown["procuringEntity"].to_string()),
            short(&tender["procuringEntity"].to_string())
        ));
    }
    ensure(wrong.is_empty(), || {
        format!(
            "the contract under management is not the signed contract: {}",
            wrong.join("; ")
        )
    })
}

#[then(regex = r"^the contract under management holds the items of lot (\d+)$")]
async fn holds_items_of_lot(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let lot = lots::lot_id(w, n)?;
    let expected: Vec<Value> = w
        .tender_field("/items")?
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["relatedLot"] == lot.as_str())
        .map(|i| i["id"].clone())
        .collect();
    let shown = ids(&w.data()["items"]);
    ensure(!expected.is_empty() && shown == expected, || {
        format!("the contract under management holds the items {shown:?}, lot {n} has {expected:?}")
    })
}

/// Upstream's brokers found a handed-over contract in the newest page of the listing.
#[then("the newest contracts listed show the contract with its contractID")]
async fn newest_listed(w: &mut TenderWorld) -> Result<(), String> {
    let id = noted(w, CONTRACT)?;
    let contract_id = w.data()["contractID"].clone();
    let path = format!("{COLLECTION}?descending=1&opt_fields=contractID&mode=_all_");
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await?;
    cancellations::require(w, 200, "listing the newest contracts")?;
    let row = w
        .data()
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["id"] == id));
    match row {
        Some(row) if row["contractID"] == contract_id => Ok(()),
        Some(row) => Err(format!(
            "the contract is listed with contractID {}, it shows {contract_id}",
            row["contractID"]
        )),
        None => Err(format!(
            "the newest contracts listed do not show {id}: {}",
            short(&w.data().to_string())
        )),
    }
}

// ---- credentials ----

/// Asks for new credentials of the contract with `token`; an answer's token becomes the
/// contract token and the one it replaces is kept as the token before.
async fn ask_credentials(w: &mut TenderWorld, actor: Actor, token: String) -> Result<(), String> {
    let path = format!("{}/credentials", contract_path(w)?);
    send(w, actor, Method::PATCH, &path, Some(token), Payload::None).await?;
    if w.status()? == 200
        && let Some(token) = w.body.pointer("/access/token").cloned()
        && let Some(before) = w.noted.insert(TOKEN.into(), token)
    {
        w.noted.insert(TOKEN_BEFORE.into(), before);
    }
    Ok(())
}

#[when(
    regex = r"^(the owner|another broker) asks for the contract's credentials with (the tender token|a wrong token)(?: again)?$"
)]
async fn asks_credentials(w: &mut TenderWorld, who: String, token: String) -> Result<(), String> {
    let token = if token == "the tender token" {
        w.tender_token()?
    } else {
        w.fakes.hex_id(32)
    };
    ask_credentials(w, actor(&who), token).await
}

#[given("the owner has taken the contract's credentials")]
async fn has_taken_credentials(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    ask_credentials(w, Actor::Owner, token).await?;
    cancellations::require(w, 200, "taking the contract's credentials")
}

#[then("the response carries a new contract token")]
async fn new_token(w: &mut TenderWorld) -> Result<(), String> {
    let token = w
        .body
        .pointer("/access/token")
        .cloned()
        .ok_or("the response carries no access.token")?;
    checks::hex_id(&token).map_err(|e| format!("the contract token: {e}"))?;
    match w.noted.get(TOKEN_BEFORE) {
        Some(before) if *before == token => Err(format!(
            "the new credentials repeat the token before, {token}"
        )),
        _ => Ok(()),
    }
}

#[when(
    regex = r"^(the owner|another broker) changes the contract's description with (the contract token|the tender token|the token before)$"
)]
async fn changes_description(
    w: &mut TenderWorld,
    who: String,
    token: String,
) -> Result<(), String> {
    let token = match token.as_str() {
        "the contract token" => noted_text(w, TOKEN)?,
        "the tender token" => w.tender_token()?,
        _ => noted_text(w, TOKEN_BEFORE)?,
    };
    let description = format!("Поставка згідно з додатковою угодою № {}", w.fakes.code(4));
    let path = contract_path(w)?;
    let payload = Payload::Json(json!({"data": {"description": description}}));
    send(w, actor(&who), Method::PATCH, &path, Some(token), payload).await?;
    if w.status()? == 200 {
        w.noted.insert(DESCRIPTION.into(), json!(description));
    }
    Ok(())
}

#[then("reading the contract shows the description last accepted")]
async fn shows_description(w: &mut TenderWorld) -> Result<(), String> {
    let expected = noted(w, DESCRIPTION)?;
    let shown = read_contract(w).await?["description"].clone();
    ensure(shown == expected, || {
        format!("the contract's description is {shown}, the last one accepted was {expected}")
    })
}

// ---- changes and their documents ----

fn change_body(w: &mut TenderWorld) -> Value {
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
    cancellations::require(w, 201, "recording a change of the contract")
}

fn change_id(w: &TenderWorld) -> Result<String, String> {
    Ok(checks::as_text(&noted(w, CHANGE)?["id"]))
}

#[when(regex = r"^the owner uploads (?:a|another) PDF document to the contract$")]
async fn uploads_document(w: &mut TenderWorld) -> Result<(), String> {
    let body = w.fakes.document();
    let token = noted_text(w, TOKEN)?;
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
    cancellations::require(w, 201, "uploading a document to the contract")
}

#[when(regex = r"^the owner binds the document to the (?:pending|applied) change$")]
async fn binds_document(w: &mut TenderWorld) -> Result<(), String> {
    let (document, change) = (noted_text(w, DOCUMENT)?, change_id(w)?);
    let data = json!({"documentOf": "change", "relatedItem": change});
    write(w, Method::PATCH, &format!("/documents/{document}"), data).await
}

#[when("the owner uploads a new version of the contract document")]
async fn uploads_version(w: &mut TenderWorld) -> Result<(), String> {
    let document = noted_text(w, DOCUMENT)?;
    let data = w.fakes.document()["data"].clone();
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
    let change = noted(w, CHANGE)?;
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
    let (change, document) = (noted(w, CHANGE)?, noted(w, DOCUMENT)?);
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

// ---- the whole contract sent back ----

/// A CPV code other than `code`, for a classification the broker may not change.
fn another_code(code: &Value) -> &'static str {
    if code == "44617100-9" {
        "30192700-8"
    } else {
        "44617100-9"
    }
}

/// As upstream's brokers edited a contract: read it whole, change some fields, send it all back.
#[when(
    "the owner sends the whole contract back with a new description, value and item quantity, and with another contractID, owner, dateSigned, change rationale and item classification"
)]
async fn sends_whole(w: &mut TenderWorld) -> Result<(), String> {
    let before = read_contract(w).await?;
    let mut whole = before.clone();
    let amount = before["value"]["amount"]
        .as_f64()
        .ok_or("the contract shows no value amount")?;
    let quantity = before["items"][0]["quantity"]
        .as_f64()
        .ok_or("the contract shows no item quantity")?;
    let signed = before["dateSigned"]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or("the contract shows no dateSigned")?;
    whole["description"] = json!(format!(
        "Поставка за договором зі змінами № {}",
        w.fakes.code(3)
    ));
    whole["value"]["amount"] = json!((amount * 0.9 * 100.0).round() / 100.0);
    whole["items"][0]["quantity"] = json!(quantity + 1.0);
    whole["contractID"] = json!(format!("{}-1", checks::as_text(&before["contractID"])));
    whole["owner"] = json!(w.target()?.other.name.clone());
    whole["dateSigned"] = json!(timestamps::format(signed - Duration::days(1)));
    whole["changes"][0]["rationale"] = json!("Змінено без додаткової угоди");
    let code = another_code(&before["items"][0]["classification"]["id"]);
    whole["items"][0]["classification"]["id"] = json!(code);
    w.noted
        .insert(WHOLE.into(), json!({"before": before, "sent": whole}));
    write(w, Method::PATCH, "", whole).await
}

#[then("reading the contract shows the new description, value and item quantity")]
async fn shows_new(w: &mut TenderWorld) -> Result<(), String> {
    let sent = noted(w, WHOLE)?["sent"].clone();
    let shown = read_contract(w).await?;
    let mut wrong = Vec::new();
    if shown["description"] != sent["description"] {
        wrong.push(format!(
            "description is {}, {} was sent",
            shown["description"], sent["description"]
        ));
    }
    for pointer in ["/value/amount", "/items/0/quantity"] {
        let (a, b) = (shown.pointer(pointer), sent.pointer(pointer));
        if a.and_then(Value::as_f64) != b.and_then(Value::as_f64) {
            wrong.push(format!("{pointer} is {a:?}, {b:?} was sent"));
        }
    }
    ensure(wrong.is_empty(), || wrong.join("; "))
}

#[then(
    "reading the contract shows its contractID, owner, dateSigned, changes and item classification as they were"
)]
async fn shows_kept(w: &mut TenderWorld) -> Result<(), String> {
    let before = noted(w, WHOLE)?["before"].clone();
    let shown = read_contract(w).await?;
    let mut wrong = Vec::new();
    for pointer in [
        "/id",
        "/awardID",
        "/contractID",
        "/contractNumber",
        "/owner",
        "/tender_id",
        "/suppliers",
        "/procuringEntity",
        "/changes",
        "/documents",
        "/items/0/classification",
        "/items/0/additionalClassifications",
    ] {
        if shown.pointer(pointer) != before.pointer(pointer) {
            wrong.push(format!(
                "{pointer} was {}, is now {}",
                before.pointer(pointer).unwrap_or(&Value::Null),
                shown.pointer(pointer).unwrap_or(&Value::Null)
            ));
        }
    }
    if !same_instant(&shown["dateSigned"], &before["dateSigned"]) {
        wrong.push(format!(
            "dateSigned was {}, is now {}",
            before["dateSigned"], shown["dateSigned"]
        ));
    }
    ensure(wrong.is_empty(), || {
        format!(
            "what the broker may not change changed: {}",
            wrong.join("; ")
        )
    })
}

// ---- payment and termination ----

#[when("the owner terminates the contract without an amount paid")]
async fn terminates_unpaid(w: &mut TenderWorld) -> Result<(), String> {
    write(w, Method::PATCH, "", json!({"status": "terminated"})).await
}

#[then(expr = "reading the contract shows status {string}")]
async fn shows_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let status = read_contract(w).await?["status"].clone();
    ensure(status == expected.as_str(), || {
        format!("the contract is {status}, expected {expected:?}")
    })
}

#[when(
    "the owner records an amount paid above the contract value, in another currency and with the other VAT flag"
)]
async fn records_paid(w: &mut TenderWorld) -> Result<(), String> {
    let value = read_contract(w).await?["value"].clone();
    let amount = value["amount"]
        .as_f64()
        .ok_or("the contract shows no value amount")?;
    let currency = if value["currency"] == "UAH" {
        "USD"
    } else {
        "UAH"
    };
    let vat = value["valueAddedTaxIncluded"] != Value::Bool(true);
    let paid =
        json!({"amount": amount + 100.0, "currency": currency, "valueAddedTaxIncluded": vat});
    w.noted.insert(PAID.into(), paid.clone());
    write(w, Method::PATCH, "", json!({"amountPaid": paid})).await
}

#[then("the amount paid is shown with the contract value's currency and VAT flag")]
async fn paid_shown(w: &mut TenderWorld) -> Result<(), String> {
    let sent = noted(w, PAID)?;
    let contract = read_contract(w).await?;
    let (paid, value) = (&contract["amountPaid"], &contract["value"]);
    if paid["amount"].as_f64() == sent["amount"].as_f64()
        && paid["currency"] == value["currency"]
        && paid["valueAddedTaxIncluded"] == value["valueAddedTaxIncluded"]
    {
        Ok(())
    } else {
        Err(format!(
            "amountPaid is {paid} (sent as {sent}); the contract value is {value}"
        ))
    }
}

#[when("the owner terminates the contract with its termination details")]
async fn terminates(w: &mut TenderWorld) -> Result<(), String> {
    let data = json!({"status": "terminated", "terminationDetails": "Зобов'язання виконано в повному обсязі"});
    write(w, Method::PATCH, "", data).await
}

#[given("the owner has terminated the contract, paid in full, in one request")]
async fn has_terminated(w: &mut TenderWorld) -> Result<(), String> {
    let value = read_contract(w).await?["value"].clone();
    let data = json!({
        "status": "terminated",
        "amountPaid": {"amount": value["amount"]},
        "terminationDetails": "Зобов'язання виконано в повному обсязі",
    });
    write(w, Method::PATCH, "", data).await?;
    cancellations::require(w, 200, "terminating the contract")
}

/// A write the owner tries on its contract.
async fn try_write(w: &mut TenderWorld, write_name: &str) -> Result<(), String> {
    let document = || noted_text(w, DOCUMENT);
    match write_name {
        "change the contract" => {
            let data = json!({"description": "Поставка після розірвання"});
            write(w, Method::PATCH, "", data).await
        }
        "make the contract active again" => {
            write(w, Method::PATCH, "", json!({"status": "active"})).await
        }
        "record a change" => {
            let data = change_body(w);
            write(w, Method::POST, "/changes", data).await
        }
        "upload a contract document" => {
            let data = w.fakes.document()["data"].clone();
            write(w, Method::POST, "/documents", data).await
        }
        "replace the contract document" => {
            let path = format!("/documents/{}", document()?);
            let data = w.fakes.document()["data"].clone();
            write(w, Method::PUT, &path, data).await
        }
        "describe the contract document" => {
            let path = format!("/documents/{}", document()?);
            write(
                w,
                Method::PATCH,
                &path,
                json!({"description": "Акт звірки"}),
            )
            .await
        }
        "take the contract's credentials" => {
            let token = w.tender_token()?;
            ask_credentials(w, Actor::Owner, token).await
        }
        other => Err(format!("harness: unknown write {other:?}")),
    }
}

#[then(
    "every write to the terminated contract is refused with upstream's message and reading back shows nothing changed:"
)]
async fn every_write_refused(w: &mut TenderWorld, step: &Step) -> Result<(), String> {
    let table = step
        .table
        .as_ref()
        .ok_or("harness: the step needs a table of writes and descriptions")?;
    let mut before = read_contract(w).await?;
    for row in table.rows.iter().skip(1) {
        let [write_name, description] = row.as_slice() else {
            return Err(format!("harness: a row needs two cells: {row:?}"));
        };
        try_write(w, write_name).await?;
        let status = w.status()?;
        if status != 403 {
            return Err(format!(
                "{write_name}: expected 403, got {status}: {}",
                short(&w.response()?.body)
            ));
        }
        checks::error_triple(
            &w.body,
            "body",
            "data",
            &Description::Exactly(description.clone()),
        )
        .map_err(|e| format!("{write_name}: {e}"))?;
        let after = read_contract(w).await?;
        if after != before {
            return Err(format!(
                "{write_name} was refused, yet the contract reads back changed: {}",
                short(&after.to_string())
            ));
        }
        before = after;
    }
    Ok(())
}
