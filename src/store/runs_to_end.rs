//! A write that outlives its request: once handed to the database, its end (the record in
//! memory, its bids' rows, the listing's reserved stamp) follows whatever becomes of the
//! request that started it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A write's future, polled by its request; dropped before its end (the request went away),
/// it is handed to a task of its own that polls it to the end.
pub(super) struct RunsToEnd<F: Future<Output: Send + 'static> + Send + 'static>(
    Option<Pin<Box<F>>>,
);

impl<F: Future<Output: Send + 'static> + Send + 'static> RunsToEnd<F> {
    pub(super) fn new(write: F) -> Self {
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
