//! The `.feature` files a run uses: the set compiled into the harness, or a directory given with
//! `--features`. Either way the certificate names the set and its digest.
use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

use cucumber::feature::Ext as _;
use cucumber::gherkin::{self, GherkinEnv, tagexpr::TagOperation};
use cucumber::tag::Ext as _;
use regex::Regex;
use sha2::{Digest as _, Sha256};
use tempfile::TempDir;

/// The features of the source tree this harness was built from, by file name.
pub const BUILT_IN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/features.rs"));

/// Where a set of features came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    BuiltIn,
    External(PathBuf),
}

/// The `.feature` files of one run, sorted by file name.
#[derive(Clone, Debug)]
pub struct FeatureSet {
    pub source: Source,
    files: Vec<(String, String)>,
}

/// One scenario as `--list` shows it: an outline's example is one of these per row, named and
/// placed (the row's line) as the run reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub file: String,
    pub line: usize,
    pub feature: String,
    pub name: String,
    pub tags: Vec<String>,
}

/// The directory cucumber reads, kept alive as long as the run needs it.
pub struct Materialised {
    pub dir: PathBuf,
    _temporary: Option<TempDir>,
}

impl FeatureSet {
    pub fn built_in() -> FeatureSet {
        FeatureSet {
            source: Source::BuiltIn,
            files: BUILT_IN
                .iter()
                .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
                .collect(),
        }
    }

    /// The `.feature` files directly in `dir`.
    pub fn read(dir: &Path) -> Result<FeatureSet, String> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let mut files = Vec::new();
        for entry in entries {
            let path = entry
                .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
                .path();
            if path.extension().is_none_or(|e| e != "feature") {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((name, text));
        }
        files.sort();
        Ok(FeatureSet {
            source: Source::External(dir.to_owned()),
            files,
        })
    }

    /// The set at `dir` when given, the built-in one otherwise.
    pub fn choose(dir: Option<&Path>) -> Result<FeatureSet, String> {
        match dir {
            Some(dir) => FeatureSet::read(dir),
            None => Ok(FeatureSet::built_in()),
        }
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// SHA-256 over every file name and text, in name order, each followed by a NUL.
    pub fn digest(&self) -> String {
        let mut hash = Sha256::new();
        for (name, text) in &self.files {
            hash.update(name.as_bytes());
            hash.update([0]);
            hash.update(text.as_bytes());
            hash.update([0]);
        }
        hash.finalize()
            .iter()
            .fold(String::with_capacity(64), |mut hex, byte| {
                let _ = write!(hex, "{byte:02x}");
                hex
            })
    }

    /// `built-in set, 17 files, SHA-256 …` or `external set DIR, …`, as the certificate says.
    pub fn describe(&self) -> String {
        let source = match &self.source {
            Source::BuiltIn => "built-in set".to_owned(),
            Source::External(dir) => format!("external set `{}`", dir.display()),
        };
        format!(
            "{source}, {} files, SHA-256 `{}`",
            self.files.len(),
            self.digest()
        )
    }

    /// A directory holding the set: the external one itself, or a temporary copy of the
    /// built-in one.
    pub fn materialise(&self) -> Result<Materialised, String> {
        if let Source::External(dir) = &self.source {
            return Ok(Materialised {
                dir: dir.clone(),
                _temporary: None,
            });
        }
        let temporary = tempfile::Builder::new()
            .prefix("tender-certify-features-")
            .tempdir()
            .map_err(|e| format!("cannot create a directory for the features: {e}"))?;
        for (name, text) in &self.files {
            let path = temporary.path().join(name);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(Materialised {
            dir: temporary.path().to_owned(),
            _temporary: Some(temporary),
        })
    }

    /// Every scenario of the set that `tags` and `name` select, in file order, as the run
    /// selects them: each example of an outline on its own, with its placeholders filled in and
    /// the tags of its Examples block.
    pub fn scenarios(
        &self,
        tags: Option<&TagOperation>,
        name: Option<&Regex>,
    ) -> Result<Vec<Listed>, String> {
        let mut listed = Vec::new();
        for (file, text) in &self.files {
            let feature = gherkin::Feature::parse(text, GherkinEnv::default())
                .map_err(|e| format!("{file} does not parse: {e}"))?
                .expand_examples()
                .map_err(|e| format!("{file}: {e}"))?;
            let in_rules = feature
                .rules
                .iter()
                .flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
            for (rule, scenario) in feature.scenarios.iter().map(|s| (None, s)).chain(in_rules) {
                if !selects(tags, name, &feature, rule, scenario) {
                    continue;
                }
                listed.push(Listed {
                    file: file.clone(),
                    line: scenario.position.line,
                    feature: feature.name.clone(),
                    name: scenario.name.clone(),
                    tags: all_tags(&feature, rule, scenario).cloned().collect(),
                });
            }
        }
        Ok(listed)
    }
}

/// Names each feature of a cucumber JSON report by its file (`questions.feature`), not by the
/// folder the run read it from (a temporary one for the built-in set), so that the reports of
/// two runs name the same features the same way.
pub fn name_features_by_file(report: &Path) -> Result<(), String> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot rewrite {}: {e}", report.display());
    let text = std::fs::read_to_string(report).map_err(|e| cannot(&e))?;
    let mut features: serde_json::Value = serde_json::from_str(&text).map_err(|e| cannot(&e))?;
    for feature in features.as_array_mut().into_iter().flatten() {
        if let Some(uri) = feature.get("uri").and_then(serde_json::Value::as_str) {
            let file = Path::new(uri)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| uri.to_owned());
            feature["uri"] = serde_json::Value::String(file);
        }
    }
    std::fs::write(report, features.to_string()).map_err(|e| cannot(&e))
}

