//! Fetching a git source: a shallow fetch of one ref (or one commit) through gitoxide into a
//! temporary bare repository, and its tree written out as plain files for discovery to read.
//!
//! Nothing from the repository is run and git's own checkout is not used: the tree is written
//! by this module, entry by entry, so that each name is checked (no `..`, no separators, no
//! overwriting) and nothing lands outside the temporary folder. Links are written as links
//! (which the snapshot then leaves out and reports), submodules are recorded as left out.

use std::fs;
use std::io::Write;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gix::bstr::ByteSlice;
use gix::object::tree::EntryKind;

use crate::error::PackageError;
use crate::snapshot::LeftOutReason;
use crate::source::GitSource;

/// The most bytes written out of one repository's tree (or of the folder asked for).
const MAX_TREE_BYTES: u64 = 512 * 1024 * 1024;

/// The most entries written out of one repository's tree.
const MAX_TREE_ENTRIES: usize = 200_000;

/// The deepest folder written out.
const MAX_TREE_DEPTH: usize = 64;

/// What a fetch may take from a server: the most bytes of the repository received, and the
/// longest the fetch may run. A server sending more (a hostile or huge repository) or dripping
/// its answer is stopped and the fetch fails, saying which bound it met.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FetchBounds {
    pub(crate) bytes: u64,
    pub(crate) time: Duration,
}

impl FetchBounds {
    /// 1 GiB in 10 minutes.
    pub(crate) const DEFAULT: FetchBounds = FetchBounds {
        bytes: 1024 * 1024 * 1024,
        time: Duration::from_secs(600),
    };
}

/// How often a fetch in progress is measured against its bounds.
const BOUNDS_CHECKED_EVERY: Duration = Duration::from_millis(50);

/// What to fetch.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Revision<'a> {
    /// The source's ref, or the remote's `HEAD`.
    Named,
    /// Exactly this commit (a full hexadecimal id), as a lock records it.
    Commit(&'a str),
}

/// A repository fetched and its tree written out.
#[derive(Debug)]
pub(crate) struct Fetched {
    /// Holds the repository and the tree; removed when dropped.
    _folder: tempfile::TempDir,
    /// The repository's tree as files.
    tree: PathBuf,
    /// The commit fetched, in full hexadecimal.
    commit: String,
    /// Entries not written (submodules, and links where links cannot be made), by their path in
    /// the repository.
    left_out: Vec<(String, LeftOutReason)>,
}

impl Fetched {
    /// The repository's tree as files (the whole repository, whatever folder was asked for).
    pub(crate) fn tree(&self) -> &Path {
        &self.tree
    }

    /// The commit fetched.
    pub(crate) fn commit(&self) -> &str {
        &self.commit
    }

    /// The entries below `folder` (a path in the repository, `""` for all) that were not
    /// written, each by its path below that folder.
    pub(crate) fn left_out_below(&self, folder: &str) -> Vec<(String, LeftOutReason)> {
        self.left_out
            .iter()
            .filter_map(|(path, reason)| {
                let below = if folder.is_empty() {
                    Some(path.as_str())
                } else {
                    path.strip_prefix(folder)?.strip_prefix('/')
                };
                below.map(|below| (below.to_owned(), *reason))
            })
            .collect()
    }
}

/// Fetches `source` at `revision` (only the one commit, not its history) and writes out its
/// tree — only the source's folder when it names one.
pub(crate) fn fetch(source: &GitSource, revision: Revision<'_>) -> Result<Fetched, PackageError> {
    fetch_within(source, revision, FetchBounds::DEFAULT)
}

