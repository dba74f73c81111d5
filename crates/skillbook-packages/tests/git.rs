//! Git sources through the library: a folder of a repository chosen with
//! [`GitSource::subpath`], and a restore that takes each skill from the folder its lock names
//! even when another skill of the same name comes first in the repository.

#[path = "support/git.rs"]
mod support_git;
use support_git::git;

use std::fs;
use std::path::Path;

use skillbook_packages::{Add, GitSource, InstallMode, Source, Target, install, verify};

type Result = std::result::Result<(), Box<dyn std::error::Error>>;

fn skill(root: &Path, folder: &str, name: &str, description: &str) -> std::io::Result<()> {
    let folder = root.join(folder);
    fs::create_dir_all(&folder)?;
    let text = format!("---\nname: {name}\ndescription: {description}\n---\n# Steps\n");
    fs::write(folder.join("SKILL.md"), text)
}

#[test]
fn a_folder_of_a_repository_is_installed_and_restored_from_that_folder() -> Result {
    let repository = tempfile::tempdir()?;
    // Two skills named `pdf`: discovery of the whole repository finds `first/pdf` first.
    skill(repository.path(), "first/pdf", "pdf", "The first.")?;
    skill(repository.path(), "second/pdf", "pdf", "The second.")?;
    skill(repository.path(), "second/review", "review", "Review.")?;
    git(repository.path(), &["init", "-q", "-b", "main"])?;
    git(repository.path(), &["add", "-A"])?;
    git(repository.path(), &["commit", "-q", "-m", "skills"])?;
    let url = format!("file://{}", repository.path().display());
    let workspace = tempfile::tempdir()?;
    let target = Target::workspace(workspace.path());

    let source = GitSource::url(&url, None)?.subpath("second")?;
    let plan = Add::new(Source::Git(source)).plan(&target)?;
    let names: Vec<&str> = plan.skills().iter().map(|skill| skill.name()).collect();
    assert_eq!(names, ["pdf", "review"]);
    plan.install(&target)?;
    let installed = workspace.path().join(".agents/skills/pdf/SKILL.md");
    assert!(fs::read_to_string(&installed)?.contains("The second."));

    fs::remove_dir_all(workspace.path().join(".agents/skills"))?;
    let report = install(&target, InstallMode::Restore)?;
    assert_eq!(report.restored.len(), 2);
    assert!(
        fs::read_to_string(&installed)?.contains("The second."),
        "restored from the folder the lock names, not the first `pdf` of the repository"
    );
    assert!(verify(&target)?.is_clean());
    Ok(())
}

#[test]
fn a_skill_inside_another_skills_folder_is_restored_from_its_own_folder() -> Result {
    let repository = tempfile::tempdir()?;
    // Discovery from the top stops at `outer` (the leaf rule) and never sees `inner`.
    skill(repository.path(), "outer", "outer", "Outer.")?;
    skill(repository.path(), "outer/inner", "inner", "Inner.")?;
    git(repository.path(), &["init", "-q", "-b", "main"])?;
    git(repository.path(), &["add", "-A"])?;
    git(repository.path(), &["commit", "-q", "-m", "skills"])?;
    let url = format!("file://{}", repository.path().display());
    let workspace = tempfile::tempdir()?;
    let target = Target::workspace(workspace.path());
    let source = GitSource::url(&url, None)?.subpath("outer/inner")?;
    Add::new(Source::Git(source))
        .plan(&target)?
        .install(&target)?;

    fs::remove_dir_all(workspace.path().join(".agents/skills"))?;
    let report = install(&target, InstallMode::Restore)?;
    assert_eq!(report.restored.len(), 1);
    let text = fs::read_to_string(workspace.path().join(".agents/skills/inner/SKILL.md"))?;
    assert!(text.contains("Inner."), "{text}");
    assert!(verify(&target)?.is_clean());
    Ok(())
}
