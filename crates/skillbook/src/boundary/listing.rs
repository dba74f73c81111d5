//! Listing a directory beneath a root of a [`ReadBoundary`], for hosts that serve every file of
//! a skill (an MCP server's resource list) rather than one file at a time.

use std::ffi::OsString;
use std::io;
use std::path::Path;

use cap_std::fs::FileType;

use super::open::is_escape;
use super::{BoundaryError, ReadBoundary};

/// What a listed entry is. Symbolic links are reported as links, never followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link; open it through the boundary to learn whether it stays inside.
    Symlink,
    /// A FIFO, socket or device: never opened.
    Special,
}

impl EntryKind {
    /// The kind of an entry of this type (links not followed).
    pub(crate) fn of(file_type: FileType) -> Self {
        if file_type.is_symlink() {
            EntryKind::Symlink
        } else if file_type.is_dir() {
            EntryKind::Directory
        } else if file_type.is_file() {
            EntryKind::File
        } else {
            EntryKind::Special
        }
    }
}

/// One entry of a directory listed by [`ReadBoundary::list_directory`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DirectoryEntry {
    /// The entry's file name (not a path).
    pub name: OsString,
    /// What the entry is, without following a symbolic link.
    pub kind: EntryKind,
}

impl ReadBoundary {
    /// Lists the directory at `path`, beneath the root it belongs to, sorted by name.
    ///
    /// `path` follows the same rules as [`ReadBoundary::open`]: it is refused when it holds a NUL
    /// byte or lies outside every root, and a symbolic link on the way may be followed only while
    /// it stays inside its root. The entries themselves are not followed: a link is listed as
    /// [`EntryKind::Symlink`], and a caller that wants its target opens it through the boundary.
    ///
    /// # Errors
    ///
    /// - [`BoundaryError::NulByte`] and [`BoundaryError::OutsideBoundary`] as for `open`;
    /// - [`BoundaryError::NotFound`] when nothing exists there;
    /// - [`BoundaryError::Io`] when `path` is not a directory, or listing it fails.
    pub fn list_directory(&self, path: &Path) -> Result<Vec<DirectoryEntry>, BoundaryError> {
        let location = self.locate(path)?;
        let target = if location.relative.as_os_str().is_empty() {
            Path::new(".")
        } else {
            location.relative.as_path()
        };
        let failure = |source: io::Error| {
            if is_escape(&source) {
                BoundaryError::OutsideBoundary
            } else if source.kind() == io::ErrorKind::NotFound {
                BoundaryError::NotFound {
                    path: location.absolute.clone(),
                }
            } else {
                BoundaryError::Io {
                    path: location.absolute.clone(),
                    source,
                }
            }
        };
        let directory = location.root.directory.open_dir(target).map_err(failure)?;
        let mut entries = Vec::new();
        for entry in directory.entries().map_err(failure)? {
            let entry = entry.map_err(failure)?;
            let kind = EntryKind::of(entry.file_type().map_err(failure)?);
            entries.push(DirectoryEntry {
                name: entry.file_name(),
                kind,
            });
        }
        entries.sort_by(|left, right| left.name.cmp(&right.name));
        Ok(entries)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;
    use std::fs;

    fn entry(name: &str, kind: EntryKind) -> DirectoryEntry {
        DirectoryEntry {
            name: name.into(),
            kind,
        }
    }

    #[cfg(unix)]
    #[test]
    fn entries_are_sorted_and_links_are_not_followed() {
        let temporary = tempfile::tempdir().unwrap();
        let skill = temporary.path().join("skill");
        fs::create_dir_all(skill.join("refs")).unwrap();
        fs::write(skill.join("SKILL.md"), "x").unwrap();
        std::os::unix::fs::symlink("/etc", skill.join("outside")).unwrap();
        let boundary = ReadBoundary::restricted([&skill]).unwrap();
        assert_eq!(
            boundary.list_directory(&skill).unwrap(),
            [
                entry("SKILL.md", EntryKind::File),
                entry("outside", EntryKind::Symlink),
                entry("refs", EntryKind::Directory),
            ]
        );
        assert_eq!(boundary.list_directory(&skill.join("refs")).unwrap(), []);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_that_leaves_or_a_path_outside_is_refused() {
        let temporary = tempfile::tempdir().unwrap();
        let skill = temporary.path().join("skill");
        fs::create_dir_all(&skill).unwrap();
        std::os::unix::fs::symlink("/etc", skill.join("outside")).unwrap();
        let boundary = ReadBoundary::restricted([&skill]).unwrap();
        for path in [skill.join("outside"), skill.join(".."), "/etc".into()] {
            assert!(
                matches!(
                    boundary.list_directory(&path),
                    Err(BoundaryError::OutsideBoundary)
                ),
                "{}",
                path.display()
            );
        }
        assert!(matches!(
            boundary.list_directory(&skill.join("missing")),
            Err(BoundaryError::NotFound { .. })
        ));
    }
}
