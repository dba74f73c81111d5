//! A skill folder's files read into memory, and the hashes the lock records of them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::collation::locale_compare;
use crate::error::PackageError;

/// Bounds on a skill folder read for installing or verifying. Each is refused when passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FolderLimits {
    /// Largest single file. Default 16 MiB.
    pub max_file_bytes: u64,
    /// Most bytes in one skill, all files together. Default 64 MiB.
    pub max_skill_bytes: u64,
    /// Most files in one skill. Default 10,000.
    pub max_files: usize,
    /// Deepest folder below the skill folder (the skill folder is depth 0). Default 32.
    pub max_depth: usize,
}

impl Default for FolderLimits {
    fn default() -> Self {
        FolderLimits {
            max_file_bytes: 16 * 1024 * 1024,
            max_skill_bytes: 64 * 1024 * 1024,
            max_files: 10_000,
            max_depth: 32,
        }
    }
}

/// An entry of a skill folder that is not copied, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeftOut {
    /// The path below the skill folder, `/`-separated.
    pub path: String,
    /// Why it was left out.
    pub reason: LeftOutReason,
}

/// Why an entry of a skill folder is not copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeftOutReason {
    /// A symbolic link: never followed, never copied.
    Link,
    /// A `.git` folder or file (a repository or a submodule inside the skill).
    Git,
    /// A FIFO, socket or device: never opened.
    Special,
}

impl LeftOutReason {
    /// A stable name for machines: `link`, `git` or `special`.
    pub fn as_str(self) -> &'static str {
        match self {
            LeftOutReason::Link => "link",
            LeftOutReason::Git => "git",
            LeftOutReason::Special => "special",
        }
    }
}

/// One regular file of a skill.
#[derive(Debug, Clone)]
pub(crate) struct SkillFile {
    /// The path below the skill folder, `/`-separated, valid UTF-8.
    pub(crate) path: String,
    pub(crate) content: Vec<u8>,
    pub(crate) executable: bool,
}

/// The regular files of a skill folder, sorted bytewise by path, and what was left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    pub(crate) files: Vec<SkillFile>,
    pub(crate) left_out: Vec<LeftOut>,
    /// The first entry whose name differs only in case from an earlier one (its path, and
    /// the earlier one relative to the folder): one file on some systems.
    pub(crate) case_collision: Option<(PathBuf, String)>,
}

impl Snapshot {
    /// Reads every regular file below `folder`, which must be a real directory (not a link).
    /// Links, `.git` and special files are left out and listed; names that are not UTF-8 or
    /// hold control characters or a backslash, and anything over `limits`, are refused. Names
    /// that differ only in case are noted in `case_collision`.
    pub(crate) fn read(folder: &Path, limits: &FolderLimits) -> Result<Snapshot, PackageError> {
        let metadata = fs::symlink_metadata(folder).map_err(|e| PackageError::io(folder, e))?;
        if metadata.file_type().is_symlink() {
            return Err(PackageError::SkillFolderIsLink {
                path: folder.to_path_buf(),
            });
        }
        if !metadata.is_dir() {
            return Err(PackageError::NotADirectory {
                path: folder.to_path_buf(),
            });
        }
        let mut reader = FolderReader {
            limits,
            snapshot: Snapshot::default(),
            total_bytes: 0,
            case_keys: BTreeMap::new(),
        };
        reader.read_directory(folder, "", 0)?;
        let mut snapshot = reader.snapshot;
        snapshot.files.sort_by(|a, b| a.path.cmp(&b.path));
        snapshot.left_out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(snapshot)
    }

    /// The hash the `skills` npm tool records as `computedHash`: SHA-256 over each file's path
    /// then content, no separators, in `localeCompare` order of the paths, leaving out files
    /// below a `.git` or `node_modules` folder. Lower-case hex.
    pub(crate) fn computed_hash(&self) -> String {
        let mut files: Vec<&SkillFile> = self
            .files
            .iter()
            .filter(|file| {
                file.path
                    .split('/')
                    .rev()
                    .skip(1)
                    .all(|folder| folder != ".git" && folder != "node_modules")
            })
            .collect();
        files.sort_by(|a, b| locale_compare(&a.path, &b.path));
        let mut hash = Sha256::new();
        for file in files {
            hash.update(file.path.as_bytes());
            hash.update(&file.content);
        }
        hex(&hash.finalize())
    }

    /// skillbook's digest: SHA-256 over, for every file in byte order of the paths, the path's
    /// length (8 bytes, big-endian), the path, the content's length, the content. Written
    /// `sha256:` and lower-case hex.
    pub(crate) fn digest(&self) -> String {
        let mut hash = Sha256::new();
        for file in &self.files {
            for part in [file.path.as_bytes(), file.content.as_slice()] {
                hash.update((part.len() as u64).to_be_bytes());
                hash.update(part);
            }
        }
        format!("sha256:{}", hex(&hash.finalize()))
    }

    /// Each file's SHA-256 (`sha256:` and hex), by path.
    pub(crate) fn file_digests(&self) -> BTreeMap<String, String> {
        self.files
            .iter()
            .map(|file| (file.path.clone(), file_digest(&file.content)))
            .collect()
    }

    /// The paths of the files, in byte order.
    pub(crate) fn paths(&self) -> BTreeSet<&str> {
        self.files.iter().map(|file| file.path.as_str()).collect()
    }
}

/// The SHA-256 of one file's content, `sha256:` and hex.
pub(crate) fn file_digest(content: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(content)))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    text
}

