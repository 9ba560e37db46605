//! Publishing a draft tender, and a tender published as the opening of a scenario.
use cucumber::{given, when};
use reqwest::Method;
use serde_json::json;

use super::creating::has_created_draft;
use crate::world::{Actor, TenderWorld};

pub(crate) async fn publish(w: &mut TenderWorld) -> Result<(), String> {
    w.remember_tender();
    let path = w.tender_path_with_token()?;
    let data = json!({"status": "active.enquiries"});
    w.send_data(Actor::Owner, Method::PATCH, &path, data)
        .await?;
    w.adopt_tender();
    if w.status()? == 200 {
        w.noted
            .insert("publication date".into(), w.data()["date"].clone());
    }
    Ok(())
}

#[when(regex = r"^the owner publishes the (?:draft tender|tender again)$")]
async fn publishes(w: &mut TenderWorld) -> Result<(), String> {
    publish(w).await
}

#[given("the owner has published a tender")]
pub(crate) async fn has_published(w: &mut TenderWorld) -> Result<(), String> {
    has_created_draft(w).await?;
    publish(w).await?;
    super::super::common::expect_status(w, "publishing the draft", 200)
}

/// The response is deliberately not looked at: the outcome is to be checked by reading.
#[when("the owner publishes the draft tender and loses the response")]
async fn publishes_and_loses(w: &mut TenderWorld) -> Result<(), String> {
    let path = w.tender_path_with_token()?;
    let data = json!({"status": "active.enquiries"});
    w.send_data(Actor::Owner, Method::PATCH, &path, data).await
}
