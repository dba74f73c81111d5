//! A skill's folder opened and checked once ([`SkillFolder`]), and the listings of skills' folders
//! on disk and in memory.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;

use crate::boundary::open;
use crate::boundary::{BoundaryError, DirectoryEntry, EntryKind};
use crate::discovery::index::{Body, Entry};
use crate::sources::ProvidedSkill;
use crate::uri::{self, SKILL_FILE};

use super::SkillReader;
use super::file::SkillFileReader;
use super::open_file::{Located, disk_failure, not_found};

/// A skill's folder, opened and checked once, for reading many of its files.
pub struct SkillFolder<'r> {
    pub(super) reader: &'r SkillReader,
    pub(super) entry: &'r Entry,
    /// The verified folder handle (none for a skill in memory).
    pub(super) handle: Option<Dir>,
}

impl fmt::Debug for SkillFolder<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SkillFolder")
            .field("skill", &self.entry.name)
            .finish_non_exhaustive()
    }
}

impl SkillFolder<'_> {
    /// Opens the file at `relative` (`/`-separated); `SKILL.md` is the skill file whatever it
    /// is called on disk.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::open`].
    pub fn open(&self, relative: &str) -> Result<SkillFileReader, BoundaryError> {
        let located = Located::by_uri(self.entry, relative)?;
        self.reader.open_located(&located, self.handle.as_ref())
    }

    /// The entries of the directory `relative` (empty for the folder itself), as
    /// [`SkillReader::list_directory`] gives them.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::list_directory`].
    pub fn list(&self, relative: &str) -> Result<Vec<DirectoryEntry>, BoundaryError> {
        self.list_entries(relative)
            .map_err(|error| self.reader.addressed(self.entry, error))
    }

    fn list_entries(&self, relative: &str) -> Result<Vec<DirectoryEntry>, BoundaryError> {
        let label = || uri::resource(&self.entry.name, relative);
        let relative = relative_path(relative).ok_or(BoundaryError::OutsideBoundary)?;
        let (Body::Disk { directory, .. }, Some(folder)) = (&self.entry.body, &self.handle) else {
            return match &self.entry.body {
                Body::Memory(skill) => {
                    memory_listing(skill, &relative).ok_or_else(|| not_found(label()))
                }
                Body::Disk { .. } => Err(not_found(label())),
            };
        };
        if relative
            .components()
            .any(|component| open::is_never_served(component.as_os_str()))
        {
            return Err(BoundaryError::OutsideBoundary);
        }
        let path = directory.join(&relative);
        let failure = |source: io::Error| disk_failure(&path, source);
        let listed = open::open_dir_path(folder, &relative).map_err(failure)?;
        let mut entries = Vec::new();
        for item in listed.entries().map_err(failure)? {
            let item = item.map_err(failure)?;
            let name = item.file_name();
            if open::is_never_served(&name) {
                continue;
            }
            let kind = EntryKind::of(item.file_type().map_err(failure)?);
            entries.push(DirectoryEntry { name, kind });
        }
        entries.sort_by(|left, right| left.name.cmp(&right.name));
        Ok(entries)
    }
}

/// A `/`-separated relative path as a path of normal components; `None` when it holds
/// anything else (`..`, an absolute start, an empty segment inside).
pub(super) fn relative_path(relative: &str) -> Option<PathBuf> {
    let path = PathBuf::from(relative.trim_end_matches('/'));
    path.components()
        .all(|component| matches!(component, Component::Normal(_)))
        .then_some(path)
}

/// The children of the virtual directory `relative` of a skill in memory, or `None` when no
/// file lies below it.
pub(super) fn memory_listing(
    skill: &ProvidedSkill,
    relative: &Path,
) -> Option<Vec<DirectoryEntry>> {
    let prefix = relative.to_string_lossy();
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    let mut children: Vec<DirectoryEntry> = Vec::new();
    let mut any = prefix.is_empty();
    let files = std::iter::once(SKILL_FILE).chain(skill.files().map(|(path, _)| path));
    for path in files {
        let Some(rest) = path.strip_prefix(&prefix) else {
            continue;
        };
        any = true;
        let (name, kind) = match rest.split_once('/') {
            Some((folder, _)) => (folder, EntryKind::Directory),
            None => (rest, EntryKind::File),
        };
        if !children.iter().any(|child| child.name == name) {
            children.push(DirectoryEntry {
                name: name.into(),
                kind,
            });
        }
    }
    children.sort_by(|left, right| left.name.cmp(&right.name));
    any.then_some(children)
}
