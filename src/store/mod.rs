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
//!
//! Here are the store and its reads; `writes` holds a tender's writes, `durable` their commit
//! to the file, `open` the reading back of a file, `contracts` the contracts under management.

mod bid_rows;
pub mod database;
mod durable;
mod feed;
mod indexes;
mod listed_fields;
mod managed_contracts;
mod open;
mod ordered;
mod runs_to_end;
mod shelf;
#[cfg(test)]
mod tests;
mod writes;

pub use feed::{ListingRow, ModeFilter, Page, PageRequest};
pub use listed_fields::{ListedFields, TENDER_FIELDS};
pub use managed_contracts::CONTRACT_FIELDS;

use crate::clock::Clock;
use crate::clock::clocks::Clocks;
use crate::contracting::Contract;
use crate::domain::Change;
use crate::domain::auction::AuctionCalendar;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::{Timestamp, Zone};
use bid_rows::BidRows;
use database::Database;
use indexes::Indexes;
use salvo::hyper::body::Bytes;
use shelf::{Shelf, lock};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64};
use std::sync::{Arc, Mutex, OnceLock};
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
    /// The request log found in the file at start-up (JSON text), in its order.
    exchanges: Mutex<Vec<(i64, String)>>,
    /// The test clocks found in the file at start-up (JSON text), by id.
    clocks: Vec<(String, String)>,
}

/// The name the auction calendar is kept under among the file's server state.
const CALENDAR: &str = "auction_calendar";
/// Due transitions applied side by side.
const DUE_WRITERS: usize = 32;

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

    /// "Now" for a record on the clock keyed `clock` (see [`Tender::clock_key`]): the single
    /// place a rule's time is read from.
    pub fn now_for(&self, clock: &str) -> Timestamp {
        self.clocks().now_for(clock)
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

    /// A place among `owner`'s live tenders for a tender about to be created, refused with
    /// how many it holds when that is `most` already. Taken before the tender gets its
    /// tenderID, so a refused creation uses none up; the place is the tender's once it is
    /// stored ([`Store::insert`]) and given back if it is not.
    pub fn hold_live(self: &Arc<Self>, owner: &str, most: Option<u64>) -> Result<LiveHold, u64> {
        lock(&self.indexes).reserve_live(owner, most)?;
        Ok(LiveHold {
            store: self.clone(),
            owner: owner.to_string(),
            taken: false,
        })
    }

    /// How many live tenders `owner` holds (those being created included).
    pub fn live_tenders_of(&self, owner: &str) -> u64 {
        lock(&self.indexes).live_of(owner)
    }

    /// Reads a tender under its lock.
    pub fn read<R>(&self, id: &str, f: impl FnOnce(&Tender) -> R) -> Option<R> {
        self.tenders.read(id, f)
    }

    /// The public representation `{"data": tender}` as compact JSON, built once per change.
    pub fn public_json(&self, id: &str, build: impl FnOnce(&Tender) -> Vec<u8>) -> Option<Bytes> {
        self.tenders.public_json(id, build)
    }

    /// Applies every transition due on the clocks the tenders live on (with `only`, a clock
    /// key, those on that clock); returns how many tenders moved. With a data directory the
    /// tenders are written side by side, so that their commits share syncs.
    pub async fn run_due(self: &Arc<Self>, only: Option<&str>) -> usize {
        use futures_util::stream::{self, StreamExt};
        let clocks = self.clocks();
        let due = lock(&self.indexes).due(|key| clocks.now_for(key), only);
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
            .filter_map(|(key, due)| {
                let clock = clocks.of(key);
                (!clock.is_frozen()).then(|| due.instant() - clock.now())
            })
            .min()
    }

    /// The records on the test clock `clock` still in a live status, each named with its
    /// status (a tender not finished, a contract under management still active).
    pub fn live_on(&self, clock: &str) -> Vec<String> {
        let live = self.live_records(clock);
        let tenders = live
            .tenders
            .iter()
            .map(|(id, status)| format!("tender {id} ({status})"));
        let contracts = live
            .contracts
            .iter()
            .map(|(id, status)| format!("contract {id} ({status})"));
        tenders.chain(contracts).collect()
    }

    /// The records on the test clock `clock` still in a live status, with their statuses, in
    /// the order they were made.
    pub fn live_records(&self, clock: &str) -> Live {
        let ids = |contracts: bool| {
            let indexes = lock(&self.indexes);
            let on = indexes.on_test_clocks.get(clock);
            on.map(|on| {
                if contracts {
                    &on.contracts
                } else {
                    &on.tenders
                }
            })
            .cloned()
            .unwrap_or_default()
        };
        // The tenders first, the contracts after: a write that finishes a tender hands its
        // contracts over before the tender reads finished, so none is missed between the two.
        let tenders = ids(false)
            .into_iter()
            .filter_map(|id| {
                let status = self.read(&id, |t| {
                    (!t.status.is_terminal()).then(|| t.status.as_str())
                })??;
                Some((id, status))
            })
            .collect();
        let contracts = ids(true)
            .into_iter()
            .filter_map(|id| {
                let status = self.read_contract(&id, |c| {
                    (c.status == crate::contracting::managed::Status::Active)
                        .then(|| c.status.as_str())
                })??;
                Some((id, status))
            })
            .collect();
        Live { tenders, contracts }
    }

    /// A page of the listing, with the listed fields of each row when the request wants fields.
    pub fn page(&self, request: &PageRequest) -> Page {
        lock(&self.indexes).page(request)
    }
}

/// A place among a broker's live tenders, held for a tender being created (see
/// [`Store::hold_live`]).
pub struct LiveHold {
    store: Arc<Store>,
    owner: String,
    taken: bool,
}

impl LiveHold {
    /// The tender is stored: the place is its own now.
    fn taken(mut self) {
        self.taken = true;
    }
}

impl Drop for LiveHold {
    fn drop(&mut self) {
        if !self.taken {
            lock(&self.store.indexes).release_live(&self.owner);
        }
    }
}

/// The records of one test clock still in a live status: (id, status) of each tender, then of
/// each contract under management.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Live {
    pub tenders: Vec<(String, &'static str)>,
    pub contracts: Vec<(String, &'static str)>,
}

/// The listed fields of a tender the listing shows (none for a draft).
fn listed_fields(tender: &Tender) -> Option<ListedFields> {
    (tender.status != TenderStatus::Draft).then(|| ListedFields::of_tender(tender))
}
