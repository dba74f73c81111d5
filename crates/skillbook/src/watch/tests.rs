use super::*;
use crate::discovery::Home;
use crate::format::SkillName;
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
    discovery = discovery.home(Home::Off);
    let (mut skills, diagnostics) = discovery.discover().into_parts();
    // Paths differ between temporary directories; compare by name and content only.
    for skill in &mut skills {
        skill.location = PathBuf::from(skill.name.as_str()).join("SKILL.md");
        skill.place = crate::skill::Place::nowhere();
    }
    Discovered::from_parts(skills, Vec::new(), diagnostics)
}

fn changes(added: &[&str], removed: &[&str], changed: &[&str]) -> Changes {
    let owned = |names: &[&str]| {
        names
            .iter()
            .map(|name| SkillName::new(name).unwrap())
            .collect()
    };
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
        discovery = discovery.home(Home::Off);
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
        while let Ok(more) = self.receiver.recv_timeout(DEBOUNCE * 5) {
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

/// `expected` was reported; a burst split by a busy machine may add reports about the skill
/// the step touched (a folder created, then its file written), or the one before, never others.
fn assert_reported(reported: &Changes, expected: &Changes, touched: &[&str]) {
    let pairs = [
        (&expected.added, &reported.added),
        (&expected.removed, &reported.removed),
        (&expected.changed, &reported.changed),
    ];
    for (wanted, got) in pairs {
        for name in wanted {
            assert!(got.contains(name), "{name} missing from {reported:?}");
        }
    }
    let named = reported
        .added
        .iter()
        .chain(&reported.removed)
        .chain(&reported.changed);
    for name in named {
        assert!(
            touched.contains(&name.as_str()),
            "unexpected {name} in {reported:?}"
        );
    }
}

#[test]
fn the_watcher_reports_roots_created_later_edits_and_removals() {
    let live = Live::start();
    // The root does not exist yet: its parent is watched.
    skill(&live.root(), "team/first", "First.");
    assert_reported(&live.next(), &changes(&["first"], &[], &[]), &["first"]);
    skill(&live.root(), "team/new/nested/second", "Second.");
    let second = changes(&["second"], &[], &[]);
    assert_reported(&live.next(), &second, &["first", "second"]);
    skill(&live.root(), "team/first", "Edited.");
    let edited = changes(&[], &[], &["first"]);
    assert_reported(&live.next(), &edited, &["first", "second"]);
    fs::write(live.root().join("team/new/nested/second/notes.md"), "more").unwrap();
    let noted = changes(&[], &[], &["second"]);
    assert_reported(&live.next(), &noted, &["first", "second"]);
    fs::remove_dir_all(live.root().join("team/first")).unwrap();
    let removed = changes(&[], &["first"], &[]);
    assert_reported(&live.next(), &removed, &["first", "second"]);
    assert_eq!(live._watcher.current().skills().len(), 1);
}

#[test]
fn past_the_watch_limit_the_watcher_checks_stamps_and_still_sees_changes() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path().join(".agents/skills");
    for name in ["alpha", "beta", "gamma"] {
        skill(&root, &format!("team/{name}"), "Before.");
    }
    let mut discovery = Discovery::new(workspace.path());
    discovery = discovery.home(Home::Off);
    let (sender, receiver) = mpsc::channel();
    let limits = WatchLimits {
        max_watches: 2,
        poll_interval: Duration::from_millis(100),
    };
    let watcher = SkillWatcher::start_with(discovery, limits, move |_, changes| {
        let _ = sender.send(changes.clone());
    })
    .unwrap();
    assert_eq!(watcher.current().skills().len(), 3);
    // `gamma` is past the limit: only the stamp check can see it. Wait out the racy window of
    // the times first, so the change is not hidden in the same clock tick.
    std::thread::sleep(Duration::from_millis(50));
    skill(&root, "team/gamma", "After.");
    skill(&root, "team/delta", "New.");
    let mut reported = Changes::default();
    while reported.changed.is_empty() || reported.added.is_empty() {
        let more = receiver.recv_timeout(Duration::from_secs(20)).unwrap();
        reported.added.extend(more.added);
        reported.changed.extend(more.changed);
    }
    assert!(
        reported.changed.iter().any(|name| name == "gamma"),
        "{reported:?}"
    );
    assert!(
        reported.added.iter().any(|name| name == "delta"),
        "{reported:?}"
    );
}

/// A folder on the way to a root replaced by another (`mv .agents old; mv new .agents`) sends
/// no event from the root itself: the way to each root is watched too.
#[test]
fn the_watcher_sees_a_folder_on_the_way_to_a_root_replaced() {
    let workspace = tempfile::tempdir().unwrap();
    let mut discovery = Discovery::new(workspace.path());
    discovery = discovery.home(Home::Off);
    // Every root exists, so no watch for a missing one sits on the workspace.
    for root in discovery.roots() {
        fs::create_dir_all(&root.path).unwrap();
    }
    skill(&workspace.path().join(".agents/skills"), "a", "A.");
    let elsewhere = tempfile::tempdir_in(workspace.path().parent().unwrap()).unwrap();
    let new = elsewhere.path().join("new");
    skill(&new.join("skills"), "a", "A.");
    skill(&new.join("skills"), "b", "B.");
    let (sender, receiver) = mpsc::channel();
    let watcher = SkillWatcher::start(discovery, move |_, changes| {
        let _ = sender.send(changes.clone());
    })
    .unwrap();
    assert_eq!(watcher.current().skills().len(), 1);
    let agents = workspace.path().join(".agents");
    fs::rename(&agents, elsewhere.path().join("old")).unwrap();
    fs::rename(&new, &agents).unwrap();
    let mut added = Vec::new();
    while !added.iter().any(|name: &SkillName| name == "b") {
        let more = receiver.recv_timeout(Duration::from_secs(20)).unwrap();
        added.extend(more.added);
    }
    assert_eq!(watcher.current().skills().len(), 2);
}
