//! When a lot's auction starts (on the calendar's slots, or a sandbox's quick plan) and how
//! offers are ranked by upstream's normalised price; the live auction itself is in `live.rs`.

use super::lots::Offer;
use super::working_days::next_working_day;
use crate::domain::values::item::Feature;
use crate::domain::values::time::{Timestamp, Zone};
use std::collections::HashMap;
use time::{Date, Duration, Time};

/// Auctions start on the half hour from 11:00; the last slot starts at 15:30.
const FIRST_SLOT: Time = time::macros::time!(11:00);
const SLOT: Duration = Duration::minutes(30);
const SLOTS_PER_DAY: u32 = 10;
/// Auctions that may run side by side in one slot.
const STREAMS: u32 = 10;

/// Books auction slots day by day, so that planning is deterministic.
#[derive(Debug, Default)]
pub struct AuctionCalendar {
    booked: HashMap<Date, u32>,
}

impl AuctionCalendar {
    /// The booked slots of each day (by Julian day number), for keeping across restarts.
    pub fn booked(&self) -> Vec<(i32, u32)> {
        let mut days: Vec<(i32, u32)> = self
            .booked
            .iter()
            .map(|(d, n)| (d.to_julian_day(), *n))
            .collect();
        days.sort_unstable();
        days
    }

    /// A calendar of an earlier run, from its [`AuctionCalendar::booked`].
    pub fn restore(days: &[(i32, u32)]) -> AuctionCalendar {
        AuctionCalendar {
            booked: days
                .iter()
                .filter_map(|(d, n)| Some((Date::from_julian_day(*d).ok()?, *n)))
                .collect(),
        }
    }

    /// Plans a start at or after `earliest`: on a working day from the slot grid, the
    /// same day only while the candidate (an hour after `earliest`) is before 11:00.
    pub fn plan(&mut self, zone: &Zone, earliest: Timestamp) -> Timestamp {
        let candidate = zone.shift(earliest, Duration::hours(1));
        let mut day = zone.date_of(candidate);
        if candidate.instant().time() >= FIRST_SLOT {
            day = day.next_day().unwrap_or(day);
        }
        // A year of full days is beyond any real load; past it the last day takes the rest.
        for _ in 0..366 {
            day = next_working_day(day);
            let booked = self.booked.entry(day).or_default();
            if *booked < SLOTS_PER_DAY * STREAMS {
                let slot = *booked / STREAMS;
                *booked += 1;
                let start = zone.local(day, FIRST_SLOT);
                return zone.shift(start, SLOT * slot as i32);
            }
            day = day.next_day().unwrap_or(day);
        }
        zone.local(day, FIRST_SLOT)
    }
}

/// How long after it may start a quick auction waits at least: upstream's chronograph added
/// its 9 minutes of service time and 3 of stand-still.
const QUICK_LEAD: Duration = Duration::minutes(12);
/// Quick auctions start on a 15-minute grid that runs through the first slot, 11:00.
const QUICK_GRID: Duration = Duration::minutes(15);

/// When a sandbox's quick auction starts, as upstream's chronograph planned it: 12 minutes
/// after `should_start_after` or after `now` (the moment of planning, on the record's own
/// clock), whichever is later, rounded up to the 15-minute grid through 11:00 local time.
/// Upstream added a random 0–1799 s on top; the plan here stays deterministic.
pub fn quick_start(zone: &Zone, should_start_after: Timestamp, now: Timestamp) -> Timestamp {
    let earliest = zone.shift(should_start_after.max(now), QUICK_LEAD);
    let anchor = zone.local(zone.date_of(earliest), FIRST_SLOT);
    let grid = QUICK_GRID.whole_microseconds();
    let past = (earliest.instant() - anchor.instant()).whole_microseconds();
    // The grid's next line at or after `earliest`, counted from the anchor (before it or after).
    let lines = past.div_euclid(grid) + i128::from(past.rem_euclid(grid) != 0);
    let offset = i64::try_from(lines * grid).map_or(Duration::ZERO, Duration::microseconds);
    zone.shift(anchor, offset)
}

