//! Opening a located file of a skill: from memory, or beneath the skill's verified folder
//! (SPEC §5.1), and wording what went wrong as this reader names files.

use std::io;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;

use crate::boundary::open::{self, FileId, Opened, Resolve, VerifyFailure};
use crate::boundary::{BoundaryError, check_regular};
use crate::discovery::cache::FileState;
use crate::discovery::index::{Body, Entry};
use crate::read::Addressing;
use crate::skill::{Place, SkillFile};
use crate::uri::{self, SKILL_FILE};

use super::SkillReader;
use super::file::{Content, FileVersion, MemoryBytes, SkillFileReader};
use super::folder::{memory_listing, relative_path};

impl SkillReader {
    /// The folder of `entry` as markers name it: its path, or `skill://<name>`.
    fn directory_label(&self, entry: &Entry) -> String {
        match self.options.addressing() {
            Addressing::Paths => entry.directory_label(),
            Addressing::SkillUris => uri::directory(&entry.name),
        }
    }

    /// `error`, about a file of `entry`, naming that file as this reader names files: under
    /// [`Addressing::SkillUris`] a path in the skill's folder becomes its `skill://` URI and
    /// any other path the skill's URI (what lies outside is never named).
    pub(super) fn addressed(&self, entry: &Entry, error: BoundaryError) -> BoundaryError {
        let (Addressing::SkillUris, Body::Disk { directory, .. }) =
            (self.options.addressing(), &entry.body)
        else {
            return error;
        };
        error.map_path(|path| {
            if path
                .to_str()
                .is_some_and(|text| text.starts_with(uri::SCHEME))
            {
                return path;
            }
            let relative = path
                .strip_prefix(directory)
                .map(|rest| {
                    let parts: Vec<_> = rest.iter().map(|part| part.to_string_lossy()).collect();
                    parts.join("/")
                })
                .unwrap_or_default();
            PathBuf::from(uri::resource(&entry.name, &relative))
        })
    }

    pub(super) fn open_located(
        &self,
        located: &Located<'_>,
        folder: Option<&Dir>,
    ) -> Result<SkillFileReader, BoundaryError> {
        self.open_entry(located, folder)
            .map_err(|error| self.addressed(located.entry, error))
    }

    fn open_entry(
        &self,
        located: &Located<'_>,
        folder: Option<&Dir>,
    ) -> Result<SkillFileReader, BoundaryError> {
        let entry = located.entry;
        match &entry.body {
            Body::Memory(skill) => {
                let relative = located.relative.to_string_lossy();
                let content = if relative == SKILL_FILE {
                    MemoryBytes::Text(skill.skill_md_shared())
                } else {
                    match skill.file_shared(&relative) {
                        Some(bytes) => MemoryBytes::Bytes(bytes),
                        None if memory_listing(skill, &located.relative).is_some() => {
                            return Err(BoundaryError::IsDirectory {
                                path: PathBuf::from(&located.display),
                            });
                        }
                        None => {
                            return Err(BoundaryError::NotFound {
                                path: PathBuf::from(&located.display),
                                suggestion: crate::read::closest_name(
                                    &relative,
                                    skill.files().map(|(name, _)| name),
                                ),
                            });
                        }
                    }
                };
                Ok(SkillFileReader {
                    path: located.display.clone(),
                    size: content.as_ref().len() as u64,
                    marker: (relative == SKILL_FILE)
                        .then(|| (entry.name.clone(), self.directory_label(entry))),
                    version: None,
                    content: Content::Memory(io::Cursor::new(content)),
                })
            }
            Body::Disk {
                directory,
                file_name,
                place,
            } => {
                let is_skill_file = located.relative.as_os_str() == file_name.as_os_str();
                let opened = match folder {
                    Some(folder) => {
                        open_disk(folder, place, directory, &located.relative, is_skill_file)?
                    }
                    None => {
                        let folder = self.verified_folder(place, directory)?;
                        open_disk(&folder, place, directory, &located.relative, is_skill_file)?
                    }
                };
                let display = PathBuf::from(&located.display);
                check_regular(opened.metadata.file_type(), display)?;
                Ok(SkillFileReader {
                    path: located.display.clone(),
                    size: opened.metadata.len(),
                    marker: is_skill_file
                        .then(|| (entry.name.clone(), self.directory_label(entry))),
                    version: Some(FileVersion(FileState::of_cap(&opened.metadata))),
                    content: Content::Disk(opened.file),
                })
            }
        }
    }

