//! The client's report as JUnit XML: one test case per rule, failed with its findings, so
//! that a broker's CI fails on its own mistakes.

use super::report::Judged;
use std::fmt::Write;

/// `text` escaped for XML text and attribute values.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c < ' ' && !matches!(c, '\n' | '\t' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// The test suite of `broker`'s report.
pub fn render(broker: &str, judged: &[Judged]) -> String {
    let failures = judged.iter().filter(|j| !j.findings.is_empty()).count();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let suite = escaped(&format!("client rules: {broker}"));
    let _ = writeln!(
        xml,
        "<testsuites name=\"{suite}\" tests=\"{}\" failures=\"{failures}\">",
        judged.len()
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">",
        judged.len()
    );
    for j in judged {
        let name = escaped(&format!("{}: {}", j.rule.spec, j.rule.title));
        let _ = write!(
            xml,
            "    <testcase classname=\"client-rules.{}\" name=\"{name}\"",
            j.rule.id
        );
        if j.findings.is_empty() {
            xml.push_str("/>\n");
            continue;
        }
        xml.push_str(">\n");
        let message = escaped(&format!(
            "{} finding(s): {}",
            j.findings.len(),
            j.findings[0].description
        ));
        let mut body = format!("{}\n\n", j.rule.words);
        for f in &j.findings {
            let _ = writeln!(body, "- {} ({})", f.description, f.requests.join(", "));
        }
        let _ = writeln!(
            xml,
            "      <failure message=\"{message}\" type=\"{}\">{}</failure>",
            j.rule.id,
            escaped(&body)
        );
        xml.push_str("    </testcase>\n");
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}
