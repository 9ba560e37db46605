//! Value types that know nothing of a tender: money and periods, time, ids and tokens,
//! parties, items and features, documents, the parsing and merging of JSON bodies, and
//! the writing of JSON text.

pub mod document;
pub mod ids;
pub mod input;
pub mod item;
pub mod json;
pub mod merge;
pub mod money;
pub mod organization;
pub mod parse;
pub mod stored;
pub mod test_mode;
pub mod text;
pub mod time;

#[cfg(test)]
mod tests {
    /// The room's sources, read at compile time.
    const FILES: [(&str, &str); 13] = [
        ("document.rs", include_str!("document.rs")),
        ("ids.rs", include_str!("ids.rs")),
        ("input.rs", include_str!("input.rs")),
        ("item.rs", include_str!("item.rs")),
        ("json.rs", include_str!("json.rs")),
        ("merge.rs", include_str!("merge.rs")),
        ("money.rs", include_str!("money.rs")),
        ("organization.rs", include_str!("organization.rs")),
        ("parse.rs", include_str!("parse.rs")),
        ("stored.rs", include_str!("stored.rs")),
        ("test_mode.rs", include_str!("test_mode.rs")),
        ("text.rs", include_str!("text.rs")),
        ("time.rs", include_str!("time.rs")),
    ];

    /// The value types know nothing of a tender: they reach nothing of the domain outside
    /// their own room.
    #[test]
    fn values_import_nothing_from_the_aggregate() {
        for (file, text) in FILES {
            for line in text.lines() {
                let outside = line
                    .split("crate::domain::")
                    .skip(1)
                    .any(|rest| !rest.starts_with("values::"));
                assert!(
                    !outside && !line.contains("super::super") && !line.contains("records::"),
                    "{file} reaches outside the value room: {line}"
                );
            }
        }
    }
}
