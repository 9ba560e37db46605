//! Indexes over the published tenders: their listing ordered by `dateModified`, the schedule
//! ordered by `next_check`, and the daily tenderID counter.

use super::listed::ListedFields;
use super::listing::{Entry, Id, Listing, Page, PageRequest, inline_id};
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::{Timestamp, Zone};
use std::collections::{BTreeSet, HashMap};
use time::{Date, OffsetDateTime};

#[derive(Default)]
pub struct Indexes {
    pub listing: Listing,
    /// The contracts under management, listed as the tenders are.
    pub contracts: Listing,
    /// Next checks, by their moment; a tender's id breaks ties.
    schedule: BTreeSet<(i64, Id)>,
    daily: HashMap<Date, u32>,
}

/// A tender's entry in the schedule, if it has a next check.
fn scheduled(tender: &Tender) -> Option<(i64, Id)> {
    Some((tender.next_check?.micros(), inline_id(&tender.id)?))
}

impl Indexes {
    pub fn next_daily_number(&mut self, date: Date) -> u32 {
        self.daily.retain(|d, _| *d >= date);
        let n = self.daily.entry(date).or_default();
        *n += 1;
        *n
    }

    /// Takes in a tender of an earlier run: later stamps and tenderIDs follow on from it.
    pub fn restore(&mut self, tender: &Tender) {
        self.listing.restore(tender.date_modified);
        let id = &tender.tender_id;
        let date = id.get(3..13).and_then(|d| {
            Date::parse(d, time::macros::format_description!("[year]-[month]-[day]")).ok()
        });
        let number = id.get(14..).and_then(|n| n.parse::<u32>().ok());
        if let (Some(date), Some(number)) = (date, number) {
            let n = self.daily.entry(date).or_default();
            *n = (*n).max(number);
        }
    }

    /// A `dateModified` for a change at `now`, held back from the listing until released.
    pub fn reserve(&mut self, zone: &Zone, now: Timestamp) -> Timestamp {
        self.listing.reserve(zone, now)
    }

    /// The change stamped `stamp` was entered (or given up).
    pub fn release(&mut self, stamp: Timestamp) {
        self.listing.release(stamp)
    }

    /// Replaces `old`'s entries with `new`'s, whose listed fields are `fields` (made before
    /// the indexes are locked); `None` keeps those of `old`'s row, for a caller that found
    /// them reading the same (they are rendered if `old` has no row). Drafts are neither
    /// listed nor scheduled. Returns whether the earliest scheduled check moved earlier.
    pub fn put(
        &mut self,
        new: &Tender,
        fields: Option<ListedFields>,
        old: Option<&Tender>,
    ) -> bool {
        let earliest = self.schedule.first().map(|(m, _)| *m);
        let indexed = |t: &&Tender| t.status != TenderStatus::Draft;
        let old = old.filter(indexed);
        let kept = old.and_then(|old| self.listing.remove(old.date_modified));
        // Most writes leave the next check where it was.
        let was = old.and_then(scheduled);
        let will = Some(new).filter(indexed).and_then(scheduled);
        if was != will {
            if let Some(entry) = was {
                self.schedule.remove(&entry);
            }
            if let Some(entry) = will {
                self.schedule.insert(entry);
            }
        }
        if new.status == TenderStatus::Draft {
            return false;
        }
        let fields = fields
            .or(kept)
            .unwrap_or_else(|| ListedFields::of_tender(new));
        let entry = Entry {
            id: &new.id,
            date_modified: new.date_modified,
            test: new.is_test(),
        };
        self.listing.insert(entry, fields);
        will.is_some_and(|(check, _)| earliest.is_none_or(|e| check < e))
    }

    pub fn due(&self, now: Timestamp) -> Vec<String> {
        self.schedule
            .range(..=(now.micros(), [u8::MAX; 32]))
            .map(|(_, id)| String::from_utf8_lossy(id).into_owned())
            .collect()
    }

    pub fn earliest_check(&self, zone: &Zone) -> Option<Timestamp> {
        let (micros, _) = self.schedule.first()?;
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(*micros) * 1_000)
            .ok()
            .map(|t| zone.at(t))
    }

    pub fn page(&self, request: &PageRequest) -> Page {
        self.listing.page(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tender::tests::published;
    use time::Duration;

    /// Each tender is due once, at the check it has now: one whose check stays through a
    /// write, one whose check moves, and one that leaves the schedule.
    #[test]
    fn the_schedule_holds_each_tender_at_its_current_check() {
        let mut indexes = Indexes::default();
        let (a, _, now) = published();
        let (b, _, _) = published();
        let check = a.next_check.unwrap();
        let (late, later) = (
            check.plus(Duration::hours(1)),
            check.plus(Duration::hours(2)),
        );
        assert!(
            indexes.put(&a, None, None),
            "the first check is the earliest"
        );
        assert!(
            !indexes.put(&b, None, None),
            "a second at the same moment is not earlier"
        );
        assert_eq!(indexes.due(check).len(), 2);

        // `a` changes but keeps its check; `b`'s check moves on, then it has none.
        let mut a2 = a.clone();
        a2.date_modified = now.plus(Duration::seconds(1));
        indexes.put(&a2, None, Some(&a));
        let mut b2 = b.clone();
        b2.next_check = Some(late);
        indexes.put(&b2, None, Some(&b));
        assert_eq!(indexes.due(check), [a.id.as_str()]);
        assert_eq!(indexes.due(late).len(), 2);
        let mut b3 = b2.clone();
        b3.next_check = None;
        indexes.put(&b3, None, Some(&b2));
        assert_eq!(indexes.due(later), [a.id.as_str()]);
        assert_eq!(indexes.schedule.len(), 1);
        assert_eq!(
            indexes.earliest_check(&Zone::named("Europe/Kyiv").unwrap()),
            Some(check)
        );
    }
}
