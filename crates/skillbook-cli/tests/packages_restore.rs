//! `skillbook install` and `update` through the binary: deleted and drifted skills restored from
//! the lock, `--frozen` failing with nothing changed, a changed source refused, an update listing
//! what changed and locking it, and a lock without skillbook's fields installing by its
//! `computedHash`.
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
use serde_json::{Value, json};
use source_tree::write;

/// A workspace holding its own source folder (`vendor/`), with `review` and `deploy` added.
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
        let vendor = fixture.vendor();
        source_tree::skill(&vendor, "review", "review", "");
        write(&vendor, "review/scripts/run.sh", "echo hi\n");
        source_tree::skill(&vendor, "deploy", "deploy", "");
        fixture.json(&["add", "./vendor", "--yes"], 0);
        fixture
    }

    fn vendor(&self) -> PathBuf {
        self.workspace.path().join("vendor")
    }

    fn skills(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    fn lock(&self) -> String {
        fs::read_to_string(self.workspace.path().join("skills-lock.json")).unwrap()
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

    /// Every path and content below the installed skills and the lock.
    fn state(&self) -> Vec<(String, Vec<u8>)> {
        let mut found = vec![("lock".to_owned(), self.lock().into_bytes())];
        let mut stack = vec![self.skills()];
        while let Some(folder) = stack.pop() {
            for entry in fs::read_dir(&folder).unwrap().flatten() {
                let path = entry.path();
                let relative = path.strip_prefix(self.skills()).unwrap().display();
                if path.is_dir() {
                    found.push((relative.to_string(), Vec::new()));
                    stack.push(path);
                } else {
                    found.push((relative.to_string(), fs::read(&path).unwrap()));
                }
            }
        }
        found.sort();
        found
    }
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn install_restores_a_deleted_and_a_drifted_skill_and_leaves_the_lock_alone() {
    let fixture = Fixture::new();
    let installed = fixture.state();
    let lock = fixture.lock();
    fs::remove_dir_all(fixture.skills().join("deploy")).unwrap();
    write(&fixture.skills(), "review/SKILL.md", "edited\n");
    write(&fixture.skills(), "review/extra.md", "new\n");

    let output = fixture.run(&["install"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        text(&output),
        "deploy: missing\nreview: changed\n  + extra.md\n  ~ SKILL.md\n\
         installed 2 of 2 locked skill(s) again from their sources\n"
    );
    assert_eq!(fixture.state(), installed);
    assert_eq!(fixture.lock(), lock);

    let again = fixture.json(&["install"], 0);
    assert_eq!(again["restored"], json!([]));
    assert_eq!(again["applied"], false);
    assert_eq!(again["checked"], 2);
}

#[test]
fn install_frozen_fails_listing_what_would_change_and_changes_nothing() {
    let fixture = Fixture::new();
    fs::remove_dir_all(fixture.skills().join("deploy")).unwrap();
    fs::remove_file(fixture.skills().join("review/scripts/run.sh")).unwrap();
    let before = fixture.state();

    let report = fixture.json(&["install", "--frozen"], 1);
    assert_eq!(report["frozen"], true);
    assert_eq!(report["applied"], false);
    let restored: Vec<(&str, &str)> = report["restored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| {
            (
                skill["name"].as_str().unwrap(),
                skill["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(restored, [("deploy", "missing"), ("review", "changed")]);
    assert_eq!(report["restored"][1]["removed"], json!(["scripts/run.sh"]));

    let output = fixture.run(&["install", "--frozen"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).ends_with(
            "--frozen: 2 of 2 locked skill(s) would be installed again; nothing changed\n"
        ),
        "{output:?}"
    );
    assert_eq!(fixture.state(), before);

    fixture.json(&["install"], 0);
    assert_eq!(
        fixture.json(&["install", "--frozen"], 0)["restored"],
        json!([])
    );
}

#[test]
fn install_refuses_a_source_that_changed_since_it_was_locked() {
    let fixture = Fixture::new();
    fs::remove_dir_all(fixture.skills().join("deploy")).unwrap();
    fs::remove_dir_all(fixture.skills().join("review")).unwrap();
    write(&fixture.vendor(), "deploy/notes.md", "not reviewed\n");
    let before = fixture.state();

    let refused = fixture.json(&["install"], 1);
    assert_eq!(refused["error"], "source_changed");
    let message = refused["message"].as_str().unwrap();
    assert!(message.starts_with("deploy: "), "{message}");
    assert!(message.contains("skillbook update deploy"), "{message}");
    assert_eq!(fixture.state(), before, "not even the unchanged review");
}

#[test]
fn update_shows_what_changed_installs_it_and_updates_the_lock() {
    let fixture = Fixture::new();
    let lock = fixture.lock();
    write(
        &fixture.vendor(),
        "review/SKILL.md",
        "---\nname: review\ndescription: Review better.\n---\n",
    );
    write(&fixture.vendor(), "review/notes.md", "new\n");
    fs::remove_file(fixture.vendor().join("review/scripts/run.sh")).unwrap();

    let output = fixture.run(&["update"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        text(&output),
        "review: updated\n  + notes.md\n  - scripts/run.sh\n  ~ SKILL.md\ndeploy: unchanged\n"
    );
    assert!(fixture.skills().join("review/notes.md").is_file());
    assert!(!fixture.skills().join("review/scripts").exists());
    assert_ne!(fixture.lock(), lock);
    assert!(fixture.lock().contains("notes.md"));
    assert_eq!(fixture.json(&["verify"], 0)["clean"], true);

    let again = fixture.json(&["update", "review"], 0);
    assert_eq!(again["updated"], json!([]));
    assert_eq!(again["unchanged"], json!(["review"]));

    write(&fixture.vendor(), "deploy/more.md", "more\n");
    let json = fixture.json(&["update", "deploy"], 0);
    assert_eq!(
        json["updated"],
        json!([{ "name": "deploy", "added": ["more.md"], "removed": [], "changed": [] }])
    );

    let unknown = fixture.json(&["update", "nope"], 1);
    assert_eq!(unknown["error"], "not_locked");
}

#[test]
fn a_lock_without_skillbooks_fields_installs_by_its_computed_hash() {
    let fixture = Fixture::new();
    let mut lock: Value = serde_json::from_str(&fixture.lock()).unwrap();
    for entry in lock["skills"].as_object_mut().unwrap().values_mut() {
        let entry = entry.as_object_mut().unwrap();
        entry.remove("skillbook");
        entry.remove("skillPath");
    }
    let tool_lock = format!("{}\n", serde_json::to_string_pretty(&lock).unwrap());
    fs::write(
        fixture.workspace.path().join("skills-lock.json"),
        &tool_lock,
    )
    .unwrap();
    fs::remove_dir_all(fixture.skills()).unwrap();

    let report = fixture.json(&["install"], 0);
    assert_eq!(report["applied"], true);
    assert!(fixture.skills().join("review/scripts/run.sh").is_file());
    assert!(fixture.skills().join("deploy/SKILL.md").is_file());
    assert_eq!(fixture.lock(), tool_lock);

    fs::remove_dir_all(fixture.skills().join("review")).unwrap();
    write(
        &fixture.vendor(),
        "review/SKILL.md",
        "---\nname: review\ndescription: Other.\n---\n",
    );
    assert_eq!(fixture.json(&["install"], 1)["error"], "source_changed");
}
