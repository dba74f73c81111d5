//! The server through rmcp's own client, in process: every method of the Skills extension, the
//! catalog, the read tool, limits and paging.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

mod common;

use std::fs;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    CallToolRequestParams, ErrorCode, GetSkillRequestParams, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams, ResourceContents, Skill,
    SkillResources, sha256_digest,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use skillbook::{Catalog, SkillReader};
use skillbook_mcp::{ResourceLimits, ServerBuilder, SkillServer};

use common::{Tree, connect, protocol_error};

type Client = RunningService<RoleClient, ()>;

async fn standard() -> (Tree, Client) {
    let tree = Tree::standard();
    let client = connect(tree.builder().build().unwrap()).await;
    (tree, client)
}

fn names(skills: &[Skill]) -> Vec<&str> {
    skills.iter().map(Skill::name).collect()
}

fn digest_of(tree: &Tree, relative: &str) -> (String, u64) {
    let bytes = fs::read(tree.root().join(relative)).unwrap();
    (sha256_digest(&bytes), bytes.len() as u64)
}

/// The bytes of a `resources/read` answer, and whether they came as text.
fn bytes_of(contents: &ResourceContents) -> (Vec<u8>, bool, Option<String>) {
    match contents {
        ResourceContents::TextResourceContents {
            text, mime_type, ..
        } => (text.as_bytes().to_vec(), true, mime_type.clone()),
        ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        } => (STANDARD.decode(blob).unwrap(), false, mime_type.clone()),
        other => panic!("unexpected contents {other:?}"),
    }
}

#[tokio::test]
async fn initialize_declares_the_extension_and_sends_the_catalog() {
    let tree = Tree::standard();
    let found = tree.discover();
    let client = connect(SkillServer::new(tree.scope()).unwrap()).await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        serde_json::to_value(&info.capabilities).unwrap(),
        json!({
            "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}},
            "resources": {"listChanged": true},
            "tools": {"listChanged": true}
        })
    );
    let catalog = Catalog::new(found.skills()).render().unwrap();
    assert_eq!(info.instructions.as_deref(), Some(catalog.text.as_str()));
    assert!(
        !catalog.text.contains("runbook"),
        "manual-only skills stay out"
    );
    assert!(catalog.text.contains("<name>pdf</name>"));

    let tools = client.list_all_tools().await.unwrap();
    let schema = SkillReader::new(&found).schema();
    assert_eq!(
        serde_json::to_value(&tools).unwrap(),
        json!([{
            "name": "read_file",
            "description": schema["function"]["description"],
            "inputSchema": schema["function"]["parameters"],
            "annotations": {
                "title": "Read a skill file",
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true
            }
        }])
    );
}

