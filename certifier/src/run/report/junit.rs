//! The run as JUnit XML, for a CI's test history: one suite per feature, named by its file
//! (`questions.feature`, never the folder the run read it from), one case per scenario named
//! by its rule and title (never its line, which an edit above it moves), each with its own
//! time, and a suite's time the span from its first scenario's start to its last one's end.
use std::{collections::BTreeMap, fmt::Write as _, time::SystemTime};

use super::{RunReport, html::escape};
use crate::run::outcome::{ScenarioOutcome, Verdict};

fn seconds(from: Option<SystemTime>, to: Option<SystemTime>) -> f64 {
    match (from, to) {
        (Some(from), Some(to)) => to.duration_since(from).map_or(0.0, |d| d.as_secs_f64()),
        _ => 0.0,
    }
}

/// A case's name: its rule and its title; a title repeated in the file gets its line too.
fn case_name(s: &ScenarioOutcome, repeated: bool) -> String {
    let mut name = match &s.rule {
        Some(rule) => format!("{rule}: {}", s.name),
        None => s.name.clone(),
    };
    if repeated {
        let _ = write!(name, " (line {})", s.line);
    }
    name
}

impl RunReport {
    /// The JUnit XML of the run.
    pub fn junit(&self) -> String {
        let mut files: BTreeMap<&str, Vec<&ScenarioOutcome>> = BTreeMap::new();
        for s in &self.scenarios {
            files.entry(s.file.as_str()).or_default().push(s);
        }
        let counts = self.counts();
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            xml,
            "<testsuites name=\"tender-certify\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
            counts.total(),
            counts.failed,
            counts.skipped,
            self.elapsed_seconds
        );
        for (file, mut scenarios) in files {
            scenarios.sort_by_key(|s| s.line);
            let failed = scenarios
                .iter()
                .filter(|s| s.verdict == Verdict::Failed)
                .count();
            let skipped = scenarios
                .iter()
                .filter(|s| s.verdict == Verdict::Skipped)
                .count();
            let first = scenarios.iter().filter_map(|s| s.started).min();
            let last = scenarios.iter().filter_map(|s| s.finished).max();
            let _ = writeln!(
                xml,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" skipped=\"{skipped}\" time=\"{:.3}\">",
                escape(file),
                scenarios.len(),
                seconds(first, last)
            );
            for s in &scenarios {
                let repeated = scenarios
                    .iter()
                    .filter(|o| o.name == s.name && o.rule == s.rule)
                    .count()
                    > 1;
                let _ = write!(
                    xml,
                    "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                    escape(file),
                    escape(&case_name(s, repeated)),
                    seconds(s.started, s.finished)
                );
                match s.verdict {
                    Verdict::Passed => xml.push_str("/>\n"),
                    Verdict::Skipped => {
                        let _ = writeln!(
                            xml,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            escape(s.skip_reason.as_deref().unwrap_or("skipped"))
                        );
                    }
                    Verdict::Failed => {
                        let (message, detail) = match &s.failure {
                            Some(f) => (
                                f.message.clone(),
                                format!(
                                    "{}\n{}{}",
                                    f.step,
                                    f.message,
                                    f.exchange
                                        .as_ref()
                                        .map(|e| format!("\n\n{}", e.request))
                                        .unwrap_or_default()
                                ),
                            ),
                            None => ("failed".to_owned(), String::new()),
                        };
                        let _ = writeln!(
                            xml,
                            ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                            escape(&crate::exchange::short(&message.replace('\n', " "))),
                            escape(&detail)
                        );
                    }
                }
            }
            xml.push_str("  </testsuite>\n");
        }
        xml.push_str("</testsuites>\n");
        xml
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use crate::run::{
        outcome::{Class, ScenarioOutcome, Verdict},
        report::tests::report,
    };

    fn scenario(file: &str, line: usize, name: &str, from: u64, to: u64) -> ScenarioOutcome {
        let at = |s| SystemTime::UNIX_EPOCH + Duration::from_secs(1_000 + s);
        ScenarioOutcome {
            feature: "F".into(),
            file: file.into(),
            line,
            rule: None,
            name: name.into(),
            tags: vec!["spec".into()],
            class: Class::Spec,
            verdict: Verdict::Passed,
            failure: None,
            skip_reason: None,
            started: Some(at(from)),
            finished: Some(at(to)),
        }
    }

    #[test]
    fn suites_are_named_by_their_file_and_timed_by_their_own_span() {
        let mut skipped = scenario("auction.feature", 9, "Waits", 1, 3);
        skipped.verdict = Verdict::Skipped;
        skipped.skip_reason = Some("beyond the <budget>".into());
        let run = report(vec![
            scenario("auction.feature", 3, "Bids & wins", 0, 2),
            skipped,
            scenario("questions.feature", 5, "Asks", 0, 1),
            scenario("questions.feature", 7, "Asks", 0, 1),
        ]);
        let xml = run.junit();
        assert!(
            xml.contains("<testsuite name=\"auction.feature\" tests=\"2\" failures=\"0\" skipped=\"1\" time=\"3.000\">"),
            "{xml}"
        );
        assert!(
            xml.contains(
                "<testcase classname=\"auction.feature\" name=\"Bids &amp; wins\" time=\"2.000\"/>"
            ),
            "{xml}"
        );
        assert!(
            xml.contains("<skipped message=\"beyond the &lt;budget&gt;\"/>"),
            "{xml}"
        );
        assert!(
            xml.contains("name=\"Asks (line 5)\"") && xml.contains("name=\"Asks (line 7)\""),
            "{xml}"
        );
        assert!(!xml.contains("tmp/"), "{xml}");
    }
}
