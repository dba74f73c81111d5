//! Requiring the lock: skills under a locked root are handed on only as the lock pins them.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::SystemTime;

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
/// lock's error. A lock changed since it was read (`skillbook update` while a server runs) is
/// read again at the next check: the skills are judged by the lock as it is.
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

/// A skills folder and its lock, as last read.
#[derive(Debug)]
struct LockedRoot {
    target: Target,
    /// The skills folder, absolute and normalised as discovery gives skill folders.
    folder: PathBuf,
    lock: RwLock<ReadLock>,
}

/// A lock as read, and the state of its file then (to notice a change).
#[derive(Debug)]
struct ReadLock {
    state: Option<LockFileState>,
    lock: Arc<Result<Lock, String>>,
}

/// What tells a lock file's versions apart: its identity, size and modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LockFileState {
    identity: (u64, u64),
    len: u64,
    modified: Option<SystemTime>,
}

impl LockFileState {
    /// The state of the file at `path`; `None` when there is none.
    fn of(path: &Path) -> Option<LockFileState> {
        let metadata = fs::metadata(path).ok()?;
        #[cfg(unix)]
        let identity = {
            use std::os::unix::fs::MetadataExt;
            (metadata.dev(), metadata.ino())
        };
        #[cfg(not(unix))]
        let identity = (0, 0);
        Some(LockFileState {
            identity,
            len: metadata.len(),
            modified: metadata.modified().ok(),
        })
    }
}

impl ReadLock {
    /// Reads the lock at `path`, its file's state taken first (so a change while it is read is
    /// seen next time).
    fn read(path: &Path) -> ReadLock {
        let state = LockFileState::of(path);
        let lock = Lock::read(path).map_err(|error| error.to_string());
        ReadLock {
            state,
            lock: Arc::new(lock),
        }
    }
}

impl LockedRoot {
    /// The lock as it is now: read again when its file changed since it was last read.
    fn lock(&self) -> Arc<Result<Lock, String>> {
        let path = self.target.lock_path();
        let now = LockFileState::of(path);
        {
            let read = self.lock.read().unwrap_or_else(PoisonError::into_inner);
            if read.state == now {
                return Arc::clone(&read.lock);
            }
        }
        let mut read = self.lock.write().unwrap_or_else(PoisonError::into_inner);
        if read.state != now || LockFileState::of(path) != now {
            *read = ReadLock::read(path);
        }
        Arc::clone(&read.lock)
    }
}

impl RequireLock {
    /// Requires each target's lock for the skills in its skills folder. Each lock is read now,
    /// and again whenever its file has changed; one that does not exist is empty (every skill in
    /// its folder is then `not_locked`).
    pub fn new(targets: impl IntoIterator<Item = Target>) -> RequireLock {
        let roots = targets
            .into_iter()
            .map(|target| {
                let folder = target.skills_folder();
                let folder =
                    normalize(&std::path::absolute(folder).unwrap_or(folder.to_path_buf()));
                let lock = RwLock::new(ReadLock::read(target.lock_path()));
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
        let lock = root.lock();
        let refusal = match lock.as_ref() {
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
