//! Scale is part of correctness: 5,000 skills in three roots, served and read by a process
//! whose soft descriptor limit is 64 (less than a quarter of macOS's default). Nothing may hold
//! a descriptor per skill.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use rmcp::ServiceExt;
use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams, ResourceContents};
use rmcp::transport::TokioChildProcess;
use serde_json::Value;
use tempfile::TempDir;

const SKILLS: usize = 5000;

/// The descriptor limit the server runs under.
const LIMIT: u32 = 64;

/// 5,000 skills over `.skillbook/skills`, `.agents/skills` and an extra root, some nested, some
/// with a reference file.
struct Fixture {
    workspace: TempDir,
    extra: TempDir,
}

impl Fixture {
    fn new() -> Self {
        let fixture = Fixture {
            workspace: tempfile::tempdir().unwrap(),
            extra: tempfile::tempdir().unwrap(),
        };
        for number in 0..SKILLS {
            let name = format!("skill-{number:04}");
            let folder = fixture.folder(number);
            fs::create_dir_all(&folder).unwrap();
            fs::write(
                folder.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: Skill number {number}.\n---\n# {name}\n\nBody {number}.\n"),
            )
            .unwrap();
            if number.is_multiple_of(5) {
                fs::create_dir_all(folder.join("references")).unwrap();
                fs::write(
                    folder.join("references/notes.md"),
                    format!("notes {number}\n"),
                )
                .unwrap();
            }
        }
        fixture
    }

    /// `skillbook --workspace W --no-home --extra E ARGUMENTS…` under a soft limit of
    /// [`LIMIT`] descriptors (set in a shell, so the test process itself is unaffected).
    fn limited(&self, arguments: &[&str]) -> Command {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -Sn {LIMIT} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_skillbook"))
            .arg("--workspace")
            .arg(self.workspace.path())
            .arg("--no-home")
            .arg("--extra")
            .arg(self.extra.path())
            .args(arguments)
            .env_remove("RUST_LOG");
        command
    }

    /// The folder of skill `number`: the three roots in turn, in eleven groups.
    fn folder(&self, number: usize) -> PathBuf {
        let root = match number % 3 {
            0 => self.workspace.path().join(".skillbook/skills"),
            1 => self.workspace.path().join(".agents/skills"),
            _ => self.extra.path().to_path_buf(),
        };
        root.join(format!("group-{}", number % 11))
            .join(format!("skill-{number:04}"))
    }
}

fn text_of(contents: &ResourceContents) -> &str {
    match contents {
        ResourceContents::TextResourceContents { text, .. } => text,
        other => panic!("expected text, got {other:?}"),
    }
}

#[tokio::test]
async fn the_server_serves_5000_skills_under_a_64_descriptor_limit() {
    let fixture = Fixture::new();
    let child = TokioChildProcess::new(tokio::process::Command::from(fixture.limited(&[
        "mcp",
        // The whole catalog, every skill listed (the default budget would list none).
        "--no-budget",
    ])))
    .unwrap();
    let client = ().serve(child).await.unwrap();
    let info = client.peer_info().expect("initialized");
    let instructions = info.instructions.as_deref().unwrap_or_default();
    assert_eq!(instructions.matches("<skill>").count(), SKILLS);

    // Page through everything.
    let mut names = Vec::new();
    let mut cursor = None;
    loop {
        let page = client
            .list_skills(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .unwrap();
        assert_eq!(page.meta, None, "nothing is left out");
        names.extend(page.skills.iter().map(|skill| skill.name().to_owned()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(names.len(), SKILLS);
    assert!(names.windows(2).all(|pair| pair[0] < pair[1]));

    // 64 reads in flight at once.
    let mut reads = tokio::task::JoinSet::new();
    for number in (0..SKILLS).step_by(SKILLS / 64).take(64) {
        let peer = client.peer().clone();
        reads.spawn(async move {
            let uri = if number.is_multiple_of(5) {
                format!("skill://skill-{number:04}/references/notes.md")
            } else {
                format!("skill://skill-{number:04}/SKILL.md")
            };
            let read = peer
                .read_resource(ReadResourceRequestParams::new(&uri))
                .await
                .unwrap_or_else(|error| panic!("{uri}: {error}"));
            (number, text_of(&read.contents[0]).to_owned())
        });
    }
    let mut answered = 0;
    while let Some(joined) = reads.join_next().await {
        let (number, text) = joined.unwrap();
        assert!(text.contains(&number.to_string()), "{number}: {text}");
        answered += 1;
    }
    assert_eq!(answered, 64);

    // The last skill, by URI.
    let last = client
        .read_resource(ReadResourceRequestParams::new(format!(
            "skill://skill-{:04}/SKILL.md",
            SKILLS - 1
        )))
        .await
        .unwrap();
    assert!(text_of(&last.contents[0]).contains(&format!("Body {}.", SKILLS - 1)));
    client.cancel().await.unwrap();
}

#[test]
fn the_restricted_reader_reads_the_last_of_5000_skills_under_the_same_limit() {
    let fixture = Fixture::new();
    let path = fixture.folder(SKILLS - 1).join("SKILL.md");
    let output = fixture
        .limited(&["read", "--restricted", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["skill"], format!("skill-{:04}", SKILLS - 1));
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains(&format!("Body {}.", SKILLS - 1))
    );
    assert_eq!(Path::new(result["path"].as_str().unwrap()), path);
}
