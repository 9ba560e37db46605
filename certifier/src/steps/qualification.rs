//! Award decisions beyond approval (disqualification, cancellation of an approval) and the
//! decision protocol: documents of an award. An upstream extension (`@qualification`).
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    checks::{self, ensure},
    world::offered,
    world::{Actor, Payload, TenderWorld},
};

/// The status an award is in, as a step names it.
fn status_named(adjective: &str) -> &'static str {
    match adjective {
        "approved" => "active",
        "disqualified" => "unsuccessful",
        "cancelled" => "cancelled",
        _ => "pending",
    }
}

/// The status a decision asks for.
fn decision(verb: &str) -> &'static str {
    match verb {
        "approves" => "active",
        "disqualifies" => "unsuccessful",
        _ => "cancelled",
    }
}

/// The latest award in `status`, read afresh from the tender.
pub(super) async fn award_in(w: &mut TenderWorld, status: &str) -> Result<Value, String> {
    w.refresh_tender().await?;
    let awards = w.tender_field("/awards")?;
    awards
        .as_array()
        .and_then(|a| a.iter().rev().find(|award| award["status"] == status))
        .cloned()
        .ok_or_else(|| format!("the tender has no {status} award"))
}

fn noted_award_id(w: &TenderWorld) -> Result<String, String> {
    Ok(checks::as_text(&w.recall("award")?["id"]))
}

pub(super) async fn decide(
    w: &mut TenderWorld,
    award: Value,
    status: &str,
    extra: Value,
) -> Result<(), String> {
    let mut data = json!({"status": status});
    if let (Some(d), Some(e)) = (data.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    let path = format!(
        "{}/awards/{}?acc_token={}",
        w.tender_path()?,
        checks::as_text(&award["id"]),
        w.tender_token()?
    );
    w.noted.insert("award".into(), award);
    w.send_data(Actor::Owner, Method::PATCH, &path, data).await
}

#[when(
    regex = r"^the owner (approves|disqualifies|cancels) the (pending|approved|disqualified) award$"
)]
async fn decides(w: &mut TenderWorld, verb: String, adjective: String) -> Result<(), String> {
    let award = award_in(w, status_named(&adjective)).await?;
    decide(w, award, decision(&verb), json!({})).await
}

#[given(regex = r"^the owner has (approved|disqualified|cancelled) the (pending|approved) award$")]
async fn has_decided(w: &mut TenderWorld, done: String, adjective: String) -> Result<(), String> {
    let award = award_in(w, status_named(&adjective)).await?;
    decide(w, award, status_named(&done), json!({})).await?;
    super::common::expect_status(w, "deciding the award", 200)
}

#[when("the owner approves the pending award stating it is qualified and eligible")]
async fn approves_qualified(w: &mut TenderWorld) -> Result<(), String> {
    let award = award_in(w, "pending").await?;
    let flags = json!({"qualified": true, "eligible": true});
    decide(w, award, "active", flags).await
}

#[when("the owner decides on an award that does not exist")]
async fn decides_unknown(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.fakes.hex_id(32);
    decide(w, json!({"id": id}), "active", json!({})).await
}

#[then("the Location header names the fresh pending award")]
async fn location_fresh(w: &mut TenderWorld) -> Result<(), String> {
    let response = w.response()?.clone();
    let fresh = award_in(w, "pending").await?;
    checks::location_names(&response, &checks::as_text(&fresh["id"]))?;
    let location = response.header("location").unwrap_or_default();
    ensure(location.contains("/awards/"), || {
        format!("Location {location:?} is not an award's address")
    })
}

#[then("the response has no Location header")]
async fn no_location(w: &mut TenderWorld) -> Result<(), String> {
    match w.response()?.header("location") {
        None => Ok(()),
        Some(l) => Err(format!("the response has a Location header: {l}")),
    }
}

#[then(expr = "the decided award shows status {string}")]
async fn decided_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let (award, _) = decided(w).await?;
    let id = checks::as_text(&award["id"]);
    ensure(award["status"] == expected.as_str(), || {
        format!("award {id} is {}, expected {expected:?}", award["status"])
    })
}

#[then(expr = "the contract of the decided award shows status {string}")]
async fn decided_contract(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let id = noted_award_id(w)?;
    w.refresh_tender().await?;
    let contracts = w.tender_field("/contracts")?;
    let contract = contracts
        .as_array()
        .and_then(|c| c.iter().find(|x| x["awardID"] == id.as_str()))
        .ok_or_else(|| format!("the tender shows no contract of award {id}"))?;
    ensure(contract["status"] == expected.as_str(), || {
        format!(
            "the contract of award {id} is {}, expected {expected:?}",
            contract["status"]
        )
    })
}

