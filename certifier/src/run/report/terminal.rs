//! The summary a run prints on the terminal: per class, then every failure and skip in one line
//! each, and the verdict.
use std::fmt::Write as _;

use super::{
    RunReport, class_tag, failure_rules,
    findings::{Finding, Standing},
    is_not_offered,
};
use crate::run::outcome::{Class, Verdict};

impl RunReport {
    /// The terminal summary: per class, then every failure and skip in one line each.
    pub fn terminal_summary(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "certification of {} (seed {})", self.target, self.seed);
        let _ = writeln!(
            out,
            "  connection: {}",
            self.connection.describe().replace(['`', '*'], "")
        );
        let _ = writeln!(out, "  documents: {}", self.documents.replace('`', ""));
        let _ = writeln!(out, "  pace: {}", self.pace_story());
        let _ = writeln!(
            out,
            "  records: {}",
            crate::exchange::short(&self.records_story().replace('`', ""))
        );
        let _ = writeln!(
            out,
            "  target clock: {}",
            self.target_clock_story().replace('`', "")
        );
        if let Some(story) = self.test_clocks_story(false) {
            let _ = writeln!(out, "  test clocks: {}", story.replace('`', ""));
        }
        if self.asked_waits.exchanges > 0 {
            let _ = writeln!(
                out,
                "  waits asked for: {}",
                self.asked_waits_story().replace('`', "")
            );
        }
        for class in [Class::Spec, Class::Upstream, Class::Untagged] {
            let c = self.counts_of(class);
            if c.total() > 0 {
                let _ = writeln!(
                    out,
                    "  {:<22} {} passed, {} failed, {} skipped",
                    class.label(),
                    c.passed,
                    c.failed,
                    c.skipped
                );
            }
        }
        let not_offered = self.not_offered();
        if !not_offered.is_empty() {
            let _ = writeln!(out, "  not offered: {}", not_offered.join(", "));
        }
        let broken: Vec<(&str, Finding)> = self
            .findings()
            .into_iter()
            .map(|f| ("BROKEN ", f))
            .chain(self.upstream_findings().into_iter().map(|f| ("ADVISE ", f)))
            .filter(|(_, f)| f.standing == Standing::Broken)
            .collect();
        for (label, f) in &broken {
            let mut how = Vec::new();
            if !f.tallies.is_empty() {
                let scenarios: std::collections::BTreeSet<_> =
                    f.tallies.iter().flat_map(|t| &t.scenarios).collect();
                how.push(format!(
                    "{} exchange(s) in {} scenario(s)",
                    f.exchanges(),
                    scenarios.len()
                ));
            }
            if !f.assertions.is_empty() {
                how.push(format!("{} failed assertion(s)", f.assertions.len()));
            }
            let _ = writeln!(
                out,
                "  {label} {} ({}): {}",
                f.rule.tag,
                how.join(", "),
                f.rule.text
            );
            if let Some(t) = f.tallies.first() {
                let _ = writeln!(
                    out,
                    "          e.g. {} {} ({}:{}): {}",
                    t.example.exchange.request.method,
                    t.example.exchange.request.url,
                    t.example.scenario.file,
                    t.example.scenario.line,
                    crate::exchange::short(&t.example.message.replace('\n', " "))
                );
            }
        }
        for s in self
            .scenarios
            .iter()
            .filter(|s| s.verdict != Verdict::Passed && !is_not_offered(s))
        {
            let what = match s.verdict {
                Verdict::Failed => "FAILED ",
                _ => "SKIPPED",
            };
            let _ = writeln!(
                out,
                "  {what} [{}] {}:{} {}",
                class_tag(s.class),
                s.file,
                s.line,
                s.name
            );
            let rules = failure_rules(s);
            if !rules.is_empty() {
                let _ = writeln!(out, "          rules: {}", rules.join(", "));
            }
            let why = s
                .failure
                .as_ref()
                .map(|f| format!("{}: {}", f.step, f.message))
                .or_else(|| s.skip_reason.clone());
            if let Some(why) = why {
                let _ = writeln!(
                    out,
                    "          why: {}",
                    crate::exchange::short(&why.replace('\n', " "))
                );
            }
        }
        // Printed last, after the failures and skips.
        let _ = writeln!(
            out,
            "  verdict: {}",
            self.verdict_pointing("above").replace("**", "")
        );
        out
    }
}
