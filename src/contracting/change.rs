//! Changes of a contract: recorded `pending` with their rationale, then applied (`active`)
//! with the date they were signed; one pending at a time, an applied one fixed for good.
//! Applying a change does not edit the contract: its fields are edited by their own PATCH.

use super::managed::Contract;
use crate::domain::input::Input;
use crate::domain::lookup::{ById, Identified};
use crate::domain::values::ids;
use crate::domain::values::parse::{Cx, FromJson, Obj, Problem, Sent, one_of};
use crate::domain::values::text::Text;
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};

pub const RATIONALE_TYPES: [&str; 8] = [
    "volumeCuts",
    "itemPriceVariation",
    "qualityImprovement",
    "thirdParty",
    "durationExtension",
    "priceReduction",
    "taxRate",
    "fiscalYearExtension",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeStatus {
    Pending,
    Active,
}

impl ChangeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Pending => "pending",
            ChangeStatus::Active => "active",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractChange {
    pub id: Text,
    pub status: ChangeStatus,
    pub date: Timestamp,
    pub rationale: Text,
    #[serde(rename = "rationale_en", skip_serializing_if = "Option::is_none")]
    pub rationale_en: Option<Text>,
    #[serde(rename = "rationale_ru", skip_serializing_if = "Option::is_none")]
    pub rationale_ru: Option<Text>,
    pub rationale_types: Vec<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract_number: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_signed: Option<Timestamp>,
}

impl Identified for ContractChange {
    fn id(&self) -> &str {
        &self.id
    }
}

/// The reasons of a change: one of [`RATIONALE_TYPES`] each, at least one; a single word
/// sent as a string is taken as a list of it, as upstream took it.
struct RationaleTypes(Vec<Text>);

impl FromJson for RationaleTypes {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let words: Vec<String> = match v {
            Input::String(word) => vec![word.to_string()],
            list => Vec::from_json(list, cx)?,
        };
        if words.is_empty() {
            return Err(Problem::msg("Please provide at least 1 item."));
        }
        let problems: Vec<Problem> = words
            .iter()
            .map(|w| {
                if RATIONALE_TYPES.contains(&w.as_str()) {
                    Problem::NONE
                } else {
                    Problem::msg(one_of(&RATIONALE_TYPES))
                }
            })
            .collect();
        if problems.iter().any(|p| !p.is_none()) {
            return Err(Problem::Items(problems));
        }
        Ok(RationaleTypes(words.into_iter().map(Text::from).collect()))
    }
}

/// What a change's writer may set; `status` only on a PATCH.
struct ChangeInput {
    rationale: Option<Text>,
    rationale_en: Option<Option<Text>>,
    rationale_ru: Option<Option<Text>>,
    rationale_types: Option<Vec<Text>>,
    contract_number: Option<Option<Text>>,
    date_signed: Option<Option<Timestamp>>,
    status: Option<String>,
}

/// A change's fields the writer may send back but not set.
const READ_ONLY: [&str; 2] = ["id", "date"];

/// Reads a change as created (`held` none: `rationale` and `rationaleTypes` required,
/// `status` dropped) or as edited (fields left out keep `held`'s). A signature date in the
/// future is refused on the server's clock.
fn read(
    data: &Input<'_>,
    cx: &Cx,
    held: Option<&ContractChange>,
    now: Timestamp,
) -> Result<ChangeInput, Refusal> {
    let mut o = Obj::new(data, cx, "Change")?;
    o.skip(&READ_ONLY);
    // Upstream named a missing list of reasons before a missing rationale.
    let rationale_types: Option<RationaleTypes> = match held {
        None => o.req("rationaleTypes"),
        Some(_) => o.opt("rationaleTypes"),
    };
    let rationale: Option<Text> = match held {
        None => o.req("rationale"),
        Some(_) => o.opt("rationale"),
    };
    if rationale.as_deref().is_some_and(str::is_empty) {
        o.fail("rationale", Problem::msg("String value is too short."));
    }
    let rationale_en = o.has("rationale_en").then(|| o.opt("rationale_en"));
    let rationale_ru = o.has("rationale_ru").then(|| o.opt("rationale_ru"));
    let contract_number = o.has("contractNumber").then(|| o.opt("contractNumber"));
    let date_signed: Option<Option<Timestamp>> = o.has("dateSigned").then(|| o.opt("dateSigned"));
    if date_signed.flatten().is_some_and(|d| d > now) {
        o.fail(
            "dateSigned",
            Problem::msg("Contract signature date can't be in the future"),
        );
    }
    let status = match held {
        Some(_) => o.choice("status", &["pending", "active"]),
        None => {
            o.skip(&["status"]);
            None
        }
    };
    o.done(|| Some(()))?;
    Ok(ChangeInput {
        rationale,
        rationale_en,
        rationale_ru,
        rationale_types: rationale_types.map(|r| r.0),
        contract_number,
        date_signed,
        status,
    })
}

