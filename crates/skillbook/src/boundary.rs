//! The read boundary ([`ReadBoundary`]): the roots a read may reach, and the one way files open.

mod error;
mod listing;
pub(crate) mod open;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use cap_fs_ext::{
    FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt, OpenOptionsSyncExt,
};
use cap_std::fs::{Dir, FileType, OpenOptions};

use crate::paths;

pub use error::BoundaryError;
pub use listing::{DirectoryEntry, EntryKind};
pub use open::{NEVER_SERVED, is_never_served};

use open::{is_absent, is_escape};

/// The set of directories a read may reach, with a handle opened beneath each.
///
/// A boundary holds a handle to each readable root, opened once when the boundary is built.
/// Every read opens its file *beneath* one of those handles, so the kernel (through cap-std,
/// which uses `openat2` with `RESOLVE_BENEATH` where available) refuses any path or symbolic
/// link that would leave the root, including a link swapped in while the open is under way.
/// Paths are never canonicalised and then compared.
///
/// ```no_run
/// use skillbook::ReadBoundary;
/// use std::path::Path;
///
/// # fn main() -> Result<(), skillbook::BoundaryError> {
/// let boundary = ReadBoundary::new("/work/project", ["/home/me/.agents/skills"])?;
/// let file = boundary.open(Path::new("/home/me/.agents/skills/pdf/SKILL.md"))?;
/// assert!(file.size() > 0);
/// assert!(!boundary.is_writable(Path::new("/home/me/.agents/skills/pdf/SKILL.md")));
/// # Ok(())
/// # }
/// ```
///
/// The rules, in the order they are applied to a path:
///
/// 1. A path holding a NUL byte is refused ([`BoundaryError::NulByte`]). Nothing is decoded:
///    `%2e%2e` and backslashes are ordinary characters of a file name on Unix, so such paths
///    simply do not exist.
/// 2. A relative path is joined to the *base*: the workspace in a normal boundary, the first root
///    in a restricted one. The result is normalised lexically (`.` and `..` removed without
///    touching the disk).
/// 3. The normalised path picks its root: the most specific root it lies in. A path in no root
///    gets [`BoundaryError::OutsideBoundary`], whose message is the same whether or not the file
///    exists.
/// 4. The rest of the path is opened beneath that root's handle. A symbolic link that stays
///    inside the root is followed; one that leaves it (an absolute target, or too many `..`) is
///    refused with the same outside error, also when it is swapped in during the open.
/// 5. The opened handle is inspected (`fstat`): a directory gets [`BoundaryError::IsDirectory`],
///    a FIFO, socket or device gets [`BoundaryError::NotRegularFile`]. Files are opened
///    non-blocking, so a FIFO is refused at once instead of waiting for a writer.
///
/// Roots are made absolute and normalised lexically when the boundary is built; a root listed
/// twice is used once. **A root that does not exist, or is not a directory, is skipped**, not an
/// error: paths inside it are outside the boundary. A root created after the boundary was built is
/// not readable until a new boundary is built.
///
/// A hard link is the file itself, not a path to it: a hard link placed inside a root reads like
/// any other file there. Only whoever can write inside a root can make one.
#[derive(Debug)]
pub struct ReadBoundary {
    roots: Vec<Root>,
    base: Option<PathBuf>,
    restricted: bool,
}

/// One readable directory and its handle.
#[derive(Debug)]
struct Root {
    path: PathBuf,
    directory: Dir,
    access: Access,
}

/// What a root allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// The workspace of a normal boundary: readable, and writable by hosts that write.
    ReadWrite,
    /// A skill root: read-only.
    ReadOnly,
}

/// Where a path falls inside the boundary.
struct Location<'boundary> {
    root: &'boundary Root,
    absolute: PathBuf,
    relative: PathBuf,
}

/// A regular file opened beneath a root of a [`ReadBoundary`].
#[derive(Debug)]
pub struct BoundaryFile {
    path: PathBuf,
    size: u64,
    file: fs::File,
}

