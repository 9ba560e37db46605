//! The one place that says which clock a record lives on, by the record's clock key (see
//! `Tender::clock_key`): a test clock's id, else its owner's name. Every rule about a tender
//! or a contract takes "now" from here, through the store, never from a clock of its own
//! choosing.
//!
//! On a server that offers them (`--testing`, `--sandbox`) a broker may have a clock of its
//! own: made at its first move as a copy of the server's, then moved by that broker alone.
//! Until then, and for every broker on a server that does not offer them, a broker's records
//! live on the server's clock. There a broker may also create test clocks
//! ([`super::test_clocks`]), each holding the records created on it.

use super::test_clocks::{self, TestClockError, TestClocks, TestReading};
use super::{Clock, ClockError, Saved};
use crate::domain::time::{Timestamp, Zone};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};
use time::{Duration, OffsetDateTime};
use tokio::sync::watch;

/// Commits every broker's clock (as a whole) before a move of one of them is made.
pub type Keeper = Box<dyn Fn(&BTreeMap<String, Saved>) -> Result<(), String> + Send + Sync>;

pub struct Clocks {
    server: Arc<Clock>,
    zone: Zone,
    /// Whether a broker may have a clock of its own.
    offered: bool,
    /// The brokers' own clocks, by broker name. Moves take the write lock, one at a time.
    own: RwLock<HashMap<String, Arc<Clock>>>,
    keeper: Option<Keeper>,
    /// Test clocks, by id (only where own clocks are offered).
    tests: TestClocks,
    /// Counts every move of any of the clocks.
    moved: watch::Sender<u64>,
}

/// A clock as a reader sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    pub now: Timestamp,
    pub frozen: bool,
    /// Whether it is a broker's own clock (not the server's).
    pub own: bool,
}

impl Clocks {
    /// The server's clock alone: every record lives on it.
    pub fn new(server: Arc<Clock>, zone: Zone) -> Clocks {
        let (moved, _) = watch::channel(0);
        Clocks {
            server,
            zone,
            offered: false,
            own: RwLock::default(),
            keeper: None,
            tests: TestClocks::default(),
            moved,
        }
    }

    /// Offers brokers clocks of their own, those of an earlier run restored; each later move
    /// of one is committed by `keeper` (when given) before it is made.
    pub fn offering_own(mut self, kept: BTreeMap<String, Saved>, keeper: Option<Keeper>) -> Clocks {
        self.offered = true;
        self.keeper = keeper;
        let restored = kept
            .into_iter()
            .map(|(broker, saved)| (broker, Arc::new(Clock::restore(saved))))
            .collect();
        self.own = RwLock::new(restored);
        self
    }

    /// Offers test clocks too, those of an earlier run restored (see
    /// [`TestClocks::restore`]).
    pub fn offering_tests(
        mut self,
        kept: Vec<test_clocks::Kept>,
        keeper: Option<test_clocks::Keeper>,
    ) -> Clocks {
        self.tests = TestClocks::restore(kept, keeper);
        self
    }

    pub fn offers_own(&self) -> bool {
        self.offered
    }

    fn read_own(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Arc<Clock>>> {
        self.own.read().unwrap_or_else(|p| p.into_inner())
    }

    /// A receiver that sees every move of any clock.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.moved.subscribe()
    }

    /// The server's own clock: the one without an owner.
    pub fn server(&self) -> &Arc<Clock> {
        &self.server
    }

    /// The clock the records keyed `key` live on: the test clock of that id, else the
    /// broker's own of that name, else the server's.
    pub fn of(&self, key: &str) -> Arc<Clock> {
        if let Some(clock) = self.tests.clock(key) {
            return clock;
        }
        self.read_own()
            .get(key)
            .cloned()
            .unwrap_or_else(|| self.server.clone())
    }

    /// Whether the records keyed `key` live on a clock other than the server's (they are
    /// then stamped in its time).
    pub fn has_own(&self, key: &str) -> bool {
        self.offered && (self.tests.clock(key).is_some() || self.read_own().contains_key(key))
    }

    /// "Now" for the records keyed `key`, in the server's zone.
    pub fn now_for(&self, key: &str) -> Timestamp {
        self.zone.at(self.of(key).now())
    }

    /// The clock of `broker` (the server's with `None`) as a reader sees it.
    pub fn reading(&self, broker: Option<&str>) -> Reading {
        let own = broker.is_some_and(|b| self.has_own(b));
        let clock = broker.map_or_else(|| self.server.clone(), |b| self.of(b));
        Reading {
            now: self.zone.at(clock.now()),
            frozen: clock.is_frozen(),
            own,
        }
    }

    /// Moves the server's clock (see [`Clock::set`]).
    pub fn set_server(
        &self,
        target: Option<OffsetDateTime>,
        advance: Option<Duration>,
        frozen: Option<bool>,
    ) -> Result<OffsetDateTime, ClockError> {
        let moved = self.server.set(target, advance, frozen)?;
        self.moved.send_modify(|n| *n += 1);
        Ok(moved)
    }

    /// The test clocks, to read, create, hold and delete (moves go through
    /// [`Clocks::set_test`], which tells the scheduler).
    pub fn tests(&self) -> &TestClocks {
        &self.tests
    }

    /// A new test clock of `owner` standing still at `start`, by default where `owner`'s
    /// own clock (or the server's) stands now, when `owner` holds fewer than `most`.
    pub fn create_test(
        &self,
        owner: &str,
        name: Option<String>,
        start: Option<OffsetDateTime>,
        most: Option<u64>,
    ) -> Result<TestReading, TestClockError> {
        let start = start.unwrap_or_else(|| self.of(owner).now());
        self.tests.create(owner, name, start, most)
    }

