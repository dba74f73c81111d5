//! A server that speaks `skill://` addresses only (`Addressing::SkillUris`, what `skillbook
//! serve` runs): the catalog, the read tool, `search_skills`, resources and every error name
//! skills by URI, never by a path of the server.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

mod common;

use std::fs;

use rmcp::model::{
    CallToolRequestParams, GetSkillRequestParams, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use skillbook::Addressing;

use common::{Tree, connect};

type Client = RunningService<RoleClient, ()>;

async fn uri_server(tree: &Tree, budget: Option<usize>) -> Client {
    let mut builder = tree.builder();
    builder = builder
        .addressing(Addressing::SkillUris)
        .instructions_budget(budget);
    connect(builder.build().unwrap()).await
}

async fn read(client: &Client, arguments: Value) -> Value {
    let result = client
        .call_tool(
            CallToolRequestParams::new("read_file")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let structured = result.structured_content.unwrap();
    assert_eq!(result.is_error, Some(structured.get("error").is_some()));
    structured
}

/// Fails when `answer` names the workspace (every server path lies below it).
fn assert_no_server_path(tree: &Tree, answer: &impl std::fmt::Debug) {
    let shown = format!("{answer:?}");
    let workspace = tree.workspace().display().to_string();
    assert!(!shown.contains(&workspace), "a server path leaks: {shown}");
    assert!(!shown.contains(".agents"), "a server path leaks: {shown}");
}

#[tokio::test]
async fn the_catalog_and_the_read_tool_speak_skill_uris() {
    let tree = Tree::standard();
    let client = uri_server(&tree, None).await;
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.contains("<location>skill://pdf/SKILL.md</location>"));
    assert!(instructions.contains("<location>skill://docx/SKILL.md</location>"));
    assert_no_server_path(&tree, &instructions);

    let skill = read(&client, json!({"path": "skill://pdf/SKILL.md"})).await;
    assert_eq!(skill["path"], "skill://pdf/SKILL.md");
    assert!(
        skill["content"]
            .as_str()
            .unwrap()
            .starts_with("<skill_instructions name=\"pdf\" dir=\"skill://pdf\">\n---\nname: pdf"),
        "{skill}"
    );
    let guide = read(
        &client,
        json!({"path": "skill://pdf/refs/guide.md", "startLine": 2, "endLine": 3}),
    )
    .await;
    assert_eq!(
        guide,
        json!({"path": "skill://pdf/refs/guide.md", "content": "two\nthree", "startLine": 2,
               "endLine": 3, "truncated": false, "totalLines": 5, "nextStartLine": 4})
    );
    // The lowercase `skill.md` is read at its URI too.
    let docx = read(&client, json!({"path": "skill://docx/SKILL.md"})).await;
    assert_eq!(docx["skill"], "docx");
    assert_no_server_path(&tree, &(skill, docx));
}

#[tokio::test]
async fn paths_are_refused_alike_whether_or_not_anything_is_there() {
    let tree = Tree::standard();
    let client = uri_server(&tree, None).await;
    let existing = tree.root().join("pdf/SKILL.md");
    let missing = tree.root().join("pdf/nothing.md");
    let mut answers = Vec::new();
    for path in [
        existing.display().to_string(),
        missing.display().to_string(),
        tree.secret().display().to_string(),
        "SKILL.md".to_owned(),
        "refs/guide.md".to_owned(),
        "../../secret.txt".to_owned(),
        "/etc/passwd".to_owned(),
    ] {
        let answer = read(&client, json!({ "path": path })).await;
        assert_eq!(answer["error"], "outside_boundary", "{path}");
        answers.push(answer);
    }
    assert!(answers.windows(2).all(|pair| pair[0] == pair[1]));
}

#[tokio::test]
async fn errors_name_uris_never_server_paths() {
    let tree = Tree::standard();
    tree.fifo("pdf/pipe.md");
    let client = uri_server(&tree, None).await;
    let mut answers = Vec::new();
    for (path, code) in [
        ("skill://pdf/refs", "is_directory"),
        ("skill://pdf/refs/missing.md", "not_found"),
        ("skill://pdf/pipe.md", "not_regular_file"),
        ("skill://pdf/assets/logo.bin", "not_text"),
        ("skill://runbook/SKILL.md", "not_found"),
        ("skill://other-tenant/SKILL.md", "not_found"),
        ("skill://pdf/../../secret.txt", "outside_boundary"),
    ] {
        let answer = read(&client, json!({ "path": path })).await;
        assert_eq!(answer["error"], code, "{path}: {answer}");
        answers.push(answer);
    }
    assert_eq!(
        answers[0]["message"],
        "`skill://pdf/refs` is a directory, not a file; read a file inside it, such as its SKILL.md"
    );
    assert_no_server_path(&tree, &answers);

    // A skill folder replaced after discovery: the error names the skill by URI.
    fs::rename(tree.root().join("pdf"), tree.workspace().join("moved")).unwrap();
    fs::create_dir_all(tree.root().join("pdf")).unwrap();
    let changed = read(&client, json!({"path": "skill://pdf/refs/guide.md"})).await;
    assert_eq!(changed["error"], "skill_changed", "{changed}");
    assert!(
        changed["message"]
            .as_str()
            .unwrap()
            .starts_with("`skill://pdf` is no longer the skill folder"),
        "{changed}"
    );
    let resource = client
        .read_resource(ReadResourceRequestParams::new("skill://pdf/refs/guide.md"))
        .await;
    let directory = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new("skill://pdf"))
        .await;
    let skill = client
        .get_skill(GetSkillRequestParams::new("skill://pdf/SKILL.md"))
        .await;
    let listed = client
        .list_skills(Some(PaginatedRequestParams::default()))
        .await;
    assert!(resource.is_err() && directory.is_err() && skill.is_err());
    assert_no_server_path(&tree, &(changed, resource, directory, skill, listed));
}

