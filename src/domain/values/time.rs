//! Timestamps as the service shows them: in the server's time zone, with offset and microseconds.
//!
//! Every timestamp the service stores has already been converted into the server zone, so
//! serialising one needs no context: `2017-07-25T17:36:55.659566+03:00`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use time::format_description::FormatItem;
use time::format_description::well_known::Rfc3339;
use time::macros::{datetime, format_description};
use time::{Date, Duration, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};
use time_tz::{OffsetDateTimeExt, PrimitiveDateTimeExt, Tz, timezones};

const DATE: &[FormatItem<'static>] = format_description!("[year]-[month]-[day]");
const DATE_TIME: &[FormatItem<'static>] = format_description!(
    "[year]-[month]-[day]T[hour]:[minute][optional [:[second][optional [.[subsecond]]]]]"
);

/// A moment, held in the server zone's offset for that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

/// The span of moments the server handles: a day inside each end of the calendar, so that the
/// local time of any of them is a date in every zone. Later or earlier input is refused.
pub const EARLIEST: OffsetDateTime = datetime!(-9999-01-02 00:00 UTC);
pub const LATEST: OffsetDateTime = datetime!(9999-12-30 00:00 UTC);

impl Timestamp {
    pub fn instant(&self) -> OffsetDateTime {
        self.0
    }

    /// The moment `d` later, keeping this offset (use [`Zone::shift`] to re-read the offset).
    pub fn plus(&self, d: Duration) -> Timestamp {
        Timestamp(self.0.saturating_add(d))
    }

    /// Microseconds since the Unix epoch: a compact, ordered key for indexes.
    pub fn micros(&self) -> i64 {
        (self.0.unix_timestamp_nanos() / 1_000) as i64
    }
}

/// The text of a timestamp of years 0 to 9999: `2017-07-25T17:36:55.659566+03:00`.
const TEXT_LEN: usize = 32;

impl Timestamp {
    /// The text written digit by digit into a buffer: every answer and stored record carries
    /// many timestamps, and the general formatter is several times slower. None for a year
    /// outside 0..=9999 (written by [`fmt::Display`] instead).
    fn text(&self) -> Option<[u8; TEXT_LEN]> {
        let t = self.0;
        let year = u32::try_from(t.year()).ok().filter(|y| *y <= 9999)?;
        let offset = t.offset().whole_minutes();
        let minutes = u32::from(offset.unsigned_abs());
        let mut out = *b"0000-00-00T00:00:00.000000+00:00";
        let mut put = |at: usize, width: usize, mut value: u32| {
            for i in (at..at + width).rev() {
                out[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, u32::from(u8::from(t.month())));
        put(8, 2, u32::from(t.day()));
        put(11, 2, u32::from(t.hour()));
        put(14, 2, u32::from(t.minute()));
        put(17, 2, u32::from(t.second()));
        put(20, 6, t.microsecond());
        put(27, 2, minutes / 60);
        put(30, 2, minutes % 60);
        if offset < 0 {
            out[26] = b'-';
        }
        Some(out)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(text) = self.text() {
            // Only ASCII digits and separators were written.
            return f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?);
        }
        write_general(self.0, f)
    }
}

/// The text of any moment, through the general formatter (the calendar's far years too).
fn write_general(t: OffsetDateTime, f: &mut impl fmt::Write) -> fmt::Result {
    let offset = t.offset().whole_minutes();
    let sign = if offset < 0 { '-' } else { '+' };
    let offset = offset.unsigned_abs();
    write!(
        f,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}{sign}{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.microsecond(),
        offset / 60,
        offset % 60
    )
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.text().as_ref().map(|t| std::str::from_utf8(t)) {
            Some(Ok(text)) => serializer.serialize_str(text),
            _ => serializer.collect_str(self),
        }
    }
}

/// Reads a stored timestamp back with the offset it was written in.
impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        OffsetDateTime::parse(&text, &Rfc3339)
            .map(Timestamp)
            .map_err(|e| serde::de::Error::custom(format!("timestamp {text:?}: {e}")))
    }
}

/// The server's time zone (default Europe/Kyiv), with its daylight-saving rules.
#[derive(Clone, Copy)]
pub struct Zone(&'static Tz);

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Zone")
    }
}

impl Zone {
    pub fn named(name: &str) -> Option<Zone> {
        timezones::get_by_name(name).map(Zone)
    }

