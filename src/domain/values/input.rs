//! A JSON value as a client sent it, read in one pass with serde and borrowing its strings
//! from the request body: the models read typed values out of it without first building a
//! `serde_json::Value` (a map and an allocation per key and string).
//!
//! It decodes exactly as `serde_json::Value` does (the same numbers, the same errors, and of
//! a key sent twice the last value at the first place), so a body reads the same either way;
//! [`Input::view`] shows a `Value` (a PATCH merged into a held record) the same way.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Number, Value as Json};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Input<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Input<'a>>),
    Object(Fields<'a>),
}

/// The fields of an object, in the order sent, each name once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fields<'a>(Vec<(Cow<'a, str>, Input<'a>)>);

/// Up to this many fields, a name sent twice is found by a scan; past it, by a hash map (so a
/// hostile body of many fields costs linear time).
const SCANNED: usize = 32;

impl<'a> Fields<'a> {
    pub fn get(&self, key: &str) -> Option<&Input<'a>> {
        self.find(key).map(|(_, v)| v)
    }

    /// The place of `key` among the fields, and its value.
    pub fn find(&self, key: &str) -> Option<(usize, &Input<'a>)> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some((at, &self.0[at].1))
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Input<'a>> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Input<'a>)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn remove(&mut self, key: &str) -> Option<Input<'a>> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&str, &Input<'a>) -> bool) {
        self.0.retain(|(k, v)| keep(k, v));
    }

    /// Sets `key`: a name held keeps its place and takes the new value.
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: Input<'a>) {
        let key = key.into();
        match self.get_mut(&key) {
            Some(held) => *held = value,
            None => self.0.push((key, value)),
        }
    }
}

impl<'a> FromIterator<(Cow<'a, str>, Input<'a>)> for Fields<'a> {
    fn from_iter<I: IntoIterator<Item = (Cow<'a, str>, Input<'a>)>>(iter: I) -> Self {
        let mut fields = Fields::default();
        let mut places: Option<HashMap<String, usize>> = None;
        for (key, value) in iter {
            fields.put(&mut places, key, value);
        }
        fields
    }
}

impl<'a> Fields<'a> {
    /// [`Fields::insert`] that switches to a hash map of the places once the object is long.
    fn put(
        &mut self,
        places: &mut Option<HashMap<String, usize>>,
        key: Cow<'a, str>,
        value: Input<'a>,
    ) {
        if places.is_none() && self.0.len() >= SCANNED {
            let map = self.0.iter().enumerate();
            *places = Some(map.map(|(i, (k, _))| (k.to_string(), i)).collect());
        }
        match places {
            None => self.insert(key, value),
            Some(places) => match places.get(key.as_ref()).and_then(|&i| self.0.get_mut(i)) {
                Some(held) => held.1 = value,
                None => {
                    places.insert(key.to_string(), self.0.len());
                    self.0.push((key, value));
                }
            },
        }
    }
}

impl<'a> Input<'a> {
    /// A `serde_json::Value` shown as input, borrowing its strings.
    pub fn view(v: &'a Json) -> Input<'a> {
        match v {
            Json::Null => Input::Null,
            Json::Bool(b) => Input::Bool(*b),
            Json::Number(n) => Input::Number(n.clone()),
            Json::String(s) => Input::String(Cow::Borrowed(s)),
            Json::Array(list) => Input::Array(list.iter().map(Input::view).collect()),
            Json::Object(map) => Input::Object(Fields(
                map.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Input::view(v)))
                    .collect(),
            )),
        }
    }

    /// The same value as a `serde_json::Value`.
    pub fn to_value(&self) -> Json {
        match self {
            Input::Null => Json::Null,
            Input::Bool(b) => Json::Bool(*b),
            Input::Number(n) => Json::Number(n.clone()),
            Input::String(s) => Json::String(s.to_string()),
            Input::Array(list) => Json::Array(list.iter().map(Input::to_value).collect()),
            Input::Object(fields) => Json::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Input<'a>> {
        match self {
            Input::Object(fields) => fields.get(key),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Input::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Input::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Fields<'a>> {
        match self {
            Input::Object(fields) => Some(fields),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Input::Null)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Input::Object(_))
    }
}

