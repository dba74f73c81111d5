//! Reading a `SKILL.md`: front matter, the body fallbacks, and every repair said out loud.
//!
//! The rules, in order:
//!
//! 1. An optional UTF-8 byte-order mark and blank lines may come first. If the next line is `---`
//!    alone (trailing spaces allowed), the front matter runs up to the next line that is `---`
//!    alone. `\n` and `\r\n` line ends both work; a `---` inside a value never closes it.
//! 2. The front matter is parsed as YAML (the 1.2 core schema: `yes`, `on`, `007`, `1_000` and
//!    `.inf` are text) with hard limits on aliases, depth and size. The fields the format
//!    defines as text — `name`, `description`, `license`, `compatibility`, `allowed-tools` and
//!    every `metadata` value — keep the scalar exactly as written (`1.10` stays `1.10`, `0x1F`
//!    stays `0x1F`); every other field carries its YAML type. `disable-model-invocation` is on
//!    only for `true` (any case) or the string `"true"`. When the YAML is invalid, one repair is
//!    tried: a plain value containing `: ` is quoted (a
//!    [`RepairedYaml`](crate::DiagnosticCode::RepairedYaml) warning says which line). When the
//!    repair fails too, or the front matter is not a mapping, or it is never closed, the
//!    top-level `name`, `description` and `disable-model-invocation` keys are read line by line
//!    and an error diagnostic points at the line and column. A skill is never dropped.
//! 3. The body is read only as far as needed: for the first Markdown heading when there is no
//!    `name`, and for the first paragraph when there is no `description` (code fences skipped).
//!
//! [`SkillDocument`] is what comes out; [`crate::Skill`] applies the fallbacks of SPEC §2.3.

use std::path::Path;

use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, DiagnosticCode};

mod body;
mod lines;
mod simple;
mod yaml;

pub(crate) use yaml::{compact, value_kind};

#[cfg(test)]
use body::first_heading_and_paragraph;

/// Everything read from one `SKILL.md`.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SkillDocument {
    /// The front matter's `name`, trimmed; `None` when missing or blank.
    pub name: Option<String>,
    /// The front matter's `description`, trimmed; `None` when missing or blank.
    pub description: Option<String>,
    /// The text of the body's first Markdown heading (read only when `name` is missing).
    pub heading: Option<String>,
    /// The body's first paragraph, lines joined by single spaces (read only when `description`
    /// is missing).
    pub first_paragraph: Option<String>,
    /// `disable-model-invocation` is YAML `true` (any case) or the string `"true"`.
    pub disable_model_invocation: bool,
    /// Every front matter field, in file order, losslessly (unknown fields included).
    pub fields: Map<String, Value>,
    /// The front matter text between the `---` lines, exactly as in the file.
    pub raw_front_matter: Option<String>,
    /// A closing `---` ended the front matter (without one, the rest of the file was read as
    /// front matter, line by line).
    pub front_matter_closed: bool,
    /// 1-based line of the first front matter line (the line after the opening `---`).
    pub front_matter_line: Option<u64>,
    /// The file starts with a UTF-8 byte-order mark (it was skipped).
    pub byte_order_mark: bool,
    /// 1-based line where the body starts.
    pub body_line: u64,
    /// Problems found, each naming the file, with line and column where they have one.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a whole `SKILL.md` held in memory. `path` is only used to name the file in diagnostics.
///
/// This never fails and never panics: problems become [`SkillDocument::diagnostics`].
pub fn parse(path: &Path, text: &str) -> SkillDocument {
    let mut scanner = Scanner::new(path, Needs::Everything);
    for line in text.split_inclusive('\n') {
        if scanner.push_line(line) == Progress::Enough {
            break;
        }
    }
    scanner.finish()
}

/// The fields of front matter text `raw` (as [`SkillDocument::fields`] holds them), read again
/// by the same rules; `closed` tells whether a closing `---` ended it (an unclosed front matter
/// is read line by line). Discovered skills keep the text and read the fields when asked.
pub(crate) fn fields_of(raw: &str, closed: bool) -> Map<String, Value> {
    let mut document = SkillDocument::default();
    match closed {
        true => yaml::read_front_matter(Path::new(""), raw, 1, &mut document),
        false => yaml::read_lines_into(raw, &mut document),
    }
    document.fields
}

/// What the caller wants out of the body.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Needs {
    /// Read the body only for the `name`/`description` fallbacks the front matter leaves
    /// needed, then stop: the heading when it has no `name` or one `usable_name` refuses (a
    /// name that cannot name the skill falls back to the heading, SPEC §2.3).
    Catalog { usable_name: fn(&str) -> bool },
    /// Read every line (still extracting only the fallbacks).
    Everything,
}

