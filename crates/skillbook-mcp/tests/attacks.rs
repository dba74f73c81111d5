//! Bad input: every path attack as a resource URI and as a tool argument, files swapped after
//! indexing, and malformed JSON-RPC. Each gets an error that leaks nothing, and the server
//! keeps serving.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ErrorCode, GetSkillRequestParams, ReadResourceRequestParams,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use common::{SECRET, Tree, connect, protocol_error};

/// The standard tree plus a link out of `pdf`, a link to `/dev/zero`, and a FIFO named like a
/// reference file.
fn hostile() -> Tree {
    let tree = Tree::standard();
    let pdf = tree.root().join("pdf");
    symlink(tree.secret(), pdf.join("leak.md")).unwrap();
    symlink("/dev/zero", pdf.join("zero.md")).unwrap();
    tree.fifo("pdf/refs/reference.md");
    tree
}

/// Fails when `text` holds anything read from outside the skills.
fn assert_no_leak(text: &str) {
    assert!(!text.contains(SECRET), "leaked the secret: {text}");
    assert!(!text.contains("root:"), "leaked /etc/passwd: {text}");
}

async fn within_seconds<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .expect("the server answered within 10 seconds")
}

#[tokio::test]
async fn path_attacks_as_resource_uris_fail_and_leak_nothing() {
    let tree = hostile();
    let client = connect(tree.builder().build().unwrap()).await;
    let malformed = |uri: &str, reason: &str| {
        let message = format!("`{uri}` is not a skill resource URI: {reason}");
        (uri.to_owned(), ErrorCode::INVALID_PARAMS, message)
    };
    let unknown = |uri: &str| {
        let message =
            format!("no resource is served at `{uri}`; skills/get lists each skill's files");
        (uri.to_owned(), ErrorCode::RESOURCE_NOT_FOUND, message)
    };
    let dots = "it has a `.` or `..` segment";
    let table = [
        malformed("skill://pdf/../etc/passwd", dots),
        malformed("skill://pdf/..", dots),
        malformed("skill://pdf/a/../../b", dots),
        malformed("skill://pdf/%2e%2e/%2e%2e/etc/passwd", dots),
        malformed("skill:///etc/passwd", "it has an empty path segment"),
        malformed("skill://pdf//etc/passwd", "it has an empty path segment"),
        malformed("file:///etc/passwd", "it does not start with skill://"),
        malformed("/etc/passwd", "it does not start with skill://"),
        malformed(
            "skill://pdf/%2e%2e%2fetc%2fpasswd",
            "a segment encodes a `/`",
        ),
        malformed("skill://pdf/ok%00.md", "it holds a NUL byte"),
        malformed("skill://pdf/ok\0.md", "it holds a NUL byte"),
        malformed(
            "skill://pdf/SKILL.md?../../etc/passwd",
            "it has a query or a fragment",
        ),
        unknown(r"skill://pdf/..\..\windows\system32"),
        unknown("skill://pdf/leak.md"),
        unknown("skill://pdf/zero.md"),
        unknown("skill://pdf/refs/reference.md"),
        unknown("skill://pdf/.git/config"),
        unknown("skill://Bad%20Name/SKILL.md"),
        unknown("skill://nope/SKILL.md"),
    ];
    for (uri, code, message) in table {
        let read = within_seconds(client.read_resource(ReadResourceRequestParams::new(&uri)));
        let error = protocol_error(read.await);
        assert_eq!(
            (error.code, error.message.as_ref()),
            (code, message.as_str())
        );
        assert_no_leak(&serde_json::to_string(&error).unwrap());
    }
    let skills = client.list_all_skills().await.unwrap();
    let listed = serde_json::to_string(&skills).unwrap();
    for hidden in ["leak.md", "zero.md", "reference.md"] {
        assert!(!listed.contains(hidden), "{hidden} is listed");
    }
}

#[tokio::test]
async fn path_attacks_as_tool_arguments_fail_and_leak_nothing() {
    let tree = hostile();
    let client = connect(tree.builder().build().unwrap()).await;
    let pdf = tree.root().join("pdf");
    let text = |path: &std::path::Path| path.to_str().unwrap().to_owned();
    // Several skills are readable, so every relative path is refused as ambiguous before it
    // is even resolved.
    let table = [
        ("../etc/passwd".to_owned(), "invalid_argument"),
        ("..".to_owned(), "invalid_argument"),
        ("a/../../b".to_owned(), "invalid_argument"),
        ("/etc/passwd".to_owned(), "outside_boundary"),
        (text(&tree.secret()), "outside_boundary"),
        (r"..\..\windows\system32".to_owned(), "invalid_argument"),
        ("%2e%2e%2fetc%2fpasswd".to_owned(), "invalid_argument"),
        (text(&pdf.join(r"..\..\windows\system32")), "not_found"),
        (text(&pdf.join("%2e%2e%2fetc%2fpasswd")), "not_found"),
        ("ok\0.md".to_owned(), "invalid_argument"),
        (text(&pdf.join("leak.md")), "outside_boundary"),
        (text(&pdf.join("zero.md")), "outside_boundary"),
        (text(&pdf.join("refs/reference.md")), "not_regular_file"),
        (
            text(&tree.root().join("runbook/SKILL.md")),
            "outside_boundary",
        ),
    ];
    for (path, code) in table {
        let arguments = json!({"path": path}).as_object().unwrap().clone();
        let call = CallToolRequestParams::new("read_file").with_arguments(arguments);
        let result = within_seconds(client.call_tool(call)).await.unwrap();
        let structured = result.structured_content.clone().unwrap();
        assert_eq!(
            (result.is_error, structured["error"].as_str()),
            (Some(true), Some(code)),
            "{path:?}"
        );
        assert_no_leak(&serde_json::to_string(&result).unwrap());
    }
}

