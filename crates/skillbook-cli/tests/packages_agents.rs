//! `--agent` through the binary: a relative link from `.claude/skills` to the installed skill
//! that survives moving the workspace, that `list` sees as the same skill, that `install` makes
//! again and `remove` deletes; copies with `--copy`; a folder skillbook did not make is never
//! replaced.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/source_tree.rs"]
mod source_tree;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::{Value, json};
use source_tree::write;

/// A workspace (in a folder of its own, so that it can be moved) holding its source in
/// `vendor/`: `review` and `deploy`.
struct Fixture {
    parent: tempfile::TempDir,
    home: tempfile::TempDir,
    name: String,
}

impl Fixture {
    fn new() -> Fixture {
        let fixture = Fixture {
            parent: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            name: "project".to_owned(),
        };
        fs::create_dir(fixture.workspace()).unwrap();
        source_tree::skill(&fixture.workspace(), "vendor/review", "review", "");
        source_tree::skill(&fixture.workspace(), "vendor/deploy", "deploy", "");
        fixture
    }

    fn workspace(&self) -> PathBuf {
        self.parent.path().join(&self.name)
    }

    fn claude(&self) -> PathBuf {
        self.workspace().join(".claude/skills")
    }

    fn run(&self, arguments: &[&str]) -> Output {
        Command::cargo_bin("skillbook")
            .unwrap()
            .current_dir(self.workspace())
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

    fn lock(&self) -> Value {
        serde_json::from_str(
            &fs::read_to_string(self.workspace().join("skills-lock.json")).unwrap(),
        )
        .unwrap()
    }
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_symlink())
}

#[test]
fn add_agent_links_relatively_and_list_sees_one_skill_without_a_warning() {
    let fixture = Fixture::new();
    let added = fixture.json(&["add", "./vendor", "--agent", "claude-code", "--yes"], 0);
    let review = fixture.claude().join("review");
    assert_eq!(
        added["exposed"],
        json!([
            fixture.claude().join("deploy").display().to_string(),
            review.display().to_string()
        ])
    );
    assert!(is_link(&review));
    assert_eq!(
        fs::read_link(&review).unwrap(),
        PathBuf::from("../../.agents/skills/review")
    );
    assert_eq!(
        fixture.lock()["skills"]["review"]["skillbook"]["agents"],
        json!({ "claude-code": "link" })
    );

    let listed = fixture.run(&["list"]);
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    assert_eq!(String::from_utf8_lossy(&listed.stderr), "", "no warning");
    let listed = fixture.json(&["list"], 0);
    let names: Vec<&str> = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.iter().filter(|name| **name == "review").count(), 1);
    assert_eq!(listed["diagnostics"], json!([]));

    // Codex, Copilot and Gemini CLI read `.agents/skills` themselves: nothing to link.
    let again = fixture.json(
        &[
            "add",
            "./vendor",
            "--agent",
            "codex,github-copilot,gemini-cli,cursor",
            "--yes",
        ],
        0,
    );
    assert_eq!(again["exposed"], json!([]));
    assert!(!fixture.workspace().join(".codex").exists());
    assert!(!fixture.workspace().join(".gemini").exists());
}

#[test]
fn links_survive_moving_the_workspace_and_install_makes_them_again() {
    let mut fixture = Fixture::new();
    fixture.json(&["add", "./vendor", "--agent", "claude-code", "--yes"], 0);
    fs::rename(fixture.workspace(), fixture.parent.path().join("moved")).unwrap();
    fixture.name = "moved".to_owned();
    assert!(fixture.claude().join("review/SKILL.md").is_file());
    assert_eq!(
        fixture.json(&["install", "--frozen"], 0)["exposed"],
        json!([])
    );

    fs::remove_file(fixture.claude().join("review")).unwrap();
    let frozen = fixture.json(&["install", "--frozen"], 1);
    assert_eq!(
        frozen["exposed"],
        json!([fixture.claude().join("review").display().to_string()])
    );
    assert!(!fixture.claude().join("review").exists());

    // A fresh clone: neither the skills nor the links, only the lock and the source.
    fs::remove_dir_all(fixture.workspace().join(".agents")).unwrap();
    fs::remove_dir_all(fixture.workspace().join(".claude")).unwrap();
    let installed = fixture.json(&["install"], 0);
    assert_eq!(installed["applied"], true);
    assert!(is_link(&fixture.claude().join("deploy")));
    assert!(fixture.claude().join("review/SKILL.md").is_file());
    assert_eq!(
        fixture.json(&["install", "--frozen"], 0)["restored"],
        json!([])
    );
}

