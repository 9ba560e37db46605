//! Contracts: prepared when an award becomes active, signed by the owner after the
//! stand-still, which completes the tender.

use super::lot::LotStatus;
use super::tender::{Tender, TenderStatus};
use crate::domain::lookup::ById;
use crate::domain::values::document::Documents;
use crate::domain::values::item::Item;
use crate::domain::values::money::{Money, MoneyInput, Period};
use crate::domain::values::organization::Organization;
use crate::domain::values::parse::{Obj, Problem, Sent};
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContractStatus {
    Pending,
    Active,
    Cancelled,
    Terminated,
}

impl ContractStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ContractStatus::Pending => "pending",
            ContractStatus::Active => "active",
            ContractStatus::Cancelled => "cancelled",
            ContractStatus::Terminated => "terminated",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Contract {
    pub id: String,
    #[serde(rename = "contractID")]
    pub contract_id: String,
    #[serde(rename = "awardID")]
    pub award_id: String,
    pub status: ContractStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract_number: Option<String>,
    pub value: Money,
    pub items: Vec<Item>,
    pub suppliers: Vec<Organization>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_signed: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<Period>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Documents,
    pub date: Timestamp,
}

/// A float the way upstream prints it: `500.0`, `499.5`.
pub fn py_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

impl Tender {
    pub fn contract(&self, id: &str) -> Result<&Contract, Refusal> {
        self.contracts.by_id(id, "contract_id")
    }

    /// The owner's change of a contract: number, title, description, value (no higher than
    /// awarded; currency and VAT flag fixed), period, signature date, and signing.
    pub fn change_contract(&mut self, id: &str, sent: &Sent<'_>) -> Result<Change, Refusal> {
        let &Sent { data, cx, now } = sent;
        let index = self.contracts.index_by_id(id, "contract_id")?;
        let mut o = Obj::new(data, cx, "Contract")?;
        o.skip(&[
            "id",
            "contractID",
            "awardID",
            "date",
            "items",
            "suppliers",
            "documents",
        ]);
        let status = o.choice("status", &["pending", "active", "cancelled", "terminated"]);
        let title: Option<String> = o.opt("title");
        let description: Option<String> = o.opt("description");
        let contract_number: Option<String> = o.opt("contractNumber");
        let value: Option<MoneyInput> = o.opt("value");
        let period: Option<Period> = o.opt("period");
        let date_signed: Option<Timestamp> = o.opt("dateSigned");
        o.done(|| Some(()))?;
        if !matches!(
            self.status,
            TenderStatus::ActiveQualification | TenderStatus::ActiveAwarded
        ) {
            return Err(Refusal::phase(format!(
                "Can't update contract in current ({}) tender status",
                self.status
            )));
        }
        let contract = &self.contracts[index];
        if !matches!(
            contract.status,
            ContractStatus::Pending | ContractStatus::Active
        ) {
            return Err(Refusal::phase(format!(
                "Can't update contract in current ({}) status",
                contract.status.as_str()
            )));
        }
        let award = self.awards.by_id(&contract.award_id, "award_id")?;
        let stand_still_end = award.complaint_period.end_date;
        let lot = award.lot_id.clone();
        if self.lot_status(&lot) != LotStatus::Active {
            return Err(Refusal::phase(
                "Can update contract only in active lot status",
            ));
        }
        let mut next = contract.clone();
        if let Some(v) = value {
            // Upstream checks the VAT flag before the currency.
            if v.value_added_tax_included
                .is_some_and(|vat| vat != next.value.value_added_tax_included)
            {
                return Err(Refusal::phase(
                    "Can't update valueAddedTaxIncluded for contract value",
                ));
            }
            if v.currency
                .as_ref()
                .is_some_and(|c| *c != next.value.currency)
            {
                return Err(Refusal::phase("Can't update currency for contract value"));
            }
            if v.amount > award.value.amount {
                return Err(Refusal::phase(format!(
                    "Value amount should be less or equal to awarded amount ({})",
                    py_float(award.value.amount)
                )));
            }
            next.value.amount = v.amount;
        }
        if let Some(signed) = date_signed {
            if let Some(end) = stand_still_end
                && signed <= end
            {
                return Err(Refusal::field(
                    "dateSigned",
                    Problem::msg(format!(
                        "Contract signature date should be after award complaint period end date ({end})"
                    )),
                ));
            }
            if signed > now {
                return Err(Refusal::field(
                    "dateSigned",
                    Problem::msg("Contract signature date can't be in the future"),
                ));
            }
            next.date_signed = Some(signed);
        }
        next.title = title.or(next.title);
        next.description = description.or(next.description);
        next.contract_number = contract_number.or(next.contract_number);
        if period.is_some() {
            next.period = period;
        }
        match (contract.status, status.as_deref()) {
            (ContractStatus::Pending, Some("active")) => {
                if let Some(end) = stand_still_end
                    && end > now
                {
                    return Err(Refusal::phase(format!(
                        "Can't sign contract before stand-still period end ({end})"
                    )));
                }
                if self.lot_blocked(&lot) {
                    return Err(Refusal::phase(
                        "Can't sign contract before reviewing all complaints",
                    ));
                }
                next.status = ContractStatus::Active;
                next.date = now;
                next.date_signed = next.date_signed.or(Some(now));
            }
            (current, Some(wanted)) if wanted != current.as_str() => {
                return Err(Refusal::phase("Can't update contract status"));
            }
            _ => {}
        }
        if next == self.contracts[index] {
            return Ok(Change::None);
        }
        self.contracts[index] = next;
        if self.lot_fulfilled(&lot) {
            self.set_lot_status(&lot, LotStatus::Complete, now);
        }
        Ok(Change::Public)
    }
}

#[cfg(test)]
mod tests {
    use super::py_float;

    #[test]
    fn floats_print_like_upstream() {
        assert_eq!(py_float(500.0), "500.0");
        assert_eq!(py_float(499.5), "499.5");
    }
}