impl BoundaryFile {
    /// The absolute, lexically normalised path the file was opened at.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The size of the file in bytes when it was opened.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The open file, for reading.
    #[must_use]
    pub fn into_file(self) -> fs::File {
        self.file
    }
}

impl ReadBoundary {
    /// A normal boundary: reads allowed inside `workspace` and inside each of `roots`.
    ///
    /// Only the workspace is writable (see [`ReadBoundary::is_writable`]); skill roots are
    /// read-only. Relative paths given to [`ReadBoundary::open`] resolve against the workspace.
    /// A relative workspace is made absolute against the process's current directory; relative
    /// roots resolve against the workspace.
    ///
    /// # Errors
    ///
    /// [`BoundaryError::Root`] when the current directory is needed and unknown, or when the
    /// workspace or a root exists but cannot be opened (for example for lack of permission).
    /// A workspace or root that does not exist is skipped, not an error.
    pub fn new<W, I, P>(workspace: W, roots: I) -> Result<Self, BoundaryError>
    where
        W: AsRef<Path>,
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let workspace = absolute(workspace.as_ref())?;
        let mut boundary = Self {
            roots: Vec::new(),
            base: Some(workspace.clone()),
            restricted: false,
        };
        boundary.add_root(workspace.clone(), Access::ReadWrite)?;
        for root in roots {
            boundary.add_root(
                paths::absolute_against(&workspace, root.as_ref()),
                Access::ReadOnly,
            )?;
        }
        Ok(boundary)
    }

    /// A normal boundary over what discovery found: the workspace, and every read root of
    /// `found` reached again as discovery reached it (from the directory the user named, one
    /// component at a time, without following a link) and checked to be the directory
    /// discovery searched. A root that is no longer there, or is another directory now, is left
    /// out (and logged): paths inside it are outside the boundary.
    ///
    /// # Errors
    ///
    /// [`BoundaryError::Root`] when the current directory is needed and unknown, or when the
    /// workspace exists but cannot be opened.
    pub fn discovered(
        workspace: impl AsRef<Path>,
        found: &crate::Discovered,
    ) -> Result<Self, BoundaryError> {
        let workspace = absolute(workspace.as_ref())?;
        let mut boundary = Self {
            roots: Vec::new(),
            base: Some(workspace.clone()),
            restricted: false,
        };
        boundary.add_root(workspace, Access::ReadWrite)?;
        for record in found.root_records() {
            if boundary.roots.iter().any(|root| root.path == record.path) {
                continue;
            }
            match open::open_verified(&record.anchor, record.id) {
                Ok(directory) => boundary.roots.push(Root {
                    path: record.path.clone(),
                    directory,
                    access: Access::ReadOnly,
                }),
                Err(failure) => tracing::warn!(
                    root = %record.path.display(),
                    "a skill root is left out of the read boundary: {failure:?}"
                ),
            }
        }
        Ok(boundary)
    }

    /// A restricted boundary: reads allowed only inside `roots`; no workspace at all.
    ///
    /// Relative paths given to [`ReadBoundary::open`] resolve against the first root that exists.
    /// With no roots (or none that exists) every read fails with
    /// [`BoundaryError::OutsideBoundary`]. Relative roots are made absolute against the process's
    /// current directory. Nothing is writable.
    ///
    /// # Errors
    ///
    /// [`BoundaryError::Root`] when the current directory is needed and unknown, or when a root
    /// exists but cannot be opened. A root that does not exist is skipped, not an error.
    pub fn restricted<I, P>(roots: I) -> Result<Self, BoundaryError>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut boundary = Self::nothing_readable();
        for root in roots {
            boundary.add_root(absolute(root.as_ref())?, Access::ReadOnly)?;
        }
        boundary.base = boundary.roots.first().map(|root| root.path.clone());
        Ok(boundary)
    }

    /// A restricted boundary with no roots yet.
    fn nothing_readable() -> Self {
        Self {
            roots: Vec::new(),
            base: None,
            restricted: true,
        }
    }

    /// Whether this is a restricted boundary (skill roots only, no workspace).
    #[must_use]
    pub fn is_restricted(&self) -> bool {
        self.restricted
    }

    /// The workspace of a normal boundary, if it exists; `None` when restricted.
    #[must_use]
    pub fn workspace(&self) -> Option<&Path> {
        self.roots
            .iter()
            .find(|root| root.access == Access::ReadWrite)
            .map(|root| root.path.as_path())
    }

    /// The read-only skill roots that exist, in the order given.
    pub fn skill_roots(&self) -> impl Iterator<Item = &Path> {
        self.roots
            .iter()
            .filter(|root| root.access == Access::ReadOnly)
            .map(|root| root.path.as_path())
    }

    /// The directory relative paths resolve against: the workspace, or the first root when
    /// restricted. `None` for a restricted boundary without roots.
    #[must_use]
    pub fn base(&self) -> Option<&Path> {
        self.base.as_deref()
    }

    /// Whether a host may write at `path`: only inside the workspace of a normal boundary, and not
    /// inside a skill root that lies within the workspace.
    ///
    /// This is lexical knowledge for hosts with write tools; it does not touch the disk, so a
    /// writer must still open beneath the workspace rather than by path.
    #[must_use]
    pub fn is_writable(&self, path: &Path) -> bool {
        self.locate(path)
            .is_ok_and(|location| location.root.access == Access::ReadWrite)
    }

    /// The absolute, lexically normalised form of `path`, if it lies inside the boundary.
    ///
    /// This does not touch the disk: a path that passes may still be refused by
    /// [`ReadBoundary::open`] (for example because a symbolic link on the way leaves its root).
    ///
    /// # Errors
    ///
    /// [`BoundaryError::NulByte`] or [`BoundaryError::OutsideBoundary`].
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, BoundaryError> {
        self.locate(path).map(|location| location.absolute)
    }

    /// Opens the regular file at `path` for reading, beneath the root it belongs to.
    ///
    /// `path` is absolute or relative to [`ReadBoundary::base`]; see the type's rules.
    ///
    /// # Errors
    ///
    /// - [`BoundaryError::NulByte`] for a path holding a NUL byte;
    /// - [`BoundaryError::OutsideBoundary`] for a path outside every root or a symbolic link
    ///   leaving its root;
    /// - [`BoundaryError::NotFound`] when nothing exists there;
    /// - [`BoundaryError::IsDirectory`] and [`BoundaryError::NotRegularFile`] for anything that
    ///   is not a regular file (never blocking on a FIFO);
    /// - [`BoundaryError::Io`] for other failures of the operating system.
    pub fn open(&self, path: &Path) -> Result<BoundaryFile, BoundaryError> {
        let location = self.locate(path)?;
        open_beneath(location)
    }

    /// Opens the regular file at `path` for reading, beneath the root it belongs to, following
    /// no symbolic link at all: neither the file itself nor any folder on the way, even one
    /// that stays inside the root. A link swapped in at any component while the open is under
    /// way makes the open fail instead of leading anywhere (on Linux, one `openat2` with
    /// `RESOLVE_NO_SYMLINKS`; elsewhere each folder is opened without following, then the
    /// file). Like [`ReadBoundary::open`], a FIFO is refused at once, never waited on.
    ///
    /// This is for hosts that promise never to follow a link, such as a `file://` object-store
    /// prefix; [`ReadBoundary::open`] follows a link while it stays inside its root.
    ///
    /// # Errors
    ///
    /// As [`ReadBoundary::open`], and [`BoundaryError::Io`] saying so when the file or a
    /// folder on the way is a symbolic link.
    pub fn open_nofollow(&self, path: &Path) -> Result<BoundaryFile, BoundaryError> {
        let location = self.locate(path)?;
        let opened =
            match open::open_file_without_links(&location.root.directory, location.target()) {
                Ok(opened) => opened,
                Err(error) => {
                    return Err(location.link_refusal().unwrap_or_else(|| {
                        open_failure(
                            location.root,
                            location.target(),
                            location.absolute.clone(),
                            error,
                        )
                    }));
                }
            };
        check_regular(opened.metadata.file_type(), location.absolute.clone())?;
        Ok(BoundaryFile {
            path: location.absolute,
            size: opened.metadata.len(),
            file: opened.file,
        })
    }

    /// Picks the most specific root `path` lies in.
    fn locate(&self, path: &Path) -> Result<Location<'_>, BoundaryError> {
        if has_nul(path) {
            return Err(BoundaryError::NulByte);
        }
        let absolute = match (&self.base, path.is_absolute()) {
            (_, true) => paths::absolute_against(Path::new("/"), path),
            (Some(base), false) => paths::absolute_against(base, path),
            (None, false) => return Err(BoundaryError::OutsideBoundary),
        };
        let (root, relative) = self
            .roots
            .iter()
            .filter_map(|root| Some((root, absolute.strip_prefix(&root.path).ok()?)))
            .max_by_key(|(root, _)| root.path.components().count())
            .ok_or(BoundaryError::OutsideBoundary)?;
        let relative = relative.to_path_buf();
        Ok(Location {
            root,
            absolute,
            relative,
        })
    }

    /// Opens the handle of a root, skipping roots that are missing, not directories, or already
    /// present.
    fn add_root(&mut self, path: PathBuf, access: Access) -> Result<(), BoundaryError> {
        if self.roots.iter().any(|root| root.path == path) {
            return Ok(());
        }
        match open::open_ambient_dir(&path) {
            Ok(directory) => {
                self.roots.push(Root {
                    path,
                    directory,
                    access,
                });
                Ok(())
            }
            Err(error) if is_absent(&error) => {
                tracing::debug!(root = %path.display(), "skipping a read root that does not exist");
                Ok(())
            }
            Err(source) => Err(BoundaryError::Root { path, source }),
        }
    }
}

