//! Bids: registered step by step (draft, then active) or in one batch with documents.
//!
//! Bid activity is confidential while tendering: it never refreshes the tender's
//! `dateModified`, and only the bid's own token reads it.

use super::tender::{Tender, TenderStatus};
use crate::domain::input::Input;
use crate::domain::lookup::ById;
use crate::domain::values::document::{DocumentInput, DocumentRecord, Documents, Filing, UrlStyle};
use crate::domain::values::ids::{self, TokenHash};
use crate::domain::values::item::Feature;
use crate::domain::values::merge::merge;
use crate::domain::values::money::{Money, MoneyInput};
use crate::domain::values::organization::Organization;
use crate::domain::values::parse::{Cx, FromJson, Obj, Problem, Sent};
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BidStatus {
    Draft,
    Active,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    pub code: String,
    pub value: f64,
}

impl FromJson for Parameter {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Parameter")?;
        let code = o.req("code");
        let value = o.req("value");
        o.done(|| {
            Some(Parameter {
                code: code?,
                value: value?,
            })
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bid {
    pub id: String,
    pub status: BidStatus,
    /// The offer of a bid in a tender without lots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Money>,
    /// The offers of a bid in a tender with lots, one per lot it covers.
    #[serde(rename = "lotValues", default, skip_serializing_if = "Vec::is_empty")]
    pub lot_values: Vec<LotValue>,
    pub tenderers: Vec<Organization>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Documents,
    pub date: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub participation_url: Option<String>,
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub owner: String,
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub token: TokenHash,
}

/// A bid's offer on one lot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LotValue {
    pub value: Money,
    pub related_lot: String,
    /// When the offer was made or its amount last changed.
    pub date: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub participation_url: Option<String>,
}

/// A lot value as sent: the offer and its lot.
#[derive(Debug, Clone, PartialEq)]
struct LotValueInput {
    value: MoneyInput,
    related_lot: String,
}

impl FromJson for LotValueInput {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "LotValue")?;
        o.skip(&["date", "participationUrl"]);
        let value = o.req("value");
        let related_lot = o.req("relatedLot");
        o.done(|| {
            Some(LotValueInput {
                value: value?,
                related_lot: related_lot?,
            })
        })
    }
}

/// A checked offer on a lot: its value and the lot.
type Offered = (Money, String);

/// What the bidder states and may change while tendering.
#[derive(Debug, Clone, PartialEq)]
struct BidTerms {
    value: Option<MoneyInput>,
    lot_values: Vec<LotValueInput>,
    tenderers: Vec<Organization>,
    parameters: Vec<Parameter>,
    status: Option<String>,
}

const READ_ONLY: [&str; 4] = ["id", "date", "participationUrl", "owner"];

/// Reads a bid's terms: a tender with lots takes `lotValues` and no `value`.
fn read_bid_terms<'a>(
    o: &mut Obj<'a>,
    with_lots: bool,
) -> impl FnOnce() -> Option<BidTerms> + use<'a> {
    let value: Option<MoneyInput> = if with_lots {
        o.opt("value")
    } else {
        o.req("value")
    };
    if with_lots && value.is_some() {
        o.fail(
            "value",
            Problem::msg("value should be posted for each lot of bid"),
        );
    }
    let lot_values: Option<Vec<LotValueInput>> = if with_lots {
        o.req("lotValues")
    } else {
        o.opt("lotValues")
    };
    match &lot_values {
        Some(l) if with_lots && l.is_empty() => o.fail(
            "lotValues",
            Problem::msg(crate::domain::values::parse::REQUIRED),
        ),
        Some(l)
            if l.iter()
                .enumerate()
                .any(|(i, v)| l[..i].iter().any(|w| w.related_lot == v.related_lot)) =>
        {
            o.fail(
                "lotValues",
                Problem::msg("bids don't allow duplicated proposals"),
            )
        }
        _ => {}
    }
    let tenderers: Option<Vec<Organization>> = o.req("tenderers");
    match tenderers.as_ref().map(Vec::len) {
        Some(0) => o.fail("tenderers", Problem::msg("Please provide at least 1 item.")),
        Some(n) if n > 1 => o.fail(
            "tenderers",
            Problem::msg("Please provide no more than 1 item."),
        ),
        _ => {}
    }
    let parameters: Option<Vec<Parameter>> = o.opt("parameters");
    let status = o.choice("status", &["draft", "active"]);
    move || {
        Some(BidTerms {
            value: if with_lots { None } else { Some(value?) },
            lot_values: lot_values.unwrap_or_default(),
            tenderers: tenderers?,
            parameters: parameters.unwrap_or_default(),
            status,
        })
    }
}

