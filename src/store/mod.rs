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

mod bid_rows;
mod contracts;
pub mod database;
mod indexes;
mod listed;
mod listing;
mod ordered;
mod shelf;

pub use contracts::CONTRACT_FIELDS;
pub use listed::{ListedFields, TENDER_FIELDS};
use listing::{Listing, OwnTime, Stamp};
pub use listing::{ListingRow, ModeFilter, Page, PageRequest};

use crate::clock::Clock;
use crate::clock::clocks::Clocks;
use crate::contracting::Contract;
use crate::domain::auction::AuctionCalendar;
use crate::domain::bid::Bid;
use crate::domain::ids;
use crate::domain::lifecycle;
use crate::domain::stored;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::{Timestamp, Zone};
use crate::domain::{Change, Refusal};
use bid_rows::{BidRows, Bids};
use database::{Database, Loaded, Write};
use indexes::Indexes;
use salvo::hyper::body::Bytes;
use shelf::{Shelf, lock};
use std::collections::HashMap;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use tokio::sync::Notify;

/// A tender's place; its writers hold the rows of its bids in the database file.
type Place = shelf::Place<Tender, BidRows>;

/// A tender's turn, held by a write that may outlive its request (see [`Store::saved`]).
type Turn = tokio::sync::OwnedMutexGuard<BidRows>;

type Slot = Arc<Place>;

pub struct Store {
    zone: Zone,
    tenders: Shelf<Tender, BidRows>,
    /// Contracts under management; their writers hold nothing of their own.
    contracts: Shelf<Contract, ()>,
    indexes: Mutex<Indexes>,
    calendar: Mutex<AuctionCalendar>,
    /// Tells the scheduler that a check earlier than any it knew was added.
    rescheduled: Notify,
    durable: Option<Durable>,
    /// The clocks records live on (see [`Store::now_for`]).
    time: OnceLock<Arc<Clocks>>,
}

/// The database behind a store opened on a data directory.
struct Durable {
    database: Database,
    /// Orders the calendar's snapshots: a later one always wins in the file.
    calendar_version: AtomicU64,
    /// The row the next new tender takes.
    next_row: AtomicI64,
    /// The row the next new bid takes.
    next_bid_row: AtomicI64,
    /// The row the next contract handed over takes.
    next_contract_row: AtomicI64,
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

impl Store {
    pub fn new(zone: Zone) -> Store {
        Store {
            zone,
            tenders: Shelf::default(),
            contracts: Shelf::default(),
            indexes: Mutex::default(),
            calendar: Mutex::default(),
            rescheduled: Notify::new(),
            durable: None,
            time: OnceLock::new(),
        }
    }

    /// Has the records live on `clocks` (set once, before the store serves anything; until
    /// then they live on a clock of the store's own).
    pub fn keep_time(&self, clocks: Arc<Clocks>) {
        if self.time.set(clocks).is_err() {
            tracing::warn!("the store's clocks were already chosen");
        }
    }

    pub fn clocks(&self) -> &Arc<Clocks> {
        self.time
            .get_or_init(|| Arc::new(Clocks::new(Arc::new(Clock::new()), self.zone)))
    }

    /// "Now" for a record of `owner`: the single place a rule's time is read from.
    pub fn now_for(&self, owner: &str) -> Timestamp {
        self.clocks().now_for(owner)
    }

    /// Stamps a change of a record of `owner` made at `now` (its owner's) in `listing`,
    /// `before` the `dateModified` it showed. The listing orders changes by the server's
    /// clock; a record on its owner's own clock shows that clock's time.
    fn stamp(
        &self,
        listing: &mut Listing,
        owner: &str,
        now: Timestamp,
        before: Option<Timestamp>,
    ) -> Stamp {
        if self.clocks().has_own(owner) {
            let server_now = self.zone.at(self.clocks().server().now());
            let own = OwnTime { owner, now, before };
            listing.reserve(&self.zone, server_now, Some(own))
        } else {
            listing.reserve(&self.zone, now, None)
        }
    }

    /// A store kept in `DIR/registry.sqlite3`, loaded with everything the file holds.
    pub fn open(zone: Zone, dir: &Path) -> Result<Store, String> {
        Store::open_limited(zone, dir, None)
    }

