//! One fault rule: which requests it matches, what it does to them and how often, read from
//! client JSON with every problem collected, as any other body.

use super::chance::Chance;
use crate::domain::input::Input;
use crate::domain::parse::{Cx, FromJson, Obj, Problem, REQUIRED, one_of};
use serde_json::{Value as Json, json};

/// The versioned API and the live auctions' pages and JSON: the parts of the server faults
/// apply to.
pub const SCOPES: [&str; 2] = ["/api/2.3", "/auctions"];
/// The longest `delay` a rule may ask for.
pub const MAX_DELAY_MS: i64 = 60_000;
/// Seeds stay below 2^53 so that every JSON client reads them exactly.
const MAX_SEED: i64 = (1 << 53) - 1;
const DEFAULT_STATUS: u16 = 503;
const METHODS: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/// Whether a request path belongs to the versioned API or to an auction.
pub fn in_scope(path: &str) -> bool {
    SCOPES.iter().any(|scope| {
        path.strip_prefix(scope)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// The kinds of fault a rule may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ErrorAfterCommit,
    ErrorBeforeCommit,
    DropAfterCommit,
    Delay,
}

impl Kind {
    /// Every kind, in the order the API lists them.
    pub const ALL: [Kind; 4] = [
        Kind::ErrorAfterCommit,
        Kind::ErrorBeforeCommit,
        Kind::DropAfterCommit,
        Kind::Delay,
    ];

    /// The one table of the kinds: each one's name in the API and what it does to a request.
    pub const fn entry(self) -> (&'static str, &'static str) {
        match self {
            Kind::ErrorAfterCommit => (
                "error-after-commit",
                "carried out and stored in full, then answered with a 5xx",
            ),
            Kind::ErrorBeforeCommit => (
                "error-before-commit",
                "answered with a 5xx without being carried out",
            ),
            Kind::DropAfterCommit => (
                "drop-after-commit",
                "carried out, then the connection is closed without any answer",
            ),
            Kind::Delay => ("delay", "carried out and answered normally, after a pause"),
        }
    }

    pub const fn name(self) -> &'static str {
        self.entry().0
    }

    pub const fn description(self) -> &'static str {
        self.entry().1
    }

    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// Whether its answer is an error status of the rule's.
    pub const fn has_status(self) -> bool {
        match self {
            Kind::ErrorAfterCommit | Kind::ErrorBeforeCommit => true,
            Kind::DropAfterCommit | Kind::Delay => false,
        }
    }
}

/// What a rule does to a request it hits: a kind, with its status or its pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    ErrorAfterCommit { status: u16 },
    ErrorBeforeCommit { status: u16 },
    DropAfterCommit,
    Delay { ms: u64 },
}

impl Fault {
    pub fn kind(&self) -> Kind {
        match self {
            Fault::ErrorAfterCommit { .. } => Kind::ErrorAfterCommit,
            Fault::ErrorBeforeCommit { .. } => Kind::ErrorBeforeCommit,
            Fault::DropAfterCommit => Kind::DropAfterCommit,
            Fault::Delay { .. } => Kind::Delay,
        }
    }

    pub fn name(&self) -> &'static str {
        self.kind().name()
    }
}

/// A path under the versioned API or the auctions; a `*` segment stands for exactly one path
/// segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    segments: Vec<Option<String>>,
}

impl Pattern {
    pub fn parse(text: &str) -> Result<Pattern, Problem> {
        let bad = || {
            Problem::msg(
                "Should be a path under /api/2.3 or /auctions such as /api/2.3/tenders/*/bids, \
                 where * stands for one whole path segment.",
            )
        };
        if !in_scope(text) || text.contains(['?', '#']) || text.contains(char::is_whitespace) {
            return Err(bad());
        }
        let mut segments = Vec::new();
        for segment in text[1..].split('/') {
            match segment {
                "" => return Err(bad()),
                "*" => segments.push(None),
                literal if literal.contains('*') => return Err(bad()),
                literal => segments.push(Some(literal.to_string())),
            }
        }
        Ok(Pattern {
            text: text.to_string(),
            segments,
        })
    }

