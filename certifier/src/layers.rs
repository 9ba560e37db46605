//! The harness's layers and the test that holds every module to them: a file names (by a
//! `crate::` or `super::` path, in a `use` or inline) only its own layer and the layers
//! beneath it, and no modules name each other in a circle. Read from the sources by the
//! `arrows` crate (which holds the server's rooms too), so an arrow that runs back up fails
//! the build's tests, naming the file and the line.

use arrows::Rooms;

/// The layers from the bottom up, each a folder of `src/`; a layer may name those before it.
const LAYERS: &[&str] = &["exchange", "checks", "target", "world", "steps", "run"];

/// Files beside the layers: the crate's root assembles them, the binary uses the crate, and
/// this table is no layer.
const OUTSIDE: &[&str] = &["lib.rs", "main.rs", "layers.rs"];

fn own_sources() -> Vec<(String, String)> {
    let files = arrows::sources(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(files.len() > 40, "src/ read: {} files", files.len());
    files
}

#[test]
fn every_module_names_only_its_layer_and_those_beneath_without_a_circle() {
    let problems = Rooms::layered(LAYERS, OUTSIDE).problems(&own_sources());
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
    let mut files = own_sources();
    let planted = arrows::plant(
        &mut files,
        "exchange/mod.rs",
        "use crate::run::outcome::Outcome;",
    );
    let problems = Rooms::layered(LAYERS, OUTSIDE).problems(&files);
    assert_eq!(
        problems.first().map(String::as_str),
        Some(
            format!(
                "exchange/mod.rs:{planted}: the `exchange` layer names `run`, which it may not use: use crate::run::outcome::Outcome;"
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
