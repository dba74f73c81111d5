//! The one place where skillbook opens anything on disk for skills: roots, skill folders and
//! skill files, for discovery and for every reader alike.
//!
//! Everything here works on handles. A root is reached from an *anchor* — a directory the user
//! named (the workspace, the home directory, the parent of an extra root), opened by its path —
//! and then one component at a time, each opened beneath the previous handle without following a
//! symbolic link. A skill folder is reached the same way beneath its root's handle, and its
//! identity (device and inode) is compared with what discovery recorded. A file is opened beneath
//! the verified skill-folder handle, where cap-std (`openat2` with `RESOLVE_BENEATH` where the
//! kernel has it) refuses any link that leaves the folder. Nothing is resolved by path and then
//! trusted, so whatever is swapped in while a read is under way, nothing outside is served.

#![expect(
    clippy::disallowed_methods,
    reason = "the one module that opens anything on disk for skills"
)]

use std::ffi::{OsStr, OsString};
use std::fs;
use std::hash::{BuildHasherDefault, Hasher};
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, Metadata, OpenOptions};

/// Folders never searched by discovery and never served from inside a skill folder.
pub const NEVER_SERVED: [&str; 2] = [".git", "node_modules"];

/// Whether a file name is one of [`NEVER_SERVED`], compared ignoring ASCII case (and trailing
/// dots and spaces, which Windows drops), since case-insensitive file systems — macOS's and
/// Windows' by default, and case-folding folders on Linux — open `.GIT` as `.git`.
#[must_use]
pub fn is_never_served(name: &OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    let trimmed = if cfg!(windows) {
        let end = bytes
            .iter()
            .rposition(|byte| *byte != b'.' && *byte != b' ')
            .map_or(0, |last| last + 1);
        bytes.get(..end).unwrap_or_default()
    } else {
        bytes
    };
    NEVER_SERVED
        .iter()
        .any(|never| trimmed.eq_ignore_ascii_case(never.as_bytes()))
}

/// The longest path a reader looks at; longer ones name nothing inside a skill folder.
pub(crate) const MAX_PATH_BYTES: usize = 4096;

/// Identity of a file or directory: its device and inode, so the same object reached by two
/// paths (overlapping roots, hard links) is recognised, and a replaced one is noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    /// An identity from its parts (for tests).
    #[cfg(test)]
    pub(crate) fn of_parts(device: u64, inode: u64) -> Self {
        FileId { device, inode }
    }

    /// The identity of the file numbered `inode` on the same device as this one.
    pub(crate) fn with_inode(self, inode: u64) -> Self {
        FileId {
            device: self.device,
            inode,
        }
    }

    /// The identity of what `metadata` describes (read from an open handle).
    pub(crate) fn of(metadata: &impl cap_fs_ext::MetadataExt) -> Self {
        FileId {
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }
}

/// A set of file identities, hashed cheaply: device and inode numbers come from the file
/// system, not from the files' contents, so nothing a skill author writes can make them collide
/// (SipHash's protection is not needed, and cost a tenth of a large walk's own CPU).
pub(crate) type FileIdSet = std::collections::HashSet<FileId, BuildHasherDefault<FileIdHasher>>;

/// Mixes the two numbers of a [`FileId`] by multiplication (the Fx hash).
#[derive(Default)]
pub(crate) struct FileIdHasher(u64);

impl Hasher for FileIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u64(&mut self, value: u64) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(SEED);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// How a root is reached: an anchor opened by its path, then components opened one at a time
/// beneath it without following links.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Anchor {
    /// The directory the user named; opened by path (links on the way to it are the user's).
    pub(crate) base: PathBuf,
    /// The components from the base to the root, each a plain file name.
    pub(crate) components: Vec<OsString>,
}

impl Anchor {
    /// A root reached from `base` through the path `relative` (normal components only; anything
    /// else makes the whole path the base).
    pub(crate) fn beneath(base: &Path, relative: &Path) -> Self {
        let mut components = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => components.push(name.to_os_string()),
                Component::CurDir => {}
                _ => return Anchor::of_path(&base.join(relative)),
            }
        }
        Anchor {
            base: base.to_path_buf(),
            components,
        }
    }

    /// A root named by its own path: the parent is the base and the last component is opened
    /// beneath it (the root `/` is its own base).
    pub(crate) fn of_path(path: &Path) -> Self {
        match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => Anchor {
                base: parent.to_path_buf(),
                components: vec![name.to_os_string()],
            },
            _ => Anchor::exactly(path),
        }
    }

    /// A directory opened by its own path, with no component beneath (a followed link's target).
    pub(crate) fn exactly(path: &Path) -> Self {
        Anchor {
            base: path.to_path_buf(),
            components: Vec::new(),
        }
    }

    /// The path the anchor leads to.
    pub(crate) fn path(&self) -> PathBuf {
        let mut path = self.base.clone();
        path.extend(&self.components);
        path
    }
}