    pub fn matches(&self, path: &str) -> bool {
        let Some(rest) = path.strip_prefix('/') else {
            return false;
        };
        let mut parts = rest.split('/');
        for segment in &self.segments {
            match (segment, parts.next()) {
                (_, None | Some("")) => return false,
                (Some(literal), Some(part)) if literal != part => return false,
                _ => {}
            }
        }
        parts.next().is_none()
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// The requests a rule is for.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Any method when absent.
    pub method: Option<String>,
    pub path: Pattern,
    /// The broker (by name, as `owner` shows it) whose requests it hits; anyone's when absent.
    pub broker: Option<String>,
    /// The test clock whose requests it hits alone (a creation naming it, any request to a
    /// record living on it); requests on any clock when absent.
    pub clock: Option<String>,
}

impl FromJson for Match {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Match, Problem> {
        let mut o = Obj::new(v, cx, "Match")?;
        let method: Option<String> = o.opt("method");
        let path: Option<String> = o.req("path");
        let broker: Option<String> = o.opt("broker");
        let clock: Option<String> = o.opt("clock");
        let method = method.map(|m| m.to_ascii_uppercase());
        if method.as_deref().is_some_and(|m| !METHODS.contains(&m)) {
            o.fail("method", Problem::msg(one_of(&METHODS)));
        }
        let path = path.and_then(|p| match Pattern::parse(&p) {
            Ok(pattern) => Some(pattern),
            Err(problem) => {
                o.fail("path", problem);
                None
            }
        });
        o.done(|| {
            Some(Match {
                method,
                path: path?,
                broker,
                clock,
            })
        })
    }
}

/// A rule as the client asked for it, before the server decides whose requests it may hit.
#[derive(Debug, Clone)]
pub struct Draft {
    pub matcher: Match,
    pub fault: Fault,
    /// How many hits are left; no limit when absent (only with a probability).
    pub times: Option<u64>,
    pub probability: Option<f64>,
    pub seed: Option<u64>,
}

impl Draft {
    pub fn parse(data: &Input<'_>, cx: &Cx) -> Result<Draft, Problem> {
        let mut o = Obj::new(data, cx, "FaultRule")?;
        let matcher: Option<Match> = o.req("match");
        let name: Option<String> = o.req("fault");
        let status: Option<i64> = o.opt("status");
        let delay_ms: Option<i64> = o.opt("delay_ms");
        let times: Option<i64> = o.opt("times");
        let probability: Option<f64> = o.opt("probability");
        let seed: Option<i64> = o.opt("seed");

        let kind = name.as_deref().and_then(|n| {
            let known = Kind::named(n);
            if known.is_none() {
                o.fail("fault", Problem::msg(one_of(&Kind::ALL.map(Kind::name))));
            }
            known
        });
        let status = match status {
            Some(_) if kind.is_some_and(|kind| !kind.has_status()) => {
                o.fail(
                    "status",
                    Problem::msg("Only the error faults have a status."),
                );
                None
            }
            Some(s) if !(500..=599).contains(&s) => {
                o.fail(
                    "status",
                    Problem::msg("Should be a server error status, from 500 to 599."),
                );
                None
            }
            Some(s) => u16::try_from(s).ok(),
            None => Some(DEFAULT_STATUS),
        };
        let delay_ms = match (kind, delay_ms) {
            (Some(Kind::Delay), None) => {
                o.fail("delay_ms", Problem::msg(REQUIRED));
                None
            }
            (Some(Kind::Delay), Some(ms)) if !(0..=MAX_DELAY_MS).contains(&ms) => {
                o.fail(
                    "delay_ms",
                    Problem::msg(format!("Should be from 0 to {MAX_DELAY_MS} milliseconds.")),
                );
                None
            }
            (Some(kind), Some(_)) if kind != Kind::Delay => {
                o.fail(
                    "delay_ms",
                    Problem::msg("Only the delay fault has delay_ms."),
                );
                None
            }
            (_, ms) => ms.and_then(|ms| u64::try_from(ms).ok()),
        };
        if times.is_some_and(|t| t < 1) {
            o.fail("times", Problem::msg("Should be at least 1."));
        }
        if probability.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
            o.fail("probability", Problem::msg("Should be from 0 to 1."));
        }
        match seed {
            Some(_) if probability.is_none() && !o.failed("probability") => {
                o.fail(
                    "seed",
                    Problem::msg("Only a rule with a probability has a seed."),
                );
            }
            Some(s) if !(0..=MAX_SEED).contains(&s) => {
                o.fail(
                    "seed",
                    Problem::msg(format!("Should be a whole number from 0 to {MAX_SEED}.")),
                );
            }
            _ => {}
        }
        // One hit unless a probability decides, then as many as it gives unless limited.
        let times = match (times, probability) {
            (Some(t), _) => u64::try_from(t).ok(),
            (None, Some(_)) => None,
            (None, None) => Some(1),
        };
        o.done(|| {
            let fault = match kind? {
                Kind::ErrorAfterCommit => Fault::ErrorAfterCommit { status: status? },
                Kind::ErrorBeforeCommit => Fault::ErrorBeforeCommit { status: status? },
                Kind::DropAfterCommit => Fault::DropAfterCommit,
                Kind::Delay => Fault::Delay { ms: delay_ms? },
            };
            Some(Draft {
                matcher: matcher?,
                fault,
                times,
                probability,
                seed: seed.and_then(|s| u64::try_from(s).ok()),
            })
        })
    }
}

