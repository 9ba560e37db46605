//! Reading client JSON into typed values, collecting every problem at once.
//!
//! Problems keep upstream's structure (messages for a field, fields of a nested object, entries
//! of a list) and upstream's wording; [`Problem::leaves`] flattens them into one error entry per
//! field at fault, because the spec types every error description as a string.

use super::input::{Fields, Input};
use super::merge::merge;
use super::time::{Timestamp, Zone};
use serde::Serialize;
use serde_json::Value as Json;
use std::sync::Arc;

pub const REQUIRED: &str = "This field is required.";

/// What is wrong with one value.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    Messages(Vec<String>),
    Rogue,
    Fields(Vec<(String, Problem)>),
    Items(Vec<Problem>),
}

impl Problem {
    /// No problem: the entry of a valid element in a list of problems.
    pub const NONE: Problem = Problem::Fields(Vec::new());

    pub fn is_none(&self) -> bool {
        *self == Problem::NONE
    }

    pub fn msg(text: impl Into<String>) -> Problem {
        Problem::Messages(vec![text.into()])
    }

    pub fn field(name: &str, problem: Problem) -> Problem {
        Problem::Fields(vec![(name.to_string(), problem)])
    }

    /// One `(dotted path, description)` per field at fault, in the order found: the path of a
    /// nested field joins names and list indexes with dots (`items.0.classification.id`); the
    /// description is upstream's message, several messages of one field joined by a space.
    pub fn leaves(&self, path: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        self.collect_leaves(path, &mut out);
        out
    }

    fn collect_leaves(&self, path: &str, out: &mut Vec<(String, String)>) {
        let child = |name: &str| {
            if path.is_empty() {
                name.to_string()
            } else {
                format!("{path}.{name}")
            }
        };
        match self {
            Problem::Messages(m) => out.push((path.to_string(), m.join(" "))),
            Problem::Rogue => out.push((path.to_string(), "Rogue field".to_string())),
            Problem::Fields(f) => {
                for (name, p) in f {
                    p.collect_leaves(&child(name), out);
                }
            }
            Problem::Items(items) => {
                for (i, p) in items.iter().enumerate() {
                    p.collect_leaves(&child(&i.to_string()), out);
                }
            }
        }
    }

    /// The leaves as a JSON object `{path: description}`, for tests of the models.
    #[cfg(test)]
    pub fn flat(&self) -> Json {
        Json::Object(
            self.leaves("")
                .into_iter()
                .map(|(name, description)| (name, Json::from(description)))
                .collect(),
        )
    }

    /// Top-level problems, one per field, in the order found.
    pub fn into_fields(self) -> Vec<(String, Problem)> {
        match self {
            Problem::Fields(f) => f,
            other => vec![("data".to_string(), other)],
        }
    }
}

/// What parsing may need beyond the JSON itself.
#[derive(Debug, Clone, Copy)]
pub struct Cx {
    pub zone: Zone,
    /// The sandbox switch: acceleration fields exist only with it.
    pub testing: bool,
}

/// What a write is given: the request's `data`, how to read it, and the moment it is made
/// (on the clock of the record's owner).
pub struct Sent<'a> {
    pub data: &'a Input<'a>,
    pub cx: &'a Cx,
    pub now: Timestamp,
}

#[cfg(test)]
impl Cx {
    /// What the tests read with: Kyiv's zone, with the sandbox's fields where `testing`.
    pub fn kyiv(testing: bool) -> Cx {
        Cx {
            zone: Zone::named("Europe/Kyiv").expect("zone"),
            testing,
        }
    }
}

/// A value that can be read from client JSON.
pub trait FromJson: Sized {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem>;

    /// Reads a `serde_json::Value`: a change merged into a held record, or a test's body.
    fn from_value(v: &Json, cx: &Cx) -> Result<Self, Problem> {
        Self::from_json(&Input::view(v), cx)
    }
}

