//! Comparing installed skills with the lock.

use std::collections::BTreeMap;
use std::fs;

use crate::error::PackageError;
use crate::install::Target;
use crate::lock::{Lock, LockEntry};
use crate::snapshot::{FolderLimits, Snapshot, file_digest, is_safe_name};

/// How one locked skill differs from the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Drift {
    /// The skill's folder is gone.
    Missing,
    /// Files differ. With skillbook's per-file digests in the lock, each file is named;
    /// with only the `skills` tool's `computedHash`, the lists are empty and `hash_only` is set.
    Changed {
        /// Files present but not in the lock (links and special files included).
        added: Vec<String>,
        /// Files in the lock but not present.
        removed: Vec<String>,
        /// Files whose content differs.
        changed: Vec<String>,
        /// The lock has no per-file digests (the `skills` tool wrote the entry): only the
        /// whole folder's hash was compared.
        hash_only: bool,
    },
    /// The folder could not be read as a skill (a link, an unsafe name, over a limit).
    Unreadable {
        /// Why.
        message: String,
    },
}

/// One locked skill that differs from the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillDrift {
    /// The skill's name in the lock.
    pub name: String,
    /// How it differs.
    pub drift: Drift,
}

/// What [`verify`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct VerifyReport {
    /// How many locked skills were compared.
    pub checked: usize,
    /// Each locked skill that differs, by name.
    pub drifted: Vec<SkillDrift>,
    /// Skill folders in the skills folder that the lock does not record (not drift: skills
    /// written by hand live there too).
    pub not_locked: Vec<String>,
}

impl VerifyReport {
    /// No locked skill differs from the lock.
    pub fn is_clean(&self) -> bool {
        self.drifted.is_empty()
    }
}

/// Compares every skill in `target`'s lock with its installed folder.
///
/// # Errors
///
/// The lock cannot be read (a missing lock is empty: nothing to verify).
pub fn verify(target: &Target) -> Result<VerifyReport, PackageError> {
    let lock = Lock::read(target.lock_path())?;
    let mut report = VerifyReport {
        checked: lock.len(),
        ..VerifyReport::default()
    };
    for (name, entry) in lock.entries() {
        if let Some(drift) = compare(target, name, entry) {
            report.drifted.push(SkillDrift {
                name: name.to_owned(),
                drift,
            });
        }
    }
    if let Ok(folders) = fs::read_dir(target.skills_folder()) {
        let mut not_locked: Vec<String> = folders
            .flatten()
            .filter_map(|folder| folder.file_name().into_string().ok())
            .filter(|name| !name.starts_with('.') && lock.get(name).is_none())
            .collect();
        not_locked.sort();
        report.not_locked = not_locked;
    }
    Ok(report)
}

pub(crate) fn compare(target: &Target, name: &str, entry: LockEntry<'_>) -> Option<Drift> {
    if !is_safe_name(name) {
        return Some(Drift::Unreadable {
            message: "the name is not a plain folder name".to_owned(),
        });
    }
    let folder = target.skills_folder().join(name);
    if fs::symlink_metadata(&folder).is_err() {
        return Some(Drift::Missing);
    }
    let snapshot = match Snapshot::read(&folder, &FolderLimits::default()) {
        Ok(snapshot) => snapshot,
        Err(error) => {
            return Some(Drift::Unreadable {
                message: error.to_string(),
            });
        }
    };
    if let Some(locked) = entry.files() {
        return by_file(&snapshot, &locked);
    }
    let same = match (entry.digest(), entry.computed_hash()) {
        (Some(digest), _) => snapshot.digest() == digest && snapshot.left_out.is_empty(),
        (None, Some(hash)) => snapshot.computed_hash() == hash,
        (None, None) => false,
    };
    (!same).then(|| Drift::Changed {
        added: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
        hash_only: true,
    })
}

fn by_file(snapshot: &Snapshot, locked: &BTreeMap<&str, &str>) -> Option<Drift> {
    let present = snapshot.paths();
    let mut added: Vec<String> = present
        .iter()
        .filter(|path| !locked.contains_key(*path))
        .map(|path| (*path).to_owned())
        .collect();
    added.extend(snapshot.left_out.iter().map(|entry| entry.path.clone()));
    added.sort();
    let removed: Vec<String> = locked
        .keys()
        .filter(|path| !present.contains(*path))
        .map(|path| (*path).to_owned())
        .collect();
    let changed: Vec<String> = snapshot
        .files
        .iter()
        .filter(|file| {
            locked
                .get(file.path.as_str())
                .is_some_and(|digest| *digest != file_digest(&file.content))
        })
        .map(|file| file.path.clone())
        .collect();
    (!(added.is_empty() && removed.is_empty() && changed.is_empty())).then_some(Drift::Changed {
        added,
        removed,
        changed,
        hash_only: false,
    })
}
