//! Awards: the owner's decision on the best remaining bid.

use super::complaint::Complaint;
use super::lot::LotStatus;
use super::tender::{Tender, TenderStatus};
use super::tender_contract::{Contract, ContractStatus};
use crate::domain::lookup::ById;
use crate::domain::records::course::lifecycle;
use crate::domain::records::course::working_days::add_working_days;
use crate::domain::values::document::Documents;
use crate::domain::values::ids;
use crate::domain::values::money::{Money, Period};
use crate::domain::values::organization::Organization;
use crate::domain::values::parse::{Obj, Sent};
use crate::domain::values::time::{Timestamp, Zone};
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};

/// The stand-still after a decision, in working days.
pub const STAND_STILL_DAYS: u32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AwardStatus {
    Pending,
    Active,
    Unsuccessful,
    Cancelled,
}

impl AwardStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AwardStatus::Pending => "pending",
            AwardStatus::Active => "active",
            AwardStatus::Unsuccessful => "unsuccessful",
            AwardStatus::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Award {
    pub id: String,
    #[serde(rename = "bid_id")]
    pub bid_id: String,
    /// The lot awarded, in a tender with lots.
    #[serde(rename = "lotID", skip_serializing_if = "Option::is_none")]
    pub lot_id: Option<String>,
    pub status: AwardStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub date: Timestamp,
    pub value: Money,
    pub suppliers: Vec<Organization>,
    pub complaint_period: Period,
    /// The qualification decision protocol and other documents of the decision.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Documents,
    /// Claims on the decision; their authors are always shown.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "super::views::complaints_with_authors"
    )]
    pub complaints: Vec<Complaint>,
}

impl Award {
    pub fn new(
        bid_id: String,
        lot_id: Option<String>,
        value: Money,
        suppliers: Vec<Organization>,
        now: Timestamp,
    ) -> Award {
        Award {
            id: ids::new_id(),
            bid_id,
            lot_id,
            status: AwardStatus::Pending,
            title: None,
            description: None,
            date: now,
            value,
            suppliers,
            complaint_period: Period {
                start_date: Some(now),
                end_date: None,
            },
            documents: Vec::new(),
            complaints: Vec::new(),
        }
    }
}

impl Tender {
    pub fn award(&self, id: &str) -> Result<&Award, Refusal> {
        self.awards.by_id(id, "award_id")
    }

