//! A signed contract under management: handed over from its tender, edited by the procuring
//! entity's broker with the contract's own token, paid, and terminated.

use super::change::ContractChange;
use crate::domain::input::Input;
use crate::domain::records::course::lots::LotRef;
use crate::domain::records::lot::LotStatus;
use crate::domain::records::tender::Tender;
use crate::domain::records::tender_contract::{Contract as TenderContract, ContractStatus};
use crate::domain::values::document::Documents;
use crate::domain::values::ids::TokenHash;
use crate::domain::values::item::{Item, check_item_ids};
use crate::domain::values::money::{Money, Period};
use crate::domain::values::organization::Organization;
use crate::domain::values::parse::{Cx, Obj};
use crate::domain::values::test_mode;
use crate::domain::values::text::Text;
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Terminated,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Terminated => "terminated",
        }
    }
}

/// Upstream's order of the choices, as its message lists them.
const STATUSES: [&str; 2] = ["terminated", "active"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Contract {
    /// The contract's id in its tender.
    pub id: Text,
    #[serde(rename = "awardID")]
    pub award_id: Text,
    #[serde(rename = "contractID")]
    pub contract_id: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract_number: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Text>,
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
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<Period>,
    pub value: Money,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_signed: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Documents,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Item>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppliers: Vec<Organization>,
    pub procuring_entity: Arc<Organization>,
    pub owner: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Text>,
    #[serde(rename = "tender_id")]
    pub tender_id: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<ContractChange>,
    /// As the broker sent it; shown with the value's currency and VAT flag (see [`View`]).
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub amount_paid: Option<Money>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_details: Option<Text>,
    pub date_modified: Timestamp,
    /// Where the listing keeps the contract, when not at its `dateModified` (see the
    /// tender's).
    #[serde(default, skip_serializing_if = "crate::domain::stored::hidden_or_none")]
    pub listed_at: Option<Timestamp>,
    /// The test clock the contract lives on, its tender's (see [`Contract::clock_key`]).
    #[serde(default, skip_serializing_if = "crate::domain::stored::hidden_or_none")]
    pub clock: Option<Text>,
    /// The tender's token, as the tender keeps it: it asks for the contract's credentials.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub tender_token: TokenHash,
    /// The contract's own token, once its credentials are issued.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub owner_token: Option<TokenHash>,
}

/// The contract as anyone reads it: `amountPaid` in the value's currency and with its VAT
/// flag, as upstream showed it (a currency sent for it is kept but not shown).
#[derive(Serialize)]
pub struct View<'a> {
    #[serde(flatten)]
    contract: &'a Contract,
    #[serde(rename = "amountPaid", skip_serializing_if = "Option::is_none")]
    amount_paid: Option<Money>,
}

pub fn view(c: &Contract) -> View<'_> {
    View {
        contract: c,
        amount_paid: c.amount_paid.as_ref().map(|paid| Money {
            amount: paid.amount,
            currency: c.value.currency.clone(),
            value_added_tax_included: c.value.value_added_tax_included,
        }),
    }
}

/// Top-level fields of the contract as [`view`] shows them, each as compact JSON text (`None`
/// where the view has no such field); the view is built once for all of them.
pub fn fields(c: &Contract, names: &[&str]) -> Vec<Option<String>> {
    let shown = match serde_json::to_value(view(c)) {
        Ok(serde_json::Value::Object(shown)) => shown,
        _ => return vec![None; names.len()],
    };
    names
        .iter()
        .map(|name| shown.get(*name).map(|value| value.to_string()))
        .collect()
}

/// The active contracts of the lots a write completed: `before` is the tender as the write
/// found it. Each becomes a contract under management, in the same write.
pub fn handed_over(before: &Tender, after: &Tender, now: Timestamp) -> Vec<Contract> {
    let completed: Vec<LotRef> = after
        .lot_refs()
        .into_iter()
        .filter(|lot| {
            after.lot_status(lot) == LotStatus::Complete
                && before.lot_status(lot) != LotStatus::Complete
        })
        .collect();
    after
        .contracts
        .iter()
        .filter(|c| c.status == ContractStatus::Active)
        .filter(|c| {
            let lot = after
                .awards
                .iter()
                .find(|a| a.id == c.award_id)
                .map(|a| a.lot_id.clone());
            lot.is_some_and(|lot| completed.contains(&lot))
        })
        .map(|c| Contract::from_tender(after, c, now))
        .collect()
}

impl Contract {
    fn from_tender(tender: &Tender, c: &TenderContract, now: Timestamp) -> Contract {
        let text = |s: &Option<String>| s.as_deref().map(Text::from);
        let mut contract = Contract {
            id: c.id.as_str().into(),
            award_id: c.award_id.as_str().into(),
            contract_id: c.contract_id.as_str().into(),
            contract_number: text(&c.contract_number),
            title: text(&c.title),
            title_en: None,
            title_ru: None,
            description: text(&c.description),
            description_en: None,
            description_ru: None,
            status: Status::Active,
            period: c.period.clone(),
            value: c.value.clone(),
            date_signed: c.date_signed,
            documents: c.documents.clone(),
            items: c.items.clone(),
            suppliers: c.suppliers.clone(),
            procuring_entity: tender.terms.procuring_entity.clone(),
            owner: tender.owner.clone(),
            mode: tender.mode.clone(),
            tender_id: tender.id.clone(),
            changes: Vec::new(),
            amount_paid: None,
            termination_details: None,
            date_modified: now,
            listed_at: None,
            clock: tender.clock.clone(),
            tender_token: tender.owner_token.clone(),
            owner_token: None,
        };
        contract.mark_test();
        contract
    }

