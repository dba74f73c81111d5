//! Adding, verifying and removing skills from local folders, and each hostile source refused
//! or left out with nothing written outside the skills folder.

use std::fs;
use std::path::Path;

use skillbook_packages::{
    Add, CheckPolicy, Drift, FolderLimits, LeftOutReason, Lock, PackageError, Source, Target,
    remove, verify,
};

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

fn write(root: &Path, path: &str, content: &str) -> std::io::Result<()> {
    let path = root.join(path);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, content)
}

fn skill(root: &Path, folder: &str, name: &str) -> std::io::Result<()> {
    write(
        root,
        &format!("{folder}/SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {name} skill.\n---\n# Steps\n"),
    )
}

/// Every path below `root`, sorted.
fn paths(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            found.push(
                path.strip_prefix(root)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
            );
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

struct Fixture {
    source: tempfile::TempDir,
    workspace: tempfile::TempDir,
}

impl Fixture {
    fn new() -> std::io::Result<Fixture> {
        Ok(Fixture {
            source: tempfile::tempdir()?,
            workspace: tempfile::tempdir()?,
        })
    }

    fn target(&self) -> Target {
        Target::workspace(self.workspace.path())
    }

    fn add(&self) -> Add {
        Add::new(Source::local(self.source.path()))
    }

    fn install(&self, add: Add) -> std::result::Result<Vec<String>, PackageError> {
        let target = self.target();
        Ok(add.plan(&target)?.install(&target)?.names().to_vec())
    }
}

#[test]
fn add_verify_change_and_remove() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "skills/review", "review")?;
    write(
        fixture.source.path(),
        "skills/review/scripts/run.sh",
        "echo hi\n",
    )?;
    skill(fixture.source.path(), "skills/deploy", "deploy")?;
    let installed = fixture.install(fixture.add().skills(["review"]))?;
    assert_eq!(installed, ["review"]);
    let target = fixture.target();
    let lock = Lock::read(target.lock_path())?;
    let entry = lock.get("review").ok_or("no entry")?;
    assert!(
        entry
            .source()
            .is_some_and(|source| source.starts_with("../")),
        "{:?}",
        entry.source()
    );
    assert_eq!(entry.source_type(), Some("local"));
    assert_eq!(entry.skill_path(), Some("skills/review/SKILL.md"));
    assert_eq!(entry.git_ref(), None);
    assert!(
        entry
            .digest()
            .is_some_and(|digest| digest.starts_with("sha256:"))
    );
    assert!(verify(&target)?.is_clean());

    let installed = target.skills_folder().join("review");
    fs::write(installed.join("SKILL.md"), "changed")?;
    fs::remove_file(installed.join("scripts/run.sh"))?;
    fs::write(installed.join("notes.md"), "new")?;
    let report = verify(&target)?;
    assert_eq!(report.drifted.len(), 1);
    assert_eq!(
        report.drifted[0].drift,
        Drift::Changed {
            added: vec!["notes.md".into()],
            removed: vec!["scripts/run.sh".into()],
            changed: vec!["SKILL.md".into()],
            hash_only: false,
        }
    );

    assert_eq!(remove(&target, &["review"])?, ["review"]);
    assert!(!installed.exists());
    assert!(Lock::read(target.lock_path())?.is_empty());
    assert!(verify(&target)?.is_clean());
    assert!(matches!(
        remove(&target, &["review"]),
        Err(PackageError::NotInstalled { .. })
    ));
    Ok(())
}

#[test]
fn a_removed_skill_folder_is_missing() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    fixture.install(fixture.add())?;
    fs::remove_dir_all(fixture.target().skills_folder().join("review"))?;
    let report = verify(&fixture.target())?;
    assert_eq!(report.drifted[0].drift, Drift::Missing);
    Ok(())
}

#[test]
fn adding_again_from_the_same_source_replaces_the_skill() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    write(fixture.source.path(), "review/old.md", "old")?;
    fixture.install(fixture.add())?;
    fs::remove_file(fixture.source.path().join("review/old.md"))?;
    fixture.install(fixture.add())?;
    let folder = fixture.target().skills_folder().join("review");
    assert!(!folder.join("old.md").exists());
    assert!(verify(&fixture.target())?.is_clean());
    assert_eq!(
        paths(fixture.target().skills_folder()),
        ["review", "review/SKILL.md"]
    );
    Ok(())
}

