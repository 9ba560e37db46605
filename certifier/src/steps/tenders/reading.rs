//! Reading a tender back: as its owner, as another broker, anonymously, one that does not
//! exist, and other methods sent to it.
use cucumber::when;
use reqwest::Method;

use crate::world::{Actor, Payload, TenderWorld};

#[when("the owner reads the tender to check its state")]
async fn owner_reads(w: &mut TenderWorld) -> Result<(), String> {
    let path = w.tender_path()?;
    w.read("reading the tender", Actor::Owner, &path).await?;
    w.adopt_tender();
    Ok(())
}

#[when(regex = r"^(an anonymous client|another broker) reads the tender( with opt_pretty=1)?$")]
async fn public_read(w: &mut TenderWorld, reader: String, pretty: String) -> Result<(), String> {
    let mut path = w.tender_path()?;
    if !pretty.is_empty() {
        path.push_str("?opt_pretty=1");
    }
    w.send(Actor::reader(&reader)?, Method::GET, &path, Payload::None)
        .await?;
    w.adopt_tender();
    Ok(())
}

#[when("an anonymous client reads a tender that does not exist")]
async fn reads_missing_tender(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.fakes.hex_id(32);
    w.send(
        Actor::Anonymous,
        Method::GET,
        &format!("/api/2.3/tenders/{id}"),
        Payload::None,
    )
    .await
}

#[when(expr = "an anonymous client sends {word} to the tender")]
async fn anonymous_sends_method(w: &mut TenderWorld, method: String) -> Result<(), String> {
    let method = Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
    let path = w.tender_path()?;
    w.send(Actor::Anonymous, method, &path, Payload::None).await
}