/// The decided award as the tender shows it now, with the tender's awards.
async fn decided(w: &mut TenderWorld) -> Result<(Value, Vec<Value>), String> {
    let id = noted_award_id(w)?;
    w.refresh_tender().await?;
    let awards = w
        .tender_field("/awards")?
        .as_array()
        .cloned()
        .unwrap_or_default();
    let award = awards
        .iter()
        .find(|x| x["id"] == id.as_str())
        .cloned()
        .ok_or_else(|| format!("the tender no longer shows award {id}"))?;
    Ok((award, awards))
}

#[then(expr = "every later award of the decided award's lot shows status {string}")]
async fn later_awards(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let (award, awards) = decided(w).await?;
    let at = awards
        .iter()
        .position(|a| a["id"] == award["id"])
        .unwrap_or_default();
    let later: Vec<&Value> = awards[at + 1..]
        .iter()
        .filter(|a| a.get("lotID") == award.get("lotID") && a["status"] != "pending")
        .collect();
    if later.is_empty() {
        return Err("harness: the decided award has no later decided award".into());
    }
    match later.iter().find(|a| a["status"] != expected.as_str()) {
        None => Ok(()),
        Some(a) => Err(format!(
            "award {} after the decided one is {}, expected {expected:?}",
            a["id"], a["status"]
        )),
    }
}

#[then("the fresh pending award is for the decided award's bid")]
async fn fresh_for_same_bid(w: &mut TenderWorld) -> Result<(), String> {
    let (award, _) = decided(w).await?;
    let fresh = award_in(w, "pending").await?;
    ensure(fresh["bid_id"] == award["bid_id"], || {
        format!(
            "the fresh pending award is for bid {}, expected {} (only disqualifications exclude a bid)",
            fresh["bid_id"], award["bid_id"]
        )
    })
}

/// Uploads a decision protocol to `award`; a 404 on the collection means the target does not
/// offer award documents at all.
async fn upload_protocol(
    w: &mut TenderWorld,
    actor: Actor,
    award: &str,
    token: &str,
    body: Value,
) -> Result<(), String> {
    let collection = format!("{}/awards/{award}/documents", w.tender_path()?);
    let path = format!("{collection}?acc_token={token}");
    w.send(actor, Method::POST, &path, Payload::Json(body))
        .await?;
    offered::check(w, "award documents", &collection).await
}

#[when(regex = r"^the owner uploads a decision protocol to the (pending|decided) award$")]
async fn uploads_protocol(w: &mut TenderWorld, which: String) -> Result<(), String> {
    let award = if which == "pending" {
        checks::as_text(&award_in(w, "pending").await?["id"])
    } else {
        noted_award_id(w)?
    };
    let (token, body) = (w.tender_token()?, w.document_body().await?);
    upload_protocol(w, Actor::Owner, &award, &token, body).await
}

#[given("the owner has uploaded a decision protocol to the pending award")]
async fn has_uploaded_protocol(w: &mut TenderWorld) -> Result<(), String> {
    uploads_protocol(w, "pending".into()).await?;
    super::common::expect_status(w, "uploading a decision protocol", 201)
}

#[when("the bidder uploads a decision protocol to the pending award with its bid token")]
async fn bidder_uploads_protocol(w: &mut TenderWorld) -> Result<(), String> {
    let award = checks::as_text(&award_in(w, "pending").await?["id"]);
    let token = w.bid(0)?.token.clone().ok_or("the bid has no token")?;
    let body = w.document_body().await?;
    upload_protocol(w, Actor::Other, &award, &token, body).await
}

#[when(expr = "the owner uploads a decision protocol whose hash is {string}")]
async fn uploads_bad_protocol(w: &mut TenderWorld, hash: String) -> Result<(), String> {
    let award = checks::as_text(&award_in(w, "pending").await?["id"]);
    let mut body = w.document_body().await?;
    body["data"]["hash"] = json!(hash);
    let token = w.tender_token()?;
    upload_protocol(w, Actor::Owner, &award, &token, body).await
}

#[when(regex = r"^the owner uploads a PDF document to the (pending|cancelled) contract$")]
async fn uploads_contract_document(w: &mut TenderWorld, status: String) -> Result<(), String> {
    w.refresh_tender().await?;
    let contracts = w.tender_field("/contracts")?;
    let contract = contracts
        .as_array()
        .and_then(|c| c.iter().rev().find(|x| x["status"] == status.as_str()))
        .map(|c| checks::as_text(&c["id"]))
        .ok_or_else(|| format!("the tender shows no {status} contract"))?;
    let contract = format!("{}/contracts/{contract}", w.tender_path()?);
    super::documents::owner_uploads_pdf_to(w, &contract).await
}

#[given("the stand-still of the last decision has ended")]
async fn last_stand_still_ends(w: &mut TenderWorld) -> Result<(), String> {
    let missing = "the last award has no complaintPeriod.endDate";
    let after = super::periods::after_stand_still(w, <[Value]>::last, missing).await?;
    w.reach(
        after,
        "the end of the last decision's stand-still period",
        |t: &Value| t["status"] != "active.awarded",
    )
    .await
}
