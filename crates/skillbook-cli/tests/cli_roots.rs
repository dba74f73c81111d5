//! Which roots the commands read (SPEC §9): the home and `--no-home`, `--namespace` and
//! `--extra`, a relative home, a missing extra root, and an unreadable folder among readable
//! ones.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/workspace.rs"]
mod workspace;

use std::fs;

use serde_json::Value;
use workspace::{Fixture, stderr, stdout};

#[test]
fn home_skills_follow_home_and_no_home() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.home.path().join(".agents/skills"),
        "personal",
        "---\nname: personal\ndescription: Mine.\n---\n",
    );
    let names = |output: std::process::Output| -> Vec<String> {
        let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
        listing["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|skill| format!("{}:{}", skill["name"], skill["source"]))
            .collect()
    };
    let from_env = fixture
        .command()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(names(from_env), ["\"personal\":\"global\""]);
    let off = fixture
        .command()
        .args(["list", "--format", "json", "--no-home"])
        .output()
        .unwrap();
    assert!(names(off).is_empty());
    let other_home = tempfile::tempdir().unwrap();
    let explicit = fixture
        .command()
        .args(["list", "--format", "json", "--home"])
        .arg(other_home.path())
        .output()
        .unwrap();
    assert!(names(explicit).is_empty());
}

#[test]
fn namespace_and_extra_options_choose_the_roots() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.workspace.path().join(".codex/skills"),
        "c",
        "---\nname: codex-skill\ndescription: C.\n---\n",
    );
    fixture.skill(
        &fixture.root(),
        "a",
        "---\nname: agents-skill\ndescription: A.\n---\n",
    );
    fixture.skill(
        &fixture.workspace.path().join("vendor/skills"),
        "v",
        "---\nname: vendored\ndescription: V.\n---\n",
    );
    let output = fixture
        .command()
        .args([
            "--namespace",
            ".codex",
            "list",
            "--format",
            "json",
            "--extra",
            "vendor/skills",
        ])
        .current_dir(fixture.home.path())
        .output()
        .unwrap();
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["codex-skill", "vendored"]);
}

#[test]
fn a_missing_extra_directory_is_a_warning() {
    let fixture = Fixture::new();
    let output = fixture
        .command()
        .args(["--extra", "no-such-dir", "list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let listing: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(listing["diagnostics"][0]["code"], "extra_root_missing");
    assert_eq!(listing["diagnostics"][0]["severity"], "warning");
    let output = fixture
        .command()
        .args(["--extra", "no-such-dir", "list"])
        .output()
        .unwrap();
    assert!(
        fixture
            .redact(&stderr(&output))
            .contains("[WS]/no-such-dir"),
        "{}",
        stderr(&output)
    );
}

/// As root every directory is readable, so the check runs as an unprivileged user.
#[cfg(unix)]
#[test]
fn an_unreadable_directory_is_reported_and_siblings_still_listed() {
    use std::os::unix::fs::PermissionsExt;
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "locked/inner",
        "---\nname: hidden\ndescription: H.\n---\n",
    );
    fixture.skill(
        &fixture.root(),
        "open",
        "---\nname: visible\ndescription: V.\n---\n",
    );
    let locked = fixture.root().join("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(fixture.workspace.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("skillbook");
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|output| output.stdout == b"0\n")
        .unwrap_or(false);
    let mut command = if is_root {
        let mut command = std::process::Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        command.arg(&binary);
        command
    } else {
        std::process::Command::new(&binary)
    };
    let output = command
        .args(["--no-home", "--workspace"])
        .arg(fixture.workspace.path())
        .args(["list", "--format", "json"])
        .output();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    let output = output.expect("setpriv (util-linux) runs the check as an unprivileged user");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listing["skills"][0]["name"], "visible");
    assert_eq!(listing["skills"].as_array().unwrap().len(), 1);
    assert_eq!(listing["diagnostics"][0]["code"], "unreadable");
    assert_eq!(
        listing["diagnostics"][0]["path"],
        locked.display().to_string()
    );
}

#[test]
fn a_relative_home_means_the_current_directorys() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.home.path().join("me/.agents/skills"),
        "personal",
        "---\nname: personal\ndescription: Mine.\n---\n",
    );
    let output = fixture
        .command()
        .args(["--home", "me", "list", "--format", "json"])
        .current_dir(fixture.home.path())
        .output()
        .unwrap();
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listing["skills"][0]["name"], "personal");
}
