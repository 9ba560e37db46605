//! Reading a crate's sources: which module a file holds, and every path it names through
//! `crate::` or `super::`, use groups spread into one path each, comments left out.

/// One path a file names, as segments after `crate::` (or resolved from `super::`), and the
/// line (from 1) it starts on.
#[derive(Debug, PartialEq, Eq)]
pub struct Named {
    pub path: Vec<String>,
    pub line: usize,
}

/// The module a file under `src/` holds: `checks/mod.rs` is `checks`, `run/report/html.rs`
/// is `run::report::html`.
pub fn module_of(file: &str) -> Vec<String> {
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

/// Source text with comments and the insides of string and character literals blanked (line
/// breaks kept, so lines still count), so that a doc or a message naming a module is no arrow.
fn code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        let end = if c == '/' && next == Some('/') {
            // A line comment, to the line's end.
            (at..chars.len())
                .find(|&i| chars[i] == '\n')
                .unwrap_or(chars.len())
        } else if c == '/' && next == Some('*') {
            (at + 2..chars.len())
                .find(|&i| chars[i - 1] == '*' && chars[i] == '/')
                .map_or(chars.len(), |i| i + 1)
        } else if c == '"' || (c == 'r' && matches!(next, Some('"' | '#')) && raw_opens(&chars, at))
        {
            literal_end(&chars, at)
        } else if c == '\''
            && let Some(end) = char_literal_end(&chars, at)
        {
            end
        } else {
            out.push(c);
            at += 1;
            continue;
        };
        out.extend(chars[at..end].iter().map(|&c| blank(c)));
        at = end;
    }
    out
}

/// Whether `r` at `at` opens a raw string (`r"…"`, `r#"…"#`) rather than ending a name.
fn raw_opens(chars: &[char], at: usize) -> bool {
    let after_name = at > 0 && is_ident(chars[at - 1]);
    let hashes = chars[at + 1..].iter().take_while(|&&c| c == '#').count();
    !after_name && chars.get(at + 1 + hashes) == Some(&'"')
}

/// Where the string literal (plain or raw) starting at `at` ends, just past its close.
fn literal_end(chars: &[char], at: usize) -> usize {
    if chars[at] == 'r' {
        let hashes = chars[at + 1..].iter().take_while(|&&c| c == '#').count();
        let open = at + 1 + hashes;
        let close: Vec<char> = std::iter::once('"')
            .chain(std::iter::repeat_n('#', hashes))
            .collect();
        return (open + 1..chars.len())
            .find(|&i| chars[i..].starts_with(&close))
            .map_or(chars.len(), |i| i + close.len());
    }
    let mut i = at + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// Where the character literal at `at` ends (`'x'`, `'\n'`, `'\''`), if one opens there
/// rather than a lifetime.
fn char_literal_end(chars: &[char], at: usize) -> Option<usize> {
    match chars.get(at + 1)? {
        '\\' => (at + 3..chars.len())
            .find(|&i| chars[i] == '\'')
            .map(|i| i + 1),
        _ => (chars.get(at + 2) == Some(&'\'')).then_some(at + 3),
    }
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
                // `super::super::x`: each further `super` climbs one module more.
                if segment == "super" {
                    path.pop();
                } else if segment != "self" {
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
pub fn named_paths(module: &[String], text: &str) -> Vec<Named> {
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

/// Every `.rs` file under `root`, as its path relative to `root` (with `/`) and its text,
/// in a stable order. Panics naming the path it cannot read: a test's sources are there.
pub fn sources(root: &std::path::Path) -> Vec<(String, String)> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        let entries = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{} is not readable: {e}", dir.display()));
        for entry in entries {
            let path = entry
                .unwrap_or_else(|e| panic!("an entry of {}: {e}", dir.display()))
                .path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                let relative = relative.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{} is not readable: {e}", path.display()));
                out.push((relative, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Appends `line` to `file` among `files` and answers the line number it stands on: a test
/// plants one arrow in a real tree to show that the check fails on it.
pub fn plant(files: &mut [(String, String)], file: &str, line: &str) -> usize {
    let (_, text) = files
        .iter_mut()
        .find(|(f, _)| f == file)
        .unwrap_or_else(|| panic!("{file} is not among the sources"));
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
    text.lines().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_spread_into_one_path_each() {
        let module = module_of("steps/contracting.rs");
        assert_eq!(module, ["steps", "contracting"]);
        let named = named_paths(
            &module,
            "use crate::{\n    checks::{self, shape::{Violation, walk}},\n    target::*,\n};\nuse super::{awards, lots};\nlet x = my_crate::no;\n// crate::run\n",
        );
        let paths: Vec<(String, usize)> =
            named.iter().map(|n| (n.path.join("::"), n.line)).collect();
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

    #[test]
    fn paths_in_comments_and_literals_are_no_arrows() {
        let text = "let a = \"crate::run and super::super\"; // crate::run\n\
                    let q = '\"'; let e = '\\''; fn f<'a>(x: &'a str) {}\n\
                    let r = r#\"say \"crate::run\"\"#; /* crate::run */ use crate::checks::x;\n";
        let named = named_paths(&module_of("world/mod.rs"), text);
        let found: Vec<(String, usize)> =
            named.iter().map(|n| (n.path.join("::"), n.line)).collect();
        assert_eq!(found, [("checks::x".to_string(), 3)]);
        assert_eq!(code(text).lines().count(), text.lines().count());
    }

    #[test]
    fn each_further_super_climbs_one_module() {
        let module = module_of("steps/lots/creating.rs");
        let named = named_paths(
            &module,
            "use super::super::{common, tenders};\nuse super::super::super::run::x;\n",
        );
        let paths: Vec<String> = named.iter().map(|n| n.path.join("::")).collect();
        assert_eq!(paths, ["steps::common", "steps::tenders", "run::x"]);
    }

    #[test]
    fn a_planted_line_stands_on_its_own_line() {
        let mut files = vec![("a.rs".to_string(), "fn a() {}".to_string())];
        assert_eq!(plant(&mut files, "a.rs", "use crate::b;"), 2);
        assert_eq!(files[0].1, "fn a() {}\nuse crate::b;\n");
    }

    #[test]
    fn a_module_is_its_file_without_mod() {
        assert_eq!(module_of("checks/mod.rs"), ["checks"]);
        assert_eq!(module_of("run/report/html.rs"), ["run", "report", "html"]);
        assert_eq!(module_of("settings.rs"), ["settings"]);
    }
}
