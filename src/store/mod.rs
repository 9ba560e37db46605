//! The in-memory store: each tender behind its own lock, plus the indexes that the listing
//! and the scheduler read.
//!
//! Writes to one tender take turns and work on a copy, so a refused request leaves the tender
//! exactly as it was; the copy replaces the tender under its lock, which reads take briefly.
//! Lock order is always a tender, then the indexes; nothing takes a tender lock while
//! holding the indexes.
//!
//! With a data directory every change is committed to the database before it replaces the
//! tender in memory (and so before it is acknowledged); a write awaits its commit holding its
//! turn but no thread, so the commits of many writers share one sync. Reads never touch the
//! database.

pub mod database;
mod indexes;
mod listed;

pub use indexes::{ListingRow, ModeFilter, Page, PageRequest};
pub use listed::ListedFields;

use crate::domain::auction::AuctionCalendar;
use crate::domain::lifecycle;
use crate::domain::stored;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::{Timestamp, Zone};
use crate::domain::{Change, Refusal};
use database::{Database, Loaded, Write};
use indexes::Indexes;
use salvo::hyper::body::Bytes;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use time::Duration;
use tokio::sync::Notify;

/// A tender and the cached JSON of its public representation.
pub struct Entry {
    pub tender: Tender,
    public: Option<Bytes>,
}

/// A tender's place: its current state, and the turn its writers take (held across a
/// write's commit, so that the next write starts from what was committed).
struct Place {
    entry: Mutex<Entry>,
    turn: tokio::sync::Mutex<()>,
}

impl Place {
    fn new(tender: Tender) -> Slot {
        Arc::new(Place {
            entry: Mutex::new(Entry {
                tender,
                public: None,
            }),
            turn: tokio::sync::Mutex::new(()),
        })
    }
}

type Slot = Arc<Place>;

pub struct Store {
    zone: Zone,
    /// The least length of an accelerated auction.
    quick_auction: Duration,
    tenders: RwLock<HashMap<String, Slot>>,
    indexes: Mutex<Indexes>,
    calendar: Mutex<AuctionCalendar>,
    /// Tells the scheduler that a check earlier than any it knew was added.
    rescheduled: Notify,
    durable: Option<Durable>,
}

/// The database behind a store opened on a data directory.
struct Durable {
    database: Database,
    /// Orders the calendar's snapshots: a later one always wins in the file.
    calendar_version: AtomicU64,
    /// The server state found in the file at start-up, by name.
    state: HashMap<String, String>,
}

const CALENDAR: &str = "auction_calendar";
/// Due transitions applied side by side.
const DUE_WRITERS: usize = 32;

