//! Errors of the `read_file` tool.

use std::io;
use std::path::PathBuf;

use crate::boundary::BoundaryError;
use crate::error::{ErrorCode, error_json};

/// Why a `read_file` call failed.
///
/// Each variant has a stable [`ReadError::code`]; the message says what happened, to which path
/// (never for a path outside the boundary) and what to do next. [`ReadError::to_json`] gives the
/// object a model sees.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The call has no `path` argument, or it is blank.
    #[error(
        "the `path` argument is missing; pass the file to read, for example a skill's SKILL.md \
         location from the skill catalog"
    )]
    MissingPath,

    /// An argument has the wrong type or value.
    #[error("invalid `{argument}`: {problem}")]
    InvalidArgument {
        /// The argument's name as the schema spells it.
        argument: &'static str,
        /// What is wrong and what would be accepted.
        problem: String,
    },

    /// The boundary refused or failed to open the path: outside the boundary, not found, a
    /// directory, not a regular file, a NUL byte, or an I/O failure.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),

    /// The file is binary or not UTF-8.
    #[error("`{path}` is not a text file: {reason}; only UTF-8 text can be read", path = path.display())]
    NotText {
        /// The absolute path of the file.
        path: PathBuf,
        /// Why the content is not text.
        reason: &'static str,
    },

    /// The file is larger than the configured limit.
    #[error(
        "`{path}` is {size} bytes, over the {limit}-byte limit for reads; \
         read a smaller file, or ask for the limit to be raised",
        path = path.display()
    )]
    TooLarge {
        /// The absolute path of the file.
        path: PathBuf,
        /// The file's size in bytes.
        size: u64,
        /// The configured limit in bytes.
        limit: u64,
    },

    /// Reading an opened file failed.
    #[error("could not read `{path}`: {source}", path = path.display())]
    Io {
        /// The absolute path of the file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

impl ReadError {
    /// A stable, machine-readable code: `missing_path`, `invalid_argument`, `outside_boundary`,
    /// `not_found`, `is_directory`, `not_regular_file`, `not_text`, `too_large` or `io`.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::MissingPath => ErrorCode::MissingPath,
            Self::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            Self::Boundary(error) => error.code(),
            Self::NotText { .. } => ErrorCode::NotText,
            Self::TooLarge { .. } => ErrorCode::TooLarge,
            Self::Io { .. } => ErrorCode::Io,
        }
    }

    /// The error as the JSON object a model sees: `{"error": code, "message": text}`.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        error_json(self.code(), &self.to_string())
    }

    /// The same error naming its path as `rename` names it (see
    /// [`BoundaryError::map_path`]). Nothing else changes.
    #[must_use]
    pub fn map_path(self, rename: impl FnOnce(PathBuf) -> PathBuf) -> Self {
        match self {
            Self::Boundary(error) => Self::Boundary(error.map_path(rename)),
            Self::NotText { path, reason } => Self::NotText {
                path: rename(path),
                reason,
            },
            Self::TooLarge { path, size, limit } => Self::TooLarge {
                path: rename(path),
                size,
                limit,
            },
            Self::Io { path, source } => Self::Io {
                path: rename(path),
                source,
            },
            Self::MissingPath | Self::InvalidArgument { .. } => self,
        }
    }
}
