//! Exit codes and errors across the commands (SPEC §9): 2 for a usage error, a workspace that
//! is missing, a file or a deleted current directory, and under `--format json` every error as
//! one JSON document with a code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/workspace.rs"]
mod workspace;

use std::fs;

use assert_cmd::Command;
use serde_json::Value;
use workspace::{Fixture, stderr, stdout};

#[test]
fn usage_errors_exit_with_2() {
    let fixture = Fixture::new();
    for arguments in [
        vec!["list", "--format", "yaml"],
        vec!["frobnicate"],
        vec!["show"],
        vec!["list", "--home", "/x", "--no-home"],
    ] {
        let output = fixture.command().args(&arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
    }
}

#[test]
fn a_workspace_that_is_missing_or_a_file_is_a_usage_error_in_every_command() {
    let fixture = Fixture::new();
    let file = fixture.workspace.path().join("a-file");
    fs::write(&file, "x").unwrap();
    let missing = fixture.workspace.path().join("no/such");
    // Under `--format json` the same error is a JSON document on stdout (tested below).
    let commands: [&[&str]; 7] = [
        &["list"],
        &["catalog"],
        &["show", "pdf"],
        &["read", "SKILL.md"],
        &["check"],
        &["watch"],
        &["mcp"],
    ];
    for (workspace, problem) in [(&missing, "no such directory"), (&file, "not a directory")] {
        for arguments in commands {
            let output = Command::cargo_bin("skillbook")
                .unwrap()
                .env("HOME", fixture.home.path())
                .arg("--workspace")
                .arg(workspace)
                .args(arguments)
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{arguments:?}");
            assert_eq!(stdout(&output), "", "{arguments:?}");
            let stderr = stderr(&output);
            assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!(
                    "error: --workspace {}: {problem}",
                    workspace.display()
                )),
                "{arguments:?}: {stderr}"
            );
        }
    }
}

/// A deleted current directory is never taken for `/`: nothing outside is listed or read.
#[cfg(unix)]
#[test]
fn a_deleted_current_directory_is_an_error_not_the_root() {
    let fixture = Fixture::new();
    let doomed = fixture.workspace.path().join("doomed");
    for arguments in ["list", "read /etc/passwd"] {
        fs::create_dir_all(&doomed).unwrap();
        let skillbook = assert_cmd::cargo::cargo_bin("skillbook");
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "cd '{dir}' && rmdir '{dir}' && exec '{skillbook}' --no-home {arguments}",
                dir = doomed.display(),
                skillbook = skillbook.display()
            ))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{arguments}");
        assert_eq!(stdout(&output), "", "{arguments}");
        assert!(
            stderr(&output).contains("the current directory cannot be read"),
            "{arguments}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn every_error_is_one_json_document_with_a_code_under_format_json() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n",
    );
    let cases: &[(&[&str], i32, &str)] = &[
        (&["--format", "json", "lsit"], 2, "usage"),
        (&["list", "--budget", "9", "--format=json"], 2, "usage"),
        (&["show", "--format", "json"], 2, "usage"),
        (&["--format", "json"], 2, "usage"),
        (&["show", "pdff", "--format", "json"], 1, "skill_not_found"),
        (&["check", "no/such", "--format", "json"], 2, "not_found"),
        (
            &["read", "../../etc/passwd", "--format", "json"],
            1,
            "outside_boundary",
        ),
    ];
    for (arguments, code, error) in cases {
        let output = fixture.command().args(*arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(*code), "{arguments:?}");
        let document: Value = serde_json::from_str(&stdout(&output))
            .unwrap_or_else(|_| panic!("{arguments:?}: {}", stdout(&output)));
        assert_eq!(document["error"], *error, "{arguments:?}");
        assert_eq!(
            document.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["error", "message"],
            "{arguments:?}"
        );
        assert!(!document["message"].as_str().unwrap().is_empty());
        assert!(
            output.stderr.is_empty(),
            "{arguments:?}: {}",
            stderr(&output)
        );
        // The same failure in text: the same exit code, a line on stderr, nothing on stdout.
        let text: Vec<&str> = arguments
            .iter()
            .copied()
            .filter(|argument| !argument.contains("json"))
            .map(|argument| {
                if argument == "--format" {
                    "--no-home"
                } else {
                    argument
                }
            })
            .collect();
        let output = fixture.command().args(&text).output().unwrap();
        assert_eq!(output.status.code(), Some(*code), "{text:?}");
        if *error != "outside_boundary" {
            assert!(output.stdout.is_empty(), "{text:?}");
            assert!(stderr(&output).starts_with("error: "), "{text:?}");
        }
    }
    // A workspace that is not there, in every command that reads one.
    for command in ["list", "catalog", "show", "read", "watch", "check", "mcp"] {
        let mut arguments = vec![command];
        if matches!(command, "show" | "read") {
            arguments.push("x");
        }
        let output = Command::cargo_bin("skillbook")
            .unwrap()
            .args(["--workspace", "/no/such/dir", "--format", "json"])
            .args(&arguments)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{command}");
        let document: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(document["error"], "invalid_workspace", "{command}");
    }
}

/// Output that cannot be written (a full disk) fails the command with its reason on stderr, in
/// every format: under `--format json` the error document cannot go to stdout either.
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_reported_on_stderr_in_every_format() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n",
    );
    for arguments in [
        &["list"][..],
        &["list", "--format", "json"],
        &["catalog"],
        &["catalog", "--format", "json"],
        &["show", "pdf"],
        &["search", "pdf form"],
        &["check"],
        &["read", "skill://pdf/SKILL.md"],
    ] {
        let full = fs::File::create("/dev/full").unwrap();
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("skillbook"))
            .env("HOME", fixture.home.path())
            .env_remove("RUST_LOG")
            .arg("--workspace")
            .arg(fixture.workspace.path())
            .args(arguments)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{arguments:?}");
        let said = stderr(&output);
        assert!(
            said.contains("could not write to standard output: No space left on device"),
            "{arguments:?}: {said}"
        );
    }
}
