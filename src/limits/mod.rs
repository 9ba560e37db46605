//! What one broker may take of a shared server: a rate of requests ([`rate`]) and a bound on
//! each kind of record it keeps live (tenders not yet finished, test clocks not deleted, files
//! uploaded to the document service). The options as given, the limits a server runs with, and
//! the words of a refusal; the counting is done where each kind is kept (the store, the test
//! clocks, the file store), the refusing by the HTTP layer.
//!
//! On a public sandbox (`--sandbox`) every limit is on by default; anywhere else (`--testing`,
//! a server its runner owns, and the default mode) only the bound on test clocks is, as before,
//! and each other limit only when its option is given.

pub mod rate;

pub use rate::{Per, Rate};

/// A limit as an option gives it: a value, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit<T> {
    Off,
    At(T),
}

/// Requests a broker may send a second on a public sandbox by default: a whole certification
/// run in real time (`tender-certify --accelerator 86400 --keep-clock`), which polls as fast as
/// it is answered, peaks near 800 a second against a release build on two cores.
pub const RATE: u32 = 1000;
/// Live tenders a broker may keep on a public sandbox by default.
pub const LIVE_TENDERS: u64 = 5_000;
/// Live test clocks a broker may keep, on any server that offers them, by default.
pub const TEST_CLOCKS: u64 = 100;
/// Files a broker may keep on a public sandbox's document service by default: the service keeps
/// every file for good, and a certification run uploads about 130 small ones, so this leaves
/// room for some 750 runs.
pub const UPLOADS: u64 = 100_000;
/// Bytes of files a broker may keep on a public sandbox's document service by default.
pub const UPLOAD_BYTES: u64 = 512 * MIB;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;

/// The limit options of a server, as given (`None`: not given, the mode's default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `--rate`: requests a period per broker.
    pub rate: Option<Limit<(u32, Per)>>,
    /// `--burst`: requests a full bucket gives at once.
    pub burst: Option<u32>,
    /// `--live-tenders`: tenders not yet complete, cancelled or unsuccessful (drafts count).
    pub live_tenders: Option<Limit<u64>>,
    /// `--test-clocks`: test clocks not deleted.
    pub test_clocks: Option<Limit<u64>>,
    /// `--uploads`: files kept by the document service.
    pub uploads: Option<Limit<u64>>,
    /// `--upload-bytes`: bytes of those files.
    pub upload_bytes: Option<Limit<u64>>,
}

/// The limits a server runs with, per broker (`None`: no limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    pub rate: Option<Rate>,
    pub live_tenders: Option<u64>,
    pub test_clocks: Option<u64>,
    pub uploads: Option<u64>,
    pub upload_bytes: Option<u64>,
}

/// The burst that goes with a rate of `requests` a period when none is given: a period's
/// worth, `requests` at once from a full bucket.
pub fn default_burst(requests: u32) -> u32 {
    requests.max(1)
}

impl Options {
    /// The limits of a server: on a `public` sandbox every limit not given takes its default;
    /// elsewhere only the test clocks' does, and a rate is on once `--rate` or `--burst` is
    /// given.
    pub fn resolve(&self, public: bool) -> Limits {
        let bound = |given: Option<Limit<u64>>, default: u64, on: bool| match given {
            Some(Limit::Off) => None,
            Some(Limit::At(n)) => Some(n),
            None => on.then_some(default),
        };
        let rate = match self.rate {
            Some(Limit::Off) => None,
            Some(Limit::At(rate)) => Some(rate),
            None if public || self.burst.is_some() => Some((RATE, Per::Second)),
            None => None,
        };
        Limits {
            rate: rate.map(|(requests, per)| Rate {
                requests,
                per,
                burst: self.burst.unwrap_or_else(|| default_burst(requests)),
            }),
            live_tenders: bound(self.live_tenders, LIVE_TENDERS, public),
            test_clocks: bound(self.test_clocks, TEST_CLOCKS, true),
            uploads: bound(self.uploads, UPLOADS, public),
            upload_bytes: bound(self.upload_bytes, UPLOAD_BYTES, public),
        }
    }
}

