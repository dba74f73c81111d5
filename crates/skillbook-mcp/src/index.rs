//! The index of one skill: every file it serves, with size and `sha256:` digest, and every
//! directory.
//!
//! The skill is walked through its [`SkillReader`] (the library's one reader), never by plain
//! paths, whether it lives on disk or in memory:
//!
//! 1. Directories are listed through the reader; entries are taken as listed, without
//!    following links. `.git` and `node_modules` never appear.
//! 2. A regular file is served. Its bytes are read through the reader to compute the digest,
//!    and the size is the number of bytes read, so both always describe the same bytes. A
//!    digest is kept by file version (device, inode, size, times), so an unchanged file is
//!    never hashed twice, across reloads too.
//! 3. A symbolic link is served only when it leads to a regular file inside the same skill
//!    (the reader refuses anything else). Links that leave the skill, broken links, and links
//!    to directories (which could loop) are skipped.
//! 4. FIFOs, sockets and devices are skipped without being opened, so nothing blocks.
//! 5. Nothing deeper than [`MAX_DEPTH`] is served, nor names that are not UTF-8.
//! 6. Limits: a skill with more than [`ResourceLimits::max_files`] files or more than
//!    [`ResourceLimits::max_bytes`] bytes is not indexed at all; the error says which limit.
//!
//! Everything skipped is returned with the reason, for the server to report.

use std::collections::{BTreeSet, HashMap};
use std::io::{self, Read};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};
use skillbook::uri::{self, SKILL_FILE};
use skillbook::{BoundaryError, DirectoryEntry, EntryKind};
use skillbook::{FileVersion, SkillFolder};
use skillbook::{SkillName, SkillReader};

use crate::ResourceLimits;

/// The deepest directory served below a skill directory (the skill directory is depth 0).
pub(crate) const MAX_DEPTH: usize = 32;

/// The most digests remembered; past it the memory starts afresh.
const MAX_DIGESTS: usize = 1 << 18;

/// Digests by file version, shared by every index of a server.
#[derive(Debug, Default)]
pub(crate) struct Digests {
    known: Mutex<HashMap<FileVersion, (u64, String)>>,
}

impl Digests {
    fn get(&self, version: FileVersion) -> Option<(u64, String)> {
        self.known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&version)
            .cloned()
    }

    fn insert(&self, version: FileVersion, digested: (u64, String)) {
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        if known.len() >= MAX_DIGESTS {
            known.clear();
        }
        known.insert(version, digested);
    }
}

/// The files and directories of one skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SkillIndex {
    /// Every served file, sorted by key.
    pub(crate) files: Vec<IndexedFile>,
    /// The key of every served directory; `""` is the skill directory.
    pub(crate) directories: BTreeSet<String>,
}

impl SkillIndex {
    /// The file with this key.
    pub(crate) fn file(&self, key: &str) -> Option<&IndexedFile> {
        self.files
            .binary_search_by(|file| file.key.as_str().cmp(key))
            .ok()
            .and_then(|position| self.files.get(position))
    }
}

/// One served file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexedFile {
    /// The path below the skill directory, `/`-separated, as it appears in the URI. The skill
    /// file is always `SKILL.md`, also when it is called `skill.md` on disk.
    pub(crate) key: String,
    /// The number of bytes.
    pub(crate) size: u64,
    /// `sha256:` and 64 lowercase hexadecimal digits.
    pub(crate) digest: String,
}

/// Something in a skill that is not served, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skipped {
    /// Its `skill://` URI.
    pub(crate) uri: String,
    /// Why it is not served.
    pub(crate) reason: String,
}

/// Why a skill has no index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum IndexError {
    /// More files than the limit.
    #[error("it has more than {limit} files, the most one skill may serve")]
    TooManyFiles {
        /// The limit.
        limit: usize,
    },
    /// More folders than the file limit (an index walks every folder).
    #[error("it has more than {limit} folders, the most one skill may serve")]
    TooManyFolders {
        /// The limit (the same as for files).
        limit: usize,
    },
    /// More bytes than the limit.
    #[error("its files add up to more than {limit} bytes, the most one skill may serve")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// The skill directory or the skill file cannot be read.
    #[error("{message}")]
    Unreadable {
        /// What failed, in words.
        message: String,
    },
}

