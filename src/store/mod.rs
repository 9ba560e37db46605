//! The in-memory store: each tender behind its own lock, plus the indexes that the listing
//! and the scheduler read.
//!
//! Writes to one tender are serialized by its lock and applied to a copy, so a refused
//! request leaves the tender exactly as it was. Lock order is always a tender, then the
//! indexes; nothing takes a tender lock while holding the indexes.

mod indexes;

pub use indexes::{ListingRow, ModeFilter, Page, PageRequest};

use crate::domain::auction::AuctionCalendar;
use crate::domain::lifecycle;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::{Timestamp, Zone};
use crate::domain::{Change, Refusal};
use indexes::Indexes;
use salvo::hyper::body::Bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use time::Duration;
use tokio::sync::Notify;

/// A tender and the cached JSON of its public representation.
pub struct Entry {
    pub tender: Tender,
    public: Option<Bytes>,
}

type Slot = Arc<Mutex<Entry>>;

pub struct Store {
    zone: Zone,
    /// The least length of an accelerated auction.
    quick_auction: Duration,
    tenders: RwLock<HashMap<String, Slot>>,
    indexes: Mutex<Indexes>,
    calendar: Mutex<AuctionCalendar>,
    /// Tells the scheduler that a check earlier than any it knew was added.
    rescheduled: Notify,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Store {
    pub fn new(zone: Zone, quick_auction: Duration) -> Store {
        Store {
            zone,
            quick_auction,
            tenders: RwLock::default(),
            indexes: Mutex::default(),
            calendar: Mutex::default(),
            rescheduled: Notify::new(),
        }
    }

    fn slot(&self, id: &str) -> Option<Slot> {
        self.tenders
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.tenders
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.tenders.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next official identifier for a tender created at `now`: `UA-YYYY-MM-DD-NNNNNN`.
    pub fn next_tender_id(&self, now: Timestamp) -> String {
        let date = self.zone.date_of(now);
        let n = lock(&self.indexes).next_daily_number(date);
        format!(
            "UA-{:04}-{:02}-{:02}-{n:06}",
            date.year(),
            u8::from(date.month()),
            date.day()
        )
    }

    /// Stores a new tender, stamping its `dateModified`, and returns `view` of it.
    pub fn insert<V>(
        &self,
        mut tender: Tender,
        now: Timestamp,
        view: impl FnOnce(&Tender) -> V,
    ) -> V {
        let mut indexes = lock(&self.indexes);
        tender.date_modified = indexes.stamp(&self.zone, now);
        let earlier = indexes.put(&tender, None);
        drop(indexes);
        if earlier {
            self.rescheduled.notify_one();
        }
        let result = view(&tender);
        let id = tender.id.clone();
        let slot = Arc::new(Mutex::new(Entry {
            tender,
            public: None,
        }));
        self.tenders
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, slot);
        result
    }

    /// Reads a tender under its lock.
    pub fn read<R>(&self, id: &str, f: impl FnOnce(&Tender) -> R) -> Option<R> {
        let slot = self.slot(id)?;
        let entry = lock(&slot);
        Some(f(&entry.tender))
    }

    /// The public representation `{"data": tender}` as compact JSON, built once per change.
    pub fn public_json(&self, id: &str, build: impl FnOnce(&Tender) -> String) -> Option<Bytes> {
        let slot = self.slot(id)?;
        let mut entry = lock(&slot);
        if let Some(cached) = &entry.public {
            return Some(cached.clone());
        }
        let json = Bytes::from(build(&entry.tender));
        entry.public = Some(json.clone());
        Some(json)
    }

    /// Applies a write to a tender and returns `view` of the result. Transitions already
    /// due are applied (and kept) first; then `op` works on a copy, which replaces the
    /// tender only if `op` succeeds.
    pub fn update<V>(
        &self,
        id: &str,
        now: Timestamp,
        op: impl FnOnce(&mut Tender) -> Result<Change, Refusal>,
        view: impl FnOnce(&Tender) -> V,
    ) -> Result<V, Refusal> {
        let slot = self.slot(id).ok_or(Refusal::NotFound("tender_id"))?;
        let mut entry = lock(&slot);
        let mut copy = entry.tender.clone();
        let caught_up = self.catch_up(&mut copy, now);
        if caught_up != Change::None {
            self.save(&mut entry, copy.clone(), caught_up, now);
        }
        let change = op(&mut copy)?;
        if change != Change::None {
            self.save(&mut entry, copy, change, now);
        }
        Ok(view(&entry.tender))
    }

    fn catch_up(&self, tender: &mut Tender, now: Timestamp) -> Change {
        if tender.status == TenderStatus::Draft || tender.next_check.is_none_or(|due| due > now) {
            return Change::None;
        }
        let change = lifecycle::advance(
            tender,
            now,
            &self.zone,
            &mut lock(&self.calendar),
            self.quick_auction,
        );
        // A due check that changed nothing still moves on (e.g. an auction that started).
        if change == Change::None && tender.compute_next_check(now) != tender.next_check {
            Change::Silent
        } else {
            change
        }
    }

    fn save(&self, entry: &mut Entry, mut tender: Tender, change: Change, now: Timestamp) {
        tender.next_check = if tender.status == TenderStatus::Draft {
            None
        } else {
            tender.compute_next_check(now)
        };
        let mut indexes = lock(&self.indexes);
        if change == Change::Public {
            tender.date_modified = indexes.stamp(&self.zone, now);
        }
        let earlier = indexes.put(&tender, Some(&entry.tender));
        drop(indexes);
        if earlier {
            self.rescheduled.notify_one();
        }
        entry.tender = tender;
        entry.public = None;
    }

    /// Applies every transition due at `now`; returns how many tenders moved.
    pub fn run_due(&self, now: Timestamp) -> usize {
        let due = lock(&self.indexes).due(now);
        due.iter()
            .filter(|id| self.update(id, now, |_| Ok(Change::None), |_| ()).is_ok())
            .count()
    }

    /// Resolves when a check earlier than every known one is scheduled.
    pub async fn rescheduled(&self) {
        self.rescheduled.notified().await;
    }

    /// The earliest `next_check` of any published tender.
    pub fn earliest_check(&self) -> Option<Timestamp> {
        lock(&self.indexes).earliest_check(&self.zone)
    }

    /// A page of the listing; `fields` picks extra fields of each row under its lock.
    pub fn page(&self, request: &PageRequest) -> Page {
        lock(&self.indexes).page(request)
    }
}
