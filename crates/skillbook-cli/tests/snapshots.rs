//! Every command's output, text and JSON, as snapshots: a change to what users and scripts see
//! shows up in review as a changed `.snap` file, never by accident.
//!
//! The fixture is made here (three skills: one whose body links a file under the wrong case,
//! one with a repaired value, one manual-only); the temporary directories are replaced with `[WS]` and `[HOME]`, and the
//! catalog's fingerprint (which covers them) with `[FINGERPRINT]`. To accept an
//! intended change, run the tests with `INSTA_UPDATE=always` and review the diff.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;

struct Fixture {
    workspace: TempDir,
    home: TempDir,
}

impl Fixture {
    fn new() -> Self {
        let fixture = Fixture {
            workspace: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        let root = fixture.workspace.path().join(".agents/skills");
        write(
            &root.join("pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Fill PDF forms. Use when the user mentions a PDF.\n\
             license: MIT\n---\n# PDF\n\nRead `reference.md` first, then [the forms](FORMS.md).\n",
        );
        write(
            &root.join("pdf/reference.md"),
            "# Fields\n\nOne per line.\n",
        );
        write(&root.join("pdf/forms.md"), "# Forms\n");
        write(
            &root.join("notes/SKILL.md"),
            "---\nname: notes\ndescription: Take notes. Use when: the user asks\n---\nBody.\n",
        );
        write(
            &root.join("runbook/SKILL.md"),
            "---\nname: runbook\ndescription: The on-call runbook.\n\
             disable-model-invocation: true\n---\nPage the on-call engineer.\n",
        );
        fixture
    }

    /// Runs `skillbook` with the workspace (unless the arguments name one) and an empty home;
    /// returns the exit code, stdout and
    /// stderr in one text with the temporary directories redacted.
    fn run(&self, arguments: &[&str]) -> String {
        let mut command = Command::cargo_bin("skillbook").unwrap();
        command
            .env("HOME", self.home.path())
            .env_remove("RUST_LOG")
            .env_remove("NO_COLOR");
        if !arguments.contains(&"--workspace") {
            command.arg("--workspace").arg(self.workspace.path());
        }
        let output = command.args(arguments).output().unwrap();
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap()
        );
        let text = text
            .replace(&self.workspace.path().display().to_string(), "[WS]")
            .replace(&self.home.path().display().to_string(), "[HOME]");
        // The catalog's fingerprint covers the real (temporary) paths.
        text.lines()
            .map(|line| match line.split_once("\"fingerprint\": \"") {
                Some((indent, _)) => format!("{indent}\"fingerprint\": \"[FINGERPRINT]\","),
                None => line.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Asserts the snapshot of one command line in text and in JSON.
macro_rules! both_formats {
    ($fixture:expr, $name:literal, [$($argument:expr),* $(,)?]) => {{
        let arguments: &[&str] = &[$($argument),*];
        insta::assert_snapshot!(concat!($name, "_text"), $fixture.run(arguments));
        let mut json = arguments.to_vec();
        json.extend(["--format", "json"]);
        let output = $fixture.run(&json);
        assert_json_alone_on_stdout(&output);
        insta::assert_snapshot!(concat!($name, "_json"), output);
    }};
}

/// Under `--format json` stdout holds exactly one JSON document.
fn assert_json_alone_on_stdout(output: &str) {
    let stdout = output
        .split_once("--- stdout\n")
        .and_then(|(_, rest)| rest.split_once("--- stderr\n"))
        .map(|(stdout, _)| stdout)
        .unwrap();
    serde_json::from_str::<serde_json::Value>(stdout)
        .unwrap_or_else(|error| panic!("stdout is not one JSON document ({error}):\n{stdout}"));
}

#[test]
fn list() {
    both_formats!(Fixture::new(), "list", ["list"]);
}

#[test]
fn catalog() {
    both_formats!(Fixture::new(), "catalog", ["catalog"]);
}

#[test]
fn catalog_within_a_budget() {
    both_formats!(
        Fixture::new(),
        "catalog_budget",
        ["catalog", "--budget", "1000"]
    );
}

#[test]
fn search() {
    both_formats!(
        Fixture::new(),
        "search",
        ["search", "fill", "in", "a", "pdf"]
    );
}

#[test]
fn show() {
    both_formats!(Fixture::new(), "show", ["show", "pdf"]);
}

#[test]
fn show_a_name_that_is_not_there() {
    both_formats!(Fixture::new(), "show_miss", ["show", "pdff"]);
}

#[test]
fn read() {
    both_formats!(
        Fixture::new(),
        "read",
        ["read", ".agents/skills/pdf/reference.md"]
    );
}

#[test]
fn read_outside_the_boundary() {
    both_formats!(Fixture::new(), "read_outside", ["read", "../../etc/passwd"]);
}

#[test]
fn check() {
    both_formats!(Fixture::new(), "check", ["check"]);
}

#[test]
fn check_a_path_that_is_not_there() {
    both_formats!(
        Fixture::new(),
        "check_missing_path",
        ["check", "no/such/skill"]
    );
}

#[test]
fn demo() {
    both_formats!(Fixture::new(), "demo", ["demo"]);
}

#[test]
fn a_usage_error() {
    both_formats!(Fixture::new(), "usage_error", ["list", "--budget", "9"]);
}

#[test]
fn a_workspace_that_is_not_there() {
    both_formats!(
        Fixture::new(),
        "missing_workspace",
        ["--workspace", "/no/such/workspace", "list"]
    );
}
