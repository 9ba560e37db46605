//! What happened to each scenario: a cucumber writer that records outcomes (with the request and
//! response of a failure), and a wrapper that turns "time budget exhausted" into a skip.
use std::{
    collections::HashMap,
    sync::{Arc, Mutex, PoisonError},
    time::SystemTime,
};

use cucumber::{
    Event, Writer,
    event::{self, Cucumber, Feature, Hook, RetryableScenario, Rule, Scenario, Step, StepError},
    gherkin, parser, writer,
};

use crate::{
    exchange::Exchange, target::BUDGET_SKIP, target::offered::NOT_OFFERED, world::TenderWorld,
};

/// Whether a scenario's behaviour is stated by the spec or filled in from upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `@spec`: mandatory for certification.
    Spec,
    /// `@upstream`: advisory unless `--strict`.
    Upstream,
    /// Neither tag (a harness defect: every scenario should carry one).
    Untagged,
}

impl Class {
    fn of(tags: &[String]) -> Class {
        if tags.iter().any(|t| t == "spec") {
            Class::Spec
        } else if tags.iter().any(|t| t == "upstream") {
            Class::Upstream
        } else {
            Class::Untagged
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Class::Spec => "@spec (mandatory)",
            Class::Upstream => "@upstream (advisory)",
            Class::Untagged => "untagged",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    Skipped,
}

/// Why a scenario failed: the step, the message and the exchange that broke it.
#[derive(Clone, Debug)]
pub struct Failure {
    pub step: String,
    /// Whether the step that failed states what must hold (a `Then`), rather than setting the
    /// scene (`Given`) or acting (`When`); `false` for the checks applied to every exchange.
    pub assertion: bool,
    pub message: String,
    pub exchange: Option<Exchange>,
    /// The rules the message names as broken.
    pub rules: Vec<String>,
}

/// How a failure by the checks applied to every exchange names its step.
pub const CHECKS_STEP: &str = "(the checks applied to every exchange)";

impl Failure {
    fn of_step(step: &gherkin::Step, message: String, world: Option<&TenderWorld>) -> Failure {
        Failure {
            rules: crate::checks::rules::named_in(&message),
            step: format!("{} {}", step.keyword.trim(), step.value),
            assertion: step.ty == gherkin::StepType::Then,
            message,
            exchange: world.and_then(|w| w.last.clone()),
        }
    }

    /// The scenario's steps passed, but its exchanges broke rules: the examples are the
    /// ledger's.
    fn of_checks(message: String) -> Failure {
        Failure {
            rules: crate::checks::rules::named_in(&message),
            step: CHECKS_STEP.to_owned(),
            assertion: false,
            message,
            exchange: None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ScenarioOutcome {
    pub feature: String,
    pub file: String,
    pub line: usize,
    /// The `Rule:` it stands under, if any.
    pub rule: Option<String>,
    pub name: String,
    pub tags: Vec<String>,
    pub class: Class,
    pub verdict: Verdict,
    pub failure: Option<Failure>,
    pub skip_reason: Option<String>,
    /// When it started and finished.
    pub started: Option<SystemTime>,
    pub finished: Option<SystemTime>,
}

/// Shared between the writers of one run and the code that reads the results afterwards.
#[derive(Debug, Default)]
pub struct Collected {
    pub scenarios: Vec<ScenarioOutcome>,
    pub parsing_errors: Vec<String>,
    running: HashMap<(String, usize), ScenarioOutcome>,
    /// Reasons of budget skips, by (feature file, step line).
    skip_reasons: HashMap<(String, usize), String>,
}

pub type Shared = Arc<Mutex<Collected>>;

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Collected> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The text of a panic or of a step's `Err`.
fn panic_text(info: &event::Info) -> String {
    if let Some(s) = info.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = info.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else {
        "the step panicked".to_owned()
    }
}

fn step_error_text(err: &StepError) -> String {
    match err {
        StepError::Panic(info) => panic_text(info),
        StepError::NotFound => "the step has no definition".to_owned(),
        other => other.to_string(),
    }
}

/// The reason of a step failure that means "could not be checked" (beyond the time budget, or
/// an extension the target does not offer): such a step counts as skipped.
fn skip_reason(text: &str) -> Option<&str> {
    text.strip_prefix(BUDGET_SKIP)
        .or_else(|| text.starts_with(NOT_OFFERED).then_some(text))
}

/// The verdict of a scenario as it finishes, before any writer has seen its events.
pub fn verdict_of(finished: &event::ScenarioFinished) -> Verdict {
    match finished {
        event::ScenarioFinished::StepPassed => Verdict::Passed,
        event::ScenarioFinished::StepSkipped => Verdict::Skipped,
        event::ScenarioFinished::StepFailed(_, _, StepError::Panic(info))
            if skip_reason(&panic_text(info)).is_some() =>
        {
            Verdict::Skipped
        }
        event::ScenarioFinished::StepFailed(..) | event::ScenarioFinished::BeforeHookFailed(_) => {
            Verdict::Failed
        }
    }
}

/// Records every scenario's outcome into [`Collected`].
#[derive(Debug)]
pub struct Recorder {
    shared: Shared,
}

impl Recorder {
    pub fn new(shared: Shared) -> Recorder {
        Recorder { shared }
    }

    fn scenario(
        &mut self,
        at: SystemTime,
        feature: &gherkin::Feature,
        rule: Option<&gherkin::Rule>,
        scenario: &gherkin::Scenario,
        event: &Scenario<TenderWorld>,
    ) {
        let file = crate::run::feature_set::file_name(feature);
        let key = (file.clone(), scenario.position.line);
        let mut collected = lock(&self.shared);
        match event {
            Scenario::Started => {
                let tags: Vec<String> = feature
                    .tags
                    .iter()
                    .chain(rule.iter().flat_map(|r| &r.tags))
                    .chain(&scenario.tags)
                    .cloned()
                    .collect();
                let outcome = ScenarioOutcome {
                    feature: feature.name.clone(),
                    file,
                    line: scenario.position.line,
                    rule: rule.map(|r| r.name.clone()),
                    started: Some(at),
                    finished: None,
                    name: scenario.name.clone(),
                    class: Class::of(&tags),
                    tags,
                    verdict: Verdict::Passed,
                    failure: None,
                    skip_reason: None,
                };
                collected.running.insert(key, outcome);
            }
            Scenario::Step(step, ev) | Scenario::Background(step, ev) => {
                let reason = collected
                    .skip_reasons
                    .get(&(key.0.clone(), step.position.line))
                    .cloned();
                let Some(outcome) = collected.running.get_mut(&key) else {
                    return;
                };
                match ev {
                    Step::Skipped => {
                        outcome.verdict = Verdict::Skipped;
                        outcome.skip_reason = Some(reason.unwrap_or_else(|| {
                            format!(
                                "step \"{} {}\" was skipped",
                                step.keyword.trim(),
                                step.value
                            )
                        }));
                    }
                    Step::Failed(_, _, world, err) => {
                        outcome.verdict = Verdict::Failed;
                        outcome.failure = Some(Failure::of_step(
                            step,
                            step_error_text(err),
                            world.as_deref(),
                        ));
                    }
                    Step::Started | Step::Passed(..) => {}
                }
            }
            Scenario::Hook(_, Hook::Failed(_, info)) => {
                if let Some(outcome) = collected.running.get_mut(&key) {
                    outcome.verdict = Verdict::Failed;
                    outcome.failure = Some(Failure::of_checks(panic_text(info)));
                }
            }
            Scenario::Finished => {
                if let Some(mut outcome) = collected.running.remove(&key) {
                    outcome.finished = Some(at);
                    collected.scenarios.push(outcome);
                }
            }
            Scenario::Hook(..) | Scenario::Log(_) => {}
        }
    }
}

impl Writer<TenderWorld> for Recorder {
    type Cli = cucumber::cli::Empty;

    async fn handle_event(
        &mut self,
        event: parser::Result<Event<Cucumber<TenderWorld>>>,
        _: &Self::Cli,
    ) {
        let (event, at) = match event {
            Ok(event) => {
                let at = event.at;
                (event.into_inner(), at)
            }
            Err(e) => {
                lock(&self.shared).parsing_errors.push(e.to_string());
                return;
            }
        };
        match event {
            Cucumber::Feature(f, Feature::Scenario(sc, RetryableScenario { event, .. })) => {
                self.scenario(at, &f, None, &sc, &event);
            }
            Cucumber::Feature(
                f,
                Feature::Rule(r, Rule::Scenario(sc, RetryableScenario { event, .. })),
            ) => {
                self.scenario(at, &f, Some(&r), &sc, &event);
            }
            _ => {}
        }
    }
}

impl<Val> writer::Arbitrary<TenderWorld, Val> for Recorder {
    async fn write(&mut self, _: Val) {}
}

impl writer::Stats<TenderWorld> for Recorder {
    fn passed_steps(&self) -> usize {
        0
    }
    fn skipped_steps(&self) -> usize {
        0
    }
    fn failed_steps(&self) -> usize {
        0
    }
    fn retried_steps(&self) -> usize {
        0
    }
    fn parsing_errors(&self) -> usize {
        0
    }
    fn hook_errors(&self) -> usize {
        0
    }
}

impl writer::NonTransforming for Recorder {}

/// Turns a step failure that says "time budget exhausted" into a skipped step, keeping the
/// reason for the report; every other event passes unchanged.
#[derive(Debug)]
pub struct Reclassify<Wr> {
    inner: Wr,
    shared: Shared,
}

impl<Wr> Reclassify<Wr> {
    pub fn new(inner: Wr, shared: Shared) -> Self {
        Reclassify { inner, shared }
    }

    fn budget_skip(
        &self,
        feature: &gherkin::Feature,
        step: &gherkin::Step,
        ev: Step<TenderWorld>,
    ) -> Step<TenderWorld> {
        if let Step::Failed(_, _, _, StepError::Panic(info)) = &ev {
            let text = panic_text(info);
            if let Some(reason) = skip_reason(&text) {
                lock(&self.shared).skip_reasons.insert(
                    (
                        crate::run::feature_set::file_name(feature),
                        step.position.line,
                    ),
                    reason.to_owned(),
                );
                return Step::Skipped;
            }
        }
        ev
    }

    fn map_scenario(
        &self,
        feature: &gherkin::Feature,
        event: Scenario<TenderWorld>,
    ) -> Scenario<TenderWorld> {
        match event {
            Scenario::Step(st, ev) => {
                let ev = self.budget_skip(feature, &st, ev);
                Scenario::Step(st, ev)
            }
            Scenario::Background(st, ev) => {
                let ev = self.budget_skip(feature, &st, ev);
                Scenario::Background(st, ev)
            }
            other => other,
        }
    }
}

impl<Wr: Writer<TenderWorld>> Writer<TenderWorld> for Reclassify<Wr> {
    type Cli = Wr::Cli;

    async fn handle_event(
        &mut self,
        event: parser::Result<Event<Cucumber<TenderWorld>>>,
        cli: &Self::Cli,
    ) {
        let event = event.map(|outer| {
            outer.map(|ev| match ev {
                Cucumber::Feature(
                    f,
                    Feature::Scenario(sc, RetryableScenario { event, retries }),
                ) => {
                    let event = self.map_scenario(&f, event);
                    Cucumber::Feature(
                        f,
                        Feature::Scenario(sc, RetryableScenario { event, retries }),
                    )
                }
                Cucumber::Feature(
                    f,
                    Feature::Rule(r, Rule::Scenario(sc, RetryableScenario { event, retries })),
                ) => {
                    let event = self.map_scenario(&f, event);
                    Cucumber::Feature(
                        f,
                        Feature::Rule(r, Rule::Scenario(sc, RetryableScenario { event, retries })),
                    )
                }
                other => other,
            })
        });
        self.inner.handle_event(event, cli).await;
    }
}

impl<Wr: writer::Stats<TenderWorld>> writer::Stats<TenderWorld> for Reclassify<Wr> {
    fn passed_steps(&self) -> usize {
        self.inner.passed_steps()
    }
    fn skipped_steps(&self) -> usize {
        self.inner.skipped_steps()
    }
    fn failed_steps(&self) -> usize {
        self.inner.failed_steps()
    }
    fn retried_steps(&self) -> usize {
        self.inner.retried_steps()
    }
    fn parsing_errors(&self) -> usize {
        self.inner.parsing_errors()
    }
    fn hook_errors(&self) -> usize {
        self.inner.hook_errors()
    }
}

impl<Wr: writer::Normalized> writer::Normalized for Reclassify<Wr> {}