#[cfg(unix)]
#[test]
fn links_and_git_inside_a_skill_are_left_out_and_the_rest_installs() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    let outside = fixture.source.path().join("secret.txt");
    fs::write(&outside, "secret")?;
    std::os::unix::fs::symlink(&outside, fixture.source.path().join("review/link.txt"))?;
    write(fixture.source.path(), "review/.git/config", "[core]")?;
    let target = fixture.target();
    let plan = fixture.add().plan(&target)?;
    let left_out: Vec<(&str, LeftOutReason)> = plan.skills()[0]
        .left_out()
        .iter()
        .map(|entry| (entry.path.as_str(), entry.reason))
        .collect();
    assert_eq!(
        left_out,
        [
            (".git", LeftOutReason::Git),
            ("link.txt", LeftOutReason::Link)
        ]
    );
    plan.install(&target)?;
    assert_eq!(paths(target.skills_folder()), ["review", "review/SKILL.md"]);
    Ok(())
}

#[cfg(unix)]
#[test]
fn a_skill_folder_that_is_a_link_is_not_installed() -> Result {
    let fixture = Fixture::new()?;
    let elsewhere = tempfile::tempdir()?;
    skill(elsewhere.path(), "review", "review")?;
    std::os::unix::fs::symlink(
        elsewhere.path().join("review"),
        fixture.source.path().join("review"),
    )?;
    let error = fixture.install(fixture.add()).err().ok_or("installed")?;
    assert!(matches!(error, PackageError::NoSkills { .. }), "{error}");
    assert!(error.to_string().contains("link"), "{error}");
    assert!(!fixture.target().skills_folder().exists());
    Ok(())
}

#[test]
fn hostile_sources_are_refused_and_nothing_is_written() -> Result {
    type Setup = fn(&Path) -> std::io::Result<()>;
    let cases: [(&str, Setup, &str); 5] = [
        (
            "a file over the limit",
            |root| {
                skill(root, "review", "review")?;
                write(root, "review/big.bin", &"x".repeat(2048))
            },
            "over the 1024 bytes allowed",
        ),
        (
            "a control character in a file name",
            |root| {
                skill(root, "review", "review")?;
                write(root, "review/bad\u{1}name.md", "x")
            },
            "unsafe name",
        ),
        (
            "a skill named ..",
            |root| skill(root, "review", ".."),
            "unsafe name",
        ),
        (
            "names differing only in case",
            |root| {
                skill(root, "review", "review")?;
                write(root, "review/Notes.md", "a")?;
                write(root, "review/notes.md", "b")
            },
            "differs only in case",
        ),
        (
            "a checker error",
            |root| skill(root, "review", "Review Tool"),
            "error(s) from `skillbook check`",
        ),
    ];
    for (case, setup, expected) in cases {
        let fixture = Fixture::new()?;
        setup(fixture.source.path())?;
        let mut limits = FolderLimits::default();
        limits.max_file_bytes = 1024;
        let outcome = fixture.install(fixture.add().limits(limits).check(
            if case == "a skill named .." {
                CheckPolicy::Force
            } else {
                CheckPolicy::RefuseErrors
            },
        ));
        let message = outcome
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(message.contains(expected), "{case}: {message}");
        assert!(
            paths(fixture.workspace.path()).is_empty(),
            "{case}: something was written"
        );
    }
    Ok(())
}

#[test]
fn a_checker_error_installs_when_forced() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "Review Tool")?;
    let installed = fixture.install(fixture.add().check(CheckPolicy::Force))?;
    assert_eq!(installed, ["Review Tool"]);
    Ok(())
}

#[test]
fn a_name_colliding_with_an_installed_skill_is_refused() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    let installed = fixture.target().skills_folder().join("Review");
    write(&installed, "SKILL.md", "mine")?;
    let error = fixture.install(fixture.add()).err().ok_or("installed")?;
    assert!(
        matches!(error, PackageError::NameCollision { .. }),
        "{error}"
    );
    assert_eq!(fs::read_to_string(installed.join("SKILL.md"))?, "mine");
    assert!(!fixture.target().lock_path().exists());
    Ok(())
}

#[test]
fn a_lock_with_conflict_markers_stops_every_command() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    let target = fixture.target();
    fs::write(
        target.lock_path(),
        "{\n<<<<<<< HEAD\n=======\n>>>>>>> b\n}\n",
    )?;
    for outcome in [
        fixture.install(fixture.add()).err(),
        verify(&target).err(),
        remove(&target, &["review"]).err(),
    ] {
        let message = outcome.map(|error| error.to_string()).unwrap_or_default();
        assert!(
            message.contains("skills-lock.json:2: merge-conflict marker"),
            "{message}"
        );
    }
    assert!(!target.skills_folder().exists());
    Ok(())
}

