//! The certificate in Markdown: what was certified and how, the verdict, the rules, the features
//! and every failure with its exchange.
use std::fmt::Write as _;

use super::{
    RunReport, failure_rules,
    findings::{Finding, Standing},
    listed, place, scenario_title,
};
use crate::{
    checks::rules,
    exchange::Exchange,
    run::outcome::{CHECKS_STEP, Class},
};

/// A rule the run found broken: the words it rests on, what each of its checks found (how
/// many exchanges, one example with its read, the scenarios), the assertions that failed.
fn broken_rule(md: &mut String, f: &Finding, source: &str) {
    let _ = writeln!(md, "### `{}` {}\n", f.rule.tag, f.rule.text);
    let _ = writeln!(md, "> {source}, {}\n", f.rule.spec);
    for t in &f.tallies {
        let _ = writeln!(
            md,
            "- Check: {}. Broken by {} exchange(s) in {} scenario(s).",
            t.check.text,
            t.exchanges,
            t.scenarios.len()
        );
        let _ = writeln!(
            md,
            "- Example, in `features/{}:{}` ({}: {}): {}\n",
            t.example.scenario.file,
            t.example.scenario.line,
            t.example.scenario.feature,
            t.example.scenario.name,
            t.example.message.replace('\n', " ")
        );
        exchange(md, &t.example.exchange);
        if let Some(read) = &t.example.read {
            let _ = writeln!(md, "Read that showed it:\n");
            exchange(md, read);
        }
        let _ = writeln!(
            md,
            "- Scenarios: {}\n",
            listed(
                t.scenarios
                    .iter()
                    .map(|s| format!("`{}:{}` {}", s.file, s.line, s.name))
            )
        );
    }
    if !f.assertions.is_empty() {
        let _ = writeln!(
            md,
            "- Assertions that failed: {}\n",
            listed(
                f.assertions
                    .iter()
                    .map(|s| format!("{} (`{}`)", scenario_title(s), place(s)))
            )
        );
    }
}

/// The operations the certificate shows the times of.
pub(super) const LATENCY_ROWS: usize = 20;