/// [`fetch`] within `bounds`.
///
/// The fetch runs on a thread of its own that is never waited for past the bounds: a server
/// that stops answering leaves gitoxide blocked in a read it cannot interrupt, and the install
/// must fail at the bound all the same. Such a thread ends when its connection does; the
/// temporary folder it writes into is removed at once.
fn fetch_within(
    source: &GitSource,
    revision: Revision<'_>,
    bounds: FetchBounds,
) -> Result<Fetched, PackageError> {
    crate::install_tls_provider();
    let folder = tempfile::Builder::new()
        .prefix("skillbook-git-")
        .tempdir()
        .map_err(|error| PackageError::io(&std::env::temp_dir(), error))?;
    let repository = folder.path().join("repository");
    let tree = folder.path().join("tree");
    let interrupt = Arc::new(AtomicBool::new(false));
    let (finished, fetching) = mpsc::channel();
    let job = {
        let (source, repository, tree) = (source.clone(), repository.clone(), tree.clone());
        let commit = match revision {
            Revision::Commit(commit) => Some(commit.to_owned()),
            Revision::Named => None,
        };
        let interrupt = Arc::clone(&interrupt);
        move || {
            let revision = commit.as_deref().map_or(Revision::Named, Revision::Commit);
            let written = fetch_and_write(&source, revision, &repository, &tree, &interrupt);
            // The receiver is gone only when a bound was met: nothing is left to tell.
            let _ = finished.send(written);
        }
    };
    std::thread::Builder::new()
        .name("skillbook-fetch".to_owned())
        .spawn(job)
        .map_err(|error| PackageError::Git {
            url: source.shown(),
            message: format!("could not start the fetch: {error}"),
        })?;
    let (commit, left_out) = match watch(&repository, bounds, &fetching) {
        Watched::Finished(written) => written?,
        Watched::Exceeded(exceeded) => {
            interrupt.store(true, Ordering::Relaxed);
            return Err(PackageError::Git {
                url: source.shown(),
                message: exceeded,
            });
        }
        Watched::Lost => {
            return Err(PackageError::Git {
                url: source.shown(),
                message: "the fetch stopped without an answer".to_owned(),
            });
        }
    };
    Ok(Fetched {
        _folder: folder,
        tree,
        commit,
        left_out,
    })
}

/// Fetches `source` at `revision` into the bare `repository` and writes its tree (or the
/// source's folder of it) below `out`: the commit fetched and the entries left out.
fn fetch_and_write(
    source: &GitSource,
    revision: Revision<'_>,
    repository: &Path,
    out: &Path,
    interrupt: &AtomicBool,
) -> Result<(String, Vec<(String, LeftOutReason)>), PackageError> {
    let failed = |message: String| PackageError::Git {
        url: source.shown(),
        message,
    };
    let mut prepare = gix::prepare_clone_bare(source.fetch_url(), repository)
        .map_err(|error| failed(error.to_string()))?
        .with_shallow(gix::remote::fetch::Shallow::DepthAtRemote(NonZeroU32::MIN));
    prepare = match revision {
        Revision::Commit(commit) => prepare.with_revision(Some(commit)),
        Revision::Named => match source.reference() {
            Some(reference) if is_commit_id(reference) => prepare.with_revision(Some(reference)),
            Some(reference) => prepare.with_ref_name(Some(reference)),
            None => Ok(prepare),
        },
    }
    .map_err(|error| failed(error.to_string()))?;
    let (repository, _) = prepare
        .fetch_only(gix::progress::Discard, interrupt)
        .map_err(|error| failed(fetch_message(&chain(&error), source.reference())))?;
    let commit = repository
        .head_commit()
        .map_err(|error| failed(error.to_string()))?;
    let id = commit.id.to_string();
    if let Revision::Commit(expected) = revision
        && !id.eq_ignore_ascii_case(expected)
    {
        return Err(failed(format!("asked for commit {expected}, got {id}")));
    }
    let mut tree = commit.tree().map_err(|error| failed(error.to_string()))?;
    let mut writer = Writer {
        source,
        written_bytes: 0,
        entries: 0,
        left_out: Vec::new(),
    };
    let mut start = out.to_path_buf();
    let mut prefix = String::new();
    if let Some(subpath) = source.folder() {
        let entry = tree
            .peel_to_entry_by_path(subpath)
            .map_err(|error| failed(error.to_string()))?;
        let Some(entry) = entry.filter(|entry| entry.mode().is_tree()) else {
            return Err(failed(format!(
                "{subpath} is not a folder of the repository at commit {id}"
            )));
        };
        tree = entry
            .object()
            .and_then(|object| object.peel_to_tree())
            .map_err(|error| failed(error.to_string()))?;
        start = subpath
            .split('/')
            .fold(out.to_path_buf(), |path, part| path.join(part));
        prefix = subpath.to_owned();
    }
    create_dir(&start)?;
    writer.write_tree(&tree, &start, &prefix, 0)?;
    Ok((id, writer.left_out))
}

/// How a fetch watched against its bounds ended.
enum Watched<T> {
    /// It finished within them, with this result.
    Finished(T),
    /// It met a bound, said so; it is still running and is not waited for.
    Exceeded(String),
    /// Its thread ended without a result.
    Lost,
}

