//! Awards and contracts one lot at a time: the pending award, decisions, stand-stills,
//! contracts and their signing.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::super::{common, qualification};
use super::bids::offers;
use super::reading::{amount, lot_id};
use crate::{
    checks,
    checks::ensure,
    exchange::short,
    world::{Actor, TenderWorld},
};

fn awards_of(w: &TenderWorld, id: &str) -> Result<Vec<Value>, String> {
    Ok(w.tender_field("/awards")
        .ok()
        .and_then(|a| a.as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter(|a| a["lotID"] == id)
        .collect())
}

async fn pending_award_of(w: &mut TenderWorld, n: usize) -> Result<Value, String> {
    w.refresh_tender().await?;
    let id = lot_id(w, n)?;
    awards_of(w, &id)?
        .into_iter()
        .rev()
        .find(|a| a["status"] == "pending")
        .ok_or_else(|| format!("lot {n} has no pending award"))
}

#[then(regex = r"^the pending award of lot (\d+) is for its lowest bid$")]
async fn award_for_lowest(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let award = pending_award_of(w, n).await?;
    let id = lot_id(w, n)?;
    let lowest = offers(w, &id)
        .into_iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or_else(|| format!("harness: no bid on lot {n}"))?;
    if award["bid_id"] != lowest.0.as_str() {
        return Err(format!(
            "the pending award of lot {n} is for bid {}, the lowest offer is bid {}",
            award["bid_id"], lowest.0
        ));
    }
    if amount(&award["value"]) != Some(lowest.1) {
        return Err(format!(
            "the pending award of lot {n} is worth {}, the bid offered {} for the lot",
            award["value"], lowest.1
        ));
    }
    Ok(())
}

#[then(regex = r"^the tender has no (pending )?award for lot (\d+)$")]
async fn no_award(w: &mut TenderWorld, pending: String, n: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let id = lot_id(w, n)?;
    let found: Vec<Value> = awards_of(w, &id)?
        .into_iter()
        .filter(|a| pending.is_empty() || a["status"] == "pending")
        .collect();
    ensure(found.is_empty(), || {
        format!(
            "lot {n} has the {}award(s) {}",
            pending,
            short(&Value::from(found).to_string())
        )
    })
}

#[when(regex = r"^the owner (approves|disqualifies) the pending award of lot (\d+)$")]
async fn decides(w: &mut TenderWorld, verb: String, n: usize) -> Result<(), String> {
    let award = pending_award_of(w, n).await?;
    let status = if verb == "approves" {
        "active"
    } else {
        "unsuccessful"
    };
    qualification::decide(w, award, status, json!({})).await
}

#[given(regex = r"^the owner has approved the pending award of lot (\d+)$")]
async fn has_approved(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    decides(w, "approves".into(), n).await?;
    common::expect_status(w, "approving the award of a lot", 200)
}

/// Every decision's stand-still, the latest of the awards' complaint periods, is over.
#[given("the stand-still of every decision has ended")]
async fn every_stand_still(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let end = w
        .tender_field("/awards")?
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a.pointer("/complaintPeriod/endDate")?.as_str())
        .filter_map(crate::exchange::timestamps::parse)
        .max()
        .ok_or("no award of the tender has a complaintPeriod.endDate")?;
    w.pass_time_to(
        end + time::Duration::seconds(1),
        "the end of the decisions' stand-still periods",
    )
    .await
}

/// The contract of lot `n`: the contract of the lot's latest active award.
pub(crate) async fn contract_of(w: &mut TenderWorld, n: usize) -> Result<Value, String> {
    w.refresh_tender().await?;
    let id = lot_id(w, n)?;
    let award = awards_of(w, &id)?
        .into_iter()
        .rev()
        .find(|a| a["status"] == "active")
        .ok_or_else(|| format!("lot {n} has no active award"))?;
    w.tender_field("/contracts")?
        .as_array()
        .and_then(|c| {
            c.iter()
                .rev()
                .find(|c| c["awardID"] == award["id"])
                .cloned()
        })
        .ok_or_else(|| format!("the tender shows no contract of lot {n}'s award"))
}

#[then(regex = r"^the contract of lot (\d+) holds the items of lot (\d+)$")]
async fn contract_items(w: &mut TenderWorld, n: usize, m: usize) -> Result<(), String> {
    let contract = contract_of(w, n).await?;
    let id = lot_id(w, m)?;
    let ids = |items: &Value, only: Option<&str>| -> Vec<Value> {
        items
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| only.is_none_or(|lot| i["relatedLot"] == lot))
            .map(|i| i["id"].clone())
            .collect()
    };
    let expected = ids(&w.tender_field("/items")?, Some(&id));
    let shown = ids(&contract["items"], None);
    ensure(!expected.is_empty() && shown == expected, || {
        format!("the contract of lot {n} holds the items {shown:?}, lot {m} has {expected:?}")
    })
}

#[when(regex = r"^the owner signs the contract of lot (\d+)$")]
async fn signs(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let contract = contract_of(w, n).await?;
    let path = format!(
        "{}/contracts/{}?acc_token={}",
        w.tender_path()?,
        checks::as_text(&contract["id"]),
        w.tender_token()?
    );
    let data = json!({"status": "active"});
    w.send_data(Actor::Owner, Method::PATCH, &path, data).await
}