#[tokio::test]
async fn search_results_are_located_by_uri() {
    let tree = Tree::standard();
    let client = uri_server(&tree, Some(10)).await;
    let mut search = CallToolRequestParams::new("search_skills");
    search.arguments = json!({"query": "pdf forms"}).as_object().cloned();
    let found = client
        .call_tool(search)
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(found["results"][0]["name"], "pdf");
    assert_eq!(found["results"][0]["location"], "skill://pdf/SKILL.md");
    assert_no_server_path(&tree, &found);
}

/// A client that guesses a path of the server learns nothing from the answer: what it sent is
/// echoed as sent, the same for the real skill folder as for a made-up one.
#[tokio::test]
async fn guessed_server_paths_are_not_confirmed() {
    let tree = Tree::standard();
    let client = uri_server(&tree, None).await;
    let real = tree.root().join("pdf").display().to_string();
    let made_up = tree.root().join("pdq").display().to_string();
    let answer_to = |guess: &str| {
        let guess = guess.to_owned();
        let client = &client;
        async move {
            let tool = read(client, json!({ "path": format!("skill://pdf/x{guess}") })).await;
            let resource = client
                .read_resource(ReadResourceRequestParams::new(guess.clone()))
                .await
                .unwrap_err();
            let directory = client
                .read_resource_directory(ReadResourceDirectoryRequestParams::new(format!(
                    "skill://pdf{guess}"
                )))
                .await
                .unwrap_err();
            let cursor = client
                .list_skills(Some(
                    PaginatedRequestParams::default().with_cursor(Some(guess.clone())),
                ))
                .await
                .unwrap_err();
            [
                tool.to_string(),
                resource.to_string(),
                directory.to_string(),
                cursor.to_string(),
            ]
            .map(|answer| answer.replace(&guess, "GUESS"))
        }
    };
    let real_answers = answer_to(&real).await;
    let made_up_answers = answer_to(&made_up).await;
    assert_eq!(real_answers, made_up_answers);
    for answer in &real_answers {
        assert!(
            answer.contains("GUESS"),
            "the guess is echoed as sent: {answer}"
        );
        assert!(!answer.contains("skill://pdf/tmp"), "{answer}");
    }
}
