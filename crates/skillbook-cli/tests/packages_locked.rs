//! `--locked` (SPEC §15, `require_lock`): a skill in the workspace's `.agents/skills` that differs
//! from `skills-lock.json` — even by an edit that keeps a file's size and times — or that the
//! lock does not name is reported (`lock_mismatch`, `not_locked`) and never listed, cataloged,
//! read or served over MCP; skills in other roots and every command without `--locked` are
//! unchanged; a lock that cannot be read refuses the whole folder.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/source_tree.rs"]
mod source_tree;

use std::fs;
use std::path::PathBuf;
use std::process::Output;

use assert_cmd::Command;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

/// A workspace with `review` and `deploy` added from `vendor/` and locked, and `extra`
/// installed by hand (not locked).
struct Fixture {
    workspace: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let fixture = Fixture {
            workspace: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        let vendor = fixture.workspace.path().join("vendor");
        source_tree::skill(&vendor, "review", "review", "");
        source_tree::write(&vendor, "review/scripts/run.sh", "echo one\n");
        source_tree::skill(&vendor, "deploy", "deploy", "");
        let added = fixture.run(&["add", "./vendor", "--yes"]);
        assert!(added.status.success(), "{added:?}");
        source_tree::skill(&fixture.skills(), "extra", "extra", "");
        fixture
    }