    /// The owner's decision on an award: `pending` → `active` (a contract is prepared),
    /// `pending` → `unsuccessful` (the next bid is awarded), `active` → `cancelled` (its
    /// contract is cancelled and the bid is awarded anew, pending). `title` and
    /// `description` may change in any status.
    pub fn decide_award(&mut self, id: &str, sent: &Sent<'_>) -> Result<Change, Refusal> {
        let &Sent { data, cx, now } = sent;
        let index = self.awards.index_by_id(id, "award_id")?;
        let mut o = Obj::new(data, cx, "Award")?;
        o.skip(&[
            "id",
            "bid_id",
            "date",
            "value",
            "suppliers",
            "complaintPeriod",
            "documents",
            "complaints",
            "lotID",
        ]);
        let statuses = ["pending", "active", "unsuccessful", "cancelled"];
        let status = o.choice("status", &statuses);
        let title: Option<String> = o.opt("title");
        let description: Option<String> = o.opt("description");
        o.done(|| Some(()))?;
        if !matches!(
            self.status,
            TenderStatus::ActiveQualification | TenderStatus::ActiveAwarded
        ) {
            return Err(Refusal::phase(format!(
                "Can't update award in current ({}) tender status",
                self.status
            )));
        }
        if self.lot_status(&self.awards[index].lot_id) != LotStatus::Active {
            return Err(Refusal::phase("Can update award only in active lot status"));
        }
        let zone = cx.zone;
        let accelerator = lifecycle::accelerator(self);
        let award = &self.awards[index];
        let from = award.status;
        let to = match status.as_deref() {
            Some("pending") => AwardStatus::Pending,
            Some("active") => AwardStatus::Active,
            Some("unsuccessful") => AwardStatus::Unsuccessful,
            Some("cancelled") => AwardStatus::Cancelled,
            _ => from,
        };
        let mut change = Change::None;
        if title.is_some() && title != award.title
            || description.is_some() && description != award.description
        {
            let award = &mut self.awards[index];
            award.title = title.or(award.title.take());
            award.description = description.or(award.description.take());
            change = Change::Public;
        }
        match (from, to) {
            (f, t) if f == t => {}
            (AwardStatus::Pending, AwardStatus::Active) => {
                self.settle_award(index, to, now, &zone, accelerator);
                self.prepare_contract(index, now);
                lifecycle::add_next_award(self, now);
                change = Change::Public;
            }
            (AwardStatus::Pending, AwardStatus::Unsuccessful) => {
                self.settle_award(index, to, now, &zone, accelerator);
                lifecycle::add_next_award(self, now);
                change = Change::Public;
            }
            (AwardStatus::Active, AwardStatus::Cancelled) => {
                self.cancel_awards(&[index], now);
                lifecycle::add_next_award(self, now);
                change = Change::Public;
            }
            // A disqualification the bidder's claim put in doubt is reconsidered: this award
            // and every later one of its lot go, and the lot is awarded anew.
            (AwardStatus::Unsuccessful, AwardStatus::Cancelled)
                if self.awards[index]
                    .complaints
                    .iter()
                    .any(|c| c.status.reopens_award()) =>
            {
                let lot = self.awards[index].lot_id.clone();
                let later: Vec<usize> = (index..self.awards.len())
                    .filter(|i| self.awards[*i].lot_id == lot)
                    .collect();
                self.cancel_awards(&later, now);
                lifecycle::add_next_award(self, now);
                change = Change::Public;
            }
            _ => {
                return Err(Refusal::phase(format!(
                    "Can't update award in current ({}) status",
                    from.as_str()
                )));
            }
        }
        Ok(change)
    }

    /// Cancels awards: each one's stand-still ends now (an active award's no later than it
    /// would have), its open claims are cancelled and its contracts with it.
    fn cancel_awards(&mut self, indexes: &[usize], now: Timestamp) {
        let mut cancelled = Vec::new();
        for &i in indexes {
            let award = &mut self.awards[i];
            let end = match award.status {
                AwardStatus::Active => award.complaint_period.end_date.map_or(now, |e| e.min(now)),
                _ => now,
            };
            award.status = AwardStatus::Cancelled;
            award.date = now;
            award.complaint_period.end_date = Some(end);
            for claim in award.complaints.iter_mut() {
                claim.cancel_with_award(now);
            }
            cancelled.push(award.id.clone());
        }
        for contract in self
            .contracts
            .iter_mut()
            .filter(|c| cancelled.contains(&c.award_id) && c.status != ContractStatus::Cancelled)
        {
            contract.status = ContractStatus::Cancelled;
            contract.date = now;
        }
    }

    fn settle_award(
        &mut self,
        index: usize,
        to: AwardStatus,
        now: Timestamp,
        zone: &Zone,
        accelerator: Option<u32>,
    ) {
        let award = &mut self.awards[index];
        award.status = to;
        award.date = now;
        award.complaint_period.end_date =
            Some(add_working_days(zone, now, STAND_STILL_DAYS, accelerator));
    }

    fn prepare_contract(&mut self, award_index: usize, now: Timestamp) {
        let award = &self.awards[award_index];
        let contract = Contract {
            id: ids::new_id(),
            contract_id: format!("{}-{}", self.tender_id, self.contracts.len() + 1),
            award_id: award.id.clone(),
            status: ContractStatus::Pending,
            title: None,
            description: None,
            contract_number: None,
            value: award.value.clone(),
            items: self.items_of(&award.lot_id),
            suppliers: award.suppliers.clone(),
            date_signed: None,
            period: None,
            documents: Vec::new(),
            date: now,
        };
        self.contracts.push(contract);
    }
}
