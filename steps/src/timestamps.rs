//! Reading and writing the interface's ISO 8601 timestamps.
use std::sync::LazyLock;

use regex::Regex;
use time::{
    OffsetDateTime, PrimitiveDateTime, format_description::well_known::Rfc3339,
    macros::format_description,
};

/// Convention 6: an output timestamp carries an offset and six fractional digits.
static OUTPUT_FORM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$").expect("valid regex")
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

/// Names of the fields that hold timestamps in this interface.
pub fn is_timestamp_field(name: &str) -> bool {
    name == "date"
        || name == "next_check"
        || name.starts_with("date")
        || name.ends_with("Date")
        || name == "shouldStartAfter"
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
    }

    #[test]
    fn format_round_trips() {
        let at = parse("2026-11-21T10:27:24.5+02:00").unwrap();
        assert_eq!(format(at), "2026-11-21T10:27:24.500000+02:00");
        assert_eq!(format_naive(at), "2026-11-21T10:27:24");
        assert_eq!(parse(&format(at)), Some(at));
    }
}
