//! A reader's settings: [`ReadOptions`], and the [`Addressing`] it names files by.

use crate::read::{DEFAULT_LOOK_AHEAD_BYTES, DEFAULT_MAX_FILE_BYTES};

/// How a reader's results, its `<skill_instructions>` markers and its errors name a skill's
/// files; the catalog of a runtime scope follows the same choice
/// ([`runtime::Scope::addressing`](crate::runtime::Scope)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Addressing {
    /// A skill found on disk is named by the absolute path of its files, and a read may name
    /// a file by path (absolute, or relative to the only skill's folder) as well as by
    /// `skill://` URI. Skills held in memory are `skill://` URIs. For a host that runs on the
    /// user's own machine.
    #[default]
    Paths,
    /// Every file is named by its `skill://<name>/<path>` URI, and a read must name one that
    /// way ([`BoundaryError::UriRequired`](crate::BoundaryError::UriRequired) otherwise):
    /// results, markers and error messages never show a path of the host's disk. For a host
    /// that serves others (tenants, a network server).
    SkillUris,
}

/// The settings of a [`SkillReader`](crate::SkillReader): the read tool's name, its size limit
/// and look-ahead, and how it names files.
///
/// Start from [`ReadOptions::default`] and change what differs; each `with_*` method takes and
/// returns the options and documents its default. Give them to a reader with
/// [`SkillReader::with_options`](crate::SkillReader::with_options).
///
/// ```
/// use skillbook::{Addressing, ReadOptions};
///
/// let options = ReadOptions::default()
///     .with_tool_name("read_skill_file")
///     .with_max_file_bytes(Some(1024 * 1024))
///     .with_addressing(Addressing::SkillUris);
/// assert_eq!(options.tool_name(), "read_skill_file");
/// assert_eq!(options.look_ahead_bytes(), skillbook::DEFAULT_LOOK_AHEAD_BYTES);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    tool_name: String,
    max_file_bytes: Option<u64>,
    look_ahead_bytes: u64,
    addressing: Addressing,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            tool_name: crate::READ_FILE.to_owned(),
            max_file_bytes: Some(DEFAULT_MAX_FILE_BYTES),
            look_ahead_bytes: DEFAULT_LOOK_AHEAD_BYTES,
            addressing: Addressing::Paths,
        }
    }
}

impl ReadOptions {
    /// Sets the name the read tool is offered under in its schema (default
    /// [`crate::READ_FILE`]; a runtime whose host already owns `read_file` uses
    /// `read_skill_file`).
    #[must_use]
    pub fn with_tool_name(mut self, name: impl Into<String>) -> Self {
        self.tool_name = name.into();
        self
    }

    /// Sets the size limit in bytes: a larger file is refused as too large; `None` disables
    /// the limit (default [`DEFAULT_MAX_FILE_BYTES`]).
    #[must_use]
    pub fn with_max_file_bytes(mut self, limit: Option<u64>) -> Self {
        self.max_file_bytes = limit;
        self
    }

    /// Sets how many bytes past a segment are scanned to learn `totalLines` (default
    /// [`DEFAULT_LOOK_AHEAD_BYTES`]; `0` reports it only when the segment ends the file).
    #[must_use]
    pub fn with_look_ahead_bytes(mut self, bytes: u64) -> Self {
        self.look_ahead_bytes = bytes;
        self
    }

    /// Sets how results, markers and errors name the skills' files (default
    /// [`Addressing::Paths`]).
    #[must_use]
    pub fn with_addressing(mut self, addressing: Addressing) -> Self {
        self.addressing = addressing;
        self
    }

    /// The name the read tool is offered under.
    #[must_use]
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// The size limit in bytes, if any.
    #[must_use]
    pub fn max_file_bytes(&self) -> Option<u64> {
        self.max_file_bytes
    }

    /// How many bytes past a segment are scanned to learn `totalLines`.
    #[must_use]
    pub fn look_ahead_bytes(&self) -> u64 {
        self.look_ahead_bytes
    }

    /// How results, markers and errors name the skills' files.
    #[must_use]
    pub fn addressing(&self) -> Addressing {
        self.addressing
    }
}