    fn skills(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    fn command(&self, arguments: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_skillbook"));
        command
            .current_dir(self.workspace.path())
            .env("HOME", self.home.path())
            .env_remove("RUST_LOG")
            .args(arguments);
        command
    }

    fn run(&self, arguments: &[&str]) -> Output {
        Command::from_std(self.command(arguments)).output().unwrap()
    }

    /// `list --format json` with `arguments` before it: the skills' names and the diagnostics'
    /// codes.
    fn listed(&self, arguments: &[&str]) -> (Vec<String>, Vec<(String, String)>) {
        let mut all = arguments.to_vec();
        all.extend(["list", "--format", "json"]);
        let output = self.run(&all);
        assert!(output.status.success(), "{output:?}");
        let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
        let names = listed["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|skill| skill["name"].as_str().unwrap().to_owned())
            .collect();
        let diagnostics = listed["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|diagnostic| {
                (
                    diagnostic["code"].as_str().unwrap().to_owned(),
                    diagnostic["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        (names, diagnostics)
    }
}

#[test]
fn a_drifted_or_unlocked_skill_is_reported_and_never_listed() {
    let fixture = Fixture::new();
    source_tree::edit_keeping_size_and_times(&fixture.skills().join("review/scripts/run.sh"));

    let (names, diagnostics) = fixture.listed(&["--locked"]);
    assert_eq!(names, ["deploy"]);
    let codes: Vec<&str> = diagnostics.iter().map(|(code, _)| code.as_str()).collect();
    assert_eq!(codes, ["not_locked", "lock_mismatch"], "{diagnostics:?}");
    let (_, mismatch) = &diagnostics[1];
    assert!(mismatch.contains("changed: scripts/run.sh"), "{mismatch}");
    assert!(mismatch.contains("skillbook install"), "{mismatch}");

    // Without `--locked` nothing changes.
    let (names, diagnostics) = fixture.listed(&[]);
    assert_eq!(names, ["deploy", "extra", "review"]);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

#[test]
fn a_refused_skill_is_not_cataloged_shown_or_read() {
    let fixture = Fixture::new();
    fs::write(fixture.skills().join("review/notes.md"), "added later\n").unwrap();

    let catalog = fixture.run(&["--locked", "catalog"]);
    let text = String::from_utf8_lossy(&catalog.stdout);
    assert!(text.contains("deploy") && !text.contains("review") && !text.contains("extra"));
    let stderr = String::from_utf8_lossy(&catalog.stderr);
    assert!(stderr.contains("added: notes.md"), "{stderr}");

    let shown = fixture.run(&["--locked", "show", "review"]);
    assert!(!shown.status.success(), "{shown:?}");
    let skill_file = fixture.skills().join("review/SKILL.md");
    let read = fixture.run(&[
        "--locked",
        "read",
        "--restricted",
        skill_file.to_str().unwrap(),
    ]);
    assert!(!read.status.success(), "{read:?}");
    // Read by hand without --restricted: still refused, and so is the workspace around it.
    let read = fixture.run(&["--locked", "read", skill_file.to_str().unwrap()]);
    assert!(!read.status.success(), "{read:?}");
    let by_uri = fixture.run(&["--locked", "read", "skill://review/SKILL.md"]);
    assert!(!by_uri.status.success(), "{by_uri:?}");
    let admitted = fixture.skills().join("deploy/SKILL.md");
    let read = fixture.run(&["--locked", "read", admitted.to_str().unwrap()]);
    assert!(read.status.success(), "{read:?}");
    let read = fixture.run(&["read", "--restricted", skill_file.to_str().unwrap()]);
    assert!(read.status.success(), "{read:?}");
    let read = fixture.run(&["read", skill_file.to_str().unwrap()]);
    assert!(read.status.success(), "{read:?}");
}

#[test]
fn skills_of_other_roots_are_not_its_concern_and_no_lock_locks_nothing_in() {
    let fixture = Fixture::new();
    fs::remove_file(fixture.workspace.path().join("skills-lock.json")).unwrap();
    let elsewhere = fixture.workspace.path().join("more");
    source_tree::skill(&elsewhere, "local-only", "local-only", "");

    let (names, diagnostics) = fixture.listed(&["--locked", "--extra", "more"]);
    assert_eq!(names, ["local-only"]);
    let codes: Vec<&str> = diagnostics.iter().map(|(code, _)| code.as_str()).collect();
    assert_eq!(codes, ["not_locked", "not_locked", "not_locked"]);
}

#[test]
fn a_lock_that_cannot_be_read_refuses_its_whole_folder() {
    let fixture = Fixture::new();
    let lock = fixture.workspace.path().join("skills-lock.json");
    let text = fs::read_to_string(&lock).unwrap();
    fs::write(
        &lock,
        format!("<<<<<<< ours\n{text}=======\n>>>>>>> theirs\n"),
    )
    .unwrap();

    let (names, diagnostics) = fixture.listed(&["--locked"]);
    assert!(names.is_empty(), "{names:?}");
    assert_eq!(diagnostics.len(), 3);
    for (code, message) in &diagnostics {
        assert_eq!(code, "lock_mismatch");
        assert!(message.contains("the lock cannot be read"), "{message}");
    }
}

#[tokio::test]
async fn an_mcp_client_never_sees_a_refused_skill() {
    let fixture = Fixture::new();
    source_tree::edit_keeping_size_and_times(&fixture.skills().join("review/SKILL.md"));
    let command = fixture.command(&["--locked", "mcp"]);
    let child = TokioChildProcess::new(tokio::process::Command::from(command)).unwrap();
    let client = ().serve(child).await.unwrap();
    let skills = client.list_all_skills().await.unwrap();
    let names: Vec<&str> = skills.iter().map(|skill| skill.name()).collect();
    assert_eq!(names, ["deploy"]);
    let instructions = client
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .unwrap_or_default();
    assert!(instructions.contains("deploy"), "{instructions}");
    assert!(!instructions.contains("review"), "{instructions}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_skill_edited_after_the_server_started_is_not_read() {
    let fixture = Fixture::new();
    let command = fixture.command(&["--locked", "mcp"]);
    let child = TokioChildProcess::new(tokio::process::Command::from(command)).unwrap();
    let client = ().serve(child).await.unwrap();
    let script = fixture.skills().join("review/scripts/run.sh");
    let call = || {
        let arguments = serde_json::json!({"path": "skill://review/scripts/run.sh"});
        CallToolRequestParams::new("read_file")
            .with_arguments(arguments.as_object().unwrap().clone())
    };
    let before = client.call_tool(call()).await.unwrap();
    assert_eq!(before.is_error, Some(false), "{before:?}");

    // An edit deep in the skill that keeps the file's size and times.
    source_tree::edit_keeping_size_and_times(&script);
    let after = client.call_tool(call()).await.unwrap();
    assert_eq!(after.is_error, Some(true), "{after:?}");
    let answer = after.structured_content.unwrap_or_default().to_string();
    assert!(
        !answer.contains("echo onE"),
        "the edited file is never served: {answer}"
    );
    client.cancel().await.unwrap();
}