/// Runs a wait for the database without starving the other tasks of this worker thread.
fn blocking<R>(f: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
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
            durable: None,
        }
    }

    /// A store kept in `DIR/registry.sqlite3`, loaded with everything the file holds.
    pub fn open(zone: Zone, quick_auction: Duration, dir: &Path) -> Result<Store, String> {
        Store::open_limited(zone, quick_auction, dir, None)
    }

    /// [`Store::open`] on a file held to `max_pages` pages: a full disk, for tests.
    pub(crate) fn open_limited(
        zone: Zone,
        quick_auction: Duration,
        dir: &Path,
        max_pages: Option<u32>,
    ) -> Result<Store, String> {
        let (opened, tenders) =
            read_all(|on_tender| Database::open_limited(dir, max_pages, on_tender));
        let (database, Loaded { state }) = opened?;
        let mut store = Store::new(zone, quick_auction);
        let state: HashMap<String, String> = state.into_iter().collect();
        if let Some(json) = state.get(CALENDAR) {
            let days: Vec<(i32, u32)> = stored::from_json(json)
                .map_err(|e| format!("{}: the auction calendar: {e}", database.path().display()))?;
            store.calendar = Mutex::new(AuctionCalendar::restore(&days));
        }
        let tenders = tenders.map_err(|e| format!("{}: {e}", database.path().display()))?;
        {
            let indexes = store.indexes.get_mut().unwrap_or_else(|p| p.into_inner());
            let map = store.tenders.get_mut().unwrap_or_else(|p| p.into_inner());
            map.reserve(tenders.len());
            for (fields, tender) in tenders {
                indexes.restore(&tender);
                indexes.put(&tender, fields, None);
                let id = tender.id.clone();
                map.insert(id, Place::new(tender));
            }
        }
        store.durable = Some(Durable {
            database,
            calendar_version: AtomicU64::new(0),
            state,
        });
        Ok(store)
    }

    /// A piece of server state as the data directory held it at start-up.
    pub fn kept_state(&self, name: &str) -> Option<&str> {
        self.durable.as_ref()?.state.get(name).map(String::as_str)
    }

    /// Commits a piece of server state (later `version`s win); without a data directory,
    /// nothing to do.
    pub fn keep_state(
        &self,
        name: &'static str,
        value: String,
        version: u64,
    ) -> Result<(), String> {
        let Some(durable) = &self.durable else {
            return Ok(());
        };
        blocking(|| {
            durable.database.commit(vec![Write::State {
                name,
                value,
                version,
            }])
        })
    }

    /// The database file, when the store is kept in one.
    pub fn database_file(&self) -> Option<&Path> {
        self.durable.as_ref().map(|d| d.database.path())
    }

    /// Enters a tender whose commit ended with `committed` in the indexes in place of `old`.
    /// `stamped`: its `dateModified` was reserved for this change, and the listing shows
    /// nothing after it until now, so that a feed reader never passes a change still being
    /// committed.
    fn index(
        &self,
        tender: &Tender,
        old: Option<&Tender>,
        stamped: bool,
        committed: Result<(), Refusal>,
    ) -> Result<(), Refusal> {
        let fields = committed.as_ref().ok().and_then(|_| listed_fields(tender));
        let mut indexes = lock(&self.indexes);
        if stamped {
            indexes.release(tender.date_modified);
        }
        committed?;
        let earlier = indexes.put(tender, fields, old);
        drop(indexes);
        if earlier {
            self.rescheduled.notify_one();
        }
        Ok(())
    }

    /// Commits a tender (and whatever else changed with it) before it may be shown.
    async fn commit(&self, tender: &Tender, calendar: Option<Write>) -> Result<(), Refusal> {
        let Some(durable) = &self.durable else {
            return Ok(());
        };
        let record = stored::to_json(tender)
            .map_err(|e| Refusal::Unavailable(format!("the tender cannot be stored: {e}")))?;
        let mut writes = vec![Write::Tender {
            id: tender.id.clone(),
            record,
        }];
        writes.extend(calendar);
        durable
            .database
            .committed(writes)
            .await
            .map_err(Refusal::Unavailable)
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
    pub async fn insert<V>(
        &self,
        mut tender: Tender,
        now: Timestamp,
        view: impl FnOnce(&Tender) -> V,
    ) -> Result<V, Refusal> {
        tender.date_modified = lock(&self.indexes).reserve(&self.zone, now);
        let committed = self.commit(&tender, None).await;
        self.index(&tender, None, true, committed)?;
        let result = view(&tender);
        let id = tender.id.clone();
        self.tenders
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, Place::new(tender));
        Ok(result)
    }

    /// Reads a tender under its lock.
    pub fn read<R>(&self, id: &str, f: impl FnOnce(&Tender) -> R) -> Option<R> {
        let slot = self.slot(id)?;
        let entry = lock(&slot.entry);
        Some(f(&entry.tender))
    }

    /// The public representation `{"data": tender}` as compact JSON, built once per change.
    pub fn public_json(&self, id: &str, build: impl FnOnce(&Tender) -> String) -> Option<Bytes> {
        let slot = self.slot(id)?;
        let mut entry = lock(&slot.entry);
        if let Some(cached) = &entry.public {
            return Some(cached.clone());
        }
        let json = Bytes::from(build(&entry.tender));
        entry.public = Some(json.clone());
        Some(json)
    }

    /// Applies a write to a tender and returns `view` of the result. Transitions already
    /// due are applied (and kept) first; then `op` works on a copy, which replaces the
    /// tender only if `op` succeeds and the change is committed.
    pub async fn update<V>(
        &self,
        id: &str,
        now: Timestamp,
        op: impl FnOnce(&mut Tender) -> Result<Change, Refusal>,
        view: impl FnOnce(&Tender) -> V,
    ) -> Result<V, Refusal> {
        let place = self.slot(id).ok_or(Refusal::NotFound("tender_id"))?;
        let _turn = place.turn.lock().await;
        let mut copy = lock(&place.entry).tender.clone();
        let (caught_up, calendar) = self.catch_up(&mut copy, now);
        if caught_up != Change::None {
            self.save(&place, copy.clone(), caught_up, now, calendar)
                .await?;
        }
        let change = op(&mut copy)?;
        if change != Change::None {
            self.save(&place, copy, change, now, None).await?;
        }
        Ok(view(&lock(&place.entry).tender))
    }

    /// Applies the transitions due at `now`, with the calendar's new state if they booked
    /// an auction slot and the store is durable.
    fn catch_up(&self, tender: &mut Tender, now: Timestamp) -> (Change, Option<Write>) {
        if tender.status == TenderStatus::Draft || tender.next_check.is_none_or(|due| due > now) {
            return (Change::None, None);
        }
        let mut calendar = lock(&self.calendar);
        let before = self.durable.as_ref().map(|_| calendar.booked());
        let change = lifecycle::advance(tender, now, &self.zone, &mut calendar, self.quick_auction);
        let snapshot = match (&self.durable, before) {
            (Some(durable), Some(before)) if before != calendar.booked() => {
                stored::to_json(&calendar.booked())
                    .ok()
                    .map(|value| Write::State {
                        name: CALENDAR,
                        value,
                        version: durable.calendar_version.fetch_add(1, Ordering::SeqCst) + 1,
                    })
            }
            _ => None,
        };
        drop(calendar);
        // A due check that changed nothing still moves on (e.g. an auction that started).
        let change =
            if change == Change::None && tender.compute_next_check(now) != tender.next_check {
                Change::Silent
            } else {
                change
            };
        (change, snapshot)
    }

    /// Commits `tender`, then makes it the current state.
    async fn save(
        &self,
        place: &Place,
        mut tender: Tender,
        change: Change,
        now: Timestamp,
        calendar: Option<Write>,
    ) -> Result<(), Refusal> {
        tender.next_check = if tender.status == TenderStatus::Draft {
            None
        } else {
            tender.compute_next_check(now)
        };
        let stamped = change == Change::Public;
        if stamped {
            tender.date_modified = lock(&self.indexes).reserve(&self.zone, now);
        }
        let committed = self.commit(&tender, calendar).await;
        let mut entry = lock(&place.entry);
        self.index(&tender, Some(&entry.tender), stamped, committed)?;
        entry.tender = tender;
        entry.public = None;
        Ok(())
    }

    /// Applies every transition due at `now`; returns how many tenders moved. With a data
    /// directory the tenders are written side by side, so that their commits share syncs.
    pub async fn run_due(&self, now: Timestamp) -> usize {
        use futures_util::stream::{self, StreamExt};
        let due = lock(&self.indexes).due(now);
        stream::iter(due)
            .map(|id| async move {
                self.update(&id, now, |_| Ok(Change::None), |_| ())
                    .await
                    .is_ok()
            })
            .buffer_unordered(DUE_WRITERS)
            .filter(|moved| std::future::ready(*moved))
            .count()
            .await
    }

    /// Resolves when a check earlier than every known one is scheduled.
    pub async fn rescheduled(&self) {
        self.rescheduled.notified().await;
    }

    /// The earliest `next_check` of any published tender.
    pub fn earliest_check(&self) -> Option<Timestamp> {
        lock(&self.indexes).earliest_check(&self.zone)
    }

    /// A page of the listing, with the listed fields of each row when the request wants fields.
    pub fn page(&self, request: &PageRequest) -> Page {
        lock(&self.indexes).page(request)
    }
}

