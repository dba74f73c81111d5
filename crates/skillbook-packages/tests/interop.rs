//! Compatibility with the `skills` npm tool 1.7.4: its lock and its `computedHash`, and the
//! order JavaScript's `localeCompare` gives paths. The fixtures were written by that tool and by
//! Node 22 (`tests/fixtures`); the skill trees are rebuilt here byte for byte (as a git
//! repository for the lock the tool wrote for a `file://` source).

#[path = "support/git.rs"]
mod support_git;
use support_git::git;

use std::fs;
use std::path::Path;

use skillbook_packages::{
    InstallMode, Lock, Target, computed_hash, install, locale_compare, verify,
};

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

fn write(root: &Path, path: &str, content: &str) -> std::io::Result<()> {
    let path = root.join(path);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, content)
}

fn skill_md(name: &str, title: &str) -> String {
    format!("---\nname: {name}\ndescription: {title} skill for tests.\n---\n# {title}\n")
}

/// The source the tool added (`skills add ./src --skill '*' -y --agent claude-code`).
fn source_tree(root: &Path) -> std::io::Result<()> {
    let files: [(&str, String); 16] = [
        ("alpha/SKILL.md", skill_md("alpha", "Alpha")),
        ("alpha/scripts/x.sh", "#!/bin/sh\necho x\n".into()),
        ("alpha/B.md", "upper B\n".into()),
        ("alpha/a.md", "lower a\n".into()),
        ("alpha/_notes.md", "under\n".into()),
        ("alpha/0.txt", "digit\n".into()),
        ("beta/SKILL.md", skill_md("beta", "Beta")),
        ("beta/docs/a-b.md", "ab\n".into()),
        ("beta/docs/a_b.md", "a_b\n".into()),
        ("beta/docs/aB.md", "aB\n".into()),
        ("beta/docs/Ab.md", "Ab\n".into()),
        ("beta/README.md", "r\n".into()),
        ("beta/x.md", "x\n".into()),
        ("gamma/SKILL.md", skill_md("gamma", "Gamma")),
        ("gamma/sub/ea.md", "e\n".into()),
        ("gamma/sub/éa.md", "é\n".into()),
    ];
    for (path, content) in &files {
        write(root, path, content)?;
    }
    write(root, "gamma/sub/eb.md", "b\n")?;
    write(root, "gamma/empty.txt", "")?;
    write(root, "gamma/.hidden", "dot\n")
}

#[test]
fn computed_hash_equals_the_skills_tools() -> Result {
    let lock_text = include_str!("fixtures/skills-1.7.4-lock.json");
    let lock = Lock::parse(Path::new("skills-lock.json"), lock_text)?;
    let source = tempfile::tempdir()?;
    source_tree(source.path())?;
    for name in ["alpha", "beta", "gamma"] {
        let expected = lock.get(name).and_then(|entry| entry.computed_hash());
        let actual = computed_hash(&source.path().join(name))?;
        assert_eq!(Some(actual.as_str()), expected, "{name}");
    }
    Ok(())
}

#[test]
fn links_git_and_node_modules_are_left_out_of_computed_hash_as_the_tool_does() -> Result {
    let lock = Lock::parse(
        Path::new("skills-lock.json"),
        include_str!("fixtures/skills-1.7.4-lock.json"),
    )?;
    let source = tempfile::tempdir()?;
    source_tree(source.path())?;
    let alpha = source.path().join("alpha");
    write(&alpha, "node_modules/m/index.js", "x")?;
    #[cfg(unix)]
    std::os::unix::fs::symlink("a.md", alpha.join("link.md"))?;
    assert_eq!(
        Some(computed_hash(&alpha)?.as_str()),
        lock.get("alpha").and_then(|entry| entry.computed_hash())
    );
    Ok(())
}