/// A stored rule and what it has done so far.
#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    /// The broker that set it (`None`: set without credentials).
    pub set_by: Option<String>,
    pub matcher: Match,
    pub fault: Fault,
    times: Option<u64>,
    chance: Option<Chance>,
    hits: u64,
}

/// The request a rule is tried on.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub broker: Option<&'a str>,
    /// The test clock it is on: the one a creation names, or the one of the record it is
    /// about (`None`: no test clock, or not looked up while no rule needs it).
    pub clock: Option<&'a str>,
}

impl Rule {
    /// `seed` is used when the draft gives a probability without one.
    pub fn new(id: String, draft: Draft, seed: u64) -> Rule {
        Rule {
            id,
            set_by: None,
            matcher: draft.matcher,
            fault: draft.fault,
            times: draft.times,
            chance: draft
                .probability
                .map(|p| Chance::new(p, draft.seed.unwrap_or(seed))),
            hits: 0,
        }
    }

    /// The same rule, set by `broker`.
    pub fn set_by(mut self, broker: Option<String>) -> Rule {
        self.set_by = broker;
        self
    }

    /// Whether it can still hit a request.
    pub fn live(&self) -> bool {
        self.times != Some(0)
    }

    /// Whether it hits only the requests on one test clock.
    pub fn on_clock(&self) -> bool {
        self.matcher.clock.is_some()
    }

    fn matches(&self, call: Call) -> bool {
        let m = &self.matcher;
        m.method
            .as_deref()
            .is_none_or(|method| method == call.method)
            && m.broker
                .as_deref()
                .is_none_or(|broker| Some(broker) == call.broker)
            && m.clock
                .as_deref()
                .is_none_or(|clock| Some(clock) == call.clock)
            && m.path.matches(call.path)
    }

    /// Hits the request when it matches, has hits left and its chance says so; a hit is
    /// counted and consumed at once.
    pub fn try_hit(&mut self, call: Call) -> bool {
        if !self.live() || !self.matches(call) {
            return false;
        }
        if let Some(chance) = &mut self.chance
            && !chance.draw()
        {
            return false;
        }
        if let Some(times) = &mut self.times {
            *times -= 1;
        }
        self.hits += 1;
        true
    }