/// Why an open or a listing that follows no link was refused: the file or a folder on its way
/// is a symbolic link.
const LINK_ON_THE_WAY: &str =
    "it, or a folder on its way, is a symbolic link, and links are not followed here";

impl Location<'_> {
    /// The path beneath the root, `.` for the root itself.
    fn target(&self) -> &Path {
        if self.relative.as_os_str().is_empty() {
            Path::new(".")
        } else {
            self.relative.as_path()
        }
    }

    /// The error for an open or a listing that follows no link and failed, when a component of
    /// the path (a folder on the way, or the last one) is a symbolic link now; `None` when none
    /// is. Only to word the error: nothing is opened or decided by it.
    fn link_refusal(&self) -> Option<BoundaryError> {
        let is_link = |prefix: &Path| {
            !prefix.as_os_str().is_empty()
                && self
                    .root
                    .directory
                    .symlink_metadata(prefix)
                    .is_ok_and(|metadata| metadata.is_symlink())
        };
        self.relative
            .ancestors()
            .any(is_link)
            .then(|| BoundaryError::Io {
                path: self.absolute.clone(),
                source: io::Error::other(LINK_ON_THE_WAY),
            })
    }
}

/// The one place a file is opened: beneath the handle of the root the path belongs to.
fn open_beneath(location: Location<'_>) -> Result<BoundaryFile, BoundaryError> {
    let Location {
        root,
        absolute,
        relative,
    } = location;
    let target = if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative.as_path()
    };
    let mut options = OpenOptions::new();
    options
        .read(true)
        .follow(FollowSymlinks::Yes)
        .nonblock(true)
        .maybe_dir(true);
    let file = match root.directory.open_with(target, &options) {
        Ok(file) => file,
        Err(error) => return Err(open_failure(root, target, absolute, error)),
    };
    let metadata = match file.metadata() {
        Ok(metadata) => metadata,
        Err(source) => {
            return Err(BoundaryError::Io {
                path: absolute,
                source,
            });
        }
    };
    check_regular(metadata.file_type(), absolute.clone())?;
    Ok(BoundaryFile {
        path: absolute,
        size: metadata.len(),
        file: file.into_std(),
    })
}