    /// The moment `t`, truncated to microseconds and shown in this zone; a moment past either
    /// end of the calendar stops at [`EARLIEST`] or [`LATEST`].
    pub fn at(&self, t: OffsetDateTime) -> Timestamp {
        let t = t.clamp(EARLIEST, LATEST);
        let micros = t.unix_timestamp_nanos() / 1_000 * 1_000;
        let t = OffsetDateTime::from_unix_timestamp_nanos(micros).unwrap_or(t);
        Timestamp(t.to_timezone(self.0))
    }

    /// `t` moved by `d`, re-expressed in the zone (the offset may change across DST).
    pub fn shift(&self, t: Timestamp, d: Duration) -> Timestamp {
        self.at(t.0.saturating_add(d))
    }

    /// A local wall-clock time in this zone; in a DST gap the later offset is used, in an
    /// overlap the earlier moment.
    pub fn local(&self, date: Date, time: Time) -> Timestamp {
        self.at(self.local_moment(PrimitiveDateTime::new(date, time)))
    }

    fn local_moment(&self, local: PrimitiveDateTime) -> OffsetDateTime {
        local
            .assume_timezone(self.0)
            .take_first()
            .unwrap_or_else(|| local.assume_timezone_utc(self.0))
    }

    /// The local calendar date of a moment in this zone.
    pub fn date_of(&self, t: Timestamp) -> Date {
        self.at(t.0).0.date()
    }

    /// Reads ISO 8601 input: a date, or a date and time with optional seconds, fraction and
    /// offset. Input without an offset is local time in this zone.
    pub fn parse(&self, input: &str) -> Option<Timestamp> {
        let text = input.trim();
        let (body, offset) = split_offset(text)?;
        let body = body.replacen(' ', "T", 1);
        let local = if body.len() == 10 {
            Date::parse(&body, DATE).ok()?.midnight()
        } else {
            PrimitiveDateTime::parse(&body, DATE_TIME).ok()?
        };
        let moment = match offset {
            Some(offset) => local.assume_offset(offset),
            None => self.local_moment(local),
        };
        (EARLIEST..=LATEST)
            .contains(&moment)
            .then(|| self.at(moment))
    }
}