/// Python-style name of a JSON type, as upstream's messages print it.
fn kind(v: &Input<'_>) -> &'static str {
    match v {
        Input::Null => "NoneType",
        Input::Bool(_) => "bool",
        Input::Number(n) if n.is_f64() => "float",
        Input::Number(_) => "int",
        Input::String(_) => "unicode",
        Input::Array(_) => "list",
        Input::Object(_) => "dict",
    }
}

fn shown(v: &Input<'_>) -> String {
    match v {
        Input::String(s) => s.to_string(),
        other => other.to_string(),
    }
}

impl FromJson for String {
    fn from_json(v: &Input<'_>, _: &Cx) -> Result<Self, Problem> {
        match v {
            Input::String(s) => Ok(s.to_string()),
            Input::Number(n) => Ok(n.to_string()),
            other => Err(Problem::msg(format!(
                "Couldn't interpret '{}' as string.",
                shown(other)
            ))),
        }
    }
}

impl FromJson for f64 {
    fn from_json(v: &Input<'_>, _: &Cx) -> Result<Self, Problem> {
        match v {
            Input::Number(n) => n
                .as_f64()
                .filter(|f| f.is_finite())
                .ok_or_else(|| Problem::msg(format!("Value '{n}' is not float."))),
            other => Err(Problem::msg(format!(
                "Value '{}' is not float.",
                shown(other)
            ))),
        }
    }
}

impl FromJson for i64 {
    fn from_json(v: &Input<'_>, _: &Cx) -> Result<Self, Problem> {
        let bad = || Problem::msg(format!("Value '{}' is not int.", shown(v)));
        match v {
            Input::Number(n) => match n.as_i64() {
                Some(i) => Ok(i),
                None => n
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
                    .ok_or_else(bad),
            },
            _ => Err(bad()),
        }
    }
}

impl FromJson for bool {
    fn from_json(v: &Input<'_>, _: &Cx) -> Result<Self, Problem> {
        v.as_bool()
            .ok_or_else(|| Problem::msg("Must be either true or false."))
    }
}

impl FromJson for Timestamp {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        v.as_str().and_then(|s| cx.zone.parse(s)).ok_or_else(|| {
            Problem::msg(format!("Could not parse {}. Should be ISO8601.", shown(v)))
        })
    }
}

impl<T: FromJson> FromJson for Arc<T> {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        T::from_json(v, cx).map(Arc::new)
    }
}

impl<T: FromJson> FromJson for Box<T> {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        T::from_json(v, cx).map(Box::new)
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let Input::Array(list) = v else {
            return Err(Problem::msg("Could not interpret the value as a list"));
        };
        let mut out = Vec::with_capacity(list.len());
        // Filled only from the first entry at fault: a valid list allocates no problems.
        let mut problems = Vec::new();
        for (i, item) in list.iter().enumerate() {
            match T::from_json(item, cx) {
                Ok(value) if problems.is_empty() => out.push(value),
                Ok(_) => problems.push(Problem::NONE),
                Err(p) => {
                    if problems.is_empty() {
                        problems.resize(i, Problem::NONE);
                    }
                    problems.push(p);
                }
            }
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(Problem::Items(problems))
        }
    }
}

/// A JSON object being read field by field. Every field that is read, or declared known with
/// [`Obj::skip`], is accounted for; the rest are rogue.
pub struct Obj<'a> {
    map: &'a Fields<'a>,
    cx: &'a Cx,
    seen: Seen,
    problems: Vec<(String, Problem)>,
}

impl<'a> Obj<'a> {
    /// `model` names the expected object in the message for a non-object.
    pub fn new(v: &'a Input<'a>, cx: &'a Cx, model: &str) -> Result<Obj<'a>, Problem> {
        match v {
            Input::Object(map) => Ok(Obj {
                map,
                cx,
                seen: Seen::default(),
                problems: Vec::new(),
            }),
            other => Err(Problem::msg(format!(
                "Please use a mapping for this field or {model} instance instead of {}.",
                kind(other)
            ))),
        }
    }

    pub fn cx(&self) -> &'a Cx {
        self.cx
    }

    fn take(&mut self, key: &'a str) -> Option<&'a Input<'a>> {
        let (at, value) = self.map.find(key)?;
        self.seen.mark(at);
        Some(value).filter(|v| !v.is_null())
    }

    /// Accounts for `key` without reading it.
    fn mark(&mut self, key: &str) {
        if let Some((at, _)) = self.map.find(key) {
            self.seen.mark(at);
        }
    }

