//! Where the dates a scenario waits for on the target's clock are shown while they last. The
//! target holds one board for the run; the run's progress lines are one, and a run without them
//! shows nothing.
use std::fmt::Debug;

use time::OffsetDateTime;

/// Shows the waits of a run.
pub trait WaitBoard: Send + Sync + Debug {
    /// Shows that `scenario` waits until `due` for `what`; the id takes it away again.
    fn show_wait(&self, scenario: &str, what: &str, due: OffsetDateTime) -> u64;
    /// Takes the wait `id` away.
    fn end_wait(&self, id: u64);
}

/// A board that shows nothing.
#[derive(Debug, Default)]
pub struct Unseen;

impl WaitBoard for Unseen {
    fn show_wait(&self, _: &str, _: &str, _: OffsetDateTime) -> u64 {
        0
    }
    fn end_wait(&self, _: u64) {}
}

/// A date being waited for, shown until this is dropped.
#[derive(Debug)]
pub struct Waiting<'a> {
    board: &'a dyn WaitBoard,
    id: u64,
}

impl<'a> Waiting<'a> {
    /// Shows on `board` that `scenario` waits until `due` for `what`, for as long as this lives.
    pub fn on(board: &'a dyn WaitBoard, scenario: &str, what: &str, due: OffsetDateTime) -> Self {
        let id = board.show_wait(scenario, what, due);
        Waiting { board, id }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.board.end_wait(self.id);
    }
}
