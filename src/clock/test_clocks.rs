//! Test clocks: clocks as objects (`/testing/clocks`), many per broker. A broker creates one
//! standing still at any moment, creates records on it, and moves it forward alone; a record
//! created on a test clock lives on it for good, with everything under it.
//!
//! A clock is deleted only once none of its records is in a live status. Its finished records
//! stay, read as before, on the clock frozen at its last moment: the feeds promise that no
//! change is lost, so nothing is removed with it. The deleted clock is no longer listed,
//! moved, or given new records, and reading it shows the record of its deletion (its last
//! moment and `deleted`), because its records still point at it.
//!
//! Here is the registry of test clocks, beside the brokers' own in [`super::clocks::Clocks`],
//! which consults both whenever a record's "now" is read.

use super::{Clock, ClockError, Saved};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard};
use time::{Duration, OffsetDateTime};

/// The longest name a test clock may have, in characters.
pub const LONGEST_NAME: usize = 200;

/// A test clock as kept across restarts, one row each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub owner: String,
    /// Its place in the order the clocks were created.
    pub number: u64,
    pub saved: Saved,
    #[serde(default)]
    pub deleted: bool,
}

/// Commits a test clock's new state before it is made; an error refuses the change.
pub type Keeper = Box<dyn Fn(&Kept) -> Result<(), String> + Send + Sync>;

struct TestClock {
    name: Option<String>,
    owner: String,
    number: u64,
    clock: Arc<Clock>,
    deleted: bool,
}

impl TestClock {
    fn kept(&self, id: &str, saved: Saved, deleted: bool) -> Kept {
        Kept {
            id: id.to_string(),
            name: self.name.clone(),
            owner: self.owner.clone(),
            number: self.number,
            saved,
            deleted,
        }
    }
}

/// A test clock as a reader sees it (its time in UTC; the caller shows it in the zone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestReading {
    pub id: String,
    pub name: Option<String>,
    pub owner: String,
    pub now: OffsetDateTime,
    pub frozen: bool,
    pub deleted: bool,
}

/// Refused test clock requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestClockError {
    /// No clock has this id.
    Unknown,
    /// The clock is another broker's.
    Foreign,
    /// The clock was deleted: it is no longer moved nor given records.
    Deleted,
    /// The broker already holds as many live clocks as it may (how many it holds).
    TooMany(u64),
    Move(ClockError),
}

impl From<ClockError> for TestClockError {
    fn from(e: ClockError) -> TestClockError {
        TestClockError::Move(e)
    }
}

/// Every test clock, by id. Changes take the write lock, one at a time, and are kept under
/// it, so the file always holds each clock's latest state.
#[derive(Default)]
pub struct TestClocks {
    clocks: RwLock<HashMap<String, TestClock>>,
    keeper: Option<Keeper>,
    numbers: AtomicU64,
    /// Held shared by each record being created on a test clock, and alone by a deletion,
    /// so that no record lands on a clock while it is being deleted.
    attaching: tokio::sync::RwLock<()>,
}

/// A test clock held for a record being created on it: it cannot be deleted meanwhile.
pub struct Attached<'a> {
    pub id: String,
    _held: tokio::sync::RwLockReadGuard<'a, ()>,
}

/// A deletion under way: no record is created on any test clock meanwhile.
pub struct Deleting<'a> {
    _held: tokio::sync::RwLockWriteGuard<'a, ()>,
}

