//! The listing of one kind of record (tenders, contracts) by `dateModified`: its rows, each
//! with the fields clients page by; the stamps that keep every `dateModified` of the kind
//! strictly increasing; and the changes still being committed, which a page must not pass.

use super::listed::ListedFields;
use super::ordered::Ordered;
use crate::domain::time::{Timestamp, Zone};
use std::collections::BTreeSet;
use time::OffsetDateTime;

/// A record id (32 hexadecimal digits) held inline: the indexes compare and copy ids in place,
/// with no allocation per entry. A record whose id is not one is neither listed nor
/// scheduled; loading refuses such a record (see [`crate::domain::ids::is_id`]).
pub type Id = [u8; 32];

pub fn inline_id(id: &str) -> Option<Id> {
    id.as_bytes().try_into().ok()
}

/// A row of the listing, held inline in the index: a page reads contiguous memory and
/// allocates nothing per row, however many records the store holds.
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

/// Which records a listing shows, by test mode.
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
    /// The text of the `j`th listed field asked for, of row `i`; `None` where the record has
    /// no such field.
    pub fn listed(&self, i: usize, j: usize) -> Option<&[u8]> {
        let k = i * self.wanted + j;
        let start = k.checked_sub(1).and_then(|p| self.ends.get(p)).copied();
        let end = *self.ends.get(k)? as usize;
        let text = self.texts.get(start.unwrap_or(0) as usize..end)?;
        (!text.is_empty()).then_some(text)
    }
}

/// What a listing shows of one record: its id, its `dateModified`, whether it is in test mode
/// and its listed fields.
pub struct Entry<'a> {
    pub id: &'a str,
    pub date_modified: Timestamp,
    pub test: bool,
}

#[derive(Default)]
pub struct Listing {
    rows: Ordered<Listed>,
    last_stamp: i64,
    /// Stamps handed out for changes not yet entered: a page stops before the first.
    pending: BTreeSet<i64>,
}

impl Listing {
    /// Takes in a stamp of an earlier run: later stamps follow on from it.
    pub fn restore(&mut self, date_modified: Timestamp) {
        self.last_stamp = self.last_stamp.max(date_modified.micros());
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

    /// Takes a record's row out (it changed, or is no longer listed); answers its listed
    /// fields, which a caller whose change left them reading the same keeps.
    pub fn remove(&mut self, date_modified: Timestamp) -> Option<ListedFields> {
        self.rows
            .remove(date_modified.micros())
            .map(|listed| listed.fields)
    }

    /// Enters a record's row.
    pub fn insert(&mut self, entry: Entry<'_>, fields: ListedFields) {
        if let Some(row) = ListingRow::new(entry.id, &entry.date_modified.to_string()) {
            self.rows.insert(
                entry.date_modified.micros(),
                Listed {
                    row,
                    test: entry.test,
                    fields,
                },
            );
        }
    }

    pub fn page(&self, request: &PageRequest) -> Page {
        let wanted = |(_, l): &(i64, &Listed)| match request.modes {
            ModeFilter::All => true,
            ModeFilter::Test => l.test,
            ModeFilter::Real => !l.test,
        };
        let start = request.offset.map(|t| t.micros());
        let range: Box<dyn Iterator<Item = (i64, &Listed)>> = if request.descending {
            Box::new(self.rows.descending(start))
        } else {
            Box::new(self.rows.ascending(start))
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
