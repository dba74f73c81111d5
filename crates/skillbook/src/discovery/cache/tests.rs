#![allow(clippy::disallowed_methods, reason = "tests read what they wrote")]

use super::*;
use crate::discovery::Home;
use std::fs::File;
use std::path::Path;

fn skill(root: &Path, relative: &str, description: &str) {
    let directory = root.join(relative);
    fs::create_dir_all(&directory).unwrap();
    let name = relative.rsplit('/').next().unwrap();
    fs::write(
        directory.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n"),
    )
    .unwrap();
}

/// Sets every modification time under `path` an hour back, so the tree is not "racy".
fn age(path: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    File::open(path).unwrap().set_modified(old).unwrap();
    if path.is_dir() {
        for entry in fs::read_dir(path).unwrap() {
            age(&entry.unwrap().path());
        }
    }
}

struct Fixture {
    workspace: tempfile::TempDir,
    discovery: Discovery,
    cache: DiscoveryCache,
}

impl Fixture {
    fn new() -> Self {
        let workspace = tempfile::tempdir().unwrap();
        let mut discovery = Discovery::new(workspace.path());
        discovery = discovery.home(Home::Off);
        Fixture {
            workspace,
            discovery,
            cache: DiscoveryCache::new(),
        }
    }

    fn root(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    fn descriptions(found: &Discovered) -> Vec<(String, String)> {
        found
            .skills
            .iter()
            .map(|skill| (skill.name.to_string(), skill.description.clone()))
            .collect()
    }

    /// Discovers through the cache and checks the result equals an uncached discovery.
    fn discover(&self) -> Arc<Discovered> {
        let cached = self.cache.discover(&self.discovery);
        assert_eq!(*cached, self.discovery.discover());
        cached
    }
}

#[test]
fn an_unchanged_quiet_tree_is_reused() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "team/a", "A.");
    age(fixture.workspace.path());
    let first = fixture.discover();
    let second = fixture.discover();
    assert!(Arc::ptr_eq(&first, &second));
    assert_eq!(fixture.cache.len(), 1);
}

#[test]
fn a_recently_changed_tree_is_not_reused() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "a", "A.");
    let first = fixture.discover();
    let second = fixture.discover();
    assert!(!Arc::ptr_eq(&first, &second));
}

#[test]
fn a_skill_added_in_a_new_nested_folder_is_seen() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "team/a", "A.");
    age(fixture.workspace.path());
    fixture.discover();
    skill(&fixture.root(), "team/new/deeper/b", "B.");
    let found = fixture.discover();
    assert_eq!(
        Fixture::descriptions(&found),
        [("a".into(), "A.".into()), ("b".into(), "B.".into())]
    );
}

#[test]
fn a_skill_file_edited_in_place_with_the_same_size_is_seen() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "a", "First.");
    age(fixture.workspace.path());
    let file = fixture.root().join("a/SKILL.md");
    let old_time = fs::metadata(&file).unwrap().modified().unwrap();
    fixture.discover();
    skill(&fixture.root(), "a", "Other.");
    // Even with the old modification time put back, the change time gives the edit away.
    File::open(&file).unwrap().set_modified(old_time).unwrap();
    let found = fixture.discover();
    assert_eq!(
        Fixture::descriptions(&found),
        [("a".into(), "Other.".into())]
    );
}

#[test]
fn an_edit_to_a_skill_taken_in_one_step_is_seen() {
    let fixture = Fixture::new();
    // `b` comes right after the skill `a`, where discovery takes a plain skill in one step.
    skill(&fixture.root(), "a", "A.");
    skill(&fixture.root(), "b", "First.");
    age(fixture.workspace.path());
    fixture.discover();
    skill(&fixture.root(), "b", "Second, longer.");
    let found = fixture.discover();
    assert_eq!(
        Fixture::descriptions(&found),
        [
            ("a".into(), "A.".into()),
            ("b".into(), "Second, longer.".into())
        ]
    );
}

#[test]
fn a_deleted_skill_disappears() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "a", "A.");
    skill(&fixture.root(), "team/b", "B.");
    age(fixture.workspace.path());
    fixture.discover();
    fs::remove_dir_all(fixture.root().join("team/b")).unwrap();
    let found = fixture.discover();
    assert_eq!(Fixture::descriptions(&found), [("a".into(), "A.".into())]);
}

