//! A tender's writes: a new tender stamped and placed; a change taking the tender's turn,
//! the transitions already due applied first, worked on a copy that replaces the tender only
//! once committed; and the listing and schedule that follow each.

use super::bid_rows::BidRows;
use super::database::Write;
use super::feed::{Listing, OwnTime, Stamp};
use super::listed_fields::ListedFields;
use super::runs_to_end::RunsToEnd;
use super::shelf::lock;
use super::{CALENDAR, LiveHold, Place, Slot, Store, Turn, listed_fields};
use crate::domain::lifecycle;
use crate::domain::stored;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::Timestamp;
use crate::domain::{Change, Refusal};
use std::sync::Arc;
use std::sync::atomic::Ordering;

impl Store {
    /// Stamps a change of a record on the clock `clock` (a clock key) made at `now` (that
    /// clock's) in `listing`, `before` the `dateModified` it showed. The listing orders
    /// changes by the server's clock; a record on a clock of its own shows that clock's time.
    pub(super) fn stamp(
        &self,
        listing: &mut Listing,
        clock: &str,
        now: Timestamp,
        before: Option<Timestamp>,
    ) -> Stamp {
        if self.clocks().has_own(clock) {
            let server_now = self.zone.at(self.clocks().server().now());
            let own = OwnTime { clock, now, before };
            listing.reserve(&self.zone, server_now, Some(own))
        } else {
            listing.reserve(&self.zone, now, None)
        }
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
        // A new tender was counted among its owner's live ones when its creation began.
        if old.is_some() {
            indexes.count_live(old, tender);
        }
        let earlier = indexes.put(tender, fields, old);
        drop(indexes);
        if earlier {
            self.rescheduled.notify_one();
        }
        Ok(())
    }

    /// Stores a new tender, stamping its `dateModified`, and returns `view` of it. The tender
    /// lives on the clock it names (see [`Tender::clock_key`]); `now` is that clock's. It takes
    /// the place `hold` holds among its owner's live tenders, which is given back if it is not
    /// stored.
    pub async fn insert<V>(
        self: &Arc<Self>,
        mut tender: Tender,
        now: Timestamp,
        hold: LiveHold,
        view: impl FnOnce(&Tender) -> V,
    ) -> Result<V, Refusal> {
        let stamp = {
            let mut indexes = lock(&self.indexes);
            self.stamp(&mut indexes.listing, tender.clock_key(), now, None)
        };
        (tender.date_modified, tender.listed_at) = (stamp.date_modified, stamp.listed_at());
        let result = view(&tender);
        if self.durable.is_none() {
            self.place_new(tender, hold).await?;
        } else {
            let store = self.clone();
            RunsToEnd::new(async move { store.place_new(tender, hold).await }).await?;
        }
        Ok(result)
    }

    /// Commits a new tender, indexes it and makes it known.
    async fn place_new(&self, mut tender: Tender, hold: LiveHold) -> Result<(), Refusal> {
        let row = self
            .durable
            .as_ref()
            .map_or(0, |d| d.next_row.fetch_add(1, Ordering::Relaxed));
        let mut bid_rows = BidRows::default();
        let committed = self
            .commit(row, &mut tender, None, &mut bid_rows, Vec::new())
            .await;
        self.index(&tender, None, true, committed)?;
        hold.taken();
        let id = tender.id.clone();
        self.tenders.add(id, Place::new(tender, row, bid_rows));
        Ok(())
    }

    /// Applies a write to a tender and returns `view` of the result. Transitions already
    /// due are applied (and kept) first; then `op` works on a copy, which replaces the
    /// tender only if `op` succeeds and the change is committed.
    ///
    /// `op` is given "now" on the tender's clock, read once its turn came.
    pub async fn update<V>(
        self: &Arc<Self>,
        id: &str,
        op: impl FnOnce(&mut Tender, Timestamp) -> Result<Change, Refusal>,
        view: impl FnOnce(&Tender) -> V,
    ) -> Result<V, Refusal> {
        let place = self.slot(id).ok_or(Refusal::NotFound("tender_id"))?;
        let mut turn = place.turn.clone().lock_owned().await;
        let mut copy = lock(&place.entry).record.clone();
        let now = self.now_for(copy.clock_key());
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
                self.stamp(&mut indexes.listing, tender.clock_key(), now, Some(before))
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
}