/// An index, or why there is none, with everything skipped on the way.
#[derive(Debug, Clone)]
pub(crate) struct Indexed {
    /// The index.
    pub(crate) outcome: Result<Arc<SkillIndex>, IndexError>,
    /// What was skipped, in the order met.
    pub(crate) skipped: Vec<Skipped>,
}

/// Indexes the skill `name` through `reader`, reaching its folder once.
pub(crate) fn index(
    reader: &SkillReader,
    name: &SkillName,
    digests: &Digests,
    limits: ResourceLimits,
) -> Indexed {
    let folder = match reader.folder(name) {
        Ok(folder) => folder,
        Err(error) => {
            return Indexed {
                outcome: Err(IndexError::Unreadable {
                    message: error.to_string(),
                }),
                skipped: Vec::new(),
            };
        }
    };
    let mut walk = Walk {
        reader,
        folder,
        name,
        digests,
        limits,
        files: Vec::new(),
        directories: BTreeSet::new(),
        skipped: Vec::new(),
        bytes: 0,
    };
    let outcome = walk.run().map(|()| {
        let mut files = std::mem::take(&mut walk.files);
        files.sort_by(|left, right| left.key.cmp(&right.key));
        Arc::new(SkillIndex {
            files,
            directories: std::mem::take(&mut walk.directories),
        })
    });
    Indexed {
        outcome,
        skipped: walk.skipped,
    }
}

/// The state of one walk.
struct Walk<'a> {
    reader: &'a SkillReader,
    folder: SkillFolder<'a>,
    name: &'a SkillName,
    digests: &'a Digests,
    limits: ResourceLimits,
    files: Vec<IndexedFile>,
    directories: BTreeSet<String>,
    skipped: Vec<Skipped>,
    bytes: u64,
}

impl Walk<'_> {
    fn run(&mut self) -> Result<(), IndexError> {
        // The skill file first: it is the one file every skill must serve, whatever its name.
        let skill_file = self.add_file(SKILL_FILE.to_owned(), EntryKind::File)?;
        let skill_file_name = self.reader.skill_file_name(self.name);
        let mut pending = vec![(String::new(), 0_usize)];
        while let Some((key, depth)) = pending.pop() {
            let entries = match self.folder.list(&key) {
                Ok(entries) => entries,
                Err(error) if key.is_empty() => {
                    return Err(IndexError::Unreadable {
                        message: error.to_string(),
                    });
                }
                Err(error) => {
                    self.skip(&key, format!("the directory cannot be listed: {error}"));
                    continue;
                }
            };
            if self.directories.len() >= self.limits.max_files {
                return Err(IndexError::TooManyFolders {
                    limit: self.limits.max_files,
                });
            }
            self.directories.insert(key.clone());
            for entry in entries {
                if key.is_empty() && Some(entry.name.as_os_str()) == skill_file_name {
                    continue;
                }
                if let Some(directory) = self.visit(&key, depth, entry)? {
                    pending.push((directory, depth + 1));
                }
            }
        }
        match skill_file {
            Some(_) => Ok(()),
            None => Err(IndexError::Unreadable {
                message: "its skill file is no longer a readable regular file".to_owned(),
            }),
        }
    }

    /// Handles one entry of the directory `parent`; returns the key of a directory to walk.
    fn visit(
        &mut self,
        parent: &str,
        depth: usize,
        entry: DirectoryEntry,
    ) -> Result<Option<String>, IndexError> {
        let Some(name) = entry.name.to_str() else {
            let shown = format!("{parent}/{}", entry.name.to_string_lossy());
            self.skip(&shown, "its name is not UTF-8, so it has no URI".to_owned());
            return Ok(None);
        };
        let key = if parent.is_empty() {
            name.to_owned()
        } else {
            format!("{parent}/{name}")
        };
        match entry.kind {
            EntryKind::Directory if depth + 1 > MAX_DEPTH => {
                let reason = format!("it lies deeper than {MAX_DEPTH} directories");
                self.skip(&key, reason);
            }
            EntryKind::Directory => return Ok(Some(key)),
            EntryKind::File | EntryKind::Symlink => {
                self.add_file(key, entry.kind)?;
            }
            _ => self.skip(&key, "it is a FIFO, socket or device".to_owned()),
        }
        Ok(None)
    }

    /// Opens a file (or the target of a link) through the reader and records its digest;
    /// returns the path it was opened at when it is served.
    fn add_file(&mut self, key: String, kind: EntryKind) -> Result<Option<String>, IndexError> {
        let opened = match self.folder.open(&key) {
            Ok(opened) => opened,
            Err(error) => {
                self.skip(&key, refusal(&error, kind));
                return Ok(None);
            }
        };
        let path = opened.path().to_owned();
        if self.files.len() >= self.limits.max_files {
            return Err(IndexError::TooManyFiles {
                limit: self.limits.max_files,
            });
        }
        let budget = self.limits.max_bytes.saturating_sub(self.bytes);
        let known = opened
            .version()
            .and_then(|version| self.digests.get(version));
        let (size, digest) = match known {
            Some(known) => known,
            None => {
                let version = opened.version();
                match digest(opened, budget) {
                    Ok(digested) => {
                        if let Some(version) = version
                            && digested.0 <= budget
                        {
                            self.digests.insert(version, digested.clone());
                        }
                        digested
                    }
                    Err(error) => {
                        self.skip(&key, format!("it cannot be read: {error}"));
                        return Ok(None);
                    }
                }
            }
        };
        if size > budget {
            return Err(IndexError::TooLarge {
                limit: self.limits.max_bytes,
            });
        }
        self.bytes += size;
        self.files.push(IndexedFile { key, size, digest });
        Ok(Some(path))
    }

    fn skip(&mut self, key: &str, reason: String) {
        self.skipped.push(Skipped {
            uri: uri::resource(self.name, key),
            reason,
        });
    }
}

