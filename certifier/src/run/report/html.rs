//! The certificate as one self-contained HTML page: the same content as the Markdown one, with
//! the page's template and style compiled in and every text from a run escaped.
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

const TEMPLATE: &str = include_str!("template.html");
const STYLE: &str = include_str!("style.css");
const TITLE: &str = "Certification report: Tender Procurement Service Interface 2.3";

/// `text` safe inside an element or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A table, with a header row when `head` names columns; every cell is already HTML.
fn table(out: &mut String, head: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    out.push_str("<table>\n");
    if !head.is_empty() {
        out.push_str("<tr>");
        for h in head {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr>\n");
    }
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            out.push_str(&cell);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn cell(text: &str) -> String {
    format!("<td>{}</td>", escape(text))
}

fn number(n: usize) -> String {
    format!("<td class=\"n\">{n}</td>")
}

fn code(text: &str) -> String {
    format!("<code>{}</code>", escape(text))
}

/// A rule the run found broken, as the Markdown certificate shows it.
fn broken_rule(out: &mut String, f: &Finding, source: &str) {
    out.push_str("<section class=\"failure\">\n");
    let _ = writeln!(
        out,
        "<h3>{} {}</h3>\n<blockquote>{}, {}</blockquote>\n<ul>",
        code(f.rule.tag),
        escape(f.rule.text),
        escape(source),
        code_spans(&escape(f.rule.spec))
    );
    for t in &f.tallies {
        let _ = writeln!(
            out,
            "<li>Check: {}. Broken by {} exchange(s) in {} scenario(s).</li>\n<li>Example, in {} ({}: {}): {}</li>\n<li>Scenarios: {}</li>",
            escape(t.check.text),
            t.exchanges,
            t.scenarios.len(),
            code(&format!(
                "features/{}:{}",
                t.example.scenario.file, t.example.scenario.line
            )),
            escape(&t.example.scenario.feature),
            escape(&t.example.scenario.name),
            escape(&t.example.message),
            escape(&listed(
                t.scenarios
                    .iter()
                    .map(|s| format!("{}:{} {}", s.file, s.line, s.name))
            ))
        );
    }
    if !f.assertions.is_empty() {
        let _ = writeln!(
            out,
            "<li>Assertions that failed: {}</li>",
            escape(&listed(f.assertions.iter().map(|s| format!(
                "{} ({})",
                scenario_title(s),
                place(s)
            ))))
        );
    }
    out.push_str("</ul>\n");
    for t in &f.tallies {
        exchange(out, &t.example.exchange);
        if let Some(read) = &t.example.read {
            pre(out, "Read that showed it", &read.request.to_string());
            if let Some(r) = &read.response {
                pre(out, "Its response", &r.to_string());
            }
        }
    }
    out.push_str("</section>\n");
}

/// One exchange: the request, and the response or why none came.
fn exchange(out: &mut String, ex: &Exchange) {
    pre(out, "Request", &ex.request.to_string());
    match (&ex.response, &ex.transport_error) {
        (Some(r), _) => pre(out, "Response", &r.to_string()),
        (None, Some(e)) => {
            let _ = writeln!(out, "<p>No response: {}</p>", escape(e));
        }
        (None, None) => {}
    }
}

fn pre(out: &mut String, label: &str, text: &str) {
    let _ = writeln!(
        out,
        "<div class=\"label\">{}</div>\n<pre>{}</pre>",
        escape(label),
        escape(text)
    );
}

impl RunReport {
    /// The HTML certificate: one page, no external assets.
    pub fn html(&self) -> String {
        let mut body = String::new();
        let _ = writeln!(body, "<h1>{}</h1>", escape(TITLE));
        if let Some(warning) = self.connection.warning() {
            let _ = writeln!(
                body,
                "<p class=\"verdict fail\"><strong>Warning</strong>: {}</p>",
                bold(&warning)
            );
        }
        let _ = writeln!(
            body,
            "<p class=\"verdict {}\">{}</p>",
            if self.certified() { "pass" } else { "fail" },
            bold(&self.verdict())
        );
        self.html_run(&mut body);
        self.html_counts(&mut body);
        self.html_latencies(&mut body);
        self.html_rules(&mut body);
        self.html_failures(&mut body);
        self.html_skips(&mut body);
        TEMPLATE
            .replace("{{title}}", &escape(TITLE))
            .replace("{{style}}", STYLE)
            .replace("{{body}}", &body)
    }

    fn html_run(&self, out: &mut String) {
        let mut rows = vec![
            ("Target", code(&self.target)),
            ("Connection", bold(&self.connection.describe())),
            ("Date", escape(&self.date)),
            (
                "Suite version",
                escape(&format!("tender-certify {}", self.suite_version)),
            ),
            (
                "Seed",
                format!(
                    "{} (reproduce with {})",
                    self.seed,
                    code(&format!("--seed {}", self.seed))
                ),
            ),
            ("Features", code_spans(&escape(&self.features))),
            ("Time moved by", code_spans(&escape(self.time_moved_by()))),
            (
                "Target clock",
                code_spans(&escape(&self.target_clock_story())),
            ),
        ];
        // Beside the target's clock, as in the Markdown certificate.
        if let Some(story) = self.test_clocks_story(true) {
            rows.push(("Test clocks", code_spans(&escape(&story))));
        }
        rows.extend([
            ("Acceleration", code_spans(&escape(&self.acceleration))),
            ("Documents", code_spans(&escape(&self.documents))),
            ("Pace", escape(&self.pace_story())),
            (
                "Records the run made",
                code_spans(&escape(&self.records_story())),
            ),
            ("Server-versus-local clock skew", escape(&self.skew)),
            (
                "Brokers",
                format!(
                    "owner {}, other party {}",
                    code(&self.owner),
                    code(&self.other)
                ),
            ),
            (
                "Tag filter",
                self.tags.as_deref().map_or("none".to_owned(), code),
            ),
            (
                "Strict (@upstream counts)",
                (if self.strict { "yes" } else { "no" }).to_owned(),
            ),
            (
                "Waits the target asked for",
                escape(&self.asked_waits_story().replace('`', "")),
            ),
            ("Duration", format!("{:.1} s", self.elapsed_seconds)),
        ]);
        table(
            out,
            &[],
            rows.into_iter()
                .map(|(k, v)| vec![format!("<th>{}</th>", escape(k)), format!("<td>{v}</td>")]),
        );
    }

    fn html_counts(&self, out: &mut String) {
        out.push_str("<h2>Counts per class</h2>\n");
        let classes = [Class::Spec, Class::Upstream, Class::Untagged]
            .into_iter()
            .filter(|class| self.counts_of(*class).total() > 0 || *class != Class::Untagged)
            .map(|class| {
                let c = self.counts_of(class);
                vec![
                    cell(class.label()),
                    number(c.passed),
                    number(c.failed),
                    number(c.skipped),
                ]
            });
        table(out, &["Class", "Passed", "Failed", "Skipped"], classes);

        out.push_str("<h2>Counts per feature</h2>\n");
        let features = self.feature_counts().into_iter().map(|(feature, r)| {
            let mut row = vec![cell(feature)];
            row.extend(r.iter().map(|n| number(*n)));
            row
        });
        table(
            out,
            &[
                "Feature",
                "@spec passed",
                "@spec failed",
                "@upstream passed",
                "@upstream failed",
                "Skipped",
            ],
            features,
        );
    }

    fn html_latencies(&self, out: &mut String) {
        if self.pace.latencies.is_empty() {
            return;
        }
        out.push_str("<h2>How long the target took</h2>\n<p>Per operation, the most frequent first: every exchange of the run, from its request to the end of its answer.</p>\n");
        let rows = self
            .pace
            .latencies
            .iter()
            .take(super::markdown::LATENCY_ROWS)
            .map(|(op, n, p50, p95)| {
                vec![
                    format!("<td>{}</td>", code(op)),
                    number(*n),
                    cell(&super::markdown::ms(*p50)),
                    cell(&super::markdown::ms(*p95)),
                ]
            });
        table(out, &["Operation", "Exchanges", "p50", "p95"], rows);
    }

    fn html_rules(&self, out: &mut String) {
        out.push_str("<h2>Rules of the spec</h2>\n<p>A rule is covered by the <code>@spec</code> scenarios tagged with it and by the checks applied to every exchange of every scenario; it is broken when one of those checks, or the assertion of such a scenario, failed.</p>\n");
        let findings = self.findings();
        let rows = findings.iter().map(|f| {
            let class = match f.standing {
                Standing::Holds => "holds",
                Standing::Broken => "broken",
                Standing::NotFullyChecked => "partial",
                Standing::NotCovered => "uncovered",
            };
            vec![
                format!("<td>{} {}</td>", code(f.rule.tag), escape(f.rule.text)),
                number(f.scenarios),
                number(f.checks),
                number(f.exchanges()),
                format!(
                    "<td class=\"{class}\">{}</td>",
                    escape(&f.standing.label().replace("**", ""))
                ),
            ]
        });
        table(
            out,
            &[
                "Rule",
                "Scenarios",
                "Global checks",
                "Exchanges that broke it",
                "Result",
            ],
            rows,
        );
        let broken: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.standing == Standing::Broken)
            .collect();
        let _ = writeln!(out, "<h2>Rules broken ({})</h2>", broken.len());
        if broken.is_empty() {
            out.push_str("<p>None.</p>\n");
        }
        for f in broken {
            broken_rule(out, f, "The spec");
        }
        let (upstream, counted) = self.upstream_broken("--strict");
        if !upstream.is_empty() {
            let _ = writeln!(
                out,
                "<h2>Upstream's behaviour the target does not follow ({}, {})</h2>",
                upstream.len(),
                counted
            );
            for f in &upstream {
                broken_rule(out, f, "Why it is advisory");
            }
        }
        out.push_str("<h3>Checks applied to every exchange</h3>\n");
        let checks = rules::GLOBAL_CHECKS
            .iter()
            .map(|c| vec![format!("<td>{}</td>", code(c.rule)), cell(c.text)]);
        table(out, &["Rule", "Check"], checks);
        if !self.parsing_errors.is_empty() {
            out.push_str("<h2>Features that could not be read</h2>\n<ul>\n");
            for e in &self.parsing_errors {
                let _ = writeln!(out, "<li>{}</li>", escape(e));
            }
            out.push_str("</ul>\n");
        }
    }

    fn html_failures(&self, out: &mut String) {
        let failures = self.failures();
        let _ = writeln!(out, "<h2>Failures ({})</h2>", failures.len());
        if failures.is_empty() {
            out.push_str("<p>None.</p>\n");
        }
        for s in failures {
            out.push_str("<section class=\"failure\">\n");
            let _ = writeln!(
                out,
                "<h3>{}</h3>\n<ul>\n<li>Where: {}</li>",
                escape(&scenario_title(s)),
                code(&place(s))
            );
            for tag in failure_rules(s) {
                let text = rules::by_tag(&tag).map_or("", |r| r.text);
                let _ = writeln!(
                    out,
                    "<li>Rule broken: <span class=\"broken\">{}</span> {}</li>",
                    code(&tag),
                    escape(text)
                );
            }
            if let Some(f) = &s.failure {
                let _ = writeln!(out, "<li>Step: {}</li>", code(&f.step));
                let _ = writeln!(out, "<li>What went wrong: {}</li>", escape(&f.message));
                out.push_str("</ul>\n");
                match &f.exchange {
                    Some(ex) => exchange(out, ex),
                    None if f.step == CHECKS_STEP => {
                        out.push_str("<p>(each rule's example is under Rules broken)</p>\n")
                    }
                    None => out.push_str("<p>(no request had been sent yet)</p>\n"),
                }
            } else {
                out.push_str("</ul>\n");
            }
            out.push_str("</section>\n");
        }
    }

    fn html_skips(&self, out: &mut String) {
        let not_offered = self.not_offered();
        if !not_offered.is_empty() {
            out.push_str("<h2>Extensions not offered</h2>\n<p>The target answers 404 on the collections of these extensions beyond the spec; their scenarios were not run.</p>\n<ul>\n");
            for name in &not_offered {
                let _ = writeln!(out, "<li>{}</li>", escape(name));
            }
            out.push_str("</ul>\n");
        }
        let skipped = self.skips();
        let _ = writeln!(out, "<h2>Skipped ({})</h2>", skipped.len());
        if skipped.is_empty() {
            out.push_str("<p>None.</p>\n");
            return;
        }
        out.push_str("<ul>\n");
        for s in skipped {
            let reason = s.skip_reason.as_deref().unwrap_or("no reason recorded");
            let _ = writeln!(
                out,
                "<li>{} ({}): {}</li>",
                escape(&scenario_title(s)),
                code(&place(s)),
                escape(reason)
            );
        }
        out.push_str("</ul>\n");
    }
}

/// Markdown `**bold**` and `` `code` `` of a sentence written for the Markdown certificate,
/// as HTML.
fn bold(markdown: &str) -> String {
    code_spans(&spans(&escape(markdown), "**", "strong"))
}

/// `` `code` `` spans of already escaped text as `<code>`.
fn code_spans(escaped: &str) -> String {
    spans(escaped, "`", "code")
}

/// Already escaped text with every part between two `mark`s in the element `name`.
fn spans(escaped: &str, mark: &str, name: &str) -> String {
    let mut out = String::new();
    for (i, part) in escaped.split(mark).enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<{name}>{part}</{name}>");
        } else {
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_special_character_is_escaped() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_verdict_keeps_its_emphasis_and_code() {
        assert_eq!(
            bold("**Conforms**: every selected `@spec` <x>"),
            "<strong>Conforms</strong>: every selected <code>@spec</code> &lt;x&gt;"
        );
    }
}
