//! Answers set per code on demand (on a sandbox), as fault rules are: each for one broker's
//! checks or for everyone's, read from client JSON with every problem collected. A code set
//! again for the same checks replaces its answer. An answer with a count is consumed under one
//! lock, so concurrent checks never share one use; a spent one stays listed with `times: 0`.

use super::{Answer, Code, RETRY_AFTER};
use crate::domain::input::Input;
use crate::domain::parse::{Cx, Obj, Problem, one_of};
use serde_json::{Value as Json, json};
use std::sync::{Mutex, MutexGuard};

/// The longest wait a throttled answer may ask for, in seconds.
pub const MAX_RETRY_AFTER: i64 = 3600;
const THROTTLED: &str = "throttled";

/// An answer as the client asked for it, before the server decides whose checks it is for.
#[derive(Debug, Clone)]
pub struct Draft {
    pub code: Code,
    pub answer: Answer,
    /// The broker the body names.
    pub broker: Option<String>,
    /// How many checks it answers; until removed when absent.
    pub times: Option<u64>,
}

impl Draft {
    pub fn parse(data: &Input<'_>, cx: &Cx) -> Result<Draft, Problem> {
        let mut o = Obj::new(data, cx, "EdrAnswer")?;
        let code: Option<String> = o.req("code");
        let name: Option<String> = o.req("answer");
        let retry_after: Option<i64> = o.opt("retry_after");
        let broker: Option<String> = o.opt("broker");
        let times: Option<i64> = o.opt("times");
        let code = code.and_then(|text| {
            let code = Code::any(&text);
            if code.is_none() {
                o.fail(
                    "code",
                    Problem::msg(
                        "Should be an EDRPOU code (8 digits), an IPN (10 digits) or a passport \
                         (two Cyrillic letters and 6 digits, or 9 digits).",
                    ),
                );
            }
            code
        });
        let names = Answer::names();
        if name.as_deref().is_some_and(|n| !names.contains(&n)) {
            o.fail("answer", Problem::msg(one_of(&names)));
        }
        let retry_after = match retry_after {
            Some(_) if name.as_deref().is_some_and(|n| n != THROTTLED) => {
                o.fail(
                    "retry_after",
                    Problem::msg("Only a throttled answer has retry_after."),
                );
                None
            }
            Some(s) if !(1..=MAX_RETRY_AFTER).contains(&s) => {
                o.fail(
                    "retry_after",
                    Problem::msg(format!("Should be from 1 to {MAX_RETRY_AFTER} seconds.")),
                );
                None
            }
            Some(s) => u32::try_from(s).ok(),
            None => Some(RETRY_AFTER),
        };
        if times.is_some_and(|t| t < 1) {
            o.fail("times", Problem::msg("Should be at least 1."));
        }
        o.done(|| {
            Some(Draft {
                code: code?,
                answer: Answer::named(name.as_deref()?, retry_after?)?,
                broker,
                times: times.and_then(|t| u64::try_from(t).ok()),
            })
        })
    }
}

/// A stored answer and how many checks it gave.
#[derive(Debug, Clone)]
pub struct Setting {
    pub id: String,
    pub code: Code,
    pub answer: Answer,
    /// Whose checks it answers (by broker name); everyone's when absent.
    pub broker: Option<String>,
    times: Option<u64>,
    hits: u64,
}

impl Setting {
    /// `broker` is whose checks it answers, as the server decided.
    pub fn new(id: String, draft: Draft, broker: Option<String>) -> Setting {
        Setting {
            id,
            code: draft.code,
            answer: draft.answer,
            broker,
            times: draft.times,
            hits: 0,
        }
    }

    fn live(&self) -> bool {
        self.times != Some(0)
    }

    fn for_checks_of(&self, code: &str, broker: Option<&str>) -> bool {
        self.live() && self.code.as_str() == code && self.broker.as_deref() == broker
    }

    /// The answer as the API shows it.
    pub fn view(&self) -> Json {
        let mut view =
            json!({"id": self.id, "code": self.code.as_str(), "answer": self.answer.name()});
        if let Answer::Throttled { retry_after } = self.answer {
            view["retry_after"] = json!(retry_after);
        }
        if let Some(broker) = &self.broker {
            view["broker"] = json!(broker);
        }
        if let Some(times) = self.times {
            view["times"] = json!(times);
        }
        view["hits"] = json!(self.hits);
        view
    }
}

/// The answers of one server, in the order they were set.
#[derive(Debug, Default)]
pub struct Answers {
    settings: Mutex<Vec<Setting>>,
}

impl Answers {
    fn settings(&self) -> MutexGuard<'_, Vec<Setting>> {
        // A panic elsewhere cannot leave an answer half-changed: every change is one assignment.
        self.settings.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores `setting` in place of the one for the same code and checks, if any; answers it
    /// as stored.
    pub fn set(&self, setting: Setting) -> Json {
        let mut settings = self.settings();
        settings.retain(|s| !(s.code == setting.code && s.broker == setting.broker));
        let view = setting.view();
        settings.push(setting);
        view
    }

    /// The answers `visible` (given whose checks each is for) lets the caller see.
    pub fn list(&self, visible: impl Fn(Option<&str>) -> bool) -> Vec<Json> {
        let settings = self.settings();
        let seen = settings.iter().filter(|s| visible(s.broker.as_deref()));
        seen.map(Setting::view).collect()
    }

    pub fn get(&self, id: &str, visible: impl Fn(Option<&str>) -> bool) -> Option<Json> {
        self.settings()
            .iter()
            .find(|s| s.id == id && visible(s.broker.as_deref()))
            .map(Setting::view)
    }

