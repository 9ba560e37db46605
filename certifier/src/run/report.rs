//! The results of a run: counts, the verdict, and the certificate, one module per form it
//! takes: the terminal's summary, Markdown and HTML.
pub mod findings;
mod html;
mod junit;
mod markdown;
mod terminal;

use std::{collections::BTreeMap, fmt::Write as _};

use crate::{
    exchange::client::Connection,
    exchange::pace::PaceRecord,
    exchange::timestamps,
    run::outcome::{Class, ScenarioOutcome, Verdict},
    target::ledger::Tally,
    target::made::SettleRecord,
    target::offered,
    target::{AskedWaits, ClockMode, ClockReading, ClockRecord},
};

/// Everything known about a finished run.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub target: String,
    /// How the target was reached: scheme, the certificate it presented and whether it was
    /// verified, the proxy.
    pub connection: Connection,
    /// When the run started, UTC, as written in the certificate.
    pub date: String,
    pub suite_version: &'static str,
    pub seed: u64,
    pub clock: ClockMode,
    /// The target's clock at the start and end of the run, and what the run did with it.
    pub target_clock: ClockRecord,
    /// Target clock minus local clock, e.g. "+0.4 s".
    pub skew: String,
    pub owner: String,
    pub other: String,
    pub tags: Option<String>,
    /// Which set of features ran, with its digest.
    pub features: String,
    /// Whether tenders carried the sandbox acceleration fields, and what the target made of them.
    pub acceleration: String,
    /// Where the run's documents came from (a document service, or unsigned addresses).
    pub documents: String,
    /// How many exchanges the run kept in flight, and how long the target took to answer.
    pub pace: PaceRecord,
    pub strict: bool,
    /// Every selected scenario must have been checked: a skipped one fails the run.
    pub fail_on_skip: bool,
    pub elapsed_seconds: f64,
    /// Reads the target asked the run to repeat later (`Retry-After`), and the time waited.
    pub asked_waits: AskedWaits,
    pub scenarios: Vec<ScenarioOutcome>,
    /// What every check applied to every exchange found: the run's ledger.
    pub violations: Vec<Tally>,
    /// What became of the records the run made.
    pub settled: SettleRecord,
    pub parsing_errors: Vec<String>,
}

/// Passed, failed and skipped scenarios.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl Counts {
    fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Skipped => self.skipped += 1,
        }
    }

    pub fn total(&self) -> usize {
        self.passed + self.failed + self.skipped
    }
}