    /// [`Store::open`] on a file held to `max_pages` pages: a full disk, for tests.
    pub(crate) fn open_limited(
        zone: Zone,
        dir: &Path,
        max_pages: Option<u32>,
    ) -> Result<Store, String> {
        let (opened, records) = read_all(|on_row| Database::open_limited(dir, max_pages, on_row));
        let (database, Loaded { state }) = opened?;
        let mut store = Store::new(zone);
        let state: HashMap<String, String> = state.into_iter().collect();
        if let Some(json) = state.get(CALENDAR) {
            let days: Vec<(i32, u32)> = stored::from_json(json)
                .map_err(|e| format!("{}: the auction calendar: {e}", database.path().display()))?;
            store.calendar = Mutex::new(AuctionCalendar::restore(&days));
        }
        let Records { tenders, contracts } =
            records.map_err(|e| format!("{}: {e}", database.path().display()))?;
        let (mut last_row, mut last_bid_row) = (0, 0);
        {
            let indexes = store.indexes.get_mut().unwrap_or_else(|p| p.into_inner());
            let map = store.tenders.loading();
            map.reserve(tenders.iter().map(|(_, t)| t.len()).sum());
            // In `dateModified` order, so that every row enters the listing at its end (the
            // order is sorted, not the records, which are large to move).
            let mut tenders: Vec<_> = tenders
                .into_iter()
                .flat_map(|(f, t)| f.into_iter().zip(t))
                .map(Some)
                .collect();
            let mut order: Vec<(i64, usize)> = tenders
                .iter()
                .enumerate()
                .filter_map(|(at, t)| Some((t.as_ref()?.1.tender.date_modified.micros(), at)))
                .collect();
            order.sort_unstable();
            let tenders = order
                .into_iter()
                .filter_map(|(_, at)| tenders.get_mut(at)?.take());
            for (fields, read) in tenders {
                let ReadBack {
                    row,
                    tender,
                    bid_rows,
                } = read;
                last_row = last_row.max(row);
                last_bid_row = bid_rows.last().max(last_bid_row);
                indexes.restore(&tender);
                indexes.put(&tender, fields, None);
                let id = tender.id.clone();
                if map.insert(id, Place::new(tender, row, bid_rows)).is_some() {
                    let file = database.path().display();
                    return Err(format!("{file}: a tender is stored twice (row {row})"));
                }
            }
        }
        let last_contract_row = store
            .restore_contracts(contracts)
            .map_err(|e| format!("{}: {e}", database.path().display()))?;
        store.durable = Some(Durable {
            database,
            calendar_version: AtomicU64::new(0),
            next_row: AtomicI64::new(last_row + 1),
            next_bid_row: AtomicI64::new(last_bid_row + 1),
            next_contract_row: AtomicI64::new(last_contract_row + 1),
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
        value: Vec<u8>,
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
        if !stamped
            && committed.is_ok()
            && old.is_some_and(|old| ListedFields::unchanged(old, tender))
        {
            return Ok(());
        }
        // Listed fields that read as before are kept, not rendered again (a PATCH of the
        // description, say, moves the row but changes none of them).
        let same = old.is_some_and(|old| ListedFields::same_texts(old, tender));
        let fields = committed
            .as_ref()
            .ok()
            .filter(|_| !same)
            .and_then(|_| listed_fields(tender));
        let mut indexes = lock(&self.indexes);
        if stamped {
            indexes.listing.release(tender.listing_key());
        }
        committed?;
        let earlier = indexes.put(tender, fields, old);
        drop(indexes);
        if earlier {
            self.rescheduled.notify_one();
        }
        Ok(())
    }

    /// Commits a tender (and whatever else changed with it) before it may be shown: its
    /// record without the bids unless that is as `before` holds it, and the bids that are not
    /// the very ones `before` holds, in the rows `bid_rows` keeps (updated once committed).
    /// `before`: the place of a tender already stored, whose turn the caller holds (so its
    /// committed state cannot change meanwhile), with `bid_rows`.
    async fn commit(
        &self,
        row: i64,
        tender: &mut Tender,
        before: Option<&Place>,
        bid_rows: &mut BidRows,
        with: Vec<Write>,
    ) -> Result<(), Refusal> {
        let Some(durable) = &self.durable else {
            return Ok(());
        };
        let unstorable = |e: serde_json::Error| {
            Refusal::Unavailable(format!("the tender cannot be stored: {e}"))
        };
        // The record is written without its bids (an empty list is not written), and only
        // when it changed: a bid's write often leaves its tender as it was.
        let bids = std::mem::take(&mut tender.bids);
        let (held, kept) = match before {
            Some(place) => {
                let mut entry = lock(&place.entry);
                let held = std::mem::take(&mut entry.record.bids);
                let kept = entry.record == *tender;
                entry.record.bids = held.clone();
                (held, kept)
            }
            None => (Bids::new(), false),
        };
        let record = (!kept).then(|| stored::to_json(&*tender));
        tender.bids = bids;
        let mut writes = Vec::new();
        if let Some(record) = record {
            writes.push(Write::Tender {
                row,
                id: tender.id.to_string(),
                record: record.map_err(unstorable)?,
            });
        }
        let moves = bid_rows
            .writes(
                &tender.id,
                &held,
                &tender.bids,
                &durable.next_bid_row,
                &mut writes,
            )
            .map_err(unstorable)?;
        writes.extend(with);
        if writes.is_empty() {
            return Ok(());
        }
        durable
            .database
            .committed(writes)
            .await
            .map_err(Refusal::Unavailable)?;
        bid_rows.apply(moves);
        Ok(())
    }

    fn slot(&self, id: &str) -> Option<Slot> {
        self.tenders.place(id)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.tenders.contains(id)
    }

    pub fn len(&self) -> usize {
        self.tenders.len()
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
        self: &Arc<Self>,
        mut tender: Tender,
        now: Timestamp,
        view: impl FnOnce(&Tender) -> V,
    ) -> Result<V, Refusal> {
        let stamp = {
            let mut indexes = lock(&self.indexes);
            self.stamp(&mut indexes.listing, &tender.owner, now, None)
        };
        (tender.date_modified, tender.listed_at) = (stamp.date_modified, stamp.listed_at());
        let result = view(&tender);
        if self.durable.is_none() {
            self.place_new(tender).await?;
        } else {
            let store = self.clone();
            RunsToEnd::new(async move { store.place_new(tender).await }).await?;
        }
        Ok(result)
    }

    /// Commits a new tender, indexes it and makes it known.
    async fn place_new(&self, mut tender: Tender) -> Result<(), Refusal> {
        let row = self
            .durable
            .as_ref()
            .map_or(0, |d| d.next_row.fetch_add(1, Ordering::Relaxed));
        let mut bid_rows = BidRows::default();
        let committed = self
            .commit(row, &mut tender, None, &mut bid_rows, Vec::new())
            .await;
        self.index(&tender, None, true, committed)?;
        let id = tender.id.clone();
        self.tenders.add(id, Place::new(tender, row, bid_rows));
        Ok(())
    }

    /// Reads a tender under its lock.
    pub fn read<R>(&self, id: &str, f: impl FnOnce(&Tender) -> R) -> Option<R> {
        self.tenders.read(id, f)
    }

    /// The public representation `{"data": tender}` as compact JSON, built once per change.
    pub fn public_json(&self, id: &str, build: impl FnOnce(&Tender) -> Vec<u8>) -> Option<Bytes> {
        self.tenders.public_json(id, build)
    }

    /// Applies a write to a tender and returns `view` of the result. Transitions already
    /// due are applied (and kept) first; then `op` works on a copy, which replaces the
    /// tender only if `op` succeeds and the change is committed.
    ///
    /// `op` is given "now" on the clock of the tender's owner, read once its turn came.
    pub async fn update<V>(
        self: &Arc<Self>,
        id: &str,
        op: impl FnOnce(&mut Tender, Timestamp) -> Result<Change, Refusal>,
        view: impl FnOnce(&Tender) -> V,
    ) -> Result<V, Refusal> {
        let place = self.slot(id).ok_or(Refusal::NotFound("tender_id"))?;
        let mut turn = place.turn.clone().lock_owned().await;
        let mut copy = lock(&place.entry).record.clone();
        let now = self.now_for(&copy.owner);
        let (caught_up, calendar) = self.catch_up(&mut copy, now);
        if caught_up != Change::None {
            let copy = copy.clone();
            turn = self
                .saved(&place, turn, copy, caught_up, now, calendar)
                .await?;
        }
        let change = op(&mut copy, now)?;
        if change != Change::None {
            turn = self.saved(&place, turn, copy, change, now, None).await?;
        }
        // Seen under the turn: what this write left, not a later one.
        let seen = view(&lock(&place.entry).record);
        drop(turn);
        Ok(seen)
    }

    /// Applies the transitions due at `now`, with the calendar's new state if they booked
    /// an auction slot and the store is durable.
    fn catch_up(&self, tender: &mut Tender, now: Timestamp) -> (Change, Option<Write>) {
        if tender.status == TenderStatus::Draft || tender.next_check.is_none_or(|due| due > now) {
            return (Change::None, None);
        }
        let mut calendar = lock(&self.calendar);
        let before = self.durable.as_ref().map(|_| calendar.booked());
        let change = lifecycle::advance(tender, now, &self.zone, &mut calendar);
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

    /// [`Store::save`], run to its end even if the request stops waiting for it: once a
    /// write is handed to the database, the tender in memory, its bids' rows and the listing
    /// (whose reserved `dateModified` must be released) follow it whatever becomes of the
    /// request. In memory nothing waits between the change and its end.
    async fn saved(
        self: &Arc<Self>,
        place: &Slot,
        mut turn: Turn,
        tender: Tender,
        change: Change,
        now: Timestamp,
        calendar: Option<Write>,
    ) -> Result<Turn, Refusal> {
        if self.durable.is_none() {
            self.save(place, &mut turn, tender, change, now, calendar)
                .await?;
            return Ok(turn);
        }
        let (store, place) = (self.clone(), place.clone());
        RunsToEnd::new(async move {
            store
                .save(&place, &mut turn, tender, change, now, calendar)
                .await
                .map(|()| turn)
        })
        .await
    }

    /// Commits `tender`, then makes it the current state.
    async fn save(
        &self,
        place: &Place,
        bid_rows: &mut BidRows,
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
            let before = lock(&place.entry).record.date_modified;
            let stamp = {
                let mut indexes = lock(&self.indexes);
                self.stamp(&mut indexes.listing, &tender.owner, now, Some(before))
            };
            (tender.date_modified, tender.listed_at) = (stamp.date_modified, stamp.listed_at());
        }
        // The contracts of the lots this write completes are handed over in its commit.
        let handed = {
            let entry = lock(&place.entry);
            self.handing_over(&entry.record, &tender, now)
        };
        let mut with: Vec<Write> = calendar.into_iter().collect();
        let committed = match self.contract_writes(&handed) {
            Ok(writes) => {
                with.extend(writes);
                self.commit(place.row, &mut tender, Some(place), bid_rows, with)
                    .await
            }
            Err(refused) => Err(refused),
        };
        self.hand_over(handed, committed.is_ok());
        let mut entry = lock(&place.entry);
        self.index(&tender, Some(&entry.record), stamped, committed)?;
        entry.record = tender;
        entry.public = None;
        Ok(())
    }

    /// Applies every transition due on the clocks the tenders live on (with `only`, those of
    /// that owner's tenders); returns how many tenders moved. With a data directory the
    /// tenders are written side by side, so that their commits share syncs.
    pub async fn run_due(self: &Arc<Self>, only: Option<&str>) -> usize {
        use futures_util::stream::{self, StreamExt};
        let clocks = self.clocks();
        let due = lock(&self.indexes).due(|owner| clocks.now_for(owner), only);
        stream::iter(due)
            .map(|id| async move {
                self.update(&id, |_, _| Ok(Change::None), |_| ())
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

    /// How long until the next check falls due by a running clock (`None`: none will by
    /// itself; a frozen clock reaches nothing until it is moved).
    pub fn next_due_in(&self) -> Option<time::Duration> {
        let clocks = self.clocks();
        let indexes = lock(&self.indexes);
        indexes
            .earliest_checks(&self.zone)
            .into_iter()
            .filter_map(|(owner, due)| {
                let clock = clocks.of(owner);
                (!clock.is_frozen()).then(|| due.instant() - clock.now())
            })
            .min()
    }

    /// A page of the listing, with the listed fields of each row when the request wants fields.
    pub fn page(&self, request: &PageRequest) -> Page {
        lock(&self.indexes).page(request)
    }
}

/// A write's future, polled by its request; dropped before its end (the request went away),
/// it is handed to a task of its own that polls it to the end.
struct RunsToEnd<F: Future<Output: Send + 'static> + Send + 'static>(Option<Pin<Box<F>>>);

impl<F: Future<Output: Send + 'static> + Send + 'static> RunsToEnd<F> {
    fn new(write: F) -> Self {
        RunsToEnd(Some(Box::pin(write)))
    }
}

impl<F: Future<Output: Send + 'static> + Send + 'static> Future for RunsToEnd<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let Some(write) = self.0.as_mut() else {
            return Poll::Pending;
        };
        let outcome = write.as_mut().poll(cx);
        if outcome.is_ready() {
            self.0 = None;
        }
        outcome
    }
}

impl<F: Future<Output: Send + 'static> + Send + 'static> Drop for RunsToEnd<F> {
    fn drop(&mut self) {
        if let Some(write) = self.0.take() {
            tokio::spawn(write);
        }
    }
}

/// The listed fields of a tender the listing shows (none for a draft).
fn listed_fields(tender: &Tender) -> Option<ListedFields> {
    (tender.status != TenderStatus::Draft).then(|| ListedFields::of_tender(tender))
}

/// A tender read back, with its row and the rows of its bids.
struct ReadBack {
    row: i64,
    tender: Tender,
    bid_rows: BidRows,
}

/// What one parser read: tenders, bids with their rows and their tenders' ids, and
/// contracts with their rows.
#[derive(Default)]
struct Parsed {
    tenders: Vec<ReadBack>,
    bids: Vec<(i64, String, Bid)>,
    contracts: Vec<(i64, Contract)>,
}

/// Everything the file held, read back.
struct Records {
    tenders: Vec<Part>,
    contracts: Vec<(i64, Contract)>,
}

/// Reads the stored tenders back while `open` reads the file: the records go in chunks to a
/// parser on every core and are dropped once read, so start-up holds few of them at a time.
/// Each parser's tenders stay where it put them (a tender is large, and every move of them
/// all costs fresh memory).
fn read_all<T>(open: impl FnOnce(database::OnRow<'_>) -> T) -> (T, Result<Records, String>) {
    const CHUNK: usize = 256;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (chunks, queue) = std::sync::mpsc::sync_channel::<Vec<database::Row>>(threads * 2);
    let queue = Mutex::new(queue);
    let (opened, parsed) = std::thread::scope(|scope| {
        let parsers: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| parse_chunks(&queue)))
            .collect();
        let mut chunk = Vec::with_capacity(CHUNK);
        let opened = open(&mut |row| {
            chunk.push(row);
            if chunk.len() == CHUNK {
                let _ = chunks.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)));
            }
        });
        let _ = chunks.send(chunk);
        drop(chunks);
        let mut parts = Vec::new();
        let mut failed = None;
        for parser in parsers {
            match parser.join() {
                Ok(Ok(part)) => parts.push(part),
                Ok(Err(e)) => failed = failed.or(Some(e)),
                Err(_) => failed = failed.or(Some("reading the tenders failed".to_string())),
            }
        }
        (opened, failed.map_or(Ok(parts), Err))
    });
    (opened, parsed.and_then(assemble))
}