/// Turns a failed open into the error a reader can act on.
fn open_failure(root: &Root, target: &Path, path: PathBuf, error: io::Error) -> BoundaryError {
    if is_escape(&error) {
        return BoundaryError::OutsideBoundary;
    }
    match error.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => BoundaryError::NotFound {
            path,
            suggestion: None,
        },
        io::ErrorKind::IsADirectory => BoundaryError::IsDirectory { path },
        // Opening a socket fails (`ENXIO`) before there is a handle to inspect; look at what is
        // there, beneath the same root, only to word the error.
        _ => match root.directory.metadata(target) {
            Ok(metadata) => match check_regular(metadata.file_type(), path.clone()) {
                Err(refusal) => refusal,
                Ok(()) => BoundaryError::Io {
                    path,
                    source: error,
                },
            },
            Err(_) => BoundaryError::Io {
                path,
                source: error,
            },
        },
    }
}

/// Refuses anything but a regular file.
pub(crate) fn check_regular(file_type: FileType, path: PathBuf) -> Result<(), BoundaryError> {
    if file_type.is_file() {
        Ok(())
    } else if file_type.is_dir() {
        Err(BoundaryError::IsDirectory { path })
    } else {
        Err(BoundaryError::NotRegularFile {
            path,
            kind: special_kind(file_type),
        })
    }
}