/// Splits a trailing `Z`, `±hh:mm`, `±hhmm` or `±hh` from a timestamp.
fn split_offset(text: &str) -> Option<(&str, Option<UtcOffset>)> {
    if let Some(body) = text.strip_suffix('Z').or_else(|| text.strip_suffix('z')) {
        return Some((body, Some(UtcOffset::UTC)));
    }
    // An offset sign can only appear after the time part ("T..."), never in the date.
    let Some(time_start) = text.find(['T', 't', ' ']).map(|i| i + 1) else {
        return Some((text, None));
    };
    let Some(sign_at) = text[time_start..].find(['+', '-']).map(|i| i + time_start) else {
        return Some((text, None));
    };
    let (body, offset) = text.split_at(sign_at);
    let sign: i8 = if offset.starts_with('-') { -1 } else { 1 };
    let digits: String = offset[1..].chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) || !(digits.len() == 2 || digits.len() == 4) {
        return None;
    }
    let hours: i8 = digits[..2].parse().ok()?;
    let minutes: i8 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    let offset = UtcOffset::from_hms(sign * hours, sign * minutes, 0).ok()?;
    Some((body, Some(offset)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn kyiv() -> Zone {
        Zone::named("Europe/Kyiv").expect("zone in the database")
    }

    #[test]
    fn a_timestamp_is_written_digit_by_digit_as_the_general_formatter_writes_it() {
        let general = |t: OffsetDateTime| {
            let mut text = String::new();
            write_general(t, &mut text).unwrap();
            text
        };
        let moments = [
            datetime!(2017-07-25 17:36:55.659566 +03:00),
            datetime!(0000-01-01 00:00 UTC),
            datetime!(9999-12-30 23:59:59.999999 +14:00),
            datetime!(2030-03-31 03:00:00.000001 -09:30),
            datetime!(1999-10-31 02:59:59 +05:45),
            datetime!(-0001-06-15 12:00 -01:00),
            EARLIEST,
            LATEST,
        ];
        for t in moments {
            let expected = general(t);
            assert_eq!(Timestamp(t).to_string(), expected);
            assert_eq!(
                serde_json::to_string(&Timestamp(t)).unwrap(),
                format!("\"{expected}\"")
            );
        }
        assert_eq!(
            Timestamp(datetime!(2030-03-31 03:00:00.000001 -09:30)).to_string(),
            "2030-03-31T03:00:00.000001-09:30"
        );
    }

    #[test]
    fn moments_past_the_calendar_are_refused_on_input_and_stop_at_its_end_when_computed() {
        let zone = kyiv();
        for text in ["9999-12-31T23:59:59Z", "9999-12-31T23:00", "9999-12-31"] {
            assert_eq!(zone.parse(text), None, "{text}");
        }
        assert!(zone.parse("9999-12-29T10:00:00+02:00").is_some());
        let late = zone.at(OffsetDateTime::new_utc(
            Date::from_calendar_date(9999, time::Month::December, 31).expect("a date"),
            Time::MIDNIGHT,
        ));
        assert_eq!(late.instant(), LATEST);
        let far = zone.shift(late, Duration::days(400));
        assert_eq!(far.instant(), LATEST);
        assert_eq!(zone.date_of(late.plus(Duration::days(3))).year(), 9999);
    }

    #[test]
    fn output_has_offset_and_six_fraction_digits() {
        let t = kyiv().at(datetime!(2017-07-25 14:36:55.659566 UTC));
        assert_eq!(t.to_string(), "2017-07-25T17:36:55.659566+03:00");
        let winter = kyiv().at(datetime!(2017-01-05 10:00 UTC));
        assert_eq!(winter.to_string(), "2017-01-05T12:00:00.000000+02:00");
    }

    #[test]
    fn negative_and_half_hour_offsets() {
        let z = Zone::named("America/St_Johns").expect("zone in the database");
        let t = z.at(datetime!(2017-01-05 10:00:00.000001 UTC));
        assert_eq!(t.to_string(), "2017-01-05T06:30:00.000001-03:30");
    }

    #[test]
    fn input_without_offset_is_local_time() {
        let z = kyiv();
        assert_eq!(
            z.parse("2017-07-25T17:36")
                .map(|t| t.to_string())
                .as_deref(),
            Some("2017-07-25T17:36:00.000000+03:00")
        );
        assert_eq!(
            z.parse("2017-12-25").map(|t| t.to_string()).as_deref(),
            Some("2017-12-25T00:00:00.000000+02:00")
        );
    }

    #[test]
    fn input_with_offset_is_converted_to_the_zone() {
        let z = kyiv();
        assert_eq!(
            z.parse("2017-07-25T14:36:00Z")
                .map(|t| t.to_string())
                .as_deref(),
            Some("2017-07-25T17:36:00.000000+03:00")
        );
        assert_eq!(
            z.parse("2017-07-25T17:36:00.5+0300")
                .map(|t| t.to_string())
                .as_deref(),
            Some("2017-07-25T17:36:00.500000+03:00")
        );
        assert_eq!(
            z.parse("2017-07-25T12:36:00-02:00")
                .map(|t| t.to_string())
                .as_deref(),
            Some("2017-07-25T17:36:00.000000+03:00")
        );
    }

    #[test]
    fn local_times_at_the_daylight_saving_switches() {
        let z = kyiv();
        let shown = |text: &str| z.parse(text).map(|t| t.to_string());
        // 2027-03-28: at 03:00 EET the clocks jump to 04:00 EEST; 03:30 does not exist and is
        // read with the later offset.
        assert_eq!(
            shown("2027-03-28T02:59:59").as_deref(),
            Some("2027-03-28T02:59:59.000000+02:00")
        );
        assert_eq!(
            shown("2027-03-28T03:30").as_deref(),
            Some("2027-03-28T02:30:00.000000+02:00")
        );
        assert_eq!(
            shown("2027-03-28T04:00").as_deref(),
            Some("2027-03-28T04:00:00.000000+03:00")
        );
        // 2027-10-31: 04:00 EEST becomes 03:00 EET; 03:30 happens twice, the earlier is taken.
        assert_eq!(
            shown("2027-10-31T03:30").as_deref(),
            Some("2027-10-31T03:30:00.000000+03:00")
        );
        assert_eq!(
            shown("2027-10-31T03:30+02:00").as_deref(),
            Some("2027-10-31T03:30:00.000000+02:00")
        );
        // An hour after the first 03:30 is the second one, shown with the winter offset.
        let first = z.parse("2027-10-31T03:30").expect("a moment");
        assert_eq!(
            z.shift(first, Duration::hours(1)).to_string(),
            "2027-10-31T03:30:00.000000+02:00"
        );
    }

    #[test]
    fn garbage_is_refused() {
        let z = kyiv();
        for bad in [
            "",
            "invalid_value",
            "2017-13-01",
            "2017-07-25T25:00",
            "2017-07-25T10:00+3:0",
            "12345",
        ] {
            assert!(z.parse(bad).is_none(), "{bad} should not parse");
        }
    }
}
