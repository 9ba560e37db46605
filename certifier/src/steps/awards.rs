//! The auction stage, the award decision and the contract.
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;

use crate::{
    checks::{self, ensure},
    exchange::timestamps,
    world::{Actor, TenderWorld},
};

#[then("the tender has an auction period and an auction URL")]
async fn auction_shown(w: &mut TenderWorld) -> Result<(), String> {
    // The auction address may be published a moment after the status changes.
    let now = w.now().await?;
    w.reach(now, "the auction URL to appear", |t: &Value| {
        t["auctionUrl"].is_string()
    })
    .await?;
    w.tender_instant("/auctionPeriod/startDate")?;
    let url = checks::as_text(&w.tender_field("/auctionUrl")?);
    reqwest::Url::parse(&url).map_err(|e| format!("auctionUrl {url:?} is not a URL: {e}"))?;
    Ok(())
}

fn awards(w: &TenderWorld) -> Result<Vec<Value>, String> {
    Ok(w.tender_field("/awards")?
        .as_array()
        .cloned()
        .unwrap_or_default())
}

fn pending_award(w: &TenderWorld) -> Result<Value, String> {
    awards(w)?
        .into_iter()
        .find(|a| a["status"] == "pending")
        .ok_or_else(|| "the tender has no pending award".to_owned())
}

/// The award the owner decides: a pending one (upstream's), else any not decided yet, since the
/// spec does not state an award's status before it is confirmed.
pub(super) fn award_to_decide(w: &TenderWorld) -> Result<Value, String> {
    let all = awards(w)?;
    all.iter()
        .find(|a| a["status"] == "pending")
        .or_else(|| {
            all.iter().find(|a| {
                !matches!(
                    a["status"].as_str(),
                    Some("active" | "cancelled" | "unsuccessful")
                )
            })
        })
        .cloned()
        .ok_or_else(|| "the tender has no award to decide".to_owned())
}

#[then(regex = r"^the tender has a pending award for the (bid|lowest bid)$")]
async fn pending_award_for(w: &mut TenderWorld, which: String) -> Result<(), String> {
    let award = pending_award(w)?;
    let expected = if which == "bid" {
        w.bid(0)?.id.clone()
    } else {
        w.bids
            .iter()
            .min_by(|a, b| {
                let amount = |r: &crate::world::Record| {
                    r.sent["data"]["value"]["amount"]
                        .as_f64()
                        .unwrap_or(f64::MAX)
                };
                amount(a).total_cmp(&amount(b))
            })
            .map(|b| b.id.clone())
            .ok_or("harness: no bids")?
    };
    ensure(award["bid_id"] == expected.as_str(), || {
        format!(
            "the pending award is for bid {}, expected {expected}",
            award["bid_id"]
        )
    })
}

async fn confirm_award(w: &mut TenderWorld, actor: Actor, token: String) -> Result<(), String> {
    w.refresh_tender().await?;
    let award = award_to_decide(w)?;
    let path = format!(
        "{}/awards/{}?acc_token={token}",
        w.tender_path()?,
        checks::as_text(&award["id"])
    );
    w.noted.insert("award".into(), award);
    w.send_data(actor, Method::PATCH, &path, json!({"status": "active"}))
        .await
}

#[when("the owner confirms the award")]
async fn confirms(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.tender_token()?;
    confirm_award(w, Actor::Owner, token).await
}

#[given("the owner has confirmed the award")]
pub(super) async fn has_confirmed(w: &mut TenderWorld) -> Result<(), String> {
    confirms(w).await?;
    super::common::expect_status(w, "confirming the award", 200)
}

#[when("the bidder confirms the award with its bid token")]
async fn bidder_confirms(w: &mut TenderWorld) -> Result<(), String> {
    let token = w.bid(0)?.token.clone().ok_or("the bid has no token")?;
    confirm_award(w, Actor::Other, token).await
}

