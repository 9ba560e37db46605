//! Reading and writing the interface's ISO 8601 timestamps.
use std::sync::LazyLock;

use regex::Regex;
use time::{
    OffsetDateTime, PrimitiveDateTime, UtcOffset, format_description::well_known::Rfc3339,
    macros::format_description,
};

/// Convention 6: an output timestamp carries an offset (`±hh:mm`, as the examples show, or
/// ISO 8601's `Z` for a zero one) and six fractional digits.
static OUTPUT_FORM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(?:[+-]\d{2}:\d{2}|Z)$")
        .expect("valid regex")
});

/// Does `text` have the output form of convention 6?
pub fn has_output_form(text: &str) -> bool {
    OUTPUT_FORM.is_match(text)
}

/// Parses a timestamp that carries an offset (`Z` or `±hh:mm`).
pub fn parse(text: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(text, &Rfc3339).ok()
}

/// Writes an instant the way the harness sends it: microseconds and the offset it carries.
pub fn format(at: OffsetDateTime) -> String {
    at.format(format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6][offset_hour sign:mandatory]:[offset_minute]"
    ))
    .expect("formattable instant")
}

/// Writes the local date and time of an instant without any offset (input may omit it).
pub fn format_naive(at: OffsetDateTime) -> String {
    PrimitiveDateTime::new(at.date(), at.time())
        .format(format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second]"
        ))
        .expect("formattable instant")
}

/// The local date and time part of a timestamp, whatever offset follows it.
pub fn local_part(text: &str) -> &str {
    text.get(..19).unwrap_or(text)
}

/// Names of the fields that hold timestamps in this interface (`auctionPeriod`'s
/// `shouldStartAfter` is not one: the spec gives it no type).
pub fn is_timestamp_field(name: &str) -> bool {
    name == "date" || name == "next_check" || name.starts_with("date") || name.ends_with("Date")
}

/// How far `to` lies from `from`, as a person reads it: `+2 years 276 days 18 h 30 min`, or to a
/// tenth of a second under a minute (`+41.2 s`); a span back in time starts with `-`.
pub fn describe_span(from: OffsetDateTime, to: OffsetDateTime) -> String {
    let (sign, from, to) = if to < from {
        (
            "-",
            to.to_offset(UtcOffset::UTC),
            from.to_offset(UtcOffset::UTC),
        )
    } else {
        (
            "+",
            from.to_offset(UtcOffset::UTC),
            to.to_offset(UtcOffset::UTC),
        )
    };
    let span = to - from;
    if span < time::Duration::minutes(1) {
        return format!("{sign}{:.1} s", span.as_seconds_f64());
    }
    // Whole calendar years first (a 29 February counts from the 28th), then what is left.
    let shifted = |years: i32| {
        let year = from.year() + years;
        from.replace_year(year)
            .or_else(|_| from.replace_day(28).and_then(|d| d.replace_year(year)))
            .ok()
    };
    let mut years = to.year() - from.year();
    while years > 0 && shifted(years).is_none_or(|d| d > to) {
        years -= 1;
    }
    let rest = to - shifted(years).unwrap_or(from);
    let mut parts = Vec::new();
    match years {
        0 => {}
        1 => parts.push("1 year".to_owned()),
        n => parts.push(format!("{n} years")),
    }
    match rest.whole_days() {
        0 => {}
        1 => parts.push("1 day".to_owned()),
        n => parts.push(format!("{n} days")),
    }
    for (amount, unit) in [
        (rest.whole_hours() % 24, "h"),
        (rest.whole_minutes() % 60, "min"),
        (rest.whole_seconds() % 60, "s"),
    ] {
        if amount > 0 {
            parts.push(format!("{amount} {unit}"));
        }
    }
    format!("{sign}{}", parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_form_needs_offset_and_microseconds() {
        assert!(has_output_form("2026-11-21T10:27:24.123456+02:00"));
        assert!(!has_output_form("2026-11-21T10:27:24+02:00"));
        assert!(!has_output_form("2026-11-21T10:27:24.123456"));
        assert!(!has_output_form("2026-11-21T10:27:24.123Z"));
        assert!(has_output_form("2026-11-21T08:27:24.123456Z"));
    }

    #[test]
    fn a_span_reads_in_calendar_years_then_days_and_hours() {
        let start = "2026-11-27T16:30:00+02:00";
        let cases = [
            (
                start,
                "2029-08-31T12:00:00.003+03:00",
                "+2 years 276 days 18 h 30 min",
            ),
            (start, "2027-11-27T16:30:00+02:00", "+1 year"),
            (start, "2026-11-28T17:31:05+02:00", "+1 day 1 h 1 min 5 s"),
            (start, "2026-11-27T16:30:41.24+02:00", "+41.2 s"),
            (start, start, "+0.0 s"),
            ("2028-02-29T10:00:00Z", "2029-02-28T10:00:00Z", "+1 year"),
            ("2026-11-28T16:30:00+02:00", start, "-1 day"),
        ];
        for (from, to, expected) in cases {
            let span = describe_span(parse(from).unwrap(), parse(to).unwrap());
            assert_eq!(span, expected, "from {from} to {to}");
        }
    }

    #[test]
    fn format_round_trips() {
        let at = parse("2026-11-21T10:27:24.5+02:00").unwrap();
        assert_eq!(format(at), "2026-11-21T10:27:24.500000+02:00");
        assert_eq!(format_naive(at), "2026-11-21T10:27:24");
        assert_eq!(parse(&format(at)), Some(at));
    }
}
