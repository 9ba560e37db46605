//! The description cannot drift from what the server writes: every field a record's view can
//! write, read from the record's own serde declaration (its struct, its renames, what it
//! flattens and what it hides from the public form), is described in `schemas.rs` at its place,
//! with a type that admits what the field holds, down to the nested values (money, periods,
//! parties, items, documents). A field added to a record without its description fails here,
//! naming both.
//!
//! The declarations are read from the source text, as `rooms.rs` reads the arrows: a struct
//! deriving `Serialize`, its `#[serde(...)]` attributes and its fields, one per line.

use super::schemas::schemas;
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

/// The records a view writes and the schema describing each: (file, struct, schema).
const VIEWS: [(&str, &str, &str); 10] = [
    ("domain/records/views.rs", "TenderView", "Tender"),
    ("domain/records/lot.rs", "Lot", "Lot"),
    ("domain/records/bid.rs", "Bid", "Bid"),
    ("domain/records/award.rs", "Award", "Award"),
    ("domain/records/tender_contract.rs", "Contract", "Contract"),
    ("contracting/managed.rs", "View", "ManagedContract"),
    ("domain/values/document.rs", "Document", "Document"),
    ("domain/records/views.rs", "QuestionView", "Question"),
    ("domain/records/views.rs", "ComplaintView", "Complaint"),
    (
        "domain/records/cancellation.rs",
        "Cancellation",
        "Cancellation",
    ),
];

/// The folders the declarations are read from.
const FOLDERS: [&str; 3] = ["domain/records", "domain/values", "contracting"];

/// Types written by a hand-made `Serialize` as another declaration is: a document record
/// shows its latest version.
const WRITTEN_AS: [(&str, &str); 1] = [("DocumentRecord", "Document")];

/// Fields written through `serialize_with` as another type: an award's claims with their
/// authors.
const SERIALIZED_WITH: [(&str, &str); 1] = [("complaints_with_authors", "Vec<ComplaintView>")];

/// One field as serde declares it.
#[derive(Debug, Clone)]
struct Field {
    /// The name it is written under; the flattened type's fields for a flattened one.
    name: String,
    ty: String,
    flatten: bool,
    /// Left out when `None` (or empty): a `null` is never written.
    skipped_when_empty: bool,
}

/// A struct deriving `Serialize`, or an enum (written as a string).
#[derive(Debug, Clone)]
enum Declared {
    Struct(Vec<Field>),
    Enum,
}

/// Declarations by file (relative to `src/`) and name.
type Declarations = BTreeMap<(String, String), Declared>;

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The quoted value of `key = "…"` in an attribute's text.
fn quoted<'a>(attrs: &'a str, key: &str) -> Option<&'a str> {
    let at = attrs.find(&format!("{key} = \""))? + key.len() + 4;
    let rest = &attrs[at..];
    Some(&rest[..rest.find('"')?])
}

/// Every `Serialize` declaration of one file's text.
fn declarations_of(file: &str, text: &str, out: &mut Declarations) {
    let mut attrs = String::new();
    let mut open = 0i32;
    let mut current: Option<(String, bool, Vec<Field>)> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("//") {
            continue;
        }
        if line.starts_with("#[") || open > 0 {
            open += line.matches('[').count() as i32 - line.matches(']').count() as i32;
            attrs.push_str(line);
            attrs.push(' ');
            continue;
        }
        let taken = std::mem::take(&mut attrs);
        if let Some((name, camel_case, fields)) = &mut current {
            if line.starts_with('}') {
                out.insert(
                    (file.to_string(), name.clone()),
                    Declared::Struct(std::mem::take(fields)),
                );
                current = None;
                continue;
            }
            let field = line.strip_prefix("pub ").unwrap_or(line);
            let field = field.strip_prefix("pub(crate) ").unwrap_or(field);
            let Some((ident, ty)) = field.split_once(": ") else {
                continue;
            };
            if taken.contains("stored::hidden") || taken.contains("skip)") {
                continue;
            }
            let written = quoted(&taken, "rename").map_or_else(
                || {
                    if *camel_case {
                        camel(ident)
                    } else {
                        ident.to_string()
                    }
                },
                str::to_string,
            );
            let ty = SERIALIZED_WITH
                .iter()
                .find(|(with, _)| {
                    quoted(&taken, "serialize_with").is_some_and(|w| w.ends_with(with))
                })
                .map_or_else(
                    || ty.trim_end_matches(',').to_string(),
                    |(_, as_ty)| as_ty.to_string(),
                );
            fields.push(Field {
                name: written,
                ty,
                flatten: taken.contains("flatten"),
                skipped_when_empty: taken.contains("skip_serializing_if"),
            });
            continue;
        }
        if !taken.contains("Serialize") {
            continue;
        }
        let decl = line
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ");
        let named = |rest: &str| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default()
                .to_string()
        };
        if let Some(rest) = decl.strip_prefix("struct ") {
            if taken.contains("transparent") || !line.ends_with('{') {
                continue;
            }
            current = Some((named(rest), taken.contains("camelCase"), Vec::new()));
        } else if let Some(rest) = decl.strip_prefix("enum ") {
            out.insert((file.to_string(), named(rest)), Declared::Enum);
        }
    }
}

