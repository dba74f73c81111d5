//! The commands that read no skills of the workspace (SPEC §9): help, version, shell
//! completions and the demo, in text and under `--format json`.
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
fn demo_runs_all_three_paths_deterministically_without_network() {
    let run = || {
        let fixture = Fixture::new();
        let output = fixture.command().arg("demo").output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        stdout(&output)
    };
    let first = run();
    assert_eq!(first, run());
    for expected in [
        "=== Path 1: the model picks a skill from the catalog ===",
        "=== Path 2: the host names a skill (manual-only `incident-runbook`) ===",
        "=== Path 3: skills handed in from memory (a tenant's store) ===",
        "  read_skill_file (skillbook)",
        "--- model calls read_skill_file {\"path\":\"skill://code-review/SKILL.md\"}\n\
         --- tool result (skill content: code-review)",
        "2. **Correctness first.**",
        "System prompt byte-identical to a run without selection: yes",
        "<selected_skill name=\"incident-runbook\" dir=\"skill://incident-runbook\">",
        "<location>skill://acme-voice/SKILL.md</location>",
        "Avoid: leverage, synergy, utilize.",
        "--- tool result (error)\n{\"error\":\"outside_boundary\"",
    ] {
        assert!(first.contains(expected), "missing: {expected}");
    }
    for catalog in first.split("<available_skills>").skip(1) {
        let catalog = catalog.split("</available_skills>").next().unwrap();
        assert!(!catalog.contains("incident-runbook"));
    }
}

#[test]
fn completion_scripts_cover_the_commands_and_parse() {
    let fixture = Fixture::new();
    for (shell, first) in [
        ("bash", "_skillbook() {"),
        ("zsh", "#compdef skillbook"),
        ("fish", "# Print an optspec"),
    ] {
        let output = Command::cargo_bin("skillbook")
            .unwrap()
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = stdout(&output);
        assert!(
            script.lines().next().unwrap_or_default().starts_with(first),
            "{shell}: {script}"
        );
        for command in ["list", "catalog", "check", "mcp", "workspace"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
        if shell == "bash" {
            let file = fixture.workspace.path().join("skillbook.bash");
            fs::write(&file, &script).unwrap();
            let status = std::process::Command::new("bash")
                .arg("-n")
                .arg(&file)
                .status()
                .unwrap();
            assert!(status.success(), "bash cannot parse the script");
        }
    }
}

#[test]
fn help_version_demo_and_completions_are_json_under_format_json() {
    let fixture = Fixture::new();
    let json_of = |arguments: &[&str]| -> Value {
        let output = fixture.command().args(arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{arguments:?}");
        serde_json::from_str(&stdout(&output)).unwrap()
    };
    assert!(
        json_of(&["--format", "json", "--help"])["help"]
            .as_str()
            .unwrap()
            .contains("Usage: skillbook")
    );
    assert_eq!(
        json_of(&["--version", "--format", "json"])["version"],
        env!("CARGO_PKG_VERSION")
    );
    let completions = json_of(&["completions", "fish", "--format", "json"]);
    assert_eq!(completions["shell"], "fish");
    assert!(
        completions["script"]
            .as_str()
            .unwrap()
            .contains("complete -c skillbook")
    );
    let demo = json_of(&["demo", "--format", "json"]);
    let paths = demo["paths"].as_array().unwrap();
    assert_eq!(paths.len(), 3);
    // The refused `..` read of path 3 is an `outside_boundary` error, as the README says.
    let last_call = paths[2]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|step| step["kind"] == "call")
        .unwrap();
    assert_eq!(last_call["is_error"], true);
    assert_eq!(last_call["result"]["error"], "outside_boundary");
}
