//! The words generated request bodies are made of, from `vocabulary.json` beside this file:
//! Ukrainian cities, streets, people, procuring entities, firms, and ДК021 items with their
//! ДКПП codes and units.
//!
//! The harness (`certifier/`) and the benchmark (`bench/`) both include this module by path, so
//! that neither builds the other and the vocabulary lives in one place.

use serde::Deserialize;
use std::sync::LazyLock;

#[derive(Debug, Deserialize)]
pub struct Vocabulary {
    pub cities: Vec<City>,
    pub streets: Vec<String>,
    pub people: Vec<String>,
    /// Names of procuring entities; `{n}` stands for a number.
    pub entities: Vec<String>,
    pub firms: Vec<String>,
    pub items: Vec<Item>,
}

#[derive(Debug, Deserialize)]
pub struct City {
    pub city: String,
    pub region: String,
    /// The first digits of the city's postal codes.
    pub postal: String,
}

/// A ДК021 item: its code, its description in Ukrainian, English and Russian, a ДКПП
/// classification and a unit.
#[derive(Debug, Deserialize)]
pub struct Item {
    pub code: String,
    pub uk: String,
    pub en: String,
    pub ru: String,
    pub dkpp: Classification,
    pub unit: Unit,
}

#[derive(Debug, Deserialize)]
pub struct Classification {
    pub id: String,
    pub description: String,
}

#[derive(Debug, Deserialize)]
pub struct Unit {
    pub code: String,
    pub name: String,
}

/// Compiled into the binary; its validity is checked by [`tests::the_vocabulary_reads`].
pub static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| {
    serde_json::from_str(include_str!("vocabulary.json"))
        .unwrap_or_else(|e| panic!("scenarios/vocabulary.json: {e}"))
});

#[cfg(test)]
mod tests {
    use super::VOCABULARY;

    #[test]
    fn the_vocabulary_reads() {
        let v = &*VOCABULARY;
        assert!(!v.cities.is_empty() && !v.streets.is_empty() && !v.people.is_empty());
        assert!(!v.entities.is_empty() && !v.firms.is_empty() && !v.items.is_empty());
        assert!(
            v.items
                .iter()
                .all(|i| i.code.len() == 10 && i.code.as_bytes()[8] == b'-')
        );
    }
}
