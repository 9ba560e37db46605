//! Tenders divided into lots: created inline, changed while enquiries run, bid on with
//! `lotValues`, and awarded, contracted, cancelled and claimed one lot at a time; an upstream
//! extension (`@lots`). Lots are named by their position in the tender, from 1.
use crate::checks::ensure;
use cucumber::{given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::{bids, cancellations, claims, documents, qualification, questions, tenders};
use crate::{
    checks,
    exchange::short,
    world::offered,
    world::{Actor, Payload, TenderWorld},
};

const EXTENSION: &str = "lots";

/// A tender body divided into `count` lots with ids of the client's own, one item per lot.
/// Lot `i` is worth `(i + 2) / 2` times the generated value, so the sum and the least minimal
/// step differ from any single lot's; the tender's own value and step are sent as they must
/// read back.
async fn lot_tender_body(w: &mut TenderWorld, count: usize) -> Result<Value, String> {
    let mut body = w.tender_body().await?;
    let data = &mut body["data"];
    let base = data["value"]["amount"]
        .as_u64()
        .ok_or("harness: the tender template has no whole value")?;
    let item = data["items"][0].clone();
    let mut lots = Vec::new();
    let mut items = Vec::new();
    for i in 0..count as u64 {
        let id = w.fakes.hex_id(32);
        let value = base * (i + 2) / 2;
        let description = checks::as_text(&item["description"]);
        lots.push(json!({
            "id": id,
            "title": format!("Лот {}: {description}", i + 1),
            "description": format!("Поставка партії {} ({description})", i + 1),
            "value": {"amount": value, "currency": "UAH", "valueAddedTaxIncluded": true},
            "minimalStep": {"amount": value / 100, "currency": "UAH", "valueAddedTaxIncluded": true},
        }));
        let mut lot_item = item.clone();
        lot_item["relatedLot"] = json!(id);
        items.push(lot_item);
    }
    let sum: u64 = lots
        .iter()
        .filter_map(|l| l["value"]["amount"].as_u64())
        .sum();
    let step = lots
        .iter()
        .filter_map(|l| l["minimalStep"]["amount"].as_u64())
        .min()
        .unwrap_or(0);
    data["value"]["amount"] = json!(sum);
    data["minimalStep"]["amount"] = json!(step);
    data["lots"] = json!(lots);
    data["items"] = json!(items);
    Ok(body)
}

/// Sends a lot tender's creation; a target that does not know `lots` does not offer them.
async fn create(w: &mut TenderWorld, body: Value) -> Result<(), String> {
    tenders::create(w, Actor::Owner, body).await?;
    offered::rogue_field(w, EXTENSION, "lots")
}

#[when(regex = r"^the owner creates a tender with (\d+) lots?$")]
async fn creates(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    let body = lot_tender_body(w, count).await?;
    create(w, body).await
}

#[given(regex = r"^the owner has created a draft tender with (\d+) lots?$")]
async fn has_created_draft(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    let body = tenders::draft(lot_tender_body(w, count).await?);
    create(w, body).await?;
    tenders::require_created(w, "creating a draft tender with lots")
}

#[given(regex = r"^the owner has published a tender with (\d+) lots?$")]
async fn has_published(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    has_created_draft(w, count).await?;
    tenders::publish(w).await?;
    cancellations::require(w, 200, "publishing the draft tender with lots")
}

#[when(
    regex = r"^the owner creates a tender with (\d+) lots (sharing one id|whose first item names an unknown lot|whose guarantees differ in currency)$"
)]
async fn creates_wrong(w: &mut TenderWorld, count: usize, wrong: String) -> Result<(), String> {
    let mut body = lot_tender_body(w, count).await?;
    let data = &mut body["data"];
    match wrong.as_str() {
        "sharing one id" => {
            let first = data["lots"][0]["id"].clone();
            data["lots"][1]["id"] = first.clone();
            data["items"][1]["relatedLot"] = first;
        }
        "whose first item names an unknown lot" => {
            data["items"][0]["relatedLot"] = json!(w.fakes.hex_id(32));
        }
        _ => {
            data["lots"][0]["guarantee"] = json!({"amount": 1000, "currency": "UAH"});
            data["lots"][1]["guarantee"] = json!({"amount": 1000, "currency": "USD"});
        }
    }
    create(w, body).await
}

// ---- the lots of the tender ----

pub(super) fn lots(w: &TenderWorld) -> Result<Vec<Value>, String> {
    w.tender_field("/lots")?
        .as_array()
        .cloned()
        .ok_or_else(|| "the tender's lots are not a list".to_owned())
}

/// Lot `n` (from 1) as the tender last showed it.
pub(super) fn lot(w: &TenderWorld, n: usize) -> Result<Value, String> {
    lots(w)?
        .get(n.wrapping_sub(1))
        .cloned()
        .ok_or_else(|| format!("the tender shows no lot {n}"))
}