/// A kind of record a broker keeps, each with a bound of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    LiveTenders,
    TestClocks,
    Uploads,
    UploadBytes,
}

impl Kind {
    /// `n` of this kind, in words: "5,000 live tenders", "512 MiB of uploaded files".
    pub fn amount(self, n: u64) -> String {
        let plural =
            |one: &str, many: &str| format!("{} {}", thousands(n), if n == 1 { one } else { many });
        match self {
            Kind::LiveTenders => plural("live tender", "live tenders"),
            Kind::TestClocks => plural("live test clock", "live test clocks"),
            Kind::Uploads => plural("uploaded file", "uploaded files"),
            Kind::UploadBytes => format!("{} of uploaded files", bytes(n)),
        }
    }

    /// What a broker at the bound does to make room.
    pub fn remedy(self) -> &'static str {
        match self {
            Kind::LiveTenders => {
                "cancel or finish some (a tender counts until it is complete, cancelled or \
                 unsuccessful; a draft counts too)"
            }
            Kind::TestClocks => {
                "delete one it no longer needs (a clock is deleted once its records are finished)"
            }
            Kind::Uploads | Kind::UploadBytes => {
                "the document service keeps every file for good, so give the addresses of files \
                 already uploaded again, or ask the server's operator for room"
            }
        }
    }
}

/// The description of a creation refused at a bound: `holder` ("Broker acme") holds `held`
/// of `kind` and may keep `most` on `place` ("this sandbox"); `adding` is what the refused
/// creation would have added, when it is more than one (a file's bytes).
pub fn refusal(holder: &str, kind: Kind, held: u64, most: u64, adding: u64, place: &str) -> String {
    let held_text = kind.amount(held);
    let most_text = match kind {
        Kind::UploadBytes => bytes(most),
        _ => thousands(most),
    };
    let bound = if adding > 1 && held < most {
        format!(", and this would take it past {most_text}, the most a broker keeps on {place}")
    } else if held <= most {
        format!(", the most a broker keeps on {place}")
    } else {
        format!(", more than the {most_text} a broker keeps on {place}")
    };
    format!("{holder} holds {held_text}{bound}: {}.", kind.remedy())
}

/// The limits in one line, each kind by its option's name: what the server says as it starts.
pub fn summary(limits: &Limits) -> String {
    let bound = |n: Option<u64>, text: &dyn Fn(u64) -> String| n.map_or("off".into(), text);
    format!(
        "rate {}, live tenders {}, test clocks {}, uploads {}, upload bytes {}",
        limits.rate.as_ref().map_or("off".into(), rate_text),
        bound(limits.live_tenders, &thousands),
        bound(limits.test_clocks, &thousands),
        bound(limits.uploads, &thousands),
        bound(limits.upload_bytes, &bytes),
    )
}

/// `n` with a comma between thousands: 5,000.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size in the largest binary unit it reaches: `512 MiB`, `1.5 GiB`, `300 bytes`.
pub fn bytes(n: u64) -> String {
    let (unit, name) = match n {
        n if n >= GIB => (GIB, "GiB"),
        n if n >= MIB => (MIB, "MiB"),
        n if n >= KIB => (KIB, "KiB"),
        _ => return format!("{n} {}", if n == 1 { "byte" } else { "bytes" }),
    };
    if n.is_multiple_of(unit) {
        format!("{} {name}", thousands(n / unit))
    } else {
        format!("{:.1} {name}", n as f64 / unit as f64)
    }
}

/// The requests of a rate, in words: "100 requests a second (burst 500)".
pub fn rate_text(rate: &Rate) -> String {
    let requests = if rate.requests == 1 {
        "request"
    } else {
        "requests"
    };
    format!(
        "{} {requests} {} (burst {})",
        thousands(u64::from(rate.requests)),
        rate.per.each(),
        thousands(u64::from(rate.burst))
    )
}