    /// The rule as the API shows it.
    pub fn view(&self) -> Json {
        let mut matcher = json!({});
        if let Some(method) = &self.matcher.method {
            matcher["method"] = json!(method);
        }
        matcher["path"] = json!(self.matcher.path.as_str());
        if let Some(broker) = &self.matcher.broker {
            matcher["broker"] = json!(broker);
        }
        if let Some(clock) = &self.matcher.clock {
            matcher["clock"] = json!(clock);
        }
        let mut view = json!({"id": self.id, "match": matcher, "fault": self.fault.name()});
        match self.fault {
            Fault::ErrorAfterCommit { status } | Fault::ErrorBeforeCommit { status } => {
                view["status"] = json!(status);
            }
            Fault::Delay { ms } => view["delay_ms"] = json!(ms),
            Fault::DropAfterCommit => {}
        }
        if let Some(times) = self.times {
            view["times"] = json!(times);
        }
        if let Some(chance) = &self.chance {
            view["probability"] = json!(chance.probability());
            view["seed"] = json!(chance.seed());
        }
        view["hits"] = json!(self.hits);
        view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind is in the table once, and read back by its name.
    #[test]
    fn each_kind_is_listed_once_by_its_own_name() {
        for kind in Kind::ALL {
            // No wildcard: a new kind stops this compiling until it is named here and counted
            // below, so that `ALL` is checked to hold it.
            match kind {
                Kind::ErrorAfterCommit | Kind::ErrorBeforeCommit | Kind::DropAfterCommit => {}
                Kind::Delay => {}
            }
            assert_eq!(Kind::named(kind.name()), Some(kind));
            assert!(!kind.description().is_empty());
        }
        assert_eq!(Kind::ALL.len(), 4);
    }

    fn cx() -> Cx {
        Cx::kyiv(true)
    }

    fn problems(data: Json) -> Json {
        Draft::parse(&Input::view(&data), &cx())
            .map(|_| ())
            .unwrap_err()
            .flat()
    }

    #[test]
    fn a_star_stands_for_one_whole_segment() {
        let p = Pattern::parse("/api/2.3/tenders/*/bids").expect("valid");
        assert!(p.matches("/api/2.3/tenders/abc/bids"));
        for other in [
            "/api/2.3/tenders/bids",
            "/api/2.3/tenders//bids",
            "/api/2.3/tenders/abc/bids/def",
            "/api/2.3/tenders/abc/bids/",
            "/api/2.3/tenders/a/b/bids",
            "/api/2.3/tenders/abc/questions",
        ] {
            assert!(!p.matches(other), "{other}");
        }
        let exact = Pattern::parse("/api/2.3/tenders").expect("valid");
        assert!(exact.matches("/api/2.3/tenders"));
        assert!(!exact.matches("/api/2.3/tenders/abc"));
        assert!(!exact.matches("/api/2.3"));
    }

    #[test]
    fn bad_patterns_are_refused() {
        for bad in [
            "tenders/*",
            "/testing/clock",
            "/api/2.30/tenders",
            "/api/2.3/ten*ders",
            "/api/2.3//tenders",
            "/api/2.3/tenders/",
            "/api/2.3/tenders?x=1",
            "/api/2.3/ten ders",
            "",
        ] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
        assert!(Pattern::parse("/api/2.3").is_ok());
        assert!(Pattern::parse("/auctionsx/abc").is_err());
        let auction = Pattern::parse("/auctions/*/bids").expect("an auction's JSON");
        assert!(auction.matches("/auctions/abc_def/bids"));
        assert!(
            in_scope("/auctions/abc") && !in_scope("/auctionsx") && !in_scope("/testing/faults")
        );
    }

    #[test]
    fn defaults_one_hit_and_503() {
        let d = Draft::parse(
            &Input::view(
                &json!({"match": {"path": "/api/2.3/tenders"}, "fault": "error-after-commit"}),
            ),
            &cx(),
        )
        .expect("valid");
        assert_eq!(d.fault, Fault::ErrorAfterCommit { status: 503 });
        assert_eq!(d.times, Some(1));
        let d = Draft::parse(
            &Input::view(&json!({"match": {"path": "/api/2.3/tenders", "method": "post"}, "fault": "delay", "delay_ms": 60000, "probability": 0.5})),
            &cx(),
        )
        .expect("valid");
        assert_eq!(d.fault, Fault::Delay { ms: 60_000 });
        assert_eq!(d.matcher.method.as_deref(), Some("POST"));
        assert_eq!(d.times, None, "a probability alone has no limit");
    }

    #[test]
    fn every_problem_is_named_at_once() {
        assert_eq!(
            problems(json!({
                "match": {"path": "/api/2.3/x*", "method": "FETCH", "colour": 1},
                "fault": "explode", "times": 0, "probability": 1.5
            })),
            json!({
                "match.method": one_of(&METHODS),
                "match.path": "Should be a path under /api/2.3 or /auctions such as /api/2.3/tenders/*/bids, where * stands for one whole path segment.",
                "match.colour": "Rogue field",
                "fault": one_of(&Kind::ALL.map(Kind::name)),
                "times": "Should be at least 1.",
                "probability": "Should be from 0 to 1."
            })
        );
        assert_eq!(
            problems(json!({"fault": "delay", "delay_ms": 60001, "status": 500})),
            json!({
                "match": REQUIRED,
                "status": "Only the error faults have a status.",
                "delay_ms": "Should be from 0 to 60000 milliseconds."
            })
        );
        assert_eq!(
            problems(
                json!({"match": {"path": "/api/2.3"}, "fault": "error-before-commit", "status": 404, "delay_ms": 5, "seed": 3})
            ),
            json!({
                "status": "Should be a server error status, from 500 to 599.",
                "delay_ms": "Only the delay fault has delay_ms.",
                "seed": "Only a rule with a probability has a seed."
            })
        );
        assert_eq!(
            problems(json!({"match": {}, "fault": "delay"})),
            json!({"match.path": REQUIRED, "delay_ms": REQUIRED})
        );
    }

    #[test]
    fn a_hit_is_counted_and_consumed() {
        let draft = Draft::parse(
            &Input::view(&json!({"match": {"path": "/api/2.3/tenders", "method": "POST", "broker": "a"}, "fault": "drop-after-commit", "times": 2})),
            &cx(),
        )
        .expect("valid");
        let mut rule = Rule::new("r".into(), draft, 0);
        let call = |method, broker| Call {
            method,
            path: "/api/2.3/tenders",
            broker,
            clock: None,
        };
        assert!(!rule.try_hit(call("GET", Some("a"))));
        assert!(!rule.try_hit(call("POST", Some("b"))));
        assert!(!rule.try_hit(call("POST", None)));
        assert!(rule.try_hit(call("POST", Some("a"))));
        assert!(rule.try_hit(call("POST", Some("a"))));
        assert!(!rule.live());
        assert!(!rule.try_hit(call("POST", Some("a"))));
        assert_eq!(rule.view()["hits"], 2);
        assert_eq!(rule.view()["times"], 0);
    }

    #[test]
    fn a_clock_rule_hits_only_requests_on_its_clock() {
        let draft = Draft::parse(
            &Input::view(&json!({"match": {"path": "/api/2.3/tenders/*", "clock": "c1"}, "fault": "error-before-commit", "times": 5})),
            &cx(),
        )
        .expect("valid");
        let mut rule = Rule::new("r".into(), draft, 0).set_by(Some("a".into()));
        assert!(rule.on_clock());
        let call = |clock| Call {
            method: "GET",
            path: "/api/2.3/tenders/abc",
            broker: None,
            clock,
        };
        assert!(!rule.try_hit(call(None)));
        assert!(!rule.try_hit(call(Some("c2"))));
        assert!(
            rule.try_hit(call(Some("c1"))),
            "anyone's request on the clock"
        );
        assert_eq!(rule.view()["match"]["clock"], "c1");
        let mut anywhere = Rule::new(
            "s".into(),
            Draft::parse(
                &Input::view(&json!({"match": {"path": "/api/2.3/tenders/*"}, "fault": "error-before-commit", "times": 5})),
                &cx(),
            )
            .expect("valid"),
            0,
        );
        assert!(!anywhere.on_clock());
        assert!(anywhere.try_hit(call(None)) && anywhere.try_hit(call(Some("c1"))));
    }
}