#[then("the award has a complaint period")]
async fn complaint_period(w: &mut TenderWorld) -> Result<(), String> {
    let period = &w.data()["complaintPeriod"];
    let start = period["startDate"].as_str().and_then(timestamps::parse);
    let end = period["endDate"].as_str().and_then(timestamps::parse);
    ensure(start.is_some() || end.is_some(), || {
        format!("the award's complaintPeriod is {period}")
    })
}

fn contract(w: &TenderWorld) -> Result<Value, String> {
    w.tender_field("/contracts")?
        .as_array()
        .and_then(|c| c.last().cloned())
        .ok_or_else(|| "the tender shows no contract".to_owned())
}

#[then(expr = "the tender shows a contract in status {string}")]
async fn contract_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let contract = contract(w)?;
    ensure(contract["status"] == expected.as_str(), || {
        format!(
            "the contract status is {}, expected {expected:?}",
            contract["status"]
        )
    })
}

#[then("the contract ID is the tenderID followed by a sequence number")]
async fn contract_id(w: &mut TenderWorld) -> Result<(), String> {
    let tender_id = checks::as_text(&w.tender_field("/tenderID")?);
    let contract_id = checks::as_text(&contract(w)?["contractID"]);
    let sequence = contract_id.strip_prefix(&format!("{tender_id}-"));
    ensure(
        sequence.is_some_and(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())),
        || format!("contractID {contract_id:?} is not {tender_id}-<n>"),
    )
}