/// Why [`open_anchored`] stopped.
#[derive(Debug)]
pub(crate) enum AnchorFailure {
    /// Nothing is there, or something that is not a directory: not a root.
    Absent,
    /// The component at `path` is a symbolic link; `rest` are the components after it.
    Link { path: PathBuf, rest: Vec<OsString> },
    /// The directory at `path` exists but cannot be opened.
    Io { path: PathBuf, source: io::Error },
}

/// Opens the root an anchor leads to: the base by path, then every component beneath the
/// previous handle without following a link.
pub(crate) fn open_anchored(anchor: &Anchor) -> Result<Dir, AnchorFailure> {
    let mut directory = match open_ambient_dir(&anchor.base) {
        Ok(directory) => directory,
        Err(error) if is_absent(&error) => return Err(AnchorFailure::Absent),
        Err(source) => {
            return Err(AnchorFailure::Io {
                path: anchor.base.clone(),
                source,
            });
        }
    };
    let mut path = anchor.base.clone();
    for (position, component) in anchor.components.iter().enumerate() {
        path.push(component);
        directory = match directory.open_dir_nofollow(component) {
            Ok(next) => next,
            Err(error) => {
                return Err(match directory.symlink_metadata(component) {
                    Ok(metadata) if metadata.is_symlink() => AnchorFailure::Link {
                        path,
                        rest: anchor.components[position + 1..].to_vec(),
                    },
                    Ok(metadata) if !metadata.is_dir() => AnchorFailure::Absent,
                    Err(lookup) if is_absent(&lookup) => AnchorFailure::Absent,
                    _ => AnchorFailure::Io {
                        path,
                        source: error,
                    },
                });
            }
        };
    }
    Ok(directory)
}

/// Opens a directory the user named, by its path (following links: they are the user's).
pub(crate) fn open_ambient_dir(path: &Path) -> io::Result<Dir> {
    Dir::open_ambient_dir(path, ambient_authority())
}

/// Opens the directory `name` beneath `parent`, refusing a symbolic link.
pub(crate) fn open_dir_beneath(parent: &Dir, name: &OsStr) -> io::Result<Dir> {
    parent.open_dir_nofollow(name)
}

/// Opens the directory `name` beneath `parent` for listing, refusing a symbolic link. On Linux
/// the handle can be listed directly ([`list_entries`] needs no second open); where that open is
/// refused (no read permission, or no `openat2`) this is [`open_dir_beneath`].
pub(crate) fn open_dir_for_listing(parent: &Dir, name: &OsStr) -> io::Result<Dir> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{Mode, OFlags, ResolveFlags};

        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        if let Ok(descriptor) = rustix::fs::openat2(parent, name, flags, Mode::empty(), resolve) {
            return Ok(Dir::from_std_file(fs::File::from(descriptor)));
        }
    }
    open_dir_beneath(parent, name)
}

/// What a directory entry is, as far as discovery cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    Directory,
    Link,
    Other,
}

/// One entry of a directory: its name, what it is, and the inode number the listing gave for
/// it (`None` where the platform's listing gives none).
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) name: OsString,
    pub(crate) kind: EntryKind,
    pub(crate) inode: Option<u64>,
}

/// A directory's entries, and the error of each entry that could not be read.
pub(crate) type Listing = (Vec<Entry>, Vec<io::Error>);

/// The entries of a directory (without `.` and `..`), unsorted, with the error of each entry
/// that could not be read.
pub(crate) fn list_entries(directory: &Dir) -> io::Result<Listing> {
    #[cfg(target_os = "linux")]
    if let Some(listed) = list_raw(directory) {
        return listed;
    }
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for entry in directory.entries()? {
        match entry.and_then(|entry| Ok((entry.file_name(), entry.file_type()?, inode_of(&entry))))
        {
            Ok((name, file_type, inode)) => entries.push(Entry {
                name,
                kind: kind_of(file_type),
                inode,
            }),
            Err(error) => errors.push(error),
        }
    }
    Ok((entries, errors))
}

