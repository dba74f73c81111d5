//! Live swap races: while a thread exchanges a skill folder (or the skills root itself) with a
//! symbolic link to an outside directory, thousands of reads and discoveries never serve a byte
//! from outside, and never list an outside skill.
//!
//! The exchange is atomic (`renameat2(RENAME_EXCHANGE)`), every ~0.1 ms, so each read meets one
//! state or the other at every step of its way.
#![cfg(target_os = "linux")]
#![allow(
    clippy::unwrap_used,
    reason = "a failing unwrap is a failing test, also in the helpers"
)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};
use skillbook::runtime::{Resolver, RunRequest, Scope, SkillRuntime, ToolCall};
use skillbook::{Discovery, Home, SkillReader};
use tempfile::TempDir;

/// In every file outside the skills; it must never come back.
const MARKER: &str = "OUTSIDE-MARKER-race";

/// How many reads (and runs) each race makes.
const READS: usize = 1500;

/// A workspace whose `.agents/skills/pdf` is a real skill, and an outside directory shaped like
/// both a skill folder and a skills root, holding the marker everywhere.
struct Tree {
    _temporary: TempDir,
    top: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let temporary = tempfile::tempdir().unwrap();
        let top = temporary.path().to_path_buf();
        let tree = Tree {
            _temporary: temporary,
            top,
        };
        tree.write(
            "ws/.agents/skills/pdf/SKILL.md",
            "---\nname: pdf\ndescription: Fill forms.\n---\ninside instructions\n",
        );
        tree.write("ws/.agents/skills/pdf/refs/guide.md", "inside guide\n");
        let outside_skill = format!("---\nname: pdf\ndescription: {MARKER}\n---\n{MARKER}\n");
        // Shaped like the skill folder…
        tree.write("outside/SKILL.md", &outside_skill);
        tree.write("outside/refs/guide.md", MARKER);
        // …and like the skills root.
        tree.write("outside/pdf/SKILL.md", &outside_skill);
        tree.write("outside/pdf/refs/guide.md", MARKER);
        tree.write(
            "outside/evil/SKILL.md",
            &format!("---\nname: {MARKER}\n---\n"),
        );
        tree
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.top.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn workspace(&self) -> PathBuf {
        self.top.join("ws")
    }

    fn root(&self) -> PathBuf {
        self.top.join("ws/.agents/skills")
    }

    /// Starts exchanging `target` with a link to the outside directory placed beside it.
    fn swap(&self, target: &Path) -> Swapper {
        let link = target.with_file_name(".swap");
        symlink(self.top.join("outside"), &link).unwrap();
        Swapper::start(target.to_path_buf(), link)
    }
}

/// A thread exchanging two paths until stopped, counting the exchanges.
struct Swapper {
    stop: Arc<AtomicBool>,
    exchanges: Arc<AtomicUsize>,
    thread: Option<JoinHandle<()>>,
}

impl Swapper {
    fn start(first: PathBuf, second: PathBuf) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let exchanges = Arc::new(AtomicUsize::new(0));
        let thread = {
            let (stop, exchanges) = (Arc::clone(&stop), Arc::clone(&exchanges));
            thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    renameat_with(CWD, &first, CWD, &second, RenameFlags::EXCHANGE).unwrap();
                    exchanges.fetch_add(1, Ordering::Relaxed);
                    thread::sleep(Duration::from_micros(100));
                }
                // Leave the real directory in place.
                if fs::symlink_metadata(&first).unwrap().is_symlink() {
                    renameat_with(CWD, &first, CWD, &second, RenameFlags::EXCHANGE).unwrap();
                }
            })
        };
        Swapper {
            stop,
            exchanges,
            thread: Some(thread),
        }
    }

    /// Stops and returns how many exchanges happened.
    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        self.exchanges.load(Ordering::Relaxed)
    }
}

/// What reads came back as.
#[derive(Debug, Default)]
struct Tally {
    served: usize,
    refused: usize,
}

impl Tally {
    /// Records one reply of the read tool, failing on any outside byte.
    fn record(&mut self, reply: &str) {
        assert!(!reply.contains(MARKER), "outside content leaked: {reply}");
        let value: Value = serde_json::from_str(reply).unwrap();
        if value.get("error").is_some() {
            self.refused += 1;
        } else {
            assert!(
                value["content"].as_str().unwrap().contains("inside"),
                "{value}"
            );
            self.served += 1;
        }
    }
}