#[test]
fn a_root_created_after_the_first_discovery_is_seen() {
    let fixture = Fixture::new();
    age(fixture.workspace.path());
    assert!(fixture.discover().skills.is_empty());
    skill(&fixture.root(), "late", "Late.");
    let found = fixture.discover();
    assert_eq!(
        Fixture::descriptions(&found),
        [("late".into(), "Late.".into())]
    );
}

#[test]
fn scopes_are_cached_separately_and_capacity_is_kept() {
    let fixture = Fixture::new();
    let cache = DiscoveryCache::with_capacity(2);
    for namespace in [".a", ".b", ".c"] {
        let mut discovery = fixture.discovery.clone();
        discovery = discovery.namespaces([namespace]);
        cache.discover(&discovery);
    }
    assert_eq!(cache.len(), 2);
    cache.clear();
    assert!(cache.is_empty());
}

#[test]
fn a_preferred_skill_file_created_next_to_a_lower_case_one_is_seen() {
    let fixture = Fixture::new();
    let directory = fixture.root().join("a");
    fs::create_dir_all(&directory).unwrap();
    fs::write(directory.join("skill.md"), "---\nname: lower\n---\n").unwrap();
    age(fixture.workspace.path());
    fixture.discover();
    fs::write(directory.join("SKILL.md"), "---\nname: upper\n---\n").unwrap();
    let found = fixture.discover();
    if found.skills[0].location().ends_with("SKILL.md") {
        assert_eq!(found.skills[0].name, "upper");
    }
}

#[test]
fn files_that_do_not_matter_leave_the_cache_warm() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "a", "A.");
    age(fixture.workspace.path());
    let first = fixture.discover();
    fs::create_dir_all(fixture.root().join("a/references")).unwrap();
    fs::write(fixture.root().join("a/references/guide.md"), "more").unwrap();
    assert!(Arc::ptr_eq(&first, &fixture.discover()));
}

#[test]
fn many_stamps_are_checked_in_parallel_with_the_same_answer() {
    let fixture = Fixture::new();
    for index in 0..1200 {
        skill(
            &fixture.root(),
            &format!("group-{}/s{index}", index % 7),
            "S.",
        );
    }
    age(fixture.workspace.path());
    let first = fixture.discover();
    assert!(Arc::ptr_eq(&first, &fixture.discover()));
    skill(&fixture.root(), "group-3/s0", "Changed.");
    assert!(!Arc::ptr_eq(&first, &fixture.discover()));
}

#[cfg(feature = "watch")]
mod watching {
    use super::*;

    /// A tripwire armed on `discovery` (whose first result was `found`), once its walk has ended.
    fn armed(
        discovery: &Discovery,
        found: &Arc<Discovered>,
    ) -> (tripwire::Tripwire, tripwire::Checked) {
        let tripwire = tripwire::Tripwire::new();
        tripwire.arm_in_background(discovery.clone(), Arc::clone(found));
        let checked = tripwire.checked().unwrap();
        assert!(tripwire.is_armed());
        (tripwire, checked)
    }

