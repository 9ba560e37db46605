//! A table of rooms and which may use which, and what is wrong with a crate's arrows against
//! it: a path naming a room the table forbids or no room at all, a file in no room, a table
//! that does not stand in layers, and modules naming each other in a circle.

use std::collections::{BTreeMap, BTreeSet};

use crate::paths::{module_of, named_paths};

/// Rooms from the bottom up, each a module path (`domain`, `contracting::api`) and the rooms
/// it may name besides itself; a module belongs to the longest room its path starts with.
pub struct Rooms {
    kind: &'static str,
    table: Vec<(Vec<String>, Vec<Vec<String>>)>,
    outside: Vec<String>,
    module_circles: bool,
}

fn segments(room: &str) -> Vec<String> {
    room.split("::").map(str::to_owned).collect()
}

impl Rooms {
    /// Layers from the bottom up: each may name those before it. `outside` are the files
    /// beside the layers (the crate's root, the binary, the table's own test).
    pub fn layered(layers: &[&str], outside: &[&str]) -> Self {
        let table = layers
            .iter()
            .enumerate()
            .map(|(i, layer)| {
                (
                    segments(layer),
                    layers[..i].iter().map(|l| segments(l)).collect(),
                )
            })
            .collect();
        Self {
            kind: "layer",
            table,
            outside: outside.iter().map(|f| f.to_string()).collect(),
            module_circles: true,
        }
    }

    /// Rooms with the rooms each may name, listed from the bottom up.
    pub fn table(rooms: &[(&str, &[&str])], outside: &[&str]) -> Self {
        let table = rooms
            .iter()
            .map(|(room, uses)| (segments(room), uses.iter().map(|u| segments(u)).collect()))
            .collect();
        Self {
            kind: "room",
            table,
            outside: outside.iter().map(|f| f.to_string()).collect(),
            module_circles: true,
        }
    }

    /// Lets modules of one room name each other in a circle (records that hold each other);
    /// rooms still may not, as the table stands in layers.
    pub fn circles_within_a_room(mut self) -> Self {
        self.module_circles = false;
        self
    }

    /// The room of a module or of a path it names: the longest room it starts with.
    fn room_of(&self, path: &[String]) -> Option<usize> {
        self.table
            .iter()
            .enumerate()
            .filter(|(_, (room, _))| path.starts_with(room))
            .max_by_key(|(_, (room, _))| room.len())
            .map(|(i, _)| i)
    }

    /// The table's own fault: rooms that may use each other in a circle, or a room naming
    /// one the table does not hold.
    pub fn table_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let known: Vec<&Vec<String>> = self.table.iter().map(|(room, _)| room).collect();
        for (room, uses) in &self.table {
            for used in uses.iter().filter(|u| !known.contains(u)) {
                problems.push(format!(
                    "`{}` may use `{}`, which is no {}",
                    room.join("::"),
                    used.join("::"),
                    self.kind
                ));
            }
        }
        let mut placed: Vec<&Vec<String>> = Vec::new();
        while placed.len() < self.table.len() {
            let next: Vec<&Vec<String>> = self
                .table
                .iter()
                .filter(|(room, uses)| {
                    !placed.contains(&room) && uses.iter().all(|u| placed.contains(&u))
                })
                .map(|(room, _)| room)
                .collect();
            if next.is_empty() {
                let left: Vec<String> = known
                    .iter()
                    .filter(|room| !placed.contains(room))
                    .map(|room| room.join("::"))
                    .collect();
                problems.push(format!(
                    "these {}s may use each other in a circle: {}",
                    self.kind,
                    left.join(", ")
                ));
                break;
            }
            placed.extend(next);
        }
        problems
    }

    /// What is wrong with the arrows between `files` (path under `src/`, text): an arrow the
    /// table forbids or out of every room, with its file and line, a file in no room, and every
    /// circle of modules.
    pub fn problems(&self, files: &[(String, String)]) -> Vec<String> {
        let kind = self.kind;
        let modules: BTreeSet<Vec<String>> = files.iter().map(|(f, _)| module_of(f)).collect();
        let mut problems = self.table_problems();
        let mut arrows: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (file, text) in files {
            if self.outside.contains(file) {
                continue;
            }
            let module = module_of(file);
            let Some(room) = self.room_of(&module) else {
                let rooms: Vec<String> = self.table.iter().map(|(r, _)| r.join("::")).collect();
                problems.push(format!(
                    "{file}: in no {kind} (the {kind}s: {})",
                    rooms.join(", ")
                ));
                continue;
            };
            let (name, uses) = &self.table[room];
            let source: Vec<&str> = text.lines().collect();
            for named in named_paths(&module, text) {
                let shown = source.get(named.line - 1).map_or("", |l| l.trim());
                match self.room_of(&named.path) {
                    Some(other) if other == room || uses.contains(&self.table[other].0) => {}
                    Some(other) => problems.push(format!(
                        "{file}:{}: the `{}` {kind} names `{}`, which it may not use: {shown}",
                        named.line,
                        name.join("::"),
                        self.table[other].0.join("::"),
                    )),
                    None => problems.push(format!(
                        "{file}:{}: names `{}`, which is in no {kind}: {shown}",
                        named.line,
                        named.path.first().map_or("", String::as_str)
                    )),
                }
                let target = (1..=named.path.len())
                    .rev()
                    .map(|n| named.path[..n].to_vec())
                    .find(|m| modules.contains(m));
                if let Some(target) = target.filter(|t| *t != module) {
                    arrows.entry(module.clone()).or_default().insert(target);
                }
            }
        }
        if self.module_circles {
            problems.extend(circles(&arrows));
        }
        problems
    }
}