/// Parses chunks of records until the reader is done. After an error the queue is still
/// drained, so that the reader never waits.
fn parse_chunks(
    queue: &Mutex<std::sync::mpsc::Receiver<Vec<database::Row>>>,
) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut error = None;
    while let Ok(chunk) = lock(queue).recv() {
        for row in chunk {
            if error.is_some() {
                break;
            }
            let read = match row {
                database::Row::Tender { row, id, record } => {
                    stored::from_json::<Tender>(&record)
                        .map_err(|e| e.to_string())
                        .and_then(|tender| {
                            // The indexes hold ids inline, at the length the server makes them.
                            if ids::is_id(&tender.id) {
                                Ok(tender)
                            } else {
                                Err("its id is not 32 lowercase hexadecimal digits".into())
                            }
                        })
                        .map(|tender| {
                            parsed.tenders.push(ReadBack {
                                row,
                                tender,
                                bid_rows: BidRows::default(),
                            })
                        })
                        .map_err(|e| format!("the tender {id} cannot be read: {e}"))
                }
                database::Row::Bid {
                    row,
                    tender,
                    record,
                } => match stored::from_json(&record) {
                    Ok(bid) => {
                        parsed.bids.push((row, tender, bid));
                        Ok(())
                    }
                    Err(e) => Err(format!("a bid of the tender {tender} cannot be read: {e}")),
                },
                database::Row::Contract { row, id, record } => {
                    stored::from_json::<Contract>(&record)
                        .map_err(|e| e.to_string())
                        .and_then(|contract| {
                            if ids::is_id(&contract.id) {
                                Ok(contract)
                            } else {
                                Err("its id is not 32 lowercase hexadecimal digits".into())
                            }
                        })
                        .map(|contract| parsed.contracts.push((row, contract)))
                        .map_err(|e| format!("the contract {id} cannot be read: {e}"))
                }
            };
            error = read.err();
        }
    }
    error.map_or(Ok(parsed), Err)
}