fn guide_call(tree: &Tree, number: usize) -> ToolCall {
    let path = if number.is_multiple_of(2) {
        tree.root().join("pdf/refs/guide.md")
    } else {
        tree.root().join("pdf/SKILL.md")
    };
    ToolCall::new(
        format!("call_{number}"),
        "read_file",
        json!({ "path": path }),
    )
}

#[test]
fn a_skill_folder_swapped_for_a_link_never_leaks_through_the_runtime_reader() {
    let tree = Tree::new();
    let runtime = SkillRuntime::new(Resolver::fixed(Scope::workspace(tree.workspace())));
    let run = runtime.prepare(RunRequest::new("host")).unwrap();
    let swapper = tree.swap(&tree.root().join("pdf"));
    let mut tally = Tally::default();
    for number in 0..READS {
        tally.record(&run.execute(&guide_call(&tree, number)).content);
    }
    let exchanges = swapper.finish();
    assert!(exchanges > 10, "{exchanges} exchanges");
    assert!(tally.served > 0 && tally.refused > 0, "{tally:?}");
}

#[test]
fn a_skills_root_swapped_for_a_link_never_leaks_through_runs_or_catalogs() {
    let tree = Tree::new();
    let runtime = SkillRuntime::new(Resolver::fixed(Scope::workspace(tree.workspace())));
    let swapper = tree.swap(&tree.root());
    let mut tally = Tally::default();
    let (mut with_skill, mut without) = (0, 0);
    for number in 0..READS {
        // Each run discovers afresh while the root moves: its catalog never lists an outside
        // skill, and its reader never serves one.
        let run = runtime.prepare(RunRequest::new("host")).unwrap();
        assert!(!run.system_prompt.contains(MARKER), "{}", run.system_prompt);
        if run.reader_name().is_some() {
            with_skill += 1;
        } else {
            without += 1;
        }
        tally.record(&run.execute(&guide_call(&tree, number)).content);
    }
    let exchanges = swapper.finish();
    assert!(exchanges > 10, "{exchanges} exchanges");
    assert!(
        with_skill > 0 && without > 0,
        "{with_skill} runs with the skill, {without} without"
    );
    assert!(tally.served > 0 && tally.refused > 0, "{tally:?}");
}

#[test]
fn a_reader_keeps_serving_the_root_it_verified_while_the_path_is_swapped() {
    let tree = Tree::new();
    let found = Discovery::new(tree.workspace()).home(Home::Off).discover();
    let reader = SkillReader::new(&found);
    let swapper = tree.swap(&tree.root());
    let mut tally = Tally::default();
    for number in 0..READS {
        let call = guide_call(&tree, number);
        tally.record(&reader.call_json(&call.arguments).to_string());
    }
    let exchanges = swapper.finish();
    assert!(exchanges > 10, "{exchanges} exchanges");
    // Whatever stands at the root's path, the reader reads the directory discovery searched
    // (once it holds its handle) or refuses; it never follows the link.
    assert!(tally.served > 0, "{tally:?}");
}

#[test]
fn discovery_never_lists_an_outside_skill_while_folders_are_swapped() {
    let tree = Tree::new();
    // A skill before `pdf`, so `pdf` is met right after a skill (where discovery takes a plain
    // skill folder in one step).
    tree.write(
        "ws/.agents/skills/aaa/SKILL.md",
        "---\nname: aaa\ndescription: First.\n---\n",
    );
    let mut discovery = Discovery::new(tree.workspace());
    discovery = discovery.home(Home::Off);
    let mut seen = [0_usize; 2];
    let mut tally = Tally::default();
    for target in [tree.root().join("pdf"), tree.root()] {
        let swapper = tree.swap(&target);
        for number in 0..READS / 3 {
            let found = discovery.discover();
            for skill in found.skills() {
                assert!(!skill.description().contains(MARKER), "{skill:?}");
                assert!(!skill.name().contains(MARKER), "{skill:?}");
                assert!(skill.location().starts_with(tree.root()), "{skill:?}");
            }
            if found.skills().iter().any(|skill| skill.name() == "pdf") {
                seen[1] += 1;
                // A reader built from this discovery serves the folder it found, or refuses.
                let reader = SkillReader::new(&found);
                let call = guide_call(&tree, number);
                tally.record(&reader.call_json(&call.arguments).to_string());
            } else {
                seen[0] += 1;
            }
        }
        swapper.finish();
        fs::remove_file(target.with_file_name(".swap")).unwrap();
    }
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
    assert!(tally.served > 0, "{tally:?}");
}
