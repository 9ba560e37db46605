//! The embedded auction: when it starts, how long it runs, and how bids are ranked.
//!
//! There is no live bidding: at its planned end the auction settles on the bids' values,
//! ranked by upstream's normalised price, so a whole flow runs inside one server.

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
