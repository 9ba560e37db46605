//! Steps that let the tender's dates pass: the scheduler's transitions, the auction, the
//! stand-still period.
use cucumber::{given, when};
use serde_json::Value;

use crate::world::TenderWorld;

/// The moment the tendering begins: the tender period's start, or the enquiry end.
fn tendering_start(w: &TenderWorld) -> Result<time::OffsetDateTime, String> {
    w.tender_instant("/tenderPeriod/startDate")
        .or_else(|_| w.tender_instant("/enquiryPeriod/endDate"))
}

#[given(regex = r"^the (?:tender period has started|enquiry period has ended)$")]
#[when("the tender period starts")]
pub(super) async fn tender_period_starts(w: &mut TenderWorld) -> Result<(), String> {
    let start = tendering_start(w)?;
    w.reach(start, "the start of the tender period", |t: &Value| {
        t["status"] == "active.tendering"
    })
    .await
}

#[when("the draft's tender period start has passed")]
async fn draft_start_passed(w: &mut TenderWorld) -> Result<(), String> {
    let start = tendering_start(w)?;
    w.pass_time_to(
        start + time::Duration::seconds(1),
        "the start of the draft's tender period",
    )
    .await
}

#[given("the tender period has ended")]
#[when("the tender period ends")]
async fn tender_period_ends(w: &mut TenderWorld) -> Result<(), String> {
    let end = w.tender_instant("/tenderPeriod/endDate")?;
    w.reach(end, "the end of the tender period", |t: &Value| {
        t["status"] != "active.tendering"
    })
    .await
}

/// Whether the target holds an auction for the bids it got is its business, and the spec names
/// neither the status of a tender being awarded nor an award's status before it is confirmed;
/// either way the tender must end up with an award to decide.
#[given("the tender has reached the award stage")]
pub(super) async fn award_stage(w: &mut TenderWorld) -> Result<(), String> {
    tender_period_ends(w).await?;
    if w.tender_field("/status")? == "active.auction" {
        w.run_auction().await?;
    }
    w.refresh_tender().await?;
    match super::awards::award_to_decide(w) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!(
            "after the tendering the tender (status {}) shows no award to decide",
            w.tender_field("/status")?
        )),
    }
}

#[when("the auction ends")]
async fn auction_ends(w: &mut TenderWorld) -> Result<(), String> {
    w.run_auction().await
}

/// The moment just after the stand-still period (`complaintPeriod`) of the award `pick`
/// chooses among the tender's awards as read now; `missing` says what was not found.
pub(super) async fn after_stand_still(
    w: &mut TenderWorld,
    pick: impl Fn(&[Value]) -> Option<&Value>,
    missing: &str,
) -> Result<time::OffsetDateTime, String> {
    w.refresh_tender().await?;
    let awards = w.tender_field("/awards")?;
    let end = awards
        .as_array()
        .and_then(|a| pick(a))
        .and_then(|award| award.pointer("/complaintPeriod/endDate"))
        .and_then(Value::as_str)
        .and_then(crate::exchange::timestamps::parse)
        .ok_or(missing)?;
    Ok(end + time::Duration::seconds(1))
}

#[given("the award's stand-still period has ended")]
pub(super) async fn stand_still_ends(w: &mut TenderWorld) -> Result<(), String> {
    let missing = "the tender has no active award with a complaintPeriod.endDate";
    let after = after_stand_still(
        w,
        |awards| awards.iter().find(|award| award["status"] == "active"),
        missing,
    )
    .await?;
    w.pass_time_to(after, "the end of the award's stand-still period")
        .await
}
