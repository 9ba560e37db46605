//! What a tender must show: its status, dates, periods, owner, ids, titles and the fields
//! kept as sent.
use cucumber::then;
use serde_json::Value;
use time::Duration;

use crate::{
    checks,
    checks::ensure,
    exchange::timestamps,
    world::{Actor, TenderWorld},
};

#[then(expr = "the tender status is {string}")]
async fn tender_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let status = checks::as_text(&w.tender_field("/status")?);
    ensure(status == expected, || {
        format!("the tender status is {status:?}, expected {expected:?}")
    })
}

#[then(expr = "reading the tender shows status {string}")]
async fn reading_shows_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    w.refresh_tender().await?;
    tender_status(w, expected).await
}

#[then("reading the tender shows the title unchanged")]
async fn reading_shows_title_unchanged(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    let now = w.tender_field("/title")?;
    let before = &w.tender_before["title"];
    ensure(&now == before, || {
        format!("the title changed from {before} to {now}")
    })
}

#[then("the tender has no next_check")]
async fn no_next_check(w: &mut TenderWorld) -> Result<(), String> {
    match w.tender()?.data.get("next_check") {
        None | Some(Value::Null) => Ok(()),
        Some(v) => Err(format!("the tender has next_check {v}")),
    }
}

#[then("the tender has a next_check")]
async fn has_next_check(w: &mut TenderWorld) -> Result<(), String> {
    w.tender_instant("/next_check").map(drop)
}

#[then(regex = r"^the tender's next_check is the end of the (enquiry|tender) period$")]
async fn next_check_is_period_end(w: &mut TenderWorld, period: String) -> Result<(), String> {
    let next_check = w.tender_instant("/next_check")?;
    let end = w.tender_instant(&format!("/{period}Period/endDate"))?;
    ensure(next_check == end, || {
        format!(
            "next_check is {}, the {period} period ends at {}",
            timestamps::format(next_check),
            timestamps::format(end)
        )
    })
}

/// Refreshed to the time of the change: later than before, or the same moment on a clock that
/// stood still in between.
#[then(expr = "the tender's {word} is later than before")]
async fn later_than_before(w: &mut TenderWorld, field: String) -> Result<(), String> {
    let now = w.tender_instant(&format!("/{field}"))?;
    let before = w.tender_before[field.as_str()]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or_else(|| format!("the tender had no {field} before"))?;
    w.check_refreshed(&format!("the tender's {field}"), before, now)
        .await
}

/// Publication refreshes `date` to its own moment: later than the draft's, or the same moment
/// on a target clock that stood still.
#[then("the tender's date is refreshed")]
async fn date_refreshed(w: &mut TenderWorld) -> Result<(), String> {
    let now = w.tender_instant("/date")?;
    let before = w.tender_before["date"]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or("the tender had no date before")?;
    w.check_refreshed("the tender's date", before, now).await
}

#[then("the tender's dateModified is unchanged")]
async fn date_modified_unchanged(w: &mut TenderWorld) -> Result<(), String> {
    let now = w.tender_field("/dateModified")?;
    let before = &w.tender_before["dateModified"];
    ensure(&now == before, || {
        format!("dateModified moved from {before} to {now}")
    })
}

/// Authentication 1: the broker in the credentials becomes the owner. Told the name the key
/// stands for (`--broker KEY=NAME`), the owner is that name; else the run holds the target to
/// what both readings (the key, or an auth file's name for it) agree on: one broker's tenders
/// share one non-empty owner, another's differ, and the owner never shows the password.
#[then(regex = r"^the tender owner is the (owner|other) broker$")]
async fn owner_is_broker(w: &mut TenderWorld, which: String) -> Result<(), String> {
    let target = w.target()?;
    let of_owner = which == "owner";
    let broker = if of_owner {
        &target.owner
    } else {
        &target.other
    };
    let breach = |what: String| checks::breach("auth-1", what);
    let owner = match w.tender_field("/owner")? {
        Value::String(owner) if !owner.is_empty() => owner,
        other => return Err(breach(format!("the tender's owner is {other}, not a name"))),
    };
    if let Some(expected) = &broker.owner {
        return ensure(&owner == expected, || {
            breach(format!(
                "owner is {owner:?}, but the key {} stands for {expected:?}",
                broker.name
            ))
        });
    }
    if !broker.password.is_empty() && owner.contains(broker.password.as_str()) {
        return Err(breach(format!(
            "the owner {owner:?} shows the password of broker {}",
            broker.name
        )));
    }
    target.owners.note(of_owner, &owner).map_err(breach)
}

#[then("the tenderID has the form UA-YYYY-MM-DD-NNNNNN")]
async fn tender_id_form(w: &mut TenderWorld) -> Result<(), String> {
    let id = checks::as_text(&w.tender_field("/tenderID")?);
    let re = regex::Regex::new(r"^UA-\d{4}-\d{2}-\d{2}-\d{6}$").expect("valid regex");
    ensure(re.is_match(&id), || {
        format!("tenderID {id:?} is not of the form UA-YYYY-MM-DD-NNNNNN")
    })
}

#[then("the enquiry period starts at the moment of creation")]
async fn enquiry_starts_at_creation(w: &mut TenderWorld) -> Result<(), String> {
    let start = w.tender_instant("/enquiryPeriod/startDate")?;
    let created = w.tender_instant("/date")?;
    ensure((start - created).abs() <= Duration::seconds(2), || {
        format!(
            "enquiryPeriod.startDate {} is not the creation date {}",
            timestamps::format(start),
            timestamps::format(created)
        )
    })
}