#[tokio::test]
async fn a_file_swapped_after_indexing_is_refused_without_blocking() {
    let tree = Tree::standard();
    let client = connect(tree.builder().build().unwrap()).await;
    let uri = "skill://pdf/refs/guide.md";
    let guide = tree.root().join("pdf/refs/guide.md");
    // Indexes `pdf` while guide.md is a regular file, then swaps it, then reads it.
    let swap_and_read = async |swap: &dyn Fn()| {
        // Never write through whatever the previous swap left there.
        if guide.symlink_metadata().is_ok() {
            fs::remove_file(&guide).unwrap();
        }
        fs::write(&guide, "one\n").unwrap();
        client
            .get_skill(GetSkillRequestParams::new("skill://pdf/SKILL.md"))
            .await
            .unwrap();
        fs::remove_file(&guide).unwrap();
        swap();
        let read = client.read_resource(ReadResourceRequestParams::new(uri));
        protocol_error(within_seconds(read).await)
    };

    let error = swap_and_read(&|| symlink(tree.secret(), &guide).unwrap()).await;
    assert_eq!(
        (error.code, error.message.as_ref()),
        (
            ErrorCode::INTERNAL_ERROR,
            "`skill://pdf/refs/guide.md` could not be read: the path is outside the directories \
             this tool may read; use a skill's location from the catalog, or a path inside that \
             skill's folder"
        )
    );
    let error = swap_and_read(&|| symlink("/dev/zero", &guide).unwrap()).await;
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert_no_leak(&error.message);
    let error = swap_and_read(&|| {
        tree.fifo("pdf/refs/guide.md");
    })
    .await;
    assert_eq!(
        error.message,
        format!(
            "`{uri}` could not be read: `{uri}` is a FIFO (named pipe), not a regular file; only \
             regular files can be read"
        ),
        "a file named by URI is named by URI in errors too, never by its server path"
    );
    // The failed read made the server index `pdf` again: the FIFO is no longer listed.
    let again = client.read_resource(ReadResourceRequestParams::new(uri));
    assert_eq!(
        protocol_error(within_seconds(again).await).message,
        format!("no resource is served at `{uri}`; skills/get lists each skill's files")
    );
}

/// Sends raw lines to a server and collects every response by id (`null` for none).
async fn exchange(lines: &[&str], expected: usize) -> Vec<Value> {
    let tree = Tree::standard();
    let server = tree.builder().build().unwrap();
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let (reader, mut writer) = tokio::io::split(client_side);
    for line in lines {
        writer.write_all(line.as_bytes()).await.unwrap();
        writer.write_all(b"\n").await.unwrap();
    }
    let mut reader = BufReader::new(reader).lines();
    let mut responses = Vec::new();
    while responses.len() < expected {
        let line = within_seconds(reader.next_line()).await.unwrap().unwrap();
        responses.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    responses.sort_by_key(|response| response["id"].as_i64().unwrap_or(-1));
    responses
}

#[tokio::test]
async fn malformed_requests_get_json_rpc_errors_and_the_server_keeps_serving() {
    let responses = exchange(
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            // Not JSON: ignored, as the MCP SDKs do (there is no id to answer).
            "this is not JSON",
            r#"{"jsonrpc":"2.0","id":9,"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":5}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"skills/get","params":{"uri":"skill://nope/SKILL.md"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"skill://pdf/../../etc/passwd"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"../../etc/passwd"}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"skills/list","params":{"cursor":"nonsense"}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"skills/list"}"#,
        ],
        9,
    )
    .await;
    let summary: Vec<(Value, Option<i64>)> = responses
        .iter()
        .map(|response| (response["id"].clone(), response["error"]["code"].as_i64()))
        .collect();
    assert_eq!(
        summary,
        [
            // JSON that is no JSON-RPC message: "Invalid Request", without an id.
            (Value::Null, Some(-32600)),
            (json!(1), None),
            (json!(2), Some(-32601)),
            (json!(3), Some(-32602)),
            (json!(4), Some(-32602)),
            (json!(5), Some(-32602)),
            // A refused read is a tool result with `isError`, not a protocol error.
            (json!(6), None),
            (json!(7), Some(-32602)),
            (json!(8), None),
        ]
    );
    let tool = responses
        .iter()
        .find(|response| response["id"] == 6)
        .unwrap();
    assert_eq!(tool["result"]["isError"], true);
    assert_eq!(
        tool["result"]["structuredContent"]["error"],
        "invalid_argument"
    );
    let list = responses
        .iter()
        .find(|response| response["id"] == 8)
        .unwrap();
    assert_eq!(list["result"]["skills"].as_array().map(Vec::len), Some(3));
    for response in &responses {
        assert_no_leak(&response.to_string());
    }
}
