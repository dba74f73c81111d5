//! `skillbook read` (SPEC §9): the read tool's result with the skill marker, its errors as JSON
//! objects with a stable code, `--restricted` as the runtime's and MCP's reader, and a followed
//! link to `/etc/passwd` that opens that file only.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/workspace.rs"]
mod workspace;

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use workspace::{Fixture, stderr, stdout};

#[test]
fn read_prints_the_tool_result_with_the_skill_marker() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nline 5\n\nline 7\n",
    );
    let output = fixture
        .command()
        .args([
            "read",
            ".agents/skills/pdf/SKILL.md",
            "--start-line",
            "5",
            "--end-line",
            "6",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result: Value = serde_json::from_str(&fixture.redact(&stdout(&output))).unwrap();
    assert_eq!(
        result,
        json!({
            "path": "[WS]/.agents/skills/pdf/SKILL.md",
            "content": "<skill_instructions name=\"pdf\" dir=\"[WS]/.agents/skills/pdf\">\nline 5\n\n</skill_instructions>",
            "startLine": 5,
            "endLine": 6,
            "truncated": false,
            "totalLines": 7,
            "nextStartLine": 7,
            "skill": "pdf"
        })
    );
}

#[test]
fn read_errors_are_json_objects_with_a_stable_code_and_exit_1() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: P.\n---\n",
    );
    fs::write(
        fixture.workspace.path().join("notes.md"),
        "workspace notes\n",
    )
    .unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["read", "../../../../etc/passwd"], "outside_boundary"),
        (&["read", "missing.md"], "not_found"),
        (&["read", ".agents"], "is_directory"),
        (&["read", "notes.md", "--restricted"], "not_found"),
    ];
    for (arguments, code) in cases {
        let output = fixture.command().args(arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{arguments:?}");
        let error: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(error["error"], code, "{arguments:?}: {error}");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|message| !message.is_empty())
        );
    }
    let absolute = fixture.workspace.path().join("notes.md");
    let output = fixture
        .command()
        .args(["read", "--restricted"])
        .arg(&absolute)
        .output()
        .unwrap();
    let error: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(error["error"], "outside_boundary");
    assert!(!stdout(&output).contains("workspace notes"));
    let usage = fixture
        .command()
        .args(["read", "notes.md", "--start-line", "0"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn restricted_read_matches_the_skill_reader_of_the_runtime_and_mcp() {
    let fixture = Fixture::new();
    fixture.skill(&fixture.root(), "a", "---\nname: a\ndescription: A.\n---\n");
    fixture.skill(&fixture.root(), "b", "---\nname: b\ndescription: B.\n---\n");
    let manual = fixture.skill(
        &fixture.root(),
        "m",
        "---\nname: m\ndescription: M.\ndisable-model-invocation: true\n---\n",
    );
    let code = |arguments: &[&str]| -> String {
        let output = fixture.command().args(arguments).output().unwrap();
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        value["error"].as_str().unwrap_or("ok").to_owned()
    };
    assert_eq!(
        code(&["read", "--restricted", "b/SKILL.md"]),
        "invalid_argument"
    );
    let b = fixture.root().join("b/SKILL.md");
    assert_eq!(code(&["read", "--restricted", b.to_str().unwrap()]), "ok");
    assert_eq!(
        code(&["read", "--restricted", manual.to_str().unwrap()]),
        "outside_boundary"
    );
    assert_eq!(code(&["read", manual.to_str().unwrap()]), "ok");
}

#[cfg(unix)]
#[test]
fn a_followed_skill_file_link_to_etc_passwd_opens_that_file_only() {
    if !Path::new("/etc/passwd").is_file() {
        return;
    }
    let fixture = Fixture::new();
    let folder = fixture.root().join("linked");
    fs::create_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", folder.join("SKILL.md")).unwrap();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: PDF.\n---\n",
    );
    let listed = fixture
        .command()
        .args(["--symlinks", "follow", "--format", "json", "list"])
        .output()
        .unwrap();
    let listing: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let skill = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|skill| skill["name"] == "linked")
        .unwrap_or_else(|| panic!("the linked skill is listed: {listing}"));
    assert_eq!(
        skill["location"],
        folder.join("SKILL.md").display().to_string()
    );
    assert!(
        !listing["read_roots"].to_string().contains("\"/etc\""),
        "{}",
        listing["read_roots"]
    );
    let read = |path: &str, restricted: bool| -> Value {
        let mut command = fixture.command();
        command.args(["--symlinks", "follow", "read"]);
        if restricted {
            command.arg("--restricted");
        }
        let output = command.arg(path).output().unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let skill_file = folder.join("SKILL.md").display().to_string();
    assert!(
        read(&skill_file, true)["content"]
            .as_str()
            .unwrap()
            .contains("root:")
    );
    for restricted in [true, false] {
        for path in ["/etc/shadow", "/etc/hostname", "/etc/passwd"] {
            assert_eq!(
                read(path, restricted)["error"],
                "outside_boundary",
                "{path} (restricted: {restricted})"
            );
        }
        let through = folder.join("../../../../../../../etc/shadow");
        assert_eq!(
            read(through.to_str().unwrap(), restricted)["error"],
            "outside_boundary"
        );
    }
}

/// A `skill://` URI names a found skill's file with or without `--restricted` (and a manual-only
/// skill's only without it, as the model's reader never reads those).
#[test]
fn read_takes_skill_uris_in_both_modes() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n",
    );
    std::fs::write(fixture.root().join("pdf/forms.md"), "the forms\n").unwrap();
    fixture.skill(
        &fixture.root(),
        "deploy",
        "---\nname: deploy\ndescription: Deploy.\ndisable-model-invocation: true\n---\n",
    );
    let read = |arguments: &[&str]| -> Value {
        let output = fixture
            .command()
            .arg("read")
            .args(arguments)
            .output()
            .unwrap();
        serde_json::from_str(&stdout(&output)).unwrap()
    };
    for restricted in [&[][..], &["--restricted"]] {
        let forms = read(&[&["skill://pdf/forms.md"][..], restricted].concat());
        assert_eq!(forms["content"], "the forms", "{restricted:?}: {forms}");
        let near = read(&[&["skill://pdf/FORMS.md"][..], restricted].concat());
        assert_eq!(near["error"], "not_found", "{restricted:?}");
        assert!(
            near["message"]
                .as_str()
                .unwrap()
                .contains("did you mean `forms.md`?"),
            "{near}"
        );
    }
    assert_eq!(read(&["skill://deploy/SKILL.md"])["skill"], "deploy");
    assert_eq!(
        read(&["skill://deploy/SKILL.md", "--restricted"])["error"],
        "not_found"
    );
}