/// Words why the reader refused an entry.
fn refusal(error: &BoundaryError, kind: EntryKind) -> String {
    match (error, kind) {
        (BoundaryError::OutsideBoundary, EntryKind::Symlink) => {
            "it is a symbolic link that leaves the skill directory".to_owned()
        }
        (BoundaryError::NotFound { .. }, EntryKind::Symlink) => {
            "it is a broken symbolic link".to_owned()
        }
        (BoundaryError::IsDirectory { .. }, EntryKind::Symlink) => {
            "it is a symbolic link to a directory; such links are not followed".to_owned()
        }
        (BoundaryError::NotRegularFile { kind, .. }, _) => {
            format!("it leads to a {kind}, not a regular file")
        }
        (other, _) => format!("it cannot be opened: {other}"),
    }
}

/// Reads at most `budget + 1` bytes and returns how many were read and their `sha256:` digest.
pub(crate) fn digest(file: impl Read, budget: u64) -> io::Result<(u64, String)> {
    let mut reader = file.take(budget.saturating_add(1));
    let mut hasher = Sha256::new();
    let mut buffer = vec![0_u8; 64 * 1024];
    let mut size = 0_u64;
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        hasher.update(buffer.get(..read).unwrap_or_default());
        size += read as u64;
    }
    Ok((size, format_digest(&hasher.finalize())))
}