/// A tender read back at start-up, with its listed fields.
type ReadBack = (Option<ListedFields>, Tender);

/// The listed fields of a tender the listing shows (none for a draft).
fn listed_fields(tender: &Tender) -> Option<ListedFields> {
    (tender.status != TenderStatus::Draft).then(|| ListedFields::of(tender))
}

/// Reads the stored tenders back while `open` reads the file: the records go in chunks to a
/// parser on every core and are dropped once read, so start-up holds few of them at a time.
fn read_all<T>(
    open: impl FnOnce(database::OnTender<'_>) -> T,
) -> (T, Result<Vec<ReadBack>, String>) {
    const CHUNK: usize = 256;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (chunks, queue) = std::sync::mpsc::sync_channel::<Vec<(String, String)>>(threads * 2);
    let queue = Mutex::new(queue);
    std::thread::scope(|scope| {
        let parsers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut parsed = Vec::new();
                    // After an error the queue is still drained, so that the reader never waits.
                    let mut error = None;
                    loop {
                        let Ok(chunk) = lock(&queue).recv() else {
                            return error.map_or(Ok(parsed), Err);
                        };
                        for (id, json) in &chunk {
                            if error.is_some() {
                                break;
                            }
                            match stored::from_json::<Tender>(json) {
                                // The listed fields are rendered here, on every core.
                                Ok(tender) => parsed.push((listed_fields(&tender), tender)),
                                Err(e) => {
                                    error = Some(format!("the tender {id} cannot be read: {e}"))
                                }
                            }
                        }
                    }
                })
            })
            .collect();
        let mut chunk = Vec::with_capacity(CHUNK);
        let opened = open(&mut |id, json| {
            chunk.push((id, json));
            if chunk.len() == CHUNK {
                let _ = chunks.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)));
            }
        });
        let _ = chunks.send(chunk);
        drop(chunks);
        let mut all = Vec::new();
        let mut failed = None;
        for parser in parsers {
            match parser.join() {
                Ok(Ok(part)) => all.extend(part),
                Ok(Err(e)) => failed = failed.or(Some(e)),
                Err(_) => failed = failed.or(Some("reading the tenders failed".to_string())),
            }
        }
        (opened, failed.map_or(Ok(all), Err))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tender::tests::published;

    fn stored_form(store: &Store, id: &str) -> String {
        store
            .read(id, |t| stored::to_json(t).expect("serialises"))
            .expect("held")
    }

    #[tokio::test]
    async fn a_reopened_store_holds_every_tender_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let (tender, _, now) = published();
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let store = Store::open(zone, Duration::seconds(30), dir.path()).unwrap();
        let id = tender.id.clone();
        store.insert(tender, now, |_| ()).await.unwrap();
        let written = stored_form(&store, &id);
        drop(store);
        let store = Store::open(zone, Duration::seconds(30), dir.path()).unwrap();
        assert_eq!(stored_form(&store, &id), written);
        assert!(written.contains("ownerToken"), "{written}");
        let public = store
            .read(&id, |t| serde_json::to_string(t).unwrap())
            .unwrap();
        assert!(!public.contains("ownerToken"), "{public}");
    }

    #[tokio::test]
    async fn a_write_the_file_cannot_take_is_refused_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (tender, _, now) = published();
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let store = Store::open_limited(zone, Duration::seconds(30), dir.path(), Some(32)).unwrap();
        let id = tender.id.clone();
        store.insert(tender, now, |_| ()).await.unwrap();
        let before = stored_form(&store, &id);
        let huge = "x".repeat(1 << 20);
        let refused = store
            .update(
                &id,
                now,
                |t| {
                    t.terms.description = Some(huge.clone());
                    Ok(Change::Public)
                },
                |_| (),
            )
            .await;
        assert!(
            matches!(&refused, Err(Refusal::Unavailable(reason)) if reason.contains("full")),
            "{refused:?}"
        );
        assert_eq!(stored_form(&store, &id), before);
        drop(store);
        let store = Store::open(zone, Duration::seconds(30), dir.path()).unwrap();
        assert_eq!(stored_form(&store, &id), before);
    }
}
