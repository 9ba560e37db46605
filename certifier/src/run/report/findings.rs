//! What a run found of each rule of the spec, built from the checks that failed: the checks
//! applied to every exchange (the ledger's tallies) and the assertions of `@spec` scenarios,
//! never from the tags of a scenario that failed for another reason.
use super::RunReport;
use crate::{
    checks::rules::{self, Rule},
    run::outcome::{CHECKS_STEP, Class, ScenarioOutcome, Verdict},
    target::ledger::Tally,
};

/// Where a rule stands after the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// A check of it failed.
    Broken,
    /// Nothing of it failed, but a scenario covering it was skipped or stopped before its
    /// assertions.
    NotFullyChecked,
    Holds,
    /// No scenario and no check of the run covers it.
    NotCovered,
}

impl Standing {
    pub fn label(self) -> &'static str {
        match self {
            Standing::Broken => "**broken**",
            Standing::NotFullyChecked => "not fully checked",
            Standing::Holds => "holds",
            Standing::NotCovered => "not covered",
        }
    }
}

/// One rule of the spec as the run found it.
#[derive(Debug)]
pub struct Finding<'a> {
    pub rule: &'static Rule,
    /// `@spec` scenarios tagged with it.
    pub scenarios: usize,
    /// Checks applied to every exchange that guard it.
    pub checks: usize,
    /// What those checks found.
    pub tallies: Vec<&'a Tally>,
    /// Failed scenarios whose own assertion broke it.
    pub assertions: Vec<&'a ScenarioOutcome>,
    pub standing: Standing,
}

impl Finding<'_> {
    /// Exchanges that broke it, over all its checks.
    pub fn exchanges(&self) -> usize {
        self.tallies.iter().map(|t| t.exchanges).sum()
    }
}

impl RunReport {
    /// Every rule of the spec, in the catalogue's order, with what the run found of it.
    pub fn findings(&self) -> Vec<Finding<'_>> {
        rules::SPEC_RULES
            .iter()
            .map(|rule| self.finding(rule))
            .collect()
    }

    /// Upstream's behaviour beyond the spec that the checks applied to every exchange judge,
    /// with what they found (advisory unless `--strict`).
    pub fn upstream_findings(&self) -> Vec<Finding<'_>> {
        rules::UPSTREAM_RULES
            .iter()
            .map(|rule| self.finding(rule))
            .collect()
    }

    /// Upstream's rules the target was found not to follow, and how the certificate counts
    /// them (`--strict` written as `flag` writes it).
    pub fn upstream_broken(&self, flag: &str) -> (Vec<Finding<'_>>, String) {
        let broken = self
            .upstream_findings()
            .into_iter()
            .filter(|f| f.standing == Standing::Broken)
            .collect();
        let counted = match self.strict {
            true => format!("counted with {flag}"),
            false => "advisory: the spec does not state it".to_string(),
        };
        (broken, counted)
    }

    /// The rules the run found broken, in the catalogue's order.
    pub fn broken_rules(&self) -> Vec<&'static str> {
        self.findings()
            .into_iter()
            .filter(|f| f.standing == Standing::Broken)
            .map(|f| f.rule.tag)
            .collect()
    }

    fn finding(&self, rule: &'static Rule) -> Finding<'_> {
        let covering: Vec<&ScenarioOutcome> = self
            .scenarios
            .iter()
            .filter(|s| s.class == Class::Spec && s.tags.iter().any(|t| t == rule.tag))
            .collect();
        let tallies: Vec<&Tally> = self
            .violations
            .iter()
            .filter(|t| t.check.rule == rule.tag)
            .collect();
        let assertions: Vec<&ScenarioOutcome> = self
            .scenarios
            .iter()
            .filter(|s| breaks(s).iter().any(|t| t == rule.tag))
            .collect();
        let checks = rules::global_checks_of(rule.tag);
        let standing = if !tallies.is_empty() || !assertions.is_empty() {
            Standing::Broken
        } else if covering.is_empty() && (checks == 0 || self.scenarios.is_empty()) {
            Standing::NotCovered
        } else if covering.iter().any(|s| stopped_early(s)) {
            Standing::NotFullyChecked
        } else {
            Standing::Holds
        };
        Finding {
            rule,
            scenarios: covering.len(),
            checks,
            tallies,
            assertions,
            standing,
        }
    }
}

/// Whether a scenario ended before its assertions were all made: skipped, or failed by a step
/// (a scenario failed only by the checks applied to every exchange ran to its end).
fn stopped_early(s: &ScenarioOutcome) -> bool {
    match s.verdict {
        Verdict::Skipped => true,
        Verdict::Failed => s.failure.as_ref().is_none_or(|f| f.step != CHECKS_STEP),
        Verdict::Passed => false,
    }
}

/// The rules a failed scenario's own failure broke: those its message names; else, for the
/// assertion (`Then`) of an `@spec` scenario, the rules the scenario is tagged with. A scenario
/// stopped before its assertions (a `Given` or `When` that names no rule) broke none it can be
/// said to; a failure of the checks applied to every exchange is the ledger's.
pub fn breaks(s: &ScenarioOutcome) -> Vec<String> {
    let Some(failure) = s.failure.as_ref().filter(|_| s.verdict == Verdict::Failed) else {
        return Vec::new();
    };
    if failure.step == CHECKS_STEP {
        return Vec::new();
    }
    if !failure.rules.is_empty() {
        return failure.rules.clone();
    }
    if failure.assertion && s.class == Class::Spec {
        return s
            .tags
            .iter()
            .filter(|t| rules::by_tag(t).is_some())
            .cloned()
            .collect();
    }
    Vec::new()
}
