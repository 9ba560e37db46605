//! The lots of the tender, looked up by position, and what they must show when read.
use cucumber::then;
use serde_json::Value;

use crate::{checks, checks::ensure, world::TenderWorld};

pub(super) const EXTENSION: &str = "lots";

pub(crate) fn lots(w: &TenderWorld) -> Result<Vec<Value>, String> {
    w.tender_field("/lots")?
        .as_array()
        .cloned()
        .ok_or_else(|| "the tender's lots are not a list".to_owned())
}

/// Lot `n` (from 1) as the tender last showed it.
pub(crate) fn lot(w: &TenderWorld, n: usize) -> Result<Value, String> {
    lots(w)?
        .get(n.wrapping_sub(1))
        .cloned()
        .ok_or_else(|| format!("the tender shows no lot {n}"))
}

pub(crate) fn lot_id(w: &TenderWorld, n: usize) -> Result<String, String> {
    Ok(checks::as_text(&lot(w, n)?["id"]))
}

pub(super) fn collection(w: &TenderWorld) -> Result<String, String> {
    Ok(format!("{}/lots", w.tender_path()?))
}

pub(crate) fn amount(value: &Value) -> Option<f64> {
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
