//! Symbolic links, FIFOs and permissions: what only a Unix file system can show.

use super::*;
use std::os::unix::fs::symlink;

#[test]
fn symlinks_are_skipped_and_reported_by_default() {
    let workspace = workspace();
    let outside = tempfile::tempdir().unwrap();
    named(outside.path(), "target", "linked");
    let root = workspace.path().join(".agents/skills");
    fs::create_dir_all(root.join("file-link")).unwrap();
    symlink(outside.path().join("target"), root.join("dir-link")).unwrap();
    symlink(
        outside.path().join("target/SKILL.md"),
        root.join("file-link/SKILL.md"),
    )
    .unwrap();
    symlink(outside.path().join("nowhere"), root.join("dangling")).unwrap();
    let found = discover(workspace.path());
    assert!(found.skills.is_empty());
    assert_eq!(
        codes(&found),
        ["broken_symlink", "symlink_skipped", "symlink_skipped"]
    );
    assert_eq!(found.read_roots, [root]);
}

#[test]
fn a_symlinked_root_is_skipped_and_reported() {
    let workspace = workspace();
    let outside = tempfile::tempdir().unwrap();
    named(outside.path(), "x", "x");
    fs::create_dir_all(workspace.path().join(".agents")).unwrap();
    symlink(outside.path(), workspace.path().join(".agents/skills")).unwrap();
    let found = discover(workspace.path());
    assert!(found.skills.is_empty());
    assert_eq!(codes(&found), ["symlink_skipped"]);
    assert!(found.read_roots.is_empty());
}

#[test]
fn follow_policy_follows_links_and_declares_their_targets() {
    let workspace = workspace();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().canonicalize().unwrap().join("target");
    named(&target, "", "linked");
    let root = workspace.path().join(".agents/skills");
    fs::create_dir_all(&root).unwrap();
    symlink(&target, root.join("dir-link")).unwrap();
    symlink(root.join("nowhere"), root.join("broken")).unwrap();
    symlink(&root, root.join("loop")).unwrap();
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .symlinks(SymlinkPolicy::Follow)
        .discover();
    assert_eq!(names(&found), ["linked"]);
    assert_eq!(found.skills[0].location(), target.join("SKILL.md"));
    assert_eq!(found.read_roots, [root.clone(), target]);
    // The followed folder `target` holds a skill named `linked`.
    assert_eq!(
        codes(&found),
        ["broken_symlink", "symlink_loop", "name_directory_mismatch"]
    );
}

#[test]
fn a_fifo_named_skill_md_is_refused_without_blocking() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let directory = root.join("fifo");
    fs::create_dir_all(&directory).unwrap();
    let fifo = directory.join("SKILL.md");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    named(&root, "fine", "fine");
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["fine"]);
    assert_eq!(codes(&found), ["not_regular_file"]);
    assert_eq!(found.diagnostics[0].path, fifo);
}

/// Folders next to a skill are taken as skills in one step when they plainly are; every
/// other kind of folder there still meets the full rules.
#[test]
fn folders_after_a_skill_meet_the_same_rules() {
    let workspace = workspace();
    let outside = tempfile::tempdir().unwrap();
    named(outside.path(), "target", "outside");
    let root = workspace.path().join(".agents/skills");
    for name in ["a", "c", "e", "g", "i", "k"] {
        named(&root, name, name);
    }
    fs::create_dir_all(root.join("b")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("b/SKILL.md"))
        .status()
        .unwrap();
    assert!(status.success());
    fs::create_dir_all(root.join("d")).unwrap();
    symlink(
        outside.path().join("target/SKILL.md"),
        root.join("d/SKILL.md"),
    )
    .unwrap();
    fs::create_dir_all(root.join("f")).unwrap();
    fs::write(
        root.join("f/skill.md"),
        "---\nname: f\ndescription: lower\n---\n",
    )
    .unwrap();
    fs::create_dir_all(root.join("h/SKILL.md")).unwrap();
    symlink(outside.path().join("target"), root.join("j")).unwrap();
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["a", "c", "e", "f", "g", "i", "k"]);
    let located: Vec<(&str, PathBuf)> = found
        .diagnostics
        .iter()
        .map(|diagnostic| {
            let path = diagnostic.path.strip_prefix(&root).unwrap().to_path_buf();
            (diagnostic.code.as_str(), path)
        })
        .collect();
    assert_eq!(
        located,
        [
            // Links among a folder's entries are reported when it is listed.
            ("symlink_skipped", PathBuf::from("j")),
            ("not_regular_file", PathBuf::from("b/SKILL.md")),
            ("symlink_skipped", PathBuf::from("d/SKILL.md")),
            ("not_regular_file", PathBuf::from("h/SKILL.md")),
        ]
    );
}

