//! Claims on the tender and on awards: filed by a participant with a token of its own (an
//! award claim with the bid's token), answered by the owner, settled by the claimant or by
//! the stand-still, cancelled; an upstream extension (`@claims`).
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    checks,
    exchange::short,
    target::BUDGET_SKIP,
    target::ClockMode,
    world::offered,
    world::{Actor, Payload, TenderWorld},
};

const RESOLUTION: &str = "Умови тендеру буде змінено найближчим часом";

/// The claims the scenario filed, in order: `{"path": …, "token": …}`.
fn filed(w: &TenderWorld) -> Vec<Value> {
    w.noted
        .get("claims")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The address and the claimant's token of the first or the last claim.
fn claim(w: &TenderWorld, which: &str) -> Result<(String, String), String> {
    let all = filed(w);
    let one = if which == "first" {
        all.first()
    } else {
        all.last()
    };
    let one = one.ok_or("harness: the scenario has no claim yet")?;
    Ok((
        checks::as_text(&one["path"]),
        checks::as_text(&one["token"]),
    ))
}

fn claim_body(w: &mut TenderWorld, status: &str) -> Value {
    // An interested party, as the question bodies make them.
    let question = w.fakes.question();
    let author = question
        .pointer("/data/author")
        .or_else(|| question.get("author"))
        .cloned()
        .unwrap_or(Value::Null);
    json!({
        "title": "Недискримінаційні умови",
        "description": "Просимо змінити умови закупівлі",
        "author": author,
        "status": status,
    })
}

/// The claims collection of the tender, or of its award (the pending or else the last one).
async fn collection(w: &mut TenderWorld, on: &str) -> Result<String, String> {
    let tender = w.tender_path()?;
    if on == "tender" {
        return Ok(format!("{tender}/complaints"));
    }
    w.refresh_tender().await?;
    let awards = w.tender_field("/awards")?;
    let award = if on == "disqualified award" {
        awards
            .as_array()
            .and_then(|a| a.iter().rev().find(|x| x["status"] == "unsuccessful"))
            .map(|a| checks::as_text(&a["id"]))
            .ok_or("the tender has no disqualified award")?
    } else {
        awards
            .as_array()
            .and_then(|a| {
                a.iter()
                    .find(|x| x["status"] == "pending")
                    .or_else(|| a.iter().find(|x| x["status"] == "active"))
            })
            .map(|a| checks::as_text(&a["id"]))
            .ok_or("the tender has no pending or active award")?
    };
    Ok(format!("{tender}/awards/{award}/complaints"))
}

/// Files a claim as the other broker, with `token` where one is presented and on `lot` where
/// one is named; keeps its address and token when it was created.
pub(super) async fn file(
    w: &mut TenderWorld,
    on: &str,
    token: Option<String>,
    status: &str,
    lot: Option<String>,
) -> Result<(), String> {
    let collection = collection(w, on).await?;
    let path = match &token {
        Some(t) => format!("{collection}?acc_token={t}"),
        None => collection.clone(),
    };
    let mut data = claim_body(w, status);
    if let Some(lot) = lot {
        data["relatedLot"] = json!(lot);
    }
    w.send_data(Actor::Other, Method::POST, &path, data).await?;
    offered::check(w, "claims", &collection).await?;
    if w.status()? == 201 {
        let mut all = filed(w);
        let id = checks::as_text(&w.data()["id"]);
        let token = w
            .body
            .pointer("/access/token")
            .map(checks::as_text)
            .unwrap_or_default();
        all.push(json!({"path": format!("{collection}/{id}"), "token": token}));
        w.noted.insert("claims".into(), json!(all));
    }
    Ok(())
}

fn bid_token(w: &TenderWorld) -> Result<String, String> {
    w.bid(0)?
        .token
        .clone()
        .ok_or_else(|| "the bid has no token".into())
}

#[when(regex = r"^a participant (files a draft|submits a) claim on the tender$")]
async fn files_on_tender(w: &mut TenderWorld, how: String) -> Result<(), String> {
    let status = if how.starts_with("files") {
        "draft"
    } else {
        "claim"
    };
    file(w, "tender", None, status, None).await
}

#[given(regex = r"^a participant has (filed a draft|submitted a) claim on the tender$")]
async fn has_filed_on_tender(w: &mut TenderWorld, how: String) -> Result<(), String> {
    let status = if how.starts_with("filed") {
        "draft"
    } else {
        "claim"
    };
    file(w, "tender", None, status, None).await?;
    super::common::expect_status(w, "filing a claim on the tender", 201)
}

#[when("the bidder submits a claim on the award with its bid token")]
async fn files_on_award(w: &mut TenderWorld) -> Result<(), String> {
    let token = bid_token(w)?;
    file(w, "award", Some(token), "claim", None).await
}

#[given("the bidder has submitted a claim on the award with its bid token")]
async fn has_filed_on_award(w: &mut TenderWorld) -> Result<(), String> {
    files_on_award(w).await?;
    super::common::expect_status(w, "filing a claim on the award", 201)
}

/// The token of the bid whose award was disqualified last.
async fn disqualified_bid_token(w: &mut TenderWorld) -> Result<String, String> {
    w.refresh_tender().await?;
    let awards = w.tender_field("/awards")?;
    let bid = awards
        .as_array()
        .and_then(|a| a.iter().rev().find(|x| x["status"] == "unsuccessful"))
        .map(|a| checks::as_text(&a["bid_id"]))
        .ok_or("the tender has no disqualified award")?;
    w.bids
        .iter()
        .find(|b| b.id == bid)
        .and_then(|b| b.token.clone())
        .ok_or_else(|| format!("harness: bid {bid} is not one of the scenario's"))
}

#[given("the disqualified bidder has submitted a claim on its award with its bid token")]
async fn has_filed_on_disqualification(w: &mut TenderWorld) -> Result<(), String> {
    let token = disqualified_bid_token(w).await?;
    file(w, "disqualified award", Some(token), "claim", None).await?;
    super::common::expect_status(w, "filing a claim on the disqualified award", 201)
}

#[when("a participant submits a claim on the award without a token")]
async fn files_on_award_anonymously(w: &mut TenderWorld) -> Result<(), String> {
    file(w, "award", None, "claim", None).await
}

/// A PATCH of the first or last claim by `actor` with `token`.
async fn change(
    w: &mut TenderWorld,
    which: &str,
    actor: Actor,
    token: &str,
    data: Value,
) -> Result<(), String> {
    let (path, _) = claim(w, which)?;
    let path = format!("{path}?acc_token={token}");
    w.send_data(actor, Method::PATCH, &path, data).await
}

/// A PATCH of the last claim by its claimant, sending the claim's id back as brokers do.
async fn by_claimant(w: &mut TenderWorld, mut data: Value) -> Result<(), String> {
    let (path, token) = claim(w, "last")?;
    if let Some(id) = path.rsplit('/').next() {
        data["id"] = json!(id);
    }
    change(w, "last", Actor::Other, &token, data).await
}

async fn by_owner(w: &mut TenderWorld, data: Value) -> Result<(), String> {
    let token = w.tender_token()?;
    change(w, "last", Actor::Owner, &token, data).await
}

#[when("the claimant submits the draft claim")]
async fn submits_draft(w: &mut TenderWorld) -> Result<(), String> {
    by_claimant(w, json!({"status": "claim"})).await
}

#[when(regex = r"^the owner answers the claim as (resolved|declined|invalid)$")]
async fn answers(w: &mut TenderWorld, kind: String) -> Result<(), String> {
    by_owner(
        w,
        json!({"status": "answered", "resolutionType": kind, "resolution": RESOLUTION, "tendererAction": "Умови змінено"}),
    )
    .await
}

#[given(regex = r"^the owner has answered the claim as (resolved|declined|invalid)$")]
async fn has_answered(w: &mut TenderWorld, kind: String) -> Result<(), String> {
    answers(w, kind).await?;
    super::common::expect_status(w, "answering the claim", 200)
}

#[when("the owner answers the claim with a resolution shorter than 20 characters")]
async fn answers_short(w: &mut TenderWorld) -> Result<(), String> {
    by_owner(
        w,
        json!({"status": "answered", "resolutionType": "resolved", "resolution": "Змінимо"}),
    )
    .await
}

#[when("the owner answers the claim without a resolution type")]
async fn answers_untyped(w: &mut TenderWorld) -> Result<(), String> {
    by_owner(w, json!({"status": "answered", "resolution": RESOLUTION})).await
}

#[when("the owner cancels the claim")]
async fn owner_cancels(w: &mut TenderWorld) -> Result<(), String> {
    by_owner(
        w,
        json!({"status": "cancelled", "cancellationReason": "Не потрібно"}),
    )
    .await
}

#[when("the claimant accepts the answer as satisfied")]
async fn accepts(w: &mut TenderWorld) -> Result<(), String> {
    by_claimant(w, json!({"status": "resolved", "satisfied": true})).await
}

#[when("the claimant states it is not satisfied")]
async fn not_satisfied(w: &mut TenderWorld) -> Result<(), String> {
    by_claimant(w, json!({"satisfied": false})).await
}

#[when("the claimant cancels the claim")]
async fn cancels(w: &mut TenderWorld) -> Result<(), String> {
    by_claimant(
        w,
        json!({"status": "cancelled", "cancellationReason": "Умови змінено"}),
    )
    .await
}

#[when("the claimant cancels the claim without a reason")]
async fn cancels_without_reason(w: &mut TenderWorld) -> Result<(), String> {
    by_claimant(w, json!({"status": "cancelled"})).await
}

#[when("the claimant edits the submitted claim")]
async fn edits_submitted(w: &mut TenderWorld) -> Result<(), String> {
    by_claimant(w, json!({"title": "Інша назва"})).await
}

#[when("the claimant's broker changes the claim with the tender's token")]
async fn wrong_token(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    change(
        w,
        "last",
        Actor::Other,
        &token,
        json!({"status": "cancelled", "cancellationReason": "x"}),
    )
    .await
}

#[when("an anonymous client reads a claim that does not exist")]
async fn reads_unknown(w: &mut TenderWorld) -> Result<(), String> {
    let collection = format!("{}/complaints", w.tender_path()?);
    let path = format!("{collection}/{}", w.fakes.hex_id(32));
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    offered::check(w, "claims", &collection).await
}

#[when(regex = r"^an anonymous client reads the (first|last) claim$")]
async fn reads(w: &mut TenderWorld, which: String) -> Result<(), String> {
    let (path, _) = claim(w, &which)?;
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    offered::check(w, "claims", collection_of(&path)).await
}

/// The collection a claim's address lies in.
fn collection_of(claim: &str) -> &str {
    claim
        .rsplit_once('/')
        .map_or(claim, |(collection, _)| collection)
}

async fn status_of(w: &mut TenderWorld, which: &str) -> Result<Value, String> {
    let (path, _) = claim(w, which)?;
    let (last, body) = (w.last.clone(), w.body.clone());
    w.send(Actor::Anonymous, Method::GET, &path, Payload::None)
        .await?;
    super::common::expect_status(w, "reading the claim", 200)?;
    let status = w.data()["status"].clone();
    (w.last, w.body) = (last, body);
    Ok(status)
}

#[then(regex = r#"^the (first|last) claim shows status "([a-z]+)"$"#)]
async fn shows_status(w: &mut TenderWorld, which: String, status: String) -> Result<(), String> {
    match status_of(w, &which).await? {
        s if s == status.as_str() => Ok(()),
        s => Err(format!("the {which} claim is {s}, not {status}")),
    }
}

/// Lets time pass to each `next_check` of the tender until the last claim leaves `answered`.
#[when("the stand-still of the answer passes")]
async fn answer_stand_still(w: &mut TenderWorld) -> Result<(), String> {
    for _ in 0..6 {
        if status_of(w, "last").await? != "answered" {
            return Ok(());
        }
        w.refresh_tender().await?;
        let Ok(due) = w.tender_instant("/next_check") else {
            return Err(no_next_check(w)?);
        };
        w.pass_time_to(
            due + time::Duration::seconds(1),
            "the end of the answer's stand-still",
        )
        .await?;
    }
    Err("the claim is still answered after six checks of the tender".into())
}

/// An answered claim waits, but the tender announces nothing more. With time moved through the
/// clock control API that is the target's fault; in real time the tender's periods were made
/// seconds long to be waited for, so it may have ended before a stand-still of days could pass.
fn no_next_check(w: &TenderWorld) -> Result<String, String> {
    let status = w.tender_field("/status")?;
    if w.target()?.clock == ClockMode::RealTime {
        Ok(format!(
            "{BUDGET_SKIP}the stand-still of the answer: the tender is {status} with the claim \
             still answered; its periods were seconds long, to be waited for in real time, and \
             the stand-still did not end within them"
        ))
    } else {
        Ok(format!(
            "an answered claim is waiting but the tender ({status}) has no next_check"
        ))
    }
}

#[then(regex = r"^the claim's author is (hidden|shown)$")]
async fn author_visibility(w: &mut TenderWorld, how: String) -> Result<(), String> {
    let shown = w.data().get("author").is_some_and(|a| !a.is_null());
    match (how.as_str(), shown) {
        ("hidden", false) | ("shown", true) => Ok(()),
        _ => Err(format!(
            "the author should be {how}: {}",
            short(&w.response()?.body)
        )),
    }
}

#[when(regex = r"^the (claimant|owner) uploads a PDF document to the claim$")]
async fn uploads(w: &mut TenderWorld, who: String) -> Result<(), String> {
    let (path, claimant_token) = claim(w, "last")?;
    let (actor, token) = if who == "owner" {
        (Actor::Owner, w.tender_token()?)
    } else {
        (Actor::Other, claimant_token)
    };
    let documents = format!("{path}/documents");
    let body = w.document_body().await?;
    w.send(
        actor,
        Method::POST,
        &format!("{documents}?acc_token={token}"),
        Payload::Json(body),
    )
    .await?;
    offered::check(w, "claim documents", &documents).await
}
