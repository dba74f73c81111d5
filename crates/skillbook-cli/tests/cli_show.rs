//! `skillbook show` (SPEC §9): the skill file as it is, the diagnostics of that skill only, and
//! close names suggested for an unknown one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/workspace.rs"]
mod workspace;

use serde_json::Value;
use workspace::{Fixture, stderr, stdout};

#[test]
fn show_prints_the_skill_file_and_fails_clearly_for_unknown_names() {
    let fixture = Fixture::new();
    let text = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nSteps.\n";
    fixture.skill(&fixture.root(), "pdf", text);
    let output = fixture.command().args(["show", "PDF"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), text);

    let json_output = fixture
        .command()
        .args(["show", "pdf", "--format", "json"])
        .output()
        .unwrap();
    let shown: Value = serde_json::from_slice(&json_output.stdout).unwrap();
    assert_eq!(shown["name"], "pdf");
    assert_eq!(shown["content"], text);
    assert_eq!(shown["truncated"], false);

    let missing = fixture.command().args(["show", "nope"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(stdout(&missing), "");
    assert_eq!(
        stderr(&missing),
        "error: no skill named `nope`; run `skillbook list` to see the one skill found\n"
    );
}

#[test]
fn show_suggests_close_names_and_stays_quiet_about_other_skills() {
    let fixture = Fixture::new();
    for name in ["pdf", "pdf-forms", "docx"] {
        let text = format!("---\nname: {name}\ndescription: {name} skill\n---\n");
        fixture.skill(&fixture.root(), name, &text);
    }
    // Another skill with a problem: `show pdf` does not speak of it.
    fixture.skill(
        &fixture.root(),
        "noisy",
        "---\nname: noisy\ndescription: Use when: x\n---\n",
    );
    let output = fixture.command().args(["show", "pdff"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: no skill named `pdff`; did you mean one of `pdf`, `pdf-forms`? (run `skillbook \
         list` to see all 4 skills)\n"
    );
    let output = fixture
        .command()
        .args(["show", "kubernetes"])
        .output()
        .unwrap();
    assert_eq!(
        stderr(&output),
        "error: no skill named `kubernetes`; run `skillbook list` to see all 4 skills\n"
    );
    let output = fixture.command().args(["show", "pdf"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stderr(&output), "", "only the named skill's diagnostics");
    let output = fixture.command().args(["show", "noisy"]).output().unwrap();
    assert!(stderr(&output).starts_with("warning[repaired_yaml]: "));
}

#[test]
fn show_reports_the_skill_files_diagnostics() {
    let fixture = Fixture::new();
    let text = "---\nname: colon\ndescription: Use when: needed\n---\nBody.\n";
    fixture.skill(&fixture.root(), "colon", text);
    let output = fixture.command().args(["show", "colon"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), text);
    assert!(
        stderr(&output).starts_with("warning[repaired_yaml]: "),
        "{}",
        stderr(&output)
    );
    let json_output = fixture
        .command()
        .args(["show", "colon", "--format", "json"])
        .output()
        .unwrap();
    let shown: Value = serde_json::from_slice(&json_output.stdout).unwrap();
    assert_eq!(shown["diagnostics"][0]["code"], "repaired_yaml");
    assert_eq!(stderr(&json_output), "");
}

/// A huge skill file (here 1 GiB of NUL bytes after a valid front matter) prints at most the
/// limit, counted on what is printed, with one warning about its size.
#[test]
fn show_cuts_a_huge_file_on_the_bytes_it_prints() {
    let fixture = Fixture::new();
    let file = fixture.skill(
        &fixture.root(),
        "huge",
        "---\nname: huge\ndescription: Huge.\n---\n# Huge\n",
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let output = fixture.command().args(["show", "huge"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let printed = stdout(&output);
    assert!(printed.starts_with("---\nname: huge\n"));
    assert!(
        printed.ends_with("\n[cut at 1048576 bytes]\n"),
        "{}",
        &printed[printed.len() - 80..]
    );
    assert!(printed.len() <= 1024 * 1024 + 64, "{} bytes", printed.len());
    let warnings = stderr(&output);
    assert_eq!(warnings.matches("file_too_large").count(), 1, "{warnings}");
}
