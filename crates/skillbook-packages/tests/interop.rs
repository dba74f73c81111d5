//! Compatibility with the `skills` npm tool 1.7.4: its lock and its `computedHash`, and the
//! order JavaScript's `localeCompare` gives paths. The fixtures were written by that tool and by
//! Node 22 (`tests/fixtures`); the skill trees are rebuilt here byte for byte.

use std::fs;
use std::path::Path;

use skillbook_packages::{Lock, computed_hash, locale_compare};

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
