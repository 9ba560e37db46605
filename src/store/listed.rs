//! The fields clients page the listing by (`opt_fields`), kept beside each row of the listing
//! index: a page reads them from the index instead of visiting every tender it lists, so its
//! cost does not grow with the number of tenders held.

use crate::domain::tender::Tender;
use crate::domain::views;
use serde_json::value::RawValue;

/// The fields held in the index, in this order. Any other field is read from the tender.
pub const LISTED_FIELDS: [&str; 12] = [
    "tenderID",
    "status",
    "title",
    "value",
    "next_check",
    "mode",
    "procurementMethodType",
    "procuringEntity",
    "enquiryPeriod",
    "tenderPeriod",
    "auctionPeriod",
    "owner",
];

/// The listed fields of one tender as the public view shows them, rendered once per change,
/// in the order of [`LISTED_FIELDS`]; `None` where the tender has no such field.
#[derive(Debug)]
pub struct ListedFields(Box<[Option<Box<RawValue>>]>);

impl ListedFields {
    pub fn of(tender: &Tender) -> ListedFields {
        ListedFields(
            LISTED_FIELDS
                .iter()
                .map(|name| {
                    views::field(tender, name)
                        .and_then(|v| serde_json::value::to_raw_value(&v).ok())
                })
                .collect(),
        )
    }

    /// `None` when `name` is not held here; `Some(None)` when the tender has no such field.
    pub fn get(&self, name: &str) -> Option<Option<&RawValue>> {
        let i = LISTED_FIELDS.iter().position(|f| *f == name)?;
        self.0.get(i).map(Option::as_deref)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::records::tender::tests::published;

    /// What the index holds is what a read of the tender shows, field by field.
    #[test]
    fn listed_fields_are_the_view_s_fields() {
        let (tender, _, _) = published();
        let listed = ListedFields::of(&tender);
        for name in LISTED_FIELDS {
            let expected = views::field(&tender, name).map(|v| v.to_string());
            assert_eq!(
                listed.get(name).map(|v| v.map(|raw| raw.get().to_string())),
                Some(expected),
                "{name}"
            );
        }
        assert!(matches!(listed.get("auctionPeriod"), Some(None)));
        assert!(listed.get("items").is_none());
    }
}
