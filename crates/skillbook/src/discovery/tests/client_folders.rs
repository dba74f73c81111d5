//! Client folders (SPEC §2.1, §2.4 rev 3): `.claude/skills` is searched after `.skillbook` and
//! `.agents`, and a client's link to a skill or a root found already is the same skill,
//! neither reported nor shadowed — whatever the link policy.

use std::os::unix::fs::symlink;

use super::*;

fn discover_with(workspace: &Path, symlinks: SymlinkPolicy) -> Discovered {
    Discovery::new(workspace)
        .home(Home::Off)
        .symlinks(symlinks)
        .discover()
}

#[test]
fn claude_skills_are_found_after_agents_skills() {
    let workspace = workspace();
    named(&workspace.path().join(".claude/skills"), "notes", "notes");
    named(&workspace.path().join(".claude/skills"), "pdf", "pdf");
    let first = named(&workspace.path().join(".agents/skills"), "pdf", "pdf");
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["pdf", "notes"]);
    assert_eq!(found.skills[0].location, first);
    // The copy in `.claude` is a second skill of the same name: shadowed, and said so.
    assert_eq!(codes(&found), ["shadowed"]);
    assert!(
        found
            .read_roots
            .ends_with(&[workspace.path().join(".claude/skills")])
    );
}

#[test]
fn a_client_folder_linked_to_the_agents_folder_is_the_same_skills() {
    for symlinks in [SymlinkPolicy::Skip, SymlinkPolicy::Follow] {
        let workspace = workspace();
        named(&workspace.path().join(".agents/skills"), "pdf", "pdf");
        fs::create_dir_all(workspace.path().join(".claude")).unwrap();
        symlink("../.agents/skills", workspace.path().join(".claude/skills")).unwrap();
        let found = discover_with(workspace.path(), symlinks);
        assert_eq!(names(&found), ["pdf"], "{symlinks:?}");
        assert!(
            found.diagnostics.is_empty(),
            "{symlinks:?}: {:?}",
            found.diagnostics
        );
    }
}

#[test]
fn a_client_link_to_an_installed_skill_is_the_same_skill() {
    for symlinks in [SymlinkPolicy::Skip, SymlinkPolicy::Follow] {
        let workspace = workspace();
        named(&workspace.path().join(".agents/skills"), "pdf", "pdf");
        let claude = workspace.path().join(".claude/skills");
        named(&claude, "notes", "notes");
        symlink("../../.agents/skills/pdf", claude.join("pdf")).unwrap();
        let found = discover_with(workspace.path(), symlinks);
        assert_eq!(names(&found), ["pdf", "notes"], "{symlinks:?}");
        assert!(
            found.diagnostics.is_empty(),
            "{symlinks:?}: {:?}",
            found.diagnostics
        );
    }
}

#[test]
fn a_link_to_anything_not_found_already_is_still_reported() {
    let workspace = workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    named(elsewhere.path(), "pdf", "pdf");
    let claude = workspace.path().join(".claude/skills");
    fs::create_dir_all(&claude).unwrap();
    symlink(elsewhere.path().join("pdf"), claude.join("pdf")).unwrap();
    let found = discover(workspace.path());
    assert!(names(&found).is_empty());
    assert_eq!(codes(&found), ["symlink_skipped"]);
    // A folder found already but not as a skill (a collection) is no skill either.
    let workspace = workspace_with_collection_link();
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["pdf"]);
    assert_eq!(codes(&found), ["symlink_skipped"]);
}

/// `.agents/skills/team/pdf` and `.claude/skills/team`, a link to the collection `team`.
fn workspace_with_collection_link() -> TempDir {
    let workspace = workspace();
    named(&workspace.path().join(".agents/skills"), "team/pdf", "pdf");
    let claude = workspace.path().join(".claude/skills");
    fs::create_dir_all(&claude).unwrap();
    symlink("../../.agents/skills/team", claude.join("team")).unwrap();
    workspace
}