pub(super) fn lot_id(w: &TenderWorld, n: usize) -> Result<String, String> {
    Ok(checks::as_text(&lot(w, n)?["id"]))
}

fn collection(w: &TenderWorld) -> Result<String, String> {
    Ok(format!("{}/lots", w.tender_path()?))
}

pub(super) fn amount(value: &Value) -> Option<f64> {
    value["amount"].as_f64()
}

#[then("the tender's lots keep the ids that were sent")]
async fn ids_kept(w: &mut TenderWorld) -> Result<(), String> {
    let sent: Vec<Value> = w.tender()?.sent["data"]["lots"]
        .as_array()
        .map(|l| l.iter().map(|lot| lot["id"].clone()).collect())
        .unwrap_or_default();
    let shown: Vec<Value> = lots(w)?.iter().map(|lot| lot["id"].clone()).collect();
    ensure(!sent.is_empty() && sent == shown, || {
        format!("the lots were sent with ids {sent:?}, show {shown:?}")
    })
}

#[then("each item of the tender names its lot")]
async fn items_name_lots(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.tender()?.sent["data"]["items"].clone();
    let shown = w.tender_field("/items")?;
    let related = |items: &Value| -> Vec<Value> {
        items
            .as_array()
            .map(|i| i.iter().map(|item| item["relatedLot"].clone()).collect())
            .unwrap_or_default()
    };
    ensure(related(&sent) == related(&shown), || {
        format!(
            "the items were sent for the lots {:?}, show {:?}",
            related(&sent),
            related(&shown)
        )
    })
}

#[then(expr = "every lot of the tender shows status {string}")]
async fn every_lot_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    for (i, lot) in lots(w)?.iter().enumerate() {
        if lot["status"] != expected.as_str() {
            return Err(format!(
                "lot {} is {}, not {expected:?}",
                i + 1,
                lot["status"]
            ));
        }
    }
    Ok(())
}

/// The tender's value is the sum of its lots' and its minimal step the least of theirs, each
/// with the tender's currency and VAT flag.
fn sums_hold(w: &TenderWorld, step_too: bool) -> Result<(), String> {
    let lots = lots(w)?;
    let value = w.tender_field("/value")?;
    let sum: f64 = lots.iter().filter_map(|l| amount(&l["value"])).sum();
    if amount(&value) != Some(sum) {
        return Err(format!(
            "the tender's value is {value}, its lots are worth {sum} together"
        ));
    }
    for (i, lot) in lots.iter().enumerate() {
        for field in ["value", "minimalStep"] {
            let shown = &lot[field];
            if shown["currency"] != value["currency"]
                || shown["valueAddedTaxIncluded"] != value["valueAddedTaxIncluded"]
            {
                return Err(format!(
                    "lot {}'s {field} {shown} has not the tender's currency and VAT flag {value}",
                    i + 1
                ));
            }
        }
    }
    if step_too {
        let step = w.tender_field("/minimalStep")?;
        let least = lots
            .iter()
            .filter_map(|l| amount(&l["minimalStep"]))
            .fold(f64::INFINITY, f64::min);
        if amount(&step) != Some(least) {
            return Err(format!(
                "the tender's minimal step is {step}, the least of its lots' is {least}"
            ));
        }
    }
    Ok(())
}

#[then(
    "the tender's value is the sum of its lots' values and its minimal step the least of theirs"
)]
async fn sums(w: &mut TenderWorld) -> Result<(), String> {
    sums_hold(w, true)
}

#[then("reading the tender shows its value is the sum of its lots' values")]
async fn reading_sums(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    sums_hold(w, false)
}

#[then(regex = r"^reading the tender shows (\d+) lots?$")]
async fn reading_count(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let shown = lots(w)?.len();
    ensure(shown == count, || {
        format!("the tender shows {shown} lots, expected {count}")
    })
}

#[then(regex = r#"^(reading )?the tender shows lot (\d+) in status "([a-z.]+)"$"#)]
async fn lot_status(
    w: &mut TenderWorld,
    reading: String,
    n: usize,
    expected: String,
) -> Result<(), String> {
    if !reading.is_empty() {
        w.refresh_tender().await?;
    }
    let lot = lot(w, n)?;
    ensure(lot["status"] == expected.as_str(), || {
        format!("lot {n} is {}, expected {expected:?}", lot["status"])
    })
}

#[then(expr = "the response field {string} is the id of lot {int}")]
async fn field_is_lot(w: &mut TenderWorld, path: String, n: usize) -> Result<(), String> {
    let id = lot_id(w, n)?;
    let shown = checks::field(&w.body, &path)
        .cloned()
        .unwrap_or(Value::Null);
    ensure(shown == id.as_str(), || {
        format!("{path} is {shown}, lot {n} is {id}")
    })
}

