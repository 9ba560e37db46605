//! The server's rooms and which may use which, from the bottom up: a room names only rooms
//! beneath it, so no import runs back up and none closes a circle. The test reads every
//! `crate::` and `super::` path of `src/` and holds the rooms to this table (the reading and
//! the rules are the `arrows` crate's, shared with the harness's layers).

/// Each room of `src/` (a folder or a file beside `lib.rs`) and the rooms it may name.
/// `contracting` is two: its rules, beneath the store, and `contracting::api`, a router.
/// `domain::values`, the value types, know nothing of a tender: nothing of the rest of
/// `domain` nor of any other room.
const ROOMS: &[(&str, &[&str])] = &[
    ("domain::values", &[]),
    ("domain", &["domain::values"]),
    ("limits", &[]),
    ("settings", &["limits"]),
    ("tls", &[]),
    ("clock", &["domain", "domain::values", "limits"]),
    ("faults", &["domain", "domain::values"]),
    ("edr", &["domain", "domain::values"]),
    ("files", &["domain", "domain::values", "limits"]),
    ("contracting", &["domain", "domain::values"]),
    (
        "store",
        &["domain", "domain::values", "clock", "contracting", "limits"],
    ),
    (
        "stored_clocks",
        &["domain", "domain::values", "clock", "store"],
    ),
    ("requests", &["domain", "domain::values", "store"]),
    ("scheduler", &["domain", "domain::values", "clock", "store"]),
    (
        "http",
        &[
            "domain",
            "domain::values",
            "clock",
            "faults",
            "edr",
            "files",
            "store",
            "contracting",
            "limits",
            "requests",
        ],
    ),
    (
        "requests::api",
        &["http", "requests", "domain", "domain::values", "store"],
    ),
    (
        "api",
        &[
            "http",
            "domain",
            "domain::values",
            "clock",
            "faults",
            "edr",
            "files",
            "store",
            "contracting",
            "limits",
        ],
    ),
    (
        "auction",
        &[
            "http",
            "domain",
            "domain::values",
            "clock",
            "faults",
            "files",
            "store",
        ],
    ),
    (
        "contracting::api",
        &[
            "http",
            "domain",
            "domain::values",
            "clock",
            "faults",
            "files",
            "store",
            "contracting",
        ],
    ),
    (
        "routes",
        &[
            "api",
            "auction",
            "contracting::api",
            "requests",
            "requests::api",
            "http",
            "domain",
            "domain::values",
            "clock",
            "faults",
            "files",
            "store",
            "contracting",
            "limits",
        ],
    ),
];

/// Files beside the rooms: `lib.rs` and `main.rs` assemble every room; this table is none.
const OUTSIDE: &[&str] = &["lib.rs", "main.rs", "rooms.rs"];

/// The records of `domain::records` hold each other (a tender its awards, an award its
/// tender's lots), so circles are let through inside a room; between rooms the table's layers
/// forbid them.
fn rooms() -> arrows::Rooms {
    arrows::Rooms::table(ROOMS, OUTSIDE).circles_within_a_room()
}

fn own_sources() -> Vec<(String, String)> {
    let files = arrows::sources(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(files.len() > 50, "src/ read: {} files", files.len());
    files
}

/// The server's tree with one upward line planted in a room: the check fails on it, naming
/// the file and the line; the value types reaching the records above them through
/// `super::super` included.
#[test]
fn one_upward_line_planted_in_the_real_tree_fails() {
    for (file, line, named) in [
        (
            "domain/mod.rs",
            "use crate::api::tenders;",
            "the `domain` room names `api`",
        ),
        (
            "domain/values/document.rs",
            "use super::super::records::tender::Tender;",
            "the `domain::values` room names `domain`",
        ),
    ] {
        let mut files = own_sources();
        let planted = arrows::plant(&mut files, file, line);
        assert_eq!(
            rooms().problems(&files),
            [format!(
                "{file}:{planted}: {named}, which it may not use: {line}"
            )]
        );
    }
}

#[test]
fn no_room_names_a_room_above_it() {
    let problems = rooms().problems(&own_sources());
    assert!(
        problems.is_empty(),
        "arrows against the rooms:\n{}",
        problems.join("\n")
    );
}
