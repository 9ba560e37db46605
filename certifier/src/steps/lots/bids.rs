//! Bids with `lotValues`: on some lots or on lots a service must refuse, and each lot's
//! auction and participation.
use cucumber::{given, then, when};
use serde_json::{Value, json};

use super::super::bids;
use super::reading::{amount, lot, lots};
use crate::{checks, world::TenderWorld};

/// A bid of a new firm on the lots `ns` (from 1), each 80–98 % of the lot's value.
pub(crate) async fn bid_on(
    w: &mut TenderWorld,
    ns: &[usize],
    status: Option<&str>,
) -> Result<Value, String> {
    let mut body = w.fakes.bid(None);
    let mut values = Vec::new();
    for &n in ns {
        let lot = lot(w, n)?;
        let worth = amount(&lot["value"]).ok_or_else(|| format!("lot {n} has no value"))?;
        let percent = 80 + w.fakes.code(2).parse::<u64>().unwrap_or(0) % 19;
        values.push(json!({
            "value": {"amount": (worth as u64) * percent / 100},
            "relatedLot": lot["id"],
        }));
    }
    let data = body["data"]
        .as_object_mut()
        .ok_or("harness: bid body without data")?;
    data.remove("value");
    data.insert("lotValues".into(), json!(values));
    match status {
        Some(s) => {
            data.insert("status".into(), json!(s));
        }
        None => {
            data.remove("status");
            let document = w.document_body().await?["data"].clone();
            body["data"]["documents"] = json!([document]);
        }
    }
    Ok(body)
}

#[given(
    regex = r"^a (?:second |third )?bidder has registered an active bid on (lot (\d+)|every lot)$"
)]
async fn has_bid(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let ns: Vec<usize> = if which == "every lot" {
        (1..=lots(w)?.len()).collect()
    } else {
        vec![n.parse().map_err(|_| format!("harness: lot {n:?}"))?]
    };
    let body = bid_on(w, &ns, None).await?;
    bids::register(w, body).await?;
    bids::require_registered(w, "registering an active bid on lots")
}

#[when(regex = r"^a bidder registers a bid on the lots (.+)$")]
async fn bids_wrong(w: &mut TenderWorld, case: String) -> Result<(), String> {
    let mut body = bid_on(w, &[1], Some("draft")).await?;
    let first = body["data"]["lotValues"][0].clone();
    let mut wrong = first.clone();
    match case.as_str() {
        "without lot values" => {
            if let Some(d) = body["data"].as_object_mut() {
                d.remove("lotValues");
            }
            return bids::register(w, body).await;
        }
        "with a lot value naming no lot" => {
            if let Some(v) = wrong.as_object_mut() {
                v.remove("relatedLot");
            }
        }
        "with a lot value naming an unknown lot" => wrong["relatedLot"] = json!(w.fakes.hex_id(32)),
        "above the value of the lot" => {
            let worth = amount(&lot(w, 1)?["value"]).ok_or("lot 1 has no value")?;
            wrong["value"]["amount"] = json!(worth as u64 + 1000);
        }
        "in another currency than the lot" => wrong["value"]["currency"] = json!("USD"),
        "with another VAT flag than the lot" => {
            let vat = w.tender_field("/value/valueAddedTaxIncluded")?;
            wrong["value"]["valueAddedTaxIncluded"] = json!(vat != Value::Bool(true));
        }
        "with a value of its own" => body["data"]["value"] = first["value"].clone(),
        "with a participation address of its own" => {
            body["data"]["participationUrl"] = json!("http://auction.example.net/tenders/1");
        }
        "with two lot values for one lot" => {
            body["data"]["lotValues"] = json!([first.clone(), first]);
            return bids::register(w, body).await;
        }
        other => return Err(format!("harness: unknown wrong bid {other:?}")),
    }
    body["data"]["lotValues"][0] = wrong;
    bids::register(w, body).await
}

/// The bids the scenario registered on lot `id`, with the amount each offered for it.
pub(super) fn offers(w: &TenderWorld, id: &str) -> Vec<(String, f64)> {
    w.bids
        .iter()
        .filter_map(|bid| {
            let values = bid.sent["data"]["lotValues"].as_array()?;
            let offer = values.iter().find(|v| v["relatedLot"] == id)?;
            Some((bid.id.clone(), amount(&offer["value"])?))
        })
        .collect()
}

#[then(regex = r"^lot (\d+) has an auction period and an auction URL$")]
async fn lot_auction(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    // The auction address may be published a moment after the status changes.
    let now = w.now().await?;
    let index = n.wrapping_sub(1);
    w.reach(now, "the lot's auction URL to appear", |t: &Value| {
        t["lots"][index]["auctionUrl"].is_string()
    })
    .await?;
    let lot = lot(w, n)?;
    lot.pointer("/auctionPeriod/startDate")
        .and_then(Value::as_str)
        .and_then(crate::exchange::timestamps::parse)
        .ok_or_else(|| format!("lot {n} has no auctionPeriod.startDate: {lot}"))?;
    let url = checks::as_text(&lot["auctionUrl"]);
    reqwest::Url::parse(&url).map_err(|e| format!("lot {n}'s auctionUrl {url:?}: {e}"))?;
    Ok(())
}

#[then(regex = r"^lot (\d+) has no auction URL$")]
async fn lot_without_auction(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    match lot(w, n)?.get("auctionUrl") {
        None | Some(Value::Null) => Ok(()),
        Some(url) => Err(format!("lot {n} shows the auction URL {url}")),
    }
}

#[then(
    "each lot value's participationUrl is its lot's auction URL with key_for_bid set to its bid id"
)]
async fn lot_participation(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let auctions: Vec<(Value, String)> = lots(w)?
        .iter()
        .filter_map(|l| Some((l["id"].clone(), l["auctionUrl"].as_str()?.to_owned())))
        .collect();
    let mut seen = Vec::new();
    for bid in &w.bids {
        let values = bid.data["lotValues"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for value in values {
            let Some((_, auction)) = auctions.iter().find(|(id, _)| *id == value["relatedLot"])
            else {
                continue;
            };
            let url = checks::as_text(&value["participationUrl"]);
            if !bids::is_participation_url(&url, auction, &bid.id)? {
                return Err(format!(
                    "bid {} shows participationUrl {url:?} for lot {}, expected {auction}?key_for_bid={}",
                    bid.id, value["relatedLot"], bid.id
                ));
            }
            if seen.contains(&url) {
                return Err(format!("two lot values share the participationUrl {url:?}"));
            }
            seen.push(url);
        }
    }
    if seen.is_empty() {
        return Err("no bid shows a participationUrl for a lot with an auction".into());
    }
    Ok(())
}