/// When the auction may start: the tendering end, rounded up to the next local midnight
/// unless the sandbox asks for a quick auction.
pub fn should_start_after(zone: &Zone, tender_end: Timestamp, quick: bool) -> Timestamp {
    if quick || tender_end.instant().time() == Time::MIDNIGHT {
        return tender_end;
    }
    let next = zone
        .date_of(tender_end)
        .next_day()
        .unwrap_or_else(|| zone.date_of(tender_end));
    zone.local(next, Time::MIDNIGHT)
}

/// An offer's price for ranking: its amount reduced by the weight of the bid's answers to
/// the features that weigh on it.
pub fn normalised_price(offer: &Offer, features: &[Feature]) -> f64 {
    if features.is_empty() {
        return offer.value.amount;
    }
    let max_sum: f64 = features.iter().map(Feature::max_value).sum();
    offer.value.amount / (1.0 + answered(offer, features) / (1.0 - max_sum))
}

/// The sum of the bid's answers to the features that weigh on the offer.
pub fn answered(offer: &Offer, features: &[Feature]) -> f64 {
    offer
        .bid
        .parameters
        .iter()
        .filter(|p| features.iter().any(|f| f.code == p.code))
        .map(|p| p.value)
        .sum()
}

/// Offers from best to worst: lowest normalised price, ties to the earlier offer.
pub fn ranking<'a>(mut offers: Vec<Offer<'a>>, features: &[Feature]) -> Vec<Offer<'a>> {
    offers.sort_by(|a, b| {
        normalised_price(a, features)
            .total_cmp(&normalised_price(b, features))
            .then(a.date.cmp(&b.date))
    });
    offers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone() -> Zone {
        Zone::named("Europe/Kyiv").expect("zone")
    }

    fn at(s: &str) -> Timestamp {
        zone().parse(s).expect("date")
    }

    #[test]
    fn should_start_after_rounds_up_to_midnight() {
        assert_eq!(
            should_start_after(&zone(), at("2017-07-25T17:36"), false),
            at("2017-07-26T00:00")
        );
        assert_eq!(
            should_start_after(&zone(), at("2017-07-26T00:00"), false),
            at("2017-07-26T00:00")
        );
        assert_eq!(
            should_start_after(&zone(), at("2017-07-25T17:36"), true),
            at("2017-07-25T17:36")
        );
    }

    #[test]
    fn a_quick_auction_starts_12_minutes_after_tendering_rounded_up_to_the_quarter_hour() {
        let plan = |end: &str| quick_start(&zone(), at(end), at("2026-11-23T09:00")).to_string();
        // 16:42, up to the next quarter hour.
        assert_eq!(plan("2026-11-27T16:30"), "2026-11-27T16:45:00.000000+02:00");
        // 16:45 lies on the grid itself.
        assert_eq!(plan("2026-11-27T16:33"), "2026-11-27T16:45:00.000000+02:00");
        // A microsecond past the line waits for the next one: 27 minutes less a microsecond.
        assert_eq!(
            plan("2026-11-27T16:33:00.000001"),
            "2026-11-27T17:00:00.000000+02:00"
        );
        assert_eq!(
            plan("2026-11-27T16:40:30"),
            "2026-11-27T17:00:00.000000+02:00"
        );
        // Across midnight, and on a Saturday: quick auctions keep no calendar.
        assert_eq!(plan("2026-11-27T23:55"), "2026-11-28T00:15:00.000000+02:00");
    }

    #[test]
    fn the_quick_grid_runs_through_eleven_o_clock_local_time() {
        let plan = |end: &str| quick_start(&zone(), at(end), at(end));
        // Before and after 11:00, in winter and in summer time.
        assert_eq!(
            plan("2026-11-27T10:47:59").to_string(),
            "2026-11-27T11:00:00.000000+02:00"
        );
        assert_eq!(
            plan("2027-06-15T10:48:01").to_string(),
            "2027-06-15T11:15:00.000000+03:00"
        );
        assert_eq!(
            plan("2027-06-15T08:01").to_string(),
            "2027-06-15T08:15:00.000000+03:00"
        );
        // On the night Kyiv springs forward (03:00 → 04:00) the grid stays on the quarter hours.
        assert_eq!(
            plan("2027-03-28T02:55").to_string(),
            "2027-03-28T04:15:00.000000+03:00"
        );
        // Kyiv's local mean time (+02:02:04, before 1924) shows the anchor: 11:00 local is not
        // a quarter hour of UTC, and the plan follows 11:00 local.
        let old = plan("1900-06-01T10:45");
        assert_eq!(
            old,
            zone().local(time::macros::date!(1900 - 06 - 01), FIRST_SLOT)
        );
        let utc = old.instant().to_offset(time::UtcOffset::UTC);
        assert_eq!((utc.hour(), utc.minute(), utc.second()), (8, 57, 56));
    }

    #[test]
    fn a_quick_auction_planned_after_its_earliest_start_waits_from_the_moment_of_planning() {
        let end = at("2026-11-27T16:30");
        assert_eq!(
            quick_start(&zone(), end, at("2026-11-27T17:05")).to_string(),
            "2026-11-27T17:30:00.000000+02:00"
        );
        assert_eq!(
            quick_start(&zone(), end, at("2026-11-27T16:29")),
            quick_start(&zone(), end, end),
            "a plan made before the earliest start counts from it"
        );
    }

    #[test]
    fn auctions_start_on_working_days_in_half_hour_slots() {
        let mut calendar = AuctionCalendar::default();
        // Midnight Wednesday → 11:00 Wednesday.
        assert_eq!(
            calendar.plan(&zone(), at("2017-07-26T00:00")),
            at("2017-07-26T11:00")
        );
        for _ in 1..STREAMS {
            calendar.plan(&zone(), at("2017-07-26T00:00"));
        }
        // The first slot is full: the next auction takes 11:30.
        assert_eq!(
            calendar.plan(&zone(), at("2017-07-26T00:00")),
            at("2017-07-26T11:30")
        );
        // Midnight Saturday → Monday.
        assert_eq!(
            calendar.plan(&zone(), at("2017-07-29T00:00")),
            at("2017-07-31T11:00")
        );
        // After ten in the morning → the next working day.
        assert_eq!(
            calendar.plan(&zone(), at("2017-07-27T10:30")),
            at("2017-07-28T11:00")
        );
    }

    #[test]
    fn auctions_after_the_year_end_and_the_daylight_saving_switches() {
        let mut calendar = AuctionCalendar::default();
        // Tendering ends on New Year's Eve: 1 January (a Friday) is a holiday, then a weekend.
        let after = should_start_after(&zone(), at("2026-12-31T16:30"), false);
        assert_eq!(after, at("2027-01-01T00:00"));
        assert_eq!(calendar.plan(&zone(), after), at("2027-01-04T11:00"));
        // Tendering ends on the Saturday before Kyiv springs forward: Monday, summer time.
        let after = should_start_after(&zone(), at("2027-03-27T16:30"), false);
        assert_eq!(
            calendar.plan(&zone(), after).to_string(),
            "2027-03-29T11:00:00.000000+03:00"
        );
        // Tendering ends in the repeated hour of the autumn switch: Monday, winter time.
        let after = should_start_after(&zone(), at("2027-10-31T03:30"), false);
        assert_eq!(
            calendar.plan(&zone(), after).to_string(),
            "2027-11-01T11:00:00.000000+02:00"
        );
        // A Friday after 16:00: the next Monday.
        let after = should_start_after(&zone(), at("2026-11-27T16:30"), false);
        assert_eq!(calendar.plan(&zone(), after), at("2026-11-30T11:00"));
    }
}
