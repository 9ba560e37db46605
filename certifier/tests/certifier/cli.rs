//! The certifier's own command line, as a user meets it before any target is involved.
use std::process::{Command, Output};

fn tender_certify(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tender-certify"))
        .args(args)
        .env_remove("TENDER_CERTIFY_BASE_URL")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn help_lists_no_input_glob_and_the_glob_is_refused() {
    let help = tender_certify(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = stdout(&help);
    assert!(text.contains("--features <DIR>"), "{text}");
    assert!(!text.contains("--input"), "{text}");
    assert!(!text.contains("-i,"), "{text}");

    let refused = tender_certify(&["--list", "-i", "features/*.feature"]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("unexpected argument '-i'"), "{stderr}");
}

#[test]
fn list_names_each_example_of_an_outline() {
    let output = tender_certify(&["--list", "--tags", "@refusals and not @clock"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| !l.contains('<')), "{text}");
    for write in [
        "change the tender",
        "upload a tender document",
        "replace the tender document",
        "describe the tender document",
        "answer the question",
    ] {
        let wanted = format!("An attempt to {write} without the tender's own credentials");
        assert_eq!(
            lines.iter().filter(|l| l.contains(&wanted)).count(),
            1,
            "{wanted}\n{text}"
        );
    }
}

#[test]
fn list_selects_an_example_by_its_own_name() {
    let output = tender_certify(&[
        "--list",
        "--name",
        "attempt to describe the tender document",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].starts_with("write_refusals.feature:") && lines[0].contains("@ep-doc-patch"),
        "{text}"
    );
}
