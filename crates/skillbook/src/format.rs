//! The Agent Skills format: the rules a `SKILL.md` is held to, and the [`SkillName`] type.
//!
//! These rules are pure: they look at a parsed [`SkillDocument`] and never touch the disk, so
//! discovery (which reports them leniently) and [`crate::check`] (which checks files for
//! `skillbook check`) both build on them.
//!
//! The rules, each with its stable [`DiagnosticCode`]:
//!
//! 1. **Front matter.** The file opens with `---` on its first line (no blank lines —
//!    `leading_blank_lines` —, no byte-order mark — `byte_order_mark`), holds valid YAML
//!    (`invalid_yaml`, `repaired_yaml` for the unquoted `: ` that was read as if quoted,
//!    `duplicate_key`, `front_matter_not_mapping`) and is closed by `---`
//!    (`unclosed_front_matter`). No front matter at all is one `missing_front_matter`.
//!    Windows line ends (`crlf_line_ends`) and tabs (`tab_character`) are reported because many
//!    clients refuse them. The file is named `SKILL.md` (`lowercase_file_name` for `skill.md`).
//! 2. **`name`** is present (`missing_name`); compared in Unicode NFKC, it has at most 64
//!    characters (`name_too_long`), no upper-case letters (`name_not_lowercase`), only letters,
//!    digits and hyphens of any script (`name_invalid_character`), no hyphen at either end and
//!    never two in a row (`name_hyphens`), and equals the directory's name
//!    (`name_directory_mismatch`).
//! 3. **`description`** is present and not blank (`missing_description`), at most 1024
//!    characters (`description_too_long`).
//! 4. **`compatibility`**, **`license`**, **`allowed-tools`** are optional strings
//!    (`invalid_field_type`, `empty_field`); `compatibility` has at most 500 characters
//!    (`compatibility_too_long`).
//! 5. **`metadata`** is a mapping (`invalid_field_type`, `empty_field`) of keys to strings
//!    (`metadata_value_not_string`).
//! 6. Values YAML reads as numbers, booleans or null where text belongs (`version: 1.0`) are
//!    `non_string_value`, and so is a list of tools under `allowed-tools` (some clients read
//!    one; the format asks for a string); fields the format does not define are
//!    `unknown_field`, except [`CLIENT_FIELDS`], which skillbook or a major client reads.
//!
//! How serious each finding is depends on the [`Mode`]: discovery uses [`Mode::Lenient`],
//! `skillbook check` uses [`Mode::Standard`], and `skillbook check --strict` uses
//! [`Mode::Strict`]. The rules are the same in every mode.
//!
//! ```
//! use std::path::Path;
//! use skillbook::check::{self, Mode};
//!
//! let text = "---\nname: PDF Tools\ndescription: Fill PDF forms.\n---\n";
//! let problems = check::check_text(Path::new("skills/pdf-tools/SKILL.md"), text, Mode::Standard);
//! let codes: Vec<&str> = problems.iter().map(|problem| problem.code.as_str()).collect();
//! assert_eq!(codes, ["name_not_lowercase", "name_invalid_character", "name_directory_mismatch"]);
//! assert_eq!((problems[0].line, problems[0].column), (Some(2), Some(7)));
//! assert_eq!(problems[0].hint.as_deref(), Some("write it as: name: pdf-tools"));
//! ```

use std::path::Path;

use crate::diagnostic::{Diagnostic, DiagnosticCode, Severity};
#[cfg(feature = "check")]
use crate::frontmatter;
use crate::frontmatter::SkillDocument;

mod name;
mod position;
mod rules;
mod skill_name;

#[cfg(feature = "check")]
pub use name::MAX_NAME_CHARACTERS;
#[cfg(feature = "check")]
pub use rules::{
    CLIENT_FIELDS, FORMAT_FIELDS, MAX_COMPATIBILITY_CHARACTERS, MAX_DESCRIPTION_CHARACTERS,
};
pub(crate) use skill_name::name_key;
pub use skill_name::{NameError, SkillName};

/// How strictly findings count.
#[cfg_attr(not(feature = "check"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Mode {
    /// What discovery reports: breaking the format and the repairs are warnings (skillbook
    /// still loads the skill), unknown fields, `\r\n` line ends and a `skill.md` file name are
    /// not reported (skillbook accepts them on purpose). Unreadable front matter stays an error.
    Lenient,
    /// `skillbook check`: breaking the format is an error; the repairs and what only some
    /// clients refuse (unknown fields, tabs, `\r\n`, a byte-order mark, …) are warnings.
    #[default]
    Standard,
    /// `skillbook check --strict`: every finding is an error.
    Strict,
}