#[then("the contract's items are the tender's items")]
async fn contract_items(w: &mut TenderWorld) -> Result<(), String> {
    let key = |items: &Value| -> Vec<(Value, Value, Value)> {
        items
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|i| {
                        (
                            i["id"].clone(),
                            i["description"].clone(),
                            i["classification"]["id"].clone(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let tender = key(&w.tender_field("/items")?);
    let contract = key(&contract(w)?["items"]);
    ensure(!tender.is_empty() && tender == contract, || {
        format!("contract items {contract:?} differ from the tender's {tender:?}")
    })
}

#[then("the contract's suppliers are the bid's tenderers")]
async fn contract_suppliers(w: &mut TenderWorld) -> Result<(), String> {
    let names = |orgs: &Value| -> Vec<(Value, Value)> {
        orgs.as_array()
            .map(|a| {
                a.iter()
                    .map(|o| (o["name"].clone(), o["identifier"]["id"].clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let tenderers = names(&w.bid(0)?.sent["data"]["tenderers"]);
    let suppliers = names(&contract(w)?["suppliers"]);
    ensure(suppliers == tenderers, || {
        format!("contract suppliers {suppliers:?} differ from the bid's tenderers {tenderers:?}")
    })
}

fn award_value(w: &TenderWorld) -> Result<Value, String> {
    Ok(w.recall("award")?["value"].clone())
}

#[then("the contract's value is the award's value")]
async fn contract_value(w: &mut TenderWorld) -> Result<(), String> {
    let award = award_value(w)?;
    let value = contract(w)?["value"].clone();
    let same = value["amount"].as_f64() == award["amount"].as_f64()
        && value["currency"] == award["currency"]
        && value["valueAddedTaxIncluded"] == award["valueAddedTaxIncluded"];
    ensure(same, || {
        format!("the contract value {value} differs from the award value {award}")
    })
}

async fn patch_contract(w: &mut TenderWorld, data: Value) -> Result<(), String> {
    w.refresh_tender().await?;
    let id = checks::as_text(&contract(w)?["id"]);
    let path = format!(
        "{}/contracts/{id}?acc_token={}",
        w.tender_path()?,
        w.tender_token()?
    );
    w.noted.insert("contract change".into(), data.clone());
    w.send_data(Actor::Owner, Method::PATCH, &path, data).await
}

#[when("the owner sets the contract number")]
async fn sets_number(w: &mut TenderWorld) -> Result<(), String> {
    let number = format!("№ {}/{}", w.fakes.code(4), w.fakes.code(2));
    patch_contract(w, json!({"contractNumber": number})).await
}

#[when(expr = "the owner lowers the contract amount by {int} percent")]
async fn lowers_amount(w: &mut TenderWorld, percent: u32) -> Result<(), String> {
    let award = award_value(w)?["amount"]
        .as_f64()
        .ok_or("the award has no amount")?;
    let amount = (award * f64::from(100 - percent)).round() / 100.0;
    patch_contract(w, json!({"value": {"amount": amount}})).await
}

#[when("the owner raises the contract amount above the award's")]
async fn raises_amount(w: &mut TenderWorld) -> Result<(), String> {
    let award = award_value(w)?["amount"]
        .as_f64()
        .ok_or("the award has no amount")?;
    patch_contract(w, json!({"value": {"amount": award + 1000.0}})).await
}

#[when("the owner sets the contract period")]
async fn sets_period(w: &mut TenderWorld) -> Result<(), String> {
    let now = w.now().await?;
    let start = timestamps::format(now + Duration::days(1));
    let end = timestamps::format(now + Duration::days(365));
    patch_contract(w, json!({"period": {"startDate": start, "endDate": end}})).await
}

#[when("the owner sets the contract signature date to now")]
async fn sets_date_signed(w: &mut TenderWorld) -> Result<(), String> {
    let now = timestamps::format(w.now().await?);
    patch_contract(w, json!({"dateSigned": now})).await
}

#[when("the owner signs the contract")]
pub(super) async fn signs(w: &mut TenderWorld) -> Result<(), String> {
    patch_contract(w, json!({"status": "active"})).await
}

fn sent_change(w: &TenderWorld, pointer: &str) -> Result<Value, String> {
    w.noted
        .get("contract change")
        .and_then(|c| c.pointer(pointer))
        .cloned()
        .ok_or_else(|| format!("harness: no contract change {pointer} was sent"))
}

fn same_instant(a: &Value, b: &Value) -> bool {
    match (
        a.as_str().and_then(timestamps::parse),
        b.as_str().and_then(timestamps::parse),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

#[then("reading the tender shows the contract's value is still the award's")]
async fn contract_value_kept(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    contract_value(w).await
}

#[then("the contract number is the one sent")]
async fn number_sent(w: &mut TenderWorld) -> Result<(), String> {
    let sent = sent_change(w, "/contractNumber")?;
    ensure(w.data()["contractNumber"] == sent, || {
        format!(
            "contractNumber is {}, {sent} was sent",
            w.data()["contractNumber"]
        )
    })
}

#[then(expr = "the contract amount is {int} percent lower with the currency and VAT flag kept")]
async fn amount_lowered(w: &mut TenderWorld, _percent: u32) -> Result<(), String> {
    let sent = sent_change(w, "/value/amount")?;
    let award = award_value(w)?;
    let value = w.data()["value"].clone();
    if value["amount"].as_f64() != sent.as_f64() {
        return Err(format!(
            "the contract amount is {}, {sent} was sent",
            value["amount"]
        ));
    }
    if value["currency"] != award["currency"]
        || value["valueAddedTaxIncluded"] != award["valueAddedTaxIncluded"]
    {
        return Err(format!(
            "the contract value {value} lost the award's currency or VAT flag {award}"
        ));
    }
    Ok(())
}

#[then("the contract period is the one sent")]
async fn period_sent(w: &mut TenderWorld) -> Result<(), String> {
    for end in ["startDate", "endDate"] {
        let sent = sent_change(w, &format!("/period/{end}"))?;
        let shown = w.data()["period"][end].clone();
        if !same_instant(&shown, &sent) {
            return Err(format!("period.{end} is {shown}, {sent} was sent"));
        }
    }
    Ok(())
}

#[then("the contract signature date is the one sent")]
async fn date_signed_sent(w: &mut TenderWorld) -> Result<(), String> {
    let sent = sent_change(w, "/dateSigned")?;
    let shown = w.data()["dateSigned"].clone();
    ensure(same_instant(&shown, &sent), || {
        format!("dateSigned is {shown}, {sent} was sent")
    })
}
