//! The tender: its fields, its creation (single- and two-phase) and the owner's changes.

use super::award::Award;
use super::bid::Bid;
use super::cancellation::Cancellation;
use super::complaint::Complaint;
use super::lot::{Lot, NewLot, check_lots, sum_up};
use super::question::Question;
use super::tender_contract::Contract;
use crate::domain::input::{Fields, Input};
use crate::domain::values::document::Documents;
use crate::domain::values::ids::TokenHash;
use crate::domain::values::item::{Feature, Item, check_features, check_items};
use crate::domain::values::money::{Money, Period, PeriodEndRequired};
use crate::domain::values::organization::{ENTITY_KINDS, Organization, ProcuringEntity};
use crate::domain::values::parse::{Cx, Obj, Problem};
use crate::domain::values::test_mode;
use crate::domain::values::text::Text;
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub const PROCUREMENT_METHOD_TYPE: &str = "belowThreshold";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TenderStatus {
    #[serde(rename = "draft")]
    Draft,
    #[serde(rename = "active.enquiries")]
    ActiveEnquiries,
    #[serde(rename = "active.tendering")]
    ActiveTendering,
    #[serde(rename = "active.auction")]
    ActiveAuction,
    #[serde(rename = "active.qualification")]
    ActiveQualification,
    #[serde(rename = "active.awarded")]
    ActiveAwarded,
    #[serde(rename = "complete")]
    Complete,
    #[serde(rename = "cancelled")]
    Cancelled,
    #[serde(rename = "unsuccessful")]
    Unsuccessful,
}

impl TenderStatus {
    pub const ALL: [TenderStatus; 9] = [
        TenderStatus::Draft,
        TenderStatus::ActiveEnquiries,
        TenderStatus::ActiveTendering,
        TenderStatus::ActiveAuction,
        TenderStatus::ActiveQualification,
        TenderStatus::ActiveAwarded,
        TenderStatus::Complete,
        TenderStatus::Cancelled,
        TenderStatus::Unsuccessful,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TenderStatus::Draft => "draft",
            TenderStatus::ActiveEnquiries => "active.enquiries",
            TenderStatus::ActiveTendering => "active.tendering",
            TenderStatus::ActiveAuction => "active.auction",
            TenderStatus::ActiveQualification => "active.qualification",
            TenderStatus::ActiveAwarded => "active.awarded",
            TenderStatus::Complete => "complete",
            TenderStatus::Cancelled => "cancelled",
            TenderStatus::Unsuccessful => "unsuccessful",
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TenderStatus::Complete | TenderStatus::Cancelled | TenderStatus::Unsuccessful
        )
    }

    /// Bids, their owners and question authors are public from qualification on.
    pub fn reveals_bids(self) -> bool {
        !matches!(
            self,
            TenderStatus::Draft
                | TenderStatus::ActiveEnquiries
                | TenderStatus::ActiveTendering
                | TenderStatus::ActiveAuction
        )
    }
}

impl std::fmt::Display for TenderStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the owner states about the tender and may change while enquiries are open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TenderTerms {
    pub title: Text,
    #[serde(rename = "title_en", skip_serializing_if = "Option::is_none")]
    pub title_en: Option<Text>,
    #[serde(rename = "title_ru", skip_serializing_if = "Option::is_none")]
    pub title_ru: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Text>,
    #[serde(rename = "description_en", skip_serializing_if = "Option::is_none")]
    pub description_en: Option<Text>,
    #[serde(rename = "description_ru", skip_serializing_if = "Option::is_none")]
    pub description_ru: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub procurement_method_rationale: Option<Text>,
    pub value: Money,
    pub minimal_step: Money,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarantee: Option<Money>,
    pub enquiry_period: Period,
    pub tender_period: Period,
    pub procuring_entity: Arc<Organization>,
    pub items: Arc<Vec<Item>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<Feature>,
}