/// Measures a fetch into `repository` until `fetching` brings its result: once it has received
/// more than `bounds.bytes` or run longer than `bounds.time`, says which bound it met without
/// waiting for it any longer.
fn watch<T>(repository: &Path, bounds: FetchBounds, fetching: &mpsc::Receiver<T>) -> Watched<T> {
    let started = Instant::now();
    loop {
        // Measured once more when the fetch has finished, however fast it was.
        let answer = match fetching.recv_timeout(BOUNDS_CHECKED_EVERY) {
            Ok(result) => Some(Watched::Finished(result)),
            Err(mpsc::RecvTimeoutError::Disconnected) => Some(Watched::Lost),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
        };
        if received_bytes(repository) > bounds.bytes {
            return Watched::Exceeded(format!(
                "the repository sent more than {} MiB; skillbook fetches at most that much of \
                 one repository. Install from a smaller repository, or from a local copy",
                bounds.bytes / (1024 * 1024)
            ));
        }
        if started.elapsed() > bounds.time {
            let seconds = bounds.time.as_secs();
            let unit = if seconds == 1 { "second" } else { "seconds" };
            return Watched::Exceeded(format!(
                "the fetch took longer than {seconds} {unit} and was stopped; check the server, \
                 or install from a local copy"
            ));
        }
        if let Some(answer) = answer {
            return answer;
        }
    }
}

/// The bytes a fetch has written into `repository` so far (its objects, as received).
fn received_bytes(repository: &Path) -> u64 {
    let mut total = 0;
    let mut folders = vec![repository.join("objects")];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => folders.push(entry.path()),
                Ok(kind) if kind.is_file() => {
                    total += entry.metadata().map_or(0, |metadata| metadata.len());
                }
                _ => {}
            }
        }
    }
    total
}

/// A full hexadecimal commit id (SHA-1 or SHA-256).
pub(crate) fn is_commit_id(text: &str) -> bool {
    (text.len() == 40 || text.len() == 64) && text.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// An error with its causes, `: `-separated, each said once (the cause says why, as in a
/// handshake that failed because the server did not answer).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let text = inner.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = inner.source();
    }
    message
}

/// gix's message, with a hint when a named ref was not found.
fn fetch_message(message: &str, reference: Option<&str>) -> String {
    match reference {
        Some(reference) if message.contains("not found") || message.contains("matched") => {
            format!("{message} (is `{reference}` a branch, tag or commit of it?)")
        }
        _ => message.to_owned(),
    }
}

/// Writes a tree out, checking every name and the bounds.
struct Writer<'s> {
    source: &'s GitSource,
    written_bytes: u64,
    entries: usize,
    left_out: Vec<(String, LeftOutReason)>,
}

impl Writer<'_> {
    fn write_tree(
        &mut self,
        tree: &gix::Tree<'_>,
        folder: &Path,
        prefix: &str,
        depth: usize,
    ) -> Result<(), PackageError> {
        if depth > MAX_TREE_DEPTH {
            return Err(self.refused(prefix, "is nested too deeply"));
        }
        for entry in tree.iter() {
            let entry = entry.map_err(|error| self.refused(prefix, &error.to_string()))?;
            let name = entry.filename();
            let repository_path = join(prefix, &name.to_str_lossy());
            let Some(name) = safe_name(name) else {
                return Err(
                    self.refused(&repository_path, "has a name that is not a plain file name")
                );
            };
            self.entries += 1;
            if self.entries > MAX_TREE_ENTRIES {
                return Err(self.refused(prefix, "holds too many files"));
            }
            let path = folder.join(name);
            match entry.kind() {
                EntryKind::Tree => {
                    let subtree = entry
                        .object()
                        .and_then(|object| object.peel_to_tree())
                        .map_err(|error| self.refused(&repository_path, &error.to_string()))?;
                    create_dir(&path)?;
                    self.write_tree(&subtree, &path, &repository_path, depth + 1)?;
                }
                EntryKind::Blob | EntryKind::BlobExecutable => {
                    let executable = entry.kind() == EntryKind::BlobExecutable;
                    let blob = entry
                        .object()
                        .map_err(|error| self.refused(&repository_path, &error.to_string()))?;
                    self.written_bytes += blob.data.len() as u64;
                    if self.written_bytes > MAX_TREE_BYTES {
                        return Err(self.refused(prefix, "is larger than 512 MiB"));
                    }
                    write_file(&path, &blob.data, executable)?;
                }
                EntryKind::Link => {
                    let target = entry
                        .object()
                        .map_err(|error| self.refused(&repository_path, &error.to_string()))?;
                    if !write_link(&path, &target.data) {
                        self.left_out.push((repository_path, LeftOutReason::Link));
                    }
                }
                EntryKind::Commit => self.left_out.push((repository_path, LeftOutReason::Git)),
            }
        }
        Ok(())
    }

    fn refused(&self, path: &str, why: &str) -> PackageError {
        PackageError::Git {
            url: self.source.shown(),
            // Escaped: a hostile name must not reach a terminal as control characters.
            message: format!("`{}` {why}; nothing was installed", path.escape_debug()),
        }
    }
}

