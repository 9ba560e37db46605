//! The rate of requests a broker may send: a token bucket per broker, and per client address
//! for requests without credentials (or with credentials that name no broker).
//!
//! Each bucket is kept as the generic cell rate algorithm keeps one: the moment at which the
//! bucket would be full again, in one atomic word. A request takes a token with one
//! compare-and-swap (no lock for a broker's bucket; a short one to find an address's), and one
//! refused learns how long until a token is free.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The period a rate counts its requests over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    Second,
    Minute,
    Hour,
}

impl Per {
    fn nanos(self) -> u64 {
        match self {
            Per::Second => 1_000_000_000,
            Per::Minute => 60_000_000_000,
            Per::Hour => 3_600_000_000_000,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Per::Second => "second",
            Per::Minute => "minute",
            Per::Hour => "hour",
        }
    }

    /// "a second", "a minute", "an hour".
    pub fn each(self) -> &'static str {
        match self {
            Per::Second => "a second",
            Per::Minute => "a minute",
            Per::Hour => "an hour",
        }
    }
}

/// At most `requests` a `per`, with `burst` taken at once from a full bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub requests: u32,
    pub per: Per,
    pub burst: u32,
}

impl Rate {
    /// Nanoseconds between two tokens.
    fn interval(&self) -> u64 {
        (self.per.nanos() / u64::from(self.requests.max(1))).max(1)
    }

    /// How far ahead of now a bucket's "full again" moment may stand and still give a
    /// token: the burst less the token being taken.
    fn tolerance(&self) -> u64 {
        self.interval()
            .saturating_mul(u64::from(self.burst.max(1) - 1))
    }
}

/// One bucket: the moment (nanoseconds after the limiter's start) at which it is full again.
#[derive(Debug, Default)]
struct Bucket(AtomicU64);

impl Bucket {
    /// Takes a token at `now`, or answers how long until one is free.
    fn take(&self, now: u64, interval: u64, tolerance: u64) -> Result<(), u64> {
        let mut full_at = self.0.load(Ordering::Relaxed);
        loop {
            let from = full_at.max(now);
            let ahead = from - now;
            if ahead > tolerance {
                return Err(ahead - tolerance);
            }
            let next = from.saturating_add(interval);
            match self
                .0
                .compare_exchange_weak(full_at, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(seen) => full_at = seen,
            }
        }
    }

    /// Whether the bucket is full at `now` (it remembers nothing a new one would not).
    fn full(&self, now: u64) -> bool {
        self.0.load(Ordering::Relaxed) <= now
    }
}

/// Who a request's tokens are taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller<'a> {
    /// A broker, by name (the `owner` it gets).
    Broker(&'a str),
    /// A request without a broker's credentials, by the address it came from (none for a
    /// socket without one).
    Address(Option<IpAddr>),
}

/// Addresses kept before those whose buckets are full again are let go.
const ADDRESSES_KEPT: usize = 4096;

/// Every bucket of a server.
pub struct Limiter {
    rate: Rate,
    interval: u64,
    tolerance: u64,
    started: Instant,
    /// One per known broker, made at start: the brokers never change while the server runs.
    brokers: HashMap<String, Bucket>,
    addresses: Mutex<Addresses>,
}

#[derive(Default)]
struct Addresses {
    buckets: HashMap<IpAddr, Bucket>,
    /// How many may be held before the full ones are let go.
    room: usize,
}

/// The address a bucket is kept for: an IPv6 client holds a whole /64, so its addresses share
/// one bucket; an IPv4 client its own address.
fn bucket_key(address: Option<IpAddr>) -> IpAddr {
    match address {
        Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
        Some(v4) => v4,
        None => IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
    }
}

impl Limiter {
    /// Buckets at `rate` for each of `brokers` (by name) and for any client address.
    pub fn new<'a>(rate: Rate, brokers: impl IntoIterator<Item = &'a str>) -> Limiter {
        Limiter {
            rate,
            interval: rate.interval(),
            tolerance: rate.tolerance(),
            started: Instant::now(),
            brokers: brokers
                .into_iter()
                .map(|b| (b.to_string(), Bucket::default()))
                .collect(),
            addresses: Mutex::new(Addresses {
                buckets: HashMap::new(),
                room: ADDRESSES_KEPT,
            }),
        }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Nanoseconds since the limiter started: the time its buckets are kept in.
    pub fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Takes a token from `caller`'s bucket at `now` ([`Limiter::now`]), or answers how long
    /// until one is free.
    pub fn take(&self, caller: Caller<'_>, now: u64) -> Result<(), Duration> {
        let (interval, tolerance) = (self.interval, self.tolerance);
        let taken = match caller {
            Caller::Broker(name) => match self.brokers.get(name) {
                Some(bucket) => bucket.take(now, interval, tolerance),
                None => return self.take(Caller::Address(None), now),
            },
            Caller::Address(address) => {
                let key = bucket_key(address);
                let mut addresses = self.addresses.lock().unwrap_or_else(|p| p.into_inner());
                if !addresses.buckets.contains_key(&key)
                    && addresses.buckets.len() >= addresses.room
                {
                    addresses.buckets.retain(|_, b| !b.full(now));
                    addresses.room = ADDRESSES_KEPT.max(addresses.buckets.len() * 2);
                }
                addresses
                    .buckets
                    .entry(key)
                    .or_default()
                    .take(now, interval, tolerance)
            }
        };
        taken.map_err(Duration::from_nanos)
    }
}