/// Reads `--rate`: `off`, or a number of requests a second, or `N/s`, `N/min`, `N/h`.
pub fn parse_rate(text: &str) -> Result<Limit<(u32, Per)>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(Limit::Off);
    }
    let (number, per) = match text.split_once('/') {
        None => (text, Per::Second),
        Some((number, unit)) => {
            let per = match unit.trim().to_ascii_lowercase().as_str() {
                "s" | "sec" | "second" => Per::Second,
                "m" | "min" | "minute" => Per::Minute,
                "h" | "hour" => Per::Hour,
                other => {
                    return Err(format!(
                        "{other:?} is no period: give N (a second), N/s, N/min or N/h"
                    ));
                }
            };
            (number, per)
        }
    };
    match number.trim().parse::<u32>() {
        Ok(0) => Err("a rate of 0 would refuse every request: give off for no rate".into()),
        Ok(n) => Ok(Limit::At((n, per))),
        Err(_) => Err(format!(
            "{text:?} is no rate: give requests a second (100), N/s, N/min, N/h, or off"
        )),
    }
}

/// Reads `--burst`: a number of requests, at least 1.
pub fn parse_burst(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err("a burst of 0 would refuse every request: give 1 or more".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{text:?} is no number of requests")),
    }
}

/// Reads a bound on a count: `off`, or a number (0: none may be kept).
pub fn parse_count(text: &str) -> Result<Limit<u64>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(Limit::Off);
    }
    text.replace(['_', ','], "")
        .parse::<u64>()
        .map(Limit::At)
        .map_err(|_| format!("{text:?} is no number: give a number, or off"))
}