    pub fn req<T: FromJson>(&mut self, key: &'a str) -> Option<T> {
        match self.take(key) {
            None => {
                self.fail(key, Problem::msg(REQUIRED));
                None
            }
            Some(v) => self.convert(key, v),
        }
    }

    pub fn opt<T: FromJson>(&mut self, key: &'a str) -> Option<T> {
        let v = self.take(key)?;
        self.convert(key, v)
    }

    /// [`Obj::req`] of a change to `base`, the value held (without one, a plain `req`): a
    /// field the change leaves out keeps `base`, and an object or a list sent for it is
    /// merged into `base` as upstream's PATCH merges, then read.
    pub fn req_or<T: FromJson + Serialize>(&mut self, key: &'a str, base: Option<T>) -> Option<T> {
        let Some(base) = base else {
            return self.req(key);
        };
        match self.map.get(key) {
            None => Some(base),
            Some(change @ (Input::Object(_) | Input::Array(_))) => {
                self.mark(key);
                self.merged(key, &base, change)
            }
            Some(_) => self.req(key),
        }
    }

    /// [`Obj::opt`] of a change to `base`, as [`Obj::req_or`].
    pub fn opt_or<T: FromJson + Serialize>(
        &mut self,
        key: &'a str,
        base: Option<Option<T>>,
    ) -> Option<T> {
        let Some(base) = base else {
            return self.opt(key);
        };
        match (self.map.get(key), base) {
            (None, kept) => kept,
            (Some(change @ (Input::Object(_) | Input::Array(_))), Some(base)) => {
                self.mark(key);
                self.merged(key, &base, change)
            }
            _ => self.opt(key),
        }
    }

    fn merged<T: FromJson + Serialize>(
        &mut self,
        key: &str,
        base: &T,
        change: &Input<'_>,
    ) -> Option<T> {
        match serde_json::to_value(base) {
            Ok(mut value) => {
                merge(&mut value, change);
                self.convert(key, &Input::view(&value))
            }
            Err(e) => {
                self.fail(key, Problem::msg(e.to_string()));
                None
            }
        }
    }

    /// An optional string restricted to `choices`.
    pub fn choice(&mut self, key: &'a str, choices: &[&str]) -> Option<String> {
        let value: String = self.opt(key)?;
        if choices.contains(&value.as_str()) {
            Some(value)
        } else {
            self.fail(key, Problem::msg(one_of(choices)));
            None
        }
    }

    /// A known field that the caller may send but not set here: dropped without a word.
    pub fn skip(&mut self, keys: &[&'a str]) {
        for key in keys {
            self.mark(key);
        }
    }

    pub fn has(&self, key: &str) -> bool {
        self.map.get(key).is_some_and(|v| !v.is_null())
    }

    pub fn fail(&mut self, key: &str, problem: Problem) {
        match self.problems.iter_mut().find(|(k, _)| k == key) {
            Some((_, Problem::Messages(existing))) => {
                if let Problem::Messages(more) = problem {
                    existing.extend(more);
                }
            }
            Some(_) => {}
            None => self.problems.push((key.to_string(), problem)),
        }
    }

    pub fn failed(&self, key: &str) -> bool {
        self.problems.iter().any(|(k, _)| k == key)
    }

    fn convert<T: FromJson>(&mut self, key: &str, v: &Input<'_>) -> Option<T> {
        match T::from_json(v, self.cx) {
            Ok(value) => Some(value),
            Err(p) => {
                self.fail(key, p);
                None
            }
        }
    }

    /// Ends the reading: rogue fields are reported, then `build` assembles the value from the
    /// parts read (it gets to run only when nothing was wrong).
    pub fn done<T>(mut self, build: impl FnOnce() -> Option<T>) -> Result<T, Problem> {
        for (at, key) in self.map.keys().enumerate() {
            if !self.seen.has(at) {
                self.problems.push((key.to_string(), Problem::Rogue));
            }
        }
        if !self.problems.is_empty() {
            return Err(Problem::Fields(self.problems));
        }
        build().ok_or_else(|| Problem::msg(REQUIRED))
    }
}

/// Which fields of an object were read or skipped, by their place in it: a bit each for the
/// first 64 (a model has fewer), a flag each past them (only a body full of rogue fields).
#[derive(Default)]
struct Seen {
    bits: u64,
    more: Vec<bool>,
}

impl Seen {
    fn mark(&mut self, at: usize) {
        match at.checked_sub(64) {
            None => self.bits |= 1 << at,
            Some(past) => {
                if self.more.len() <= past {
                    self.more.resize(past + 1, false);
                }
                self.more[past] = true;
            }
        }
    }