/// A duration in milliseconds, as the certificate writes it.
pub(super) fn ms(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// One exchange: the request, and the response or why none came.
fn exchange(md: &mut String, ex: &Exchange) {
    let _ = writeln!(md, "Request:\n\n```http\n{}```\n", ex.request);
    match (&ex.response, &ex.transport_error) {
        (Some(r), _) => {
            let _ = writeln!(md, "Response:\n\n```http\n{r}```\n");
        }
        (None, Some(e)) => {
            let _ = writeln!(md, "No response: {e}\n");
        }
        (None, None) => {}
    }
}

impl RunReport {
    /// The Markdown certificate.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(
            md,
            "# Certification report: Tender Procurement Service Interface 2.3\n"
        );
        if let Some(warning) = self.connection.warning() {
            let _ = writeln!(md, "> **Warning**: {warning}\n");
        }
        let _ = writeln!(md, "{}\n", self.verdict());
        let _ = writeln!(md, "| | |\n|---|---|");
        let _ = writeln!(md, "| Target | `{}` |", self.target);
        let _ = writeln!(md, "| Connection | {} |", self.connection.describe());
        let _ = writeln!(md, "| Date | {} |", self.date);
        let _ = writeln!(
            md,
            "| Suite version | tender-certify {} |",
            self.suite_version
        );
        let _ = writeln!(
            md,
            "| Seed | {} (reproduce with `--seed {}`) |",
            self.seed, self.seed
        );
        let _ = writeln!(md, "| Features | {} |", self.features);
        let _ = writeln!(md, "| Time moved by | {} |", self.time_moved_by());
        let _ = writeln!(md, "| Target clock | {} |", self.target_clock_story());
        if let Some(story) = self.test_clocks_story(true) {
            let _ = writeln!(md, "| Test clocks | {story} |");
        }
        // The reason may quote the target's answer; a `|` in it would end the table cell.
        let _ = writeln!(
            md,
            "| Acceleration | {} |",
            self.acceleration.replace('|', "\\|")
        );
        let _ = writeln!(md, "| Documents | {} |", self.documents.replace('|', "\\|"));
        let _ = writeln!(md, "| Server-versus-local clock skew | {} |", self.skew);
        let _ = writeln!(
            md,
            "| Brokers | owner `{}`, other party `{}` |",
            self.owner, self.other
        );
        let _ = writeln!(
            md,
            "| Tag filter | {} |",
            self.tags
                .as_deref()
                .map_or("none".to_owned(), |t| format!("`{t}`"))
        );
        let _ = writeln!(
            md,
            "| Strict (`@upstream` counts) | {} |",
            if self.strict { "yes" } else { "no" }
        );
        let _ = writeln!(
            md,
            "| Waits the target asked for | {} |",
            self.asked_waits_story()
        );
        let _ = writeln!(md, "| Pace | {} |", self.pace_story());
        let _ = writeln!(
            md,
            "| Records the run made | {} |",
            self.records_story().replace('|', "\\|")
        );
        let _ = writeln!(md, "| Duration | {:.1} s |\n", self.elapsed_seconds);

        let _ = writeln!(md, "## Counts per class\n");
        let _ = writeln!(
            md,
            "| Class | Passed | Failed | Skipped |\n|---|---|---|---|"
        );
        for class in [Class::Spec, Class::Upstream, Class::Untagged] {
            let c = self.counts_of(class);
            if c.total() > 0 || class != Class::Untagged {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} |",
                    class.label(),
                    c.passed,
                    c.failed,
                    c.skipped
                );
            }
        }

        let _ = writeln!(md, "\n## Counts per feature\n");
        let _ = writeln!(
            md,
            "| Feature | `@spec` passed | `@spec` failed | `@upstream` passed | `@upstream` failed | Skipped |\n|---|---|---|---|---|---|"
        );
        for (feature, r) in &self.feature_counts() {
            let _ = writeln!(
                md,
                "| {feature} | {} | {} | {} | {} | {} |",
                r[0], r[1], r[2], r[3], r[4]
            );
        }

        if !self.pace.latencies.is_empty() {
            let _ = writeln!(md, "\n## How long the target took\n");
            let _ = writeln!(
                md,
                "Per operation, the most frequent first: every exchange of the run, from its request to the end of its answer.\n"
            );
            let _ = writeln!(
                md,
                "| Operation | Exchanges | p50 | p95 |\n|---|---|---|---|"
            );
            for (op, n, p50, p95) in self.pace.latencies.iter().take(LATENCY_ROWS) {
                let _ = writeln!(md, "| `{op}` | {n} | {} | {} |", ms(*p50), ms(*p95));
            }
        }

        let findings = self.findings();
        let _ = writeln!(md, "\n## Rules of the spec\n");
        let _ = writeln!(
            md,
            "A rule is covered by the `@spec` scenarios tagged with it and by the checks applied to every exchange of every scenario; it is broken when one of those checks, or the assertion of such a scenario, failed.\n"
        );
        let _ = writeln!(
            md,
            "| Rule | Scenarios | Global checks | Exchanges that broke it | Result |\n|---|---|---|---|---|"
        );
        for f in &findings {
            let _ = writeln!(
                md,
                "| `{}` {} | {} | {} | {} | {} |",
                f.rule.tag,
                f.rule.text,
                f.scenarios,
                f.checks,
                f.exchanges(),
                f.standing.label()
            );
        }
        let broken: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.standing == Standing::Broken)
            .collect();
        let _ = writeln!(md, "\n## Rules broken ({})\n", broken.len());
        if broken.is_empty() {
            let _ = writeln!(md, "None.");
        }
        for f in broken {
            broken_rule(&mut md, f, "The spec");
        }
        let (upstream, counted) = self.upstream_broken("`--strict`");
        if !upstream.is_empty() {
            let _ = writeln!(
                md,
                "\n## Upstream's behaviour the target does not follow ({}, {})\n",
                upstream.len(),
                counted
            );
            for f in &upstream {
                broken_rule(&mut md, f, "Why it is advisory");
            }
        }
        let _ = writeln!(md, "\n### Checks applied to every exchange\n");
        let _ = writeln!(md, "| Rule | Check |\n|---|---|");
        for check in rules::GLOBAL_CHECKS {
            let _ = writeln!(md, "| `{}` | {} |", check.rule, check.text);
        }

        if !self.parsing_errors.is_empty() {
            let _ = writeln!(md, "\n## Features that could not be read\n");
            for e in &self.parsing_errors {
                let _ = writeln!(md, "- {e}");
            }
        }

        let failures = self.failures();
        let _ = writeln!(md, "\n## Failures ({})\n", failures.len());
        if failures.is_empty() {
            let _ = writeln!(md, "None.");
        }
        for s in failures {
            let _ = writeln!(md, "### {}\n", scenario_title(s));
            let _ = writeln!(md, "- Where: `{}`", place(s));
            for tag in failure_rules(s) {
                let text = rules::by_tag(&tag).map_or("", |r| r.text);
                let _ = writeln!(md, "- Rule broken: `{tag}` {text}");
            }
            if let Some(f) = &s.failure {
                let _ = writeln!(md, "- Step: `{}`", f.step);
                let _ = writeln!(md, "- What went wrong: {}\n", f.message.replace('\n', " "));
                match &f.exchange {
                    Some(ex) => exchange(&mut md, ex),
                    None if f.step == CHECKS_STEP => {
                        let _ = writeln!(md, "(each rule's example is under Rules broken)\n");
                    }
                    None => {
                        let _ = writeln!(md, "(no request had been sent yet)\n");
                    }
                }
            }
        }

        let not_offered = self.not_offered();
        if !not_offered.is_empty() {
            let _ = writeln!(md, "## Extensions not offered\n");
            let _ = writeln!(
                md,
                "The target answers 404 on the collections of these extensions beyond the spec; their scenarios were not run.\n"
            );
            for name in &not_offered {
                let _ = writeln!(md, "- {name}");
            }
            let _ = writeln!(md);
        }
        let skipped = self.skips();
        let _ = writeln!(md, "## Skipped ({})\n", skipped.len());
        if skipped.is_empty() {
            let _ = writeln!(md, "None.");
        }
        for s in skipped {
            let reason = s.skip_reason.as_deref().unwrap_or("no reason recorded");
            let _ = writeln!(md, "- {} (`{}`): {reason}", scenario_title(s), place(s));
        }
        md
    }
}