    pub fn is_test(&self) -> bool {
        self.mode.is_some()
    }

    /// Where the listing keeps the contract: its `listed_at`, else its `dateModified`.
    pub fn listing_key(&self) -> Timestamp {
        self.listed_at.unwrap_or(self.date_modified)
    }

    /// The key of the clock the contract lives on: its tender's (see [`Tender::clock_key`]).
    pub fn clock_key(&self) -> &str {
        self.clock.as_deref().unwrap_or(&self.owner)
    }

    /// Test-mode titles carry their markers, added on every save as upstream added them.
    fn mark_test(&mut self) {
        if !self.is_test() {
            return;
        }
        self.title = Some(test_mode::marked(self.title.as_deref(), test_mode::PREFIX));
        self.title_en = Some(test_mode::marked(
            self.title_en.as_deref(),
            test_mode::PREFIX_EN,
        ));
        self.title_ru = Some(test_mode::marked(
            self.title_ru.as_deref(),
            test_mode::PREFIX_RU,
        ));
    }

    /// Every write but the owner's own needs the contract to be active.
    pub fn writable(&self, what: &str) -> Result<(), Refusal> {
        match self.status {
            Status::Active => Ok(()),
            status => Err(Refusal::phase(format!(
                "Can't {what} in current ({}) contract status",
                status.as_str()
            ))),
        }
    }

    /// New credentials: the contract's token is now `token` (the one before stops working).
    pub fn issue_credentials(&mut self, token: TokenHash) -> Result<Change, Refusal> {
        self.writable("generate credentials")?;
        self.owner_token = Some(token);
        Ok(Change::Public)
    }

    /// The broker's PATCH of the contract: the whole contract it read may come back. What it
    /// sends is merged into the contract as upstream merged it (objects by field, lists by
    /// index), read as a whole, and only what the broker may change is taken: titles,
    /// descriptions, status, period, value, items (not their classifications), amountPaid
    /// and terminationDetails. The rest of the contract's fields are dropped unread; a name
    /// the contract does not have is a rogue field.
    pub fn patch(&mut self, data: &Input<'_>, cx: &Cx) -> Result<Change, Refusal> {
        let mut o = Obj::new(data, cx, "Contract")?;
        o.skip(&READ_ONLY);
        let status = o.choice("status", &STATUSES);
        let title = o.opt_or("title", Some(self.title.clone()));
        let title_en = o.opt_or("title_en", Some(self.title_en.clone()));
        let title_ru = o.opt_or("title_ru", Some(self.title_ru.clone()));
        let description = o.opt_or("description", Some(self.description.clone()));
        let description_en = o.opt_or("description_en", Some(self.description_en.clone()));
        let description_ru = o.opt_or("description_ru", Some(self.description_ru.clone()));
        let period: Option<Period> = o.opt_or("period", Some(self.period.clone()));
        let value: Option<Money> = o.req_or("value", Some(self.value.clone()));
        let items: Option<Vec<Item>> = if self.items.is_empty() {
            o.opt("items")
        } else {
            o.opt_or("items", Some(Some(self.items.clone())))
        };
        let amount_paid: Option<Money> = o.opt_or("amountPaid", Some(self.amount_paid.clone()));
        let termination_details =
            o.opt_or("terminationDetails", Some(self.termination_details.clone()));
        if let Some(items) = &items
            && let Err(p) = check_item_ids(items)
        {
            o.fail("items", p);
        }
        o.done(|| Some(()))?;
        self.writable("update contract").map_err(|_| {
            Refusal::phase(format!(
                "Can't update contract in current ({}) status",
                self.status.as_str()
            ))
        })?;
        let mut next = self.clone();
        next.title = title;
        next.title_en = title_en;
        next.title_ru = title_ru;
        next.description = description;
        next.description_en = description_en;
        next.description_ru = description_ru;
        next.period = period;
        if let Some(value) = value {
            next.value = value;
        }
        if let Some(mut items) = items {
            // Classifications are fixed at signing: a change sent for them is dropped.
            for (item, held) in items.iter_mut().zip(&self.items) {
                item.classification = held.classification.clone();
                item.additional_classifications = held.additional_classifications.clone();
            }
            next.items = items;
        }
        next.amount_paid = amount_paid;
        next.termination_details = termination_details;
        if let Some(status) = status {
            next.status = if status == "terminated" {
                Status::Terminated
            } else {
                Status::Active
            };
        }
        if next.status == Status::Terminated && next.amount_paid.is_none() {
            return Err(Refusal::phase(
                "Can't terminate contract while 'amountPaid' is not set",
            ));
        }
        next.mark_test();
        if next == *self {
            return Ok(Change::None);
        }
        *self = next;
        Ok(Change::Public)
    }
}

/// Fields of a contract the broker may send back but not set.
const READ_ONLY: [&str; 13] = [
    "id",
    "awardID",
    "contractID",
    "contractNumber",
    "dateSigned",
    "documents",
    "suppliers",
    "procuringEntity",
    "owner",
    "mode",
    "tender_id",
    "changes",
    "dateModified",
];