/// A parser's tenders and, side by side, their listed fields.
type Part = (Vec<Option<ListedFields>>, Vec<ReadBack>);

/// Gives each tender its bids in the order of their rows, then renders the listed fields,
/// each parser's share on a core of its own.
fn assemble(mut parts: Vec<Parsed>) -> Result<Records, String> {
    let contracts = parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.contracts))
        .collect();
    let mut bids: Vec<_> = parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.bids))
        .collect();
    if !bids.is_empty() {
        bids.sort_unstable_by_key(|(row, _, _)| *row);
        let places = {
            let at: HashMap<&str, (usize, usize)> = parts
                .iter()
                .enumerate()
                .flat_map(|(p, part)| {
                    let tenders = part.tenders.iter().enumerate();
                    tenders.map(move |(i, t)| (t.tender.id.as_str(), (p, i)))
                })
                .collect();
            bids.iter()
                .map(|(_, tender, bid)| {
                    at.get(tender.as_str()).copied().ok_or_else(|| {
                        format!(
                            "the bid {} belongs to a tender the file lacks: {tender}",
                            bid.id
                        )
                    })
                })
                .collect::<Result<Vec<_>, String>>()?
        };
        for ((row, _, bid), (p, i)) in bids.into_iter().zip(places) {
            let read = &mut parts[p].tenders[i];
            read.bid_rows.insert(bid.id.clone(), row);
            read.tender.bids.push_back(Arc::new(bid));
        }
    }
    let fields = std::thread::scope(|scope| {
        let renders: Vec<_> = parts
            .iter()
            .map(|part| {
                let tenders = part.tenders.iter();
                scope.spawn(|| tenders.map(|t| listed_fields(&t.tender)).collect())
            })
            .collect();
        renders
            .into_iter()
            .map(|r| {
                r.join()
                    .map_err(|_| "rendering the listed fields failed".to_string())
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    let tenders = fields
        .into_iter()
        .zip(parts.into_iter().map(|p| p.tenders))
        .collect();
    Ok(Records { tenders, contracts })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::bid::BidStatus;
    use crate::domain::ids;
    use crate::domain::tender::tests::published;

    /// A durable store on a new directory (held to `max_pages` pages if given), holding
    /// [`published`]'s tender: the directory, the store, the tender's id and its moment.
    async fn holding_a_tender(
        max_pages: Option<u32>,
    ) -> (tempfile::TempDir, Arc<Store>, String, Timestamp) {
        let dir = tempfile::tempdir().unwrap();
        let (tender, _, now) = published();
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let opened = Store::open_limited(zone, dir.path(), max_pages);
        let store = at(opened.unwrap(), now);
        let id = tender.id.clone();
        store.insert(tender, now, |_| ()).await.unwrap();
        (dir, store, id.to_string(), now)
    }

    /// Commits `change` to the tender as a public change (one that stamps `dateModified`),
    /// as a handler's write does; the write must succeed.
    async fn changed(
        store: &Arc<Store>,
        id: &str,
        now: Timestamp,
        change: impl FnOnce(&mut Tender),
    ) {
        let op = |t: &mut Tender| {
            change(t);
            Ok(Change::Public)
        };
        assert_eq!(
            store.now_for("broker"),
            now,
            "the store's clock stands at {now}"
        );
        store.update(id, |t, _| op(t), |_| ()).await.unwrap();
    }

    /// `store`, its clock frozen at `now` whatever today is.
    fn at(store: Store, now: Timestamp) -> Arc<Store> {
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let clock = Arc::new(Clock::frozen_at(now.instant()));
        store.keep_time(Arc::new(Clocks::new(clock, zone)));
        Arc::new(store)
    }

    /// The store kept in `dir`, opened again, its clock at [`published`]'s moment.
    fn reopen(dir: &Path) -> Arc<Store> {
        let zone = Zone::named("Europe/Kyiv").unwrap();
        at(Store::open(zone, dir).unwrap(), published().2)
    }

    fn bid(id: &str, now: Timestamp) -> Arc<Bid> {
        Arc::new(Bid {
            id: id.into(),
            status: BidStatus::Draft,
            value: None,
            lot_values: Vec::new(),
            tenderers: Vec::new(),
            parameters: Vec::new(),
            documents: Vec::new(),
            date: now,
            participation_url: None,
            owner: "broker1".into(),
            token: ids::new_token().1,
        })
    }

    /// The bid ids of a tender in the file, in their rows' order.
    fn bid_rows(dir: &Path, tender: &str) -> Vec<String> {
        let conn = rusqlite::Connection::open(dir.join(database::FILE_NAME)).unwrap();
        let mut rows = conn
            .prepare("SELECT id FROM bids WHERE tender_id = ?1 ORDER BY rowid")
            .unwrap();
        rows.query_map([tender], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[tokio::test]
    async fn bids_are_kept_in_rows_of_their_own_in_order_through_changes_and_removals() {
        let (dir, store, id, now) = holding_a_tender(None).await;
        let add = |ids: &'static [&'static str]| {
            move |t: &mut Tender| {
                for b in ids {
                    t.bids.push_back(bid(b, now));
                }
            }
        };
        changed(&store, &id, now, add(&["b1", "b2", "b3"])).await;
        assert_eq!(bid_rows(dir.path(), &id), ["b1", "b2", "b3"]);
        // b2 goes, b3 changes, b4 comes: b3 keeps its place.
        changed(&store, &id, now, |t| {
            t.bids.retain(|b| b.id != "b2");
            let b3 = t.bids.iter().position(|b| b.id == "b3").unwrap();
            Arc::make_mut(&mut t.bids[b3]).status = BidStatus::Active;
            t.bids.push_back(bid("b4", now));
        })
        .await;
        assert_eq!(bid_rows(dir.path(), &id), ["b1", "b3", "b4"]);
        // Every bid gone, then one more.
        changed(&store, &id, now, |t| {
            t.bids.clear();
        })
        .await;
        assert!(bid_rows(dir.path(), &id).is_empty());
        changed(&store, &id, now, add(&["b1", "b5", "b6"])).await;
        changed(&store, &id, now, |t| {
            t.bids.remove(1);
        })
        .await;
        let written = stored_form(&store, &id);
        assert!(written.contains(r#""id":"b6""#), "{written}");
        drop(store);
        assert_eq!(bid_rows(dir.path(), &id), ["b1", "b6"]);
        let store = reopen(dir.path());
        assert_eq!(stored_form(&store, &id), written);
        // Rows known again after the restart: a bid removed goes, a new one comes last.
        changed(&store, &id, now, |t| {
            t.bids.remove(0);
            t.bids.push_back(bid("b7", now));
        })
        .await;
        assert_eq!(bid_rows(dir.path(), &id), ["b6", "b7"]);
        let written = stored_form(&store, &id);
        drop(store);
        let store = reopen(dir.path());
        assert_eq!(stored_form(&store, &id), written);
    }

    /// The listing after each kind of write: a row moves with its `dateModified`, and its
    /// listed fields follow the tender whether they were rendered again or kept.
    #[tokio::test]
    async fn the_listing_follows_writes_that_keep_or_change_the_listed_fields() {
        let (_dir, store, id, _) = holding_a_tender(None).await;
        let title = ListedFields::position(&TENDER_FIELDS, "title").unwrap();
        let row = |store: &Store| {
            let page = store.page(&PageRequest {
                offset: None,
                limit: 10,
                descending: false,
                modes: ModeFilter::All,
                listed: vec![title],
            });
            assert_eq!(page.rows.len(), 1);
            let shown = page
                .listed(0, 0)
                .map(|t| String::from_utf8_lossy(t).into_owned());
            (page.rows[0].date_modified().to_string(), shown)
        };
        let shown = |t: &Tender| {
            (
                t.date_modified.to_string(),
                Some(format!("\"{}\"", t.terms.title)),
            )
        };
        let write = |change: fn(&mut Tender), kind: Change| {
            let store = store.clone();
            let id = id.clone();
            async move {
                store
                    .update(
                        &id,
                        |t, _| {
                            change(t);
                            Ok(kind)
                        },
                        shown,
                    )
                    .await
                    .unwrap()
            }
        };
        assert_eq!(row(&store), store.read(&id, shown).unwrap());
        let described = write(
            |t| Arc::make_mut(&mut t.terms).description = Some("d".into()),
            Change::Public,
        )
        .await;
        assert_eq!(row(&store), described);
        let retitled = write(
            |t| Arc::make_mut(&mut t.terms).title = "New".into(),
            Change::Public,
        )
        .await;
        assert_eq!(retitled.1.as_deref(), Some("\"New\""));
        assert_ne!(retitled.0, described.0);
        assert_eq!(row(&store), retitled);
        let bid_added = write(|t| t.bids.push_back(bid("b1", t.date)), Change::Silent).await;
        assert_eq!(bid_added, retitled);
        assert_eq!(row(&store), retitled);
    }

    #[tokio::test]
    async fn a_write_that_changes_only_bids_leaves_the_tender_s_row_alone() {
        let (dir, store, id, now) = holding_a_tender(None).await;
        let file = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
        let record = || -> String {
            file.query_row("SELECT record FROM tenders", [], |r| r.get(0))
                .unwrap()
        };
        file.execute("UPDATE tenders SET record = 'untouched'", [])
            .unwrap();
        let add_bid = |t: &mut Tender| {
            t.bids.push_back(bid("b1", now));
            Ok(Change::Silent)
        };
        store.update(&id, |t, _| add_bid(t), |_| ()).await.unwrap();
        assert_eq!(record(), "untouched");
        assert_eq!(bid_rows(dir.path(), &id), ["b1"]);
        changed(&store, &id, now, |t| {
            Arc::make_mut(&mut t.terms).description = Some("changed".into());
        })
        .await;
        assert!(
            record().contains(r#""description":"changed""#),
            "{}",
            record()
        );
        assert!(!record().contains(r#""bids""#), "{}", record());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_write_its_request_gave_up_on_still_ends_in_memory_as_in_the_file() {
        let (dir, store, id, now) = holding_a_tender(None).await;
        let write = store.update(
            &id,
            |t, _| {
                t.bids.push_back(bid("b1", now));
                Arc::make_mut(&mut t.terms).description = Some("given up".into());
                Ok(Change::Public)
            },
            |_| (),
        );
        // The request goes away while its write is being committed.
        let _ = tokio::time::timeout(std::time::Duration::from_micros(1), write).await;
        let mut held = 0;
        for _ in 0..200 {
            held = store.read(&id, |t| t.bids.len()).unwrap();
            if held == 1 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(held, 1, "the write ended in memory");
        changed(&store, &id, now, |t| {
            Arc::make_mut(&mut t.terms).description = Some("after".into());
        })
        .await;
        let written = stored_form(&store, &id);
        assert!(written.contains(r#""id":"b1""#), "{written}");
        drop(store);
        assert_eq!(bid_rows(dir.path(), &id), ["b1"]);
        let store = reopen(dir.path());
        assert_eq!(stored_form(&store, &id), written);
    }

    #[tokio::test]
    async fn a_file_of_schema_version_1_is_migrated_with_its_bids() {
        let dir = tempfile::tempdir().unwrap();
        let (mut tender, _, now) = published();
        for b in ["b1", "b2", "b3"] {
            tender.bids.push_back(bid(b, now));
        }
        tender.date_modified = now;
        let v1_record = String::from_utf8(stored::to_json(&tender).unwrap()).unwrap();
        assert!(v1_record.contains(r#""bids":[{"#), "{v1_record}");
        let conn = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
        conn.execute_batch(
            "CREATE TABLE tenders (id TEXT PRIMARY KEY, record TEXT NOT NULL);
             CREATE TABLE state (name TEXT PRIMARY KEY, value TEXT NOT NULL);
             PRAGMA user_version = 1;",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO tenders VALUES (?1, ?2)",
            [tender.id.as_str(), v1_record.as_str()],
        )
        .unwrap();
        drop(conn);
        let store = reopen(dir.path());
        assert_eq!(stored_form(&store, &tender.id), v1_record);
        drop(store);
        assert_eq!(bid_rows(dir.path(), &tender.id), ["b1", "b2", "b3"]);
        let conn = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
        let (version, record): (i64, String) = conn
            .query_row(
                "SELECT (SELECT user_version FROM pragma_user_version), record FROM tenders",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(version, database::SCHEMA_VERSION);
        assert!(!record.contains("\"bids\""), "{record}");
    }

    fn stored_form(store: &Store, id: &str) -> String {
        store
            .read(id, |t| stored::to_json(t).expect("serialises"))
            .map(|json| String::from_utf8(json).expect("JSON is UTF-8"))
            .expect("held")
    }

    /// The indexes hold ids at the length the server makes them: a record with another id
    /// is refused at start-up, not held unlisted and unscheduled.
    #[tokio::test]
    async fn a_record_whose_id_the_server_cannot_have_made_is_refused() {
        let (dir, store, id, _) = holding_a_tender(None).await;
        drop(store);
        let conn = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
        conn.execute(
            "UPDATE tenders SET record = json_set(record, '$.id', 'T-1')",
            [],
        )
        .unwrap();
        drop(conn);
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let refused = Store::open(zone, dir.path()).err();
        let message = refused.expect("refused");
        assert!(
            message.contains(&format!("the tender {id} cannot be read: its id is not 32")),
            "{message}"
        );
    }

    #[tokio::test]
    async fn a_reopened_store_holds_every_tender_as_it_was() {
        let (dir, store, id, _) = holding_a_tender(None).await;
        let written = stored_form(&store, &id);
        drop(store);
        let store = reopen(dir.path());
        assert_eq!(stored_form(&store, &id), written);
        assert!(written.contains("ownerToken"), "{written}");
        let public = store
            .read(&id, |t| serde_json::to_string(t).unwrap())
            .unwrap();
        assert!(!public.contains("ownerToken"), "{public}");
    }

    #[tokio::test]
    async fn a_write_the_file_cannot_take_is_refused_and_changes_nothing() {
        let (dir, store, id, now) = holding_a_tender(Some(32)).await;
        let before = stored_form(&store, &id);
        let huge = "x".repeat(1 << 20);
        let refused = store
            .update(
                &id,
                |t, _| {
                    Arc::make_mut(&mut t.terms).description = Some(huge.as_str().into());
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
        // The refused transaction is gone: a write that fits is committed.
        changed(&store, &id, now, |t| {
            Arc::make_mut(&mut t.terms).description = Some("fits".into());
        })
        .await;
        let after = stored_form(&store, &id);
        assert!(after.contains(r#""description":"fits""#), "{after}");
        drop(store);
        let store = reopen(dir.path());
        assert_eq!(stored_form(&store, &id), after);
    }
}