#[test]
fn a_socket_named_skill_md_is_refused() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/socket");
    fs::create_dir_all(&directory).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(directory.join("SKILL.md")).unwrap();
    let found = discover(workspace.path());
    assert!(found.skills.is_empty());
    assert_eq!(codes(&found), ["not_regular_file"]);
}

#[test]
fn a_directory_named_skill_md_is_not_a_skill_file() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    fs::create_dir_all(root.join("odd/SKILL.md")).unwrap();
    let found = discover(workspace.path());
    assert!(found.skills.is_empty());
    assert_eq!(codes(&found), ["not_regular_file"]);
}

/// What the reader answers for the skill file of `name` (`"ok"` or the error's code).
fn read_outcome(reader: &crate::SkillReader, name: &str) -> String {
    let reply =
        reader.call_json(&serde_json::json!({ "path": format!("skill://{name}/SKILL.md") }));
    reply["error"].as_str().unwrap_or("ok").to_owned()
}

/// Folders after a skill take their identity from their parent's listing: each is the folder's
/// own, so every skill of a run reads, and a folder replaced after discovery is refused.
#[test]
fn every_skill_of_a_run_of_folders_is_vouched_for_by_its_own_identity() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let names = ["a", "b", "c", "d", "e", "f"];
    for name in names {
        named(&root, name, name);
    }
    let found = discover(workspace.path());
    assert_eq!(super::names(&found), names);
    let reader = crate::SkillReader::new(&found);
    for name in names {
        assert_eq!(read_outcome(&reader, name), "ok", "{name}");
    }
    // The same path, another folder: not what discovery vouched for.
    fs::rename(root.join("d"), workspace.path().join("d-old")).unwrap();
    named(&root, "d", "d");
    assert_eq!(read_outcome(&reader, "d"), "skill_changed");
    for name in ["a", "b", "c", "e", "f"] {
        assert_eq!(read_outcome(&reader, name), "ok", "{name}");
    }
}

/// A folder that is a mount point among skill folders is not mistaken for the folder it
/// covers. (Mounting needs privileges; where they are missing, the test says so and stops.)
#[cfg(target_os = "linux")]
#[test]
fn a_mount_point_among_skill_folders_is_read_as_the_mounted_folder() {
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let workspace = workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = workspace.path().join(".agents/skills");
    for name in ["a", "b", "d"] {
        named(&root, name, name);
    }
    named(elsewhere.path(), "c", "c");
    fs::create_dir_all(root.join("c")).unwrap();
    let mounted = std::process::Command::new("mount")
        .arg("--bind")
        .arg(elsewhere.path().join("c"))
        .arg(root.join("c"))
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !mounted {
        eprintln!("skipped: no permission to mount here");
        return;
    }
    let _unmount = Unmount(root.join("c"));
    let found = discover(workspace.path());
    assert_eq!(super::names(&found), ["a", "b", "c", "d"]);
    let reader = crate::SkillReader::new(&found);
    for name in ["a", "b", "c", "d"] {
        assert_eq!(read_outcome(&reader, name), "ok", "{name}");
    }
}