/// Compact JSON, as `serde_json::Value` prints it.
impl fmt::Display for Input<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl Serialize for Input<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Input::Null => s.serialize_unit(),
            Input::Bool(b) => s.serialize_bool(*b),
            Input::Number(n) => n.serialize(s),
            Input::String(text) => s.serialize_str(text),
            Input::Array(list) => list.serialize(s),
            Input::Object(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields.iter() {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Input<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(InputVisitor)
    }
}

struct InputVisitor;

impl<'de> Visitor<'de> for InputVisitor {
    type Value = Input<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Input<'de>, E> {
        Ok(Input::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Input<'de>, E> {
        Ok(Input::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Input<'de>, E> {
        Ok(Input::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Input<'de>, E> {
        // As `Value`: a float that is no JSON number reads as null.
        Ok(Number::from_f64(n).map_or(Input::Null, Input::Number))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Input<'de>, E> {
        Ok(Input::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Input<'de>, E> {
        Ok(Input::String(Cow::Owned(s.to_string())))
    }

    fn visit_string<E>(self, s: String) -> Result<Input<'de>, E> {
        Ok(Input::String(Cow::Owned(s)))
    }

    fn visit_unit<E>(self) -> Result<Input<'de>, E> {
        Ok(Input::Null)
    }

    fn visit_none<E>(self) -> Result<Input<'de>, E> {
        Ok(Input::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Input<'de>, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Input<'de>, A::Error> {
        let mut list = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            list.push(item);
        }
        Ok(Input::Array(list))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Input<'de>, A::Error> {
        let mut fields = Fields::default();
        let mut places = None;
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value()?;
            fields.put(&mut places, key, value);
        }
        Ok(Input::Object(fields))
    }
}

/// An object's key, borrowed from the body unless it holds escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Option<Input<'_>> {
        serde_json::from_str(text).ok()
    }

    #[test]
    fn reads_as_serde_json_value_reads() {
        for text in [
            r#"{"a": 1, "b": [true, null, -2, 3.5, 1e3, 18446744073709551615], "c": {"d": "é\n"}}"#,
            r#"{"a": 1, "b": 2, "a": 3}"#,
            r#"["x", {"k\u0065y": "\ud83d\ude00"}, 12345678901234567890123]"#,
            r#""plain""#,
            "-0",
        ] {
            let value: Json = serde_json::from_str(text).expect("valid JSON");
            let input = read(text).expect("valid JSON");
            assert_eq!(input.to_value(), value, "{text}");
            assert_eq!(input.to_string(), value.to_string(), "{text}");
            assert_eq!(Input::view(&value), input, "{text}");
        }
    }

    #[test]
    fn refuses_what_serde_json_value_refuses() {
        for text in [
            r#"{"a": 1e400}"#,
            r#"["\ud800"]"#,
            "{\"a\" 1}",
            "[1,]",
            "1 2",
        ] {
            assert!(serde_json::from_str::<Json>(text).is_err(), "{text}");
            assert!(read(text).is_none(), "{text}");
        }
    }

    #[test]
    fn a_name_sent_twice_keeps_its_first_place_and_its_last_value() {
        let input = read(r#"{"a": 1, "b": 2, "a": 3}"#).expect("valid");
        assert_eq!(input.to_value(), json!({"a": 3, "b": 2}));
        let keys: Vec<&str> = input.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["a", "b"]);
        // Past the scanned length the places are hashed, with the same outcome.
        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!("\"k{}\": {i},", i % 40));
        }
        text.push_str("\"end\": 0}");
        let value: Json = serde_json::from_str(&text).expect("valid");
        let input = read(&text).expect("valid");
        assert_eq!(input.to_value(), value);
        assert_eq!(input.as_object().map(Fields::len), Some(41));
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let input = read(r#"{"plain": "text", "escaped": "a\"b"}"#).expect("valid");
        assert!(matches!(
            input.get("plain"),
            Some(Input::String(Cow::Borrowed("text")))
        ));
        assert!(matches!(input.get("escaped"), Some(Input::String(Cow::Owned(s))) if s == "a\"b"));
    }
}