#[tokio::test]
async fn without_model_visible_skills_there_are_no_instructions_and_no_tool() {
    let tree = Tree::empty();
    tree.write(
        "runbook/SKILL.md",
        "---\nname: runbook\ndescription: Manual.\ndisable-model-invocation: true\n---\n",
    );
    let client = connect(tree.builder().build().unwrap()).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.instructions, None);
    assert!(client.list_all_tools().await.unwrap().is_empty());
    let skills = client.list_all_skills().await.unwrap();
    assert_eq!(names(&skills), ["runbook"]);
    let call = client
        .call_tool(CallToolRequestParams::new("read_file"))
        .await;
    assert_eq!(protocol_error(call).code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn a_skill_entry_has_the_front_matter_every_file_and_the_manual_only_flag() {
    let (tree, client) = standard().await;
    let skills = client.list_all_skills().await.unwrap();
    assert_eq!(names(&skills), ["docx", "pdf", "runbook"]);
    let file = |relative: &str, uri: &str| {
        let (digest, size) = digest_of(&tree, relative);
        json!({"uri": uri, "digest": digest, "size": size})
    };
    assert_eq!(
        serde_json::to_value(&skills[1]).unwrap(),
        json!({
            "uri": "skill://pdf/SKILL.md",
            "frontmatter": {
                "name": "pdf",
                "description": "Fill PDF forms.",
                "license": "MIT",
                "metadata": {"team": "docs"}
            },
            "resources": [
                file("pdf/SKILL.md", "skill://pdf/SKILL.md"),
                file("pdf/assets/logo.bin", "skill://pdf/assets/logo.bin"),
                file("pdf/refs/guide.md", "skill://pdf/refs/guide.md"),
                file("pdf/refs/table.csv", "skill://pdf/refs/table.csv"),
            ],
            "_meta": {"skillbook/disableModelInvocation": false}
        })
    );
    assert_eq!(
        serde_json::to_value(&skills[2]).unwrap(),
        json!({
            "uri": "skill://runbook/SKILL.md",
            "frontmatter": {
                "name": "runbook",
                "description": "Incident steps.",
                "disable-model-invocation": true
            },
            "resources": [file("runbook/SKILL.md", "skill://runbook/SKILL.md")],
            "_meta": {"skillbook/disableModelInvocation": true}
        })
    );
    assert_eq!(
        serde_json::to_value(&skills[0]).unwrap()["resources"],
        json!([file("docx/skill.md", "skill://docx/SKILL.md")]),
        "a lowercase skill.md is served as SKILL.md"
    );
}

#[tokio::test]
async fn skills_list_pages_with_a_cursor_and_reports_what_it_leaves_out() {
    let tree = Tree::standard();
    let client = connect(tree.builder().page_size(2).build().unwrap()).await;
    let first = client.list_skills(None).await.unwrap();
    assert_eq!(names(&first.skills), ["docx"]);
    assert!(first.next_cursor.is_some());
    assert_eq!(
        serde_json::to_value(first.meta.unwrap()).unwrap(),
        json!({"skillbook/omitted": [{
            "name": "Bad Name",
            "reason": "skill `Bad Name` is not served as an MCP skill: the Skills extension \
                requires an Agent Skills name (1 to 64 lowercase letters or digits, with single \
                hyphens between them); rename it in its SKILL.md front matter"
        }]})
    );
    let second = client
        .list_skills(Some(
            PaginatedRequestParams::default().with_cursor(first.next_cursor),
        ))
        .await
        .unwrap();
    assert_eq!(names(&second.skills), ["pdf", "runbook"]);
    assert_eq!((second.next_cursor, second.meta), (None, None));

    let all = client.list_all_skills().await.unwrap();
    assert_eq!(names(&all), ["docx", "pdf", "runbook"]);
    for cursor in ["x", "-1", "99"] {
        let page = PaginatedRequestParams::default().with_cursor(Some(cursor.to_owned()));
        let error = protocol_error(client.list_skills(Some(page)).await);
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{cursor}");
    }
}

#[tokio::test]
async fn a_skill_added_between_pages_neither_shifts_nor_repeats_them() {
    let tree = Tree::standard();
    let server = tree.builder().page_size(2).build().unwrap();
    let client = connect(server.clone()).await;
    let first = client.list_skills(None).await.unwrap();
    assert_eq!(names(&first.skills), ["docx"]);
    // Two skills sorted before the cursor's appear, and the rest keeps its place.
    tree.write("aaa/SKILL.md", "---\nname: aaa\ndescription: First.\n---\n");
    tree.write("cat/SKILL.md", "---\nname: cat\ndescription: Cats.\n---\n");
    server
        .reload(std::sync::Arc::new(tree.scope().discovery().discover()))
        .unwrap();
    let second = client
        .list_skills(Some(
            PaginatedRequestParams::default().with_cursor(first.next_cursor),
        ))
        .await
        .unwrap();
    assert_eq!(names(&second.skills), ["pdf", "runbook"]);
    assert_eq!(second.next_cursor, None);
}

#[tokio::test]
async fn skills_get_returns_the_listed_entry_and_refuses_unknown_uris() {
    let (_tree, client) = standard().await;
    let listed = client.list_all_skills().await.unwrap();
    for skill in &listed {
        let got = client
            .get_skill(GetSkillRequestParams::new(&skill.uri))
            .await
            .unwrap();
        assert_eq!(&got.skill, skill);
    }
    for uri in [
        "skill://nope/SKILL.md",
        "skill://Bad%20Name/SKILL.md",
        "skill://pdf/refs/guide.md",
        "skill://pdf/refs/SKILL.md",
        "file:///etc/SKILL.md",
    ] {
        let error = protocol_error(client.get_skill(GetSkillRequestParams::new(uri)).await);
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{uri}");
    }
}

#[tokio::test]
async fn every_resource_reads_back_with_its_digest_and_size() {
    let (tree, client) = standard().await;
    let mut read = Vec::new();
    for skill in client.list_all_skills().await.unwrap() {
        let SkillResources::Files(files) = &skill.resources else {
            panic!("{} has no manifest", skill.uri);
        };
        for file in files {
            let result = client
                .read_resource(ReadResourceRequestParams::new(&file.uri))
                .await
                .unwrap();
            assert_eq!(result.contents.len(), 1);
            let (bytes, text, mime_type) = bytes_of(&result.contents[0]);
            file.verify(&bytes).unwrap();
            read.push((file.uri.clone(), text, mime_type));
        }
    }
    let text = |uri: &str, mime: &str| (uri.to_owned(), true, Some(mime.to_owned()));
    assert_eq!(
        read,
        [
            text("skill://docx/SKILL.md", "text/markdown"),
            text("skill://pdf/SKILL.md", "text/markdown"),
            (
                "skill://pdf/assets/logo.bin".to_owned(),
                false,
                Some("application/octet-stream".to_owned())
            ),
            text("skill://pdf/refs/guide.md", "text/markdown"),
            text("skill://pdf/refs/table.csv", "text/csv"),
            text("skill://runbook/SKILL.md", "text/markdown"),
        ]
    );
    let logo = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://pdf/assets/logo.bin",
        ))
        .await
        .unwrap();
    let expected = fs::read(tree.root().join("pdf/assets/logo.bin")).unwrap();
    assert_eq!(bytes_of(&logo.contents[0]).0, expected);
}

