//! Requiring the lock: skills under a locked root are handed on only as the lock pins them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use skillbook::{Admission, Diagnostic, DiagnosticCode, Skill};

use crate::install::Target;
use crate::lock::{Lock, normalize};
use crate::verify::{Drift, compare};

/// An [`Admission`] for discovery that requires the lock (`skillbook --locked`): a skill
/// directly in a locked skills folder is handed on only when its lock entry pins exactly its
/// files; one that differs is reported as `lock_mismatch`, one the lock does not name as
/// `not_locked`, and neither reaches a catalog, a reader or a model. Skills in other roots are
/// not its concern.
///
/// Every file of each locked skill is read and hashed when discovery finds it (see
/// BENCHMARKS.md for the cost), and again each time a reader made from the results opens the
/// skill's folder, so an edit is caught whatever it keeps of a file's size and times, even
/// after discovery. A lock that cannot be read refuses every skill of its folder, naming the
/// lock's error.
///
/// ```
/// use skillbook::Discovery;
/// use skillbook_packages::{RequireLock, Target};
///
/// let workspace = tempfile::tempdir()?;
/// let skill = workspace.path().join(".agents/skills/review");
/// std::fs::create_dir_all(&skill)?;
/// std::fs::write(skill.join("SKILL.md"), "---\nname: review\ndescription: Review.\n---\n")?;
///
/// // No lock names `review`: it is not handed on.
/// let required = RequireLock::new([Target::workspace(workspace.path())]);
/// let found = Discovery::new(workspace.path()).admission(required.shared()).discover();
/// assert!(found.skills().is_empty());
/// assert_eq!(found.diagnostics()[0].code.as_str(), "not_locked");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct RequireLock {
    roots: Vec<LockedRoot>,
}

/// A skills folder and its lock, as read when the requirement was made.
#[derive(Debug)]
struct LockedRoot {
    target: Target,
    /// The skills folder, absolute and normalised as discovery gives skill folders.
    folder: PathBuf,
    lock: Result<Lock, String>,
}

impl RequireLock {
    /// Requires each target's lock for the skills in its skills folder. Each lock is read now;
    /// one that does not exist is empty (every skill in its folder is then `not_locked`).
    pub fn new(targets: impl IntoIterator<Item = Target>) -> RequireLock {
        let roots = targets
            .into_iter()
            .map(|target| {
                let folder = target.skills_folder();
                let folder =
                    normalize(&std::path::absolute(folder).unwrap_or(folder.to_path_buf()));
                let lock = Lock::read(target.lock_path()).map_err(|error| error.to_string());
                LockedRoot {
                    target,
                    folder,
                    lock,
                }
            })
            .collect();
        RequireLock { roots }
    }

    /// The requirement, shared, as [`skillbook::Discovery::admission`] and
    /// `skillbook::runtime::Scope::with_admission` take it.
    pub fn shared(self) -> Arc<dyn Admission> {
        Arc::new(self)
    }
}

/// Why a skill of a locked folder is refused.
enum Refusal {
    /// Its lock cannot be read: why.
    LockUnreadable(String),
    /// The lock does not name it.
    NotLocked,
    /// Its files differ from the lock's.
    Drifted(Drift),
}

impl RequireLock {
    /// The verdict on the skill in `directory`: `None` when it is not in a locked folder or
    /// matches its lock, else the lock and why it is refused (with the skill's name).
    fn verdict(&self, directory: &Path) -> Option<(&Path, String, Refusal)> {
        let root = self
            .roots
            .iter()
            .find(|root| directory.parent() == Some(root.folder.as_path()))?;
        let name = directory
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let refusal = match &root.lock {
            Err(error) => Refusal::LockUnreadable(error.clone()),
            Ok(lock) => match lock.get(&name) {
                None => Refusal::NotLocked,
                Some(entry) => Refusal::Drifted(compare(&root.target, &name, entry)?),
            },
        };
        Some((root.target.lock_path(), name, refusal))
    }
}

impl Admission for RequireLock {
    /// Checks the skill's files again before a read: an edit since discovery (whatever it
    /// keeps of sizes and times) refuses the read. The message names no server path.
    fn recheck(&self, directory: &Path) -> Result<(), String> {
        let Some((_, name, refusal)) = self.verdict(directory) else {
            return Ok(());
        };
        Err(match refusal {
            Refusal::LockUnreadable(_) => format!("the lock of skill `{name}` cannot be read"),
            Refusal::NotLocked => format!("skill `{name}` is not in the lock"),
            Refusal::Drifted(drift) => format!(
                "skill `{name}` no longer matches the lock ({})",
                describe(&drift)
            ),
        })
    }

    fn admit(&self, skill: &Skill) -> Result<(), Diagnostic> {
        let Some((lock, name, refusal)) = self.verdict(skill.directory()) else {
            return Ok(());
        };
        let (code, message) = match refusal {
            Refusal::LockUnreadable(error) => (
                DiagnosticCode::LockMismatch,
                format!("skill `{name}` is not shown: the lock cannot be read ({error})"),
            ),
            Refusal::NotLocked => (
                DiagnosticCode::NotLocked,
                format!(
                    "skill `{name}` is not in {} and is not shown while the lock is required. \
                     Add it with `skillbook add`, or remove its folder",
                    lock.display()
                ),
            ),
            Refusal::Drifted(drift) => (
                DiagnosticCode::LockMismatch,
                format!(
                    "skill `{name}` differs from {} ({}) and is not shown while the lock is \
                     required. `skillbook install` restores the locked files; `skillbook update \
                     {name}` locks its source's new version",
                    lock.display(),
                    describe(&drift)
                ),
            ),
        };
        Err(Diagnostic::error(code, skill.location(), message))
    }
}

/// What differs, in a few words.
fn describe(drift: &Drift) -> String {
    match drift {
        Drift::Missing => "its folder is gone".to_owned(),
        Drift::Unreadable { message } => format!("it cannot be read: {message}"),
        Drift::Changed {
            added,
            removed,
            changed,
            hash_only: true,
        } if added.is_empty() && removed.is_empty() && changed.is_empty() => {
            "its files hash differently".to_owned()
        }
        Drift::Changed {
            added,
            removed,
            changed,
            ..
        } => {
            let mut parts = Vec::new();
            for (label, paths) in [("changed", changed), ("added", added), ("removed", removed)] {
                if !paths.is_empty() {
                    parts.push(format!("{label}: {}", paths.join(", ")));
                }
            }
            parts.join("; ")
        }
    }
}