/// Reads a bound on bytes: `off`, or a number of bytes, optionally in KiB, MiB or GiB.
pub fn parse_bytes(text: &str) -> Result<Limit<u64>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(Limit::Off);
    }
    let lower = text.to_ascii_lowercase();
    let (number, unit) = [
        ("gib", GIB),
        ("mib", MIB),
        ("kib", KIB),
        ("g", GIB),
        ("m", MIB),
        ("k", KIB),
    ]
    .iter()
    .find_map(|(suffix, unit)| lower.strip_suffix(suffix).map(|n| (n.to_string(), *unit)))
    .unwrap_or((lower.clone(), 1));
    number
        .trim()
        .replace(['_', ','], "")
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .map(Limit::At)
        .ok_or_else(|| {
            format!("{text:?} is no size: give bytes (1048576), or KiB, MiB, GiB (512MiB), or off")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_sandbox_has_every_limit_and_a_private_server_only_the_test_clocks() {
        let none = Options::default();
        let public = none.resolve(true);
        assert_eq!(
            public,
            Limits {
                rate: Some(Rate {
                    requests: RATE,
                    per: Per::Second,
                    burst: RATE
                }),
                live_tenders: Some(LIVE_TENDERS),
                test_clocks: Some(TEST_CLOCKS),
                uploads: Some(UPLOADS),
                upload_bytes: Some(UPLOAD_BYTES),
            }
        );
        assert_eq!(
            none.resolve(false),
            Limits {
                test_clocks: Some(100),
                ..Limits::default()
            }
        );
    }

    #[test]
    fn a_limit_given_counts_in_every_mode_and_off_turns_one_off() {
        let given = Options {
            rate: Some(Limit::At((2, Per::Hour))),
            live_tenders: Some(Limit::At(3)),
            test_clocks: Some(Limit::Off),
            upload_bytes: Some(Limit::Off),
            ..Options::default()
        };
        for public in [true, false] {
            let limits = given.resolve(public);
            assert_eq!(
                limits.rate,
                Some(Rate {
                    requests: 2,
                    per: Per::Hour,
                    burst: 2
                })
            );
            assert_eq!(limits.live_tenders, Some(3));
            assert_eq!((limits.test_clocks, limits.upload_bytes), (None, None));
        }
        let burst_alone = Options {
            burst: Some(7),
            ..Options::default()
        };
        assert_eq!(
            burst_alone.resolve(false).rate,
            Some(Rate {
                requests: RATE,
                per: Per::Second,
                burst: 7
            }),
            "a burst given turns the rate on"
        );
        let off = Options {
            rate: Some(Limit::Off),
            burst: Some(7),
            ..Options::default()
        };
        assert_eq!(off.resolve(true).rate, None);
    }

    #[test]
    fn options_read_as_written() {
        assert_eq!(parse_rate("100"), Ok(Limit::At((100, Per::Second))));
        assert_eq!(parse_rate("6000/min"), Ok(Limit::At((6000, Per::Minute))));
        assert_eq!(parse_rate("2 / h"), Ok(Limit::At((2, Per::Hour))));
        assert_eq!(parse_rate("OFF"), Ok(Limit::Off));
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("10/day").is_err());
        assert!(parse_rate("fast").is_err());
        assert_eq!(parse_burst("500"), Ok(500));
        assert!(parse_burst("0").is_err());
        assert_eq!(parse_count("5,000"), Ok(Limit::At(5000)));
        assert_eq!(parse_count("0"), Ok(Limit::At(0)));
        assert_eq!(parse_count("off"), Ok(Limit::Off));
        assert!(parse_count("-1").is_err());
        assert_eq!(parse_bytes("512MiB"), Ok(Limit::At(512 * MIB)));
        assert_eq!(parse_bytes("1 GiB"), Ok(Limit::At(GIB)));
        assert_eq!(parse_bytes("2k"), Ok(Limit::At(2048)));
        assert_eq!(parse_bytes("1048576"), Ok(Limit::At(MIB)));
        assert!(parse_bytes("99999999999999GiB").is_err());
        assert!(parse_bytes("lots").is_err());
    }

    #[test]
    fn a_refusal_names_the_holder_the_bound_and_what_to_do() {
        assert_eq!(
            refusal(
                "Broker acme",
                Kind::LiveTenders,
                5000,
                5000,
                1,
                "this sandbox"
            ),
            "Broker acme holds 5,000 live tenders, the most a broker keeps on this sandbox: \
             cancel or finish some (a tender counts until it is complete, cancelled or \
             unsuccessful; a draft counts too)."
        );
        assert_eq!(
            refusal("Broker acme", Kind::TestClocks, 120, 100, 1, "this server"),
            "Broker acme holds 120 live test clocks, more than the 100 a broker keeps on this \
             server: delete one it no longer needs (a clock is deleted once its records are \
             finished)."
        );
        let file = refusal(
            "Broker acme",
            Kind::UploadBytes,
            500 * MIB,
            512 * MIB,
            20 * MIB,
            "this sandbox",
        );
        assert!(
            file.starts_with(
                "Broker acme holds 500 MiB of uploaded files, and this would take it past \
                 512 MiB, the most a broker keeps on this sandbox: the document service keeps"
            ),
            "{file}"
        );
        assert_eq!(Kind::Uploads.amount(1), "1 uploaded file");
        assert_eq!(
            rate_text(&Rate {
                requests: 100,
                per: Per::Second,
                burst: 500
            }),
            "100 requests a second (burst 500)"
        );
        assert_eq!(
            rate_text(&Rate {
                requests: 1,
                per: Per::Hour,
                burst: 1
            }),
            "1 request an hour (burst 1)"
        );
    }

    #[test]
    fn sizes_and_counts_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(271_591), "271,591");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(bytes(300), "300 bytes");
        assert_eq!(bytes(512 * MIB), "512 MiB");
        assert_eq!(bytes(GIB + GIB / 2), "1.5 GiB");
        assert_eq!(bytes(2048 * GIB), "2,048 GiB");
    }
}
