//! The `.feature` files a run uses: the set compiled into the harness, or a directory given with
//! `--features`. Either way the certificate names the set and its digest.
use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

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

/// One scenario as `--list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub file: String,
    pub line: usize,
    pub feature: String,
    pub name: String,
    pub tags: Vec<String>,
    /// How many times it runs: once, or once per row of its Examples block.
    pub runs: usize,
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

    /// Every scenario of the set that `tags` and `name` select, in file order; each Examples
    /// block of an outline is listed with its own tags.
    pub fn scenarios(
        &self,
        tags: Option<&TagOperation>,
        name: Option<&Regex>,
    ) -> Result<Vec<Listed>, String> {
        let mut listed = Vec::new();
        for (file, text) in &self.files {
            let feature = gherkin::Feature::parse(text, GherkinEnv::default())
                .map_err(|e| format!("{file} does not parse: {e}"))?;
            let in_rules = feature
                .rules
                .iter()
                .flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
            for (rule, scenario) in feature.scenarios.iter().map(|s| (None, s)).chain(in_rules) {
                let own: Vec<String> = feature
                    .tags
                    .iter()
                    .chain(rule.iter().flat_map(|r| &r.tags))
                    .chain(&scenario.tags)
                    .cloned()
                    .collect();
                if tags.is_some_and(|t| !t.eval(&own))
                    || name.is_some_and(|r| !r.is_match(&scenario.name))
                {
                    continue;
                }
                let blocks: Vec<(Vec<String>, usize)> = if scenario.examples.is_empty() {
                    vec![(own, 1)]
                } else {
                    scenario
                        .examples
                        .iter()
                        .map(|e| {
                            let rows = e.table.as_ref().map_or(0, |t| t.rows.len());
                            (
                                own.iter().chain(&e.tags).cloned().collect(),
                                rows.saturating_sub(1),
                            )
                        })
                        .collect()
                };
                for (tags, runs) in blocks {
                    listed.push(Listed {
                        file: file.clone(),
                        line: scenario.position.line,
                        feature: feature.name.clone(),
                        name: scenario.name.clone(),
                        tags,
                        runs,
                    });
                }
            }
        }
        Ok(listed)
    }
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
        let on_disk = FeatureSet::read(&crate::settings::default_features_dir()).unwrap();
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
