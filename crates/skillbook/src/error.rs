//! One vocabulary for every error a tool call, a read or a command can answer with.
//!
//! The boundary, the `read_file` tool, the runtime's executor and the MCP server all name their
//! failures with an [`ErrorCode`], and every JSON error a model or a script sees is built by
//! [`error_json`]: `{"error": "<code>", "message": "<what happened, to which path, what to do>"}`.

use std::fmt;

use serde::Serialize;
use serde_json::{Value, json};

/// A stable, machine-readable error code. Scripts and hosts match on [`ErrorCode::as_str`];
/// new codes may be added in minor releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// A read call without a `path`.
    MissingPath,
    /// An argument with the wrong type or value (also a relative path that several skills
    /// make ambiguous, and a NUL byte).
    InvalidArgument,
    /// The path is outside what may be read; the message never says whether it exists.
    OutsideBoundary,
    /// Nothing is at a path inside the boundary, or no skill has the name.
    NotFound,
    /// The path names a directory.
    IsDirectory,
    /// The path names a FIFO, socket or device.
    NotRegularFile,
    /// The file is binary or not UTF-8.
    NotText,
    /// The file is over the size limit.
    TooLarge,
    /// A skill folder is no longer the one discovery found (replaced or moved since).
    SkillChanged,
    /// The operating system failed.
    Io,
    /// A tool call for a tool the executor does not run.
    UnsupportedTool,
    /// The host's policy refused the call.
    Denied,
}

impl ErrorCode {
    /// The code as written in JSON: `outside_boundary`, `not_found`, ….
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::MissingPath => "missing_path",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::OutsideBoundary => "outside_boundary",
            ErrorCode::NotFound => "not_found",
            ErrorCode::IsDirectory => "is_directory",
            ErrorCode::NotRegularFile => "not_regular_file",
            ErrorCode::NotText => "not_text",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::SkillChanged => "skill_changed",
            ErrorCode::Io => "io",
            ErrorCode::UnsupportedTool => "unsupported_tool",
            ErrorCode::Denied => "denied",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// The JSON object of an error: `{"error": code, "message": message}`.
#[must_use]
pub fn error_json(code: ErrorCode, message: &str) -> Value {
    json!({ "error": code.as_str(), "message": message })
}
