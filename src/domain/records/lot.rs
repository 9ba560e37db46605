//! Lots: parts of a tender judged, auctioned and awarded on their own.
//!
//! A lot's value and minimal step take their currency and VAT flag from the tender's; the
//! tender's own value is the sum of its lots' values, its minimal step the least of theirs
//! and its guarantee the sum of theirs. Lots are added, changed and deleted by the owner while
//! enquiries are open; from then on only the lifecycle moves them.

use super::tender::{AuctionPeriod, Tender, TenderStatus, TenderTerms};
use crate::domain::input::Input;
use crate::domain::lookup::ById;
use crate::domain::values::merge::merge;
use crate::domain::values::money::Money;
use crate::domain::values::parse::{Cx, FromJson, Obj, Problem, Sent};
use crate::domain::values::text::Text;
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LotStatus {
    Active,
    Cancelled,
    Unsuccessful,
    Complete,
}

impl LotStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            LotStatus::Active => "active",
            LotStatus::Cancelled => "cancelled",
            LotStatus::Unsuccessful => "unsuccessful",
            LotStatus::Complete => "complete",
        }
    }
}

/// What the owner states about a lot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LotTerms {
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
    pub value: Money,
    pub minimal_step: Money,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarantee: Option<Money>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lot {
    pub id: String,
    #[serde(flatten)]
    pub terms: LotTerms,
    pub status: LotStatus,
    pub date: Timestamp,
    #[serde(default, skip_serializing_if = "AuctionPeriod::is_empty")]
    pub auction_period: AuctionPeriod,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auction_url: Option<String>,
}

/// Names a lot shows but a client never sets (dropped without a word).
const SHOWN_ONLY: [&str; 5] = [
    "status",
    "date",
    "auctionPeriod",
    "auctionUrl",
    "numberOfBids",
];

/// A lot as sent: its id (kept when the client gives one) and its terms.
#[derive(Debug, Clone)]
pub struct NewLot {
    pub id: Option<String>,
    pub terms: LotTerms,
}

/// Upstream's lot ids are 32 hexadecimal digits.
fn check_id(id: &str) -> Result<(), Problem> {
    if id.len() != 32 {
        Err(Problem::msg("Hash value is wrong length."))
    } else if !id.chars().all(|c| c.is_ascii_hexdigit()) {
        Err(Problem::msg("Hash value is not hexadecimal."))
    } else {
        Ok(())
    }
}

fn read_terms<'a>(o: &mut Obj<'a>) -> impl FnOnce() -> Option<LotTerms> + use<'a> {
    let title = o.req("title");
    let title_en = o.opt("title_en");
    let title_ru = o.opt("title_ru");
    let description = o.opt("description");
    let description_en = o.opt("description_en");
    let description_ru = o.opt("description_ru");
    let value: Option<Money> = o.req("value");
    let minimal_step: Option<Money> = o.req("minimalStep");
    let guarantee = o.opt("guarantee");
    if let (Some(v), Some(s)) = (&value, &minimal_step)
        && s.amount > v.amount
    {
        o.fail(
            "minimalStep",
            Problem::msg("value should be less than value of lot"),
        );
    }
    move || {
        Some(LotTerms {
            title: title?,
            title_en,
            title_ru,
            description,
            description_en,
            description_ru,
            value: value?,
            minimal_step: minimal_step?,
            guarantee,
        })
    }
}

impl FromJson for NewLot {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Lot")?;
        o.skip(&SHOWN_ONLY);
        let id: Option<String> = o.opt("id");
        if let Some(Err(p)) = id.as_deref().map(check_id) {
            o.fail("id", p);
        }
        let build = read_terms(&mut o);
        let terms = o.done(build)?;
        Ok(NewLot { id, terms })
    }
}

impl NewLot {
    pub fn into_lot(self, now: Timestamp) -> Lot {
        Lot {
            id: self.id.unwrap_or_else(crate::domain::values::ids::new_id),
            terms: self.terms,
            status: LotStatus::Active,
            date: now,
            auction_period: AuctionPeriod::default(),
            auction_url: None,
        }
    }
}

/// Rules over the lots and the items that name them, reported on `lots` and `items`.
pub fn check_lots(lots: &[Lot], terms: &TenderTerms) -> Vec<(String, Problem)> {
    let mut problems = Vec::new();
    if lots
        .iter()
        .enumerate()
        .any(|(i, l)| lots[..i].iter().any(|o| o.id == l.id))
    {
        problems.push((
            "lots".to_string(),
            Problem::msg("Lot id should be uniq for all lots"),
        ));
    }
    let currencies: Vec<&str> = terms
        .guarantee
        .iter()
        .chain(lots.iter().filter_map(|l| l.terms.guarantee.as_ref()))
        .map(|g| g.currency.as_str())
        .collect();
    if currencies.windows(2).any(|w| w[0] != w[1]) {
        problems.push((
            "lots".to_string(),
            Problem::msg("lot guarantee currency should be identical to tender guarantee currency"),
        ));
    }
    let per_item: Vec<Problem> = terms
        .items
        .iter()
        .map(|item| match &item.related_lot {
            Some(lot) if !lots.iter().any(|l| &l.id == lot) => Problem::field(
                "relatedLot",
                Problem::msg("relatedLot should be one of lots"),
            ),
            _ => Problem::NONE,
        })
        .collect();
    if per_item.iter().any(|p| !p.is_none()) {
        problems.push(("items".to_string(), Problem::Items(per_item)));
    }
    problems
}