/// `sha256:` and the hash in lowercase hexadecimal.
pub(crate) fn format_digest(hash: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut digest = String::with_capacity(7 + 2 * hash.len());
    digest.push_str("sha256:");
    for byte in hash {
        digest.push(char::from(HEX[usize::from(byte >> 4)]));
        digest.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    digest
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;
    use std::fs;
    use std::path::{Path, PathBuf};

    use skillbook::{Discovery, Home};

    const LIMITS: ResourceLimits = ResourceLimits {
        max_files: 512,
        max_bytes: 16 * 1024 * 1024,
    };

    fn skill(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let temporary = tempfile::tempdir().unwrap();
        let directory = temporary.path().join("pdf");
        for (path, text) in files {
            let file = directory.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, text).unwrap();
        }
        (temporary, directory)
    }

    /// Indexes the skill in `directory`, discovered as a root of its own.
    fn run(directory: &Path, _skill_file: &str, limits: ResourceLimits) -> Indexed {
        let found = Discovery::new(directory)
            .home(Home::Off)
            .namespaces(Vec::<String>::new())
            .extra_root(directory)
            .discover();
        let reader = SkillReader::new(&found);
        let name = reader.names().next().unwrap().clone();
        index(&reader, &name, &Digests::default(), limits)
    }

    fn keys(indexed: &Indexed) -> Vec<&str> {
        let index = indexed.outcome.as_ref().unwrap();
        index.files.iter().map(|file| file.key.as_str()).collect()
    }

    #[test]
    fn the_digest_matches_the_one_the_extension_defines() {
        let bytes = b"---\nname: pdf\n---\n";
        assert_eq!(
            digest(&bytes[..], 1024).unwrap(),
            (
                bytes.len() as u64,
                rmcp::model::sha256_digest(bytes.as_slice())
            )
        );
    }

    #[test]
    fn every_file_and_directory_is_indexed_in_order() {
        let (_temporary, directory) = skill(&[
            ("SKILL.md", "---\nname: pdf\n---\n"),
            ("refs/guide.md", "guide"),
            ("refs/deep/table.csv", "a,b"),
            ("empty/.keep", ""),
            (".git/config", "secret"),
        ]);
        let indexed = run(&directory, "SKILL.md", LIMITS);
        assert_eq!(
            keys(&indexed),
            [
                "SKILL.md",
                "empty/.keep",
                "refs/deep/table.csv",
                "refs/guide.md"
            ]
        );
        let index = indexed.outcome.as_ref().unwrap();
        let directories: Vec<&str> = index.directories.iter().map(String::as_str).collect();
        assert_eq!(directories, ["", "empty", "refs", "refs/deep"]);
        assert_eq!(indexed.skipped, [], "`.git` is never listed");
        let guide = index.file("refs/guide.md").unwrap();
        assert_eq!(
            (guide.size, guide.digest.as_str()),
            (5, rmcp::model::sha256_digest(b"guide").as_str())
        );
    }

    #[test]
    fn a_lowercase_skill_file_is_served_as_skill_md() {
        let (_temporary, directory) = skill(&[("skill.md", "x")]);
        assert_eq!(keys(&run(&directory, "skill.md", LIMITS)), ["SKILL.md"]);
    }

    #[test]
    fn limits_are_errors_not_cuts() {
        let (_temporary, directory) = skill(&[("SKILL.md", "12345"), ("a.md", "123")]);
        let outcome = |max_files, max_bytes| {
            run(
                &directory,
                "SKILL.md",
                ResourceLimits {
                    max_files,
                    max_bytes,
                },
            )
            .outcome
        };
        assert_eq!(outcome(1, 100), Err(IndexError::TooManyFiles { limit: 1 }));
        assert_eq!(outcome(2, 7), Err(IndexError::TooLarge { limit: 7 }));
        assert!(outcome(2, 8).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_skipped_with_a_reason() {
        use std::os::unix::fs::symlink;
        let (temporary, directory) = skill(&[("SKILL.md", "x"), ("refs/guide.md", "guide")]);
        fs::write(temporary.path().join("secret"), "secret").unwrap();
        symlink("refs/guide.md", directory.join("inside.md")).unwrap();
        symlink("../secret", directory.join("outside.md")).unwrap();
        symlink("/dev/zero", directory.join("zero.md")).unwrap();
        symlink("missing", directory.join("broken.md")).unwrap();
        symlink("refs", directory.join("loop")).unwrap();
        let fifo = directory.join("reference.md");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let indexed = run(&directory, "SKILL.md", LIMITS);
        assert_eq!(keys(&indexed), ["SKILL.md", "inside.md", "refs/guide.md"]);
        let reasons: Vec<(&str, &str)> = indexed
            .skipped
            .iter()
            .map(|skipped| (skipped.uri.as_str(), skipped.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                ("skill://pdf/broken.md", "it is a broken symbolic link"),
                (
                    "skill://pdf/loop",
                    "it is a symbolic link to a directory; such links are not followed"
                ),
                (
                    "skill://pdf/outside.md",
                    "it is a symbolic link that leaves the skill directory"
                ),
                ("skill://pdf/reference.md", "it is a FIFO, socket or device"),
                (
                    "skill://pdf/zero.md",
                    "it is a symbolic link that leaves the skill directory"
                ),
            ]
        );
    }
}
