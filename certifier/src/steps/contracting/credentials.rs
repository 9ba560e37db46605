//! The contract's credentials: taken with the tender token, and the token they give.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::json;

use super::super::common;
use super::contract::*;
use crate::{
    checks::ensure,
    checks::{self},
    world::{Actor, Payload, TenderWorld},
};

/// Asks for new credentials of the contract with `token`; an answer's token becomes the
/// contract token and the one it replaces is kept as the token before.
pub(super) async fn ask_credentials(
    w: &mut TenderWorld,
    actor: Actor,
    token: String,
) -> Result<(), String> {
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
    common::expect_status(w, "taking the contract's credentials", 200)
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
        "the contract token" => w.recall_text(TOKEN)?,
        "the tender token" => w.tender_token()?,
        _ => w.recall_text(TOKEN_BEFORE)?,
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
    let expected = w.recall(DESCRIPTION)?;
    let shown = read_contract(w).await?["description"].clone();
    ensure(shown == expected, || {
        format!("the contract's description is {shown}, the last one accepted was {expected}")
    })
}
