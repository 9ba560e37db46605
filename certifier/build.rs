//! Compiles the `.feature` files of `../features` into the harness, so that an installed or
//! copied `tender-certify` carries its scenarios with it.
use std::{env, fmt::Write as _, fs, path::PathBuf};

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../features");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "feature"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut code = String::from("&[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    code.push_str("]\n");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("features.rs");
    if let Err(e) = fs::write(&out, code) {
        panic!("cannot write {}: {e}", out.display());
    }
}
