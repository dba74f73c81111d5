//! The `read_file` tool: segmented, streaming reads of text files, through the one reader
//! ([`SkillReader`]) and its settings ([`ReadOptions`]).
//!
//! ```no_run
//! use skillbook::{KnownSkill, ReadBoundary, ReadOptions, SkillReader};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let boundary = ReadBoundary::restricted(["/home/me/.agents/skills"])?;
//! let pdf = KnownSkill::new(
//!     "pdf",
//!     "/home/me/.agents/skills/pdf/SKILL.md",
//!     "/home/me/.agents/skills/pdf",
//! );
//! let tool = SkillReader::over_boundary(boundary, [pdf])
//!     .with_options(ReadOptions::default().with_tool_name("read_skill_file"));
//! let schema = tool.schema(); // offered to the model with the other tools
//! let result = tool.call(&json!({"path": "pdf/SKILL.md", "startLine": 1, "endLine": "50"}))?;
//! assert_eq!(result.skill.as_deref(), Some("pdf"));
//! # Ok(())
//! # }
//! ```
//!
//! A [`SkillReader`] built from discovery reads the skills' own files, as every surface reads
//! them; one built over a [`ReadBoundary`] reads a workspace as well. Both answer with a
//! [`ReadResult`] or a [`ReadError`].

pub(crate) mod arguments;
mod error;
mod lines;
mod options;
mod reader;

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::catalog::escape_xml;

pub use error::ReadError;
pub use options::{Addressing, ReadOptions};
pub use reader::{FileVersion, SkillFileReader, SkillFolder, SkillReader};

/// How many characters a call returns when it does not say (`maxChars`).
pub const DEFAULT_MAX_CHARS: usize = 12_000;

/// The most characters one call returns, whatever `maxChars` asks; larger requests are treated
/// as this and flagged `truncated` as usual when the range does not fit.
pub const MAX_CHARS_CEILING: usize = 1_000_000;

/// The default size limit: files larger than 64 MiB are refused as too large.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// How many bytes past a segment are scanned by default to learn the total line count (1 MiB).
pub const DEFAULT_LOOK_AHEAD_BYTES: u64 = 1024 * 1024;

/// The tool's description, shown to the model in the schema.
const DESCRIPTION: &str = include_str!("read/description.md");

/// What the tool says of itself when only skills are readable (the skill reader).
const SKILLS_DESCRIPTION: &str = include_str!("read/skills-description.md");

/// A skill whose SKILL.md gets the compaction marker when read through a reader over a
/// boundary ([`SkillReader::over_boundary`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownSkill {
    /// The skill's name, as the catalog shows it.
    pub name: String,
    /// The absolute path of its SKILL.md.
    pub path: PathBuf,
    /// The absolute path of its directory.
    pub directory: PathBuf,
}

impl KnownSkill {
    /// A known skill from its name, SKILL.md path and directory.
    pub fn new(
        name: impl Into<String>,
        path: impl Into<PathBuf>,
        directory: impl Into<PathBuf>,
    ) -> Self {
        Self {
            name: name.into(),
            path: path.into(),
            directory: directory.into(),
        }
    }
}

impl From<&crate::Skill> for KnownSkill {
    fn from(skill: &crate::Skill) -> Self {
        KnownSkill::new(skill.name.as_str(), &skill.location, skill.directory())
    }
}

/// One read, as typed values: what a call's JSON arguments are parsed into.
///
/// Hosts and command-line tools that do not hold JSON build this directly and pass it to
/// [`SkillReader::read`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadRequest {
    /// The file: absolute, relative (to the only skill's folder, or to the boundary's base
    /// for a reader over a boundary), or a `skill://` URI.
    pub path: PathBuf,
    /// The first line, 1-based (default 1).
    pub start_line: u64,
    /// The last line, inclusive (default: as far as `max_chars` allows).
    pub end_line: Option<u64>,
    /// The most characters to return (default [`DEFAULT_MAX_CHARS`]).
    pub max_chars: Option<usize>,
}

impl ReadRequest {
    /// A request for `path` from its first line, with the default `max_chars`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            start_line: 1,
            end_line: None,
            max_chars: None,
        }
    }

    /// Checks the values a JSON schema cannot: a non-blank path, lines and `max_chars` of at
    /// least 1, and `end_line` not before `start_line`.
    ///
    /// # Errors
    ///
    /// [`ReadError::MissingPath`] for a blank path, [`ReadError::InvalidArgument`] otherwise.
    pub fn validate(&self) -> Result<(), ReadError> {
        if self.path.to_string_lossy().trim().is_empty() {
            return Err(ReadError::MissingPath);
        }
        let below_one = |argument: &'static str| ReadError::InvalidArgument {
            argument,
            problem: "expected a positive whole number (1 or more), got 0".to_owned(),
        };
        if self.start_line == 0 {
            return Err(below_one("startLine"));
        }
        if self.max_chars == Some(0) {
            return Err(below_one("maxChars"));
        }
        match self.end_line {
            Some(0) => Err(below_one("endLine")),
            Some(end_line) if end_line < self.start_line => Err(ReadError::InvalidArgument {
                argument: "endLine",
                problem: format!(
                    "{end_line} is before startLine {start_line}; pass an endLine of at least \
                     {start_line}, or leave it out to read on",
                    start_line = self.start_line
                ),
            }),
            _ => Ok(()),
        }
    }
}