impl Contract {
    pub fn change(&self, id: &str) -> Result<&ContractChange, Refusal> {
        self.changes.by_id(id, "change_id")
    }

    /// The signature date a change must not precede: the change before it (its signature,
    /// or the date of an old one without), else the contract's own.
    fn signed_before(&self, before: usize) -> Option<(Timestamp, &'static str)> {
        match before.checked_sub(1).and_then(|i| self.changes.get(i)) {
            Some(c) => Some((c.date_signed.unwrap_or(c.date), "last active change")),
            None => self.date_signed.map(|d| (d, "contract")),
        }
    }

    fn check_signed(&self, signed: Option<Timestamp>, before: usize) -> Result<(), Refusal> {
        if let (Some(signed), Some((reference, what))) = (signed, self.signed_before(before))
            && signed < reference
        {
            return Err(Refusal::phase(format!(
                "Change dateSigned ({signed}) can't be earlier than {what} dateSigned ({reference})"
            )));
        }
        Ok(())
    }

    /// Records a pending change; returns its id.
    pub fn add_change(&mut self, sent: &Sent<'_>) -> Result<String, Refusal> {
        let &Sent { data, cx, now } = sent;
        let input = read(data, cx, None, now)?;
        self.writable("add contract change")?;
        if self
            .changes
            .last()
            .is_some_and(|c| c.status == ChangeStatus::Pending)
        {
            return Err(Refusal::phase(
                "Can't create new contract change while any (pending) change exists",
            ));
        }
        let date_signed = input.date_signed.flatten();
        self.check_signed(date_signed, self.changes.len())?;
        let change = ContractChange {
            id: ids::new_id().into(),
            status: ChangeStatus::Pending,
            date: now,
            rationale: input.rationale.unwrap_or_default(),
            rationale_en: input.rationale_en.flatten(),
            rationale_ru: input.rationale_ru.flatten(),
            rationale_types: input.rationale_types.unwrap_or_default(),
            contract_number: input.contract_number.flatten(),
            date_signed,
        };
        let id = change.id.to_string();
        self.changes.push(change);
        Ok(id)
    }

    /// Edits a pending change, or applies it (`status: active`, with a signature date sent
    /// or held), which dates it now.
    pub fn edit_change(&mut self, id: &str, sent: &Sent<'_>) -> Result<Change, Refusal> {
        let &Sent { data, cx, now } = sent;
        let at = self.changes.index_by_id(id, "change_id")?;
        let held = &self.changes[at];
        let input = read(data, cx, Some(held), now)?;
        self.writable("update contract change")?;
        if held.status != ChangeStatus::Pending {
            return Err(Refusal::phase(format!(
                "Can't update contract change in current ({}) status",
                held.status.as_str()
            )));
        }
        let mut next = held.clone();
        if let Some(r) = input.rationale {
            next.rationale = r;
        }
        if let Some(r) = input.rationale_en {
            next.rationale_en = r;
        }
        if let Some(r) = input.rationale_ru {
            next.rationale_ru = r;
        }
        if let Some(r) = input.rationale_types {
            next.rationale_types = r;
        }
        if let Some(n) = input.contract_number {
            next.contract_number = n;
        }
        if let Some(d) = input.date_signed {
            next.date_signed = d;
        }
        if input.status.as_deref() == Some("active") {
            if next.date_signed.is_none() {
                return Err(Refusal::phase(
                    "Can't update contract change status. 'dateSigned' is required.",
                ));
            }
            next.status = ChangeStatus::Active;
            next.date = now;
        }
        self.check_signed(next.date_signed, at)?;
        if next == self.changes[at] {
            return Ok(Change::None);
        }
        self.changes[at] = next;
        Ok(Change::Public)
    }
}