// ---- lots changed while enquiries run ----

/// Sends `method` to the lots collection or to lot `n`; a 404 on the collection itself means
/// the target does not offer lots.
async fn send_lot(
    w: &mut TenderWorld,
    actor: Actor,
    method: Method,
    lot: Option<String>,
    payload: Payload,
    token: bool,
) -> Result<(), String> {
    let collection = collection(w)?;
    let mut path = match lot {
        Some(id) => format!("{collection}/{id}"),
        None => collection.clone(),
    };
    if token {
        path = format!("{path}?acc_token={}", w.tender_token()?);
    }
    w.send(actor, method, &path, payload).await?;
    offered::check(w, EXTENSION, &collection).await
}

async fn add(w: &mut TenderWorld, data: Value) -> Result<(), String> {
    let body = json!({ "data": data });
    send_lot(
        w,
        Actor::Owner,
        Method::POST,
        None,
        Payload::Json(body),
        true,
    )
    .await
}

#[when("the owner adds a lot")]
async fn adds(w: &mut TenderWorld) -> Result<(), String> {
    let base = amount(&lot(w, 1)?["value"]).ok_or("lot 1 has no value")? as u64;
    add(
        w,
        json!({
            "title": "Додаткова партія",
            "description": "Поставка додаткової партії товару",
            "value": {"amount": base / 2, "currency": "UAH", "valueAddedTaxIncluded": true},
            "minimalStep": {"amount": base / 200, "currency": "UAH", "valueAddedTaxIncluded": true},
        }),
    )
    .await
}

#[when("the owner adds a lot with this data:")]
async fn adds_with(w: &mut TenderWorld, step: &cucumber::gherkin::Step) -> Result<(), String> {
    let text = step
        .docstring
        .clone()
        .ok_or("harness: the step needs a docstring")?;
    let data: Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("harness: bad docstring: {e}"))?;
    add(w, data).await
}

#[when("an anonymous client lists the lots")]
async fn lists(w: &mut TenderWorld) -> Result<(), String> {
    send_lot(w, Actor::Anonymous, Method::GET, None, Payload::None, false).await
}

#[then(regex = r"^the lots listed are the tender's (\d+) lots$")]
async fn listed(w: &mut TenderWorld, count: usize) -> Result<(), String> {
    let listed: Vec<Value> = w
        .data()
        .as_array()
        .map(|l| l.iter().map(|lot| lot["id"].clone()).collect())
        .unwrap_or_default();
    let (last, body) = (w.last.clone(), w.body.clone());
    w.refresh_tender().await?;
    (w.last, w.body) = (last, body);
    let shown: Vec<Value> = lots(w)?.iter().map(|lot| lot["id"].clone()).collect();
    ensure(listed.len() == count && listed == shown, || {
        format!("the lots listed are {listed:?}, the tender shows {shown:?} (expected {count})")
    })
}

#[when(expr = "the owner changes the value of lot {int}")]
async fn changes_value(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let lot = lot(w, n)?;
    let now = amount(&lot["value"]).ok_or_else(|| format!("lot {n} has no value"))?;
    // Upstream's certification lowered a lot's budget to 99 %.
    let lowered = (now * 0.99).round();
    let body = json!({"data": {"value": {"amount": lowered}}});
    let id = checks::as_text(&lot["id"]);
    send_lot(
        w,
        Actor::Owner,
        Method::PATCH,
        Some(id),
        Payload::Json(body),
        true,
    )
    .await
}

#[when(expr = "the owner sends the title of lot {int} back unchanged")]
async fn sends_back(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let lot = lot(w, n)?;
    let body = json!({"data": {"title": lot["title"]}});
    let id = checks::as_text(&lot["id"]);
    send_lot(
        w,
        Actor::Owner,
        Method::PATCH,
        Some(id),
        Payload::Json(body),
        true,
    )
    .await
}

#[when("the owner adds a lot with an id of its own")]
async fn adds_with_id(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.fakes.hex_id(32);
    w.noted.insert("lot id".into(), json!(id));
    add(
        w,
        json!({
            "id": id,
            "title": "Додаткова партія",
            "value": {"amount": 10000, "currency": "UAH", "valueAddedTaxIncluded": true},
            "minimalStep": {"amount": 100, "currency": "UAH", "valueAddedTaxIncluded": true},
        }),
    )
    .await
}

#[then("the added lot keeps the id that was sent")]
async fn added_id_kept(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.noted.get("lot id").cloned().unwrap_or(Value::Null);
    let shown = &w.data()["id"];
    ensure(*shown == sent, || {
        format!("the lot was sent with id {sent}, shows {shown}")
    })
}