/// What kind of finding a code is, which decides its severity in each [`Mode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// The file or its front matter cannot be read as written: an error in every mode.
    Broken,
    /// The skill breaks the format: a warning in lenient mode, an error otherwise.
    Format,
    /// skillbook repaired or tolerated it, other clients may not: an error only when strict.
    Repair,
    /// skillbook accepts it on purpose: silent in lenient mode, an error only when strict.
    Convention,
    /// About the walk, not a file's content: the severity discovery gave it.
    Walk,
    /// What the body refers to, checked against the skill's folder: never reported in lenient
    /// mode (discovery does not look past the skill file), an error only when strict.
    Lint,
}

pub(crate) fn class(code: DiagnosticCode) -> Class {
    use DiagnosticCode as Code;
    match code {
        Code::InvalidYaml
        | Code::UnclosedFrontMatter
        | Code::FrontMatterNotMapping
        | Code::InvalidUtf8
        | Code::DuplicateName => Class::Broken,
        Code::InvalidFieldType
        | Code::FileTooLarge
        | Code::MissingFrontMatter
        | Code::MissingName
        | Code::NameTooLong
        | Code::NameNotLowercase
        | Code::NameInvalidCharacter
        | Code::NameHyphens
        | Code::NameDirectoryMismatch
        | Code::MissingDescription
        | Code::DescriptionTooLong
        | Code::CompatibilityTooLong
        | Code::EmptyField
        | Code::MetadataValueNotString
        | Code::UnusableName => Class::Format,
        Code::RepairedYaml
        | Code::DuplicateKey
        | Code::NonStringValue
        | Code::ByteOrderMark
        | Code::LeadingBlankLines
        | Code::TabCharacter
        | Code::ControlCharacter
        | Code::Shadowed => Class::Repair,
        Code::UnknownField | Code::CrlfLineEnds | Code::LowercaseFileName => Class::Convention,
        Code::NotRegularFile
        | Code::SymlinkSkipped
        | Code::BrokenSymlink
        | Code::SymlinkLoop
        | Code::ExtraRootMissing
        | Code::Unreadable
        | Code::DepthLimit
        | Code::DirectoryLimit
        | Code::NoSkillFound
        | Code::LockMismatch
        | Code::NotLocked => Class::Walk,
        Code::BrokenReference | Code::ReferenceOutsideSkill | Code::ReferenceCaseMismatch => {
            Class::Lint
        }
    }
}

/// The severity of a finding with `code` in `mode`; `None` when the mode does not report it.
pub(crate) fn severity(code: DiagnosticCode, mode: Mode, found: Severity) -> Option<Severity> {
    use Severity::{Error, Warning};
    match (class(code), mode) {
        (Class::Walk, _) => Some(found),
        (Class::Broken, _) | (Class::Format, Mode::Standard | Mode::Strict) => Some(Error),
        (Class::Format | Class::Repair, Mode::Lenient) => Some(Warning),
        (Class::Repair | Class::Convention | Class::Lint, Mode::Standard) => Some(Warning),
        (Class::Repair | Class::Convention | Class::Lint, Mode::Strict) => Some(Error),
        (Class::Convention | Class::Lint, Mode::Lenient) => None,
    }
}

/// Sets each diagnostic's severity for `mode`, dropping those the mode does not report.
pub(crate) fn grade(diagnostics: Vec<Diagnostic>, mode: Mode) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter_map(|mut diagnostic| {
            diagnostic.severity = severity(diagnostic.code, mode, diagnostic.severity)?;
            Some(diagnostic)
        })
        .collect()
}

/// Every problem of a parsed skill file: the reader's own diagnostics and the format's rules,
/// graded for `mode`, in line order. `path` is the skill file; its directory's name is the one
/// the `name` must equal.
#[cfg(feature = "check")]
pub fn check_document(path: &Path, document: &SkillDocument, mode: Mode) -> Vec<Diagnostic> {
    check_document_allowing(path, document, mode, &[])
}

/// [`check_document`], with `allowed_fields` accepted as if the format defined them (no
/// `unknown_field` for them).
#[cfg(feature = "check")]
pub(crate) fn check_document_allowing(
    path: &Path,
    document: &SkillDocument,
    mode: Mode,
    allowed_fields: &[String],
) -> Vec<Diagnostic> {
    let mut diagnostics = document.diagnostics.clone();
    diagnostics.extend(rules::check(path, document, allowed_fields));
    let mut diagnostics = grade(diagnostics, mode);
    diagnostics.sort_by_key(|diagnostic| diagnostic.line);
    diagnostics
}

/// The format's findings for a skill file's text held in memory: the text is read as discovery
/// reads a `SKILL.md`, then every rule is applied and graded for `mode`.
#[cfg(feature = "check")]
pub fn check_text(path: &Path, text: &str, mode: Mode) -> Vec<Diagnostic> {
    check_document(path, &frontmatter::parse(path, text), mode)
}

/// The format's rules in [`Mode::Lenient`], without the reader's own diagnostics (discovery
/// reports those already).
pub(crate) fn lenient_findings(path: &Path, document: &SkillDocument) -> Vec<Diagnostic> {
    grade(rules::check(path, document, &[]), Mode::Lenient)
}