/// Every circle among the modules, one line each (`a → b → a`).
fn circles(arrows: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    fn visit(
        at: &Vec<String>,
        arrows: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        path: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
        found: &mut Vec<String>,
    ) {
        if let Some(start) = path.iter().position(|m| m == at) {
            let mut circle: Vec<String> = path[start..].iter().map(|m| m.join("::")).collect();
            circle.push(at.join("::"));
            found.push(format!("modules in a circle: {}", circle.join(" → ")));
            return;
        }
        if done.contains(at) {
            return;
        }
        path.push(at.clone());
        for next in arrows.get(at).into_iter().flatten() {
            visit(next, arrows, path, done, found);
        }
        path.pop();
        done.insert(at.clone());
    }
    let mut found = Vec::new();
    let mut done = BTreeSet::new();
    for module in arrows.keys() {
        visit(module, arrows, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_of(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect()
    }

    const LAYERS: &[&str] = &["exchange", "checks", "target", "world", "steps", "run"];

    #[test]
    fn an_upward_import_is_reported_with_its_file_and_line() {
        let files = tree_of(&[
            ("exchange/mod.rs", "pub fn short() {}\n"),
            (
                "checks/shape.rs",
                "//! Shapes: see crate::world for who applies them.\nuse crate::{\n    exchange::short,\n    world::TenderWorld,\n};\n",
            ),
            (
                "checks/mod.rs",
                "fn f() -> String {\n    crate::run::report::title()\n}\n",
            ),
            ("world/mod.rs", "use crate::checks::shape;\n"),
            ("run/report.rs", "pub fn title() {}\n"),
        ]);
        assert_eq!(
            Rooms::layered(LAYERS, &["lib.rs"]).problems(&files),
            [
                "checks/shape.rs:4: the `checks` layer names `world`, which it may not use: world::TenderWorld,",
                "checks/mod.rs:2: the `checks` layer names `run`, which it may not use: crate::run::report::title()",
                "modules in a circle: checks::shape → world → checks::shape",
            ]
        );
    }

    #[test]
    fn a_circle_inside_a_layer_and_a_path_outside_the_layers_are_reported() {
        let files = tree_of(&[
            ("lib.rs", "pub use crate::nowhere::Thing;\n"),
            (
                "target/mod.rs",
                "use crate::target::acceleration::Acceleration;\n",
            ),
            (
                "target/acceleration.rs",
                "use super::Target;\nuse super::*;\n",
            ),
            ("steps/lots.rs", "use crate::timestamps::parse;\n"),
            ("helpers.rs", ""),
        ]);
        assert_eq!(
            Rooms::layered(LAYERS, &["lib.rs"]).problems(&files),
            [
                "steps/lots.rs:1: names `timestamps`, which is in no layer: use crate::timestamps::parse;",
                "helpers.rs: in no layer (the layers: exchange, checks, target, world, steps, run)",
                "modules in a circle: target → target::acceleration → target",
            ]
        );
    }

    /// A room inside a room (`contracting::api`, a router, above `contracting`'s rules) is
    /// told apart by whole segments: `contracting::api_of` is the rules' own.
    const ROOMS: &[(&str, &[&str])] = &[
        ("domain", &[]),
        ("contracting", &["domain"]),
        ("http", &["domain", "contracting"]),
        ("contracting::api", &["http", "domain", "contracting"]),
    ];

    #[test]
    fn a_room_inside_a_room_is_held_to_its_own_row() {
        let files = tree_of(&[
            ("domain/mod.rs", ""),
            (
                "contracting/mod.rs",
                "use crate::domain::Tender;\nuse crate::contracting::api_of;\nuse crate::contracting::api::router;\n",
            ),
            (
                "contracting/api.rs",
                "use crate::{http::App, contracting::Rules};\n",
            ),
            ("http/mod.rs", "use crate::contracting::api::router;\n"),
        ]);
        assert_eq!(
            Rooms::table(ROOMS, &[]).problems(&files),
            [
                "contracting/mod.rs:3: the `contracting` room names `contracting::api`, which it may not use: use crate::contracting::api::router;",
                "http/mod.rs:1: the `http` room names `contracting::api`, which it may not use: use crate::contracting::api::router;",
                "modules in a circle: contracting → contracting::api → contracting",
                "modules in a circle: contracting::api → http → contracting::api",
            ]
        );
    }

    #[test]
    fn circles_within_a_room_may_be_let_through() {
        let files = tree_of(&[
            ("domain/tender.rs", "use super::award::Award;\n"),
            ("domain/award.rs", "use crate::domain::tender::Tender;\n"),
            ("http/mod.rs", "use crate::domain::tender::Tender;\n"),
        ]);
        assert_eq!(
            Rooms::table(ROOMS, &[]).problems(&files),
            ["modules in a circle: domain::award → domain::tender → domain::award"]
        );
        assert!(
            Rooms::table(ROOMS, &[])
                .circles_within_a_room()
                .problems(&files)
                .is_empty()
        );
    }

    #[test]
    fn a_table_whose_rooms_use_each_other_is_refused() {
        let circle = Rooms::table(
            &[
                ("domain", &[]),
                ("store", &["api"]),
                ("api", &["store", "files"]),
            ],
            &[],
        );
        assert_eq!(
            circle.table_problems(),
            [
                "`api` may use `files`, which is no room",
                "these rooms may use each other in a circle: store, api",
            ]
        );
        assert!(Rooms::table(ROOMS, &[]).table_problems().is_empty());
        assert!(Rooms::layered(LAYERS, &[]).table_problems().is_empty());
    }
}