#[tokio::test]
async fn resources_list_names_each_skill_md() {
    let (tree, client) = standard().await;
    let resources = client.list_all_resources().await.unwrap();
    let size = |relative: &str| digest_of(&tree, relative).1;
    assert_eq!(
        serde_json::to_value(&resources).unwrap(),
        json!([
            {"uri": "skill://docx/SKILL.md", "name": "docx", "description": "Edit Word files.",
             "mimeType": "text/markdown", "size": size("docx/skill.md")},
            {"uri": "skill://pdf/SKILL.md", "name": "pdf", "description": "Fill PDF forms.",
             "mimeType": "text/markdown", "size": size("pdf/SKILL.md")},
            {"uri": "skill://runbook/SKILL.md", "name": "runbook",
             "description": "Incident steps.", "mimeType": "text/markdown",
             "size": size("runbook/SKILL.md")},
        ])
    );
}

#[tokio::test]
async fn directories_list_their_direct_children() {
    let (tree, client) = standard().await;
    let read = |uri: &str, cursor: Option<&str>| {
        let mut params = ReadResourceDirectoryRequestParams::new(uri);
        params.cursor = cursor.map(str::to_owned);
        client.read_resource_directory(params)
    };
    let size = |relative: &str| digest_of(&tree, relative).1;
    let root = read("skill://pdf", None).await.unwrap();
    assert_eq!(
        serde_json::to_value(&root.resources).unwrap(),
        json!([
            {"uri": "skill://pdf/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown",
             "size": size("pdf/SKILL.md")},
            {"uri": "skill://pdf/assets", "name": "assets", "mimeType": "inode/directory"},
            {"uri": "skill://pdf/refs", "name": "refs", "mimeType": "inode/directory"},
        ])
    );
    let refs = read("skill://pdf/refs/", None).await.unwrap();
    assert_eq!(
        serde_json::to_value(&refs.resources).unwrap(),
        json!([
            {"uri": "skill://pdf/refs/guide.md", "name": "guide.md",
             "mimeType": "text/markdown", "size": 24},
            {"uri": "skill://pdf/refs/table.csv", "name": "table.csv", "mimeType": "text/csv",
             "size": 8},
        ])
    );
    for uri in [
        "skill://pdf/refs/guide.md",
        "skill://pdf/missing",
        "skill://nope",
        "skill://pdf/..",
    ] {
        let error = protocol_error(read(uri, None).await);
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{uri}");
    }
    let error = protocol_error(
        client
            .read_resource(ReadResourceRequestParams::new("skill://pdf/refs"))
            .await,
    );
    assert_eq!(
        error.message,
        "`skill://pdf/refs` is a directory; list it with resources/directory/read"
    );
}

