//! The server's answers to `initialize`, `skills/list` and `tools/list`, exactly as a client
//! receives them, as snapshots: a change to what MCP clients see shows up in review as a changed
//! `.snap` file, never by accident.
//!
//! The server runs in process over the standard tree of `tests/common` (`pdf` with references,
//! the manual-only `runbook`, `docx` with a lowercase `skill.md`, and `Bad Name`, which the
//! Skills extension cannot serve) and is spoken to in raw JSON-RPC lines, so the snapshots hold
//! the answers as written on the wire, not as a client library reads them back (only the
//! catalog in `initialize`'s `instructions` is moved below the JSON, as plain text). The
//! temporary workspace is replaced with `[WS]`, and the server's version (the crate's, asserted
//! first) with `[VERSION]`, so that a release does not change them. To accept an intended
//! change, run the tests with `INSTA_UPDATE=always` and review the diff.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

mod common;

use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use common::Tree;
use skillbook_mcp::ServerBuilder;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"snapshots","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Connects to a server for `tree`, initializes, sends `request` (a JSON-RPC request with id 2
/// unless it is the `initialize` itself) and returns the pretty-printed answer with the
/// temporary paths and the version redacted.
async fn answer(tree: &Tree, request: Option<&str>) -> String {
    answer_from(tree, &tree.builder(), request).await
}

/// [`answer`] from a server `builder` builds over `tree`.
async fn answer_from(tree: &Tree, builder: &ServerBuilder, request: Option<&str>) -> String {
    let server = builder.build().unwrap();
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let (reader, mut writer) = tokio::io::split(client_side);
    let mut lines = BufReader::new(reader).lines();
    send(&mut writer, INITIALIZE).await;
    let mut wanted = 1;
    if let Some(request) = request {
        send(&mut writer, INITIALIZED).await;
        send(&mut writer, request).await;
        wanted = 2;
    }
    let response = loop {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("the server answered within 10 seconds")
            .unwrap()
            .expect("the server answered before closing");
        let message: Value = serde_json::from_str(&line).unwrap();
        // Notifications have no id; the answer to `initialize` comes before the one wanted.
        if message["id"] == wanted {
            break message;
        }
    };
    redact(tree, response)
}

/// Writes one JSON-RPC line.
async fn send(writer: &mut (impl AsyncWrite + Unpin), line: &str) {
    writer.write_all(line.as_bytes()).await.unwrap();
    writer.write_all(b"\n").await.unwrap();
}

/// The answer as pretty JSON, with the workspace as `[WS]` and the server version as
/// `[VERSION]`. The `instructions` of `initialize` (the catalog, many lines in one string) are
/// moved below the JSON as plain text, so that a change to them reads as changed lines.
fn redact(tree: &Tree, mut response: Value) -> String {
    if let Some(version) = response.pointer_mut("/result/serverInfo/version") {
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
        *version = Value::from("[VERSION]");
    }
    let instructions = response
        .pointer_mut("/result/instructions")
        .map(|instructions| instructions.take());
    if let Some(instructions) = &instructions {
        response["result"]["instructions"] = Value::from("[the text below]");
        assert!(instructions.is_string(), "{instructions}");
    }
    let mut text = serde_json::to_string_pretty(&response).unwrap();
    if let Some(Value::String(instructions)) = instructions {
        text = format!("{text}\n--- result.instructions\n{instructions}");
    }
    let workspace = tree.workspace();
    for path in [Some(workspace.to_path_buf()), workspace.canonicalize().ok()]
        .into_iter()
        .flatten()
    {
        text = text.replace(&path.display().to_string(), "[WS]");
    }
    text + "\n"
}

#[tokio::test]
async fn initialize() {
    let tree = Tree::standard();
    insta::assert_snapshot!("initialize", answer(&tree, None).await);
}

#[tokio::test]
async fn skills_list() {
    let tree = Tree::standard();
    let request = r#"{"jsonrpc":"2.0","id":2,"method":"skills/list"}"#;
    insta::assert_snapshot!("skills_list", answer(&tree, Some(request)).await);
}

#[tokio::test]
async fn tools_list() {
    let tree = Tree::standard();
    let request = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    insta::assert_snapshot!("tools_list", answer(&tree, Some(request)).await);
}

/// With instructions too small to list the skills, `search_skills` follows `read_file`.
#[tokio::test]
async fn tools_list_with_search() {
    let tree = Tree::standard();
    let mut builder = tree.builder();
    builder = builder.instructions_budget(Some(1));
    let request = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    insta::assert_snapshot!(
        "tools_list_with_search",
        answer_from(&tree, &builder, Some(request)).await
    );
}