fn declarations() -> Declarations {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Declarations::new();
    for (path, text) in arrows::sources(&src) {
        let path = path.replace('\\', "/");
        if FOLDERS.iter().any(|f| path.starts_with(&format!("{f}/"))) {
            declarations_of(&path, &text, &mut out);
        }
    }
    out
}

/// The type a field writes, its wrappers taken off: (the innermost name, whether a list,
/// whether it may be `None`).
fn unwrapped(ty: &str) -> (String, bool, bool) {
    let mut ty = ty.trim().trim_start_matches('&').trim();
    if let Some(rest) = ty.strip_prefix("'a ") {
        ty = rest;
    }
    let (mut list, mut optional) = (false, false);
    while let Some((outer, inner)) = ty.split_once('<') {
        let outer = outer.rsplit("::").next().unwrap_or(outer);
        let inner = inner.strip_suffix('>').unwrap_or(inner).trim();
        match outer {
            "Option" => optional = true,
            "Vec" | "Vector" => list = true,
            "Arc" | "Box" => {}
            _ => break,
        }
        ty = inner.trim_start_matches('&').trim();
        if let Some(rest) = ty.strip_prefix("'a ") {
            ty = rest;
        }
    }
    let name = ty.split('<').next().unwrap_or(ty);
    let name = name.rsplit("::").next().unwrap_or(name).to_string();
    let name = WRITTEN_AS
        .iter()
        .find(|(from, _)| *from == name)
        .map_or(name, |(_, to)| to.to_string());
    let name = if name == "Documents" {
        list = true;
        "Document".to_string()
    } else {
        name
    };
    (name, list, optional)
}

/// The declaration a type named in `file` refers to: in the same file, else in the same
/// folder, else the one declaration of that name.
fn find<'a>(all: &'a Declarations, file: &str, name: &str) -> Option<(&'a str, &'a Declared)> {
    let folder = file.rsplit_once('/').map_or("", |(f, _)| f);
    let named: Vec<_> = all.iter().filter(|((_, n), _)| n == name).collect();
    named
        .iter()
        .find(|((f, _), _)| f == file)
        .or_else(|| named.iter().find(|((f, _), _)| f.starts_with(folder)))
        .or_else(|| (named.len() == 1).then(|| &named[0]))
        .map(|((f, _), d)| (f.as_str(), *d))
}

/// The JSON types a leaf type writes; `None` where any may be.
fn leaf_types(name: &str, declared: Option<&Declared>) -> Option<&'static [&'static str]> {
    match (name, declared) {
        (_, Some(Declared::Enum)) => Some(&["string"]),
        (_, Some(Declared::Struct(_))) => Some(&["object"]),
        ("String" | "Text" | "str" | "Word" | "Timestamp", _) => Some(&["string"]),
        ("bool", _) => Some(&["boolean"]),
        ("f64" | "f32", _) => Some(&["number"]),
        ("i64" | "u64" | "usize" | "u32" | "i32", _) => Some(&["integer", "number"]),
        _ => None,
    }
}

struct Check<'a> {
    all: &'a Declarations,
    schemas: &'a Map<String, Json>,
    problems: Vec<String>,
}