impl TestClocks {
    /// The test clocks of an earlier run; each later change is committed by `keeper` (when
    /// given) before it is made.
    pub fn restore(kept: Vec<Kept>, keeper: Option<Keeper>) -> TestClocks {
        let numbers = kept.iter().map(|k| k.number + 1).max().unwrap_or(0);
        let clocks = kept
            .into_iter()
            .map(|k| {
                let clock = TestClock {
                    name: k.name,
                    owner: k.owner,
                    number: k.number,
                    clock: Arc::new(Clock::restore(k.saved)),
                    deleted: k.deleted,
                };
                (k.id, clock)
            })
            .collect();
        TestClocks {
            clocks: RwLock::new(clocks),
            keeper,
            numbers: AtomicU64::new(numbers),
            attaching: tokio::sync::RwLock::new(()),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, HashMap<String, TestClock>> {
        self.clocks.read().unwrap_or_else(|p| p.into_inner())
    }

    fn keep(&self, kept: &Kept) -> Result<(), String> {
        match &self.keeper {
            Some(keeper) => keeper(kept),
            None => Ok(()),
        }
    }

    /// The clock with this id, deleted or not.
    pub fn clock(&self, id: &str) -> Option<Arc<Clock>> {
        self.read().get(id).map(|c| c.clock.clone())
    }

    pub fn reading(&self, id: &str) -> Option<TestReading> {
        self.read().get(id).map(|c| reading(id, c))
    }

    /// The live test clocks of `owner`, in the order they were created.
    pub fn of_owner(&self, owner: &str) -> Vec<TestReading> {
        let clocks = self.read();
        let mut mine: Vec<(&String, &TestClock)> = clocks
            .iter()
            .filter(|(_, c)| c.owner == owner && !c.deleted)
            .collect();
        mine.sort_by_key(|(_, c)| c.number);
        mine.into_iter().map(|(id, c)| reading(id, c)).collect()
    }

    /// How many live test clocks `owner` holds.
    pub fn held_by(&self, owner: &str) -> u64 {
        let clocks = self.read();
        clocks
            .values()
            .filter(|c| c.owner == owner && !c.deleted)
            .count() as u64
    }

    /// A new clock of `owner`, standing still at `start`, when `owner` holds fewer than `most`
    /// live ones.
    pub fn create(
        &self,
        owner: &str,
        name: Option<String>,
        start: OffsetDateTime,
        most: Option<u64>,
    ) -> Result<TestReading, TestClockError> {
        if start > crate::domain::time::LATEST {
            return Err(ClockError::OutOfRange.into());
        }
        let mut clocks = self.clocks.write().unwrap_or_else(|p| p.into_inner());
        let held = clocks
            .values()
            .filter(|c| c.owner == owner && !c.deleted)
            .count() as u64;
        if most.is_some_and(|most| held >= most) {
            return Err(TestClockError::TooMany(held));
        }
        let id = crate::domain::ids::new_id();
        let clock = TestClock {
            name,
            owner: owner.to_string(),
            number: self.numbers.fetch_add(1, Ordering::SeqCst),
            clock: Arc::new(Clock::frozen_at(start)),
            deleted: false,
        };
        self.keep(&clock.kept(&id, clock.clock.saved(), false))
            .map_err(ClockError::Unavailable)?;
        let shown = reading(&id, &clock);
        clocks.insert(id, clock);
        Ok(shown)
    }

    /// Moves the clock `id` for `mover`, its owner (see [`Clock::set`]).
    pub fn set(
        &self,
        id: &str,
        mover: &str,
        target: Option<OffsetDateTime>,
        advance: Option<Duration>,
        frozen: Option<bool>,
    ) -> Result<OffsetDateTime, TestClockError> {
        // A read lock: the move and its keeping hold that clock's own lock, so the other
        // clocks (every record's lookup among them) are not held up by its database write.
        let clocks = self.read();
        let clock = owned(&clocks, id, mover)?;
        let keep = |next: Saved| self.keep(&clock.kept(id, next, false));
        Ok(clock.clock.set_kept(target, advance, frozen, &keep)?)
    }

    /// Whether `mover` may delete or move the clock `id`: it is a live clock of theirs.
    pub fn check(&self, id: &str, mover: &str) -> Result<(), TestClockError> {
        owned(&self.read(), id, mover).map(|_| ())
    }

    /// Holds the clock `id` of `broker` for a record being created on it.
    pub async fn attach(&self, id: &str, broker: &str) -> Result<Attached<'_>, TestClockError> {
        let held = self.attaching.read().await;
        owned(&self.read(), id, broker)?;
        Ok(Attached {
            id: id.to_string(),
            _held: held,
        })
    }

    /// Stops every creation of a record on a test clock until dropped, for a deletion that
    /// must first find the clock's records finished.
    pub async fn deleting(&self) -> Deleting<'_> {
        Deleting {
            _held: self.attaching.write().await,
        }
    }

    /// Deletes the clock `id` for `mover`, its owner: it is frozen at its last moment and
    /// no longer listed, moved or given records. The caller holds [`TestClocks::deleting`]
    /// and has found none of its records live.
    pub fn delete(
        &self,
        _deleting: &Deleting<'_>,
        id: &str,
        mover: &str,
    ) -> Result<TestReading, TestClockError> {
        let mut clocks = self.clocks.write().unwrap_or_else(|p| p.into_inner());
        let clock = clocks.get_mut(id).ok_or(TestClockError::Unknown)?;
        live_of(clock, mover)?;
        let keep = |next: Saved| self.keep(&clock.kept(id, next, true));
        clock.clock.set_kept(None, None, Some(true), &keep)?;
        clock.deleted = true;
        Ok(reading(id, clock))
    }
}

/// The live clock `id` of `broker`.
fn owned<'a>(
    clocks: &'a HashMap<String, TestClock>,
    id: &str,
    broker: &str,
) -> Result<&'a TestClock, TestClockError> {
    let clock = clocks.get(id).ok_or(TestClockError::Unknown)?;
    live_of(clock, broker)?;
    Ok(clock)
}

/// Whether `clock` is live and of `broker`.
fn live_of(clock: &TestClock, broker: &str) -> Result<(), TestClockError> {
    if clock.owner != broker {
        return Err(TestClockError::Foreign);
    }
    if clock.deleted {
        return Err(TestClockError::Deleted);
    }
    Ok(())
}