/// Whether a [`Scanner`] wants more lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress {
    More,
    Enough,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first non-blank line.
    Start,
    /// Inside the front matter.
    FrontMatter,
    /// In the body, looking for fallbacks.
    Body,
    /// Nothing more is needed.
    Done,
}

/// Reads a `SKILL.md` line by line so that discovery can stop as soon as it knows enough.
pub(crate) struct Scanner<'p> {
    path: &'p Path,
    needs: Needs,
    state: State,
    line_number: u64,
    front_matter: String,
    document: SkillDocument,
    body: body::BodyScan,
}

impl<'p> Scanner<'p> {
    pub(crate) fn new(path: &'p Path, needs: Needs) -> Self {
        Scanner {
            path,
            needs,
            state: State::Start,
            line_number: 0,
            front_matter: String::new(),
            document: SkillDocument {
                body_line: 1,
                ..SkillDocument::default()
            },
            body: body::BodyScan::default(),
        }
    }

    /// Feeds one line, including its line end (the last line may have none).
    pub(crate) fn push_line(&mut self, line: &str) -> Progress {
        self.line_number += 1;
        let line = match line.strip_prefix('\u{feff}') {
            Some(rest) if self.line_number == 1 => {
                self.document.byte_order_mark = true;
                rest
            }
            _ => line,
        };
        match self.state {
            State::Start => self.start_line(line),
            State::FrontMatter => self.front_matter_line(line),
            State::Body => self.body_line(line),
            State::Done => {}
        }
        if self.state == State::Done {
            Progress::Enough
        } else {
            Progress::More
        }
    }

    fn start_line(&mut self, line: &str) {
        let content = lines::content(line);
        if content.trim().is_empty() {
            return;
        }
        if lines::is_delimiter(content) {
            self.state = State::FrontMatter;
            self.document.front_matter_line = Some(self.line_number + 1);
        } else {
            self.document.body_line = self.line_number;
            self.state = State::Body;
            self.body_line(line);
        }
    }

    fn front_matter_line(&mut self, line: &str) {
        if lines::is_delimiter(lines::content(line)) {
            self.close_front_matter();
            self.document.body_line = self.line_number + 1;
            self.state = if self.body_needed() {
                State::Body
            } else {
                State::Done
            };
        } else {
            self.front_matter.push_str(line);
        }
    }

    fn body_line(&mut self, line: &str) {
        self.body.push(lines::content(line));
        if !self.body_needed() {
            self.state = State::Done;
        }
    }

    fn body_needed(&self) -> bool {
        match self.needs {
            Needs::Everything => true,
            Needs::Catalog { usable_name } => {
                let name_usable = self.document.name.as_deref().is_some_and(usable_name);
                (!name_usable && !self.body.has_heading())
                    || (self.document.description.is_none() && !self.body.has_paragraph())
            }
        }
    }

    fn close_front_matter(&mut self) {
        let first_line = self.document.front_matter_line.unwrap_or(1);
        let mut raw = std::mem::take(&mut self.front_matter);
        // Kept with every skill: no room to spare from growing line by line.
        raw.shrink_to_fit();
        yaml::read_front_matter(self.path, &raw, first_line, &mut self.document);
        self.document.raw_front_matter = Some(raw);
        self.document.front_matter_closed = true;
    }

    /// Ends the file: closes what is open and returns the document.
    pub(crate) fn finish(mut self) -> SkillDocument {
        if self.state == State::FrontMatter {
            let opening_line = self.document.front_matter_line.unwrap_or(1) - 1;
            self.document.diagnostics.push(
                Diagnostic::error(
                    DiagnosticCode::UnclosedFrontMatter,
                    self.path,
                    "the front matter opened with `---` is never closed; add a line `---` after \
                     the last front matter field",
                )
                .at(opening_line, 1),
            );
            let raw = std::mem::take(&mut self.front_matter);
            yaml::read_lines_into(&raw, &mut self.document);
            self.document.raw_front_matter = Some(raw);
            self.document.body_line = self.line_number + 1;
        }
        let (heading, paragraph) = self.body.finish();
        self.document.heading = heading;
        self.document.first_paragraph = paragraph;
        self.document
    }

    /// Records that the file had invalid UTF-8, first seen on the line just fed.
    pub(crate) fn invalid_utf8_on_last_line(&mut self) {
        let line = self.line_number.max(1);
        self.document.diagnostics.push(
            Diagnostic::error(
                DiagnosticCode::InvalidUtf8,
                self.path,
                "the file is not valid UTF-8; invalid bytes were replaced with U+FFFD",
            )
            .at(line, 1)
            .with_hint("save the file as UTF-8"),
        );
    }

    /// Appends a diagnostic found by the caller (for example a size limit).
    pub(crate) fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.document.diagnostics.push(diagnostic);
    }
}

#[cfg(test)]
mod differential;
#[cfg(test)]
mod tests;
