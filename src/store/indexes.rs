//! Indexes over the published tenders: the listing ordered by `dateModified`, the schedule
//! ordered by `next_check`, the `dateModified` stamp source, and the daily tenderID counter.

use super::listed::ListedFields;
use super::ordered::Ordered;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::{Timestamp, Zone};
use std::collections::{BTreeSet, HashMap};
use time::{Date, OffsetDateTime};

/// A tender id (32 hexadecimal digits) held inline: the indexes compare and copy ids in
/// place, with no allocation per entry. A tender whose id is not one is neither listed nor
/// scheduled; loading refuses such a record (see [`crate::domain::ids::is_id`]).
type Id = [u8; 32];

fn inline_id(id: &str) -> Option<Id> {
    id.as_bytes().try_into().ok()
}

/// A row of the listing, held inline in the index: a page reads contiguous memory and
/// allocates nothing per row, however many tenders the store holds.
#[derive(Debug, Clone, Copy)]
pub struct ListingRow {
    id: Id,
    /// `dateModified` as shown (always 32 characters), rendered once per change.
    date_modified: [u8; 32],
}

impl ListingRow {
    fn new(id: &str, date_modified: &str) -> Option<ListingRow> {
        Some(ListingRow {
            id: inline_id(id)?,
            date_modified: date_modified.as_bytes().try_into().ok()?,
        })
    }

    pub fn id(&self) -> &str {
        std::str::from_utf8(&self.id).unwrap_or_default()
    }

    pub fn date_modified(&self) -> &str {
        std::str::from_utf8(&self.date_modified).unwrap_or_default()
    }
}

#[derive(Debug, Clone)]
struct Listed {
    row: ListingRow,
    test: bool,
    fields: ListedFields,
}

/// Which tenders a listing shows, by test mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeFilter {
    Real,
    Test,
    All,
}

#[derive(Debug, Clone)]
pub struct PageRequest {
    /// The `dateModified` to start from (inclusive; the row equal to it is skipped).
    pub offset: Option<Timestamp>,
    pub limit: usize,
    pub descending: bool,
    pub modes: ModeFilter,
    /// The listed fields the page shows, as positions in the listed fields, in the order
    /// asked for.
    pub listed: Vec<usize>,
}

/// The rows of a page, with the texts of the listed fields it asked for, copied while the
/// index is read (plain reads of each row's block, which the processor can overlap).
#[derive(Debug, Clone)]
pub struct Page {
    pub rows: Vec<ListingRow>,
    /// How many listed fields each row has texts for.
    wanted: usize,
    /// The texts, row after row, field after field; `ends` says where each ends.
    texts: Vec<u8>,
    ends: Vec<u32>,
}

impl Page {
    /// The text of the `j`th listed field asked for, of row `i`; `None` where the tender has
    /// no such field.
    pub fn listed(&self, i: usize, j: usize) -> Option<&[u8]> {
        let k = i * self.wanted + j;
        let start = k.checked_sub(1).and_then(|p| self.ends.get(p)).copied();
        let end = *self.ends.get(k)? as usize;
        let text = self.texts.get(start.unwrap_or(0) as usize..end)?;
        (!text.is_empty()).then_some(text)
    }
}

#[derive(Default)]
pub struct Indexes {
    listing: Ordered<Listed>,
    /// Next checks, by their moment; a tender's id breaks ties.
    schedule: BTreeSet<(i64, Id)>,
    last_stamp: i64,
    daily: HashMap<Date, u32>,
    /// Stamps handed out for changes not yet entered: the listing stops before the first.
    pending: BTreeSet<i64>,
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
        self.last_stamp = self.last_stamp.max(tender.date_modified.micros());
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
        let stamp = self.stamp(zone, now);
        self.pending.insert(stamp.micros());
        stamp
    }

    /// The change stamped `stamp` was entered (or given up).
    pub fn release(&mut self, stamp: Timestamp) {
        self.pending.remove(&stamp.micros());
    }

    /// A `dateModified` for a change at `now`, strictly after every earlier one.
    fn stamp(&mut self, zone: &Zone, now: Timestamp) -> Timestamp {
        let micros = now.micros().max(self.last_stamp + 1);
        self.last_stamp = micros;
        let instant = OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
            .unwrap_or(now.instant());
        zone.at(instant)
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
        let kept = old.and_then(|old| self.listing.remove(old.date_modified.micros()));
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
        if let Some(row) = ListingRow::new(&new.id, &new.date_modified.to_string()) {
            let fields = fields
                .or_else(|| kept.map(|listed| listed.fields))
                .unwrap_or_else(|| ListedFields::of(new));
            self.listing.insert(
                new.date_modified.micros(),
                Listed {
                    row,
                    test: new.is_test(),
                    fields,
                },
            );
        }
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
        let wanted = |(_, l): &(i64, &Listed)| match request.modes {
            ModeFilter::All => true,
            ModeFilter::Test => l.test,
            ModeFilter::Real => !l.test,
        };
        let start = request.offset.map(|t| t.micros());
        let range: Box<dyn Iterator<Item = (i64, &Listed)>> = if request.descending {
            Box::new(self.listing.descending(start))
        } else {
            Box::new(self.listing.ascending(start))
        };
        // Oldest first, the page ends before a change still being committed.
        let horizon = self
            .pending
            .first()
            .copied()
            .filter(|_| !request.descending);
        let mut rows: Vec<(i64, &Listed)> = range
            .take_while(|(k, _)| horizon.is_none_or(|h| *k < h))
            .filter(wanted)
            .take(request.limit + 1)
            .collect();
        // The row equal to the offset closed the previous page.
        if start.is_some_and(|s| rows.first().is_some_and(|(k, _)| *k == s)) {
            rows.remove(0);
        }
        rows.truncate(request.limit);
        let mut page = Page {
            rows: Vec::with_capacity(rows.len()),
            wanted: request.listed.len(),
            texts: Vec::new(),
            ends: Vec::with_capacity(rows.len() * request.listed.len()),
        };
        if !request.listed.is_empty() {
            let touched = rows.iter().fold(0, |acc, (_, l)| acc ^ l.fields.touch());
            std::hint::black_box(touched);
        }
        for (_, l) in rows {
            page.rows.push(l.row);
            l.fields
                .copy_into(&request.listed, &mut page.texts, &mut page.ends);
        }
        page
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
