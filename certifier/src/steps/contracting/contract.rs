//! The contract under management as a scenario knows it: what it notes, its address and the
//! requests under it.
use reqwest::Method;
use serde_json::{Value, json};

use super::super::common;

use crate::{
    exchange::timestamps,
    world::offered,
    world::{Actor, Payload, TenderWorld},
};

pub(super) const EXTENSION: &str = "contracting";
pub(super) const COLLECTION: &str = "/api/2.3/contracts";

// What a scenario keeps in `noted`.
pub(super) const CONTRACT: &str = "contract under management";
pub(super) const TOKEN: &str = "contract token";
pub(super) const TOKEN_BEFORE: &str = "contract token before";
pub(super) const CHANGE: &str = "change of the contract under management";
pub(super) const DOCUMENT: &str = "document of the contract under management";
pub(super) const DESCRIPTION: &str = "contract description last accepted";
pub(super) const WHOLE: &str = "whole contract sent back";
pub(super) const PAID: &str = "amount paid sent";

pub(super) fn contract_path(w: &TenderWorld) -> Result<String, String> {
    Ok(format!("{COLLECTION}/{}", w.recall_text(CONTRACT)?))
}

/// One request under the contracts, with `token` in `X-Access-Token` as upstream's client sent
/// it; a 404 on the collection itself means the target does not offer contract management.
pub(super) async fn send(
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
pub(super) async fn write(
    w: &mut TenderWorld,
    method: Method,
    suffix: &str,
    data: Value,
) -> Result<(), String> {
    let token = w.recall_text(TOKEN)?;
    let path = format!("{}{suffix}", contract_path(w)?);
    let payload = Payload::Json(json!({ "data": data }));
    send(w, Actor::Owner, method, &path, Some(token), payload).await
}

/// The contract under management as anyone reads it.
pub(super) async fn read_contract(w: &mut TenderWorld) -> Result<Value, String> {
    let path = contract_path(w)?;
    send(w, Actor::Anonymous, Method::GET, &path, None, Payload::None).await?;
    common::expect_status(w, "reading the contract under management", 200)?;
    Ok(w.data().clone())
}

pub(super) fn actor(who: &str) -> Actor {
    if who == "the owner" {
        Actor::Owner
    } else {
        Actor::Other
    }
}

pub(super) fn same_instant(a: &Value, b: &Value) -> bool {
    match (
        a.as_str().and_then(timestamps::parse),
        b.as_str().and_then(timestamps::parse),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

pub(super) fn ids(list: &Value) -> Vec<Value> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|x| x["id"].clone())
        .collect()
}