    /// Moves the test clock `id` for `mover`, its owner (see [`TestClocks::set`]).
    pub fn set_test(
        &self,
        id: &str,
        mover: &str,
        target: Option<OffsetDateTime>,
        advance: Option<Duration>,
        frozen: Option<bool>,
    ) -> Result<OffsetDateTime, TestClockError> {
        let moved = self.tests.set(id, mover, target, advance, frozen)?;
        self.moved.send_modify(|n| *n += 1);
        Ok(moved)
    }

    /// Moves `broker`'s own clock, made at this first move as a copy of the server's. A move
    /// refused leaves everything as it was (a broker without a clock still without one).
    pub fn set_own(
        &self,
        broker: &str,
        target: Option<OffsetDateTime>,
        advance: Option<Duration>,
        frozen: Option<bool>,
    ) -> Result<OffsetDateTime, ClockError> {
        let mut own = self.own.write().unwrap_or_else(|p| p.into_inner());
        let (clock, new) = match own.get(broker) {
            Some(clock) => (clock.clone(), false),
            None => (Arc::new(Clock::restore(self.server.saved())), true),
        };
        let keep = |next: Saved| -> Result<(), String> {
            let Some(keeper) = &self.keeper else {
                return Ok(());
            };
            // The moving clock is locked while its next state is kept: it is not read again.
            let mut all: BTreeMap<String, Saved> = own
                .iter()
                .filter(|(b, _)| b.as_str() != broker)
                .map(|(b, c)| (b.clone(), c.saved()))
                .collect();
            all.insert(broker.to_string(), next);
            keeper(&all)
        };
        let moved = clock.set_kept(target, advance, frozen, &keep)?;
        if new {
            own.insert(broker.to_string(), clock);
        }
        drop(own);
        self.moved.send_modify(|n| *n += 1);
        Ok(moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn clocks() -> Clocks {
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let server = Arc::new(Clock::frozen_at(datetime!(2026-11-27 14:30 UTC)));
        Clocks::new(server, zone).offering_own(BTreeMap::new(), None)
    }

    #[test]
    fn a_broker_s_clock_is_the_server_s_until_its_first_move_then_its_own() {
        let c = clocks();
        let start = c.now_for("broker");
        assert!(!c.has_own("broker"));
        let later = c
            .set_own("broker", None, Some(Duration::days(30)), None)
            .unwrap();
        assert!(c.has_own("broker"));
        assert_eq!(c.now_for("broker").instant(), later);
        assert_eq!(later - start.instant(), Duration::days(30));
        assert_eq!(c.now_for("broker1"), start, "another broker stays");
        assert_eq!(c.reading(None).now, start, "and the server's clock");
        assert!(
            c.reading(Some("broker")).frozen,
            "frozen as the server's was"
        );
    }

    #[test]
    fn a_refused_first_move_leaves_the_broker_on_the_server_s_clock() {
        let c = clocks();
        let back = c.now_for("broker").instant() - Duration::days(1);
        assert_eq!(
            c.set_own("broker", Some(back), None, None),
            Err(ClockError::Backwards)
        );
        assert!(!c.has_own("broker"));
    }

    #[test]
    fn a_record_on_a_test_clock_reads_that_clock_and_no_other_moves_with_it() {
        let c = clocks();
        let server = c.reading(None).now;
        let made = c
            .create_test("broker", None, None, Some(100))
            .expect("a clock is made");
        assert_eq!(made.now, server.instant(), "made at the broker's now");
        assert!(c.has_own(&made.id) && !c.has_own("broker"));
        let later = c
            .set_test(&made.id, "broker", None, Some(Duration::days(30)), None)
            .unwrap();
        assert_eq!(c.now_for(&made.id).instant(), later);
        assert_eq!(c.now_for("broker"), server, "the broker's own stays");
        assert_eq!(c.reading(None).now, server, "and the server's");
        assert_eq!(
            c.set_test(&made.id, "broker1", None, Some(Duration::days(1)), None),
            Err(TestClockError::Foreign)
        );
        let second = c.create_test("broker", None, None, Some(100)).unwrap();
        assert_eq!(c.now_for(&second.id), server, "a second one stands apart");
    }

    #[test]
    fn own_clocks_exist_only_where_offered() {
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let c = Clocks::new(Arc::new(Clock::new()), zone);
        assert!(!c.offers_own() && !c.has_own("broker"));
    }

    #[test]
    fn every_move_is_kept_with_every_other_broker_s_clock() {
        let kept = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = kept.clone();
        let zone = Zone::named("Europe/Kyiv").unwrap();
        let server = Arc::new(Clock::frozen_at(datetime!(2026-11-27 14:30 UTC)));
        let c = Clocks::new(server, zone).offering_own(
            BTreeMap::new(),
            Some(Box::new(move |all| {
                seen.lock()
                    .unwrap()
                    .push(all.keys().cloned().collect::<Vec<_>>());
                Ok(())
            })),
        );
        c.set_own("a", None, Some(Duration::hours(1)), None)
            .unwrap();
        c.set_own("b", None, Some(Duration::hours(2)), None)
            .unwrap();
        assert_eq!(
            *kept.lock().unwrap(),
            [
                vec!["a".to_string()],
                vec!["a".to_string(), "b".to_string()]
            ]
        );
        let failing = Clocks::new(Arc::new(Clock::new()), zone)
            .offering_own(BTreeMap::new(), Some(Box::new(|_| Err("disk full".into()))));
        assert!(matches!(
            failing.set_own("a", None, Some(Duration::hours(1)), None),
            Err(ClockError::Unavailable(_))
        ));
        assert!(!failing.has_own("a"), "a move not kept is not made");
    }
}