/// The inode number a listing gave for `entry`, where the platform has them.
fn inode_of(entry: &cap_std::fs::DirEntry) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirEntryExt;
        Some(entry.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = entry;
        None
    }
}

fn kind_of(file_type: cap_std::fs::FileType) -> EntryKind {
    if file_type.is_dir() {
        EntryKind::Directory
    } else if file_type.is_symlink() {
        EntryKind::Link
    } else {
        EntryKind::Other
    }
}

/// Lists a directory handle opened for reading with `getdents64` on the handle itself; `None`
/// for a handle that cannot be read that way (opened as a path only).
#[cfg(target_os = "linux")]
fn list_raw(directory: &Dir) -> Option<io::Result<Listing>> {
    use std::mem::MaybeUninit;
    use std::os::unix::ffi::OsStrExt;

    use rustix::fs::{FileType, RawDir};
    use rustix::io::Errno;

    let mut buffer = vec![MaybeUninit::<u8>::uninit(); 32 * 1024];
    let mut listing = RawDir::new(directory, &mut buffer);
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    let mut first = true;
    while let Some(entry) = listing.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(Errno::BADF) if first => return None,
            Err(errno) => return Some(Err(errno.into())),
        };
        first = false;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let name = OsStr::from_bytes(name).to_os_string();
        let kind = match entry.file_type() {
            FileType::Directory => EntryKind::Directory,
            FileType::Symlink => EntryKind::Link,
            FileType::Unknown => match directory.symlink_metadata(&name) {
                Ok(metadata) => kind_of(metadata.file_type()),
                Err(error) => {
                    errors.push(error);
                    continue;
                }
            },
            _ => EntryKind::Other,
        };
        entries.push(Entry {
            name,
            kind,
            inode: Some(entry.ino()),
        });
    }
    Some(Ok((entries, errors)))
}

/// Opens the directory at `relative` beneath `root`, one component at a time, refusing every
/// symbolic link on the way. An empty `relative` gives a second handle on `root` itself.
pub(crate) fn open_dir_path(root: &Dir, relative: &Path) -> io::Result<Dir> {
    let mut components = relative
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name),
            _ => None,
        });
    let Some(first) = components.next() else {
        return root.try_clone();
    };
    let mut directory = root.open_dir_nofollow(first)?;
    for name in components {
        directory = directory.open_dir_nofollow(name)?;
    }
    Ok(directory)
}

/// A regular file or something else, opened without blocking.
pub(crate) struct Opened {
    pub(crate) file: fs::File,
    pub(crate) metadata: Metadata,
}

impl Opened {
    fn new(file: File) -> io::Result<Self> {
        let metadata = file.metadata()?;
        Ok(Opened {
            file: file.into_std(),
            metadata,
        })
    }
}

/// Opens `name` in `directory` for reading without following a final symbolic link and
/// without blocking (a FIFO opens at once; the caller inspects [`Opened::metadata`]).
pub(crate) fn open_file_nofollow(directory: &Dir, name: &OsStr) -> io::Result<Opened> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    Opened::new(directory.open_with(name, &options)?)
}

/// Opens the file `name` inside the folder `folder` beneath `parent` in one step, refusing a
/// symbolic link at either, a mount point crossed on the way (so the folder and the file lie
/// on `parent`'s mount), and without blocking, where the platform has such an open (Linux's
/// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV`). `Ok(None)` where
/// it has not: the caller then opens the folder, then the file.
pub(crate) fn open_file_in_child(
    parent: &Dir,
    folder: &OsStr,
    name: &str,
) -> io::Result<Option<Opened>> {
    let mut path = folder.to_os_string();
    path.push("/");
    path.push(name);
    open_in_one_step(parent, &path, true)
}

/// Opens the file at the relative path `relative` beneath `directory` for reading, following
/// no symbolic link at any component (neither a folder on the way nor the file itself) and
/// without blocking (a FIFO opens at once; the caller inspects [`Opened::metadata`]). A link
/// swapped in at any component while the open is under way makes it fail (`ELOOP`, or
/// `ENOTDIR` for a folder opened without following), never lead anywhere.
pub(crate) fn open_file_without_links(directory: &Dir, relative: &Path) -> io::Result<Opened> {
    if let Some(opened) = open_in_one_step(directory, relative.as_os_str(), false)? {
        return Ok(opened);
    }
    open_resolved(directory, relative)
}