/// The tender's terms as its lots make them: value the sum of theirs, minimal step the
/// least of theirs, guarantee the sum of theirs if any has one; the lots' money in the
/// tender's currency and VAT flag.
pub fn sum_up(terms: &mut TenderTerms, lots: &mut [Lot]) {
    if lots.is_empty() {
        return;
    }
    for lot in lots.iter_mut() {
        let (value, step) = (&terms.value, &terms.minimal_step);
        lot.terms.value.currency = value.currency.clone();
        lot.terms.value.value_added_tax_included = value.value_added_tax_included;
        lot.terms.minimal_step.currency = step.currency.clone();
        lot.terms.minimal_step.value_added_tax_included = step.value_added_tax_included;
    }
    terms.value.amount = lots.iter().map(|l| l.terms.value.amount).sum();
    terms.minimal_step.amount = lots
        .iter()
        .map(|l| l.terms.minimal_step.amount)
        .fold(f64::INFINITY, f64::min);
    let guarantees: Vec<&Money> = lots
        .iter()
        .filter_map(|l| l.terms.guarantee.as_ref())
        .collect();
    if let Some(first) = guarantees.first() {
        let currency = terms
            .guarantee
            .as_ref()
            .map_or_else(|| first.currency.clone(), |g| g.currency.clone());
        let amount = guarantees.iter().map(|g| g.amount).sum();
        terms.guarantee = Some(Money {
            amount,
            currency: currency.clone(),
            value_added_tax_included: first.value_added_tax_included,
        });
        for lot in lots.iter_mut() {
            if let Some(g) = &mut lot.terms.guarantee {
                g.currency = currency.clone();
            }
        }
    }
}

impl Tender {
    pub fn lot(&self, id: &str) -> Result<&Lot, Refusal> {
        self.lots.by_id(id, "lot_id")
    }

    fn lot_window(&self, verb: &str) -> Result<(), Refusal> {
        if self.status != TenderStatus::ActiveEnquiries {
            return Err(Refusal::phase(format!(
                "Can't {verb} lot in current ({}) tender status",
                self.status
            )));
        }
        Ok(())
    }

    /// Checks the lots against the terms and sums them up into the terms.
    fn settle_lots(&mut self, lots: Vec<Lot>) -> Result<(), Refusal> {
        let problems = check_lots(&lots, &self.terms);
        if !problems.is_empty() {
            return Err(Refusal::Invalid(problems));
        }
        self.lots = lots;
        sum_up(std::sync::Arc::make_mut(&mut self.terms), &mut self.lots);
        Ok(())
    }

    /// The owner's POST of a lot, while enquiries are open. Returns the new lot's id.
    pub fn add_lot(&mut self, sent: &Sent<'_>) -> Result<String, Refusal> {
        let &Sent { data, cx, now } = sent;
        let input = NewLot::from_json(data, cx)?;
        self.lot_window("add")?;
        let lot = input.into_lot(now);
        let id = lot.id.clone();
        let mut lots = self.lots.clone();
        lots.push(lot);
        self.settle_lots(lots)?;
        Ok(id)
    }

    /// The owner's PATCH of a lot, while enquiries are open; fields a lot shows but the owner
    /// may not set are dropped, so a client may send back the whole lot it read.
    pub fn change_lot(&mut self, id: &str, data: &Input<'_>, cx: &Cx) -> Result<Change, Refusal> {
        let lot = self.lot(id)?.clone();
        let mut wanted = data.as_object().cloned().unwrap_or_default();
        wanted.retain(|k, _| k != "id" && !SHOWN_ONLY.contains(&k));
        let mut merged =
            serde_json::to_value(&lot.terms).map_err(|e| Refusal::phase(e.to_string()))?;
        merge(&mut merged, &Input::Object(wanted));
        let merged = Input::view(&merged);
        let mut o = Obj::new(&merged, cx, "Lot")?;
        let build = read_terms(&mut o);
        let terms = o.done(build)?;
        self.lot_window("update")?;
        let mut lots = self.lots.clone();
        if let Some(l) = lots.iter_mut().find(|l| l.id == id) {
            l.terms = terms;
        }
        let before = (self.lots.clone(), self.terms.clone());
        self.settle_lots(lots)?;
        Ok(if before == (self.lots.clone(), self.terms.clone()) {
            Change::None
        } else {
            Change::Public
        })
    }

    /// The owner's DELETE of a lot, while enquiries are open; refused while items name it.
    pub fn delete_lot(&mut self, id: &str) -> Result<Lot, Refusal> {
        let lot = self.lot(id)?.clone();
        self.lot_window("delete")?;
        let lots: Vec<Lot> = self.lots.iter().filter(|l| l.id != id).cloned().collect();
        self.settle_lots(lots)?;
        Ok(lot)
    }
}
