//! The listing of one kind of record (tenders, contracts) in the order the server changed
//! them: its rows, each with the fields clients page by; the keys that keep the order strictly
//! increasing (the server's moment of each change, which is the record's `dateModified`
//! unless the record lives on a clock of its own: a broker's or a test clock); and the changes still being committed,
//! which a page must not pass.

use super::listed_fields::ListedFields;
use super::ordered::Ordered;
use crate::domain::time::{Timestamp, Zone};
use std::collections::{BTreeSet, HashMap};
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
    /// Where the row stands (microseconds): what an `offset` names.
    key: i64,
}

impl ListingRow {
    fn new(id: &str, date_modified: &str, key: i64) -> Option<ListingRow> {
        Some(ListingRow {
            id: inline_id(id)?,
            date_modified: date_modified.as_bytes().try_into().ok()?,
            key,
        })
    }

    /// Where the row stands, as the `offset` that names it.
    pub fn key(&self, zone: &Zone) -> Timestamp {
        zone.at(from_micros(self.key))
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
    /// The key to start from (inclusive; the row equal to it is skipped).
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

/// What a listing shows of one record: its id, where it stands, its `dateModified`, whether it
/// is in test mode and its listed fields.
pub struct Entry<'a> {
    pub id: &'a str,
    pub key: Timestamp,
    pub date_modified: Timestamp,
    pub test: bool,
}

/// When a record changed: where the listing keeps it (`key`, the server's moment of the
/// change, strictly after every earlier one, so that a reader paging by `offset` meets each
/// change once, in the order the server made them) and the `dateModified` it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub key: Timestamp,
    pub date_modified: Timestamp,
}

impl Stamp {
    /// The key as a record keeps it: only where it is not its `dateModified`.
    pub fn listed_at(&self) -> Option<Timestamp> {
        (self.key.micros() != self.date_modified.micros()).then_some(self.key)
    }
}

fn from_micros(micros: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// A change of a record on a clock other than the server's: the clock's key, its now, and
/// the `dateModified` the record showed before.
pub struct OwnTime<'a> {
    pub clock: &'a str,
    pub now: Timestamp,
    pub before: Option<Timestamp>,
}

#[derive(Default)]
pub struct Listing {
    rows: Ordered<Listed>,
    last_stamp: i64,
    /// The last `dateModified` given to a record on each clock other than the server's, by
    /// clock key: the records of one clock show theirs in the listing's order.
    last_own: HashMap<String, i64>,
    /// Stamps handed out for changes not yet entered: a page stops before the first.
    pending: BTreeSet<i64>,
}

impl Listing {
    /// Takes in a record of an earlier run, on the clock `clock`, where it stands and what it
    /// shows: later stamps follow on from it.
    pub fn restore(&mut self, clock: &str, key: Timestamp, date_modified: Timestamp) {
        self.last_stamp = self.last_stamp.max(key.micros());
        if key.micros() != date_modified.micros() {
            let last = self.last_own.entry(clock.to_string()).or_insert(i64::MIN);
            *last = (*last).max(date_modified.micros());
        }
    }

    /// Stamps a change made at `server_now` on the server's clock, held back from the listing
    /// until released. A record on a clock of its own (`own`) shows a `dateModified` of
    /// that clock, later than the one before and than any that clock's records were given;
    /// any other shows its key.
    pub fn reserve(
        &mut self,
        zone: &Zone,
        server_now: Timestamp,
        own: Option<OwnTime<'_>>,
    ) -> Stamp {
        let micros = server_now.micros().max(self.last_stamp + 1);
        self.last_stamp = micros;
        self.pending.insert(micros);
        let key = zone.at(from_micros(micros));
        let date_modified = match own {
            None => key,
            Some(own) => {
                let last = self
                    .last_own
                    .entry(own.clock.to_string())
                    .or_insert(i64::MIN);
                let after = own.before.map_or(i64::MIN, |b| b.micros()).max(*last);
                let micros = own.now.micros().max(after.saturating_add(1));
                *last = micros;
                zone.at(from_micros(micros))
            }
        };
        Stamp { key, date_modified }
    }

    /// The change keyed `key` was entered (or given up).
    pub fn release(&mut self, key: Timestamp) {
        self.pending.remove(&key.micros());
    }

    /// Takes a record's row out (it changed, or is no longer listed); answers its listed
    /// fields, which a caller whose change left them reading the same keeps.
    pub fn remove(&mut self, key: Timestamp) -> Option<ListedFields> {
        self.rows.remove(key.micros()).map(|listed| listed.fields)
    }

    /// Enters a record's row.
    pub fn insert(&mut self, entry: Entry<'_>, fields: ListedFields) {
        let key = entry.key.micros();
        if let Some(row) = ListingRow::new(entry.id, &entry.date_modified.to_string(), key) {
            self.rows.insert(
                key,
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
