//! `skillbook add`, `verify` and `remove` through the binary: a local folder installed and
//! locked, drift listed with exit 1, removal, hostile sources refused with nothing written,
//! and a failed add leaving the previous state as it was.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/source_tree.rs"]
mod source_tree;

use std::fs;
use std::path::Path;
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;
use source_tree::write;

struct Fixture {
    source: tempfile::TempDir,
    workspace: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let fixture = Fixture {
            source: tempfile::tempdir().unwrap(),
            workspace: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        source_tree::skill(
            fixture.source.path(),
            "skills/review",
            "review",
            "allowed-tools: Bash\n",
        );
        write(
            fixture.source.path(),
            "skills/review/scripts/run.sh",
            "echo hi\n",
        );
        source_tree::skill(
            fixture.source.path(),
            "skills/deploy",
            "deploy",
            "allowed-tools: Bash\n",
        );
        fixture
    }

    fn run(&self, arguments: &[&str]) -> Output {
        Command::cargo_bin("skillbook")
            .unwrap()
            .current_dir(self.workspace.path())
            .env("HOME", self.home.path())
            .args(arguments)
            .output()
            .unwrap()
    }

    fn json(&self, arguments: &[&str], code: i32) -> Value {
        let mut arguments = arguments.to_vec();
        arguments.extend(["--format", "json"]);
        let output = self.run(&arguments);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{arguments:?}: {output:?}"
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn source(&self) -> String {
        self.source.path().display().to_string()
    }

    fn skills(&self) -> std::path::PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    /// Every path and content below the workspace.
    fn state(&self) -> Vec<(String, Vec<u8>)> {
        let mut found = Vec::new();
        let mut stack = vec![self.workspace.path().to_path_buf()];
        while let Some(folder) = stack.pop() {
            for entry in fs::read_dir(&folder).unwrap().flatten() {
                let path = entry.path();
                let relative = path
                    .strip_prefix(self.workspace.path())
                    .unwrap()
                    .display()
                    .to_string();
                if path.is_dir() {
                    stack.push(path);
                    found.push((relative, Vec::new()));
                } else {
                    found.push((relative, fs::read(&path).unwrap()));
                }
            }
        }
        found.sort();
        found
    }
}

#[test]
fn add_verify_and_remove_end_to_end() {
    let fixture = Fixture::new();
    let source = fixture.source();
    let added = fixture.json(&["add", &source, "--skill", "review", "--yes"], 0);
    assert_eq!(added["installed"][0]["name"], "review");
    assert_eq!(added["installed"][0]["scripts"][0], "scripts/run.sh");
    assert_eq!(added["installed"][0]["allowed_tools"], "Bash");
    assert!(fixture.skills().join("review/scripts/run.sh").is_file());
    assert!(!fixture.skills().join("deploy").exists());

    let lock: Value = serde_json::from_str(
        &fs::read_to_string(fixture.workspace.path().join("skills-lock.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(lock["version"], 1);
    let entry = &lock["skills"]["review"];
    assert_eq!(entry["sourceType"], "local");
    assert_eq!(entry["skillPath"], "skills/review/SKILL.md");
    assert!(entry.get("ref").is_none());
    assert_eq!(entry["computedHash"].as_str().unwrap().len(), 64);

    let verified = fixture.json(&["verify"], 0);
    assert_eq!(verified["clean"], true);
    assert_eq!(verified["checked"], 1);

    let installed = fixture.skills().join("review");
    fs::write(installed.join("SKILL.md"), "edited").unwrap();
    fs::write(installed.join("extra.md"), "new").unwrap();
    fs::remove_file(installed.join("scripts/run.sh")).unwrap();
    let drifted = fixture.json(&["verify"], 1);
    assert_eq!(
        drifted["drifted"][0],
        serde_json::json!({
            "name": "review", "state": "changed", "added": ["extra.md"],
            "removed": ["scripts/run.sh"], "changed": ["SKILL.md"], "hash_only": false,
            "message": null,
        })
    );
    let text = fixture.run(&["verify"]);
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("review: changed\n  + extra.md\n  - scripts/run.sh\n  ~ SKILL.md\n"),
        "{text}"
    );

    let removed = fixture.json(&["remove", "review"], 0);
    assert_eq!(removed["removed"][0], "review");
    assert!(!installed.exists());
    assert_eq!(fixture.json(&["verify"], 0)["checked"], 0);
    let missing = fixture.json(&["remove", "review"], 1);
    assert_eq!(missing["error"], "not_installed");
}

#[test]
fn global_installs_into_the_home_with_its_own_lock() {
    let fixture = Fixture::new();
    let source = fixture.source();
    fixture.json(&["add", &source, "--global", "--yes"], 0);
    let home = fixture.home.path().join(".agents");
    assert!(home.join("skills/review/SKILL.md").is_file());
    assert!(home.join("skills/deploy/SKILL.md").is_file());
    assert!(home.join("skills-lock.json").is_file());
    assert!(!fixture.workspace.path().join("skills-lock.json").exists());
    assert_eq!(fixture.json(&["verify", "--global"], 0)["checked"], 2);
}

#[test]
fn sources_that_are_neither_folders_nor_repositories_are_refused_without_echoing_secrets() {
    let fixture = Fixture::new();
    for source in [
        "skills",
        "owner/repo/../../etc",
        "https://someone:hunter2@example.com/skills.git",
    ] {
        let refused = fixture.json(&["add", source, "--yes"], 2);
        assert_eq!(refused["error"], "unsupported_source", "{source}");
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains("owner/repo"), "{message}");
        assert!(!message.contains("hunter2"), "{message}");
    }
    assert!(fixture.state().is_empty());
}

#[test]
fn add_without_yes_and_without_a_terminal_asks_for_yes() {
    let fixture = Fixture::new();
    let output = fixture.run(&["add", &fixture.source()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("scripts: scripts/run.sh"), "{stderr}");
    assert!(stderr.contains("allowed-tools: Bash"), "{stderr}");
    assert!(stderr.contains("pass --yes"), "{stderr}");
    assert!(fixture.state().is_empty());
}

#[test]
fn hostile_sources_are_refused_and_the_previous_state_is_kept() {
    let fixture = Fixture::new();
    let source = fixture.source();
    fixture.json(&["add", &source, "--skill", "review", "--yes"], 0);
    let before = fixture.state();
    type Setup = fn(&Path);
    let cases: [(&str, Setup, &str); 4] = [
        (
            "control character",
            |root| write(root, "skills/review/bad\u{7}.md", "x"),
            "refused",
        ),
        (
            "case collision",
            |root| {
                write(root, "skills/review/Notes.md", "a");
                write(root, "skills/review/notes.md", "b");
            },
            "refused",
        ),
        (
            "checker error",
            |root| {
                source_tree::skill(
                    root,
                    "skills/review",
                    "Review Tool",
                    "allowed-tools: Bash\n",
                )
            },
            "check_failed",
        ),
        ("name collision", |_| {}, "name_collision"),
    ];
    for (case, setup, code) in cases {
        let copy = tempfile::tempdir().unwrap();
        source_tree::skill(
            copy.path(),
            "skills/review",
            "review",
            "allowed-tools: Bash\n",
        );
        write(
            copy.path(),
            "skills/review/scripts/run.sh",
            "echo changed\n",
        );
        setup(copy.path());
        let copy_path = copy.path().display().to_string();
        let refused = fixture.json(&["add", &copy_path, "--yes"], 1);
        assert_eq!(refused["error"], code, "{case}: {refused}");
        assert_eq!(fixture.state(), before, "{case}");
    }
    let conflicted = "{\n<<<<<<< HEAD\n}\n";
    fs::write(
        fixture.workspace.path().join("skills-lock.json"),
        conflicted,
    )
    .unwrap();
    let before = fixture.state();
    let refused = fixture.json(&["add", &source, "--yes"], 1);
    assert_eq!(refused["error"], "invalid_lock");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("skills-lock.json:2: merge-conflict marker")
    );
    assert_eq!(fixture.state(), before);
    assert_eq!(fixture.json(&["verify"], 1)["error"], "invalid_lock");
}

#[cfg(unix)]
#[test]
fn a_link_inside_a_skill_is_left_out_and_listed() {
    let fixture = Fixture::new();
    std::os::unix::fs::symlink(
        "/etc/passwd",
        fixture.source.path().join("skills/review/passwd"),
    )
    .unwrap();
    let added = fixture.json(&["add", &fixture.source(), "--skill", "review", "--yes"], 0);
    assert_eq!(
        added["installed"][0]["left_out"],
        serde_json::json!([{ "path": "passwd", "reason": "link" }])
    );
    assert!(fs::symlink_metadata(fixture.skills().join("review/passwd")).is_err());
    assert_eq!(fixture.json(&["verify"], 0)["clean"], true);
}

#[test]
fn the_commands_are_in_the_help_and_the_completions() {
    let fixture = Fixture::new();
    let help = String::from_utf8_lossy(&fixture.run(&["--help"]).stdout).into_owned();
    for command in ["add", "verify", "remove"] {
        assert!(help.contains(&format!("  {command} ")), "{help}");
    }
    let script =
        String::from_utf8_lossy(&fixture.run(&["completions", "bash"]).stdout).into_owned();
    for word in [
        "add", "verify", "remove", "--skill", "--global", "--force", "--yes",
    ] {
        assert!(script.contains(word), "completions lack {word}");
    }
}