/// Reads the terms of a new tender, or (with `base`, the terms held) of a change to them;
/// the returned builder runs once the object is done.
fn read_terms<'a>(
    o: &mut Obj<'a>,
    base: Option<&TenderTerms>,
) -> impl FnOnce() -> Option<TenderTerms> + use<'a> {
    let title = o.req_or("title", base.map(|b| b.title.clone()));
    let title_en = o.opt_or("title_en", base.map(|b| b.title_en.clone()));
    let title_ru = o.opt_or("title_ru", base.map(|b| b.title_ru.clone()));
    let description = o.opt_or("description", base.map(|b| b.description.clone()));
    let description_en = o.opt_or("description_en", base.map(|b| b.description_en.clone()));
    let description_ru = o.opt_or("description_ru", base.map(|b| b.description_ru.clone()));
    let procurement_method_rationale = o.opt_or(
        "procurementMethodRationale",
        base.map(|b| b.procurement_method_rationale.clone()),
    );
    let value: Option<Money> = o.req_or("value", base.map(|b| b.value.clone()));
    let minimal_step: Option<Money> = o.req_or("minimalStep", base.map(|b| b.minimal_step.clone()));
    let guarantee = o.opt_or("guarantee", base.map(|b| b.guarantee.clone()));
    let enquiry_period = o.req_or(
        "enquiryPeriod",
        base.map(|b| PeriodEndRequired(b.enquiry_period.clone())),
    );
    let tender_period = o.req_or(
        "tenderPeriod",
        base.map(|b| PeriodEndRequired(b.tender_period.clone())),
    );
    let procuring_entity = o.req_or(
        "procuringEntity",
        base.map(|b| ProcuringEntity(b.procuring_entity.clone())),
    );
    let items: Option<Arc<Vec<Item>>> = o.req_or("items", base.map(|b| b.items.clone()));
    let features = o.opt_or("features", base.map(|b| Some(b.features.clone())));
    move || {
        Some(TenderTerms {
            title: title?,
            title_en,
            title_ru,
            description,
            description_en,
            description_ru,
            procurement_method_rationale,
            value: value?,
            minimal_step: minimal_step?,
            guarantee,
            enquiry_period: enquiry_period?.0,
            tender_period: tender_period?.0,
            procuring_entity: procuring_entity?.0,
            items: items?,
            features: features.unwrap_or_default(),
        })
    }
}

impl TenderTerms {
    /// Rules between fields, each reported on its field.
    fn check(&self, lots: &[Lot]) -> Result<(), Problem> {
        let mut problems = Vec::new();
        let step = &self.minimal_step;
        if step.amount > self.value.amount {
            problems.push((
                "minimalStep",
                Problem::msg("value should be less than value of tender"),
            ));
        } else if step.currency != self.value.currency {
            problems.push((
                "minimalStep",
                Problem::msg("currency should be identical to currency of value of tender"),
            ));
        } else if step.value_added_tax_included != self.value.value_added_tax_included {
            problems.push((
                "minimalStep",
                Problem::msg("valueAddedTaxIncluded should be identical to valueAddedTaxIncluded of value of tender"),
            ));
        }
        if let (Some(start), Some(enquiry_end)) =
            (self.tender_period.start_date, self.enquiry_period.end_date)
            && start < enquiry_end
        {
            problems.push((
                "tenderPeriod",
                Problem::msg("period should begin after enquiryPeriod"),
            ));
        }
        if self
            .tender_period
            .start_date
            .zip(self.tender_period.end_date)
            .is_some_and(|(s, e)| s > e)
        {
            problems.push((
                "tenderPeriod",
                Problem::field(
                    "startDate",
                    Problem::msg("period should begin before its end"),
                ),
            ));
        }
        if let Err(p) = check_items(&self.items) {
            problems.push(("items", p));
        }
        let lot_ids: Vec<&str> = lots.iter().map(|l| l.id.as_str()).collect();
        if let Err(p) = check_features(&self.features, &self.items, &lot_ids) {
            problems.push(("features", p));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Problem::Fields(
                problems
                    .into_iter()
                    .map(|(k, p)| (k.to_string(), p))
                    .collect(),
            ))
        }
    }

    /// Test-mode titles carry their markers in every language, created when absent.
    fn mark_test(&mut self) {
        self.title = test_mode::marked(Some(&self.title), test_mode::PREFIX);
        self.title_en = Some(test_mode::marked(
            self.title_en.as_deref(),
            test_mode::PREFIX_EN,
        ));
        self.title_ru = Some(test_mode::marked(
            self.title_ru.as_deref(),
            test_mode::PREFIX_RU,
        ));
    }
}

/// The embedded auction's period: planned start, end, and the earliest allowed start.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuctionPeriod {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_date: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_date: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub should_start_after: Option<Timestamp>,
    /// When the running auction settles, fixed as it starts; not shown.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub planned_end: Option<Timestamp>,
    /// The live auction: its bidders and their posts; not shown (its own pages show it).
    #[serde(default, skip_serializing_if = "crate::domain::stored::hidden")]
    pub live: Option<Box<super::course::live::LiveAuction>>,
}

