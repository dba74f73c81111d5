//! Live swap races against the server: while a thread exchanges a skill folder (or the skills
//! root) with a symbolic link to an outside directory, `read_file` and `resources/read` never
//! answer with a byte from outside.
#![cfg(target_os = "linux")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::json;

use common::{Tree, connect};

/// In every file outside the skills.
const MARKER: &str = "OUTSIDE-MARKER-mcp-race";

/// Reads through each of the two ways.
const READS: usize = 1500;

/// `pdf` with a guide, and an outside directory shaped like a skill folder and like a root.
fn tree() -> Tree {
    let tree = Tree::empty();
    tree.write(
        "pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill forms.\n---\ninside instructions\n",
    );
    tree.write("pdf/refs/guide.md", "inside guide\n");
    let outside = tree.workspace().join("outside");
    for relative in [
        "SKILL.md",
        "refs/guide.md",
        "pdf/SKILL.md",
        "pdf/refs/guide.md",
    ] {
        let path = outside.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            path,
            format!("---\nname: pdf\ndescription: {MARKER}\n---\n{MARKER}\n"),
        )
        .unwrap();
    }
    tree
}

/// Exchanges `target` with a link to the outside directory until the returned flag is set;
/// counts the exchanges.
fn swap(
    tree: &Tree,
    target: PathBuf,
) -> (Arc<AtomicBool>, Arc<AtomicUsize>, thread::JoinHandle<()>) {
    let link = target.with_file_name(".swap");
    symlink(tree.workspace().join("outside"), &link).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let exchanges = Arc::new(AtomicUsize::new(0));
    let thread = {
        let (stop, exchanges) = (Arc::clone(&stop), Arc::clone(&exchanges));
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                renameat_with(CWD, &target, CWD, &link, RenameFlags::EXCHANGE).unwrap();
                exchanges.fetch_add(1, Ordering::Relaxed);
                thread::sleep(Duration::from_micros(100));
            }
            if fs::symlink_metadata(&target).unwrap().is_symlink() {
                renameat_with(CWD, &target, CWD, &link, RenameFlags::EXCHANGE).unwrap();
            }
        })
    };
    (stop, exchanges, thread)
}

/// Reads the guide and the skill file `READS` times each way; returns (served, refused).
async fn race(tree: &Tree, target: PathBuf) -> (usize, usize, usize) {
    let client = connect(tree.builder().build().unwrap()).await;
    // Index `pdf` before the race, so resources/read has files to name.
    client
        .read_resource(ReadResourceRequestParams::new("skill://pdf/refs/guide.md"))
        .await
        .unwrap();
    let (stop, exchanges, thread) = swap(tree, target);
    let (mut served, mut refused) = (0, 0);
    let guide = tree.root().join("pdf/refs/guide.md");
    for number in 0..READS {
        let arguments = json!({ "path": if number.is_multiple_of(2) { guide.clone() } else { tree.root().join("pdf/SKILL.md") } });
        let call = CallToolRequestParams::new("read_file")
            .with_arguments(arguments.as_object().unwrap().clone());
        let result = client.call_tool(call).await.unwrap();
        let text = serde_json::to_string(&result).unwrap();
        assert!(!text.contains(MARKER), "read_file leaked: {text}");
        if result.is_error == Some(true) {
            refused += 1;
        } else {
            assert!(text.contains("inside"), "{text}");
            served += 1;
        }
        let uri = if number.is_multiple_of(2) {
            "skill://pdf/refs/guide.md"
        } else {
            "skill://pdf/SKILL.md"
        };
        match client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
        {
            Ok(read) => {
                let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
                    panic!("not text: {read:?}");
                };
                assert!(!text.contains(MARKER), "resources/read leaked: {text}");
                assert!(text.contains("inside"), "{text}");
                served += 1;
            }
            Err(error) => {
                assert!(!error.to_string().contains(MARKER), "{error}");
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
    (served, refused, exchanges.load(Ordering::Relaxed))
}

fn root_of(tree: &Tree) -> PathBuf {
    tree.root()
}

fn folder_of(tree: &Tree, name: &str) -> PathBuf {
    Path::new(&tree.root()).join(name)
}

#[tokio::test]
async fn a_skill_folder_swapped_for_a_link_never_leaks_through_the_server() {
    let tree = tree();
    let (served, refused, exchanges) = race(&tree, folder_of(&tree, "pdf")).await;
    assert!(exchanges > 10, "{exchanges} exchanges");
    assert!(
        served > 0 && refused > 0,
        "{served} served, {refused} refused"
    );
}

#[tokio::test]
async fn a_skills_root_swapped_for_a_link_never_leaks_through_the_server() {
    let tree = tree();
    let (served, _refused, exchanges) = race(&tree, root_of(&tree)).await;
    assert!(exchanges > 10, "{exchanges} exchanges");
    // The server reads the root it verified (its handle) or refuses; it never follows the link.
    assert!(served > 0, "{served} served");
}

/// A skill whose folder is away when it is first read is refused then, and served again once
/// the folder is back (not refused until the server restarts).
#[tokio::test]
async fn a_skill_swapped_away_and_back_is_served_again() {
    let tree = tree();
    let folder = folder_of(&tree, "pdf");
    let away = folder.with_extension("away");
    let client = connect(tree.builder().build().unwrap()).await;
    let read = || {
        client.read_resource(ReadResourceRequestParams::new(
            "skill://pdf/refs/guide.md".to_owned(),
        ))
    };
    fs::rename(&folder, &away).unwrap();
    assert!(read().await.is_err(), "the folder is away");
    fs::rename(&away, &folder).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(answer) = read().await {
            let ResourceContents::TextResourceContents { text, .. } = &answer.contents[0] else {
                panic!("not text: {answer:?}");
            };
            assert_eq!(text, "inside guide\n");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the skill stayed refused after its folder came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