impl Tender {
    /// Checks an offer against the value it may not exceed: the lot's, or the tender's
    /// for a bid's own value.
    fn check_offer(&self, input: &MoneyInput, lot: Option<&str>) -> (Money, Option<Problem>) {
        let (limit, whose) = match lot.and_then(|id| self.lots.iter().find(|l| l.id == id)) {
            Some(l) => (&l.terms.value, "lot"),
            None => (&self.terms.value, "tender"),
        };
        let value = input
            .clone()
            .or_defaults(&limit.currency, limit.value_added_tax_included);
        let problem = if value.amount > limit.amount {
            Some(format!("value of bid should be less than value of {whose}"))
        } else if value.currency != limit.currency {
            Some(format!(
                "currency of bid should be identical to currency of value of {whose}"
            ))
        } else if value.value_added_tax_included != limit.value_added_tax_included {
            Some(format!(
                "valueAddedTaxIncluded of bid should be identical to valueAddedTaxIncluded of value of {whose}"
            ))
        } else {
            None
        };
        (value, problem.map(Problem::msg))
    }

    /// The offers of a bid, checked: its value in a tender without lots, its lot values in
    /// one with lots. Returns the value and the lot values (not yet dated).
    fn check_bid_terms(
        &self,
        terms: &BidTerms,
        parameters_sent: bool,
    ) -> Result<(Option<Money>, Vec<Offered>), Refusal> {
        let mut problems = Vec::new();
        let mut value = None;
        if let Some(input) = &terms.value {
            let (checked, problem) = self.check_offer(input, None);
            if let Some(p) = problem {
                problems.push(("value", p));
            }
            value = Some(checked);
        }
        let mut lot_values = Vec::new();
        let mut per_lot = Vec::new();
        for lv in &terms.lot_values {
            let problem = if self.lots.iter().any(|l| l.id == lv.related_lot) {
                let (checked, problem) = self.check_offer(&lv.value, Some(&lv.related_lot));
                lot_values.push((checked, lv.related_lot.clone()));
                problem.map(|p| Problem::field("value", p))
            } else {
                Some(Problem::field(
                    "relatedLot",
                    Problem::msg("relatedLot should be one of lots"),
                ))
            };
            per_lot.push(problem.unwrap_or(Problem::NONE));
        }
        if per_lot.iter().any(|p| !p.is_none()) {
            problems.push(("lotValues", Problem::Items(per_lot)));
        }
        let lots: Vec<&str> = terms
            .lot_values
            .iter()
            .map(|l| l.related_lot.as_str())
            .collect();
        let features = self.features_of_lots(&lots);
        if let Err(p) = check_parameters(&terms.parameters, &features, parameters_sent) {
            problems.push(("parameters", p));
        }
        if problems.is_empty() {
            Ok((value, lot_values))
        } else {
            Err(Refusal::Invalid(
                problems
                    .into_iter()
                    .map(|(k, p)| (k.to_string(), p))
                    .collect(),
            ))
        }
    }

    /// Offers may name only lots still active.
    fn check_lots_active(&self, lot_values: &[Offered], verb: &str) -> Result<(), Refusal> {
        let inactive = lot_values.iter().any(|(_, lot)| {
            self.lots
                .iter()
                .any(|l| &l.id == lot && l.status != super::lot::LotStatus::Active)
        });
        if inactive {
            return Err(Refusal::phase(format!(
                "Can {verb} bid only in active lot status"
            )));
        }
        Ok(())
    }

    fn tendering_window(&self, now: Timestamp, action: &str) -> Result<(), Refusal> {
        let verb = if action == "add" { "added" } else { "updated" };
        if self.status != TenderStatus::ActiveTendering {
            return Err(Refusal::phase(format!(
                "Can't {action} bid in current ({}) tender status",
                self.status
            )));
        }
        let period = &self.terms.tender_period;
        let inside =
            period.start_date.is_none_or(|s| now >= s) && period.end_date.is_none_or(|e| now < e);
        if inside {
            return Ok(());
        }
        let show = |t: Option<Timestamp>| t.map(|t| t.to_string()).unwrap_or_default();
        Err(Refusal::phase(format!(
            "Bid can be {verb} only during the tendering period: from ({}) to ({}).",
            show(period.start_date),
            show(period.end_date)
        )))
    }

