//! The fields clients page a listing by (`opt_fields`), kept beside each row of the listing
//! index: a page reads them from the index instead of visiting every record it lists.

use crate::domain::tender::Tender;
use crate::domain::views;
use std::cell::RefCell;
use std::sync::Arc;

/// A tender's fields held in the index, in this order. Any other field is read from the
/// tender.
pub const TENDER_FIELDS: [&str; 12] = [
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

/// The listed fields of one record as its public view shows them (compact JSON text),
/// rendered once per change into one block that a page reads with the row: the number of
/// fields, the end of each field's text (a little-endian `u32` each), then the texts one after
/// another; a field the record lacks has no text.
#[derive(Debug, Clone)]
pub struct ListedFields(Box<[u8]>);

fn u32_at(block: &[u8], at: usize) -> usize {
    block
        .get(at..at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, |b| u32::from_le_bytes(b) as usize)
}

impl ListedFields {
    /// Renders the fields `names` with `write` (which appends a field's JSON text, or nothing
    /// for a field the record lacks) into a buffer each thread reuses, then keeps an exact
    /// copy: the block lives as long as the record, so it is allocated once, at its size.
    pub fn of(names: &[&str], mut write: impl FnMut(&str, &mut Vec<u8>)) -> ListedFields {
        thread_local! {
            static BLOCK: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        let head = 4 + 4 * names.len();
        BLOCK.with_borrow_mut(|block| {
            block.clear();
            block.resize(head, 0);
            let count = u32::try_from(names.len()).unwrap_or(u32::MAX);
            block[..4].copy_from_slice(&count.to_le_bytes());
            for (i, name) in names.iter().enumerate() {
                write(name, block);
                let end = u32::try_from(block.len() - head).unwrap_or(u32::MAX);
                block[4 + 4 * i..8 + 4 * i].copy_from_slice(&end.to_le_bytes());
            }
            ListedFields(block.as_slice().into())
        })
    }

    /// A tender's listed fields, [`TENDER_FIELDS`].
    pub fn of_tender(tender: &Tender) -> ListedFields {
        ListedFields::of(&TENDER_FIELDS, |name, out| {
            views::write_field(tender, name, out);
        })
    }

    /// Whether every listed field of `new` reads as that of `old`: none of the parts of the
    /// tender they are rendered from changed (never its bids, documents or questions, nor
    /// its terms but the few listed here).
    pub fn same_texts(old: &Tender, new: &Tender) -> bool {
        let (a, b) = (&old.terms, &new.terms);
        let same_terms = Arc::ptr_eq(a, b)
            || (a.title == b.title
                && a.value == b.value
                && a.procuring_entity == b.procuring_entity
                && a.enquiry_period == b.enquiry_period
                && a.tender_period == b.tender_period);
        same_terms
            && old.next_check == new.next_check
            && old.status == new.status
            && old.auction_period == new.auction_period
            && old.mode == new.mode
            && old.tender_id == new.tender_id
            && old.procurement_method_type == new.procurement_method_type
            && old.owner == new.owner
    }

    /// Whether the indexes would hold for `new` exactly what they hold for `old`: the same
    /// listed fields, in the same place of the listing and the schedule. A write that only
    /// touched other parts (a bid, say) leaves the indexes alone.
    pub fn unchanged(old: &Tender, new: &Tender) -> bool {
        old.id == new.id && old.date_modified == new.date_modified && Self::same_texts(old, new)
    }

    /// Where `name` stands in `names`, the fields a kind of record lists; `None` for a field
    /// not held there.
    pub fn position(names: &[&str], name: &str) -> Option<usize> {
        names.iter().position(|f| *f == name)
    }

    /// Where the texts start: after the count and the ends.
    fn head(&self) -> usize {
        4 + 4 * u32_at(&self.0, 0)
    }

    fn end(&self, i: usize) -> usize {
        if i >= u32_at(&self.0, 0) {
            return 0;
        }
        u32_at(&self.0, 4 + 4 * i)
    }

    /// The text of field `i`; empty when the record has no such field.
    fn text(&self, i: usize) -> &[u8] {
        let start = i.checked_sub(1).map_or(0, |before| self.end(before));
        let head = self.head();
        self.0
            .get(head + start..head + self.end(i))
            .unwrap_or_default()
    }

    /// Reads a byte of each of the block's first cache lines (its head and the first
    /// fields, those clients ask for most) and returns them folded. A page does this for all
    /// its rows before copying any, so that the memory of its rows is fetched side by side
    /// instead of one row after another: with many tenders held, the blocks are far apart and
    /// rarely cached. (Reading each row's head first, then the lines of exactly the fields
    /// asked for, measured slower: two passes cost more than they save.)
    pub fn touch(&self) -> u8 {
        const LINE: usize = 64;
        const LINES: usize = 6;
        let mut folded = 0;
        for at in (0..self.0.len().min(LINE * LINES)).step_by(LINE) {
            folded ^= self.0[at];
        }
        folded
    }

    /// Appends the texts of the fields at `wanted` to `texts`, and where each ends to `ends`.
    pub fn copy_into(&self, wanted: &[usize], texts: &mut Vec<u8>, ends: &mut Vec<u32>) {
        for &i in wanted {
            texts.extend_from_slice(self.text(i));
            ends.push(u32::try_from(texts.len()).unwrap_or(u32::MAX));
        }
    }

    /// The tender field's JSON text: `None` when `name` is not held here, `Some(None)` when
    /// the tender has no such field.
    #[cfg(test)]
    fn get(&self, name: &str) -> Option<Option<&[u8]>> {
        let text = self.text(Self::position(&TENDER_FIELDS, name)?);
        Some((!text.is_empty()).then_some(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::records::tender::tests::published;
    use crate::domain::tender::{TenderStatus, TenderTerms};

    /// What the index holds is what a read of the tender shows, field by field.
    #[test]
    fn listed_fields_are_the_view_s_fields() {
        let (tender, _, _) = published();
        let listed = ListedFields::of_tender(&tender);
        for name in TENDER_FIELDS {
            let expected = views::field(&tender, name);
            assert_eq!(
                listed.get(name),
                Some(expected.as_deref().map(str::as_bytes)),
                "{name}"
            );
        }
        assert!(matches!(listed.get("auctionPeriod"), Some(None)));
        assert!(listed.get("items").is_none());
    }

    /// A change of anything a listed field or the row's place is made of is seen, and every
    /// listed field is among those changed here; a change of the tender's other parts is not.
    #[test]
    fn unchanged_sees_every_listed_source() {
        let (tender, _, now) = published();
        let later = now.plus(time::Duration::seconds(1));
        type Change = Box<dyn Fn(&mut Tender)>;
        let terms = |change: fn(&mut TenderTerms)| -> Change {
            Box::new(move |t| change(Arc::make_mut(&mut t.terms)))
        };
        let changes: Vec<(&str, Change)> = vec![
            ("tenderID", Box::new(|t| t.tender_id = "UA-2".into())),
            (
                "status",
                Box::new(|t| t.status = TenderStatus::ActiveTendering),
            ),
            ("title", terms(|t| t.title = "other".into())),
            ("value", terms(|t| t.value.amount += 1.0)),
            ("next_check", Box::new(move |t| t.next_check = Some(later))),
            ("mode", Box::new(|t| t.mode = Some("test".into()))),
            (
                "procurementMethodType",
                Box::new(|t| t.procurement_method_type = "other".into()),
            ),
            (
                "procuringEntity",
                terms(|t| Arc::make_mut(&mut t.procuring_entity).name = "other".into()),
            ),
            (
                "enquiryPeriod",
                terms(|t| t.enquiry_period.start_date = None),
            ),
            ("tenderPeriod", terms(|t| t.tender_period.end_date = None)),
            (
                "auctionPeriod",
                Box::new(move |t| t.auction_period.start_date = Some(later)),
            ),
            ("owner", Box::new(|t| t.owner = "someone".into())),
        ];
        let listed = ListedFields::of_tender(&tender);
        for (what, change) in &changes {
            let mut changed = tender.clone();
            change(&mut changed);
            assert_ne!(
                listed.get(what),
                ListedFields::of_tender(&changed).get(what),
                "{what}"
            );
            assert!(!ListedFields::same_texts(&tender, &changed), "{what}");
            assert!(!ListedFields::unchanged(&tender, &changed), "{what}");
        }
        for name in TENDER_FIELDS {
            assert!(
                changes.iter().any(|(what, _)| *what == name),
                "{name} is changed here"
            );
        }

        let mut stamped = tender.clone();
        stamped.date_modified = later;
        assert!(ListedFields::same_texts(&tender, &stamped));
        assert!(!ListedFields::unchanged(&tender, &stamped));

        let mut other_parts = tender.clone();
        other_parts.auction_url = Some("http://auction".into());
        Arc::make_mut(&mut other_parts.terms).description = Some("other".into());
        assert!(ListedFields::unchanged(&tender, &other_parts));
    }
}
