//! Errors of the read boundary.

use std::io;
use std::path::PathBuf;

use crate::error::ErrorCode;

/// Why the boundary refused or failed to open a path.
///
/// Every variant except [`BoundaryError::OutsideBoundary`] names the path it is about. The outside
/// variant names nothing and reads the same whether or not the target exists, so a refusal
/// reveals nothing about the file system beyond the boundary.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BoundaryError {
    /// The path lies outside every readable root, or a symbolic link on the way leads out of its
    /// root.
    #[error(
        "the path is outside the directories this tool may read; use a skill's location from \
         the catalog, or a path inside that skill's folder"
    )]
    OutsideBoundary,

    /// A relative path was given where several skill directories are readable, so it could
    /// mean a file in any of them.
    #[error(
        "`{path}` is relative, and several skill directories are readable; name the file as \
         `skill://<skill>/{path}`, or pass the absolute path: the skill's directory (its \
         SKILL.md location without the file name) joined with this path",
        path = path.display()
    )]
    RelativePath {
        /// The path as given.
        path: PathBuf,
    },

    /// The path holds a NUL byte.
    #[error("the path contains a NUL byte, which no file name can hold; pass the plain file path")]
    NulByte,

    /// The path lies inside the boundary but nothing exists there.
    #[error(
        "`{path}` does not exist{hint}; check the spelling against the skill's SKILL.md \
         (relative paths resolve against the workspace, or against the first skill \
         directory when only skills are readable)",
        path = path.display(),
        hint = suggestion.as_deref().map(|name| format!(" (did you mean `{name}`?)")).unwrap_or_default()
    )]
    NotFound {
        /// The absolute path that was looked up.
        path: PathBuf,
        /// A file of nearly that name in the same folder (another case, a letter off), when
        /// there is one: skills often name `FORMS.md` where the file is `forms.md`.
        suggestion: Option<String>,
    },

    /// The path names a directory.
    #[error(
        "`{path}` is a directory, not a file; read a file inside it, such as its SKILL.md",
        path = path.display()
    )]
    IsDirectory {
        /// The absolute path of the directory.
        path: PathBuf,
    },

    /// The path names a FIFO, socket, device or other special file.
    #[error(
        "`{path}` is a {kind}, not a regular file; only regular files can be read",
        path = path.display()
    )]
    NotRegularFile {
        /// The absolute path of the special file.
        path: PathBuf,
        /// What the file is, in words (for example `FIFO (named pipe)`).
        kind: &'static str,
    },

    /// A skill folder (or its root) is no longer the directory discovery found there: it was
    /// replaced or moved since, so nothing in it is served until the skills are discovered
    /// again.
    #[error(
        "`{path}` is no longer the skill folder that was discovered there (it was replaced or \
         moved); the skills are discovered again on the next run, read it then",
        path = path.display()
    )]
    SkillChanged {
        /// The skill folder's absolute path.
        path: PathBuf,
    },

    /// The host's [`crate::Admission`] no longer admits the skill (for example, its files no
    /// longer match the lock).
    #[error("`{path}` may not be read: {message}", path = path.display())]
    Refused {
        /// The skill folder's absolute path.
        path: PathBuf,
        /// Why, as the admission said.
        message: String,
    },

    /// The operating system failed to open or inspect a path inside the boundary.
    #[error("could not open `{path}`: {source}", path = path.display())]
    Io {
        /// The absolute path that was being opened.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },

    /// A reader that names skill files by `skill://` URI only was given something else (a path
    /// of the server's disk means nothing to its clients, and is never looked up).
    #[error(
        "skill files are named by `skill://` URI only here: pass a skill's location from the \
         catalog (`skill://<name>/SKILL.md`), or `skill://<name>/<path>` for a file in its folder"
    )]
    UriRequired,

    /// A root exists but could not be opened when the boundary was built.
    #[error("could not open the read root `{path}`: {source}", path = path.display())]
    Root {
        /// The absolute path of the root.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

impl BoundaryError {
    /// A stable, machine-readable code for this error.
    ///
    /// The codes are `outside_boundary`, `invalid_argument` (a NUL byte, or a relative path
    /// that several skill directories make ambiguous), `not_found`, `is_directory`,
    /// `not_regular_file`, `skill_changed`, `denied` (refused by the host's admission) and `io`
    /// (for both I/O variants).
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::OutsideBoundary | Self::UriRequired => ErrorCode::OutsideBoundary,
            Self::NulByte | Self::RelativePath { .. } => ErrorCode::InvalidArgument,
            Self::NotFound { .. } => ErrorCode::NotFound,
            Self::IsDirectory { .. } => ErrorCode::IsDirectory,
            Self::NotRegularFile { .. } => ErrorCode::NotRegularFile,
            Self::SkillChanged { .. } => ErrorCode::SkillChanged,
            Self::Refused { .. } => ErrorCode::Denied,
            Self::Io { .. } | Self::Root { .. } => ErrorCode::Io,
        }
    }

    /// The error as the JSON object a model sees: `{"error": code, "message": text}`.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        crate::error::error_json(self.code(), &self.to_string())
    }

    /// The same error naming its path as `rename` names it: a server that must not show its
    /// paths to a client names each by the `skill://` URI it stands for. Nothing else changes.
    #[must_use]
    pub fn map_path(self, rename: impl FnOnce(PathBuf) -> PathBuf) -> Self {
        match self {
            Self::RelativePath { path } => Self::RelativePath { path: rename(path) },
            Self::NotFound { path, suggestion } => Self::NotFound {
                path: rename(path),
                suggestion,
            },
            Self::IsDirectory { path } => Self::IsDirectory { path: rename(path) },
            Self::NotRegularFile { path, kind } => Self::NotRegularFile {
                path: rename(path),
                kind,
            },
            Self::SkillChanged { path } => Self::SkillChanged { path: rename(path) },
            Self::Refused { path, message } => Self::Refused {
                path: rename(path),
                message,
            },
            Self::Io { path, source } => Self::Io {
                path: rename(path),
                source,
            },
            Self::Root { path, source } => Self::Root {
                path: rename(path),
                source,
            },
            Self::OutsideBoundary | Self::NulByte | Self::UriRequired => self,
        }
    }
}
