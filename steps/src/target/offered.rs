//! Extensions beyond the spec (`@qualification`, `@cancellations`, …) that a target may not
//! offer at all. A 404 on an extension's collection ends the scenario as "not offered" rather
//! than as a failure, and the report names the extension once instead of listing failures.
use reqwest::Method;

use crate::world::{Actor, Payload, TenderWorld};

/// A step failure with this prefix means "the target does not offer this extension": the run
/// reports the scenario as skipped, and the report lists the extension as not offered.
pub const NOT_OFFERED: &str = "[not offered] ";

/// After a request under an extension's `collection` answered 404: fails the step as "not
/// offered" when the collection itself is unknown to the target, and lets it stand otherwise.
pub async fn check(w: &mut TenderWorld, extension: &str, collection: &str) -> Result<(), String> {
    if w.status()? != 404 {
        return Ok(());
    }
    let last = w.last.clone();
    let body = w.body.clone();
    w.send(Actor::Anonymous, Method::GET, collection, Payload::None)
        .await?;
    let missing = w.status()? == 404;
    w.last = last;
    w.body = body;
    if missing {
        Err(format!(
            "{NOT_OFFERED}{extension}: GET {collection} answers 404"
        ))
    } else {
        Ok(())
    }
}

/// After a write refused with 422: fails the step as "not offered" when the target does not
/// know `field` at all (upstream's `Rogue field` for it), as a target without lots answers a
/// tender sent with `lots`.
pub fn rogue_field(w: &TenderWorld, extension: &str, field: &str) -> Result<(), String> {
    if w.status()? != 422 {
        return Ok(());
    }
    let rogue = |e: &serde_json::Value| {
        e["name"] == field && crate::checks::as_text(&e["description"]).contains("Rogue field")
    };
    let unknown = w.body["errors"]
        .as_array()
        .is_some_and(|errors| errors.iter().any(rogue));
    if unknown {
        Err(format!(
            "{NOT_OFFERED}{extension}: a body with {field} answers 422 Rogue field"
        ))
    } else {
        Ok(())
    }
}

/// The extension named by a not-offered reason.
pub fn extension(reason: &str) -> Option<&str> {
    reason.strip_prefix(NOT_OFFERED)?.split(':').next()
}

#[cfg(test)]
mod tests {
    use crate::{
        run::outcome::{Class, ScenarioOutcome, Verdict},
        run::report::RunReport,
        target::ClockMode,
    };

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
        }
    }

    fn report(scenarios: Vec<ScenarioOutcome>) -> RunReport {
        RunReport {
            target: "http://t".into(),
            connection: Default::default(),
            date: "today".into(),
            suite_version: "0",
            seed: 1,
            clock: ClockMode::ControlApi,
            target_clock: Default::default(),
            skew: "0 s".into(),
            owner: "broker".into(),
            other: "broker1".into(),
            tags: None,
            features: "built-in set".into(),
            acceleration: "none asked for".into(),
            strict: false,
            fail_on_skip: false,
            elapsed_seconds: 0.0,
            asked_waits: Default::default(),
            scenarios,
            parsing_errors: Vec::new(),
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