/// A tree entry's name when it is one plain path component: UTF-8, no separator, no control
/// character (which could rewrite a terminal showing it), not `.` or `..`.
fn safe_name(name: &gix::bstr::BStr) -> Option<&str> {
    let name = name.to_str().ok()?;
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control)
        && (!cfg!(windows) || !name.contains(':'));
    plain.then_some(name)
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}/{name}")
    }
}

fn create_dir(path: &Path) -> Result<(), PackageError> {
    fs::create_dir_all(path).map_err(|error| PackageError::io(path, error))
}

/// Writes a new file; an existing one (two names that one file system folds together) is an
/// error, never overwritten.
fn write_file(path: &Path, content: &[u8], executable: bool) -> Result<(), PackageError> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if executable { 0o755 } else { 0o644 });
    }
    #[cfg(not(unix))]
    let _ = executable;
    let mut file = options
        .open(path)
        .map_err(|error| PackageError::io(path, error))?;
    file.write_all(content)
        .map_err(|error| PackageError::io(path, error))
}

/// Writes a link as a link, so that the snapshot leaves it out and reports it; `false` where
/// links cannot be made.
#[cfg(unix)]
fn write_link(path: &Path, target: &[u8]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), path).is_ok()
}

#[cfg(not(unix))]
fn write_link(_path: &Path, _target: &[u8]) -> bool {
    false
}

#[cfg(test)]
#[path = "../tests/support/git.rs"]
mod support_git;

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs git (the tests' own tool for making repositories) in `folder`.
    fn git(folder: &Path, arguments: &[&str]) {
        support_git::git(folder, arguments).unwrap();
    }

    /// A repository with a skill and 2 MiB that do not compress, as a source.
    fn large_repository() -> (tempfile::TempDir, GitSource) {
        let repository = tempfile::tempdir().unwrap();
        let skill = repository.path().join("big");
        fs::create_dir_all(&skill).unwrap();
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: big\ndescription: d\n---\n",
        )
        .unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let noise: Vec<u8> = (0..2 * 1024 * 1024)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()[0]
            })
            .collect();
        fs::write(skill.join("noise.bin"), noise).unwrap();
        git(repository.path(), &["init", "-q", "-b", "main"]);
        git(repository.path(), &["add", "-A"]);
        git(repository.path(), &["commit", "-q", "-m", "big"]);
        let url = format!("file://{}", repository.path().display());
        let source = GitSource::url(&url, None).unwrap();
        (repository, source)
    }

    /// The message of fetching `source` within `bytes` and `time`, which must fail.
    fn refusal(source: &GitSource, bytes: u64, time: Duration) -> String {
        let bounds = FetchBounds { bytes, time };
        fetch_within(source, Revision::Named, bounds)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_repository_over_the_byte_bound_is_stopped_and_said_so() {
        let (_repository, source) = large_repository();
        let message = refusal(&source, 1024 * 1024, Duration::from_secs(600));
        assert!(message.contains("more than 1 MiB"), "{message}");
        // Within a bound it holds, the same repository is fetched.
        let bounds = FetchBounds {
            bytes: 64 * 1024 * 1024,
            time: Duration::from_secs(600),
        };
        let fetched = fetch_within(&source, Revision::Named, bounds).unwrap();
        assert!(fetched.tree().join("big/noise.bin").is_file());
    }

    #[test]
    fn a_fetch_over_the_time_bound_is_stopped_and_said_so() {
        let (_repository, source) = large_repository();
        let message = refusal(&source, u64::MAX, Duration::ZERO);
        assert!(message.contains("longer than 0 seconds"), "{message}");
    }

    /// A server that takes the connection and never answers, on a port of this machine.
    fn silent_server() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                held.push(stream);
            }
        });
        port
    }

    #[test]
    fn a_server_that_stops_answering_is_left_at_the_time_bound() {
        let port = silent_server();
        for scheme in ["git", "http"] {
            let url = format!("{scheme}://127.0.0.1:{port}/skills.git");
            let source = GitSource::url(&url, None).unwrap();
            let message = refusal(&source, u64::MAX, Duration::from_secs(1));
            assert!(
                message.contains("longer than 1 second and was stopped"),
                "{scheme}: {message}"
            );
            assert!(message.contains("127.0.0.1"), "{scheme}: {message}");
        }
    }
}
