use super::*;

use crate::error::LockError;

fn write(root: &Path, path: &str, content: &str) {
    let path = root.join(path);
    if let Some(parent) = path.parent() {
        assert!(fs::create_dir_all(parent).is_ok());
    }
    assert!(fs::write(path, content).is_ok());
}

fn skill(root: &Path, name: &str, body: &str) {
    write(
        root,
        &format!("{name}/SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n"),
    );
}

/// Every file below `root` with its content, links and folders named too.
fn tree(root: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .map(|path| path.display().to_string())
                .unwrap_or_default();
            if path.is_dir() {
                found.push((relative, "<folder>".to_owned()));
                stack.push(path);
            } else {
                found.push((relative, fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn discovery_during_an_install_sees_only_the_skills() -> Result<(), PackageError> {
    let source = tempfile::tempdir().map_err(|error| PackageError::io(Path::new("."), error))?;
    let workspace = tempfile::tempdir().map_err(|error| PackageError::io(Path::new("."), error))?;
    skill(source.path(), "alpha", "first");
    let target = Target::workspace(workspace.path());
    Add::new(Source::local(source.path()))
        .plan(&target)?
        .install(&target)?;
    skill(source.path(), "alpha", "second");
    skill(source.path(), "beta", "new");
    let plan = Add::new(Source::local(source.path())).plan(&target)?;

    // The lock is written last: by then every folder has been renamed into place and the old
    // `alpha` waits to be deleted. Nothing staged or set aside is in the skills folder.
    plan.install_with(&target, |lock, path| {
        let found = Discovery::new(workspace.path()).home(Home::Off).discover();
        let names: Vec<String> = found
            .skills()
            .iter()
            .map(|skill| skill.name().to_string())
            .collect();
        assert_eq!(names, ["alpha", "beta"]);
        assert!(found.diagnostics().is_empty(), "{:?}", found.diagnostics());
        let mut entries: Vec<String> = fs::read_dir(target.skills_folder())
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        entries.sort();
        assert_eq!(entries, ["alpha", "beta"]);
        lock.write(path)
    })?;
    assert!(
        !workspace.path().join(".agents/.skillbook-staging").exists(),
        "the staging folder is removed once empty"
    );
    let text = fs::read_to_string(workspace.path().join(".agents/skills/alpha/SKILL.md"))
        .map_err(|error| PackageError::io(Path::new("alpha"), error))?;
    assert!(text.contains("second"));
    Ok(())
}

#[test]
fn a_failed_lock_write_leaves_the_skills_and_the_lock_as_they_were() -> Result<(), PackageError> {
    let source = tempfile::tempdir().map_err(|error| PackageError::io(Path::new("."), error))?;
    let workspace = tempfile::tempdir().map_err(|error| PackageError::io(Path::new("."), error))?;
    skill(source.path(), "alpha", "first");
    skill(source.path(), "beta", "first");
    let target = Target::workspace(workspace.path());
    Add::new(Source::local(source.path()))
        .plan(&target)?
        .install(&target)?;
    let before = tree(workspace.path());

    skill(source.path(), "alpha", "second");
    skill(source.path(), "beta", "second");
    skill(source.path(), "gamma", "new");
    let plan = Add::new(Source::local(source.path())).plan(&target)?;
    let failed = plan.install_with(&target, |_, path| {
        Err(LockError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other("disk full"),
        })
    });
    assert!(matches!(
        failed,
        Err(PackageError::Lock(LockError::Io { .. }))
    ));
    assert_eq!(tree(workspace.path()), before);
    Ok(())
}

#[cfg(unix)]
#[test]
fn a_failed_lock_write_takes_back_the_links_and_copies_too() -> Result<(), PackageError> {
    let io = |error| PackageError::io(Path::new("."), error);
    let source = tempfile::tempdir().map_err(io)?;
    let workspace = tempfile::tempdir().map_err(io)?;
    skill(source.path(), "alpha", "first");
    let target = Target::workspace(workspace.path());
    Add::new(Source::local(source.path()))
        .agents([Agent::ClaudeCode])
        .expose(ExposeMode::Copy)
        .plan(&target)?
        .install(&target)?;
    let before = tree(workspace.path());

    skill(source.path(), "alpha", "second");
    skill(source.path(), "beta", "new");
    let plan = Add::new(Source::local(source.path()))
        .agents([Agent::ClaudeCode])
        .plan(&target)?;
    assert_eq!(plan.exposed().count(), 2, "alpha's copy becomes a link");
    let failed = plan.install_with(&target, |_, path| {
        Err(LockError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other("disk full"),
        })
    });
    assert!(failed.is_err());
    assert_eq!(tree(workspace.path()), before);
    assert!(!workspace.path().join(".claude/skills/beta").exists());
    Ok(())
}
