//! `skillbook mcp` as a client starts it: a child process speaking MCP on stdin and stdout.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ErrorCode, GetSkillRequestParams, ReadResourceRequestParams,
    SkillResources,
};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tempfile::TempDir;

/// A workspace with two skills (one manual-only) and a home with none.
struct Fixture {
    workspace: TempDir,
    home: TempDir,
}

impl Fixture {
    fn new() -> Self {
        let fixture = Fixture {
            workspace: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        fixture.write(
            "pdf/SKILL.md",
            "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nSee refs/guide.md.\n",
        );
        fixture.write("pdf/refs/guide.md", "one\ntwo\nthree\nfour\n");
        fixture.write(
            "runbook/SKILL.md",
            "---\nname: runbook\ndescription: Incident steps.\ndisable-model-invocation: true\n---\n",
        );
        fixture
    }

    fn root(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// `skillbook --workspace W <arguments>` with an empty home.
    fn command(&self, arguments: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_skillbook"));
        command
            .env("HOME", self.home.path())
            .env_remove("RUST_LOG")
            .arg("--workspace")
            .arg(self.workspace.path())
            .args(arguments);
        command
    }

    /// What `skillbook read --restricted PATH` prints.
    fn cli_read(&self, path: &Path, extra: &[&str]) -> Value {
        let mut arguments = vec!["read", "--restricted", path.to_str().unwrap()];
        arguments.extend_from_slice(extra);
        let output = self.command(&arguments).output().unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

#[tokio::test]
async fn a_client_lists_gets_and_reads_through_the_binary() {
    let fixture = Fixture::new();
    let child =
        TokioChildProcess::new(tokio::process::Command::from(fixture.command(&["mcp"]))).unwrap();
    let client = ().serve(child).await.unwrap();
    let skills = client.list_all_skills().await.unwrap();
    let names: Vec<&str> = skills.iter().map(|skill| skill.name()).collect();
    assert_eq!(names, ["pdf", "runbook"]);
    let pdf = client
        .get_skill(GetSkillRequestParams::new("skill://pdf/SKILL.md"))
        .await
        .unwrap();
    let SkillResources::Files(files) = &pdf.skill.resources else {
        panic!("no manifest");
    };
    for file in files {
        let read = client
            .read_resource(ReadResourceRequestParams::new(&file.uri))
            .await
            .unwrap();
        let text = match &read.contents[0] {
            rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
            other => panic!("expected text, got {other:?}"),
        };
        file.verify(text.as_bytes()).unwrap();
    }
    let unknown = client
        .get_skill(GetSkillRequestParams::new("skill://nope/SKILL.md"))
        .await;
    match unknown {
        Err(rmcp::ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_tool_answers_exactly_like_the_read_command() {
    let fixture = Fixture::new();
    let child =
        TokioChildProcess::new(tokio::process::Command::from(fixture.command(&["mcp"]))).unwrap();
    let client = ().serve(child).await.unwrap();
    let skill_file = fixture.root().join("pdf/SKILL.md");
    let guide = fixture.root().join("pdf/refs/guide.md");
    let outside = fixture.workspace.path().join("notes.md");
    fs::write(&outside, "private").unwrap();
    for (path, extra, arguments) in [
        (&skill_file, vec![], json!({"path": skill_file})),
        (
            &guide,
            vec!["--start-line", "2", "--end-line", "3"],
            json!({"path": guide, "startLine": 2, "endLine": 3}),
        ),
        (
            &guide,
            vec!["--max-chars", "5"],
            json!({"path": guide, "maxChars": 5}),
        ),
        (&outside, vec![], json!({"path": outside})),
    ] {
        let call = CallToolRequestParams::new("read_file")
            .with_arguments(arguments.as_object().unwrap().clone());
        let result = client.call_tool(call).await.unwrap();
        let expected = fixture.cli_read(path, &extra);
        assert_eq!(
            result.structured_content,
            Some(expected.clone()),
            "{arguments}"
        );
        assert_eq!(result.is_error, Some(expected.get("error").is_some()));
    }
    client.cancel().await.unwrap();
}

#[test]
fn stdout_carries_only_protocol_messages_and_logs_go_to_stderr() {
    let fixture = Fixture::new();
    let outside = fixture.workspace.path().join("notes.md");
    fs::write(&outside, "private").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, fixture.root().join("pdf/notes.md")).unwrap();
    fixture.write(
        "broken/SKILL.md",
        "---\nname: broken\ndescription: [oops\n---\n",
    );
    fixture.write(
        "spaced/SKILL.md",
        "---\nname: Spaced Name\ndescription: Not an Agent Skills name.\n---\n",
    );
    let mut child = fixture
        .command(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://pdf/SKILL.md"}}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    // Closing stdin ends the session once every answer is out.
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let messages: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let ids: Vec<&Value> = messages.iter().map(|message| &message["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2)]);
    assert!(messages.iter().all(|message| message["jsonrpc"] == "2.0"));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("error[invalid_yaml]"), "{stderr}");
    #[cfg(unix)]
    assert!(
        stderr.contains("notes.md is not served: it is a symbolic link that leaves the skill"),
        "{stderr}"
    );
    // A skill left out for its name is logged as that, never as a path outside the boundary.
    assert!(
        stderr.contains(
            "skill `Spaced Name` is not served as an MCP skill: the Skills extension requires an \
             Agent Skills name"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("outside the directories"), "{stderr}");
    assert!(!stdout.contains("private"));
}

#[tokio::test]
async fn the_budget_option_shrinks_the_instructions_and_brings_search() {
    let fixture = Fixture::new();
    let serve = |arguments: &[&str]| {
        TokioChildProcess::new(tokio::process::Command::from(fixture.command(arguments))).unwrap()
    };
    let client = ().serve(serve(&["mcp", "--budget", "10"])).await.unwrap();
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(
        instructions.contains("1 skill is available"),
        "{instructions}"
    );
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(tools, ["read_file", "search_skills"]);
    let mut request = CallToolRequestParams::new("search_skills");
    request.arguments = json!({"query": "fill in a form"}).as_object().cloned();
    let found = client.call_tool(request).await.unwrap();
    assert_eq!(
        found.structured_content.unwrap()["results"][0]["name"],
        "pdf"
    );
    client.cancel().await.unwrap();

    // The default budget fits the catalog whole: no search tool.
    let client = ().serve(serve(&["mcp"])).await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
    client.cancel().await.unwrap();
}
