//! Extensions beyond the spec (`@qualification`, `@cancellations`, …) that a target may not
//! offer at all. A 404 on an extension's collection ends the scenario as "not offered" rather
//! than as a failure, and the report names the extension once instead of listing failures.
use reqwest::Method;

use crate::world::{Actor, Payload, TenderWorld};

/// A step failure with this prefix means "the target does not offer this extension": the run
/// reports the scenario as skipped, and the report lists the extension as not offered.
pub const NOT_OFFERED: &str = "[not offered] ";

/// After a write to an extension's `collection` answered 404: fails the step as "not offered"
/// when the collection itself is unknown to the target, and lets it stand otherwise.
pub async fn check(w: &mut TenderWorld, extension: &str, collection: &str) -> Result<(), String> {
    if w.status()? != 404 {
        return Ok(());
    }
    let last = w.last.clone();
    let body = w.body.clone();
    w.send(Actor::Anonymous, Method::GET, collection, Payload::None)
        .await?;
    let missing = w.status()? == 404;
    w.last = last;
    w.body = body;
    if missing {
        Err(format!(
            "{NOT_OFFERED}{extension}: GET {collection} answers 404"
        ))
    } else {
        Ok(())
    }
}

/// The extension named by a not-offered reason.
pub fn extension(reason: &str) -> Option<&str> {
    reason.strip_prefix(NOT_OFFERED)?.split(':').next()
}