    fn has(&self, at: usize) -> bool {
        match at.checked_sub(64) {
            None => self.bits & (1 << at) != 0,
            Some(past) => self.more.get(past).copied().unwrap_or(false),
        }
    }
}

/// Upstream's "Value must be one of ['a', 'b']." message.
pub fn one_of(choices: &[&str]) -> String {
    let listed: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
    format!("Value must be one of [{}].", listed.join(", "))
}

/// Checks shared by several models.
pub mod rules {
    use super::Problem;

    pub fn min_float(v: f64, min: f64) -> Result<(), Problem> {
        if v < min {
            Err(Problem::msg(format!(
                "Float value should be greater than {}.",
                trim(min)
            )))
        } else {
            Ok(())
        }
    }

    pub fn max_float(v: f64, max: f64) -> Result<(), Problem> {
        if v > max {
            Err(Problem::msg(format!(
                "Float value should be less than {}.",
                trim(max)
            )))
        } else {
            Ok(())
        }
    }

    fn trim(f: f64) -> String {
        if f.fract() == 0.0 {
            format!("{}", f as i64)
        } else {
            format!("{f}")
        }
    }

    pub fn url(s: &str) -> Result<(), Problem> {
        let rest = s
            .strip_prefix("https://")
            .or_else(|| s.strip_prefix("http://"));
        let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or_default());
        match host {
            Some(h) if !h.is_empty() && !s.chars().any(char::is_whitespace) => Ok(()),
            _ => Err(Problem::msg("Not a well formed URL.")),
        }
    }

    pub fn email(s: &str) -> Result<(), Problem> {
        let ok = match s.split_once('@') {
            Some((user, domain)) => {
                !user.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
            }
            None => false,
        };
        if ok && !s.chars().any(char::is_whitespace) {
            Ok(())
        } else {
            Err(Problem::msg("Not a well formed email address."))
        }
    }

