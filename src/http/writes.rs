//! One way to write a record's collection and its items under a kept record (a tender, a
//! contract): `POST …/{things}`, answered 201 with the new item's `Location`, and
//! `PATCH …/{things}/{thing_id}`, each after the checks every write shares, the change made
//! by the store on a copy.

use super::auth::Broker;
use super::error::Handled;
use super::guard::{self, Kept};
use super::{app, param, reply};
pub use crate::domain::parse::Sent;
use crate::domain::{Change, Refusal};
use salvo::prelude::*;
use serde_json::Value as Json;

/// Who may write: the record, the request's broker and the token it presents.
pub type Allowed<K> = fn(&K, Option<&Broker>, Option<&str>) -> bool;

/// `POST …/{things}`: `op` adds an item and answers its id; `view` shows it by that id.
pub async fn add<K: Kept>(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    things: &str,
    allowed: Allowed<K>,
    op: impl FnOnce(&mut K, &Sent<'_>) -> Result<String, Refusal> + Send,
    view: impl FnOnce(&K, &str) -> Result<Json, Refusal> + Send,
) -> Handled {
    let app = app(depot)?;
    let id = param(req, K::ID);
    let body = guard::write_in(req, &app, &id, |_: &K| Ok(()), allowed).await?;
    let (data, cx) = (body.data()?, app.cx());
    let new_id = std::sync::OnceLock::new();
    let shown = K::update(
        &app,
        &id,
        |record, now| {
            let sent = Sent { data, cx: &cx, now };
            let _ = new_id.set(op(record, &sent)?);
            Ok(Change::Public)
        },
        |record| view(record, new_id.get().map_or("", String::as_str)),
    )
    .await??;
    let new_id = new_id.get().map_or("", String::as_str);
    let location = format!("{}/{}/{id}/{things}/{new_id}", app.api_root(req), K::PATH);
    reply::created(req, res, &location, shown, None);
    Ok(())
}

/// `PATCH …/{things}/{item}`: `op` changes the item the path parameter `item` names;
/// `view` shows it (and, before the body is read, tells that it exists).
pub async fn change<K: Kept>(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
    item: &str,
    allowed: Allowed<K>,
    op: impl FnOnce(&mut K, &str, &Sent<'_>) -> Result<Change, Refusal> + Send,
    view: impl Fn(&K, &str) -> Result<Json, Refusal> + Send + Sync,
) -> Handled {
    let app = app(depot)?;
    let (id, item_id) = (param(req, K::ID), param(req, item));
    let exists = |record: &K| view(record, &item_id).map(|_| ());
    let body = guard::write_in(req, &app, &id, exists, allowed).await?;
    let (data, cx) = (body.data()?, app.cx());
    let shown = K::update(
        &app,
        &id,
        |record, now| op(record, &item_id, &Sent { data, cx: &cx, now }),
        |record| view(record, &item_id),
    )
    .await??;
    reply::ok(req, res, shown);
    Ok(())
}