/// The name of the file a feature was read from (`questions.feature`), as every report names
/// it: never the folder the run read it from, which may be a temporary one.
pub fn file_name(feature: &gherkin::Feature) -> String {
    feature
        .path
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| feature.name.clone())
}

/// The tags a scenario carries: its feature's, its rule's and its own (an example's include
/// those of its Examples block).
pub fn all_tags<'a>(
    feature: &'a gherkin::Feature,
    rule: Option<&'a gherkin::Rule>,
    scenario: &'a gherkin::Scenario,
) -> impl Iterator<Item = &'a String> + Clone {
    feature
        .tags
        .iter()
        .chain(rule.into_iter().flat_map(|r| &r.tags))
        .chain(&scenario.tags)
}

/// Whether a run selects the scenario: both `--tags` and `--name` must match when given.
pub fn selects(
    tags: Option<&TagOperation>,
    name: Option<&Regex>,
    feature: &gherkin::Feature,
    rule: Option<&gherkin::Rule>,
    scenario: &gherkin::Scenario,
) -> bool {
    tags.is_none_or(|t| t.eval(all_tags(feature, rule, scenario)))
        && name.is_none_or(|r| r.is_match(&scenario.name))
}

impl Listed {
    /// `file:line  Feature: scenario  @tag @tag`
    pub fn line(&self) -> String {
        let tags: Vec<String> = self.tags.iter().map(|t| format!("@{t}")).collect();
        format!(
            "{}:{}\t{}: {}\t{}",
            self.file,
            self.line,
            self.feature,
            self.name,
            tags.join(" ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_set_is_the_features_directory_of_the_source_tree() {
        let built_in = FeatureSet::built_in();
        let on_disk = FeatureSet::read(&crate::exchange::settings::default_features_dir()).unwrap();
        assert!(built_in.len() > 10, "{}", built_in.len());
        assert_eq!(built_in.files, on_disk.files);
        assert_eq!(built_in.digest(), on_disk.digest());
        assert_eq!(built_in.digest().len(), 64);
        assert!(built_in.describe().starts_with("built-in set, "));
        assert!(on_disk.describe().starts_with("external set `"));
    }

    #[test]
    fn the_built_in_set_is_written_out_whole_and_removed_after_the_run() {
        let set = FeatureSet::built_in();
        let dir = set.materialise().unwrap();
        let copy = FeatureSet::read(&dir.dir).unwrap();
        assert_eq!(copy.digest(), set.digest());
        let path = dir.dir.clone();
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn each_example_of_an_outline_is_listed_with_its_placeholders_filled_in() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("outline.feature"),
            "Feature: F\n\n  @spec\n  Scenario Outline: Reading <field>\n    Given <field>\n\n    \
             @a\n    Examples:\n      | field |\n      | title |\n      | value |\n\n    \
             @b\n    Examples:\n      | field |\n      | date  |\n\n  Scenario: Plain\n    \
             Given x\n",
        )
        .unwrap();
        let set = FeatureSet::read(dir.path()).unwrap();
        let lines: Vec<String> = set
            .scenarios(None, None)
            .unwrap()
            .iter()
            .map(Listed::line)
            .collect();
        assert_eq!(
            lines,
            [
                "outline.feature:10\tF: Reading title\t@spec @a",
                "outline.feature:11\tF: Reading value\t@spec @a",
                "outline.feature:16\tF: Reading date\t@spec @b",
                "outline.feature:18\tF: Plain\t",
            ]
        );
        let b: TagOperation = "@b".parse().unwrap();
        let value = Regex::new("value|date").unwrap();
        assert_eq!(set.scenarios(Some(&b), None).unwrap().len(), 1);
        assert_eq!(set.scenarios(None, Some(&value)).unwrap().len(), 2);
        assert_eq!(set.scenarios(Some(&b), Some(&value)).unwrap().len(), 1);
    }

    #[test]
    fn listing_follows_the_tag_filter_and_names_each_scenario_with_its_tags() {
        let set = FeatureSet::built_in();
        let all = set.scenarios(None, None).unwrap();
        let filter: TagOperation = "@conventions and @spec".parse().unwrap();
        let some = set.scenarios(Some(&filter), None).unwrap();
        assert!(!some.is_empty() && some.len() < all.len());
        assert!(some.iter().all(|s| s.tags.iter().any(|t| t == "spec")));
        let line = some[0].line();
        assert!(
            line.contains("@spec") && line.contains(".feature:"),
            "{line}"
        );
    }
}