/// Whole seconds to wait for `wait`, as `Retry-After` gives them: rounded up, at least one.
pub fn retry_after_seconds(wait: Duration) -> u64 {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    secs.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000_000;

    fn limiter(requests: u32, per: Per, burst: u32) -> Limiter {
        let rate = Rate {
            requests,
            per,
            burst,
        };
        Limiter::new(rate, ["acme", "beta"])
    }

    #[test]
    fn a_full_bucket_gives_its_burst_at_once_then_a_token_an_interval() {
        let l = limiter(10, Per::Second, 3);
        let acme = Caller::Broker("acme");
        let now = 5 * SECOND;
        for _ in 0..3 {
            assert_eq!(l.take(acme, now), Ok(()));
        }
        assert_eq!(
            l.take(acme, now),
            Err(Duration::from_millis(100)),
            "the next token comes a tenth of a second later"
        );
        assert_eq!(
            l.take(acme, now + SECOND / 20),
            Err(Duration::from_millis(50))
        );
        assert_eq!(l.take(acme, now + SECOND / 10), Ok(()));
        assert!(l.take(acme, now + SECOND / 10).is_err());
        // A refused request takes nothing: three intervals on, the bucket holds its burst
        // again (3 tokens) however many were refused in between.
        for _ in 0..50 {
            assert!(l.take(acme, now + SECOND / 10).is_err());
        }
        let later = now + SECOND / 10 + 3 * SECOND / 10;
        for _ in 0..3 {
            assert_eq!(l.take(acme, later), Ok(()));
        }
        assert!(l.take(acme, later).is_err());
    }

    #[test]
    fn each_broker_and_each_address_has_a_bucket_of_its_own() {
        let l = limiter(1, Per::Hour, 2);
        let now = SECOND;
        let [a, b] = [Caller::Broker("acme"), Caller::Broker("beta")];
        assert!(l.take(a, now).is_ok() && l.take(a, now).is_ok());
        assert_eq!(l.take(a, now), Err(Duration::from_secs(3600)));
        assert!(l.take(b, now).is_ok(), "another broker is not held up");
        let here: IpAddr = "192.0.2.1".parse().unwrap();
        let there: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(l.take(Caller::Address(Some(here)), now).is_ok());
        assert!(l.take(Caller::Address(Some(here)), now).is_ok());
        assert!(l.take(Caller::Address(Some(here)), now).is_err());
        assert!(l.take(Caller::Address(Some(there)), now).is_ok());
        // A name the limiter does not know is an anonymous request of an unknown address.
        assert!(l.take(Caller::Broker("nobody"), now).is_ok());
        assert!(l.take(Caller::Address(None), now).is_ok());
        assert!(l.take(Caller::Broker("nobody"), now).is_err());
    }

    #[test]
    fn an_ipv6_client_s_addresses_share_its_bucket() {
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let two: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(bucket_key(Some(one)), bucket_key(Some(two)));
        assert_ne!(bucket_key(Some(one)), bucket_key(Some(other)));
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(
            bucket_key(Some(mapped)),
            "192.0.2.1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn addresses_whose_buckets_are_full_again_are_let_go() {
        let l = limiter(1, Per::Second, 1);
        for i in 0..ADDRESSES_KEPT as u32 {
            let address = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            assert!(l.take(Caller::Address(Some(address)), 0).is_ok());
        }
        let held = |l: &Limiter| l.addresses.lock().unwrap().buckets.len();
        assert_eq!(held(&l), ADDRESSES_KEPT);
        // Two seconds on every bucket is full again: a new address lets them go.
        let newcomer = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 9));
        assert!(l.take(Caller::Address(Some(newcomer)), 2 * SECOND).is_ok());
        assert_eq!(held(&l), 1);
    }

    #[test]
    fn the_wait_is_given_in_whole_seconds_rounded_up() {
        assert_eq!(retry_after_seconds(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_seconds(Duration::from_secs(1)), 1);
        assert_eq!(retry_after_seconds(Duration::from_millis(1001)), 2);
        assert_eq!(retry_after_seconds(Duration::ZERO), 1);
        assert_eq!(retry_after_seconds(Duration::from_secs(1800)), 1800);
    }

    #[test]
    fn huge_rates_and_bursts_neither_overflow_nor_refuse() {
        let l = limiter(u32::MAX, Per::Second, u32::MAX);
        for _ in 0..1000 {
            assert!(l.take(Caller::Broker("acme"), u64::MAX - 1).is_ok());
        }
        let slow = limiter(1, Per::Hour, u32::MAX);
        assert!(slow.take(Caller::Broker("acme"), 0).is_ok());
    }
}