    /// The verified handle of a skill folder.
    pub(super) fn verified_folder(
        &self,
        place: &Place,
        directory: &Path,
    ) -> Result<Dir, BoundaryError> {
        if let Some(admission) = &self.admission
            && let Err(message) = admission.recheck(directory)
        {
            return Err(BoundaryError::Refused {
                path: directory.to_path_buf(),
                message,
            });
        }
        let changed = || BoundaryError::SkillChanged {
            path: directory.to_path_buf(),
        };
        let root = self.roots.get(place.root).ok_or_else(changed)?;
        let verified = |failure: VerifyFailure| match failure {
            VerifyFailure::Changed => changed(),
            VerifyFailure::Io(source) => BoundaryError::Io {
                path: root.record.path.clone(),
                source,
            },
        };
        let opened = if root.record.followed {
            let handle =
                open::open_verified(&root.record.anchor, root.record.id).map_err(verified)?;
            open::open_dir_path(&handle, place.relative(directory))
        } else {
            let handle = match root.handle.get() {
                Some(handle) => handle,
                None => {
                    let handle = open::open_verified(&root.record.anchor, root.record.id)
                        .map_err(verified)?;
                    // Two reads racing here both open it; one handle is kept.
                    let _ = root.handle.set(handle);
                    root.handle.get().ok_or_else(changed)?
                }
            };
            open::open_dir_path(handle, place.relative(directory))
        };
        let folder = opened.map_err(|error| match error.kind() {
            io::ErrorKind::PermissionDenied if error.raw_os_error().is_some() => {
                BoundaryError::Io {
                    path: directory.to_path_buf(),
                    source: error,
                }
            }
            _ if is_out_of_resources(&error) => BoundaryError::Io {
                path: directory.to_path_buf(),
                source: error,
            },
            _ => changed(),
        })?;
        open::verify(folder, place.id).map_err(|failure| match failure {
            VerifyFailure::Changed => changed(),
            VerifyFailure::Io(source) => BoundaryError::Io {
                path: directory.to_path_buf(),
                source,
            },
        })
    }
}

/// Opens `relative` in a skill's verified `folder`: directly when no link lies on the way (no
/// link is followed then), else after resolving the links inside the folder; a followed
/// skill-file link opens its recorded target, checked by identity.
fn open_disk(
    folder: &Dir,
    place: &Place,
    directory: &Path,
    relative: &Path,
    is_skill_file: bool,
) -> Result<Opened, BoundaryError> {
    let path = directory.join(relative);
    if relative.as_os_str().is_empty() {
        return Err(BoundaryError::IsDirectory { path });
    }
    if let (true, SkillFile::Linked(link)) = (is_skill_file, &place.file) {
        let opened =
            open::open_followed_file(&link.target).map_err(|source| disk_failure(&path, source))?;
        if FileId::of(&opened.metadata) != link.id {
            return Err(BoundaryError::SkillChanged {
                path: directory.to_path_buf(),
            });
        }
        return Ok(opened);
    }
    if relative
        .components()
        .any(|component| open::is_never_served(component.as_os_str()))
    {
        return Err(BoundaryError::OutsideBoundary);
    }
    // Most paths hold no link: open them as they are, following none.
    match open::open_resolved(folder, relative) {
        Ok(opened) => return Ok(opened),
        // No link on the way can answer "not found" to an open that follows none.
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(near_miss(disk_failure(&path, error), folder, relative));
        }
        Err(_) => {}
    }
    let resolved = match open::resolve_beneath(folder, relative) {
        Ok(resolved) => resolved,
        Err(Resolve::Escape) => return Err(BoundaryError::OutsideBoundary),
        Err(Resolve::TooManyLinks) => {
            return Err(BoundaryError::Io {
                path,
                source: io::Error::other("too many levels of symbolic links"),
            });
        }
    };
    match open::open_resolved(folder, &resolved) {
        Ok(opened) => Ok(opened),
        Err(error) => Err(open_failure(folder, &resolved, path, error)),
    }
}