/// What a successful call returns; serialises to the JSON a model sees (camelCase names).
///
/// - Lines end at `\n`, `\r\n` or a lone `\r`. `content` holds the lines of the range joined by
///   `\n`, without line numbers; empty lines inside the range are kept. A UTF-8 byte order mark
///   at the start of the file is dropped.
/// - `maxChars` (default [`DEFAULT_MAX_CHARS`], at most [`MAX_CHARS_CEILING`]) counts characters,
///   not bytes. Whole lines are returned while they fit; the first line that does not fit ends
///   the segment, and `nextStartLine` points at it. Only a first line longer than `maxChars` is
///   cut, at a character boundary; its remainder can be read by asking again with a larger
///   `maxChars`. Either way `truncated` is `true`.
/// - Reads stream: lines before `startLine` are scanned, not kept, and memory stays the same
///   for a 1 KiB and a 4 GiB file. Hence `totalLines` is reported only when the end of the file
///   lies within the look-ahead (default [`DEFAULT_LOOK_AHEAD_BYTES`]) after the last line
///   returned; otherwise it is left out and `nextStartLine` says there is more.
/// - Files over the size limit (default [`DEFAULT_MAX_FILE_BYTES`], can be disabled) are
///   refused. A NUL byte or invalid UTF-8 in the first 8 KiB, or in a returned line, makes the
///   file "not text".
/// - When the file is the SKILL.md of a skill the reader knows (an exposed skill, or a
///   [`KnownSkill`] of a reader over a boundary), the content of every segment is wrapped
///   in `<skill_instructions name="…" dir="…">` … `</skill_instructions>` and the result carries
///   `"skill": "<name>"`, so a host's context compaction can tell skill instructions from other
///   reads. `maxChars` counts the content inside the wrapper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResult {
    /// The absolute path of the file read.
    pub path: String,
    /// The lines read, joined by `\n`; wrapped in `<skill_instructions>` for a skill's SKILL.md.
    pub content: String,
    /// The first line returned, 1-based.
    pub start_line: u64,
    /// The last line returned (inclusive; it may be cut short when `truncated`).
    /// `start_line - 1` when nothing was returned (an empty file).
    pub end_line: u64,
    /// Whether `maxChars` stopped the read before the end of the range asked for.
    pub truncated: bool,
    /// The number of lines in the file, when its end was reached within the look-ahead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_lines: Option<u64>,
    /// Where to continue, when there is more to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<u64>,
    /// The name of the skill whose SKILL.md this is (the compaction marker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
}

impl ReadResult {
    /// The result as the JSON object a model sees.
    #[must_use]
    pub fn to_json(&self) -> Value {
        // Serialising strings, numbers and booleans cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// The read tool's definition in the OpenAI function-tool shape, offered under `name`, for a
/// reader over a boundary that reads the workspace and the skill roots.
pub(crate) fn read_file_schema(name: &str) -> Value {
    definition(
        name,
        DESCRIPTION,
        "The file to read: absolute, or relative to the workspace (to the first skill directory \
         when only skills are readable).",
    )
}

/// What a reader of the skills' own files takes as `path`, said exactly: only `skill://` URIs;
/// or absolute paths, URIs, and paths relative to the one skill's folder when a single skill
/// is readable (with several, a relative path would be ambiguous and is refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Accepted {
    Uris,
    PathsOfOneSkill,
    PathsOfSeveralSkills,
}

/// The read tool's definition when only the skills' own files are readable (a reader built
/// from discovery, behind the runtime and MCP): it says so, promises no workspace, and says
/// exactly which paths it takes.
pub(crate) fn skill_file_schema(name: &str, accepted: Accepted) -> Value {
    let path = match accepted {
        Accepted::Uris => {
            "The file to read, as a `skill://` URI: a skill's location as the catalog lists it, \
             or a file in its folder (`skill://<skill>/<path>`, for example \
             `skill://pdf/forms.md`)."
        }
        Accepted::PathsOfOneSkill => {
            "The file to read: a skill's location as the catalog lists it, or a file in the \
             skill's folder, by absolute path, by a path relative to that folder, or as \
             `skill://<skill>/<path>`."
        }
        Accepted::PathsOfSeveralSkills => {
            "The file to read: a skill's location as the catalog lists it, or a file in a \
             skill's folder, by absolute path or as `skill://<skill>/<path>` (a relative path \
             is ambiguous among several skills and is refused)."
        }
    };
    definition(name, SKILLS_DESCRIPTION, path)
}

fn definition(name: &str, description: &str, path: &str) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": name,
            "description": description.trim_end(),
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": path
                    },
                    "startLine": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "The first line to return, 1-based (default 1)."
                    },
                    "endLine": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "The last line to return, inclusive (default: as \
                            far as maxChars allows)."
                    },
                    "maxChars": {
                        "type": "integer",
                        "minimum": 1,
                        "description": format!(
                            "The most characters to return (default {DEFAULT_MAX_CHARS})."
                        )
                    }
                },
                "required": ["path"],
                "additionalProperties": false
            }
        }
    })
}

