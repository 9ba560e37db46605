//! The run's pool of test clocks (`/testing/clocks`): on a target that offers them, each
//! scenario that moves time takes a clock of its own from it, so that such scenarios run side by
//! side instead of one at a time on the owner's one clock. The requests that make, read and
//! delete them are the target's (`test_clocks`).
//!
//! A clock a finished scenario gives back serves the next one: a target bounds the clocks a
//! broker holds, and a clock whose records are still live cannot be deleted, so the pool makes
//! few. Its leftover tenders moving on harms nobody: a scenario reads its clock's time before
//! it creates anything and only ever moves it forward.
use std::sync::{
    Arc, Mutex, PoisonError,
    atomic::{AtomicBool, AtomicUsize, Ordering},
};

use tokio::sync::Notify;

/// Where a broker's test clocks are made, listed, read and moved.
pub const CLOCKS: &str = "/testing/clocks";

/// The request header that puts a new tender on a test clock.
pub const HEADER: &str = "X-Testing-Clock";

/// The run's test clocks.
#[derive(Debug)]
pub struct TestClocks {
    /// The name each clock gets, followed by its number (`tender-certify SEED N`).
    pub prefix: String,
    /// Whether a new clock is set running after its creation (a new one stands still), as the
    /// owner's clock ran at the start of the run.
    pub running: bool,
    /// Every clock the run made, in the order made.
    made: Mutex<Vec<String>>,
    /// Clocks given back by finished scenarios, ready for the next.
    idle: Mutex<Vec<String>>,
    /// A clock was given back.
    released: Notify,
    /// The target refused one more clock: from then on scenarios wait for one given back.
    full: AtomicBool,
    /// Clocks made or being made, at most `most`.
    reserved: AtomicUsize,
    /// Numbers handed out with reservations, so that clocks asked for at once get names of
    /// their own.
    numbered: AtomicUsize,
    /// The most clocks the run makes.
    most: usize,
    moves: AtomicUsize,
}

/// What the run did with its test clocks, for the certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestClockRecord {
    pub prefix: String,
    /// Every clock made, by id.
    pub made: Vec<String>,
    /// Moves of them.
    pub moves: usize,
    /// Deleted at the end of the run.
    pub deleted: usize,
    /// Left on the target: a clock still holding a live record cannot be deleted.
    pub left: Vec<String>,
    /// The records the deletions finished first (`kind id`), which the run held no token for.
    pub settled: Vec<String>,
}

/// A scenario's clock, given back to the pool when dropped.
#[derive(Debug)]
pub struct Lease {
    pub id: String,
    pool: Arc<TestClocks>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.pool.give_back(std::mem::take(&mut self.id));
    }
}

impl TestClocks {
    pub fn new(prefix: String, running: bool, most: usize) -> Self {
        TestClocks {
            prefix,
            running,
            most,
            made: Mutex::new(Vec::new()),
            idle: Mutex::new(Vec::new()),
            released: Notify::new(),
            full: AtomicBool::new(false),
            reserved: AtomicUsize::new(0),
            numbered: AtomicUsize::new(0),
            moves: AtomicUsize::new(0),
        }
    }

    /// A clock given back, as the lease of a scenario.
    pub fn idle(self: &Arc<Self>) -> Option<Lease> {
        let id = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()?;
        Some(self.lease(id))
    }

    pub fn lease(self: &Arc<Self>, id: String) -> Lease {
        Lease {
            id,
            pool: self.clone(),
        }
    }

    /// The number of one more clock (its name's), when one more may be made; the caller then
    /// makes it, or calls [`Self::unreserve`] if it made none.
    pub fn reserve(&self) -> Option<usize> {
        if self.full.load(Ordering::Relaxed) {
            return None;
        }
        if self.reserved.fetch_add(1, Ordering::Relaxed) < self.most {
            return Some(self.numbered.fetch_add(1, Ordering::Relaxed) + 1);
        }
        self.reserved.fetch_sub(1, Ordering::Relaxed);
        None
    }

    /// Frees a reservation whose clock was not made.
    pub fn unreserve(&self) {
        self.reserved.fetch_sub(1, Ordering::Relaxed);
    }

    /// The target holds no more clocks for the owner: scenarios wait for one given back.
    pub fn full(&self) {
        self.full.store(true, Ordering::Relaxed);
    }

    /// Waits until a clock is given back.
    pub async fn released(&self) {
        self.released.notified().await;
    }

    /// Notes a clock made.
    pub fn made(&self, id: &str) {
        self.made
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(id.to_owned());
    }

    /// The clocks made so far.
    pub fn made_so_far(&self) -> Vec<String> {
        self.made
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn give_back(&self, id: String) {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(id);
        self.released.notify_one();
    }

    /// Counts a move of one of the run's clocks.
    pub fn moved(&self) {
        self.moves.fetch_add(1, Ordering::Relaxed);
    }

    pub fn moves(&self) -> usize {
        self.moves.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_made_at_once_get_numbers_of_their_own_up_to_the_most() {
        let pool = TestClocks::new("tender-certify 7".into(), false, 3);
        assert_eq!(pool.reserve(), Some(1));
        assert_eq!(pool.reserve(), Some(2));
        assert_eq!(pool.reserve(), Some(3));
        assert_eq!(pool.reserve(), None, "the run makes at most 3");
        pool.unreserve();
        assert_eq!(
            pool.reserve(),
            Some(4),
            "a freed slot's number is not handed out again"
        );
        assert_eq!(pool.reserve(), None);
    }

    #[test]
    fn a_full_target_takes_no_more_reservations() {
        let pool = TestClocks::new("tender-certify 7".into(), false, 3);
        assert_eq!(pool.reserve(), Some(1));
        pool.full();
        assert_eq!(pool.reserve(), None);
    }
}
