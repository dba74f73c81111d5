//! Diagnostics: every problem discovery meets, typed and reported, never swallowed.
//!
//! Discovery never fails as a whole. A skill file that cannot be parsed, a directory that cannot
//! be listed, a symlink that was skipped: each becomes a [`Diagnostic`] with a stable
//! [`DiagnosticCode`], the path it concerns and a message a person can act on.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something was refused or could not be read; a skill may be missing or degraded.
    Error,
    /// Something was repaired, skipped or shadowed; the result is usable but may surprise.
    Warning,
    /// Worth knowing; nothing was lost.
    Info,
}

impl Severity {
    /// The lowercase name used in text and JSON output: `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// A stable, machine-readable code naming the kind of problem.
///
/// Codes are part of the JSON contract: scripts match on [`DiagnosticCode::as_str`]. New codes
/// may be added in minor releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum DiagnosticCode {
    /// The front matter is not valid YAML; a line-based reading was used instead.
    InvalidYaml,
    /// The front matter was valid YAML only after quoting a value that contains `: `.
    RepairedYaml,
    /// The opening `---` has no closing `---`; a line-based reading was used.
    UnclosedFrontMatter,
    /// The front matter is valid YAML but not a mapping of keys to values.
    FrontMatterNotMapping,
    /// A top-level key appears twice in the front matter; the last one is used.
    DuplicateKey,
    /// A known field has the wrong type (for example a list where a string was expected).
    InvalidFieldType,
    /// The skill file is not valid UTF-8; invalid bytes were replaced.
    InvalidUtf8,
    /// The skill file is over the size limit; only its beginning was read.
    FileTooLarge,
    /// A `SKILL.md` exists but is not a regular file (directory, FIFO, socket or device).
    NotRegularFile,
    /// A symbolic link was skipped under the `skip` symlink policy.
    SymlinkSkipped,
    /// An extra root named by the user does not exist or is not a directory.
    ExtraRootMissing,
    /// A description holds control characters, which the catalog replaces.
    ControlCharacter,
    /// A symbolic link points nowhere.
    BrokenSymlink,
    /// Following a symbolic link would revisit a directory already being walked.
    SymlinkLoop,
    /// A directory or file could not be read (permissions, I/O error).
    Unreadable,
    /// The walk reached the maximum depth; deeper directories were not searched.
    DepthLimit,
    /// The walk reached the maximum number of directories for one root.
    DirectoryLimit,
    /// A skill was ignored because an earlier skill has the same name.
    Shadowed,
    /// Two skills share a name and the strict duplicate policy is on.
    DuplicateName,
    /// A skill under a locked root differs from what its lock pins (refused by an
    /// [`crate::Admission`]).
    LockMismatch,
    /// A skill under a locked root is not in its lock (refused by an [`crate::Admission`]).
    NotLocked,
    /// The skill file has no front matter: it does not open with a `---` line.
    MissingFrontMatter,
    /// Blank lines come before the opening `---`, which many clients do not accept.
    LeadingBlankLines,
    /// The skill file starts with a UTF-8 byte-order mark, which hides the opening `---` from
    /// many clients.
    ByteOrderMark,
    /// The front matter uses Windows line ends (`\r\n`).
    CrlfLineEnds,
    /// The front matter holds a tab character, which many YAML readers refuse.
    TabCharacter,
    /// The skill file is named `skill.md`; the format names it `SKILL.md`.
    LowercaseFileName,
    /// The front matter has no `name`, or it is empty.
    MissingName,
    /// The `name` is longer than 64 characters.
    NameTooLong,
    /// The `name` holds upper-case letters.
    NameNotLowercase,
    /// The `name` holds a character other than a letter, a digit or a hyphen.
    NameInvalidCharacter,
    /// The `name` starts or ends with a hyphen, or holds two hyphens in a row.
    NameHyphens,
    /// The `name` differs from the name of the skill's directory.
    NameDirectoryMismatch,
    /// The front matter has no `description`, or it is empty.
    MissingDescription,
    /// The `description` is longer than 1024 characters.
    DescriptionTooLong,
    /// The `compatibility` is longer than 500 characters.
    CompatibilityTooLong,
    /// An optional field of the format is present without a value.
    EmptyField,
    /// A `metadata` value is a list or a mapping instead of a string.
    MetadataValueNotString,
    /// A value YAML reads as a number, a boolean or null where the format expects a string.
    NonStringValue,
    /// A front matter field the format does not define.
    UnknownField,
    /// A path given to the validator holds no skill.
    NoSkillFound,
    /// A name (from the front matter or the first heading) cannot name a skill: it holds a `/`
    /// or a control character. The skill takes the next name in line instead.
    UnusableName,
    /// The body refers to a file of the skill (a Markdown link, an image, a link definition, or
    /// a path in inline code) that is not in the skill's folder.
    BrokenReference,
    /// The body refers to a file outside the skill's folder: an absolute path, a path that climbs
    /// out with `..`, or one that leads out through a symbolic link.
    ReferenceOutsideSkill,
    /// A word of the body names a file of the skill only in another case (`FORMS.md` for
    /// `forms.md`).
    ReferenceCaseMismatch,
}

