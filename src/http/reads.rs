//! One way to serve a record's collection and its items, under a kept record (a tender, a
//! contract): `GET …/{things}` and `GET …/{things}/{thing_id}`, each read while the record is
//! held, with the envelope and `opt_pretty`; an unknown record is 404 on its own id's name.

use super::error::{ApiError, Handled};
use super::guard::Kept;
use super::{app, param, reply};
use crate::domain::Refusal;
use salvo::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;

/// A record as JSON.
pub fn json<T: Serialize>(value: &T) -> Json {
    serde_json::to_value(value).unwrap_or_default()
}

/// A collection as a JSON list.
pub fn all<T: Serialize>(values: &[T]) -> Json {
    Json::Array(values.iter().map(json).collect())
}

/// Serves what `pick` shows of the record the request names: a collection, or an item.
fn serve<K: Kept>(
    req: &Request,
    depot: &Depot,
    res: &mut Response,
    pick: impl FnOnce(&K) -> Result<Json, Refusal>,
) -> Handled {
    let app = app(depot)?;
    let shown =
        K::read(&app, &param(req, K::ID), pick).ok_or_else(|| ApiError::not_found(K::ID))??;
    reply::ok(req, res, shown);
    Ok(())
}

/// `GET …/{things}`: the collection `pick` shows.
pub fn list<K: Kept>(
    req: &Request,
    depot: &Depot,
    res: &mut Response,
    pick: impl FnOnce(&K) -> Result<Json, Refusal>,
) -> Handled {
    serve(req, depot, res, pick)
}

/// `GET …/{things}/{item}`: the item `pick` finds by the id in the path parameter `item`.
pub fn one<K: Kept>(
    req: &Request,
    depot: &Depot,
    res: &mut Response,
    item: &str,
    pick: impl FnOnce(&K, &str) -> Result<Json, Refusal>,
) -> Handled {
    let id = param(req, item);
    serve(req, depot, res, |record| pick(record, &id))
}
