//! `list` and `catalog` over more skills than one rendering chunk: both print while discovery
//! runs, and must print exactly what the whole discovery result holds.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

/// 700 skills in nested collections: every tenth has broken YAML, every seventh shares one of
/// three names (so later ones are shadowed), one is manual-only.
fn tree() -> TempDir {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().join(".agents/skills");
    for index in 0..700 {
        let folder = root.join(format!("group-{}/sub-{}/s{index:03}", index % 5, index % 3));
        fs::create_dir_all(&folder).unwrap();
        let front_matter = match index {
            _ if index % 10 == 0 => format!("name: s{index:03}\ndescription: [oops"),
            _ if index % 7 == 0 => format!("name: shared-{}\ndescription: Shared.", index % 3),
            333 => "name: s333\ndescription: Manual.\ndisable-model-invocation: true".to_owned(),
            _ => format!(
                "name: s{index:03}\ndescription: Skill {index}.\nmetadata:\n  version: \"1.{index}\""
            ),
        };
        fs::write(
            folder.join("SKILL.md"),
            format!("---\n{front_matter}\n---\n# Skill {index}\n"),
        )
        .unwrap();
    }
    workspace
}

fn skillbook(workspace: &Path, arguments: &[&str]) -> std::process::Output {
    let output = Command::cargo_bin("skillbook")
        .unwrap()
        .env_remove("RUST_LOG")
        .args(["--no-home", "--workspace"])
        .arg(workspace)
        .args(arguments)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{arguments:?}");
    output
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn list_json_holds_every_skill_and_diagnostic_in_the_order_of_list_text() {
    let workspace = tree();
    let json = skillbook(workspace.path(), &["list", "--format", "json"]);
    let listing: Value = serde_json::from_slice(&json.stdout).unwrap();
    let skills = listing["skills"].as_array().unwrap();
    // 700, less the 99 - 3 that share a name with an earlier skill.
    let shared = (0..700).filter(|i| i % 7 == 0 && i % 10 != 0).count();
    assert_eq!(skills.len(), 700 - (shared - 3));
    // `list` in text keeps the whole discovery result before printing: the same skills in the
    // same order, and the same diagnostics.
    let text = skillbook(workspace.path(), &["list"]);
    let text_locations: Vec<String> = lines(&text.stdout)
        .iter()
        .step_by(2)
        .map(|line| line.split_whitespace().nth(2).unwrap().to_owned())
        .collect();
    let json_locations: Vec<&str> = skills
        .iter()
        .map(|skill| skill["location"].as_str().unwrap())
        .collect();
    assert_eq!(json_locations, text_locations);
    let versions = skills
        .iter()
        .filter(|skill| skill["front_matter"]["metadata"]["version"].is_string())
        .count();
    assert!(versions > 400, "front matter rendered for every skill");
    let mut json_diagnostics: Vec<String> = listing["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| {
            format!(
                "{} {}",
                diagnostic["code"].as_str().unwrap(),
                diagnostic["path"].as_str().unwrap()
            )
        })
        .collect();
    let mut text_diagnostics: Vec<String> = lines(&text.stderr)
        .iter()
        .map(|line| {
            let (code, rest) = line.split_once("]: ").unwrap();
            let path = &rest[..rest.find("SKILL.md").unwrap() + "SKILL.md".len()];
            format!("{} {path}", code.split_once('[').unwrap().1)
        })
        .collect();
    json_diagnostics.sort();
    text_diagnostics.sort();
    assert_eq!(json_diagnostics, text_diagnostics);
    assert!(
        json_diagnostics
            .iter()
            .any(|line| line.starts_with("shadowed "))
    );
}

#[test]
fn catalog_lists_every_model_visible_skill_once_and_prints_every_diagnostic() {
    let workspace = tree();
    let catalog = skillbook(workspace.path(), &["catalog", "--no-budget"]);
    let text = String::from_utf8(catalog.stdout).unwrap();
    let listed = text.matches("<skill>").count();
    let list: Value =
        serde_json::from_slice(&skillbook(workspace.path(), &["list", "--format", "json"]).stdout)
            .unwrap();
    let visible = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|skill| skill["disable_model_invocation"] == false)
        .count();
    assert_eq!(listed, visible);
    assert!(
        !text.contains("s333/SKILL.md"),
        "manual-only skills are not listed"
    );
    assert_eq!(
        lines(&catalog.stderr).len(),
        list["diagnostics"].as_array().unwrap().len()
    );
    // The JSON form carries the same catalog and the same diagnostics.
    let json: Value = serde_json::from_slice(
        &skillbook(
            workspace.path(),
            &["catalog", "--no-budget", "--format", "json"],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(
        json["catalog"].as_str().unwrap(),
        text.trim_end_matches('\n')
    );
    assert_eq!(json["listed"], listed);
    assert_eq!(json["diagnostics"], list["diagnostics"]);
}
