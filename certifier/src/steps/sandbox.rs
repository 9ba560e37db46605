//! Upstream's sandbox modes of `submissionMethodDetails` (`@sandbox-modes`):
//! `quick(mode:no-auction)` skips the auction, `quick(mode:fast-forward)` settles it at once;
//! a target that does not take the field does not offer them.
use cucumber::{given, then};
use serde_json::{Value, json};

use super::tenders::{create, draft, publish, require_created};
use crate::{
    checks::{self, ensure},
    world::offered,
    world::{Actor, TenderWorld},
};

#[given(expr = "the owner has published a tender in upstream's sandbox mode {string}")]
async fn has_published_in_mode(w: &mut TenderWorld, mode: String) -> Result<(), String> {
    let mut body = draft(w.tender_body().await?);
    body["data"]["submissionMethodDetails"] = json!(mode);
    create(w, Actor::Owner, body).await?;
    offered::rogue_field(w, "sandbox modes", "submissionMethodDetails")?;
    require_created(w, "creating a tender in a sandbox mode")?;
    if w.data()["submissionMethodDetails"] != mode.as_str() {
        return Err(format!(
            "{}sandbox modes: a tender created with submissionMethodDetails {mode:?} shows {}",
            crate::target::offered::NOT_OFFERED,
            w.data()["submissionMethodDetails"]
        ));
    }
    publish(w).await?;
    super::common::expect_status(w, "publishing the draft", 200)
}

#[then("the tender has no auction URL")]
async fn no_auction_url(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    match w.tender_field("/auctionUrl") {
        Err(_) => Ok(()),
        Ok(url) => Err(format!("the tender shows auctionUrl {url}")),
    }
}

#[then("the auction period starts and ends when the tender period ends")]
async fn settled_at_tendering_end(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let end = w.tender_instant("/tenderPeriod/endDate")?;
    for field in ["startDate", "endDate"] {
        let shown = w.tender_instant(&format!("/auctionPeriod/{field}"))?;
        if shown != end {
            return Err(format!(
                "auctionPeriod.{field} is {}, the tender period ended at {}",
                crate::exchange::timestamps::format(shown),
                crate::exchange::timestamps::format(end)
            ));
        }
    }
    Ok(())
}

#[then("no bid shows a participation address")]
async fn no_participation(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let bids = w.tender_field("/bids")?;
    let with_one: Vec<&Value> = bids
        .as_array()
        .map(|b| {
            b.iter()
                .filter(|b| b.get("participationUrl").is_some())
                .collect()
        })
        .unwrap_or_default();
    ensure(with_one.is_empty(), || {
        format!(
            "bid {} shows participationUrl {}",
            with_one[0]["id"], with_one[0]["participationUrl"]
        )
    })
}

#[then("the auction's page answers")]
async fn page_answers(w: &mut TenderWorld) -> Result<(), String> {
    let url = checks::as_text(&w.tender_field("/auctionUrl")?);
    let target = w.target()?;
    let response = target
        .client
        .get(&url)
        .send()
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    match response.status().as_u16() {
        200 => Ok(()),
        status => Err(format!("GET {url} answers {status}")),
    }
}