    /// Registers a bid. Without a status and with `documents` it is a batch registration,
    /// created `active`. Returns the bid and its token.
    pub fn place_bid(
        &mut self,
        data: &Input<'_>,
        cx: &Cx,
        now: Timestamp,
        owner: &str,
        api_root: &str,
        filing: &Filing<'_>,
    ) -> Result<(&Bid, String), Refusal> {
        let mut o = Obj::new(data, cx, "Bid")?;
        o.skip(&READ_ONLY);
        let build = read_bid_terms(&mut o, !self.lots.is_empty());
        // Dropped like any read-only field, except where upstream names the mistake.
        if !self.lots.is_empty() && o.has("participationUrl") {
            o.fail(
                "participationUrl",
                Problem::msg("url should be posted for each lot of bid"),
            );
        }
        let documents: Option<Vec<DocumentInput>> = o.opt("documents");
        let parameters_sent = o.has("parameters");
        let terms = o.done(build)?;
        let (value, lot_values) = self.check_bid_terms(&terms, parameters_sent)?;
        if let Some(docs) = &documents {
            let problems: Vec<Problem> = docs
                .iter()
                .map(|d| {
                    crate::domain::values::document::check_related(
                        d,
                        &self.item_ids(),
                        &self.lot_ids(),
                    )
                    .err()
                    .unwrap_or(Problem::NONE)
                })
                .collect();
            if problems.iter().any(|p| !p.is_none()) {
                return Err(Refusal::field("documents", Problem::Items(problems)));
            }
        }
        self.tendering_window(now, "add")?;
        self.check_lots_active(&lot_values, "add")?;
        let id = ids::new_id();
        let filing = filing.showing(UrlStyle::Download(format!(
            "{api_root}/tenders/{}/bids/{id}/documents",
            self.id
        )));
        let documents = documents
            .unwrap_or_default()
            .into_iter()
            .map(|d| DocumentRecord::upload(d, now, &filing).map(Arc::new))
            .collect::<Result<_, _>>()?;
        let (token, token_hash) = ids::new_token();
        self.bids.push_back(Arc::new(Bid {
            id,
            status: if terms.status.as_deref() == Some("draft") {
                BidStatus::Draft
            } else {
                BidStatus::Active
            },
            value,
            lot_values: lot_values
                .into_iter()
                .map(|(value, related_lot)| LotValue {
                    value,
                    related_lot,
                    date: now,
                    participation_url: None,
                })
                .collect(),
            tenderers: terms.tenderers,
            parameters: terms.parameters,
            documents,
            date: now,
            participation_url: None,
            owner: owner.to_string(),
            token: token_hash,
        }));
        let bid = self
            .bids
            .last()
            .map(Arc::as_ref)
            .ok_or(Refusal::NotFound("bid_id"))?;
        Ok((bid, token))
    }

    pub fn bid(&self, id: &str) -> Result<&Bid, Refusal> {
        self.bids.by_id(id, "bid_id").map(Arc::as_ref)
    }

    /// The bid to change, copied first if the stored tender still shares it.
    pub fn bid_mut(&mut self, id: &str) -> Result<&mut Bid, Refusal> {
        self.bids.by_id_mut(id, "bid_id").map(Arc::make_mut)
    }

    /// The bidder's change: value, tenderers, parameters, and `draft` → `active`.
    pub fn change_bid(&mut self, id: &str, sent: &Sent<'_>) -> Result<Change, Refusal> {
        let &Sent { data, cx, now } = sent;
        let mut wanted = data.as_object().cloned().unwrap_or_default();
        let bid = self.bid(id)?;
        let mut current = serde_json::json!({
            "tenderers": bid.tenderers,
            "parameters": bid.parameters,
            "status": bid.status,
        });
        if let Some(value) = &bid.value {
            current["value"] = serde_json::json!(value);
        }
        if !bid.lot_values.is_empty() {
            current["lotValues"] = Json::Array(
                bid.lot_values
                    .iter()
                    .map(|l| serde_json::json!({"value": l.value, "relatedLot": l.related_lot}))
                    .collect(),
            );
        }
        wanted.retain(|k, v| !(v.is_null() || READ_ONLY.contains(&k) || k == "documents"));
        merge(&mut current, &Input::Object(wanted));
        let current = Input::view(&current);
        let mut o = Obj::new(&current, cx, "Bid")?;
        let build = read_bid_terms(&mut o, !self.lots.is_empty());
        let terms = o.done(build)?;
        let (value, lot_values) = self.check_bid_terms(&terms, true)?;
        self.tendering_window(now, "update")?;
        self.check_lots_active(&lot_values, "update")?;
        let bid = self.bid_mut(id)?;
        let status = match terms.status.as_deref() {
            Some("draft") if bid.status == BidStatus::Active => {
                return Err(Refusal::Forbidden {
                    location: "body",
                    name: "bid",
                    description: "Can't update bid to (draft) status".into(),
                });
            }
            Some("active") => BidStatus::Active,
            _ => bid.status,
        };
        let before = bid.clone();
        if value.as_ref().map(|v| v.amount) != bid.value.as_ref().map(|v| v.amount) {
            bid.date = now;
        }
        bid.value = value;
        let before_lots = std::mem::take(&mut bid.lot_values);
        bid.lot_values = lot_values
            .into_iter()
            .map(|(value, related_lot)| {
                let earlier = before_lots.iter().find(|l| l.related_lot == related_lot);
                let date = earlier
                    .filter(|l| l.value.amount == value.amount)
                    .map_or(now, |l| l.date);
                LotValue {
                    value,
                    related_lot,
                    date,
                    participation_url: earlier.and_then(|l| l.participation_url.clone()),
                }
            })
            .collect();
        bid.tenderers = terms.tenderers;
        bid.parameters = terms.parameters;
        bid.status = status;
        Ok(if *bid == before {
            Change::None
        } else {
            Change::Silent
        })
    }

