//! The features themselves: every rule of the spec is exercised by a `@spec` scenario, every
//! scenario is classed, every scenario that moves time runs alone, and rule tags are spelt right.
use std::collections::BTreeSet;

use cucumber::gherkin::{self, GherkinEnv};
use tender_certify::{
    rules::{SPEC_RULES, global_checks_of},
    settings::default_features_dir,
};

struct Scenario {
    name: String,
    tags: Vec<String>,
}

fn scenarios() -> Vec<Scenario> {
    let mut all = Vec::new();
    let dir = default_features_dir();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the features directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "feature"))
        .collect();
    paths.sort();
    for path in paths {
        let feature = gherkin::Feature::parse_path(&path, GherkinEnv::default())
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
        // A scenario under a `Rule:` carries the rule's tags too.
        let in_rules = feature
            .rules
            .iter()
            .flat_map(|r| r.scenarios.iter().map(move |s| (r.tags.as_slice(), s)));
        let empty: &[String] = &[];
        for (rule_tags, scenario) in feature.scenarios.iter().map(|s| (empty, s)).chain(in_rules) {
            let tags: Vec<String> = feature
                .tags
                .iter()
                .chain(rule_tags)
                .chain(&scenario.tags)
                .cloned()
                .collect();
            if scenario.examples.is_empty() {
                all.push(Scenario {
                    name: format!("{}: {}", feature.name, scenario.name),
                    tags: tags.clone(),
                });
            }
            // Each Examples block of an outline runs with its own tags added.
            for examples in &scenario.examples {
                all.push(Scenario {
                    name: format!(
                        "{}: {} ({})",
                        feature.name,
                        scenario.name,
                        examples.name.as_deref().unwrap_or("examples")
                    ),
                    tags: tags.iter().chain(&examples.tags).cloned().collect(),
                });
            }
        }
    }
    all
}

fn has(s: &Scenario, tag: &str) -> bool {
    s.tags.iter().any(|t| t == tag)
}

#[test]
fn there_are_at_least_eighty_scenarios() {
    assert!(scenarios().len() >= 80);
}

#[test]
fn every_scenario_is_either_spec_or_upstream() {
    for s in scenarios() {
        assert!(
            has(&s, "spec") != has(&s, "upstream"),
            "{} needs exactly one of @spec and @upstream",
            s.name
        );
    }
}

/// `@serial` alone (without `@clock`) marks a scenario that changes what the whole target does,
/// such as a fault rule on every creation of a broker; it runs alone too.
#[test]
fn every_scenario_that_moves_time_runs_alone() {
    for s in scenarios() {
        assert!(
            !has(&s, "clock") || has(&s, "serial"),
            "{}: a @clock scenario must be @serial",
            s.name
        );
    }
}

/// A rule is covered by a `@spec` scenario, or by a check applied to every exchange of every
/// scenario (a statement such as "a tender in active.auction shows an auctionPeriod" holds
/// wherever a scenario meets it, though the spec does not say how a tender gets there).
#[test]
fn every_rule_of_the_spec_has_a_spec_scenario_or_a_global_check() {
    let all = scenarios();
    let uncovered: Vec<&str> = SPEC_RULES
        .iter()
        .filter(|rule| {
            !all.iter().any(|s| has(s, "spec") && has(s, rule.tag))
                && global_checks_of(rule.tag) == 0
        })
        .map(|rule| rule.tag)
        .collect();
    assert!(
        uncovered.is_empty(),
        "rules without a @spec scenario or a global check: {uncovered:?}"
    );
}

#[test]
fn rule_tags_name_known_rules() {
    let known: BTreeSet<&str> = SPEC_RULES.iter().map(|r| r.tag).collect();
    let prefixes = [
        "conv-", "ep-", "state-", "phase-", "bid-", "award-", "res-", "auth-", "err-", "ver-",
    ];
    for s in scenarios() {
        for tag in &s.tags {
            if prefixes.iter().any(|p| tag.starts_with(p)) {
                assert!(
                    known.contains(tag.as_str()),
                    "{}: unknown rule tag @{tag}",
                    s.name
                );
            }
        }
    }
}