#[test]
fn a_lock_the_skills_tool_wrote_installs_checked_by_its_computed_hash() -> Result {
    let workspace = tempfile::tempdir()?;
    source_tree(&workspace.path().join("src"))?;
    // `beta` holds names differing only in case, which skillbook refuses to install.
    let mut lock = Lock::parse(
        Path::new("skills-lock.json"),
        include_str!("fixtures/skills-1.7.4-lock.json"),
    )?;
    assert!(lock.remove("beta"));
    let lock_path = workspace.path().join("skills-lock.json");
    lock.write(&lock_path)?;
    let lock_text = fs::read_to_string(&lock_path)?;
    let target = Target::workspace(workspace.path());

    let report = install(&target, InstallMode::Restore)?;
    let restored: Vec<&str> = report
        .restored
        .iter()
        .map(|skill| skill.name.as_str())
        .collect();
    assert_eq!(restored, ["alpha", "gamma"]);
    assert!(report.applied);
    assert_eq!(
        fs::read_to_string(workspace.path().join(".agents/skills/gamma/sub/éa.md"))?,
        "é\n"
    );
    assert_eq!(
        fs::read_to_string(&lock_path)?,
        lock_text,
        "the lock is not rewritten"
    );
    assert!(verify(&target)?.is_clean());
    assert!(install(&target, InstallMode::Frozen)?.is_unchanged());

    // A source that no longer hashes as the tool locked it is refused, naming the skill.
    fs::remove_dir_all(workspace.path().join(".agents/skills/gamma"))?;
    write(
        &workspace.path().join("src"),
        "gamma/sub/eb.md",
        "changed\n",
    )?;
    let message = install(&target, InstallMode::Restore)
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(message.starts_with("gamma: "), "{message}");
    assert!(message.contains("no longer matches the lock"), "{message}");
    assert!(!workspace.path().join(".agents/skills/gamma").exists());
    Ok(())
}

#[test]
fn a_lock_the_skills_tool_wrote_for_a_git_source_installs_and_verifies() -> Result {
    let repository = tempfile::tempdir()?;
    source_tree(repository.path())?;
    git(repository.path(), &["init", "-q", "-b", "main"])?;
    git(repository.path(), &["add", "-A"])?;
    git(repository.path(), &["commit", "-q", "-m", "tree"])?;
    let url = format!("file://{}", repository.path().display());
    let text =
        include_str!("fixtures/skills-1.7.4-git-lock.json").replace("file://REPOSITORY", &url);
    // `beta` holds names differing only in case, which skillbook refuses to install.
    let mut lock = Lock::parse(Path::new("skills-lock.json"), &text)?;
    assert!(lock.remove("beta"));
    let workspace = tempfile::tempdir()?;
    let lock_path = workspace.path().join("skills-lock.json");
    lock.write(&lock_path)?;
    let lock_text = fs::read_to_string(&lock_path)?;
    let target = Target::workspace(workspace.path());

    // The tool records no commit: the repository's newest is fetched and checked by the
    // tool's `computedHash`.
    let report = install(&target, InstallMode::Restore)?;
    let restored: Vec<&str> = report
        .restored
        .iter()
        .map(|skill| skill.name.as_str())
        .collect();
    assert_eq!(restored, ["alpha", "gamma"]);
    assert_eq!(
        fs::read_to_string(workspace.path().join(".agents/skills/alpha/scripts/x.sh"))?,
        "#!/bin/sh\necho x\n"
    );
    assert_eq!(
        fs::read_to_string(&lock_path)?,
        lock_text,
        "the lock is not rewritten"
    );
    assert!(verify(&target)?.is_clean());
    Ok(())
}

#[test]
fn locale_compare_orders_as_node_22_does() -> Result {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/locale-compare-node22.json"))?;
    let sorted: Vec<&str> = fixture["sorted"]
        .as_array()
        .map(|items| items.iter().filter_map(|item| item.as_str()).collect())
        .unwrap_or_default();
    assert!(sorted.len() > 250);
    let mut ours = sorted.clone();
    ours.reverse();
    ours.sort_by(|a, b| locale_compare(a, b));
    assert_eq!(ours, sorted);
    Ok(())
}
