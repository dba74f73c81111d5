//! `skillbook serve` with a tenant's `locks`: the skills a lock records are served only as it
//! pins them — one the lock does not name, or one whose files differ, is neither listed nor
//! read, also when it is edited after the server started, whatever the edit kept of its size
//! and times — while the tenant's other sources are served as before.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/serving.rs"]
mod serving;
#[path = "support/source_tree.rs"]
mod source_tree;

use std::fs;

use serde_json::{Value, json};
use serving::{ALPHA, Server, call, mcp};
use skillbook_mcp::http::TokenDigest;

/// The names in a `skills/list` answer of tenant `alpha`.
fn listed(address: &str) -> Vec<String> {
    let answer = mcp(address, Some(ALPHA), &call(2, "skills/list", json!({}))).unwrap();
    let body: Value = answer.json();
    let mut names: Vec<String> = body["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|skill| {
            skill["frontmatter"]["name"]
                .as_str()
                .unwrap_or_else(|| panic!("{skill}"))
                .to_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn a_tenants_lock_decides_what_is_served() {
    let directory = tempfile::tempdir().unwrap();
    let workspace = directory.path().join("ws");
    let vendor = workspace.join("vendor");
    source_tree::skill(&vendor, "review", "review", "");
    source_tree::write(&vendor, "review/notes.md", "Check the tests first.\n");
    source_tree::skill(&vendor, "deploy", "deploy", "");
    let added = assert_cmd::Command::cargo_bin("skillbook")
        .unwrap()
        .current_dir(&workspace)
        .env("HOME", directory.path())
        .args(["add", "./vendor", "--yes"])
        .output()
        .unwrap();
    assert!(added.status.success(), "{added:?}");
    let skills = workspace.join(".agents/skills");
    source_tree::skill(&skills, "extra", "extra", "");
    source_tree::skill(&directory.path().join("shared"), "memo", "memo", "");
    let config = directory.path().join("skillbook.toml");
    fs::write(
        &config,
        format!(
            "[[tenant]]\nname = \"alpha\"\nsources = [\"ws/.agents/skills\", \"shared\"]\n\
             locks = [\"ws/skills-lock.json\"]\ntokens = [\"{}\"]\n",
            TokenDigest::of(ALPHA)
        ),
    )
    .unwrap();

    let server = Server::start(&config, &[]);
    assert_eq!(listed(&server.address), ["deploy", "memo", "review"]);
    let read_notes = call(
        3,
        "resources/read",
        json!({"uri": "skill://review/notes.md"}),
    );
    let before = mcp(&server.address, Some(ALPHA), &read_notes)
        .unwrap()
        .json();
    assert!(
        before["result"]["contents"][0]["text"].is_string(),
        "{before}"
    );

    source_tree::edit_keeping_size_and_times(&skills.join("review/notes.md"));
    let after = mcp(&server.address, Some(ALPHA), &read_notes)
        .unwrap()
        .json();
    assert!(after.get("error").is_some(), "{after}");
    let message = after["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no longer matches the lock"), "{after}");
    assert!(
        !message.contains(directory.path().to_str().unwrap()),
        "no server path reaches the client: {message}"
    );
}
