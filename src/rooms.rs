//! The server's rooms and which may use which, from the bottom up: a room names only rooms
//! beneath it, so no import runs back up and none closes a circle. The tests read every
//! `crate::` path of `src/` and hold the rooms to this table.

/// Each room of `src/` (a folder or a file beside `lib.rs`) and the rooms it may name.
/// `contracting` is two: its rules, beneath the store, and `contracting::api`, a router.
const ROOMS: &[(&str, &[&str])] = &[
    ("domain", &[]),
    ("settings", &[]),
    ("tls", &[]),
    ("clock", &["domain"]),
    ("faults", &["domain"]),
    ("files", &["domain"]),
    ("contracting", &["domain"]),
    ("store", &["domain", "clock", "contracting"]),
    ("kept", &["domain", "clock", "store"]),
    ("scheduler", &["domain", "clock", "store"]),
    (
        "http",
        &["domain", "clock", "faults", "files", "store", "contracting"],
    ),
    (
        "api",
        &[
            "http",
            "domain",
            "clock",
            "faults",
            "files",
            "store",
            "contracting",
        ],
    ),
    (
        "auction",
        &["http", "domain", "clock", "faults", "files", "store"],
    ),
    (
        "contracting::api",
        &[
            "http",
            "domain",
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
            "http",
            "domain",
            "clock",
            "faults",
            "files",
            "store",
            "contracting",
        ],
    ),
];

/// The room of a file under `src/`; none for `lib.rs` and `main.rs`, which assemble every
/// room, and for this table.
fn room_of_file(relative: &str) -> Option<String> {
    if ["lib.rs", "main.rs", "rooms.rs"].contains(&relative) {
        return None;
    }
    if relative == "contracting/api.rs" {
        return Some("contracting::api".into());
    }
    let first = relative.split('/').next()?;
    Some(first.trim_end_matches(".rs").to_string())
}

/// The room a `crate::` path names: its first segment, `contracting::api` apart.
fn room_of_path(path: &str) -> String {
    let first: String = path
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let rest = &path[first.len()..];
    let api = rest
        .strip_prefix("::api")
        .is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
    if first == "contracting" && api {
        "contracting::api".into()
    } else {
        first
    }
}

fn allowed(room: &str) -> Option<&'static [&'static str]> {
    ROOMS
        .iter()
        .find(|(r, _)| *r == room)
        .map(|(_, uses)| *uses)
}

/// Every `.rs` file under `dir`, with its path relative to `root`.
fn sources(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    let entries = std::fs::read_dir(dir).expect("src/ is readable");
    for entry in entries {
        let path = entry.expect("an entry of src/").path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under src/");
            let relative = relative.to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            out.push((relative, text));
        }
    }
}

/// Every room a file names (`crate::` paths outside comments), with the line naming it.
fn named_rooms(text: &str) -> Vec<(String, &str)> {
    let mut named = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        for path in line.split("crate::").skip(1) {
            let room = if path.starts_with('{') {
                // A group could hide any room: one path per room keeps the table checkable.
                "{".to_string()
            } else {
                room_of_path(path)
            };
            named.push((room, line));
        }
    }
    named
}

#[test]
fn no_room_names_a_room_above_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    assert!(files.len() > 50, "src/ read: {} files", files.len());
    let mut upward = Vec::new();
    for (file, text) in &files {
        let Some(room) = room_of_file(file) else {
            continue;
        };
        let Some(uses) = allowed(&room) else {
            upward.push(format!(
                "{file}: room `{room}` is not in the table of rooms"
            ));
            continue;
        };
        for (named, line) in named_rooms(text) {
            if named != room && !uses.contains(&named.as_str()) {
                upward.push(format!(
                    "{file} (`{room}`) names `{named}`: {}",
                    line.trim()
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the rooms' order:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_rooms_stand_in_layers_without_a_circle() {
    let mut placed: Vec<&str> = Vec::new();
    while placed.len() < ROOMS.len() {
        let next: Vec<&str> = ROOMS
            .iter()
            .filter(|(room, uses)| {
                !placed.contains(room) && uses.iter().all(|u| placed.contains(u))
            })
            .map(|(room, _)| *room)
            .collect();
        let left: Vec<&str> = ROOMS
            .iter()
            .map(|(room, _)| *room)
            .filter(|room| !placed.contains(room))
            .collect();
        assert!(
            !next.is_empty(),
            "these rooms use each other in a circle: {left:?}"
        );
        placed.extend(next);
    }
}

#[test]
fn an_upward_import_is_caught() {
    let text = "use crate::http::App;\nuse crate::contracting::api::router;\n// crate::routes\n";
    let named: Vec<String> = named_rooms(text).into_iter().map(|(r, _)| r).collect();
    assert_eq!(named, ["http", "contracting::api"]);
    let uses = allowed("http").expect("http is a room");
    assert!(!uses.contains(&"contracting::api"));
    assert_eq!(room_of_path("contracting::Contract"), "contracting");
    assert_eq!(room_of_path("contracting::api_of"), "contracting");
    assert_eq!(
        room_of_file("contracting/api.rs").as_deref(),
        Some("contracting::api")
    );
    assert_eq!(room_of_file("api/openapi/paths.rs").as_deref(), Some("api"));
}