#[test]
fn remove_deletes_the_links_it_made_and_nothing_else() {
    let fixture = Fixture::new();
    source_tree::skill(&fixture.claude(), "mine", "mine", "");
    fixture.json(&["add", "./vendor", "--agent", "claude-code", "--yes"], 0);
    fixture.json(&["remove", "review"], 0);
    assert!(fs::symlink_metadata(fixture.claude().join("review")).is_err());
    assert!(is_link(&fixture.claude().join("deploy")));
    assert!(fixture.claude().join("mine/SKILL.md").is_file());

    // A link the user pointed elsewhere is not skillbook's: it stays.
    fs::remove_file(fixture.claude().join("deploy")).unwrap();
    std::os::unix::fs::symlink("mine", fixture.claude().join("deploy")).unwrap();
    fixture.json(&["remove", "deploy"], 0);
    assert!(is_link(&fixture.claude().join("deploy")));
    assert!(!fixture.workspace().join(".agents/skills/deploy").exists());
}

#[test]
fn a_foreign_folder_of_the_same_name_is_never_overwritten() {
    let fixture = Fixture::new();
    write(&fixture.claude(), "review/SKILL.md", "hand written\n");
    let refused = fixture.json(&["add", "./vendor", "--agent", "claude-code", "--yes"], 1);
    assert_eq!(refused["error"], "agent_folder_taken");
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.starts_with(&fixture.claude().join("review").display().to_string()),
        "{message}"
    );
    assert!(message.contains("not made by skillbook"), "{message}");
    assert_eq!(
        fs::read_to_string(fixture.claude().join("review/SKILL.md")).unwrap(),
        "hand written\n"
    );
    assert!(!fixture.workspace().join(".agents/skills/review").exists());
    assert!(!fixture.workspace().join("skills-lock.json").exists());

    // Without --agent the skill installs; `install --agent` then refuses the same way.
    fixture.json(&["add", "./vendor", "--yes"], 0);
    let refused = fixture.json(&["install", "--agent", "claude-code"], 1);
    assert_eq!(refused["error"], "agent_folder_taken");
    assert!(
        fixture.lock()["skills"]["review"]["skillbook"]
            .get("agents")
            .is_none()
    );
}

#[test]
fn copies_are_refreshed_by_update_and_removed_by_remove() {
    let fixture = Fixture::new();
    fixture.json(
        &[
            "add",
            "./vendor",
            "--agent",
            "claude-code",
            "--copy",
            "--yes",
        ],
        0,
    );
    let copy = fixture.claude().join("review");
    assert!(!is_link(&copy));
    assert!(copy.join("SKILL.md").is_file());
    assert_eq!(
        fixture.lock()["skills"]["review"]["skillbook"]["agents"],
        json!({ "claude-code": "copy" })
    );

    write(&fixture.workspace(), "vendor/review/notes.md", "new\n");
    fixture.json(&["update", "review"], 0);
    assert_eq!(fs::read_to_string(copy.join("notes.md")).unwrap(), "new\n");
    assert_eq!(
        fixture.lock()["skills"]["review"]["skillbook"]["agents"],
        json!({ "claude-code": "copy" })
    );

    fixture.json(&["remove", "review"], 0);
    assert!(!copy.exists());
}

#[test]
fn install_agent_exposes_every_locked_skill_and_records_it() {
    let fixture = Fixture::new();
    fixture.json(&["add", "./vendor", "--yes"], 0);
    let frozen = fixture.json(&["install", "--frozen", "--agent", "claude-code"], 1);
    assert_eq!(frozen["recorded"], json!(["deploy", "review"]));
    assert!(!fixture.claude().exists());

    fixture.json(&["install", "--agent", "claude-code"], 0);
    assert!(is_link(&fixture.claude().join("deploy")));
    assert!(is_link(&fixture.claude().join("review")));
    assert_eq!(
        fixture.lock()["skills"]["deploy"]["skillbook"]["agents"],
        json!({ "claude-code": "link" })
    );
    assert_eq!(fixture.json(&["verify"], 0)["clean"], true);

    let unknown = fixture.json(&["add", "./vendor", "--agent", "claude", "--yes"], 2);
    assert_eq!(unknown["error"], "unknown_agent");
}

#[test]
fn global_links_go_into_the_homes_client_folders() {
    let fixture = Fixture::new();
    fixture.json(
        &[
            "add",
            "./vendor",
            "--global",
            "--agent",
            "cursor,claude-code",
            "--yes",
        ],
        0,
    );
    for client in [".cursor/skills", ".claude/skills"] {
        let link = fixture.home.path().join(client).join("review");
        assert_eq!(
            fs::read_link(&link).unwrap(),
            PathBuf::from("../../.agents/skills/review"),
            "{client}"
        );
        assert!(link.join("SKILL.md").is_file());
    }
    assert!(!fixture.claude().exists(), "nothing in the workspace");
    fixture.json(&["remove", "--global", "review"], 0);
    assert!(fs::symlink_metadata(fixture.home.path().join(".cursor/skills/review")).is_err());
}
