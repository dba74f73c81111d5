use super::*;
use crate::discovery::Home;
use std::fs;
use std::sync::mpsc::RecvTimeoutError;

fn skill(root: &Path, relative: &str, description: &str) {
    let directory = root.join(relative);
    fs::create_dir_all(&directory).unwrap();
    let name = relative.rsplit('/').next().unwrap();
    fs::write(
        directory.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n"),
    )
    .unwrap();
}

fn found(root: &Path, skills: &[(&str, &str)]) -> Discovered {
    let workspace = tempfile::tempdir().unwrap();
    for (name, description) in skills {
        skill(&workspace.path().join(root), name, description);
    }
    let mut discovery = Discovery::new(workspace.path());
    discovery.home(Home::Off);
    let mut found = discovery.discover();
    // Paths differ between temporary directories; compare by name and content only.
    for skill in &mut found.skills {
        skill.path = PathBuf::from(&skill.name);
        skill.directory = PathBuf::from(&skill.name);
    }
    found
}

fn changes(added: &[&str], removed: &[&str], changed: &[&str]) -> Changes {
    let owned = |names: &[&str]| names.iter().map(|name| name.to_string()).collect();
    Changes {
        added: owned(added),
        removed: owned(removed),
        changed: owned(changed),
    }
}

#[test]
fn changes_name_added_removed_and_changed_skills() {
    let root = Path::new(".agents/skills");
    let before = found(root, &[("a", "A."), ("b", "B."), ("c", "C.")]);
    let after = found(root, &[("b", "B!"), ("c", "C."), ("d", "D.")]);
    assert_eq!(
        Changes::between(&before, &after, &[]),
        changes(&["d"], &["a"], &["b"])
    );
    assert_eq!(
        Changes::between(&before, &before, &[PathBuf::from("c/references/x.md")]),
        changes(&[], &[], &["c"])
    );
    assert!(Changes::between(&before, &before, &[]).is_empty());
}

struct Live {
    workspace: tempfile::TempDir,
    receiver: Receiver<Changes>,
    _watcher: SkillWatcher,
}

impl Live {
    fn start() -> Self {
        let workspace = tempfile::tempdir().unwrap();
        let mut discovery = Discovery::new(workspace.path());
        discovery.home(Home::Off);
        let (sender, receiver) = mpsc::channel();
        let watcher = SkillWatcher::start(discovery, move |_, changes| {
            let _ = sender.send(changes.clone());
        })
        .unwrap();
        Live {
            workspace,
            receiver,
            _watcher: watcher,
        }
    }

    fn root(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    /// The next change set (events may arrive in several bursts: they are merged until quiet).
    fn next(&self) -> Changes {
        let mut merged = match self.receiver.recv_timeout(Duration::from_secs(20)) {
            Ok(changes) => changes,
            Err(RecvTimeoutError::Timeout) => panic!("no change reported within 20 s"),
            Err(error) => panic!("watcher stopped: {error}"),
        };
        while let Ok(more) = self.receiver.recv_timeout(DEBOUNCE * 3) {
            merged.added.extend(more.added);
            merged.removed.extend(more.removed);
            merged.changed.extend(more.changed);
        }
        for list in [&mut merged.added, &mut merged.removed, &mut merged.changed] {
            list.sort();
            list.dedup();
        }
        merged
    }
}

#[test]
fn the_watcher_reports_roots_created_later_edits_and_removals() {
    let live = Live::start();
    // The root does not exist yet: its parent is watched.
    skill(&live.root(), "team/first", "First.");
    assert_eq!(live.next(), changes(&["first"], &[], &[]));
    skill(&live.root(), "team/new/nested/second", "Second.");
    assert_eq!(live.next(), changes(&["second"], &[], &[]));
    skill(&live.root(), "team/first", "Edited.");
    assert_eq!(live.next(), changes(&[], &[], &["first"]));
    fs::write(live.root().join("team/new/nested/second/notes.md"), "more").unwrap();
    assert_eq!(live.next(), changes(&[], &[], &["second"]));
    fs::remove_dir_all(live.root().join("team/first")).unwrap();
    assert_eq!(live.next(), changes(&[], &["first"], &[]));
    assert_eq!(live._watcher.current().skills.len(), 1);
}