    /// Makes `change`, then waits until the wire has counted a trip after it.
    fn trip(tripwire: &tripwire::Tripwire, change: impl FnOnce()) {
        let before = tripwire.begin_check();
        change();
        for _ in 0..400 {
            if tripwire.begin_check() > before {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("the wire never tripped");
    }

    /// Creates every root of `discovery`, so no watch for a missing one sits on the workspace.
    fn create_every_root(discovery: &Discovery) {
        for root in discovery.roots() {
            fs::create_dir_all(&root.path).unwrap();
        }
    }

    fn wait_until_seen(
        cache: &DiscoveryCache,
        discovery: &Discovery,
        skills: usize,
    ) -> Arc<Discovered> {
        // Events arrive asynchronously; give the watcher a moment, without timing assertions.
        for _ in 0..200 {
            let found = cache.discover(discovery);
            if found.skills.len() == skills {
                return found;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("the change was never seen");
    }

    #[test]
    fn a_quiet_tree_is_reused_without_stamps_and_changes_are_seen() {
        let fixture = Fixture::new();
        skill(&fixture.root(), "a", "A.");
        let cache = DiscoveryCache::watching();
        let first = cache.discover(&fixture.discovery);
        // Fresh files would be racy for the stamps; the tripwire makes reuse safe anyway.
        assert!(Arc::ptr_eq(&first, &cache.discover(&fixture.discovery)));
        skill(&fixture.root(), "team/b", "B.");
        let found = wait_until_seen(&cache, &fixture.discovery, 2);
        assert_eq!(*found, fixture.discovery.discover());
    }

    #[test]
    fn an_edit_to_a_skill_taken_in_one_step_trips_its_folder_watch() {
        let fixture = Fixture::new();
        skill(&fixture.root(), "a", "A.");
        skill(&fixture.root(), "b", "First.");
        let cache = DiscoveryCache::watching();
        cache.discover(&fixture.discovery);
        skill(&fixture.root(), "b", "Second.");
        for _ in 0..200 {
            let found = cache.discover(&fixture.discovery);
            if found.skills[1].description == "Second." {
                assert_eq!(*found, fixture.discovery.discover());
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("the edit was never seen");
    }

    /// The watches go up after the walk, by a second walk that puts each directory's watch in
    /// place before searching it: a change made between the two walks is in the second one's
    /// result, which the cache then serves.
    #[test]
    fn a_change_between_the_walk_and_the_watches_is_in_the_result_served() {
        for racy in [false, true] {
            let fixture = Fixture::new();
            skill(&fixture.root(), "team/a", "A.");
            skill(&fixture.root(), "b", "B.");
            if !racy {
                age(fixture.workspace.path());
            }
            let found = Arc::new(fixture.discovery.discover());
            // Nothing changed: armed and quiet, and the first result is the one served.
            let (tripwire, checked) = armed(&fixture.discovery, &found);
            assert_eq!(checked.racy, racy);
            assert!(tripwire.is_quiet(), "racy: {racy}");
            assert!(Arc::ptr_eq(&checked.found, &found), "racy: {racy}");
            // A skill added to a collection before the watches go up.
            skill(&fixture.root(), "team/c", "C.");
            let (_, checked) = armed(&fixture.discovery, &found);
            assert_eq!(checked.found.skills.len(), 3, "racy: {racy}");
            assert_eq!(*checked.found, fixture.discovery.discover(), "racy: {racy}");
            assert!(all_hold(&checked.stamps), "racy: {racy}");
        }
    }

    #[test]
    fn the_first_discovery_returns_before_the_watches_and_reuse_follows() {
        let fixture = Fixture::new();
        for index in 0..200 {
            skill(
                &fixture.root(),
                &format!("group-{}/s{index}", index % 5),
                "S.",
            );
        }
        age(fixture.workspace.path());
        let cache = DiscoveryCache::watching();
        let first = cache.discover(&fixture.discovery);
        assert_eq!(*first, fixture.discovery.discover());
        // Until the watches are up the stamps decide; after, the result is reused as it is.
        for _ in 0..200 {
            let entry_armed = {
                let state = cache.state.lock().unwrap();
                state.entries[&fixture.discovery]
                    .tripwire
                    .as_ref()
                    .unwrap()
                    .is_armed()
            };
            assert!(Arc::ptr_eq(&first, &cache.discover(&fixture.discovery)));
            if entry_armed {
                skill(&fixture.root(), "group-2/s2", "Changed.");
                let found = wait_until_changed(&cache, &fixture.discovery, &first);
                assert_eq!(*found, fixture.discovery.discover());
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("the watches were never armed");
    }

    fn wait_until_changed(
        cache: &DiscoveryCache,
        discovery: &Discovery,
        before: &Arc<Discovered>,
    ) -> Arc<Discovered> {
        for _ in 0..200 {
            let found = cache.discover(discovery);
            if !Arc::ptr_eq(&found, before) {
                return found;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("the change was never seen");
    }

    /// A root made one folder at a time: the first folder trips the wire while the root is
    /// still missing (the stamps hold), and the way to the root is watched again, so the second
    /// step is seen too.
    #[test]
    fn a_root_created_in_two_steps_is_seen() {
        let fixture = Fixture::new();
        age(fixture.workspace.path());
        let cache = DiscoveryCache::watching();
        assert!(cache.discover(&fixture.discovery).skills.is_empty());
        // The second call waits for the watches.
        assert!(cache.discover(&fixture.discovery).skills.is_empty());
        fs::create_dir(fixture.workspace.path().join(".agents")).unwrap();
        for _ in 0..20 {
            assert!(cache.discover(&fixture.discovery).skills.is_empty());
            std::thread::sleep(Duration::from_millis(10));
        }
        skill(&fixture.root(), "late", "Late.");
        wait_until_seen(&cache, &fixture.discovery, 1);
    }

    /// A folder on the way to a root replaced by another (`mv .agents old; mv new .agents`)
    /// sends no event from the root itself: the way to each root is watched too.
    #[test]
    fn a_folder_on_the_way_to_a_root_replaced_is_seen() {
        let fixture = Fixture::new();
        skill(&fixture.root(), "a", "A.");
        create_every_root(&fixture.discovery);
        let elsewhere = tempfile::tempdir_in(fixture.workspace.path().parent().unwrap()).unwrap();
        let new = elsewhere.path().join("new");
        skill(&new.join("skills"), "a", "A.");
        skill(&new.join("skills"), "b", "B.");
        age(fixture.workspace.path());
        age(elsewhere.path());
        let cache = DiscoveryCache::watching();
        assert_eq!(cache.discover(&fixture.discovery).skills.len(), 1);
        // The second call waits for the watches.
        assert_eq!(cache.discover(&fixture.discovery).skills.len(), 1);
        let agents = fixture.workspace.path().join(".agents");
        fs::rename(&agents, elsewhere.path().join("old")).unwrap();
        fs::rename(&new, &agents).unwrap();
        let found = wait_until_seen(&cache, &fixture.discovery, 2);
        assert_eq!(*found, fixture.discovery.discover());
    }

    /// After a trip, no caller sees the wire quiet until a check has found the stamps held;
    /// a check answers only for the trips seen before it began, so a change during it (even one
    /// another caller's check found) leaves the wire tripped.
    #[test]
    fn no_caller_sees_the_wire_quiet_while_a_change_is_unchecked() {
        let fixture = Fixture::new();
        skill(&fixture.root(), "a", "A.");
        age(fixture.workspace.path());
        let (tripwire, _) = armed(&fixture.discovery, &Arc::new(fixture.discovery.discover()));
        assert!(tripwire.is_quiet());
        let notes = fixture.root().join("a/notes.md");
        trip(&tripwire, || fs::write(&notes, "x").unwrap());
        assert!(!tripwire.is_quiet());
        // Two callers check at once; the first finds the stamps held.
        let first = tripwire.begin_check();
        let second = tripwire.begin_check();
        // A change lands during the checks; the second caller's check sees it.
        trip(&tripwire, || fs::remove_file(&notes).unwrap());
        tripwire.end_check(second, false);
        tripwire.end_check(first, true);
        assert!(!tripwire.is_quiet());
        // A check begun after the change answers for it.
        let third = tripwire.begin_check();
        tripwire.end_check(third, true);
        assert!(tripwire.is_quiet());
    }

    /// The workspace is watched on the way to its roots; a file written directly in it cannot
    /// change the result and leaves the wire quiet, while a change below a root trips it.
    #[test]
    fn a_write_beside_the_roots_leaves_the_wire_quiet() {
        let fixture = Fixture::new();
        skill(&fixture.root(), "a", "A.");
        create_every_root(&fixture.discovery);
        age(fixture.workspace.path());
        let (tripwire, _) = armed(&fixture.discovery, &Arc::new(fixture.discovery.discover()));
        assert!(tripwire.is_quiet());
        fs::write(fixture.workspace.path().join("README.md"), "x").unwrap();
        // Events arrive within milliseconds; a wire that counted this one would show it by now.
        std::thread::sleep(Duration::from_millis(300));
        assert!(tripwire.is_quiet());
        trip(&tripwire, || {
            fs::write(fixture.root().join("a/notes.md"), "x").unwrap();
        });
        assert!(!tripwire.is_quiet());
    }

    #[test]
    fn a_root_created_later_trips_the_parent_watch() {
        let fixture = Fixture::new();
        let cache = DiscoveryCache::watching();
        assert!(cache.discover(&fixture.discovery).skills.is_empty());
        skill(&fixture.root(), "late", "Late.");
        wait_until_seen(&cache, &fixture.discovery, 1);
    }
}
