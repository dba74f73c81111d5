//! What can go wrong, each saying what happened, where, and what to do.

use std::io;
use std::path::{Path, PathBuf};

use skillbook::Diagnostic;

/// Why a lock file could not be read or written. Never read as an empty lock.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// The file could not be read or written.
    #[error("{}: {source}; check the file's permissions and its folder", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file holds merge-conflict markers.
    #[error(
        "{}:{line}: merge-conflict marker; resolve the conflict (keep both sides' skills), then run the command again",
        path.display()
    )]
    ConflictMarkers {
        /// The lock file.
        path: PathBuf,
        /// 1-based line of the first marker.
        line: usize,
    },
    /// The file is not valid JSON.
    #[error("{}:{line}:{column}: not valid JSON: {message}; fix the file or restore it from version control", path.display())]
    Parse {
        /// The lock file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// The JSON is not a lock: a field is missing or has the wrong type.
    #[error("{}: {message}; fix the file or restore it from version control", path.display())]
    Shape {
        /// The lock file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The lock has a `version` this build does not know.
    #[error("{}: lock version {version} is not supported (this build reads version 1); use a newer skillbook", path.display())]
    UnsupportedVersion {
        /// The lock file.
        path: PathBuf,
        /// The version found.
        version: String,
    },
}

/// Why adding, verifying or removing skills failed. Nothing was changed when one is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackageError {
    /// The lock file could not be read or written.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The source is neither a local folder, a git URL nor `owner/repo`, or it is a URL
    /// holding a password.
    #[error(
        "{input}: not a source skillbook reads. Give a local folder (an absolute path, or one starting with ./ or ../), a git URL (https://, ssh://, git@host:path, file://), or owner/repo[/path][@ref]; keep credentials out of URLs (use an SSH key or git's credential helper)"
    )]
    UnsupportedSource {
        /// The source as given (never a password).
        input: String,
    },
    /// A git source could not be fetched, or its tree could not be written out.
    #[error("{url}: {message}. Check the URL, the ref and your access (SSH key or credentials)")]
    Git {
        /// The repository's URL, without user information.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The source or an installed skill is not a directory.
    #[error("{}: not a directory; give a folder holding skills", path.display())]
    NotADirectory {
        /// The path concerned.
        path: PathBuf,
    },
    /// No skill was found in the source.
    #[error("{}: no skill found (a skill is a folder holding SKILL.md){}", path.display(), notes(.diagnostics))]
    NoSkills {
        /// The source folder.
        path: PathBuf,
        /// What discovery reported on the way (skipped links, unreadable folders).
        diagnostics: Vec<Diagnostic>,
    },
    /// A skill asked for by name is not in the source.
    #[error("{}: no skill named {name:?} here; the source holds: {}", path.display(), available.join(", "))]
    SkillNotInSource {
        /// The name asked for.
        name: String,
        /// The source folder.
        path: PathBuf,
        /// The names the source does hold.
        available: Vec<String>,
    },
    /// A skill folder in the source is a symbolic link.
    #[error("{}: the skill folder is a symbolic link, which is never followed; copy the skill into the source instead", path.display())]
    SkillFolderIsLink {
        /// The linked folder.
        path: PathBuf,
    },
    /// A file or skill name is not UTF-8, holds a control character, a slash or a backslash,
    /// or is `.` or `..`.
    #[error("{}: unsafe name (not UTF-8, a control character, a slash or backslash, or `..`); rename it in the source", path.display())]
    UnsafeName {
        /// The path with that name.
        path: PathBuf,
    },
    /// Two entries of a skill differ only in case, and would be one file on some systems.
    #[error("{}: differs only in case from {other:?}; rename one of them in the source", path.display())]
    CaseCollision {
        /// The second entry.
        path: PathBuf,
        /// The first entry, relative to the skill folder.
        other: String,
    },
    /// A skill is over a size limit.
    #[error("{}: {what}; shrink the skill or raise the limit", path.display())]
    OverLimit {
        /// The file or folder that passed the limit.
        path: PathBuf,
        /// Which limit, with the numbers.
        what: String,
    },
    /// The checker found errors in a skill.
    #[error("{}: {} error(s) from `skillbook check`; fix them in the source, or pass --force to install anyway", path.display(), diagnostics.len())]
    CheckFailed {
        /// The skill's folder in the source.
        path: PathBuf,
        /// The errors.
        diagnostics: Vec<Diagnostic>,
    },
    /// A skill of that name is installed already and was not installed from this source.
    #[error("{}: a skill named {name:?} is installed already (not from this source); run `skillbook remove {name}` first, or choose other skills with --skill", path.display())]
    NameCollision {
        /// The name.
        name: String,
        /// The installed folder.
        path: PathBuf,
    },
    /// A skill given to `remove` is neither installed nor in the lock.
    #[error("{name:?} is not installed in {} nor in the lock; `skillbook verify` lists what is", path.display())]
    NotInstalled {
        /// The name.
        name: String,
        /// The skills folder.
        path: PathBuf,
    },
    /// A locked skill's source is of a kind this build cannot fetch (a local folder, `github`
    /// and `git` are fetched).
    #[error(
        "{name}: locked from {source_type} source {locked_source:?}, which skillbook cannot fetch (it reads local folders and git repositories); add the skill again from a folder or a git URL"
    )]
    UnsupportedLockedSource {
        /// The skill's name in the lock.
        name: String,
        /// The lock's `source`.
        locked_source: String,
        /// The lock's `sourceType`.
        source_type: String,
    },
    /// A locked skill's source no longer holds what the lock pins.
    #[error("{name}: {} no longer matches the lock; nothing was installed. Restore the source, or run `skillbook update {name}` to take and lock its new version", path.display())]
    SourceChanged {
        /// The skill's name in the lock.
        name: String,
        /// The skill's folder in the source.
        path: PathBuf,
    },
    /// A name given to `update` is not in the lock.
    #[error("{name:?} is not in {}; `skillbook add` installs and locks a skill", path.display())]
    NotLocked {
        /// The name.
        name: String,
        /// The lock file.
        path: PathBuf,
    },
    /// A client name given to `--agent` is not known.
    #[error("{name:?} is not a client skillbook knows; use one of: {known}")]
    UnknownAgent {
        /// The name given.
        name: String,
        /// The names known, comma-separated.
        known: String,
    },
    /// A client's folder already holds something of the skill's name that skillbook did not
    /// make; it is never replaced.
    #[error("{}: already exists and was not made by skillbook; move it away (or `skillbook remove` the skill it is), then run again to expose the skill to {agent}", path.display())]
    AgentPlaceTaken {
        /// The client's name.
        agent: String,
        /// The place in the client's folder.
        path: PathBuf,
    },
    /// The skills folder, or the folder holding it, is a symbolic link.
    #[error("{}: is a symbolic link; discovery skips linked roots, so install into a real folder", path.display())]
    TargetIsLink {
        /// The link.
        path: PathBuf,
    },
}

impl PackageError {
    pub(crate) fn io(path: &Path, source: io::Error) -> PackageError {
        PackageError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

fn notes(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|diagnostic| format!("; {}: {}", diagnostic.path.display(), diagnostic.message))
        .collect()
}