/// Cuts one segment out of `reader` as [`SkillReader::read`] does, for files on disk and for
/// skills held in memory alike. `skill` (a name and a directory) adds the compaction marker.
pub(crate) fn segment<R: Read>(
    reader: R,
    path: &str,
    request: &ReadRequest,
    look_ahead_bytes: u64,
    skill: Option<(&str, &str)>,
) -> Result<ReadResult, ReadError> {
    let window = lines::Window {
        start_line: request.start_line,
        end_line: request.end_line,
        max_chars: request
            .max_chars
            .unwrap_or(DEFAULT_MAX_CHARS)
            .min(MAX_CHARS_CEILING),
        look_ahead_bytes,
    };
    let segment = lines::text_reader(reader)
        .and_then(|reader| lines::read_segment(reader, &window))
        .map_err(|error| segment_error(error, Path::new(path), request.start_line))?;
    Ok(ReadResult {
        path: path.to_owned(),
        content: match skill {
            Some((name, directory)) => skill_instructions(name, directory, &segment.content),
            None => segment.content,
        },
        start_line: segment.start_line,
        end_line: segment.end_line,
        truncated: segment.truncated,
        total_lines: segment.total_lines,
        next_start_line: segment.next_start_line,
        skill: skill.map(|(name, _)| name.to_owned()),
    })
}

/// Words a failure of the line reader for the model.
fn segment_error(error: lines::SegmentError, path: &Path, start_line: u64) -> ReadError {
    match error {
        lines::SegmentError::NotText(reason) => ReadError::NotText {
            path: path.to_path_buf(),
            reason,
        },
        lines::SegmentError::StartPastEnd { total_lines } => ReadError::InvalidArgument {
            argument: "startLine",
            problem: format!(
                "{start_line} is past the end of `{}`, which has {total_lines} lines; \
                 pass a startLine of at most {}",
                path.display(),
                total_lines.max(1)
            ),
        },
        lines::SegmentError::Io(source) => ReadError::Io {
            path: path.to_path_buf(),
            source,
        },
    }
}

/// Wraps a skill's instructions in the compaction marker: the one renderer of
/// `<skill_instructions name="…" dir="…">…</skill_instructions>`, for the read tool and the
/// `activate_skill` fallback alike.
pub(crate) fn skill_instructions(name: &str, directory: &str, content: &str) -> String {
    format!(
        "<skill_instructions name=\"{}\" dir=\"{}\">\n{content}\n</skill_instructions>",
        escape_xml(name),
        escape_xml(directory),
    )
}

/// The candidate nearly equal to `wanted`: the same but for case, else (for names of four
/// characters or more) one or two characters off — the closest, ties to the first in order.
/// Candidates holding control characters are never suggested.
pub(crate) fn closest_name<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<String> {
    let wanted_lower = wanted.to_lowercase();
    let allowed = if wanted.chars().count() >= 8 { 2 } else { 1 };
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        // A name with control characters is never echoed into a message.
        if candidate == wanted || candidate.contains(char::is_control) {
            continue;
        }
        let candidate_lower = candidate.to_lowercase();
        if candidate_lower == wanted_lower {
            return Some(candidate.to_owned());
        }
        if wanted.chars().count() < 4 {
            continue;
        }
        let distance = edit_distance(&wanted_lower, &candidate_lower, allowed);
        if distance <= allowed && best.is_none_or(|(closest, _)| distance < closest) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate.to_owned())
}

/// The Levenshtein distance of `left` and `right` in characters, or `limit + 1` as soon as it
/// is known to be more than `limit`.
fn edit_distance(left: &str, right: &str, limit: usize) -> usize {
    let left: Vec<char> = left.chars().collect();
    let right: Vec<char> = right.chars().collect();
    if left.len().abs_diff(right.len()) > limit {
        return limit + 1;
    }
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    for (row, &character) in left.iter().enumerate() {
        let mut current = vec![row + 1; right.len() + 1];
        for (column, &other) in right.iter().enumerate() {
            let substitution = previous[column] + usize::from(character != other);
            current[column + 1] = substitution
                .min(previous[column + 1] + 1)
                .min(current[column] + 1);
        }
        if current.iter().min().is_some_and(|&least| least > limit) {
            return limit + 1;
        }
        previous = current;
    }
    previous[right.len()]
}