/// Opens the relative `path` beneath `parent` in one step, following no symbolic link at any
/// component, crossing no mount point when `same_mount`, and without blocking, where the
/// platform has such an open (Linux's `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`,
/// and `RESOLVE_NO_XDEV`). `Ok(None)` where it has not.
fn open_in_one_step(parent: &Dir, path: &OsStr, same_mount: bool) -> io::Result<Option<Opened>> {
    #[cfg(target_os = "linux")]
    {
        use std::sync::atomic::{AtomicBool, Ordering};

        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use rustix::io::Errno;

        /// Set once the kernel has said it has no `openat2` (before 5.6, or filtered).
        static UNAVAILABLE: AtomicBool = AtomicBool::new(false);
        if UNAVAILABLE.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let mut resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        if same_mount {
            resolve |= ResolveFlags::NO_XDEV;
        }
        match rustix::fs::openat2(parent, path, flags, Mode::empty(), resolve) {
            Ok(descriptor) => Opened::new(File::from_std(fs::File::from(descriptor))).map(Some),
            Err(Errno::NOSYS | Errno::PERM) => {
                UNAVAILABLE.store(true, Ordering::Relaxed);
                Ok(None)
            }
            Err(errno) => Err(errno.into()),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (parent, path, same_mount);
        Ok(None)
    }
}

/// Opens a file by its absolute path, following links, without blocking: only for the target of
/// a skill-file link the user chose to follow, whose identity the caller then checks.
pub(crate) fn open_followed_file(path: &Path) -> io::Result<Opened> {
    let mut options = OpenOptions::new();
    options.read(true).nonblock(true);
    let file = File::open_ambient_with(path, &options, ambient_authority())?;
    Opened::new(file)
}

/// Resolves a link the user chose to follow to the absolute path of its final target.
pub(crate) fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    fs::canonicalize(path)
}

/// Whether cap-std refused an open because it would leave the directory it was opened beneath.
///
/// cap-std reports every escape (including `openat2`'s `EXDEV`) as a `PermissionDenied` error
/// that carries no operating-system code; a real `EACCES` carries one.
pub(crate) fn is_escape(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::PermissionDenied && error.raw_os_error().is_none()
}

/// Whether an error means nothing (or not a directory) is at the path.
pub(crate) fn is_absent(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// Why [`open_verified`] refused a root.
#[derive(Debug)]
pub(crate) enum VerifyFailure {
    /// Nothing, a link, or another directory than the one recorded is there now.
    Changed,
    /// The directory is there but cannot be opened or inspected.
    Io(io::Error),
}

/// Opens the root an anchor leads to and checks that it is the directory `id` names.
pub(crate) fn open_verified(anchor: &Anchor, id: FileId) -> Result<Dir, VerifyFailure> {
    let directory = match open_anchored(anchor) {
        Ok(directory) => directory,
        Err(AnchorFailure::Io { source, .. }) => return Err(VerifyFailure::Io(source)),
        Err(AnchorFailure::Absent | AnchorFailure::Link { .. }) => {
            return Err(VerifyFailure::Changed);
        }
    };
    verify(directory, id)
}

/// Keeps `directory` only when it is the one `id` names.
pub(crate) fn verify(directory: Dir, id: FileId) -> Result<Dir, VerifyFailure> {
    let metadata = directory.dir_metadata().map_err(VerifyFailure::Io)?;
    if FileId::of(&metadata) == id {
        Ok(directory)
    } else {
        Err(VerifyFailure::Changed)
    }
}

/// The most symbolic links followed while resolving one path inside a skill folder.
const MAX_LINKS: usize = 40;

/// Why [`resolve_beneath`] refused a path.
#[derive(Debug)]
pub(crate) enum Resolve {
    /// A link leads out of the directory, or the path enters a folder that is never served.
    Escape,
    /// Too many links in a row.
    TooManyLinks,
}

/// Resolves `relative` beneath `directory` the way the kernel would, but lexically and one
/// component at a time: each symbolic link is read and replaced by its target, which must stay
/// beneath `directory` and out of the [`NEVER_SERVED`] folders. The result holds no link (at the
/// moment it was resolved) and is opened with [`open_resolved`], which follows none, so a link
/// swapped in afterwards makes the open fail instead of leading anywhere.
///
/// Components that do not exist are kept as they are; opening them says they are missing.
pub(crate) fn resolve_beneath(directory: &Dir, relative: &Path) -> Result<PathBuf, Resolve> {
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, relative)?;
    pending.reverse();
    let mut resolved = PathBuf::new();
    let mut links = 0;
    while let Some(name) = pending.pop() {
        if is_never_served(&name) {
            return Err(Resolve::Escape);
        }
        let candidate = resolved.join(&name);
        let is_link = directory
            .symlink_metadata(&candidate)
            .is_ok_and(|metadata| metadata.is_symlink());
        if !is_link {
            resolved = candidate;
            continue;
        }
        links += 1;
        if links > MAX_LINKS {
            return Err(Resolve::TooManyLinks);
        }
        let target = directory
            .read_link_contents(&candidate)
            .map_err(|_| Resolve::Escape)?;
        if target.has_root() {
            return Err(Resolve::Escape);
        }
        // The rest of the path now follows the link's target, from the link's folder.
        let mut rest: Vec<OsString> = Vec::new();
        push_components(&mut rest, &resolved.join(target))?;
        resolved = PathBuf::new();
        pending.extend(rest.into_iter().rev());
    }
    Ok(resolved)
}