impl DiagnosticCode {
    /// The stable snake_case code, e.g. `invalid_yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticCode::InvalidYaml => "invalid_yaml",
            DiagnosticCode::RepairedYaml => "repaired_yaml",
            DiagnosticCode::UnclosedFrontMatter => "unclosed_front_matter",
            DiagnosticCode::FrontMatterNotMapping => "front_matter_not_mapping",
            DiagnosticCode::DuplicateKey => "duplicate_key",
            DiagnosticCode::InvalidFieldType => "invalid_field_type",
            DiagnosticCode::InvalidUtf8 => "invalid_utf8",
            DiagnosticCode::FileTooLarge => "file_too_large",
            DiagnosticCode::NotRegularFile => "not_regular_file",
            DiagnosticCode::SymlinkSkipped => "symlink_skipped",
            DiagnosticCode::BrokenSymlink => "broken_symlink",
            DiagnosticCode::SymlinkLoop => "symlink_loop",
            DiagnosticCode::ExtraRootMissing => "extra_root_missing",
            DiagnosticCode::ControlCharacter => "control_character",
            DiagnosticCode::Unreadable => "unreadable",
            DiagnosticCode::DepthLimit => "depth_limit",
            DiagnosticCode::DirectoryLimit => "directory_limit",
            DiagnosticCode::Shadowed => "shadowed",
            DiagnosticCode::DuplicateName => "duplicate_name",
            DiagnosticCode::LockMismatch => "lock_mismatch",
            DiagnosticCode::NotLocked => "not_locked",
            DiagnosticCode::MissingFrontMatter => "missing_front_matter",
            DiagnosticCode::LeadingBlankLines => "leading_blank_lines",
            DiagnosticCode::ByteOrderMark => "byte_order_mark",
            DiagnosticCode::CrlfLineEnds => "crlf_line_ends",
            DiagnosticCode::TabCharacter => "tab_character",
            DiagnosticCode::LowercaseFileName => "lowercase_file_name",
            DiagnosticCode::MissingName => "missing_name",
            DiagnosticCode::NameTooLong => "name_too_long",
            DiagnosticCode::NameNotLowercase => "name_not_lowercase",
            DiagnosticCode::NameInvalidCharacter => "name_invalid_character",
            DiagnosticCode::NameHyphens => "name_hyphens",
            DiagnosticCode::NameDirectoryMismatch => "name_directory_mismatch",
            DiagnosticCode::MissingDescription => "missing_description",
            DiagnosticCode::DescriptionTooLong => "description_too_long",
            DiagnosticCode::CompatibilityTooLong => "compatibility_too_long",
            DiagnosticCode::EmptyField => "empty_field",
            DiagnosticCode::MetadataValueNotString => "metadata_value_not_string",
            DiagnosticCode::NonStringValue => "non_string_value",
            DiagnosticCode::UnknownField => "unknown_field",
            DiagnosticCode::NoSkillFound => "no_skill_found",
            DiagnosticCode::UnusableName => "unusable_name",
            DiagnosticCode::BrokenReference => "broken_reference",
            DiagnosticCode::ReferenceOutsideSkill => "reference_outside_skill",
            DiagnosticCode::ReferenceCaseMismatch => "reference_case_mismatch",
        }
    }
}