#[test]
fn a_lock_the_skills_tool_wrote_verifies_by_its_hash() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    fixture.install(fixture.add())?;
    let target = fixture.target();
    let ours = Lock::read(target.lock_path())?;
    let hash = ours
        .get("review")
        .and_then(|entry| entry.computed_hash())
        .ok_or("no hash")?;
    let theirs = format!(
        "{{\n  \"version\": 1,\n  \"skills\": {{\n    \"review\": {{\n      \"source\": \"./src\",\n      \"sourceType\": \"local\",\n      \"computedHash\": \"{hash}\"\n    }}\n  }}\n}}\n"
    );
    fs::write(target.lock_path(), theirs)?;
    assert!(verify(&target)?.is_clean());
    fs::write(target.skills_folder().join("review/extra.md"), "x")?;
    let report = verify(&target)?;
    assert!(matches!(
        report.drifted[0].drift,
        Drift::Changed {
            hash_only: true,
            ..
        }
    ));
    Ok(())
}

#[cfg(unix)]
#[test]
fn a_source_folder_that_is_a_link_is_followed_but_links_inside_are_not() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    let elsewhere = tempfile::tempdir()?;
    let link = elsewhere.path().join("skills");
    std::os::unix::fs::symlink(fixture.source.path(), &link)?;
    let target = fixture.target();
    Add::new(Source::local(&link))
        .plan(&target)?
        .install(&target)?;
    let lock = Lock::read(target.lock_path())?;
    assert_eq!(
        lock.get("review").and_then(|entry| entry.skill_path()),
        Some("review/SKILL.md")
    );
    assert!(verify(&target)?.is_clean());
    Ok(())
}

#[test]
fn a_lock_entry_naming_the_skill_folder_is_the_same_source() -> Result {
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "skills/review", "review")?;
    fixture.install(fixture.add())?;
    let target = fixture.target();
    // What the `skills` tool writes after restoring: the skill's own folder as the source.
    let text = fs::read_to_string(target.lock_path())?;
    let source = Lock::read(target.lock_path())?
        .get("review")
        .and_then(|entry| entry.source())
        .ok_or("no source")?
        .to_owned();
    fs::write(
        target.lock_path(),
        text.replace(
            &format!("\"{source}\""),
            &format!("\"{source}/skills/review\""),
        ),
    )?;
    fixture.install(fixture.add())?;
    Ok(())
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_is_refused() -> Result {
    use std::os::unix::ffi::OsStrExt;
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    fs::write(fixture.source.path().join("review").join(name), "x")?;
    let error = fixture.install(fixture.add()).err().ok_or("installed")?;
    assert!(matches!(error, PackageError::UnsafeName { .. }), "{error}");
    assert!(paths(fixture.workspace.path()).is_empty());
    Ok(())
}

#[cfg(unix)]
#[test]
fn scripts_stay_executable_and_other_files_do_not_become_so() -> Result {
    use std::os::unix::fs::PermissionsExt;
    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    let script = fixture.source.path().join("review/run.sh");
    fs::write(&script, "echo hi\n")?;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o750))?;
    fixture.install(fixture.add())?;
    let installed = fixture.target().skills_folder().join("review");
    let mode =
        |path: &Path| fs::metadata(path).map(|metadata| metadata.permissions().mode() & 0o777);
    assert_eq!(mode(&installed.join("run.sh"))? & 0o111, 0o111);
    assert_eq!(mode(&installed.join("SKILL.md"))? & 0o111, 0);
    Ok(())
}

#[test]
fn a_requirement_judges_by_the_lock_as_it_is_now() -> Result {
    use skillbook::{Admission, Discovery, Home};
    use skillbook_packages::RequireLock;

    let fixture = Fixture::new()?;
    skill(fixture.source.path(), "review", "review")?;
    fixture.install(fixture.add())?;
    let required = RequireLock::new([fixture.target()]);
    let folder = fixture.target().skills_folder().join("review");
    let directory = Discovery::new(fixture.workspace.path())
        .home(Home::Off)
        .discover()
        .skills()[0]
        .directory()
        .to_path_buf();
    assert!(required.recheck(&directory).is_ok());

    // Edited in place: refused.
    write(
        &folder,
        "SKILL.md",
        "---\nname: review\ndescription: Edited.\n---\n",
    )?;
    assert!(required.recheck(&directory).is_err());

    // The source moved on and the lock with it (`update` while a server runs): admitted again,
    // judged by the new lock, not the one read when the requirement was made.
    write(fixture.source.path(), "review/notes.md", "new")?;
    fixture.install(fixture.add())?;
    assert!(folder.join("notes.md").is_file());
    assert!(required.recheck(&directory).is_ok());

    // The lock removed: nothing in its folder is locked any more.
    fs::remove_file(fixture.target().lock_path())?;
    assert!(required.recheck(&directory).is_err());
    Ok(())
}
