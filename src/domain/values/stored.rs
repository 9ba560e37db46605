//! The stored form of a record: the same serde description as the public one, with the
//! fields the views hide (tokens, owners, authors, bids, earlier document versions) written
//! too, so that a field added to a record is kept without the store knowing it.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use std::cell::Cell;

thread_local! {
    static STORING: Cell<bool> = const { Cell::new(false) };
}

/// Restores the public form when serialising ends, even on an error.
struct Storing(bool);

impl Storing {
    fn begin() -> Storing {
        Storing(STORING.with(|s| s.replace(true)))
    }
}

impl Drop for Storing {
    fn drop(&mut self) {
        STORING.with(|s| s.set(self.0));
    }
}

/// Whether a serialisation on this thread writes the stored form.
pub fn storing() -> bool {
    STORING.with(Cell::get)
}

/// For `skip_serializing_if`: a field the public form never shows but the stored form keeps.
pub fn hidden<T>(_: &T) -> bool {
    !storing()
}

/// For `skip_serializing_if`: a field the public form never shows, and the stored form only
/// when it holds something.
pub fn hidden_or_none<T>(value: &Option<T>) -> bool {
    value.is_none() || !storing()
}

/// A record in its stored form, as compact JSON text.
pub fn to_json<T: Serialize>(record: &T) -> serde_json::Result<Vec<u8>> {
    let _storing = Storing::begin();
    super::json::to_vec(record, false)
}

/// A record read back from its stored form.
pub fn from_json<T: DeserializeOwned>(json: &str) -> serde_json::Result<T> {
    serde_json::from_str(json)
}

/// The fixed words some records hold as `&'static str`; a stored word outside this list is
/// an error on loading, never a silent change.
const WORDS: [&str; 6] = [
    "open",
    "lowestCost",
    "electronicAuction",
    "claim",
    "tender_owner",
    "complaint_owner",
];

fn word<E: serde::de::Error>(text: String) -> Result<&'static str, E> {
    WORDS
        .iter()
        .find(|w| **w == text)
        .copied()
        .ok_or_else(|| E::custom(format!("unknown stored word {text:?}")))
}

/// A `&'static str` as a record field: spelt through this alias, serde does not take the
/// field for a borrow of its input, and [`static_str`] reads it back.
pub type Word = &'static str;

/// `deserialize_with` for a `&'static str` field.
pub fn static_str<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    word(String::deserialize(d)?)
}

/// `deserialize_with` for an `Option<&'static str>` field.
pub fn static_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'static str>, D::Error> {
    Option::<String>::deserialize(d)?.map(word).transpose()
}