impl Check<'_> {
    /// `schema` with its `$ref`s followed and its `allOf` merged.
    fn resolved(&self, schema: &Json) -> Json {
        if let Some(name) = schema["$ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
        {
            return self
                .schemas
                .get(name)
                .map_or(Json::Null, |s| self.resolved(s));
        }
        let mut merged = schema.clone();
        if let Some(parts) = schema["allOf"].as_array() {
            for part in parts {
                if let (Json::Object(into), Json::Object(from)) = (&mut merged, self.resolved(part))
                {
                    for (k, v) in from {
                        into.entry(k).or_insert(v);
                    }
                }
            }
        }
        merged
    }

    fn types_of(schema: &Json) -> Option<Vec<String>> {
        match &schema["type"] {
            Json::String(t) => Some(vec![t.clone()]),
            Json::Array(ts) => Some(
                ts.iter()
                    .filter_map(|t| t.as_str().map(String::from))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Checks that the struct `name` of `file` is described by `schema` (resolved), at `at`.
    fn structure(&mut self, file: &str, fields: &[Field], schema: &Json, at: &str) {
        let Some(properties) = schema["properties"].as_object() else {
            self.problems.push(format!(
                "{at}: described as an object without its fields ({file})"
            ));
            return;
        };
        for field in fields {
            let (name, list, optional) = unwrapped(&field.ty);
            let declared = find(self.all, file, &name);
            if field.flatten {
                match declared {
                    Some((f, Declared::Struct(inner))) => {
                        let inner = inner.clone();
                        self.structure(f, &inner, schema, at);
                    }
                    _ => self
                        .problems
                        .push(format!("{at}: flattens {name}, whose fields are not found")),
                }
                continue;
            }
            let here = format!("{at}.{}", field.name);
            let Some(described) = properties.get(&field.name) else {
                self.problems.push(format!(
                    "{here}: written ({file}, {}) but not described",
                    field.ty
                ));
                continue;
            };
            let described = self.resolved(described);
            let nullable = optional && !field.skipped_when_empty;
            let types = Self::types_of(&described);
            let mut inner = described.clone();
            if list {
                match &types {
                    Some(t) if !t.iter().any(|t| t == "array") => {
                        self.problems
                            .push(format!("{here}: a list, described as {t:?}"));
                        continue;
                    }
                    _ => inner = self.resolved(&described["items"]),
                }
            }
            let leaf = leaf_types(&name, declared.map(|(_, d)| d));
            let inner_types = if list {
                Self::types_of(&inner)
            } else {
                types.clone()
            };
            if let (Some(wanted), Some(got)) = (leaf, &inner_types)
                && !wanted.iter().any(|w| got.iter().any(|g| g == w))
            {
                self.problems
                    .push(format!("{here}: writes {wanted:?}, described as {got:?}"));
            }
            if nullable
                && !list
                && !types
                    .as_ref()
                    .is_some_and(|t| t.iter().any(|t| t == "null"))
            {
                self.problems.push(format!(
                    "{here}: may be written null, described as {types:?}"
                ));
            }
            if let Some((f, Declared::Struct(nested))) = declared {
                let nested = nested.clone();
                self.structure(f, &nested, &inner, &here);
            }
        }
    }
}

/// The problems of the description against the declarations: none once it is complete.
fn problems() -> Vec<String> {
    let all = declarations();
    let schemas = schemas();
    let mut check = Check {
        all: &all,
        schemas: &schemas,
        problems: Vec::new(),
    };
    for (file, name, schema) in VIEWS {
        let Some(Declared::Struct(fields)) = all.get(&(file.to_string(), name.to_string())) else {
            check
                .problems
                .push(format!("{file}: no Serialize struct {name}"));
            continue;
        };
        let Some(described) = schemas.get(schema) else {
            check.problems.push(format!("no schema {schema}"));
            continue;
        };
        let described = check.resolved(described);
        check.structure(file, fields, &described, schema);
    }
    check.problems
}

#[test]
fn every_field_a_view_writes_is_described_with_its_type() {
    let problems = problems();
    assert!(
        problems.is_empty(),
        "{} fields the server writes, against /openapi.json:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The reading finds what it must: the tender's terms through its flattening, a field renamed,
/// the fields hidden from the public form left out, a nested struct and its own fields.
#[test]
fn the_declarations_are_read_as_serde_writes_them() {
    let all = declarations();
    let fields = |file: &str, name: &str| match all.get(&(file.to_string(), name.to_string())) {
        Some(Declared::Struct(fields)) => fields.iter().map(|f| f.name.clone()).collect(),
        other => panic!("{file} {name}: {other:?}"),
    };
    let tender: Vec<String> = fields("domain/records/tender.rs", "Tender");
    for shown in ["tenderID", "procurementMethodType", "next_check", "terms"] {
        assert!(tender.iter().any(|f| f == shown), "{shown} in {tender:?}");
    }
    for hidden in ["ownerToken", "origin", "listedAt", "clock"] {
        assert!(
            !tender.iter().any(|f| f == hidden),
            "{hidden} in {tender:?}"
        );
    }
    let terms: Vec<String> = fields("domain/records/tender.rs", "TenderTerms");
    assert!(
        terms.contains(&"title_en".to_string())
            && terms.contains(&"procurementMethodRationale".to_string())
    );
    assert!(matches!(
        find(&all, "domain/records/tender.rs", "Contract"),
        Some(("domain/records/tender_contract.rs", _))
    ));
    assert!(matches!(
        find(&all, "contracting/managed.rs", "Contract"),
        Some(("contracting/managed.rs", _))
    ));
    assert_eq!(
        unwrapped("Option<&'a imbl::Vector<Arc<Bid>>>"),
        ("Bid".into(), true, true)
    );
    assert_eq!(unwrapped("Documents"), ("Document".into(), true, false));
    // A schema that misses one field of a record is caught, by name.
    let mut schemas = schemas();
    if let Some(props) = schemas["Tender"]["properties"].as_object_mut() {
        props.remove("title_en");
    }
    let mut check = Check {
        all: &all,
        schemas: &schemas,
        problems: Vec::new(),
    };
    let described = check.resolved(&schemas["Tender"]);
    if let Some(Declared::Struct(fields)) = all.get(&(
        "domain/records/views.rs".to_string(),
        "TenderView".to_string(),
    )) {
        check.structure("domain/records/views.rs", fields, &described, "Tender");
    }
    assert!(
        check
            .problems
            .iter()
            .any(|p| p.starts_with("Tender.title_en: written")),
        "{:?}",
        check.problems
    );
}