impl RunReport {
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        self.scenarios.iter().for_each(|s| counts.add(s.verdict));
        counts
    }

    pub fn counts_of(&self, class: Class) -> Counts {
        let mut counts = Counts::default();
        self.scenarios
            .iter()
            .filter(|s| s.class == class)
            .for_each(|s| counts.add(s.verdict));
        counts
    }

    /// Certified: every selected `@spec` scenario passed (and, with `--strict`, every
    /// `@upstream` one), no exchange of any scenario broke a rule of the spec, the features
    /// parsed, and something ran at all; with `--fail-on-skip`, nothing was skipped.
    pub fn certified(&self) -> bool {
        let spec = self.counts_of(Class::Spec);
        let upstream = self.counts_of(Class::Upstream);
        self.parsing_errors.is_empty()
            && !self.scenarios.is_empty()
            && self.blocking_failures().next().is_none()
            && self
                .violations
                .iter()
                .all(|t| !t.check.mandatory() && !self.strict)
            && spec.skipped == 0
            && (!self.strict || upstream.skipped == 0)
            && (!self.fail_on_skip || self.counts().skipped == 0)
    }

    /// Failed scenarios that count against certification: every failure but an advisory
    /// `@upstream` scenario's own, since a rule of the spec broken by any exchange counts.
    pub fn blocking_failures(&self) -> impl Iterator<Item = &ScenarioOutcome> {
        self.scenarios.iter().filter(|s| {
            s.verdict == Verdict::Failed
                && (s.class != Class::Upstream || self.strict || !named_rules(s).is_empty())
        })
    }

    /// One sentence: certified or not, and why, pointing to the failures and skips that the
    /// certificate lists after it.
    pub fn verdict(&self) -> String {
        self.verdict_pointing("below")
    }

    /// The verdict, pointing to the failures and skips at `place` (above or below it).
    fn verdict_pointing(&self, place: &str) -> String {
        let blocking = self.blocking_failures().count();
        let broken = self.broken_rules().len();
        if self.certified() {
            "**Conforms**: every selected `@spec` scenario passed.".to_owned()
        } else if !self.parsing_errors.is_empty() {
            "**Not certified**: some features could not be read.".to_owned()
        } else if self.scenarios.is_empty() {
            "**Not certified**: no scenario was selected.".to_owned()
        } else if broken > 0 || blocking > 0 {
            format!(
                "**Does not conform**: {broken} rule(s) of the spec broken, {blocking} scenario(s) that count for certification failed; see the rules and failures {place}."
            )
        } else if self.counts_of(Class::Spec).skipped > 0 || self.strict {
            format!(
                "**Not certified**: nothing failed, but scenarios that count could not be checked within the time budget; see the skips {place}."
            )
        } else {
            format!(
                "**Not certified**: nothing failed, but with `--fail-on-skip` every selected scenario must be checked, and some were skipped; see the skips {place}."
            )
        }
    }

    /// Extensions the target does not offer at all (a 404 on their collection), each named
    /// once; their scenarios are skipped, not failed.
    pub fn not_offered(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .scenarios
            .iter()
            .filter_map(|s| s.skip_reason.as_deref().and_then(offered::extension))
            .map(str::to_owned)
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The scenarios that failed, in the order they ran.
    fn failures(&self) -> Vec<&ScenarioOutcome> {
        self.scenarios
            .iter()
            .filter(|s| s.verdict == Verdict::Failed)
            .collect()
    }

    /// The scenarios skipped for a reason of their own, not for an extension the target lacks.
    fn skips(&self) -> Vec<&ScenarioOutcome> {
        self.scenarios
            .iter()
            .filter(|s| s.verdict == Verdict::Skipped && !is_not_offered(s))
            .collect()
    }

    /// How time was made to pass, for the certificate.
    pub fn time_moved_by(&self) -> &'static str {
        match (self.clock, self.target_clock.kept) {
            (ClockMode::ControlApi, _) => "clock control API (`/testing/clock`)",
            (ClockMode::RealTime, true) if self.target_clock.test_clocks_refused.is_some() => {
                "real time (test clocks offered, none could be had, and the broker's own clock left alone): short periods, waiting on the target's clock as `GET /testing/clock` reads it"
            }
            (ClockMode::RealTime, true) => {
                "real time (`--keep-clock`): short periods, waiting on the target's clock as `GET /testing/clock` reads it"
            }
            (ClockMode::RealTime, false) => {
                "real time: short periods, waiting on the target's `Date` header"
            }
        }
    }

    /// What became of the target's clock: where it stood at the start and the end of the run,
    /// and whether the run moved it, for every tender on the target.
    pub fn target_clock_story(&self) -> String {
        let record = &self.target_clock;
        let reading = |r: &ClockReading| {
            format!(
                "{} ({})",
                timestamps::format(r.now),
                if r.frozen { "frozen" } else { "running" }
            )
        };
        let (Some(start), Some(end)) = (&record.start, &record.end) else {
            return "not moved: the target has no clock control API".to_owned();
        };
        let mut story = if record.kept {
            format!(
                "not moved ({}): {} at the start, {} at the end",
                if record.test_clocks_refused.is_some() {
                    "test clocks offered, none could be had; `--move-own-clock` would move it"
                } else {
                    "`--keep-clock`"
                },
                reading(start),
                reading(end)
            )
        } else if record.moves > 0 {
            match &record.own {
                Some(broker) => format!(
                    "broker {broker}'s own clock: the run moved it {}, from {} to {}, for {broker}'s tenders alone (the target's and other brokers' clocks were not moved)",
                    timestamps::describe_span(start.now, end.now),
                    reading(start),
                    reading(end)
                ),
                None => format!(
                    "the run moved it {}, from {} to {}, for every tender on the target",
                    timestamps::describe_span(start.now, end.now),
                    reading(start),
                    reading(end)
                ),
            }
        } else {
            format!(
                "not moved by the run: {} at the start, {} at the end",
                reading(start),
                reading(end)
            )
        };
        if record.still_stamps > 0 {
            let _ = write!(
                story,
                "; {} refreshed timestamp(s) equal to the one replaced were taken as refreshed, the clock standing still at that moment",
                record.still_stamps
            );
        }
        story
    }

    /// The test clocks the scenarios that move time ran on, as one phrase; `None` when the run
    /// used none (the target offers none). `ids` names the clocks left on the target.
    pub fn test_clocks_story(&self, ids: bool) -> Option<String> {
        if let Some(why) = &self.target_clock.test_clocks_refused {
            return Some(format!(
                "offered, but none could be had for the run: {why}; {}",
                if self.clock == ClockMode::ControlApi {
                    "the broker's own clock was moved instead (`--move-own-clock`)"
                } else {
                    "the broker's own clock was left alone (`--move-own-clock` would move it) and scenarios that move time waited in real time"
                }
            ));
        }
        let record = self.target_clock.test_clocks.as_ref()?;
        if record.made.is_empty() {
            return Some(format!(
                "offered, none made; they would have been named `{} N`",
                record.prefix
            ));
        }
        let mut story = format!(
            "{} made, named `{} 1` to `{} {}`, each serving one scenario that moves time (or fails requests on demand) at a time, beside the others (moved {} time(s) in all; the owner's own clock was not moved by them); ",
            record.made.len(),
            record.prefix,
            record.prefix,
            record.made.len(),
            record.moves
        );
        if record.left.is_empty() {
            story.push_str("all deleted at the end of the run");
            if !record.settled.is_empty() {
                let _ = write!(
                    story,
                    ", the deletions finishing first {} record(s) still live on them (asked with `settle=true`: a creation whose answer was lost left the run no token to finish it with)",
                    record.settled.len()
                );
                if ids {
                    let _ = write!(story, ": {}", record.settled.join(", "));
                }
            }
        } else {
            let _ = write!(
                story,
                "{} deleted at the end of the run, {} left on the target because a record on each is still live (a clock holding a live record cannot be deleted)",
                record.deleted,
                record.left.len(),
            );
            if ids {
                let left: Vec<String> = record.left.iter().map(|id| format!("`{id}`")).collect();
                let _ = write!(story, ": {}", left.join(", "));
            }
        }
        Some(story)
    }

    /// What became of the records the run made, as one phrase.
    pub fn records_story(&self) -> String {
        let s = &self.settled;
        let mut story = format!("{} tender(s) made", s.tenders);
        if s.interrupted {
            story.push_str(" before the run was interrupted");
        }
        if s.kept {
            story.push_str("; left as they were (`--keep-records`)");
            return story;
        }
        let _ = write!(
            story,
            "; at the end {} still live cancelled and {} contract(s) under management terminated, through the API with the run's tokens",
            s.cancelled, s.terminated
        );
        if s.rules > 0 {
            let _ = write!(
                story,
                "; {} of its {} fault rule(s) removed",
                s.rules_removed, s.rules
            );
        }
        if s.left.is_empty() {
            story.push_str("; nothing left live");
        } else {
            let _ = write!(
                story,
                "; {} left live: {}",
                s.left.len(),
                listed(s.left.iter().cloned())
            );
        }
        story
    }

    /// The run's pace, as one phrase.
    pub fn pace_story(&self) -> String {
        let p = &self.pace;
        let mut story = format!(
            "settled on {} exchange(s) in flight (started at {}, grew to {}, at least {}, at most {} allowed) over {} exchange(s)",
            p.settled, p.start, p.peak, p.least, p.most, p.exchanges
        );
        if p.timeouts > 0 {
            let _ = write!(
                story,
                "; {} exchange(s) timed out and slowed the pace (a read was then asked again, a write never)",
                p.timeouts
            );
        }
        story
    }

    /// The waits the target asked for, as one phrase.
    pub fn asked_waits_story(&self) -> String {
        match self.asked_waits.exchanges {
            0 => "none".to_owned(),
            n => format!(
                "{n} exchange(s) answered with `Retry-After` (a read's 429 or 503, a write's 429) asked again after {:.1} s of waiting in all (a write answered 503 is never repeated: it may have been carried out)",
                self.asked_waits.waited.as_secs_f64()
            ),
        }
    }

    /// `N passed, N failed, N skipped` over every scenario.
    pub fn summary_line(&self) -> String {
        let c = self.counts();
        format!(
            "{} passed, {} failed, {} skipped",
            c.passed, c.failed, c.skipped
        )
    }

    /// Per feature: `@spec` passed and failed, `@upstream` passed and failed, skipped.
    pub fn feature_counts(&self) -> BTreeMap<&str, [usize; 5]> {
        let mut features: BTreeMap<&str, [usize; 5]> = BTreeMap::new();
        for s in &self.scenarios {
            let row = features.entry(s.feature.as_str()).or_default();
            match (s.class, s.verdict) {
                (_, Verdict::Skipped) => row[4] += 1,
                (Class::Spec, Verdict::Passed) => row[0] += 1,
                (Class::Spec, Verdict::Failed) | (Class::Untagged, Verdict::Failed) => row[1] += 1,
                (Class::Upstream, Verdict::Passed) | (Class::Untagged, Verdict::Passed) => {
                    row[2] += 1
                }
                (Class::Upstream, Verdict::Failed) => row[3] += 1,
            }
        }
        features
    }
}

