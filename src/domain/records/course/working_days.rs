//! The working-day calendar: weekends and Ukrainian public holidays are days off.
//!
//! Upstream counted award complaint periods in working days and planned auctions on working
//! days only; this calendar answers both questions for any date.

use crate::domain::values::time::{Timestamp, Zone};
use time::{Date, Duration, Month, Time, Weekday};

/// Public holidays that fall on the same date every year.
const FIXED_HOLIDAYS: [(Month, u8); 7] = [
    (Month::January, 1),
    (Month::March, 8),
    (Month::May, 1),
    (Month::June, 28),
    (Month::August, 24),
    (Month::October, 14),
    (Month::December, 25),
];

pub fn is_working_day(date: Date) -> bool {
    let weekend = matches!(date.weekday(), Weekday::Saturday | Weekday::Sunday);
    let holiday = FIXED_HOLIDAYS
        .iter()
        .any(|(m, d)| date.month() == *m && date.day() == *d);
    !weekend && !holiday
}

/// `start` plus `days` working days, as upstream counts them: from a day off, counting
/// starts at the next midnight; then each day off is skipped. With an accelerator the
/// plain duration is divided instead.
pub fn add_working_days(
    zone: &Zone,
    start: Timestamp,
    days: u32,
    accelerator: Option<u32>,
) -> Timestamp {
    if let Some(n) = accelerator {
        return zone.shift(start, Duration::days(i64::from(days)) / n.max(1));
    }
    let mut date = zone.date_of(start);
    let mut time = start.instant().time();
    if !is_working_day(date) {
        time = Time::MIDNIGHT;
        date = date.next_day().unwrap_or(date);
    }
    let mut left = days;
    while left > 0 {
        date = date.next_day().unwrap_or(date);
        if is_working_day(date) {
            left -= 1;
        }
    }
    zone.local(date, time)
}

/// The first working day on or after `date`.
pub fn next_working_day(mut date: Date) -> Date {
    while !is_working_day(date) {
        date = date.next_day().unwrap_or(date);
    }
    date
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
    fn two_working_days_skip_the_weekend() {
        // Thursday 2017-07-27 → Monday 2017-07-31.
        assert_eq!(
            add_working_days(&zone(), at("2017-07-27T15:00"), 2, None),
            at("2017-07-31T15:00")
        );
        // Tuesday → Thursday.
        assert_eq!(
            add_working_days(&zone(), at("2017-07-25T15:00"), 2, None),
            at("2017-07-27T15:00")
        );
    }

    #[test]
    fn from_a_day_off_counting_starts_at_the_next_midnight() {
        // Saturday 2017-07-29 → Sunday midnight, then Monday and Tuesday.
        assert_eq!(
            add_working_days(&zone(), at("2017-07-29T15:00"), 2, None),
            at("2017-08-01T00:00")
        );
    }

    #[test]
    fn holidays_are_days_off() {
        // Wednesday 2017-08-23; Thursday 24th is Independence Day.
        assert_eq!(
            add_working_days(&zone(), at("2017-08-23T10:00"), 2, None),
            at("2017-08-28T10:00")
        );
    }

    #[test]
    fn counting_across_the_year_end_and_the_daylight_saving_switches() {
        // Thursday 2026-12-31 → Friday 1 January is a holiday → Monday, Tuesday.
        assert_eq!(
            add_working_days(&zone(), at("2026-12-31T16:30"), 2, None),
            at("2027-01-05T16:30")
        );
        // Friday 2027-03-26 in winter time → Tuesday in summer time, the same local hour.
        assert_eq!(
            add_working_days(&zone(), at("2027-03-26T15:00"), 2, None).to_string(),
            "2027-03-30T15:00:00.000000+03:00"
        );
        // Friday 2027-10-29 in summer time → Tuesday in winter time.
        assert_eq!(
            add_working_days(&zone(), at("2027-10-29T15:00"), 2, None).to_string(),
            "2027-11-02T15:00:00.000000+02:00"
        );
        // Monday 2028-02-28 → Wednesday 1 March, over the leap day.
        assert_eq!(
            add_working_days(&zone(), at("2028-02-28T10:00"), 2, None),
            at("2028-03-01T10:00")
        );
    }

    #[test]
    fn accelerator_divides_plain_days() {
        assert_eq!(
            add_working_days(&zone(), at("2017-07-29T15:00"), 2, Some(1440)),
            at("2017-07-29T15:02")
        );
    }
}