    /// Removes one answer; answers it as it was.
    pub fn remove(&self, id: &str, visible: impl Fn(Option<&str>) -> bool) -> Option<Json> {
        let mut settings = self.settings();
        let at = settings
            .iter()
            .position(|s| s.id == id && visible(s.broker.as_deref()))?;
        Some(settings.remove(at).view())
    }

    /// Removes every answer the caller sees; answers them as they were.
    pub fn remove_all(&self, visible: impl Fn(Option<&str>) -> bool) -> Vec<Json> {
        let mut settings = self.settings();
        let (removed, kept): (Vec<Setting>, Vec<Setting>) = settings
            .drain(..)
            .partition(|s| visible(s.broker.as_deref()));
        *settings = kept;
        removed.iter().map(Setting::view).collect()
    }

    /// The answer set for `code` that a check by `broker` meets, used at once: the broker's
    /// own, else the one for everyone's checks.
    pub fn consume(&self, code: &Code, broker: Option<&str>) -> Option<Answer> {
        let mut settings = self.settings();
        let code = code.as_str();
        let at = broker
            .and_then(|b| settings.iter().position(|s| s.for_checks_of(code, Some(b))))
            .or_else(|| settings.iter().position(|s| s.for_checks_of(code, None)))?;
        let setting = &mut settings[at];
        if let Some(times) = &mut setting.times {
            *times -= 1;
        }
        setting.hits += 1;
        Some(setting.answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edr::Status;
    use std::sync::Arc;

    fn cx() -> Cx {
        Cx::kyiv(true)
    }

    fn draft(data: Json) -> Result<Draft, Json> {
        Draft::parse(&Input::view(&data), &cx()).map_err(|p| p.flat())
    }

    fn setting(id: &str, data: Json, broker: Option<&str>) -> Setting {
        Setting::new(
            id.into(),
            draft(data).expect("valid"),
            broker.map(str::to_string),
        )
    }

    fn code(text: &str) -> Code {
        Code::any(text).expect("well-formed")
    }

    #[test]
    fn every_problem_of_a_draft_is_named() {
        let problems = draft(json!({"code": "123", "answer": "bankrupt", "times": 0, "colour": 1}))
            .expect_err("refused");
        for name in ["code", "answer", "times", "colour"] {
            assert!(problems.get(name).is_some(), "{name}: {problems}");
        }
        let problems = draft(json!({"code": "14360570", "answer": "timeout", "retry_after": 5}))
            .expect_err("refused");
        assert!(problems.get("retry_after").is_some(), "{problems}");
        let problems = draft(json!({"code": "14360570", "answer": "throttled", "retry_after": 0}))
            .expect_err("refused");
        assert!(problems.get("retry_after").is_some(), "{problems}");
        let problems = draft(json!({})).expect_err("refused");
        assert!(problems.get("code").is_some() && problems.get("answer").is_some());
        assert!(draft(json!("terminated")).is_err());
    }

    #[test]
    fn a_broker_s_own_answer_comes_before_everyone_s_and_a_count_runs_out() {
        let answers = Answers::default();
        let terminated = json!({"code": "14360570", "answer": "terminated"});
        answers.set(setting("a", terminated, None));
        let throttled = json!({"code": "14360570", "answer": "throttled", "times": 1});
        answers.set(setting("b", throttled, Some("broker")));
        let bank = code("14360570");
        assert_eq!(
            answers.consume(&bank, Some("broker")),
            Some(Answer::Throttled { retry_after: 26 })
        );
        let terminated = Some(Answer::Found(Status::Terminated));
        assert_eq!(answers.consume(&bank, Some("broker")), terminated);
        assert_eq!(answers.consume(&bank, Some("broker1")), terminated);
        assert_eq!(answers.consume(&bank, None), terminated);
        assert_eq!(answers.consume(&code("00037256"), None), None);
        let spent = answers.get("b", |_| true).expect("listed");
        assert_eq!(
            (spent["times"].clone(), spent["hits"].clone()),
            (json!(0), json!(1))
        );
    }

    #[test]
    fn a_code_set_again_for_the_same_checks_replaces_its_answer() {
        let answers = Answers::default();
        answers.set(setting(
            "a",
            json!({"code": "сн012345", "answer": "not-found"}),
            Some("broker"),
        ));
        let view = answers.set(setting(
            "b",
            json!({"code": "СН012345", "answer": "registered"}),
            Some("broker"),
        ));
        assert_eq!(view["code"], "СН012345");
        answers.set(setting(
            "c",
            json!({"code": "СН012345", "answer": "timeout"}),
            Some("broker1"),
        ));
        let ids: Vec<Json> = answers
            .list(|_| true)
            .iter()
            .map(|v| v["id"].clone())
            .collect();
        assert_eq!(
            ids,
            [json!("b"), json!("c")],
            "another broker's checks kept theirs"
        );
        let mine = answers.list(|b| b == Some("broker"));
        assert_eq!(mine.len(), 1);
        assert!(answers.remove("c", |b| b == Some("broker")).is_none());
        assert_eq!(answers.remove_all(|b| b == Some("broker")).len(), 1);
        assert_eq!(answers.list(|_| true).len(), 1);
    }

    #[test]
    fn concurrent_checks_never_share_a_use() {
        let answers = Arc::new(Answers::default());
        answers.set(setting(
            "a",
            json!({"code": "14360570", "answer": "not-found", "times": 3}),
            None,
        ));
        let threads: Vec<_> = (0..32)
            .map(|_| {
                let answers = answers.clone();
                std::thread::spawn(move || answers.consume(&code("14360570"), None).is_some())
            })
            .collect();
        let used = threads
            .into_iter()
            .map(|t| t.join().expect("thread"))
            .filter(|used| *used)
            .count();
        assert_eq!(used, 3);
    }
}