#[when(expr = "the owner deletes lot {int}")]
async fn deletes(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    w.refresh_tender().await?;
    let id = lot_id(w, n)?;
    send_lot(
        w,
        Actor::Owner,
        Method::DELETE,
        Some(id),
        Payload::None,
        true,
    )
    .await
}

#[when("an anonymous client reads a lot that does not exist")]
async fn reads_unknown(w: &mut TenderWorld) -> Result<(), String> {
    let id = w.fakes.hex_id(32);
    send_lot(
        w,
        Actor::Anonymous,
        Method::GET,
        Some(id),
        Payload::None,
        false,
    )
    .await
}

// ---- bids with lotValues ----

/// A bid of a new firm on the lots `ns` (from 1), each 80–98 % of the lot's value.
pub(super) fn bid_on(
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
            let document = w.fakes.document()["data"].clone();
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
    let body = bid_on(w, &ns, None)?;
    bids::register(w, body).await?;
    bids::require_registered(w, "registering an active bid on lots")
}

#[when(regex = r"^a bidder registers a bid on the lots (.+)$")]
async fn bids_wrong(w: &mut TenderWorld, case: String) -> Result<(), String> {
    let mut body = bid_on(w, &[1], Some("draft"))?;
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
fn offers(w: &TenderWorld, id: &str) -> Vec<(String, f64)> {
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
            let parsed =
                reqwest::Url::parse(&url).map_err(|e| format!("participationUrl {url:?}: {e}"))?;
            let key = parsed
                .query_pairs()
                .find(|(k, _)| k == "key_for_bid")
                .map(|(_, v)| v.into_owned());
            if !url.starts_with(auction.as_str()) || key.as_deref() != Some(bid.id.as_str()) {
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

// ---- awards and contracts per lot ----

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
    cancellations::require(w, 200, "approving the award of a lot")
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
pub(super) async fn contract_of(w: &mut TenderWorld, n: usize) -> Result<Value, String> {
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
    let body = json!({"data": {"status": "active"}});
    w.send(Actor::Owner, Method::PATCH, &path, Payload::Json(body))
        .await
}

// ---- lot cancellations and claims ----

async fn cancel(w: &mut TenderWorld, lot: String) -> Result<(), String> {
    let token = w.tender_token()?;
    let data = json!({
        "reason": "Потреба в цій партії відпала",
        "status": "active",
        "cancellationOf": "lot",
        "relatedLot": lot,
    });
    cancellations::post(w, Actor::Owner, &token, data).await
}

#[when(regex = r"^the owner cancels (lot (\d+)|a lot the tender does not have)(?: at once)?$")]
async fn cancels(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    cancel(w, lot).await
}

#[given(regex = r"^the owner has cancelled lot (\d+)$")]
async fn has_cancelled(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let lot = lot_id(w, n)?;
    cancel(w, lot).await?;
    cancellations::require(w, 201, "cancelling a lot")
}

#[when(regex = r"^a participant submits a claim on (lot (\d+)|a lot the tender does not have)$")]
async fn claims_on(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    claims::file(w, "tender", None, "claim", Some(lot)).await
}

#[given(regex = r"^a participant has submitted a claim on lot (\d+)$")]
async fn has_claimed_on(w: &mut TenderWorld, n: usize) -> Result<(), String> {
    let lot = lot_id(w, n)?;
    claims::file(w, "tender", None, "claim", Some(lot)).await?;
    claims::require(w, 201, "submitting a claim on a lot")
}

// ---- questions and documents about a lot ----

/// Lot `n` of the tender, or, for `which` naming no lot, an id the tender does not have.
fn named_lot(w: &mut TenderWorld, which: &str, n: &str) -> Result<String, String> {
    if which.starts_with("lot") {
        lot_id(w, n.parse().map_err(|_| format!("harness: lot {n:?}"))?)
    } else {
        Ok(w.fakes.hex_id(32))
    }
}

#[when(regex = r"^a participant asks a question about (lot (\d+)|a lot the tender does not have)$")]
async fn asks_about(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    let mut body = w.fakes.question();
    body["data"]["questionOf"] = json!("lot");
    body["data"]["relatedItem"] = json!(lot);
    questions::ask_with(w, Actor::Other, body).await
}

#[when(
    regex = r"^the owner uploads a PDF document about (lot (\d+)|a lot the tender does not have)$"
)]
async fn uploads_about(w: &mut TenderWorld, which: String, n: String) -> Result<(), String> {
    let lot = named_lot(w, &which, &n)?;
    let mut body = w.fakes.document();
    body["data"]["documentOf"] = json!("lot");
    body["data"]["relatedItem"] = json!(lot);
    documents::upload_to_tender(w, Actor::Owner, body).await
}