#[tokio::test]
async fn directory_reads_page_too() {
    let tree = Tree::standard();
    let client = connect(tree.builder().page_size(2).build().unwrap()).await;
    let mut params = ReadResourceDirectoryRequestParams::new("skill://pdf");
    let first = client
        .read_resource_directory(params.clone())
        .await
        .unwrap();
    assert_eq!(first.resources.len(), 2);
    assert!(first.next_cursor.is_some());
    params.cursor = first.next_cursor;
    let second = client.read_resource_directory(params).await.unwrap();
    let names: Vec<&str> = second
        .resources
        .iter()
        .map(|entry| entry.name.as_str())
        .collect();
    assert_eq!((names, second.next_cursor), (vec!["refs"], None));
}

#[tokio::test]
async fn a_skill_over_a_limit_is_reported_not_cut() {
    let tree = Tree::standard();
    let client = connect(
        tree.builder()
            .limits(ResourceLimits::new(3, 1024 * 1024))
            .build()
            .unwrap(),
    )
    .await;
    let reason =
        "skill `pdf` is not served: it has more than 3 files, the most one skill may serve";
    let page = client.list_skills(None).await.unwrap();
    assert_eq!(names(&page.skills), ["docx", "runbook"]);
    assert_eq!(
        serde_json::to_value(page.meta.unwrap()).unwrap()["skillbook/omitted"][1],
        json!({"name": "pdf", "reason": reason})
    );
    let get = client
        .get_skill(GetSkillRequestParams::new("skill://pdf/SKILL.md"))
        .await;
    let error = protocol_error(get);
    assert_eq!(
        (error.code, error.message.as_ref()),
        (ErrorCode::INVALID_PARAMS, reason)
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new("skill://pdf/SKILL.md"))
        .await;
    assert_eq!(protocol_error(read).message, reason);
}

#[tokio::test]
async fn the_default_limits_are_512_files_and_16_mib() {
    let tree = Tree::empty();
    tree.write(
        "many/SKILL.md",
        "---\nname: many\ndescription: Many files.\n---\n",
    );
    for number in 0..512 {
        tree.write(&format!("many/files/{number:03}.txt"), "x");
    }
    let big = tree.write("big/SKILL.md", "---\nname: big\ndescription: Big.\n---\n");
    let data = fs::File::create(big.with_file_name("data.bin")).unwrap();
    data.set_len(16 * 1024 * 1024).unwrap();
    tree.write(
        "fits/SKILL.md",
        "---\nname: fits\ndescription: Fits.\n---\n",
    );
    for number in 0..511 {
        tree.write(&format!("fits/files/{number:03}.txt"), "x");
    }
    let client = connect(tree.builder().build().unwrap()).await;
    let page = client.list_skills(None).await.unwrap();
    assert_eq!(names(&page.skills), ["fits"]);
    assert_eq!(
        serde_json::to_value(page.meta.unwrap()).unwrap(),
        json!({"skillbook/omitted": [
            {"name": "big", "reason": "skill `big` is not served: its files add up to more \
                than 16777216 bytes, the most one skill may serve"},
            {"name": "many", "reason": "skill `many` is not served: it has more than 512 \
                files, the most one skill may serve"},
        ]})
    );
}