fn is_not_offered(s: &ScenarioOutcome) -> bool {
    s.skip_reason
        .as_deref()
        .and_then(offered::extension)
        .is_some()
}

/// `[class] feature: name`, as the certificates name a scenario.
fn scenario_title(s: &ScenarioOutcome) -> String {
    format!("[{}] {}: {}", class_tag(s.class), s.feature, s.name)
}

/// `features/file:line`, where a scenario is written.
fn place(s: &ScenarioOutcome) -> String {
    format!("features/{}:{}", s.file, s.line)
}

fn class_tag(class: Class) -> &'static str {
    match class {
        Class::Spec => "@spec",
        Class::Upstream => "@upstream",
        Class::Untagged => "untagged",
    }
}

/// The rules a failure names itself.
fn named_rules(s: &ScenarioOutcome) -> &[String] {
    s.failure.as_ref().map_or(&[], |f| f.rules.as_slice())
}

/// The rules a failed scenario is shown breaking: those its own assertion broke, or those its
/// exchanges broke (named by the checks applied to every exchange).
fn failure_rules(s: &ScenarioOutcome) -> Vec<String> {
    match findings::breaks(s) {
        own if !own.is_empty() => own,
        _ => named_rules(s).to_vec(),
    }
}

/// Places named in a certificate, ten at most, then how many more.
fn listed(items: impl Iterator<Item = String>) -> String {
    const SHOWN: usize = 10;
    let items: Vec<String> = items.collect();
    let mut text = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > SHOWN {
        let _ = write!(text, "; and {} more", items.len() - SHOWN);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::rules;
    use crate::exchange::Exchange;
    use crate::run::outcome::{CHECKS_STEP, Failure};
    use crate::target::clock_pool::TestClockRecord;
    use crate::target::ledger::{Example, ScenarioRef};

    fn outcome(class: Class, tags: &[&str], failure: Option<&str>) -> ScenarioOutcome {
        ScenarioOutcome {
            feature: "F".into(),
            file: "f.feature".into(),
            line: 1,
            name: "S".into(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            class,
            verdict: if failure.is_some() {
                Verdict::Failed
            } else {
                Verdict::Passed
            },
            failure: failure.map(|m| Failure {
                step: "Then x".into(),
                assertion: true,
                message: m.into(),
                exchange: None,
                rules: rules::named_in(m),
            }),
            skip_reason: None,
            rule: None,
            started: None,
            finished: None,
        }
    }

    /// What the checks applied to every exchange found: `check` broken by `exchanges`
    /// exchanges of the scenario at line 1.
    fn tally(check: &'static rules::Check, exchanges: usize) -> Tally {
        let scenario = ScenarioRef {
            file: "f.feature".into(),
            line: 1,
            feature: "F".into(),
            name: "S".into(),
        };
        Tally {
            check,
            exchanges,
            example: Example {
                message: ".data.date = \"2026-01-01T10:00:00+02:00\"".into(),
                exchange: Exchange::default(),
                read: None,
                scenario: scenario.clone(),
            },
            scenarios: vec![scenario],
        }
    }

    /// A run of `scenarios` on the built-in feature set, with nothing else of note.
    pub(super) fn report(scenarios: Vec<ScenarioOutcome>) -> RunReport {
        RunReport {
            target: "http://t".into(),
            connection: Connection::default(),
            date: String::new(),
            suite_version: "0",
            seed: 1,
            clock: ClockMode::ControlApi,
            target_clock: ClockRecord::default(),
            skew: String::new(),
            owner: "broker".into(),
            other: "broker1".into(),
            tags: None,
            features: "built-in set".into(),
            acceleration: "none asked for".into(),
            documents: "addresses of a store that does not exist".into(),
            pace: PaceRecord::default(),
            strict: false,
            fail_on_skip: false,
            elapsed_seconds: 0.0,
            asked_waits: AskedWaits::default(),
            scenarios,
            violations: Vec::new(),
            settled: SettleRecord::default(),
            parsing_errors: Vec::new(),
        }
    }

    #[test]
    fn a_global_check_failing_in_an_advisory_scenario_blocks_and_names_its_rule_alone() {
        let message = format!("{}: .data.date = \"x\"", rules::broken("conv-6"));
        let mut checked = outcome(Class::Upstream, &["upstream", "conv-10"], Some(&message));
        if let Some(f) = checked.failure.as_mut() {
            f.step = CHECKS_STEP.into();
            f.assertion = false;
        }
        let mut run = report(vec![
            outcome(Class::Spec, &["spec", "conv-5"], None),
            checked,
        ]);
        run.violations = vec![tally(&rules::CHECK_TIMESTAMPS, 3)];
        assert!(!run.certified());
        assert_eq!(run.broken_rules(), ["conv-6"]);
        let md = run.markdown();
        assert!(md.contains("Rule broken: `conv-6`"), "{md}");
        assert!(!md.contains("Rule broken: `conv-10`"), "{md}");
        assert!(md.contains("## Rules broken (1)"), "{md}");
        assert!(
            md.contains(&format!(
                "> The spec, {}",
                rules::by_tag("conv-6").unwrap().spec
            )),
            "{md}"
        );
        assert!(
            md.contains("Broken by 3 exchange(s) in 1 scenario(s)."),
            "{md}"
        );
        let terminal = run.terminal_summary();
        assert!(
            terminal.contains("  BROKEN  conv-6 (3 exchange(s) in 1 scenario(s))"),
            "{terminal}"
        );
        assert!(
            run.html()
                .contains("Broken by 3 exchange(s) in 1 scenario(s).")
        );
    }

    #[test]
    fn a_violation_alone_withholds_the_certificate() {
        let mut run = report(vec![outcome(Class::Spec, &["spec", "conv-5"], None)]);
        assert!(run.certified());
        run.violations = vec![tally(&rules::CHECK_AMOUNTS, 1)];
        assert!(!run.certified());
        assert!(
            run.verdict()
                .starts_with("**Does not conform**: 1 rule(s) of the spec broken"),
            "{}",
            run.verdict()
        );
    }

    #[test]
    fn an_assertion_breaks_its_rules_and_a_failed_setup_breaks_none() {
        let mut setup = outcome(
            Class::Spec,
            &["spec", "ep-q-list"],
            Some("creating a tender: expected 201, got 403"),
        );
        if let Some(f) = setup.failure.as_mut() {
            f.step = "Given the owner has published a tender".into();
            f.assertion = false;
        }
        let named = format!("{}: owner is \"\"", rules::broken("auth-1"));
        let run = report(vec![
            outcome(
                Class::Spec,
                &["spec", "res-date"],
                Some("date is not later"),
            ),
            outcome(Class::Spec, &["spec", "auth-1", "ep-create"], Some(&named)),
            setup,
        ]);
        assert_eq!(run.broken_rules(), ["auth-1", "res-date"]);
        let standing = |tag: &str| {
            run.findings()
                .into_iter()
                .find(|f| f.rule.tag == tag)
                .map(|f| f.standing)
        };
        assert_eq!(
            standing("ep-create"),
            Some(findings::Standing::NotFullyChecked)
        );
        assert_eq!(
            standing("ep-q-list"),
            Some(findings::Standing::NotFullyChecked)
        );
        assert!(!run.certified(), "a failed @spec scenario still counts");
    }

    #[test]
    fn an_advisory_scenario_failing_on_its_own_does_not_block() {
        let run = report(vec![
            outcome(Class::Spec, &["spec", "conv-5"], None),
            outcome(
                Class::Upstream,
                &["upstream"],
                Some("expected 403, got 404"),
            ),
        ]);
        assert!(run.certified());
    }

    #[test]
    fn with_fail_on_skip_an_advisory_skip_withholds_the_certificate() {
        let mut skipped = outcome(Class::Upstream, &["upstream"], None);
        skipped.verdict = Verdict::Skipped;
        skipped.skip_reason = Some("the auction: due in 50000 s".into());
        let mut run = report(vec![outcome(Class::Spec, &["spec"], None), skipped]);
        assert!(run.certified());
        run.fail_on_skip = true;
        assert!(!run.certified());
        assert!(
            run.verdict().contains("--fail-on-skip"),
            "{}",
            run.verdict()
        );
    }

    #[test]
    fn the_verdict_points_to_the_failures_where_they_are_printed() {
        let run = report(vec![outcome(
            Class::Spec,
            &["spec", "res-date"],
            Some("date is not later"),
        )]);
        let terminal = run.terminal_summary();
        let failure = terminal
            .find("FAILED  [@spec]")
            .expect("the failure is listed");
        let verdict = terminal
            .find("verdict: Does not conform")
            .expect("a verdict");
        assert!(failure < verdict, "{terminal}");
        assert!(
            terminal.contains("see the rules and failures above."),
            "{terminal}"
        );
        assert!(!terminal.contains("below"), "{terminal}");
        let md = run.markdown();
        let failure = md.find("### [@spec]").expect("the failure is listed");
        let verdict = md.find("**Does not conform**").expect("a verdict");
        assert!(verdict < failure, "{md}");
        assert!(md.contains("see the rules and failures below."), "{md}");
    }

    #[test]
    fn the_certificate_tells_what_the_run_did_to_the_target_clock() {
        let at = |text| crate::exchange::timestamps::parse(text).unwrap();
        let reading = |text, frozen| ClockReading {
            now: at(text),
            frozen,
        };
        let mut run = report(vec![outcome(Class::Spec, &["spec"], None)]);
        assert_eq!(
            run.target_clock_story(),
            "not moved: the target has no clock control API"
        );
        run.target_clock = ClockRecord {
            start: Some(reading("2026-11-27T16:30:00+02:00", true)),
            end: Some(reading("2026-11-27T16:30:00+02:00", true)),
            ..ClockRecord::default()
        };
        assert_eq!(
            run.target_clock_story(),
            "not moved by the run: 2026-11-27T16:30:00.000000+02:00 (frozen) at the start, \
             2026-11-27T16:30:00.000000+02:00 (frozen) at the end"
        );
        run.target_clock.end = Some(reading("2029-01-01T00:00:00+02:00", false));
        run.target_clock.moves = 3;
        run.target_clock.still_stamps = 2;
        let story = run.target_clock_story();
        assert!(
            story.starts_with(
                "the run moved it +2 years 34 days 7 h 30 min, from \
                 2026-11-27T16:30:00.000000+02:00 (frozen) to 2029-01-01T00:00:00.000000+02:00 \
                 (running), for every tender on the target; 2 refreshed timestamp(s)"
            ),
            "{story}"
        );
        assert!(
            run.markdown()
                .contains(&format!("| Target clock | {story} |"))
        );
        assert!(
            run.terminal_summary()
                .contains("  target clock: the run moved it +2 years")
        );
        run.target_clock.own = Some("broker".into());
        assert!(
            run.target_clock_story().starts_with(
                "broker broker's own clock: the run moved it +2 years 34 days 7 h 30 min, from \
                 2026-11-27T16:30:00.000000+02:00 (frozen) to 2029-01-01T00:00:00.000000+02:00 \
                 (running), for broker's tenders alone (the target's and other brokers' clocks \
                 were not moved)"
            ),
            "{}",
            run.target_clock_story()
        );
    }

    #[test]
    fn the_certificate_names_the_test_clocks_and_those_left_on_the_target() {
        let mut run = report(vec![]);
        assert_eq!(run.test_clocks_story(true), None);
        assert!(!run.markdown().contains("| Test clocks |"));
        run.target_clock.test_clocks = Some(TestClockRecord {
            prefix: "tender-certify 7".into(),
            made: vec!["a1".into(), "b2".into(), "c3".into()],
            moves: 12,
            deleted: 1,
            left: vec!["b2".into(), "c3".into()],
            settled: vec![],
        });
        let md = run.markdown();
        assert!(
            md.contains(
                "| Test clocks | 3 made, named `tender-certify 7 1` to `tender-certify 7 3`, each \
                 serving one scenario that moves time (or fails requests on demand) at a time, \
                 beside the others (moved 12 time(s) in all; the owner's own clock was not moved \
                 by them); 1 deleted at the end of the run, 2 left on the target because a record \
                 on each is still live (a clock holding a live record cannot be deleted): `b2`, \
                 `c3` |"
            ),
            "{md}"
        );
        assert!(run.html().contains("<th>Test clocks</th>"));
        let terminal = run.terminal_summary();
        assert!(
            terminal.contains("  test clocks: 3 made, named tender-certify 7 1")
                && terminal.contains("cannot be deleted)\n"),
            "{terminal}"
        );
    }

    #[test]
    fn the_certificate_names_what_the_deletions_of_the_test_clocks_settled() {
        let mut run = report(vec![]);
        run.target_clock.test_clocks = Some(TestClockRecord {
            prefix: "tender-certify 7".into(),
            made: vec!["a1".into()],
            moves: 2,
            deleted: 1,
            left: vec![],
            settled: vec!["tender t1".into(), "tender t2".into()],
        });
        assert!(
            run.markdown().contains(
                "all deleted at the end of the run, the deletions finishing first 2 record(s) \
                 still live on them (asked with `settle=true`: a creation whose answer was lost \
                 left the run no token to finish it with): tender t1, tender t2 |"
            ),
            "{}",
            run.markdown()
        );
        run.settled.tenders = 3;
        run.settled.cancelled = 2;
        run.settled.rules = 2;
        run.settled.rules_removed = 1;
        run.settled.left = vec!["fault rule r2: removing it answered 404: {}".into()];
        assert!(
            run.markdown().contains(
                "| Records the run made | 3 tender(s) made; at the end 2 still live cancelled and \
                 0 contract(s) under management terminated, through the API with the run's \
                 tokens; 1 of its 2 fault rule(s) removed; 1 left live: fault rule r2: removing \
                 it answered 404: {} |"
            ),
            "{}",
            run.markdown()
        );
    }

    #[test]
    fn the_rule_table_counts_scenarios_and_global_checks() {
        let run = report(vec![outcome(Class::Spec, &["spec", "ep-q-list"], None)]);
        let finding = |tag: &str| {
            run.findings()
                .into_iter()
                .find(|f| f.rule.tag == tag)
                .map(|f| (f.scenarios, f.checks, f.standing.label()))
        };
        assert_eq!(finding("ep-q-list"), Some((1, 0, "holds")));
        assert_eq!(finding("conv-7"), Some((0, 1, "holds")));
        assert_eq!(finding("ver-1"), Some((0, 0, "not covered")));
        let md = run.markdown();
        assert!(
            md.contains("| Rule | Scenarios | Global checks | Exchanges that broke it | Result |")
        );
        assert!(md.contains("| 0 | 0 | 0 | not covered |"), "{md}");
    }
}

/// The report of a run whose target lacks an extension.
#[cfg(test)]
mod not_offered_tests {
    use super::tests::report;
    use crate::run::outcome::{Class, ScenarioOutcome, Verdict};

    fn scenario(
        name: &str,
        tags: &[&str],
        verdict: Verdict,
        skip: Option<&str>,
    ) -> ScenarioOutcome {
        ScenarioOutcome {
            feature: "Tender cancellations".into(),
            file: "cancellations.feature".into(),
            line: 1,
            name: name.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            class: if tags.contains(&"spec") {
                Class::Spec
            } else {
                Class::Upstream
            },
            verdict,
            failure: None,
            skip_reason: skip.map(str::to_owned),
            rule: None,
            started: None,
            finished: None,
        }
    }

    #[test]
    fn an_extension_the_target_lacks_is_named_once_not_listed_as_skips() {
        let missing =
            "[not offered] cancellations: GET /api/2.3/tenders/x/cancellations answers 404";
        let run = report(vec![
            scenario(
                "Cancel one",
                &["upstream", "cancellations"],
                Verdict::Skipped,
                Some(missing),
            ),
            scenario(
                "Cancel two",
                &["upstream", "cancellations"],
                Verdict::Skipped,
                Some(missing),
            ),
            scenario(
                "Slow one",
                &["upstream", "clock"],
                Verdict::Skipped,
                Some("too slow"),
            ),
            scenario("Spec one", &["spec"], Verdict::Passed, None),
        ]);
        assert_eq!(run.not_offered(), vec!["cancellations".to_string()]);
        let md = run.markdown();
        assert!(md.contains("## Extensions not offered\n"), "{md}");
        assert!(md.contains("\n- cancellations\n"), "{md}");
        assert!(md.contains("## Skipped (1)"), "{md}");
        assert!(!md.contains("Cancel one"), "{md}");
        let terminal = run.terminal_summary();
        assert!(
            terminal.contains("not offered: cancellations"),
            "{terminal}"
        );
        assert!(
            terminal.contains("Slow one") && !terminal.contains("Cancel two"),
            "{terminal}"
        );
        assert!(run.certified(), "the spec verdict stands");
    }

    #[test]
    fn a_run_offering_everything_names_nothing() {
        let run = report(vec![scenario(
            "Fails",
            &["upstream"],
            Verdict::Failed,
            None,
        )]);
        assert!(run.not_offered().is_empty());
        assert!(!run.markdown().contains("not offered"));
    }
}