struct FolderReader<'a> {
    limits: &'a FolderLimits,
    snapshot: Snapshot,
    total_bytes: u64,
    /// Lower-cased path → the path first seen with it.
    case_keys: BTreeMap<String, String>,
}

impl FolderReader<'_> {
    fn read_directory(
        &mut self,
        directory: &Path,
        prefix: &str,
        depth: usize,
    ) -> Result<(), PackageError> {
        if depth > self.limits.max_depth {
            return Err(PackageError::OverLimit {
                path: directory.to_path_buf(),
                what: format!("folders nested deeper than {}", self.limits.max_depth),
            });
        }
        let entries = fs::read_dir(directory).map_err(|e| PackageError::io(directory, e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| PackageError::io(directory, e))?;
            names.push(entry.file_name());
        }
        names.sort();
        for name in names {
            let full = directory.join(&name);
            let Some(name) = name.to_str().filter(|name| is_safe_name(name)) else {
                return Err(PackageError::UnsafeName { path: full });
            };
            let relative = if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}/{name}")
            };
            self.claim_case(&full, &relative);
            self.read_entry(&full, relative, depth)?;
        }
        Ok(())
    }

    fn read_entry(
        &mut self,
        full: &Path,
        relative: String,
        depth: usize,
    ) -> Result<(), PackageError> {
        let metadata = fs::symlink_metadata(full).map_err(|e| PackageError::io(full, e))?;
        let kind = metadata.file_type();
        let left_out = |reason| LeftOut {
            path: relative.clone(),
            reason,
        };
        if kind.is_symlink() {
            self.snapshot.left_out.push(left_out(LeftOutReason::Link));
        } else if full.file_name().is_some_and(|name| name == ".git") {
            self.snapshot.left_out.push(left_out(LeftOutReason::Git));
        } else if kind.is_dir() {
            self.read_directory(full, &relative, depth + 1)?;
        } else if kind.is_file() {
            self.read_file(full, relative, &metadata)?;
        } else {
            self.snapshot
                .left_out
                .push(left_out(LeftOutReason::Special));
        }
        Ok(())
    }

    fn read_file(
        &mut self,
        full: &Path,
        relative: String,
        metadata: &fs::Metadata,
    ) -> Result<(), PackageError> {
        if self.snapshot.files.len() >= self.limits.max_files {
            return Err(PackageError::OverLimit {
                path: full.to_path_buf(),
                what: format!("more than {} files in one skill", self.limits.max_files),
            });
        }
        let over_file = |size: u64| PackageError::OverLimit {
            path: full.to_path_buf(),
            what: format!(
                "a file of {size} bytes, over the {} bytes allowed for one file",
                self.limits.max_file_bytes
            ),
        };
        if metadata.len() > self.limits.max_file_bytes {
            return Err(over_file(metadata.len()));
        }
        let file = fs::File::open(full).map_err(|e| PackageError::io(full, e))?;
        let mut content = Vec::new();
        file.take(self.limits.max_file_bytes + 1)
            .read_to_end(&mut content)
            .map_err(|e| PackageError::io(full, e))?;
        let size = content.len() as u64;
        if size > self.limits.max_file_bytes {
            return Err(over_file(size));
        }
        self.total_bytes += size;
        if self.total_bytes > self.limits.max_skill_bytes {
            return Err(PackageError::OverLimit {
                path: full.to_path_buf(),
                what: format!(
                    "more than {} bytes in one skill",
                    self.limits.max_skill_bytes
                ),
            });
        }
        self.snapshot.files.push(SkillFile {
            path: relative,
            content,
            executable: is_executable(metadata),
        });
        Ok(())
    }

    fn claim_case(&mut self, full: &Path, relative: &str) {
        let key = relative.to_lowercase();
        if let Some(first) = self.case_keys.get(&key) {
            if self.snapshot.case_collision.is_none() {
                self.snapshot.case_collision = Some((full.to_path_buf(), first.clone()));
            }
            return;
        }
        self.case_keys.insert(key, relative.to_owned());
    }
}

/// A file or folder name that can be copied anywhere: no control characters, no backslash,
/// not `.` or `..`.
pub(crate) fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name
            .chars()
            .any(|c| c.is_control() || c == '\\' || c == '/')
}

#[cfg(unix)]
fn is_executable(metadata: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &fs::Metadata) -> bool {
    false
}

/// `path` below `root`, for messages.
pub(crate) fn below(root: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .fold(root.to_path_buf(), |path, part| path.join(part))
}

/// The `skills` npm tool's `computedHash` of a skill folder (lower-case hex): SHA-256 over each
/// regular file's `/`-separated path then its content, without separators, paths in
/// JavaScript `localeCompare` order ([`locale_compare`](crate::locale_compare)), files below a
/// `.git` or `node_modules` folder and links left out.
///
/// # Errors
///
/// The folder is a link or not a directory, cannot be read, holds a name that is not UTF-8
/// or otherwise unsafe, or is over [`FolderLimits::default`].
pub fn computed_hash(folder: &Path) -> Result<String, PackageError> {
    Ok(Snapshot::read(folder, &FolderLimits::default())?.computed_hash())
}

/// skillbook's digest of a skill folder (`sha256:` and hex): SHA-256 over, for each regular
/// file in byte order of its `/`-separated path, the path's length as 8 big-endian bytes, the
/// path, the content's length, the content. Links are left out.
///
/// # Errors
///
/// As [`computed_hash`].
pub fn digest(folder: &Path) -> Result<String, PackageError> {
    Ok(Snapshot::read(folder, &FolderLimits::default())?.digest())
}
