//! Listing a directory beneath a root of a [`ReadBoundary`], for hosts that serve every file of
//! a skill (an MCP server's resource list) rather than one file at a time.

use std::ffi::OsString;
use std::io;
use std::path::Path;

use cap_std::fs::FileType;

use super::open::{is_escape, open_dir_path};
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
    /// `path` is refused when it holds a NUL byte or lies outside every root, as for
    /// [`ReadBoundary::open`], and no symbolic link is followed on the way to it, not even one
    /// that stays inside the root: every folder is opened beneath the previous one without
    /// following (as [`ReadBoundary::open_nofollow`] does), so a link swapped in while the
    /// listing is under way makes it fail rather than list another folder. The entries
    /// themselves are not followed either: a link is listed as [`EntryKind::Symlink`].
    ///
    /// # Errors
    ///
    /// - [`BoundaryError::NulByte`] and [`BoundaryError::OutsideBoundary`] as for `open`;
    /// - [`BoundaryError::NotFound`] when nothing exists there;
    /// - [`BoundaryError::Io`] when `path` is not a directory, when it or a folder on the way
    ///   is a symbolic link (saying so), or when listing it fails.
    pub fn list_directory(&self, path: &Path) -> Result<Vec<DirectoryEntry>, BoundaryError> {
        let location = self.locate(path)?;
        let failure = |source: io::Error| {
            if is_escape(&source) {
                BoundaryError::OutsideBoundary
            } else if source.kind() == io::ErrorKind::NotFound {
                BoundaryError::NotFound {
                    path: location.absolute.clone(),
                    suggestion: None,
                }
            } else {
                BoundaryError::Io {
                    path: location.absolute.clone(),
                    source,
                }
            }
        };
        let directory = match open_dir_path(&location.root.directory, &location.relative) {
            Ok(directory) => directory,
            Err(error) => return Err(location.link_refusal().unwrap_or_else(|| failure(error))),
        };
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
        for path in [skill.join(".."), "/etc".into()] {
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

    /// A link to a folder is never listed through, even one that stays inside the root, and
    /// neither is a folder reached through one.
    #[cfg(unix)]
    #[test]
    fn no_link_is_followed_on_the_way_to_a_listed_folder() {
        let temporary = tempfile::tempdir().unwrap();
        let root = temporary.path().join("root");
        fs::create_dir_all(root.join("skill/refs")).unwrap();
        fs::write(root.join("skill/refs/a.md"), "a").unwrap();
        std::os::unix::fs::symlink("refs", root.join("skill/inside")).unwrap();
        std::os::unix::fs::symlink("skill", root.join("alias")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("skill/outside")).unwrap();
        let boundary = ReadBoundary::restricted([&root]).unwrap();
        assert_eq!(
            boundary.list_directory(&root.join("skill/refs")).unwrap(),
            [entry("a.md", EntryKind::File)]
        );
        for path in ["skill/inside", "alias/refs", "skill/outside"] {
            let error = boundary.list_directory(&root.join(path)).unwrap_err();
            assert!(
                matches!(error, BoundaryError::Io { .. })
                    && error.to_string().contains("is a symbolic link"),
                "{path}: {error}"
            );
        }
    }
}