/// Appends the normal components of `path` to `stack`, applying `.` and `..` lexically; a `..`
/// above the start is an escape.
fn push_components(stack: &mut Vec<OsString>, path: &Path) -> Result<(), Resolve> {
    for component in path.components() {
        match component {
            Component::Normal(name) => stack.push(name.to_os_string()),
            Component::CurDir => {}
            Component::ParentDir => {
                stack.pop().ok_or(Resolve::Escape)?;
            }
            Component::RootDir | Component::Prefix(_) => return Err(Resolve::Escape),
        }
    }
    Ok(())
}

/// Opens a link-free `relative` path beneath `directory`: every folder on the way and the file
/// itself without following a link, and without blocking.
pub(crate) fn open_resolved(directory: &Dir, relative: &Path) -> io::Result<Opened> {
    let (Some(parent), Some(name)) = (relative.parent(), relative.file_name()) else {
        return Err(io::Error::from(io::ErrorKind::IsADirectory));
    };
    if parent.as_os_str().is_empty() {
        return open_file_nofollow(directory, name);
    }
    let folder = open_dir_path(directory, parent)?;
    open_file_nofollow(&folder, name)
}

/// Whether anything — a file, a folder, a special file — is at `relative` beneath `directory`,
/// with links resolved only while they stay beneath it ([`resolve_beneath`]); nothing is opened.
/// An empty `relative` is `directory` itself. A lookup that fails for another reason than
/// absence (permissions, a name too long) counts as present: only what is surely missing is
/// reported missing.
///
/// # Errors
///
/// [`Resolve::Escape`] when a link on the way leads out of `directory` (also one swapped in
/// after resolving), or the path enters a folder that is never served;
/// [`Resolve::TooManyLinks`] for a chain of links too long to follow.
#[cfg(feature = "check")]
pub(crate) fn exists_beneath(directory: &Dir, relative: &Path) -> Result<bool, Resolve> {
    let resolved = resolve_beneath(directory, relative)?;
    if resolved.as_os_str().is_empty() {
        return Ok(true);
    }
    match directory.symlink_metadata(&resolved) {
        Ok(_) => Ok(true),
        Err(error) if is_escape(&error) => Err(Resolve::Escape),
        Err(error) => Ok(!is_absent(&error)),
    }
}

/// Opens a file the user named by its path, without blocking (a FIFO opens at once; the caller
/// inspects [`Opened::metadata`]); follows a final link only when asked.
#[cfg(feature = "check")]
pub(crate) fn open_named_file(path: &Path, follow_link: bool) -> io::Result<Opened> {
    let mut options = OpenOptions::new();
    options.read(true).nonblock(true).follow(if follow_link {
        FollowSymlinks::Yes
    } else {
        FollowSymlinks::No
    });
    Opened::new(File::open_ambient_with(
        path,
        &options,
        ambient_authority(),
    )?)
}
