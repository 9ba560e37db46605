//! The harness's layers and the test that holds every module to them: a file names (by a
//! `crate::` path, in a `use` or inline) only its own layer and the layers beneath it, and no
//! modules name each other in a circle. Read from the sources, so an arrow that runs back up
//! fails the build's tests, naming the file and the line.

use std::collections::{BTreeMap, BTreeSet};

/// The layers from the bottom up, each a folder of `src/`; a layer may name those before it.
const LAYERS: &[&str] = &["exchange", "checks", "target", "world", "steps", "run"];

/// Files beside the layers: the crate's root assembles them, the binary uses the crate, and
/// this table is no layer.
const OUTSIDE: &[&str] = &["lib.rs", "main.rs", "layers.rs"];

/// One path a file names, as segments after `crate::` (or resolved from `super::`), and the
/// line (from 1) it starts on.
#[derive(Debug, PartialEq, Eq)]
struct Named {
    path: Vec<String>,
    line: usize,
}

/// The module a file under `src/` holds: `checks/mod.rs` is `checks`, `run/report/html.rs`
/// is `run::report::html`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Source text with comment lines blanked, so that a doc naming a layer is no arrow.
fn code(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("//") {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Reads a use tree at `at` (after `crate::` or `super::`): `a::b`, `a::{b, c::{self, D}}`,
/// `a::*`. Every path it names goes to `out`, prefixed with `prefix`.
fn tree(
    chars: &[char],
    mut at: usize,
    prefix: &[String],
    lines: &[usize],
    out: &mut Vec<Named>,
) -> usize {
    let skip_space = |mut i: usize| {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let mut path = prefix.to_vec();
    let line = lines[at.min(chars.len() - 1)];
    loop {
        at = skip_space(at);
        match chars.get(at) {
            Some('{') => {
                at += 1;
                loop {
                    at = skip_space(at);
                    match chars.get(at) {
                        Some('}') => return at + 1,
                        Some(',') => at += 1,
                        Some(_) => {
                            let next = tree(chars, at, &path, lines, out);
                            at = next.max(at + 1);
                        }
                        None => return at,
                    }
                }
            }
            Some('*') => {
                out.push(Named { path, line });
                return at + 1;
            }
            Some(c) if is_ident(*c) => {
                let start = at;
                while at < chars.len() && is_ident(chars[at]) {
                    at += 1;
                }
                let segment: String = chars[start..at].iter().collect();
                if segment != "self" {
                    path.push(segment);
                }
                if chars.get(at) == Some(&':') && chars.get(at + 1) == Some(&':') {
                    at += 2;
                    continue;
                }
                out.push(Named { path, line });
                return at;
            }
            _ => {
                out.push(Named { path, line });
                return at;
            }
        }
    }
}

/// Every path `text` (the file holding `module`) names through `crate::` or `super::`,
/// groups spread out. `use super::*`, a test module's view of its own file, is left out.
fn named_paths(module: &[String], text: &str) -> Vec<Named> {
    let text = code(text);
    let chars: Vec<char> = text.chars().collect();
    let mut lines = Vec::with_capacity(chars.len());
    let mut line = 1;
    for c in &chars {
        lines.push(line);
        if *c == '\n' {
            line += 1;
        }
    }
    let parent = &module[..module.len().saturating_sub(1)];
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let starts = at == 0 || !is_ident(chars[at - 1]);
        let rest = |word: &str| {
            word.chars()
                .enumerate()
                .all(|(i, c)| chars.get(at + i) == Some(&c))
        };
        if starts && rest("crate::") {
            at = tree(&chars, at + 7, &[], &lines, &mut out);
        } else if starts && rest("super::") && chars.get(at + 7) != Some(&'*') {
            at = tree(&chars, at + 7, parent, &lines, &mut out);
        } else {
            at += 1;
        }
    }
    out
}

/// What is wrong with the arrows between `files` (path under `src/`, text): an arrow up or
/// out of the layers, with its file and line, and every circle of modules.
fn arrows_against_layers(files: &[(String, String)]) -> Vec<String> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(f, _)| module_of(f)).collect();
    let mut problems = Vec::new();
    let mut arrows: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (file, text) in files {
        if OUTSIDE.contains(&file.as_str()) {
            continue;
        }
        let module = module_of(file);
        let folder = file.split_once('/').map(|(folder, _)| folder);
        let Some(rank) = LAYERS.iter().position(|l| Some(*l) == folder) else {
            problems.push(format!("{file}: not in a layer (a folder of {LAYERS:?})"));
            continue;
        };
        let source: Vec<&str> = text.lines().collect();
        for named in named_paths(&module, text) {
            let shown = source.get(named.line - 1).map_or("", |l| l.trim());
            let first = named.path.first().map_or("", String::as_str);
            match LAYERS.iter().position(|l| *l == first) {
                Some(other) if other <= rank => {}
                Some(_) => problems.push(format!(
                    "{file}:{}: the {} layer names `{first}`, a layer above it: {shown}",
                    named.line, LAYERS[rank]
                )),
                None => problems.push(format!(
                    "{file}:{}: names `{first}`, which is no layer: {shown}",
                    named.line
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
    problems.extend(circles(&arrows));
    problems
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

#[test]
fn every_module_names_only_its_layer_and_those_beneath_without_a_circle() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    assert!(files.len() > 40, "src/ read: {} files", files.len());
    let problems = arrows_against_layers(&files);
    assert!(
        problems.is_empty(),
        "arrows against the layers:\n{}",
        problems.join("\n")
    );
}

/// The harness's own tree with one upward line planted in its lowest layer: the check that
/// passes above fails on it, naming the file, the line and the circle the line closes.
#[test]
fn one_upward_line_planted_in_the_real_tree_fails() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    let (_, exchange) = files
        .iter_mut()
        .find(|(file, _)| file == "exchange/mod.rs")
        .expect("the exchange layer has a mod.rs");
    let planted = exchange.lines().count() + 1;
    exchange.push_str("use crate::run::outcome::Outcome;\n");
    let problems = arrows_against_layers(&files);
    assert_eq!(
        problems.first().map(String::as_str),
        Some(
            format!(
                "exchange/mod.rs:{planted}: the exchange layer names `run`, a layer above it: use crate::run::outcome::Outcome;"
            )
            .as_str()
        ),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("modules in a circle: exchange → run::outcome")),
        "{problems:#?}"
    );
}

fn tree_of(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect()
}

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
        arrows_against_layers(&files),
        [
            "checks/shape.rs:4: the checks layer names `world`, a layer above it: world::TenderWorld,",
            "checks/mod.rs:2: the checks layer names `run`, a layer above it: crate::run::report::title()",
            "modules in a circle: checks::shape → world → checks::shape",
        ]
    );
}

#[test]
fn a_circle_inside_a_layer_and_a_path_outside_the_layers_are_reported() {
    let files = tree_of(&[
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
        arrows_against_layers(&files),
        [
            "steps/lots.rs:1: names `timestamps`, which is no layer: use crate::timestamps::parse;",
            "helpers.rs: not in a layer (a folder of [\"exchange\", \"checks\", \"target\", \"world\", \"steps\", \"run\"])",
            "modules in a circle: target → target::acceleration → target",
        ]
    );
}

#[test]
fn groups_spread_into_one_path_each() {
    let module = module_of("steps/contracting.rs");
    assert_eq!(module, ["steps", "contracting"]);
    let named = named_paths(
        &module,
        "use crate::{\n    checks::{self, shape::{Violation, walk}},\n    target::*,\n};\nuse super::{awards, lots};\nlet x = my_crate::no;\n",
    );
    let paths: Vec<(String, usize)> = named.iter().map(|n| (n.path.join("::"), n.line)).collect();
    assert_eq!(
        paths,
        [
            ("checks".to_string(), 2),
            ("checks::shape::Violation".to_string(), 2),
            ("checks::shape::walk".to_string(), 2),
            ("target".to_string(), 3),
            ("steps::awards".to_string(), 5),
            ("steps::lots".to_string(), 5),
        ]
    );
}
