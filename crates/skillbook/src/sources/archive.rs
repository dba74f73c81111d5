//! Skills read from a zip archive in place: nothing is extracted to disk.

use std::collections::BTreeMap;
use std::io::{Read, Seek};
use std::sync::Arc;

use super::{Origin, ProvidedSkill, SourceError, relative_path, tree};

/// Bounds on an archive. Reaching one refuses the archive with an error naming the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArchiveLimits {
    /// Most entries (files and folders). Default 4,096.
    pub max_entries: usize,
    /// Most bytes in one file once decompressed. Default 16 MiB.
    pub max_file_bytes: u64,
    /// Most bytes in all files once decompressed. Default 64 MiB.
    pub max_total_bytes: u64,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        ArchiveLimits {
            max_entries: 4096,
            max_file_bytes: 16 * 1024 * 1024,
            max_total_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Every skill in a zip archive, in path order, read in memory.
///
/// Entry names are checked (no absolute paths, `..`, backslashes or control characters),
/// symbolic-link entries are refused, and the entry count and decompressed sizes are capped —
/// measured while decompressing, not trusted from the archive's headers.
///
/// # Errors
///
/// [`SourceError::Archive`] for an unreadable archive, [`SourceError::ArchiveEntry`] for an
/// unsafe entry, [`SourceError::ArchiveLimit`] when a limit is reached, and
/// [`SourceError::Name`] for a skill at the top of the archive without a usable name or heading
/// (a skill in a folder takes the folder's name when it has no other, as on disk: see
/// [`ProvidedSkill::diagnostics`]).
pub fn from_zip<R: Read + Seek>(
    reader: R,
    limits: ArchiveLimits,
) -> Result<Vec<ProvidedSkill>, SourceError> {
    let mut archive =
        zip::ZipArchive::new(reader).map_err(|error| SourceError::Archive(error.to_string()))?;
    if archive.len() > limits.max_entries {
        return Err(SourceError::ArchiveLimit(format!(
            "it has {} entries, over the limit of {}",
            archive.len(),
            limits.max_entries
        )));
    }
    let mut files = BTreeMap::new();
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let mut entry = archive
            .by_index(index)
            .map_err(|error| SourceError::Archive(error.to_string()))?;
        let name = entry
            .name()
            .map_err(|error| SourceError::Archive(error.to_string()))?
            .into_owned();
        let refuse = |reason: &str| SourceError::ArchiveEntry {
            entry: name.clone(),
            reason: reason.to_owned(),
        };
        if entry.is_symlink() {
            return Err(refuse("symbolic links are not allowed in skill archives"));
        }
        if entry.is_dir() {
            // A folder holds no bytes, but an unsafe name is refused like a file's.
            relative_path(name.trim_end_matches('/')).map_err(refuse)?;
            continue;
        }
        let path = relative_path(&name).map_err(refuse)?;
        let mut contents = Vec::new();
        let read = (&mut entry)
            .take(limits.max_file_bytes.saturating_add(1))
            .read_to_end(&mut contents)
            .map_err(|error| refuse(&format!("it cannot be decompressed ({error})")))?;
        if read as u64 > limits.max_file_bytes {
            return Err(SourceError::ArchiveLimit(format!(
                "entry `{name}` is over the per-file limit of {} bytes",
                limits.max_file_bytes
            )));
        }
        total += read as u64;
        if total > limits.max_total_bytes {
            return Err(SourceError::ArchiveLimit(format!(
                "its files are over the total limit of {} bytes",
                limits.max_total_bytes
            )));
        }
        files.insert(path, Arc::from(contents));
    }
    tree::skills_from_files(files, Origin::Archive)
}