fn reading(id: &str, c: &TestClock) -> TestReading {
    TestReading {
        id: id.to_string(),
        name: c.name.clone(),
        owner: c.owner.clone(),
        now: c.clock.now(),
        frozen: c.clock.is_frozen(),
        deleted: c.deleted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const START: OffsetDateTime = datetime!(2026-11-23 07:00 UTC);
    /// The bound the tests hold a broker to.
    const MOST: u64 = 100;

    #[test]
    fn a_new_clock_stands_still_where_it_was_made_until_its_owner_moves_it() {
        let clocks = TestClocks::default();
        let past = START - Duration::days(400);
        let made = clocks
            .create("broker", Some("nightly".into()), past, Some(MOST))
            .unwrap();
        assert_eq!((made.now, made.frozen, made.deleted), (past, true, false));
        assert_eq!(made.id.len(), 32);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(clocks.reading(&made.id).unwrap().now, past);
        assert_eq!(
            clocks.set(&made.id, "broker1", None, Some(Duration::days(1)), None),
            Err(TestClockError::Foreign)
        );
        assert_eq!(
            clocks.set("0".repeat(32).as_str(), "broker", None, None, None),
            Err(TestClockError::Unknown)
        );
        assert_eq!(
            clocks.set(
                &made.id,
                "broker",
                Some(past - Duration::days(1)),
                None,
                None
            ),
            Err(TestClockError::Move(ClockError::Backwards))
        );
        let moved = clocks
            .set(&made.id, "broker", None, Some(Duration::days(30)), None)
            .unwrap();
        assert_eq!(moved, past + Duration::days(30));
        assert_eq!(clocks.reading(&made.id).unwrap().now, moved);
    }

    #[test]
    fn a_broker_holds_a_bounded_number_of_live_clocks_listed_in_order() {
        let clocks = TestClocks::default();
        let ids: Vec<String> = (0..MOST)
            .map(|_| clocks.create("broker", None, START, Some(MOST)).unwrap().id)
            .collect();
        assert_eq!(
            clocks.create("broker", None, START, Some(MOST)),
            Err(TestClockError::TooMany(MOST))
        );
        assert!(
            clocks.create("broker1", None, START, Some(MOST)).is_ok(),
            "per broker"
        );
        let listed: Vec<String> = clocks
            .of_owner("broker")
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(listed, ids);
        assert!(
            clocks.create("broker", None, START, None).is_ok(),
            "no bound, no refusal"
        );
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let deleting = rt.block_on(clocks.deleting());
        let gone = clocks.delete(&deleting, &ids[0], "broker").unwrap();
        assert!(gone.deleted && gone.frozen);
        drop(deleting);
        assert_eq!(clocks.of_owner("broker").len() as u64, MOST);
        assert!(
            clocks.create("broker", None, START, Some(MOST + 1)).is_ok(),
            "room again"
        );
        assert_eq!(
            clocks.set(&ids[0], "broker", None, Some(Duration::days(1)), None),
            Err(TestClockError::Deleted)
        );
        assert_eq!(
            clocks.reading(&ids[0]).unwrap().now,
            START,
            "read as it was"
        );
        assert_eq!(
            rt.block_on(clocks.attach(&ids[0], "broker")).err(),
            Some(TestClockError::Deleted)
        );
    }

    #[test]
    fn every_change_is_kept_first_and_a_change_not_kept_is_not_made() {
        let kept = Arc::new(std::sync::Mutex::new(Vec::<Kept>::new()));
        let seen = kept.clone();
        let clocks = TestClocks::restore(
            Vec::new(),
            Some(Box::new(move |k| {
                seen.lock().unwrap().push(k.clone());
                Ok(())
            })),
        );
        let made = clocks.create("broker", None, START, Some(MOST)).unwrap();
        clocks
            .set(
                &made.id,
                "broker",
                None,
                Some(Duration::hours(1)),
                Some(false),
            )
            .unwrap();
        let rows = kept.lock().unwrap().clone();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].saved.frozen_at_micros, None, "thawed");
        let again = TestClocks::restore(rows, None);
        let read = again.reading(&made.id).unwrap();
        assert!(!read.frozen && read.now >= START + Duration::hours(1));
        assert!(again.create("broker", None, START, Some(MOST)).is_ok());
        let numbers: Vec<u64> = again
            .read()
            .values()
            .map(|c| c.number)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(numbers, [0, 1], "numbering follows on");

        let failing = TestClocks::restore(Vec::new(), Some(Box::new(|_| Err("disk full".into()))));
        assert!(matches!(
            failing.create("broker", None, START, Some(MOST)),
            Err(TestClockError::Move(ClockError::Unavailable(_)))
        ));
        assert!(failing.of_owner("broker").is_empty(), "not made");
    }
}
