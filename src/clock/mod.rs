//! A clock: the wall clock plus an offset, optionally frozen. Time only moves forward.
//! Tests and brokers move it through the clock control API. Which clock a record lives on,
//! and telling the scheduler that one moved, is [`clocks::Clocks`]'s; test clocks, many per
//! broker, are [`test_clocks`]'.

pub mod clocks;
pub mod test_clocks;

use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use time::{Duration, OffsetDateTime};

/// The clock as kept across restarts: its offset from the wall clock, where it is frozen,
/// and the latest moment it showed (microseconds since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Saved {
    pub offset_micros: i64,
    pub frozen_at_micros: Option<i64>,
    pub last_micros: i64,
}

/// Commits a move of the clock before it is made; an error refuses the move.
pub type Keeper = Box<dyn Fn(Saved) -> Result<(), String> + Send + Sync>;

fn micros(t: OffsetDateTime) -> i64 {
    i64::try_from(t.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX)
}

fn from_micros(m: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(m) * 1_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

#[derive(Debug, Clone, Copy)]
struct State {
    offset: Duration,
    frozen_at: Option<OffsetDateTime>,
    /// The latest moment handed out, so that a wall clock stepping back never shows.
    last: OffsetDateTime,
}

pub struct Clock {
    state: Mutex<State>,
    keeper: Option<Keeper>,
}

/// Refused clock moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockError {
    Backwards,
    OutOfRange,
    /// The move could not be kept, so it was not made.
    Unavailable(String),
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}

impl Clock {
    pub fn new() -> Clock {
        Clock {
            state: Mutex::new(State {
                offset: Duration::ZERO,
                frozen_at: None,
                last: OffsetDateTime::UNIX_EPOCH,
            }),
            keeper: None,
        }
    }

    /// The clock of an earlier run: frozen where it was, or running at the same offset from
    /// the wall clock, and never before the latest moment it was moved to.
    pub fn restore(saved: Saved) -> Clock {
        let clock = Clock::new();
        {
            let mut state = clock.lock();
            state.offset = Duration::microseconds(saved.offset_micros);
            state.frozen_at = saved.frozen_at_micros.map(from_micros);
            state.last = from_micros(saved.last_micros);
        }
        clock
    }

    /// Has every later move committed by `keeper` before it is made.
    pub fn kept_by(mut self, keeper: Keeper) -> Clock {
        self.keeper = Some(keeper);
        self
    }

    /// The clock's state to keep.
    pub fn saved(&self) -> Saved {
        let mut state = self.lock();
        Clock::read(&mut state);
        Clock::saved_of(&state)
    }

    fn saved_of(state: &State) -> Saved {
        Saved {
            offset_micros: i64::try_from(state.offset.whole_microseconds()).unwrap_or(i64::MAX),
            frozen_at_micros: state.frozen_at.map(micros),
            last_micros: micros(state.last),
        }
    }

    /// A clock that starts frozen at `start`: tests and demonstrations pin the calendar, so that
    /// what they see does not depend on the day they run. It moves only when told to.
    pub fn frozen_at(start: OffsetDateTime) -> Clock {
        let clock = Clock::new();
        {
            let mut state = clock.lock();
            state.offset = start - OffsetDateTime::now_utc();
            state.frozen_at = Some(start);
            state.last = start;
        }
        clock
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn read(state: &mut State) -> OffsetDateTime {
        let now = state
            .frozen_at
            .unwrap_or_else(|| OffsetDateTime::now_utc() + state.offset);
        state.last = state.last.max(now);
        state.last
    }

    pub fn now(&self) -> OffsetDateTime {
        Clock::read(&mut self.lock())
    }

    pub fn is_frozen(&self) -> bool {
        self.lock().frozen_at.is_some()
    }

    /// Moves the clock to `target` (never back) and optionally freezes or thaws it there.
    pub fn set(
        &self,
        target: Option<OffsetDateTime>,
        advance: Option<Duration>,
        frozen: Option<bool>,
    ) -> Result<OffsetDateTime, ClockError> {
        self.set_kept(target, advance, frozen, &|_| Ok(()))
    }

    /// [`Clock::set`], the move also committed by `keep` before it is made.
    pub fn set_kept(
        &self,
        target: Option<OffsetDateTime>,
        advance: Option<Duration>,
        frozen: Option<bool>,
        keep: &dyn Fn(Saved) -> Result<(), String>,
    ) -> Result<OffsetDateTime, ClockError> {
        let mut state = self.lock();
        let now = Clock::read(&mut state);
        let target = match (target, advance) {
            (Some(t), _) => t,
            (None, Some(d)) => now.checked_add(d).ok_or(ClockError::OutOfRange)?,
            (None, None) => now,
        };
        if target < now {
            return Err(ClockError::Backwards);
        }
        if target > crate::domain::time::LATEST {
            return Err(ClockError::OutOfRange);
        }
        let freeze = frozen.unwrap_or(state.frozen_at.is_some());
        let next = State {
            offset: target - OffsetDateTime::now_utc(),
            frozen_at: freeze.then_some(target),
            last: target,
        };
        // Kept under the lock, so that the file always holds the latest move.
        if let Some(keeper) = &self.keeper {
            keeper(Clock::saved_of(&next)).map_err(ClockError::Unavailable)?;
        }
        keep(Clock::saved_of(&next)).map_err(ClockError::Unavailable)?;
        *state = next;
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_forward_and_freezes() {
        let clock = Clock::new();
        let start = clock.now();
        let later = clock
            .set(None, Some(Duration::days(2)), Some(true))
            .expect("forward");
        assert!(later - start >= Duration::days(2));
        assert!(clock.is_frozen());
        assert_eq!(clock.now(), later);
        assert_eq!(
            clock.set(Some(start), None, None),
            Err(ClockError::Backwards)
        );
        assert_eq!(clock.now(), later);
    }

    #[test]
    fn a_pinned_clock_stands_at_its_start_until_moved() {
        let start = time::macros::datetime!(2027-03-28 00:30 UTC);
        let clock = Clock::frozen_at(start);
        assert!(clock.is_frozen());
        assert_eq!(clock.now(), start);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(clock.now(), start);
        let later = clock
            .set(None, Some(Duration::hours(1)), Some(false))
            .expect("forward");
        assert_eq!(later, start + Duration::hours(1));
        assert!(clock.now() >= later && !clock.is_frozen());
    }

    #[test]
    fn thawed_clock_runs_from_where_it_was_set() {
        let clock = Clock::new();
        let target = clock.now() + Duration::days(10);
        clock.set(Some(target), None, Some(false)).expect("forward");
        let now = clock.now();
        assert!(now >= target && now - target < Duration::seconds(5));
        assert!(!clock.is_frozen());
    }
}
