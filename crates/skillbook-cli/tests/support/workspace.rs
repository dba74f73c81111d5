//! A workspace and a home for the `skillbook` command, for the tests that run it: skills
//! written into them, the command run with both set, and its output with their paths redacted.
#![allow(dead_code, reason = "each test file uses a part of it")]

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

/// An empty workspace and an empty home, each a temporary directory.
pub struct Fixture {
    pub workspace: TempDir,
    pub home: TempDir,
}

impl Fixture {
    /// A new, empty workspace and home.
    pub fn new() -> Self {
        Fixture {
            workspace: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// The workspace's `.agents/skills`.
    pub fn root(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    /// Writes `<dir>/<relative>/SKILL.md`.
    pub fn skill(&self, directory: &Path, relative: &str, text: &str) -> PathBuf {
        let folder = directory.join(relative);
        fs::create_dir_all(&folder).unwrap();
        let file = folder.join("SKILL.md");
        fs::write(&file, text).unwrap();
        file
    }

    /// `skillbook` with the workspace and an empty home set.
    pub fn command(&self) -> Command {
        let mut command = Command::cargo_bin("skillbook").unwrap();
        command
            .env("HOME", self.home.path())
            .env_remove("RUST_LOG")
            .arg("--workspace")
            .arg(self.workspace.path());
        command
    }

    /// Replaces the temporary directories in `text` so assertions can be exact.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.workspace.path().display().to_string(), "[WS]")
            .replace(&self.home.path().display().to_string(), "[HOME]")
    }
}

/// What `output` wrote on stdout, as text.
pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// What `output` wrote on stderr, as text.
pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}
