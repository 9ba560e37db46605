//! Indexes over the published tenders and the contracts under management: their listings in
//! the order the server changed them, the schedule of `next_check`s held apart by the clock
//! they are due on (a record's clock key: see [`Tender::clock_key`]), and the daily tenderID counter.

use super::feed::{Entry, Id, Listing, Page, PageRequest, inline_id};
use super::listed_fields::ListedFields;
use crate::domain::tender::{Tender, TenderStatus};
use crate::domain::time::{Timestamp, Zone};
use std::collections::{BTreeSet, HashMap};
use time::{Date, OffsetDateTime};

#[derive(Default)]
pub struct Indexes {
    pub listing: Listing,
    /// The contracts under management, listed as the tenders are.
    pub contracts: Listing,
    /// Next checks, by the key of the clock they are on, then by their moment; a tender's id
    /// breaks ties.
    schedule: HashMap<String, BTreeSet<(i64, Id)>>,
    daily: HashMap<Date, u32>,
    /// The records created on each test clock, by its id: a clock's deletion waits for them
    /// to finish.
    pub on_test_clocks: HashMap<String, OnClock>,
    /// Each owner's live tenders (not in a terminal status; drafts count), with the creations
    /// under way that hold a place among them.
    live: HashMap<String, u64>,
}

/// Whether a tender counts among its owner's live tenders.
fn live(tender: &Tender) -> bool {
    !tender.status.is_terminal()
}

/// The records of one test clock: its tenders and their contracts under management.
#[derive(Debug, Default, Clone)]
pub struct OnClock {
    pub tenders: Vec<String>,
    pub contracts: Vec<String>,
}

/// A tender's entry in the schedule, if it has a next check.
fn scheduled(tender: &Tender) -> Option<(i64, Id)> {
    Some((tender.next_check?.micros(), inline_id(&tender.id)?))
}

fn from_micros(zone: &Zone, micros: i64) -> Option<Timestamp> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
        .ok()
        .map(|t| zone.at(t))
}

impl Indexes {
    pub fn next_daily_number(&mut self, date: Date) -> u32 {
        self.daily.retain(|d, _| *d >= date);
        let n = self.daily.entry(date).or_default();
        *n += 1;
        *n
    }

    /// How many live tenders `owner` holds (creations under way included).
    pub fn live_of(&self, owner: &str) -> u64 {
        self.live.get(owner).copied().unwrap_or(0)
    }

    /// A place among `owner`'s live tenders for a tender being created, when it holds fewer
    /// than `most`; else how many it holds.
    pub fn reserve_live(&mut self, owner: &str, most: Option<u64>) -> Result<(), u64> {
        let held = self.live_of(owner);
        if most.is_some_and(|most| held >= most) {
            return Err(held);
        }
        self.add_live(owner);
        Ok(())
    }

    /// One more live tender of `owner` (its name is copied only the first time).
    fn add_live(&mut self, owner: &str) {
        match self.live.get_mut(owner) {
            Some(n) => *n += 1,
            None => {
                self.live.insert(owner.to_string(), 1);
            }
        }
    }