/// Names a special file's type in words.
#[cfg(unix)]
fn special_kind(file_type: FileType) -> &'static str {
    use cap_std::fs::FileTypeExt;
    if file_type.is_fifo() {
        "FIFO (named pipe)"
    } else if file_type.is_socket() {
        "socket"
    } else if file_type.is_char_device() {
        "character device"
    } else if file_type.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Names a special file's type in words.
#[cfg(not(unix))]
fn special_kind(_file_type: FileType) -> &'static str {
    "special file"
}

/// Makes a root absolute (against the current directory when relative) and normalises it.
fn absolute(path: &Path) -> Result<PathBuf, BoundaryError> {
    let absolute = std::path::absolute(path).map_err(|source| BoundaryError::Root {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(paths::absolute_against(Path::new("/"), &absolute))
}

/// Whether `path` holds a NUL byte, which no file name can hold.
fn has_nul(path: &Path) -> bool {
    path.as_os_str().as_encoded_bytes().contains(&0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> tempfile::TempDir {
        let temporary = tempfile::tempdir().unwrap();
        let top = temporary.path();
        fs::create_dir_all(top.join("ws/.skillbook/skills/pdf")).unwrap();
        fs::create_dir_all(top.join("home-skills/docx")).unwrap();
        fs::write(top.join("ws/notes.md"), "notes").unwrap();
        fs::write(top.join("ws/.skillbook/skills/pdf/SKILL.md"), "pdf").unwrap();
        fs::write(top.join("home-skills/docx/SKILL.md"), "docx").unwrap();
        temporary
    }

    #[test]
    fn the_most_specific_root_wins_and_only_the_workspace_is_writable() {
        let temporary = tree();
        let top = temporary.path();
        let skills = top.join("ws/.skillbook/skills");
        let boundary =
            ReadBoundary::new(top.join("ws"), [&skills, &top.join("home-skills")]).unwrap();
        assert!(boundary.is_writable(&top.join("ws/notes.md")));
        assert!(boundary.is_writable(Path::new("new/file.md")));
        assert!(!boundary.is_writable(&skills.join("pdf/SKILL.md")));
        assert!(!boundary.is_writable(&top.join("home-skills/docx/SKILL.md")));
        assert!(!boundary.is_writable(&top.join("elsewhere")));
        let location = boundary.locate(&skills.join("pdf/SKILL.md")).unwrap();
        assert_eq!(location.root.path, skills);
        assert_eq!(location.relative, PathBuf::from("pdf/SKILL.md"));
    }

    #[test]
    fn missing_roots_are_skipped_and_duplicates_kept_once() {
        let temporary = tree();
        let top = temporary.path();
        let docx = top.join("home-skills");
        let boundary =
            ReadBoundary::restricted([top.join("missing"), docx.clone(), docx.join(".")]).unwrap();
        assert_eq!(boundary.skill_roots().collect::<Vec<_>>(), [docx.as_path()]);
        assert_eq!(boundary.base(), Some(docx.as_path()));
        assert_eq!(boundary.open(Path::new("docx/SKILL.md")).unwrap().size(), 4);
    }

    #[test]
    fn restricted_without_roots_refuses_everything() {
        let boundary = ReadBoundary::restricted(Vec::<PathBuf>::new()).unwrap();
        assert!(boundary.base().is_none());
        for path in ["SKILL.md", "/etc/hostname", ""] {
            assert!(matches!(
                boundary.open(Path::new(path)),
                Err(BoundaryError::OutsideBoundary)
            ));
        }
    }

    #[test]
    fn a_root_itself_is_a_directory() {
        let temporary = tree();
        let boundary = ReadBoundary::restricted([temporary.path().join("home-skills")]).unwrap();
        assert!(matches!(
            boundary.open(Path::new("")),
            Err(BoundaryError::IsDirectory { .. })
        ));
        assert!(matches!(
            boundary.open(Path::new("docx")),
            Err(BoundaryError::IsDirectory { .. })
        ));
    }

    /// `open_nofollow` refuses a link at every component, also one that stays inside the root,
    /// where `open` follows it; a FIFO is refused at once.
    #[cfg(unix)]
    #[test]
    fn open_nofollow_refuses_a_link_at_any_component() {
        let temporary = tree();
        let root = temporary.path().join("home-skills");
        fs::create_dir_all(root.join("docx/refs")).unwrap();
        fs::write(root.join("docx/refs/forms.md"), "forms").unwrap();
        std::os::unix::fs::symlink("SKILL.md", root.join("docx/link.md")).unwrap();
        std::os::unix::fs::symlink("refs", root.join("docx/inside")).unwrap();
        std::os::unix::fs::symlink("docx", root.join("alias")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(root.join("docx/pipe"))
            .status()
            .unwrap();
        assert!(status.success());
        let boundary = ReadBoundary::restricted([&root]).unwrap();
        assert_eq!(
            boundary
                .open_nofollow(&root.join("docx/refs/forms.md"))
                .unwrap()
                .size(),
            5
        );
        for path in ["docx/link.md", "docx/inside/forms.md", "alias/SKILL.md"] {
            assert!(boundary.open(Path::new(path)).is_ok(), "{path}");
            let error = boundary.open_nofollow(Path::new(path)).unwrap_err();
            assert!(
                matches!(error, BoundaryError::Io { .. })
                    && error.to_string().contains("is a symbolic link"),
                "{path}: {error}"
            );
        }
        assert!(matches!(
            boundary.open_nofollow(Path::new("docx/pipe")),
            Err(BoundaryError::NotRegularFile { .. })
        ));
        assert!(matches!(
            boundary.open_nofollow(Path::new("docx/missing.md")),
            Err(BoundaryError::NotFound { .. })
        ));
        assert!(matches!(
            boundary.open_nofollow(Path::new("docx")),
            Err(BoundaryError::IsDirectory { .. })
        ));
        assert!(matches!(
            boundary.open_nofollow(Path::new("")),
            Err(BoundaryError::IsDirectory { .. })
        ));
    }

    #[test]
    fn a_file_used_as_a_directory_is_not_found() {
        let temporary = tree();
        let boundary = ReadBoundary::restricted([temporary.path().join("home-skills")]).unwrap();
        assert!(matches!(
            boundary.open(Path::new("docx/SKILL.md/more")),
            Err(BoundaryError::NotFound { .. })
        ));
    }
}