    pub fn length(s: &str, min: usize, max: usize) -> Result<(), Problem> {
        let n = s.chars().count();
        if n < min {
            Err(Problem::msg("String value is too short."))
        } else if n > max {
            Err(Problem::msg("String value is too long."))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cx() -> Cx {
        Cx::kyiv(false)
    }

    #[derive(Debug, Clone, PartialEq, Serialize)]
    struct Pair {
        a: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<String>,
    }

    impl FromJson for Pair {
        fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
            let mut o = Obj::new(v, cx, "Pair")?;
            let a = o.req("a");
            let b = o.opt("b");
            o.done(|| Some(Pair { a: a?, b }))
        }
    }

    fn pairs(leaves: &[(&str, &str)]) -> Vec<(String, String)> {
        leaves
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_string()))
            .collect()
    }

    /// A pair and a note, read new or as a change to the ones held.
    #[derive(Debug, Clone, PartialEq)]
    struct Held {
        pair: Pair,
        note: Option<String>,
    }

    fn held(v: Json, base: Option<&Held>) -> Result<Held, Problem> {
        let cx = cx();
        let v = Input::view(&v);
        let mut o = Obj::new(&v, &cx, "Held")?;
        let pair = o.req_or("pair", base.map(|b| b.pair.clone()));
        let note = o.opt_or("note", base.map(|b| b.note.clone()));
        o.done(|| Some(Held { pair: pair?, note }))
    }

    #[test]
    fn a_change_keeps_what_it_leaves_out_and_merges_what_it_sends() {
        let base = Held {
            pair: Pair {
                a: 1.0,
                b: Some("b".into()),
            },
            note: Some("note".into()),
        };
        let read = |v: Json| held(v, Some(&base));
        assert_eq!(read(json!({})), Ok(base.clone()));
        let merged = read(json!({"pair": {"a": 2}, "note": "new"})).expect("valid");
        assert_eq!(
            merged.pair,
            Pair {
                a: 2.0,
                b: Some("b".into())
            }
        );
        assert_eq!(merged.note.as_deref(), Some("new"));
        let removed = read(json!({"pair": {"b": null}, "note": null})).expect("valid");
        assert_eq!((removed.pair.b, removed.note), (None, None));
        let err = read(json!({"pair": {"a": "x", "c": 1}})).expect_err("invalid");
        assert_eq!(
            err.leaves(""),
            pairs(&[
                ("pair.a", "Value 'x' is not float."),
                ("pair.c", "Rogue field")
            ])
        );
        let err = read(json!({"pair": null})).expect_err("invalid");
        assert_eq!(err.flat(), json!({"pair": "This field is required."}));
        let err = read(json!({"pair": "x"})).expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"pair": "Please use a mapping for this field or Pair instance instead of unicode."})
        );
    }

    #[test]
    fn without_a_base_a_change_reads_as_new() {
        let err = held(json!({"note": "n"}), None).expect_err("invalid");
        assert_eq!(err.flat(), json!({"pair": "This field is required."}));
        let new = held(json!({"pair": {"a": 3}}), None).expect("valid");
        assert_eq!(new.pair, Pair { a: 3.0, b: None });
        assert_eq!(new.note, None);
    }

    #[test]
    fn collects_every_problem_in_order() {
        let err =
            Pair::from_value(&json!({"a": "x", "b": {}, "c": 1}), &cx()).expect_err("invalid");
        assert_eq!(
            err.leaves(""),
            pairs(&[
                ("a", "Value 'x' is not float."),
                ("b", "Couldn't interpret '{}' as string."),
                ("c", "Rogue field"),
            ])
        );
    }

    #[test]
    fn null_counts_as_missing() {
        let err = Pair::from_value(&json!({"a": null}), &cx()).expect_err("invalid");
        assert_eq!(err.flat(), json!({"a": "This field is required."}));
        let ok = Pair::from_value(&json!({"a": 5, "b": null}), &cx()).expect("valid");
        assert_eq!((ok.a, ok.b), (5.0, None));
    }

    #[test]
    fn lists_report_per_index_and_skip_valid_entries() {
        let err = Vec::<Pair>::from_value(&json!([{"a": 1}, {}, {"a": 2, "z": 0}]), &cx())
            .expect_err("invalid");
        assert_eq!(
            err.leaves("pairs"),
            pairs(&[
                ("pairs.1.a", "This field is required."),
                ("pairs.2.z", "Rogue field"),
            ])
        );
        let err = Vec::<Pair>::from_value(&json!([{}, {"a": 1}, {"a": "x"}, {"a": 2}]), &cx())
            .expect_err("invalid");
        assert_eq!(
            err.leaves("pairs"),
            pairs(&[
                ("pairs.0.a", "This field is required."),
                ("pairs.2.a", "Value 'x' is not float."),
            ])
        );
        let err = Vec::<Pair>::from_value(&json!("x"), &cx()).expect_err("invalid");
        assert_eq!(
            err.leaves("pairs"),
            pairs(&[("pairs", "Could not interpret the value as a list")])
        );
    }

    #[test]
    fn several_messages_of_one_field_join_with_a_space() {
        let problem = Problem::field(
            "period",
            Problem::field(
                "endDate",
                Problem::Messages(vec!["First.".into(), "Second.".into()]),
            ),
        );
        assert_eq!(
            problem.leaves(""),
            pairs(&[("period.endDate", "First. Second.")])
        );
    }

    #[test]
    fn non_object_names_the_model() {
        let err = Pair::from_value(&json!("str"), &cx()).expect_err("invalid");
        assert_eq!(
            err.leaves("pair"),
            pairs(&[(
                "pair",
                "Please use a mapping for this field or Pair instance instead of unicode."
            )])
        );
    }

    #[test]
    fn integers_accept_whole_floats_only() {
        assert_eq!(i64::from_value(&json!(5.0), &cx()).ok(), Some(5));
        assert!(i64::from_value(&json!(5.5), &cx()).is_err());
        assert!(i64::from_value(&json!("5"), &cx()).is_err());
    }
}