    /// Gives back a place [`Indexes::reserve_live`] took for a tender that was not made.
    pub fn release_live(&mut self, owner: &str) {
        if let Some(n) = self.live.get_mut(owner) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.live.remove(owner);
            }
        }
    }

    /// Counts a change of a tender already made (`old`) to `new`, or a tender of an earlier
    /// run (`old` none), among its owner's live tenders.
    pub fn count_live(&mut self, old: Option<&Tender>, new: &Tender) {
        match (old.is_some_and(live), live(new)) {
            (false, true) => self.add_live(&new.owner),
            (true, false) => self.release_live(&new.owner),
            _ => {}
        }
    }

    /// The records of the test clock `clock`, each noted once as it is made.
    pub fn on_clock(&mut self, clock: &str) -> &mut OnClock {
        self.on_test_clocks.entry(clock.to_string()).or_default()
    }

    /// Takes in a tender of an earlier run: later stamps and tenderIDs follow on from it.
    pub fn restore(&mut self, tender: &Tender) {
        self.listing.restore(
            tender.clock_key(),
            tender.listing_key(),
            tender.date_modified,
        );
        let id = &tender.tender_id;
        let date = id.get(3..13).and_then(|d| {
            Date::parse(d, time::macros::format_description!("[year]-[month]-[day]")).ok()
        });
        let number = id.get(14..).and_then(|n| n.parse::<u32>().ok());
        if let (Some(date), Some(number)) = (date, number) {
            let n = self.daily.entry(date).or_default();
            *n = (*n).max(number);
        }
    }

    /// Replaces `old`'s entries with `new`'s, whose listed fields are `fields` (made before
    /// the indexes are locked); `None` keeps those of `old`'s row, for a caller that found
    /// them reading the same (they are rendered if `old` has no row). Drafts are neither
    /// listed nor scheduled. Returns whether the earliest scheduled check moved earlier.
    pub fn put(
        &mut self,
        new: &Tender,
        fields: Option<ListedFields>,
        old: Option<&Tender>,
    ) -> bool {
        let key = new.clock_key();
        if old.is_none()
            && let Some(clock) = &new.clock
        {
            self.on_clock(clock).tenders.push(new.id.to_string());
        }
        let earliest = self
            .schedule
            .get(key)
            .and_then(|s| s.first())
            .map(|(m, _)| *m);
        let indexed = |t: &&Tender| t.status != TenderStatus::Draft;
        let old = old.filter(indexed);
        let kept = old.and_then(|old| self.listing.remove(old.listing_key()));
        // Most writes leave the next check where it was.
        let was = old.and_then(scheduled);
        let will = Some(new).filter(indexed).and_then(scheduled);
        if was != will {
            if let Some(entry) = was
                && let Some(checks) = self.schedule.get_mut(key)
            {
                checks.remove(&entry);
                if checks.is_empty() {
                    self.schedule.remove(key);
                }
            }
            if let Some(entry) = will {
                self.schedule
                    .entry(key.to_string())
                    .or_default()
                    .insert(entry);
            }
        }
        if new.status == TenderStatus::Draft {
            return false;
        }
        let fields = fields
            .or(kept)
            .unwrap_or_else(|| ListedFields::of_tender(new));
        let entry = Entry {
            id: &new.id,
            key: new.listing_key(),
            date_modified: new.date_modified,
            test: new.is_test(),
        };
        self.listing.insert(entry, fields);
        will.is_some_and(|(check, _)| earliest.is_none_or(|e| check < e))
    }

    /// The tenders whose next check is due, each on its clock (`now_of` a clock key); with
    /// `only`, those on that clock alone.
    pub fn due(&self, now_of: impl Fn(&str) -> Timestamp, only: Option<&str>) -> Vec<String> {
        self.schedule
            .iter()
            .filter(|(key, _)| only.is_none_or(|o| o == key.as_str()))
            .flat_map(|(key, checks)| {
                checks
                    .range(..=(now_of(key).micros(), [u8::MAX; 32]))
                    .map(|(_, id)| String::from_utf8_lossy(id).into_owned())
            })
            .collect()
    }

    /// The earliest check on each clock, by clock key.
    pub fn earliest_checks(&self, zone: &Zone) -> Vec<(&str, Timestamp)> {
        self.schedule
            .iter()
            .filter_map(|(key, checks)| {
                let (micros, _) = checks.first()?;
                Some((key.as_str(), from_micros(zone, *micros)?))
            })
            .collect()
    }

    pub fn page(&self, request: &PageRequest) -> Page {
        self.listing.page(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::tender::tests::published;
    use time::Duration;

    /// Each tender is due once, at the check it has now: one whose check stays through a
    /// write, one whose check moves, and one that leaves the schedule.
    #[test]
    fn the_schedule_holds_each_tender_at_its_current_check() {
        let mut indexes = Indexes::default();
        let (a, _, now) = published();
        let (b, _, _) = published();
        let check = a.next_check.unwrap();
        let (late, later) = (
            check.plus(Duration::hours(1)),
            check.plus(Duration::hours(2)),
        );
        assert!(
            indexes.put(&a, None, None),
            "the first check is the earliest"
        );
        assert!(
            !indexes.put(&b, None, None),
            "a second at the same moment is not earlier"
        );
        assert_eq!(indexes.due(|_| check, None).len(), 2);

        // `a` changes but keeps its check; `b`'s check moves on, then it has none.
        let mut a2 = a.clone();
        a2.date_modified = now.plus(Duration::seconds(1));
        indexes.put(&a2, None, Some(&a));
        let mut b2 = b.clone();
        b2.next_check = Some(late);
        indexes.put(&b2, None, Some(&b));
        assert_eq!(indexes.due(|_| check, None), [a.id.as_str()]);
        assert_eq!(indexes.due(|_| late, None).len(), 2);
        let mut b3 = b2.clone();
        b3.next_check = None;
        indexes.put(&b3, None, Some(&b2));
        assert_eq!(indexes.due(|_| later, None), [a.id.as_str()]);
        assert_eq!(
            indexes.schedule.values().map(BTreeSet::len).sum::<usize>(),
            1
        );
        assert_eq!(
            indexes.earliest_checks(&Zone::named("Europe/Kyiv").unwrap()),
            [(a.owner.as_str(), check)]
        );
    }

    /// Each owner's tenders fall due on that owner's clock: one years ahead runs its own,
    /// and no other's.
    #[test]
    fn a_tender_falls_due_on_its_owner_s_clock_only() {
        let mut indexes = Indexes::default();
        let (a, _, _) = published();
        let (mut b, _, _) = published();
        b.owner = "broker1".into();
        indexes.put(&a, None, None);
        indexes.put(&b, None, None);
        let check = a.next_check.unwrap();
        let (before, years_on) = (
            check.plus(Duration::seconds(-1)),
            check.plus(Duration::days(3 * 365)),
        );
        let clocks = |owner: &str| if owner == "broker1" { years_on } else { before };
        assert_eq!(indexes.due(clocks, None), [b.id.as_str()]);
        assert_eq!(
            indexes.due(clocks, Some(a.owner.as_str())),
            Vec::<String>::new()
        );
        assert_eq!(indexes.due(|_| check, Some("broker1")), [b.id.as_str()]);
    }
}
