//! Faults on demand: rules that make matching requests of the versioned API (and of the live
//! auctions' pages and JSON) fail the way a real deployment can (a 5xx after or before the
//! write, a lost response, a slow answer), so a broker can try how its platform recovers. No
//! HTTP here: the API and the layer that applies the rules are in `api::faults`.
//!
//! A rule is consumed under one lock before its request runs, so concurrent requests never
//! share a hit; while no rule can hit, a request pays one atomic load, and the test clock a
//! request is on is looked up only while a rule for one test clock can hit.

mod chance;
pub mod rule;

pub use rule::{Call, Draft, Fault, Rule, in_scope};

use serde_json::Value as Json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// What a request was hit by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rule: String,
    pub fault: Fault,
}

/// The rules of one server, in the order they were set.
#[derive(Debug, Default)]
pub struct Faults {
    /// How many rules can still hit.
    live: AtomicUsize,
    /// How many of them hit only the requests on one test clock.
    live_on_clocks: AtomicUsize,
    rules: Mutex<Vec<Rule>>,
}

impl Faults {
    pub fn new() -> Faults {
        Faults::default()
    }

    /// Whether any rule can hit a request: the whole cost of the layer while there is none.
    pub fn any(&self) -> bool {
        self.live.load(Ordering::Acquire) > 0
    }

    /// Whether a rule for one test clock can hit a request, so that a request's clock is
    /// worth looking up.
    pub fn any_on_clocks(&self) -> bool {
        self.live_on_clocks.load(Ordering::Acquire) > 0
    }

    fn rules(&self) -> MutexGuard<'_, Vec<Rule>> {
        // A panic elsewhere cannot leave a rule half-changed: every change is one assignment.
        self.rules.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn recount(&self, rules: &[Rule]) {
        let live = || rules.iter().filter(|r| r.live());
        self.live_on_clocks
            .store(live().filter(|r| r.on_clock()).count(), Ordering::Release);
        self.live.store(live().count(), Ordering::Release);
    }

    pub fn add(&self, rule: Rule) -> Json {
        let mut rules = self.rules();
        let view = rule.view();
        rules.push(rule);
        self.recount(&rules);
        view
    }

    /// The rules `visible` lets the caller see.
    pub fn list(&self, visible: impl Fn(&Rule) -> bool) -> Vec<Json> {
        self.rules()
            .iter()
            .filter(|r| visible(r))
            .map(Rule::view)
            .collect()
    }

    pub fn get(&self, id: &str, visible: impl Fn(&Rule) -> bool) -> Option<Json> {
        self.rules()
            .iter()
            .find(|r| r.id == id && visible(r))
            .map(Rule::view)
    }

    /// Removes one rule; returns it as it was.
    pub fn remove(&self, id: &str, visible: impl Fn(&Rule) -> bool) -> Option<Json> {
        let mut rules = self.rules();
        let at = rules.iter().position(|r| r.id == id && visible(r))?;
        let removed = rules.remove(at);
        self.recount(&rules);
        Some(removed.view())
    }

    /// Removes every rule `visible` lets the caller see; returns them as they were.
    pub fn remove_all(&self, visible: impl Fn(&Rule) -> bool) -> Vec<Json> {
        let mut rules = self.rules();
        let (removed, kept): (Vec<Rule>, Vec<Rule>) = rules.drain(..).partition(|r| visible(r));
        *rules = kept;
        self.recount(&rules);
        removed.iter().map(Rule::view).collect()
    }

    /// The first rule that hits `call`, consumed at once.
    pub fn consume(&self, call: Call) -> Option<Hit> {
        let mut rules = self.rules();
        let at = rules.iter_mut().position(|r| r.try_hit(call))?;
        let rule = &rules[at];
        let hit = Hit {
            rule: rule.id.clone(),
            fault: rule.fault,
        };
        if !rule.live() {
            self.recount(&rules);
        }
        Some(hit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::input::Input;
    use crate::domain::parse::Cx;
    use crate::domain::time::Zone;
    use serde_json::json;
    use std::sync::Arc;

    fn rule(id: &str, data: Json) -> Rule {
        let cx = Cx {
            zone: Zone::named("Europe/Kyiv").expect("zone"),
            testing: true,
        };
        Rule::new(
            id.into(),
            Draft::parse(&Input::view(&data), &cx).expect("valid"),
            0,
        )
    }

    const POST: Call = Call {
        method: "POST",
        path: "/api/2.3/tenders",
        broker: Some("broker"),
        clock: None,
    };

    #[test]
    fn no_rule_no_hit_and_a_spent_rule_stops_counting() {
        let faults = Faults::new();
        assert!(!faults.any());
        assert_eq!(faults.consume(POST), None);
        faults.add(rule(
            "a",
            json!({"match": {"path": "/api/2.3/tenders"}, "fault": "error-before-commit"}),
        ));
        assert!(faults.any() && !faults.any_on_clocks());
        let hit = faults.consume(POST).expect("hit");
        assert_eq!(hit.rule, "a");
        assert!(!faults.any(), "the only rule is spent");
        assert_eq!(faults.consume(POST), None);
        assert_eq!(faults.list(|_| true)[0]["hits"], 1);
    }

    #[test]
    fn the_first_rule_that_hits_wins_and_removal_frees_the_next() {
        let faults = Faults::new();
        let data = json!({"match": {"path": "/api/2.3/tenders"}, "fault": "drop-after-commit", "times": 5});
        faults.add(rule("a", data.clone()));
        faults.add(rule("b", data));
        assert_eq!(faults.consume(POST).map(|h| h.rule).as_deref(), Some("a"));
        assert!(faults.remove("a", |_| true).is_some());
        assert_eq!(faults.consume(POST).map(|h| h.rule).as_deref(), Some("b"));
        assert_eq!(faults.remove_all(|r| r.id == "b").len(), 1);
        assert!(!faults.any());
    }

    #[test]
    fn a_clock_s_rule_is_counted_apart_until_spent() {
        let faults = Faults::new();
        faults.add(rule(
            "a",
            json!({"match": {"path": "/api/2.3/tenders", "clock": "c"}, "fault": "error-before-commit"}),
        ));
        assert!(faults.any() && faults.any_on_clocks());
        assert_eq!(faults.consume(POST), None, "a request on no clock");
        let on_it = Call {
            clock: Some("c"),
            ..POST
        };
        assert_eq!(faults.consume(on_it).map(|h| h.rule).as_deref(), Some("a"));
        assert!(!faults.any_on_clocks());
    }

    #[test]
    fn concurrent_requests_never_share_a_hit() {
        let faults = Arc::new(Faults::new());
        faults.add(rule(
            "a",
            json!({"match": {"path": "/api/2.3/tenders"}, "fault": "error-after-commit", "times": 3}),
        ));
        let threads: Vec<_> = (0..32)
            .map(|_| {
                let faults = faults.clone();
                std::thread::spawn(move || faults.consume(POST).is_some())
            })
            .collect();
        let hits = threads
            .into_iter()
            .map(|t| t.join().expect("thread"))
            .filter(|hit| *hit)
            .count();
        assert_eq!(hits, 3);
    }
}