    /// Withdraws a bid while tendering: it is removed entirely.
    pub fn withdraw_bid(&mut self, id: &str, now: Timestamp) -> Result<Arc<Bid>, Refusal> {
        let index = self.bids.index_by_id(id, "bid_id")?;
        if self.status != TenderStatus::ActiveTendering {
            return Err(Refusal::phase(format!(
                "Can't delete bid in current ({}) tender status",
                self.status
            )));
        }
        if let Err(Refusal::Forbidden { description, .. }) = self.tendering_window(now, "update") {
            return Err(Refusal::phase(
                description.replace("can be updated", "can be deleted"),
            ));
        }
        Ok(self.bids.remove(index))
    }

    /// Bid documents may be added while tendering, or in qualification by the bid whose
    /// award is pending.
    pub fn bid_document_window(
        &self,
        bid_id: &str,
        now: Timestamp,
        action: &str,
    ) -> Result<(), Refusal> {
        match self.status {
            TenderStatus::ActiveTendering => {
                let period = &self.terms.tender_period;
                let inside = period.start_date.is_none_or(|s| now >= s)
                    && period.end_date.is_none_or(|e| now < e);
                if inside {
                    return Ok(());
                }
                let show = |t: Option<Timestamp>| t.map(|t| t.to_string()).unwrap_or_default();
                Err(Refusal::phase(format!(
                    "Document can be {action} only during the tendering period: from ({}) to ({}).",
                    show(period.start_date),
                    show(period.end_date)
                )))
            }
            TenderStatus::ActiveQualification => {
                let pending = self
                    .awards
                    .iter()
                    .any(|a| a.bid_id == bid_id && a.status == super::award::AwardStatus::Pending);
                if pending {
                    Ok(())
                } else {
                    Err(Refusal::phase(
                        "Can't add document because award of bid is not in pending state",
                    ))
                }
            }
            status => {
                let verb = if action == "added" { "add" } else { "update" };
                Err(Refusal::phase(format!(
                    "Can't {verb} document in current ({status}) tender status"
                )))
            }
        }
    }
}

/// Feature parameters of a bid: every feature answered once, with one of its values.
fn check_parameters(
    parameters: &[Parameter],
    features: &[Feature],
    sent: bool,
) -> Result<(), Problem> {
    if features.is_empty() {
        return Ok(());
    }
    if !sent && parameters.is_empty() {
        return Err(Problem::msg(crate::domain::values::parse::REQUIRED));
    }
    let mut per_parameter = Vec::with_capacity(parameters.len());
    let mut failed = false;
    for p in parameters {
        let problem = match features.iter().find(|f| f.code == p.code) {
            None => Problem::field("code", Problem::msg("code should be one of feature code.")),
            Some(f) if !f.values.iter().any(|v| v.value == p.value) => Problem::field(
                "value",
                Problem::msg("value should be one of feature value."),
            ),
            Some(_) => Problem::NONE,
        };
        failed |= !problem.is_none();
        per_parameter.push(problem);
    }
    if failed {
        return Err(Problem::Items(per_parameter));
    }
    if parameters
        .iter()
        .enumerate()
        .any(|(i, p)| parameters[..i].iter().any(|q| q.code == p.code))
    {
        return Err(Problem::msg(
            "Parameter code should be uniq for all parameters",
        ));
    }
    if features
        .iter()
        .any(|f| !parameters.iter().any(|p| p.code == f.code))
    {
        return Err(Problem::msg("All features parameters is required."));
    }
    Ok(())
}