impl fmt::Display for DiagnosticCode {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl Serialize for DiagnosticCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One problem found while discovering or reading skills.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// What kind of problem it is.
    pub code: DiagnosticCode,
    /// The file or directory concerned.
    #[serde(serialize_with = "crate::paths::serialize_path")]
    pub path: PathBuf,
    /// 1-based line in `path`, for problems inside a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// 1-based column (in characters) on `line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// What happened (and, when there is no hint, what to do about it).
    pub message: String,
    /// How to fix it, when there is a concrete fix (for example the corrected line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Diagnostic {
    /// Creates a diagnostic without a position.
    pub fn new(
        severity: Severity,
        code: DiagnosticCode,
        path: impl Into<PathBuf>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            code,
            path: path.into(),
            line: None,
            column: None,
            message: message.into(),
            hint: None,
        }
    }

    /// Shorthand for an [`Severity::Error`] diagnostic.
    pub fn error(code: DiagnosticCode, path: &Path, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, code, path, message)
    }

    /// Shorthand for a [`Severity::Warning`] diagnostic.
    pub fn warning(code: DiagnosticCode, path: &Path, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, code, path, message)
    }

    /// Returns the diagnostic with a 1-based line and column.
    #[must_use]
    pub fn at(mut self, line: u64, column: u64) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    /// Returns the diagnostic with a hint: how to fix the problem.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// Formats as `severity[code]: path:line:column: message`, followed by `; hint` when there is
/// a hint.
impl fmt::Display for Diagnostic {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{}[{}]: {}",
            self.severity,
            self.code,
            self.path.display()
        )?;
        if let Some(line) = self.line {
            write!(formatter, ":{line}")?;
            if let Some(column) = self.column {
                write!(formatter, ":{column}")?;
            }
        }
        write!(formatter, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(formatter, "; {hint}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_severity_code_position_and_message() {
        let diagnostic = Diagnostic::error(
            DiagnosticCode::InvalidYaml,
            Path::new("/s/a/SKILL.md"),
            "bad",
        )
        .at(3, 7);
        assert_eq!(
            diagnostic.to_string(),
            "error[invalid_yaml]: /s/a/SKILL.md:3:7: bad"
        );
    }

    #[test]
    fn display_appends_the_hint() {
        let diagnostic = Diagnostic::warning(
            DiagnosticCode::RepairedYaml,
            Path::new("/s/a/SKILL.md"),
            "read as if quoted",
        )
        .at(3, 22)
        .with_hint("write it as: description: \"a: b\"");
        assert_eq!(
            diagnostic.to_string(),
            "warning[repaired_yaml]: /s/a/SKILL.md:3:22: read as if quoted; write it as: \
             description: \"a: b\""
        );
    }

    #[test]
    fn json_shape_is_stable() {
        let diagnostic = Diagnostic::warning(
            DiagnosticCode::Shadowed,
            Path::new("/s/b/SKILL.md"),
            "shadowed",
        );
        assert_eq!(
            serde_json::to_value(&diagnostic).ok(),
            Some(serde_json::json!({
                "severity": "warning",
                "code": "shadowed",
                "path": "/s/b/SKILL.md",
                "message": "shadowed",
            }))
        );
    }
}