#[tokio::test]
async fn the_tool_reads_segments_like_the_library_reader() {
    let (tree, client) = standard().await;
    let found = tree.discover();
    // The library's skill reader over the model-visible skills: what the runtime and
    // `skillbook read --restricted` use.
    let reader = SkillReader::new(&found).only(|_, model_visible| model_visible);
    let guide = tree.root().join("pdf/refs/guide.md");
    let skill_file = tree.root().join("pdf/SKILL.md");
    let manual = tree.root().join("runbook/SKILL.md");
    for arguments in [
        json!({"path": guide, "startLine": 2, "endLine": 3}),
        json!({"path": skill_file}),
        json!({"path": manual}),
        json!({"path": guide, "startLine": 0}),
        json!({}),
    ] {
        let result = client
            .call_tool(
                CallToolRequestParams::new("read_file")
                    .with_arguments(arguments.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        let expected = reader.call_json(&arguments);
        assert_eq!(
            result.structured_content.as_ref(),
            Some(&expected),
            "{arguments}"
        );
        assert_eq!(
            result.is_error,
            Some(expected.get("error").is_some()),
            "{arguments}"
        );
        let text = result.content[0].as_text().unwrap().text.clone();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
    }
    let segment = reader.call_json(&json!({"path": guide, "startLine": 2, "endLine": 3}));
    assert_eq!(
        segment,
        json!({"path": guide, "content": "two\nthree", "startLine": 2, "endLine": 3,
               "truncated": false, "totalLines": 5, "nextStartLine": 4})
    );
    assert_eq!(
        reader.call_json(&json!({"path": manual}))["error"],
        "outside_boundary"
    );
    assert_eq!(
        reader.call_json(&json!({"path": skill_file}))["skill"],
        "pdf"
    );
    let unknown = client
        .call_tool(CallToolRequestParams::new("write_file"))
        .await;
    let error = protocol_error(unknown);
    assert_eq!(
        (error.code, error.message.as_ref()),
        (
            ErrorCode::INVALID_PARAMS,
            "unknown tool `write_file`; this server offers only `read_file`"
        )
    );
}

#[tokio::test]
async fn a_file_changed_after_listing_reads_as_it_is_now_and_is_indexed_again() {
    let (tree, client) = standard().await;
    let before = client
        .get_skill(GetSkillRequestParams::new("skill://pdf/SKILL.md"))
        .await
        .unwrap();
    tree.write("pdf/refs/guide.md", "changed\n");
    let read = client
        .read_resource(ReadResourceRequestParams::new("skill://pdf/refs/guide.md"))
        .await
        .unwrap();
    assert_eq!(bytes_of(&read.contents[0]).0, b"changed\n");
    let after = client
        .get_skill(GetSkillRequestParams::new("skill://pdf/SKILL.md"))
        .await
        .unwrap();
    assert_ne!(before.skill.resources, after.skill.resources);
    let SkillResources::Files(files) = &after.skill.resources else {
        panic!("no manifest");
    };
    let guide = files
        .iter()
        .find(|file| file.uri.ends_with("guide.md"))
        .unwrap();
    guide.verify(b"changed\n").unwrap();
}

#[tokio::test]
async fn of_two_skills_with_one_name_the_first_is_served() {
    let first = Tree::empty();
    first.write("pdf/SKILL.md", "---\nname: pdf\ndescription: First.\n---\n");
    let second = Tree::empty();
    second.write(
        "pdf/SKILL.md",
        "---\nname: pdf\ndescription: Second.\n---\n",
    );
    let scope = skillbook::runtime::Scope::tenant(first.workspace(), [first.root(), second.root()]);
    let client = connect(ServerBuilder::new(scope).build().unwrap()).await;
    let page = client.list_skills(None).await.unwrap();
    let descriptions: Vec<&str> = page
        .skills
        .iter()
        .map(|skill| skill.frontmatter.description.as_str())
        .collect();
    assert_eq!(descriptions, ["First."]);
    assert_eq!(
        page.meta, None,
        "discovery reports the shadowed one, not the server"
    );
}

#[tokio::test]
async fn a_scope_with_skills_in_memory_is_served_with_the_runtimes_names_and_uris() {
    use skillbook::runtime::{Resolver, RunRequest, SkillRuntime, ToolCall};
    use skillbook::sources::ProvidedSkill;

    const MEMO: &str = "---\nname: memo\ndescription: Write memos.\n---\nBe brief.\n";
    let tree = Tree::standard();
    let memo = ProvidedSkill::parse(MEMO)
        .unwrap()
        .with_file("refs/style.md", b"Short.\n".as_slice())
        .unwrap();
    // A name the Skills extension cannot list, which still needs encoding in its URI.
    let notes =
        ProvidedSkill::parse("---\nname: team notes\ndescription: Notes.\n---\nNotes.\n").unwrap();
    let scope = tree.scope().with_provided([memo, notes]);
    let client = connect(ServerBuilder::new(scope.clone()).build().unwrap()).await;

    let entry = client
        .get_skill(GetSkillRequestParams::new("skill://memo/SKILL.md"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&entry.skill.resources).unwrap(),
        json!([
            {"uri": "skill://memo/SKILL.md", "digest": sha256_digest(MEMO.as_bytes()), "size": MEMO.len()},
            {"uri": "skill://memo/refs/style.md", "digest": sha256_digest(b"Short.\n"), "size": 7},
        ])
    );
    let style = client
        .read_resource(ReadResourceRequestParams::new("skill://memo/refs/style.md"))
        .await
        .unwrap();
    assert_eq!(bytes_of(&style.contents[0]).0, b"Short.\n");
    let directory = client
        .read_resource_directory(ReadResourceDirectoryRequestParams::new("skill://memo"))
        .await
        .unwrap();
    let children: Vec<&str> = directory
        .resources
        .iter()
        .map(|resource| resource.uri.as_str())
        .collect();
    assert_eq!(children, ["skill://memo/SKILL.md", "skill://memo/refs"]);

    // The instructions are the runtime's catalog, byte for byte: the same names, the same
    // locations, the same `skill://` encoding.
    let runtime = SkillRuntime::new(Resolver::fixed(scope));
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    let catalog = run.catalog.as_ref().unwrap();
    let info = client.peer_info().unwrap();
    assert_eq!(info.instructions.as_deref(), Some(catalog.text.as_str()));
    assert!(
        catalog
            .text
            .contains("<location>skill://team%20notes/SKILL.md</location>")
    );
    assert!(
        catalog
            .text
            .contains("<location>skill://memo/SKILL.md</location>")
    );

    // And the read tool answers the runtime's reader exactly.
    for path in [
        "skill://team%20notes/SKILL.md",
        "skill://memo/refs/style.md",
        "skill://memo/../pdf/SKILL.md",
        "skill://runbook/SKILL.md",
    ] {
        let arguments = json!({ "path": path });
        let result = client
            .call_tool(
                CallToolRequestParams::new("read_file")
                    .with_arguments(arguments.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        let expected: Value = serde_json::from_str(
            &run.execute(&ToolCall::new("1", "read_file", arguments))
                .content,
        )
        .unwrap();
        assert_eq!(result.structured_content, Some(expected), "{path}");
    }
}

#[tokio::test]
async fn pipelined_reads_wait_for_the_budget_and_all_complete() {
    use rmcp::ServiceExt;

    let tree = Tree::standard();
    let mut builder = tree.builder();
    // Smaller than any file: each read takes the whole budget until its answer is written.
    builder = builder.read_budget(1).concurrency(2);
    let server = builder.build().unwrap();
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(skillbook_mcp::serve(server, server_side));
    let client = ().serve(client_side).await.unwrap();
    let mut reads = tokio::task::JoinSet::new();
    for number in 0_u32..40 {
        let peer = client.peer().clone();
        reads.spawn(async move {
            let uri = if number.is_multiple_of(2) {
                "skill://pdf/refs/guide.md"
            } else {
                "skill://pdf/assets/logo.bin"
            };
            peer.read_resource(ReadResourceRequestParams::new(uri))
                .await
                .map(|read| bytes_of(&read.contents[0]).0.len())
        });
    }
    let mut sizes = Vec::new();
    while let Some(joined) = reads.join_next().await {
        sizes.push(joined.unwrap().unwrap());
    }
    sizes.sort_unstable();
    assert_eq!(sizes.len(), 40);
    assert_eq!((sizes[0], sizes[39]), (7, 24));
}

#[tokio::test]
async fn a_file_that_grew_since_listing_is_not_read_until_listed_again() {
    let (tree, client) = standard().await;
    let uri = "skill://pdf/refs/table.csv";
    client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    tree.write("pdf/refs/table.csv", &"a,b\n".repeat(1000));
    let error = protocol_error(
        client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await,
    );
    assert!(
        error.message.contains("grew since it was listed"),
        "{}",
        error.message
    );
    // The skill was indexed again: the next read takes the new size and serves it.
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    assert_eq!(bytes_of(&read.contents[0]).0.len(), 4000);
}

#[tokio::test]
async fn past_the_instructions_budget_the_catalog_shrinks_and_search_is_offered() {
    let tree = Tree::empty();
    for index in 0..120 {
        tree.write(
            &format!("tool-{index:03}/SKILL.md"),
            &format!(
                "---\nname: tool-{index:03}\ndescription: Handles chore number {index} of the \
                 back office, from intake to the final report, whenever the user asks for it.\n\
                 ---\n"
            ),
        );
    }
    tree.write(
        "secret-deploy/SKILL.md",
        "---\nname: secret-deploy\ndescription: Deploy.\ndisable-model-invocation: true\n---\n",
    );
    let client = connect(tree.builder().build().unwrap()).await;
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.chars().count() <= skillbook_mcp::DEFAULT_INSTRUCTIONS_BUDGET);
    // Every skill is still named (names only, one a line), none dropped.
    assert!(instructions.contains("\ntool-000\n"));
    assert!(instructions.contains("\ntool-119\n"));
    assert!(!instructions.contains("<description>"));
    assert!(!instructions.contains("<location>"));
    assert!(instructions.contains("call `search_skills`"));
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(tools, ["read_file", "search_skills"]);

    let search = |arguments: Value| {
        let mut request = CallToolRequestParams::new("search_skills");
        request.arguments = arguments.as_object().cloned();
        client.call_tool(request)
    };
    let result = search(json!({"query": "chore number 42", "limit": 3}))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true));
    let found = result.structured_content.unwrap();
    assert_eq!(found["results"].as_array().unwrap().len(), 3);
    assert_eq!(found["results"][0]["name"], "tool-042");
    // The location a result gives, and the `skill://` URI the catalog says a name stands
    // for, both read the skill.
    let location = found["results"][0]["location"].as_str().unwrap();
    assert!(instructions.contains("`skill://<name>/SKILL.md`"));
    for path in [location, "skill://tool-042/SKILL.md"] {
        let mut read = CallToolRequestParams::new("read_file");
        read.arguments = json!({"path": path}).as_object().cloned();
        let body = client.call_tool(read).await.unwrap();
        assert_ne!(body.is_error, Some(true), "{path}: {body:?}");
    }
    let hidden = search(json!({"query": "secret-deploy", "limit": 20}))
        .await
        .unwrap();
    let hidden = hidden.structured_content.unwrap();
    assert!(
        hidden["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|hit| hit["name"] != "secret-deploy")
    );
    let refused = search(json!({"limit": 2})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        refused.structured_content.unwrap()["error"],
        "invalid_argument"
    );

    // Without a budget the whole catalog is sent and there is nothing to search.
    let mut builder = tree.builder();
    builder = builder.instructions_budget(None);
    let client = connect(builder.build().unwrap()).await;
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.chars().count() > skillbook_mcp::DEFAULT_INSTRUCTIONS_BUDGET);
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
}
