//! The run's ledger of violations: every check applied to every exchange records what it finds
//! here and lets its scenario go on, so that one run names every rule the target breaks, each
//! with how many exchanges broke it, one example and the scenarios it touched. The certificate's
//! table of rules is built from it.
use std::{
    collections::BTreeMap,
    sync::{Mutex, PoisonError},
};

use crate::{checks::rules::Check, checks::shape::Violation, exchange::Exchange};

/// Where a scenario is written and what it is called: the key the run's outcomes share.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScenarioRef {
    /// The feature file's name (`questions.feature`).
    pub file: String,
    pub line: usize,
    pub feature: String,
    pub name: String,
}

/// One exchange that broke a check, shown as the example of its check.
#[derive(Clone, Debug)]
pub struct Example {
    pub message: String,
    pub exchange: Exchange,
    /// The read that showed it, when that is not the exchange itself.
    pub read: Option<Exchange>,
    pub scenario: ScenarioRef,
}

/// What one check found over the run.
#[derive(Clone, Debug)]
pub struct Tally {
    pub check: &'static Check,
    /// Exchanges that broke it (an exchange counts once per check).
    pub exchanges: usize,
    /// The first exchange that broke it.
    pub example: Example,
    /// The scenarios whose exchanges broke it, in the order first seen.
    pub scenarios: Vec<ScenarioRef>,
}

/// Every violation of the run, by check.
#[derive(Debug, Default)]
pub struct Ledger {
    tallies: Mutex<BTreeMap<&'static str, Tally>>,
}

impl Ledger {
    /// Records what one exchange of `scenario` broke: each check it broke counts that exchange
    /// once, however many of its places broke it.
    pub fn record(&self, scenario: &ScenarioRef, exchange: &Exchange, found: &[Violation]) {
        if found.is_empty() {
            return;
        }
        let mut tallies = self.tallies.lock().unwrap_or_else(PoisonError::into_inner);
        let mut counted: Vec<&'static str> = Vec::new();
        for v in found {
            let key = v.check.text;
            if counted.contains(&key) {
                continue;
            }
            counted.push(key);
            let tally = tallies.entry(key).or_insert_with(|| Tally {
                check: v.check,
                exchanges: 0,
                example: Example {
                    message: v.message.clone(),
                    exchange: exchange.clone(),
                    read: v.read.clone(),
                    scenario: scenario.clone(),
                },
                scenarios: Vec::new(),
            });
            tally.exchanges += 1;
            if !tally.scenarios.contains(scenario) {
                tally.scenarios.push(scenario.clone());
            }
        }
    }

    /// What every check found, in the order of the checks' texts.
    pub fn tallies(&self) -> Vec<Tally> {
        self.tallies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::rules;

    fn scenario(line: usize) -> ScenarioRef {
        ScenarioRef {
            file: "f.feature".into(),
            line,
            feature: "F".into(),
            name: format!("S{line}"),
        }
    }

    #[test]
    fn an_exchange_counts_once_per_check_and_each_scenario_is_named_once() {
        let ledger = Ledger::default();
        let exchange = Exchange::default();
        let twice = [
            Violation::new(&rules::CHECK_TIMESTAMPS, ".data.date = \"x\""),
            Violation::new(&rules::CHECK_TIMESTAMPS, ".data.dateModified = \"y\""),
            Violation::new(&rules::CHECK_AMOUNTS, ".data.value.amount = 5"),
        ];
        ledger.record(&scenario(1), &exchange, &twice);
        ledger.record(&scenario(1), &exchange, &twice[..1]);
        ledger.record(&scenario(2), &exchange, &twice[..1]);
        let tallies = ledger.tallies();
        let timestamps = tallies
            .iter()
            .find(|t| t.check.rule == "conv-6")
            .expect("the timestamps tally");
        assert_eq!(timestamps.exchanges, 3);
        assert_eq!(timestamps.scenarios, [scenario(1), scenario(2)]);
        assert_eq!(timestamps.example.message, ".data.date = \"x\"");
        let amounts = tallies.iter().find(|t| t.check.rule == "conv-7");
        assert_eq!(amounts.map(|t| t.exchanges), Some(1));
    }
}