/// Words a failed open: a link appearing where resolution saw none is a refusal; a socket is
/// named as such.
fn open_failure(folder: &Dir, resolved: &Path, path: PathBuf, error: io::Error) -> BoundaryError {
    match folder.symlink_metadata(resolved) {
        // Swapped in after the path was resolved: never followed.
        Ok(metadata) if metadata.is_symlink() => BoundaryError::OutsideBoundary,
        Ok(metadata) if !metadata.is_file() => match check_regular(metadata.file_type(), path) {
            Err(refusal) => refusal,
            Ok(()) => BoundaryError::OutsideBoundary,
        },
        _ => disk_failure(&path, error),
    }
}

/// Where a requested file lies: its skill, the path inside it, and how results name it.
pub(super) struct Located<'a> {
    pub(super) entry: &'a Entry,
    /// The path below the skill folder (for memory skills, `/`-separated).
    pub(super) relative: PathBuf,
    /// The absolute path, or the `skill://` URI, as results show it.
    pub(super) display: String,
}

impl<'a> Located<'a> {
    /// A file named by a `skill://` URI's path inside its skill.
    pub(super) fn by_uri(entry: &'a Entry, relative: &str) -> Result<Self, BoundaryError> {
        let path = relative_path(relative).ok_or(BoundaryError::OutsideBoundary)?;
        let (relative, display) = match &entry.body {
            Body::Disk { file_name, .. } if relative == SKILL_FILE => {
                (PathBuf::from(file_name), uri::skill_file(&entry.name))
            }
            _ => (path, uri::resource(&entry.name, relative)),
        };
        Ok(Located {
            entry,
            relative,
            display,
        })
    }
}

pub(super) fn not_found(path: String) -> BoundaryError {
    BoundaryError::NotFound {
        path: PathBuf::from(path),
        suggestion: None,
    }
}

/// `error`, when it says that nothing is at `relative` in `folder`, with the name of a file
/// beside it that is nearly the one asked for.
fn near_miss(error: BoundaryError, folder: &Dir, relative: &Path) -> BoundaryError {
    match error {
        BoundaryError::NotFound {
            path,
            suggestion: None,
        } => BoundaryError::NotFound {
            path,
            suggestion: suggest_in_folder(folder, relative),
        },
        other => other,
    }
}

/// A name in the folder of `relative` (beneath `folder`, following no link) that is nearly its
/// last component: the same but for case, else a letter or two off.
fn suggest_in_folder(folder: &Dir, relative: &Path) -> Option<String> {
    let wanted = relative.file_name()?.to_str()?;
    let parent = relative.parent().unwrap_or(Path::new(""));
    // A handle of its own: listing moves the position of the handle it reads.
    let directory = if parent.as_os_str().is_empty() {
        folder.open_dir(".").ok()?
    } else {
        open::open_dir_path(folder, parent).ok()?
    };
    // At most the first entries: a miss in a huge folder costs no more than in a small one.
    let names: Vec<String> = directory
        .entries()
        .ok()?
        .take(MAX_SUGGESTED_FROM)
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    crate::read::closest_name(wanted, names.iter().map(String::as_str))
}

/// The most entries of a folder looked at to suggest a name for a file that is not there.
const MAX_SUGGESTED_FROM: usize = 1000;

/// Turns a failed open inside a skill folder into the error a reader can act on.
pub(super) fn disk_failure(path: &Path, error: io::Error) -> BoundaryError {
    if open::is_escape(&error) {
        return BoundaryError::OutsideBoundary;
    }
    match error.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => BoundaryError::NotFound {
            path: path.to_path_buf(),
            suggestion: None,
        },
        io::ErrorKind::IsADirectory => BoundaryError::IsDirectory {
            path: path.to_path_buf(),
        },
        _ if error.raw_os_error() == Some(ELOOP) => BoundaryError::OutsideBoundary,
        _ => BoundaryError::Io {
            path: path.to_path_buf(),
            source: error,
        },
    }
}

/// `ELOOP`: a link met where none may be followed.
#[cfg(unix)]
const ELOOP: i32 = rustix::io::Errno::LOOP.raw_os_error();
#[cfg(not(unix))]
const ELOOP: i32 = -1;

/// Out of descriptors or memory: an I/O failure, never a changed folder.
fn is_out_of_resources(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        let exhausted = [Errno::MFILE, Errno::NFILE, Errno::NOMEM];
        exhausted
            .iter()
            .any(|errno| error.raw_os_error() == Some(errno.raw_os_error()))
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}
