//! Removing installed skills, with the links and copies made for other clients.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use crate::agents::Exposer;
use crate::error::PackageError;
use crate::install::{Target, aside_path, remove_entry};
use crate::lock::Lock;
use crate::snapshot::is_safe_name;

/// Removes installed skills: each folder (a link is removed, never followed), the links and
/// copies `add --agent` made in clients' folders (only those), and its lock entry. All or nothing: a name that is neither installed nor locked fails before anything is
/// removed.
///
/// # Errors
///
/// [`PackageError::NotInstalled`] for such a name, [`PackageError::UnsafeName`] for a name
/// that is not a plain folder name, or an error reading or writing the lock or a folder.
pub fn remove<S: AsRef<str>>(target: &Target, names: &[S]) -> Result<Vec<String>, PackageError> {
    let mut lock = Lock::read(target.lock_path())?;
    let mut places = Vec::new();
    let mut unique = BTreeSet::new();
    for name in names {
        let name = name.as_ref();
        if !is_safe_name(name) {
            return Err(PackageError::UnsafeName {
                path: PathBuf::from(name),
            });
        }
        if !unique.insert(name.to_owned()) {
            continue;
        }
        let place = target.skills_folder().join(name);
        let exists = fs::symlink_metadata(&place).is_ok();
        if !exists && lock.get(name).is_none() {
            return Err(PackageError::NotInstalled {
                name: name.to_owned(),
                path: target.skills_folder().to_path_buf(),
            });
        }
        let mut made = Exposer::new(target, &lock).made(name);
        if exists {
            made.insert(0, place);
        }
        places.push((name.to_owned(), made));
    }
    let locked = places.iter().any(|(name, _)| lock.get(name).is_some());
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    let put_back = |moved: &[(PathBuf, PathBuf)]| {
        for (place, aside) in moved.iter().rev() {
            let _ = fs::rename(aside, place);
            if let Some(folder) = place.parent() {
                crate::install::tidy_staging(folder);
            }
        }
    };
    for (name, made) in &places {
        lock.remove(name);
        for place in made {
            let aside = aside_path(place);
            if let Err(error) = fs::rename(place, &aside) {
                put_back(&moved);
                return Err(PackageError::io(place, error));
            }
            moved.push((place.clone(), aside));
        }
    }
    if locked && let Err(error) = lock.write(target.lock_path()) {
        put_back(&moved);
        return Err(error.into());
    }
    for (place, aside) in &moved {
        let _ = remove_entry(aside);
        if let Some(folder) = place.parent() {
            crate::install::tidy_staging(folder);
        }
    }
    Ok(places.into_iter().map(|(name, _)| name).collect())
}
