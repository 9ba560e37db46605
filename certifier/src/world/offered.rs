//! Whether the target offers an extension, told from the scenario's last answer: a 404 on the
//! extension's collection, or upstream's `Rogue field` for one of its fields, fails the step
//! as "not offered" ([`NOT_OFFERED`]) instead of as a broken rule.
use reqwest::Method;

use crate::{
    target::offered::NOT_OFFERED,
    world::{Actor, Payload, TenderWorld},
};

/// After a request under an extension's `collection` answered 404: fails the step as "not
/// offered" when the collection itself is unknown to the target, and lets it stand otherwise.
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

/// After a write refused with 422: fails the step as "not offered" when the target does not
/// know `field` at all (upstream's `Rogue field` for it), as a target without lots answers a
/// tender sent with `lots`.
pub fn rogue_field(w: &TenderWorld, extension: &str, field: &str) -> Result<(), String> {
    if w.status()? != 422 {
        return Ok(());
    }
    let rogue = |e: &serde_json::Value| {
        e["name"] == field && crate::checks::as_text(&e["description"]).contains("Rogue field")
    };
    let unknown = w.body["errors"]
        .as_array()
        .is_some_and(|errors| errors.iter().any(rogue));
    if unknown {
        Err(format!(
            "{NOT_OFFERED}{extension}: a body with {field} answers 422 Rogue field"
        ))
    } else {
        Ok(())
    }
}