#[then("reading the tender shows the tender period starting when the enquiry period ends")]
async fn reading_shows_periods_joined(w: &mut TenderWorld) -> Result<(), String> {
    w.refresh_tender().await?;
    tender_starts_at_enquiry_end(w).await
}

#[then("the tender's date is the one its publication answered")]
async fn date_is_publication(w: &mut TenderWorld) -> Result<(), String> {
    let published = w.recall("publication date")?;
    let date = w.tender_field("/date")?;
    ensure(date == published, || {
        format!("the tender's date is {date}, its publication answered {published}")
    })
}

#[then("the tender period starts when the enquiry period ends")]
async fn tender_starts_at_enquiry_end(w: &mut TenderWorld) -> Result<(), String> {
    let start = w.tender_instant("/tenderPeriod/startDate")?;
    let end = w.tender_instant("/enquiryPeriod/endDate")?;
    ensure(start == end, || {
        format!(
            "tenderPeriod.startDate {} differs from enquiryPeriod.endDate {}",
            timestamps::format(start),
            timestamps::format(end)
        )
    })
}

#[then("the tender period ends one day later than before")]
async fn tender_period_one_day_later(w: &mut TenderWorld) -> Result<(), String> {
    let now = w.tender_instant("/tenderPeriod/endDate")?;
    let before = w.tender_before["tenderPeriod"]["endDate"]
        .as_str()
        .and_then(timestamps::parse)
        .ok_or("the tender had no tenderPeriod.endDate before")?;
    ensure(now - before == Duration::days(1), || {
        format!("tenderPeriod.endDate moved by {}", now - before)
    })
}

#[then(expr = "the tender's {word} starts with {string}")]
async fn title_prefix(w: &mut TenderWorld, field: String, prefix: String) -> Result<(), String> {
    let value = checks::as_text(&w.tender_field(&format!("/{field}"))?);
    ensure(value.starts_with(&prefix), || {
        format!("{field} {value:?} does not start with {prefix:?}")
    })
}

#[then("the enquiry period end keeps the local time that was sent")]
async fn naive_kept(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.recall_text("naive enquiry end")?;
    let shown = checks::as_text(&w.tender_field("/enquiryPeriod/endDate")?);
    ensure(timestamps::local_part(&shown) == sent, || {
        format!("sent {sent:?} without an offset, the tender shows {shown:?}")
    })
}

#[then("the item id that was sent is kept")]
async fn item_id_kept(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.recall("item id")?;
    let shown = w.tender_field("/items/0/id")?;
    ensure(shown == sent, || {
        format!("the item id {sent} came back as {shown}")
    })
}

#[then("every item has a 32-character lowercase hexadecimal id")]
async fn item_ids_hex(w: &mut TenderWorld) -> Result<(), String> {
    let items = w.tender_field("/items")?;
    let items = items.as_array().ok_or("items is not a list")?;
    items
        .iter()
        .try_for_each(|item| checks::hex_id(&item["id"]))
}

#[then("the tender the repeated request names can be read")]
async fn repeated_tender_reads(w: &mut TenderWorld) -> Result<(), String> {
    let id = w
        .created
        .last()
        .map(|t| t.id.clone())
        .ok_or("the repeated request created nothing")?;
    let path = format!("/api/2.3/tenders/{id}");
    w.read(
        "reading the tender the repeated request named",
        Actor::Other,
        &path,
    )
    .await?;
    ensure(w.data()["id"] == id.as_str(), || {
        format!("reading {path} answered another id: {}", w.data()["id"])
    })
}

#[then("the two tenders have different ids")]
async fn two_different_ids(w: &mut TenderWorld) -> Result<(), String> {
    match w.created.as_slice() {
        [first, second, ..] if !first.id.is_empty() && first.id != second.id => Ok(()),
        [first, second, ..] => Err(format!(
            "both creations answered the id {:?} / {:?}",
            first.id, second.id
        )),
        _ => Err(format!("only {} tender(s) were created", w.created.len())),
    }
}

#[then(
    "the procuring entity's contact telephone is the new one and its other fields are unchanged"
)]
async fn telephone_merged(w: &mut TenderWorld) -> Result<(), String> {
    let phone = w.recall("telephone")?;
    let now = w.tender_field("/procuringEntity")?;
    let before = w.tender_before["procuringEntity"].clone();
    if now["contactPoint"]["telephone"] != phone {
        return Err(format!(
            "the telephone is {}, expected {phone}",
            now["contactPoint"]["telephone"]
        ));
    }
    for kept in [
        "/name",
        "/identifier",
        "/address",
        "/kind",
        "/contactPoint/name",
    ] {
        if now.pointer(kept) != before.pointer(kept) {
            return Err(format!(
                "procuringEntity{kept} changed from {} to {}",
                before.pointer(kept).unwrap_or(&Value::Null),
                now.pointer(kept).unwrap_or(&Value::Null)
            ));
        }
    }
    Ok(())
}

#[then(expr = "the guarantee is {int} {word}")]
async fn guarantee_is(w: &mut TenderWorld, amount: u64, currency: String) -> Result<(), String> {
    let guarantee = w.tender_field("/guarantee")?;
    let shown = guarantee["amount"].as_f64();
    if shown != Some(amount as f64) || guarantee["currency"] != currency.as_str() {
        return Err(format!(
            "the guarantee is {guarantee}, expected {amount} {currency}"
        ));
    }
    Ok(())
}
