//! `skillbook mcp` against a real, independent client: the official MCP Python SDK runs
//! `tests/mcp_client.py`, which starts the binary as a subprocess.
//!
//! The Python interpreter is `$MCP_PYTHON`, else `.venv/bin/python` at the repository root. Without
//! either (or without the `mcp` package in it) the test fails and says how to install it:
//! `bash scripts/test.sh` (or `python3 -m venv .venv && .venv/bin/pip install mcp==2.3.0`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/python.rs"]
mod support;

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::python;

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Runs `command`, killing it after `limit`.
fn run_with_limit(mut command: Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("the MCP client did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn the_python_sdk_lists_gets_reads_and_verifies_every_digest() {
    let python = python("mcp");
    let workspace = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = workspace.path().join(".agents/skills");
    write(
        &root.join("pdf/SKILL.md"),
        b"---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\n---\n# PDF\n\nSee refs/guide.md.\n",
    );
    write(&root.join("pdf/refs/guide.md"), b"one\ntwo\nthree\nfour\n");
    write(
        &root.join("pdf/assets/logo.png"),
        &[0x89, b'P', b'N', b'G', 0, 0xff],
    );
    write(
        &root.join("runbook/SKILL.md"),
        b"---\nname: runbook\ndescription: Incident steps.\ndisable-model-invocation: true\n---\n",
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let mut command = Command::new(python);
    command
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_skillbook"))
        .arg(workspace.path())
        .arg(home.path())
        .env("RUST_LOG", "error");
    let output = run_with_limit(command, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the MCP client failed:\n{stdout}\n{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        ["read 4 resources of 2 skills", "31 passed, 0 failed"],
        "{stderr}"
    );
}
