//! Cancellations: the owner's request to stop a tender, with its reason and documents.
//!
//! A cancellation is made `pending` (no effect) or `active`; an active one cancels what it
//! names: the whole tender, or the lot of its `relatedLot`.

use super::award::AwardStatus;
use super::course::lifecycle;
use super::lot::LotStatus;
use super::tender::{Tender, TenderStatus};
use super::tender_contract::ContractStatus;
use crate::domain::lookup::ById;
use crate::domain::values::document::Documents;
use crate::domain::values::ids;
use crate::domain::values::parse::{Obj, Problem, REQUIRED, Sent};
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CancellationStatus {
    Pending,
    Active,
}

/// What a cancellation cancels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CancellationOf {
    Tender,
    Lot,
}

const STATUSES: [&str; 2] = ["pending", "active"];
const OF: [&str; 2] = ["tender", "lot"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cancellation {
    pub id: String,
    pub reason: String,
    pub status: CancellationStatus,
    pub cancellation_of: CancellationOf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_lot: Option<String>,
    pub date: Timestamp,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Documents,
}

impl Tender {
    pub fn cancellation(&self, id: &str) -> Result<&Cancellation, Refusal> {
        self.cancellations.by_id(id, "cancellation_id")
    }

    /// Cancellations are accepted while the tender is not in a terminal status, and one of
    /// a lot while the lot is active.
    fn cancellation_window(&self, verb: &str, lot: &Option<String>) -> Result<(), Refusal> {
        if self.status.is_terminal() {
            return Err(Refusal::phase(format!(
                "Can't {verb} cancellation in current ({}) tender status",
                self.status
            )));
        }
        if lot.is_some() && self.lot_status(lot) != LotStatus::Active {
            return Err(Refusal::phase(format!(
                "Can {verb} cancellation only in active lot status"
            )));
        }
        Ok(())
    }

    /// The owner's POST: `reason` is required; `status: active` cancels at once. Returns the
    /// new cancellation's id.
    pub fn add_cancellation(&mut self, sent: &Sent<'_>) -> Result<String, Refusal> {
        let &Sent { data, cx, now } = sent;
        let mut o = Obj::new(data, cx, "Cancellation")?;
        o.skip(&["id", "date", "documents"]);
        let reason: Option<String> = o.req("reason");
        let status = o.choice("status", &STATUSES);
        let of = o.choice("cancellationOf", &OF);
        let related_lot: Option<String> = o.opt("relatedLot");
        match (of.as_deref(), &related_lot) {
            (Some("lot"), None) => o.fail("relatedLot", Problem::msg(REQUIRED)),
            (_, Some(lot)) if !self.lots.iter().any(|l| &l.id == lot) => o.fail(
                "relatedLot",
                Problem::msg("relatedLot should be one of lots"),
            ),
            _ => {}
        }
        let reason = o.done(|| reason)?;
        self.cancellation_window("add", &related_lot)?;
        let cancellation = Cancellation {
            id: ids::new_id(),
            reason,
            status: CancellationStatus::Pending,
            // Upstream decides by `relatedLot`, not by `cancellationOf`: a tender
            // cancellation naming a lot cancels the lot.
            cancellation_of: if related_lot.is_some() {
                CancellationOf::Lot
            } else {
                CancellationOf::Tender
            },
            related_lot,
            date: now,
            documents: Vec::new(),
        };
        let id = cancellation.id.clone();
        self.cancellations.push(cancellation);
        if status.as_deref() == Some("active") {
            self.activate_cancellation(&id, now);
        }
        Ok(id)
    }

    /// The owner's PATCH: only `status` may change (`pending` → `active`); every PATCH
    /// stamps the cancellation's `date`, so it always saves.
    pub fn change_cancellation(&mut self, id: &str, sent: &Sent<'_>) -> Result<Change, Refusal> {
        let &Sent { data, cx, now } = sent;
        let lot = self.cancellation(id)?.related_lot.clone();
        let mut o = Obj::new(data, cx, "Cancellation")?;
        o.skip(&[
            "id",
            "date",
            "documents",
            "reason",
            "reason_en",
            "reason_ru",
            "cancellationOf",
            "relatedLot",
        ]);
        let status = o.choice("status", &STATUSES);
        o.done(|| Some(()))?;
        self.cancellation_window("update", &lot)?;
        let cancellation = self.cancellations.by_id_mut(id, "cancellation_id")?;
        cancellation.date = now;
        if status.as_deref() == Some("active") && cancellation.status == CancellationStatus::Pending
        {
            self.activate_cancellation(id, now);
        }
        Ok(Change::Public)
    }

    /// An active cancellation cancels the tender: bids not yet revealed are deleted, awards
    /// and contracts stay as they are, and no transition by date is due any more.
    fn activate_cancellation(&mut self, id: &str, now: Timestamp) {
        let Some(c) = self.cancellations.iter_mut().find(|c| c.id == id) else {
            return;
        };
        c.status = CancellationStatus::Active;
        c.date = now;
        let lot = c.related_lot.clone();
        if lot.is_none() {
            self.end(TenderStatus::Cancelled, now);
            return;
        }
        // The lot's open awards and contracts end with it.
        for award in self.awards.iter_mut().filter(|a| a.lot_id == lot) {
            if matches!(award.status, AwardStatus::Pending | AwardStatus::Active) {
                award.status = AwardStatus::Cancelled;
                award.date = now;
                let end = award.complaint_period.end_date.map_or(now, |e| e.min(now));
                award.complaint_period.end_date = Some(end);
                for contract in self.contracts.iter_mut().filter(|c| c.award_id == award.id) {
                    if contract.status == ContractStatus::Pending {
                        contract.status = ContractStatus::Cancelled;
                        contract.date = now;
                    }
                }
            }
        }
        self.set_lot_status(&lot, LotStatus::Cancelled, now);
        // The auctions still awaited may all be over without this lot's.
        if self.status == TenderStatus::ActiveAuction {
            lifecycle::award_when_auctions_are_over(self, now);
        } else if matches!(
            self.status,
            TenderStatus::ActiveQualification | TenderStatus::ActiveAwarded
        ) {
            lifecycle::add_next_award(self, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::input::Input;
    use crate::domain::records::tender::tests::published as setup;
    use serde_json::json;

    #[test]
    fn a_pending_cancellation_only_stamps_its_date() {
        let (mut t, cx, now) = setup();
        let id = t
            .add_cancellation(&Sent {
                data: &Input::view(&json!({"reason": "r"})),
                cx: &cx,
                now,
            })
            .expect("made");
        assert_eq!(t.status, TenderStatus::ActiveEnquiries);
        let later = now.plus(time::Duration::minutes(1));
        let change = t
            .change_cancellation(
                &id,
                &Sent {
                    data: &Input::view(&json!({"status": "pending", "reason": "new"})),
                    cx: &cx,
                    now: later,
                },
            )
            .expect("accepted");
        let c = t.cancellation(&id).expect("kept");
        assert_eq!(
            (change, c.date, c.reason.as_str()),
            (Change::Public, later, "r")
        );
        assert_eq!(t.status, TenderStatus::ActiveEnquiries);
        t.change_cancellation(
            &id,
            &Sent {
                data: &Input::view(&json!({"status": "active"})),
                cx: &cx,
                now: later,
            },
        )
        .expect("activated");
        assert_eq!(t.status, TenderStatus::Cancelled);
        assert_eq!(t.compute_next_check(later), None);
    }

    #[test]
    fn a_bad_body_is_422_before_a_terminal_tender_is_403() {
        let (mut t, cx, now) = setup();
        t.status = TenderStatus::Complete;
        assert!(matches!(
            t.add_cancellation(&Sent { data: &Input::view(&json!({})), cx: &cx, now }),
            Err(Refusal::Invalid(f)) if f[0].0 == "reason"
        ));
        assert_eq!(
            t.add_cancellation(&Sent {
                data: &Input::view(&json!({"reason": "r"})),
                cx: &cx,
                now
            }),
            Err(Refusal::phase(
                "Can't add cancellation in current (complete) tender status"
            ))
        );
        assert!(t.cancellations.is_empty());
    }
}