impl AuctionPeriod {
    pub fn is_empty(&self) -> bool {
        self.start_date.is_none() && self.end_date.is_none() && self.should_start_after.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tender {
    pub id: Text,
    #[serde(rename = "tenderID")]
    pub tender_id: Text,
    pub status: TenderStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Text>,
    /// Shared with the copy a write works on, and copied only by a write that changes them.
    #[serde(flatten)]
    pub terms: Arc<TenderTerms>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lots: Vec<Lot>,
    pub procurement_method_type: Text,
    #[serde(deserialize_with = "crate::domain::stored::static_str")]
    pub procurement_method: crate::domain::stored::Word,
    #[serde(deserialize_with = "crate::domain::stored::static_str")]
    pub award_criteria: crate::domain::stored::Word,
    #[serde(deserialize_with = "crate::domain::stored::static_str")]
    pub submission_method: crate::domain::stored::Word,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub procurement_method_details: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission_method_details: Option<Text>,
    #[serde(default, skip_serializing_if = "AuctionPeriod::is_empty")]
    pub auction_period: AuctionPeriod,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auction_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub award_period: Option<Period>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Documents,
    /// Shown by the views, with or without their authors.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub questions: Vec<Question>,
    /// Shown only from qualification on, by the views. A persistent vector of shared bids:
    /// the copy a write works on shares the list and every bid with the stored tender, and
    /// copies only what it changes, however many bids the tender holds.
    #[serde(default, skip_serializing_if = "no_bids_written")]
    pub bids: imbl::Vector<Arc<Bid>>,
    /// Claims on the tender itself, shown by the views with or without their authors.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub complaints: Vec<Complaint>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub awards: Vec<Award>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contracts: Vec<Contract>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cancellations: Vec<Cancellation>,
    pub owner: Text,
    pub date: Timestamp,
    pub date_modified: Timestamp,
    /// Where the listing keeps the tender, when not at its `dateModified`: the server's
    /// moment of its last change, for a tender on a broker's own clock.
    #[serde(default, skip_serializing_if = "crate::domain::stored::hidden_or_none")]
    pub listed_at: Option<Timestamp>,
    /// The test clock the tender lives on, when not its owner's: chosen at creation, never
    /// changed, and followed by everything under the tender (see [`Tender::clock_key`]).
    #[serde(default, skip_serializing_if = "crate::domain::stored::hidden_or_none")]
    pub clock: Option<Text>,
    #[serde(rename = "next_check", skip_serializing_if = "Option::is_none")]
    pub next_check: Option<Timestamp>,
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub owner_token: TokenHash,
    /// The base address the owner used, for the auction's addresses.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub origin: Text,
}

/// Bids are hidden from the public form; a stored record without bids leaves them out (the
/// durable store keeps a tender's bids in rows of their own).
fn no_bids_written(bids: &imbl::Vector<Arc<Bid>>) -> bool {
    bids.is_empty() || crate::domain::stored::hidden(bids)
}

/// Names the client may send in a tender but never set (dropped without a word).
const READ_ONLY: [&str; 21] = [
    "lots",
    "id",
    "tenderID",
    "owner",
    "date",
    "dateModified",
    "next_check",
    "procurementMethod",
    "awardCriteria",
    "submissionMethod",
    "auctionPeriod",
    "auctionUrl",
    "awardPeriod",
    "documents",
    "questions",
    "bids",
    "numberOfBids",
    "awards",
    "contracts",
    "cancellations",
    "complaints",
];
/// The names of [`TenderTerms`] as the client sends them.
const TERM_NAMES: [&str; 15] = [
    "title",
    "title_en",
    "title_ru",
    "description",
    "description_en",
    "description_ru",
    "procurementMethodRationale",
    "value",
    "minimalStep",
    "guarantee",
    "enquiryPeriod",
    "tenderPeriod",
    "procuringEntity",
    "items",
    "features",
];
/// Settable at creation only.
const CREATE_ONLY: [&str; 3] = ["mode", "procurementMethodType", "status"];
/// Settable at creation only, and only on a server in testing mode.
const SANDBOX: [&str; 2] = ["procurementMethodDetails", "submissionMethodDetails"];

/// A validated creation request.
#[derive(Debug, Clone)]
pub struct NewTender {
    pub terms: TenderTerms,
    /// Dated when the tender is created.
    pub lots: Vec<Lot>,
    pub draft: bool,
    pub mode: Option<String>,
    pub procurement_method_details: Option<String>,
    pub submission_method_details: Option<String>,
}

impl NewTender {
    /// Reads a creation body. An unknown procedure type is refused before anything else.
    pub fn parse(data: &Input<'_>, cx: &Cx) -> Result<NewTender, Refusal> {
        if let Some(kind) = data.get("procurementMethodType").and_then(Input::as_str)
            && kind != PROCUREMENT_METHOD_TYPE
        {
            return Err(Refusal::Unsupported {
                location: "data",
                name: "procurementMethodType",
                description: "Not implemented".into(),
            });
        }
        let mut o = Obj::new(data, cx, "Tender")?;
        let lots: Option<Vec<NewLot>> = o.opt("lots");
        o.skip(&READ_ONLY);
        let statuses: Vec<&str> = TenderStatus::ALL.iter().map(|s| s.as_str()).collect();
        let status = o.choice("status", &statuses);
        let mode = o.choice("mode", &["test"]);
        let _type: Option<String> = o.req("procurementMethodType");
        let (pmd, smd) = if cx.testing {
            (
                o.opt("procurementMethodDetails"),
                o.opt("submissionMethodDetails"),
            )
        } else {
            (None, None)
        };
        let build = read_terms(&mut o, None);
        let mut terms = o.done(build)?;
        let undated = cx.zone.at(time::OffsetDateTime::UNIX_EPOCH);
        let mut lots: Vec<Lot> = lots
            .unwrap_or_default()
            .into_iter()
            .map(|l| l.into_lot(undated))
            .collect();
        let problems = check_lots(&lots, &terms);
        if !problems.is_empty() {
            return Err(Refusal::Invalid(problems));
        }
        sum_up(&mut terms, &mut lots);
        terms.check(&lots)?;
        let kind = terms.procuring_entity.kind.clone().unwrap_or_default();
        if !ENTITY_KINDS.contains(&kind.as_str()) {
            return Err(Refusal::Forbidden {
                location: "procuringEntity",
                name: "kind",
                description: format!(
                    "'{kind}' procuringEntity cannot publish this type of procedure. Only general, special, defense, other are allowed."
                ),
            });
        }
        if mode.is_some() {
            terms.mark_test();
        }
        Ok(NewTender {
            terms,
            lots,
            draft: status.as_deref() == Some("draft"),
            mode,
            procurement_method_details: pmd,
            submission_method_details: smd,
        })
    }
}

impl NewTender {
    /// The request as created at `now`: with the period starts the service sets (enquiries
    /// start now, tendering at the enquiry end), checked as upstream checked the tender it
    /// stored, so a period whose end has already passed, which would begin after it, is
    /// refused.
    pub fn starting(mut self, now: Timestamp) -> Result<NewTender, Refusal> {
        let terms = &mut self.terms;
        terms.enquiry_period.start_date = Some(now);
        terms.tender_period.start_date = terms.enquiry_period.end_date;
        let mut problems = Vec::new();
        for (name, period) in [
            ("enquiryPeriod", &terms.enquiry_period),
            ("tenderPeriod", &terms.tender_period),
        ] {
            if period
                .start_date
                .zip(period.end_date)
                .is_some_and(|(start, end)| start > end)
            {
                problems.push((
                    name.to_string(),
                    Problem::field(
                        "startDate",
                        Problem::msg("period should begin before its end"),
                    ),
                ));
            }
        }
        if problems.is_empty() {
            Ok(self)
        } else {
            Err(Refusal::Invalid(problems))
        }
    }
}

impl Tender {
    /// Where the listing keeps the tender: its `listed_at`, else its `dateModified`.
    pub fn listing_key(&self) -> Timestamp {
        self.listed_at.unwrap_or(self.date_modified)
    }

    /// The tender living on the test clock `clock` (with `None`, on its owner's), as made at
    /// that clock's now: chosen once, at its creation.
    pub fn on_clock(mut self, clock: Option<String>) -> Tender {
        self.clock = clock.map(Text::from);
        self
    }

    /// The key of the clock the tender lives on: its test clock's id, else its owner's name.
    pub fn clock_key(&self) -> &str {
        self.clock.as_deref().unwrap_or(&self.owner)
    }

    /// A new tender from a request [`NewTender::starting`] now: in `draft` when asked,
    /// otherwise published at once in `active.enquiries`.
    pub fn create(
        input: NewTender,
        id: String,
        tender_id: String,
        owner: String,
        owner_token: TokenHash,
        origin: String,
        now: Timestamp,
    ) -> Tender {
        let mut tender = Tender {
            id: id.into(),
            tender_id: tender_id.into(),
            status: if input.draft {
                TenderStatus::Draft
            } else {
                TenderStatus::ActiveEnquiries
            },
            mode: input.mode.map(Text::from),
            terms: Arc::new(input.terms),
            lots: input
                .lots
                .into_iter()
                .map(|l| Lot { date: now, ..l })
                .collect(),
            procurement_method_type: PROCUREMENT_METHOD_TYPE.into(),
            procurement_method: "open",
            award_criteria: "lowestCost",
            submission_method: "electronicAuction",
            procurement_method_details: input.procurement_method_details.map(Text::from),
            submission_method_details: input.submission_method_details.map(Text::from),
            auction_period: AuctionPeriod::default(),
            auction_url: None,
            award_period: None,
            documents: Vec::new(),
            questions: Vec::new(),
            bids: imbl::Vector::new(),
            awards: Vec::new(),
            contracts: Vec::new(),
            cancellations: Vec::new(),
            complaints: Vec::new(),
            owner: owner.into(),
            date: now,
            date_modified: now,
            listed_at: None,
            clock: None,
            next_check: None,
            owner_token,
            origin: origin.into(),
        };
        tender.next_check = tender.compute_next_check(now);
        tender
    }

    pub fn is_test(&self) -> bool {
        self.mode.is_some()
    }

    pub fn item_ids(&self) -> Vec<&str> {
        self.terms.items.iter().map(|i| i.id.as_str()).collect()
    }

    /// The owner's PATCH of the tender itself.
    ///
    /// In `draft` only publication is accepted (the rest of the body is ignored, so a client
    /// may send back the whole object). While enquiries are open the terms may change; later
    /// nothing changes but the answer is still 200; in a terminal status the PATCH is refused.
    pub fn patch(&mut self, data: &Input<'_>, cx: &Cx, now: Timestamp) -> Result<Change, Refusal> {
        let empty = Fields::default();
        let patch = data.as_object().unwrap_or(&empty);
        if self.status.is_terminal() {
            return Err(Refusal::phase(format!(
                "Can't update tender in current ({}) status",
                self.status
            )));
        }
        if self.status == TenderStatus::Draft {
            if patch.get("status").and_then(Input::as_str)
                != Some(TenderStatus::ActiveEnquiries.as_str())
            {
                return Err(Refusal::phase(
                    "Can't update tender in current (draft) status",
                ));
            }
            self.status = TenderStatus::ActiveEnquiries;
            self.date = now;
            return Ok(Change::Public);
        }
        let mut rogue = Vec::new();
        let mut wanted = Fields::default();
        for (key, value) in patch.iter() {
            if TERM_NAMES.contains(&key) {
                if !value.is_null() {
                    wanted.insert(key, value.clone());
                }
            } else if !(READ_ONLY.contains(&key)
                || CREATE_ONLY.contains(&key)
                || (cx.testing && SANDBOX.contains(&key)))
            {
                rogue.push((key.to_string(), Problem::Rogue));
            }
        }
        if self.status != TenderStatus::ActiveEnquiries {
            return if rogue.is_empty() {
                Ok(Change::None)
            } else {
                Err(Refusal::Invalid(rogue))
            };
        }
        // The entity's kind is fixed at creation.
        if let Some(Input::Object(entity)) = wanted.get_mut("procuringEntity") {
            let kind = self.terms.procuring_entity.kind.clone();
            entity.insert(
                "kind",
                kind.map_or(Input::Null, |k| Input::String(String::from(k).into())),
            );
        }
        let wanted = Input::Object(wanted);
        let mut problems = rogue;
        let mut o = Obj::new(&wanted, cx, "Tender").map_err(Refusal::from)?;
        let build = read_terms(&mut o, Some(&self.terms));
        let terms = match o.done(build) {
            Ok(terms) => Some(terms),
            Err(p) => {
                problems.extend(p.into_fields());
                None
            }
        };
        let Some(mut terms) = terms.filter(|_| problems.is_empty()) else {
            return Err(Refusal::Invalid(problems));
        };
        // The service sets the tendering start at the enquiry end (spec), on every change.
        terms.tender_period.start_date = terms.enquiry_period.end_date;
        for (name, old, new) in [
            (
                "enquiryPeriod",
                &self.terms.enquiry_period,
                &terms.enquiry_period,
            ),
            (
                "tenderPeriod",
                &self.terms.tender_period,
                &terms.tender_period,
            ),
        ] {
            if old.start_date.is_some() && new.start_date.is_none() {
                problems.push((
                    name.to_string(),
                    Problem::field("startDate", Problem::msg("This field cannot be deleted")),
                ));
            }
        }
        let mut lots = self.lots.clone();
        sum_up(&mut terms, &mut lots);
        if let Err(p) = terms.check(&lots) {
            problems.extend(p.into_fields());
        }
        problems.extend(check_lots(&lots, &terms));
        if !problems.is_empty() {
            return Err(Refusal::Invalid(problems));
        }
        if self.is_test() {
            terms.mark_test();
        }
        if terms == *self.terms && lots == self.lots {
            return Ok(Change::None);
        }
        self.terms = Arc::new(terms);
        self.lots = lots;
        Ok(Change::Public)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::values::time::Zone;
    use serde_json::json;

    fn cx() -> Cx {
        Cx::kyiv(true)
    }

    /// A tender using every optional field the terms have.
    /// A tender published at 2030-01-01 00:00 Kyiv from [`full`], with its parsing context.
    pub(crate) fn published() -> (Tender, Cx, Timestamp) {
        let zone = Zone::named("Europe/Kyiv").expect("zone");
        let cx = Cx {
            zone,
            testing: true,
        };
        let now = zone.parse("2030-01-01T00:00").expect("date");
        let input = NewTender::parse(&Input::view(&full()), &cx)
            .and_then(|i| i.starting(now))
            .expect("valid, its periods ahead");
        let t = Tender::create(
            input,
            crate::domain::values::ids::new_id(),
            "UA-1".into(),
            "broker".into(),
            crate::domain::values::ids::new_token().1,
            "http://h".into(),
            now,
        );
        (t, cx, now)
    }

    pub(crate) fn full() -> serde_json::Value {
        let org = json!({
            "name": "Школа", "name_en": "School", "name_ru": "Школа",
            "identifier": {"scheme": "UA-EDR", "id": "1", "uri": "http://school.ua/", "legalName": "Школа №1", "legalName_en": "School 1", "legalName_ru": "Школа 1"},
            "additionalIdentifiers": [{"scheme": "UA-EDR", "id": "2"}],
            "address": {"streetAddress": "вул. 1", "locality": "Київ", "region": "Київ", "postalCode": "01001", "countryName": "Україна", "countryName_en": "Ukraine", "countryName_ru": "Украина"},
            "contactPoint": {"name": "Іван", "name_en": "Ivan", "name_ru": "Иван", "email": "i@school.ua", "telephone": "+380", "faxNumber": "+381", "url": "http://school.ua/i"},
            "kind": "general"
        });
        json!({
            "procurementMethodType": "belowThreshold",
            "title": "Т", "title_en": "T", "title_ru": "Т", "description": "О", "description_en": "D", "description_ru": "О",
            "procurementMethodRationale": "Р",
            "value": {"amount": 500, "currency": "UAH", "valueAddedTaxIncluded": false},
            "minimalStep": {"amount": 5, "currency": "UAH", "valueAddedTaxIncluded": false},
            "guarantee": {"amount": 10, "currency": "USD"},
            "enquiryPeriod": {"startDate": "2030-01-01T00:00", "endDate": "2030-01-10T00:00"},
            "tenderPeriod": {"startDate": "2030-01-10T00:00", "endDate": "2030-01-20T00:00"},
            "procuringEntity": org,
            "items": [{
                "id": "1", "description": "П", "description_en": "P", "description_ru": "Б",
                "classification": {"scheme": "ДК021", "id": "30192700-8", "description": "Папір", "description_en": "Paper", "uri": "http://cpv/1"},
                "additionalClassifications": [{"scheme": "ДКПП", "id": "17.12", "description": "Папір"}],
                "unit": {"code": "RM", "name": "пачка"}, "quantity": 3,
                "deliveryDate": {"startDate": "2030-02-01", "endDate": "2030-02-02"},
                "deliveryAddress": {"countryName": "Україна"},
                "deliveryLocation": {"latitude": 50.45, "longitude": "30.52", "elevation": 1}
            }],
            "features": [{
                "code": "q", "featureOf": "item", "relatedItem": "1", "title": "Якість", "title_en": "Quality", "title_ru": "Качество",
                "description": "о", "description_en": "d", "description_ru": "о",
                "enum": [{"value": 0.0, "title": "ні", "title_en": "no", "description": "д"}, {"value": 0.1, "title": "так"}]
            }]
        })
    }

    #[test]
    fn terms_read_back_what_they_show() {
        let input = NewTender::parse(&Input::view(&full()), &cx()).expect("a valid tender");
        let shown = serde_json::to_value(&input.terms).expect("serializes");
        let cx = cx();
        let view = Input::view(&shown);
        let mut o = Obj::new(&view, &cx, "Tender").expect("an object");
        let build = read_terms(&mut o, None);
        let again = o.done(build).expect("what is shown reads back");
        assert_eq!(again, input.terms);
        assert_eq!(
            shown["procuringEntity"]["identifier"]["legalName_en"],
            "School 1"
        );
        assert_eq!(shown["items"][0]["deliveryLocation"]["longitude"], "30.52");
        assert_eq!(shown["features"][0]["enum"][1]["value"], 0.1);
    }

    /// A PATCH merges what it sends into the terms held (objects field by field, lists
    /// entry by entry), keeps what it leaves out, never changes the entity's kind, and
    /// leaves the tender as it was when refused.
    #[test]
    fn a_patch_merges_into_the_terms_and_keeps_the_rest() {
        let (mut t, cx, now) = published();
        let before = serde_json::to_value(&*t.terms).expect("serializes");
        let change = t.patch(
            &Input::view(&json!({
                "description": "new",
                "title": null,
                "value": {"amount": 999_999},
                "procuringEntity": {"name": "Ліцей", "kind": "other"},
                "items": [{"description": "changed"}]
            })),
            &cx,
            now,
        );
        assert_eq!(change.ok(), Some(Change::Public));
        let mut expected = before.clone();
        expected["description"] = json!("new");
        expected["value"]["amount"] = json!(999_999.0);
        expected["procuringEntity"]["name"] = json!("Ліцей");
        expected["items"][0]["description"] = json!("changed");
        expected["items"]
            .as_array_mut()
            .expect("a list")
            .truncate(1);
        assert_eq!(
            serde_json::to_value(&*t.terms).expect("serializes"),
            expected
        );

        let held = t.clone();
        let refused = t.patch(
            &Input::view(&json!({"description": "other", "value": {"currency": 5}, "procuringEntity": {"name": null}})),
            &cx,
            now,
        );
        let Err(Refusal::Invalid(problems)) = refused else {
            panic!("refused as invalid: {refused:?}");
        };
        let leaves: Vec<(String, String)> = problems
            .into_iter()
            .flat_map(|(name, p)| p.leaves(&name))
            .collect();
        assert_eq!(
            leaves,
            [
                (
                    "value.currency".to_string(),
                    "String value is too short.".to_string()
                ),
                (
                    "procuringEntity.name".to_string(),
                    "This field is required.".to_string()
                ),
            ]
        );
        assert_eq!(t, held);
    }

    #[test]
    fn test_mode_marks_titles_once() {
        let mut body = full();
        body["mode"] = json!("test");
        body["title"] = json!("[ТЕСТУВАННЯ] Т");
        let input = NewTender::parse(&Input::view(&body), &cx()).expect("valid");
        assert_eq!(input.terms.title, "[ТЕСТУВАННЯ] Т");
        assert_eq!(input.terms.title_en.as_deref(), Some("[TESTING] T"));
        assert_eq!(input.terms.title_ru.as_deref(), Some("[ТЕСТИРОВАНИЕ] Т"));
    }

    #[test]
    fn status_at_creation_is_a_choice_and_only_draft_counts() {
        let mut body = full();
        body["status"] = json!("complete");
        assert!(
            !NewTender::parse(&Input::view(&body), &cx())
                .expect("a valid choice is dropped")
                .draft
        );
        body["status"] = json!("finished");
        assert!(
            matches!(NewTender::parse(&Input::view(&body), &cx()), Err(Refusal::Invalid(f)) if f[0].0 == "status")
        );
    }
}
