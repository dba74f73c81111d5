//! Validation: checking skills on disk against the Agent Skills format (`skillbook check`).
//!
//! The format's rules (re-exported here) are applied by discovery too; this module finds the
//! files to check — a `SKILL.md`, a skill directory, or a directory of skills searched as
//! discovery searches a root — and grades each finding for a [`Mode`].
//!
//! Beyond the format's rules, a [`Checker`] looks at what the body of each skill file refers to,
//! beneath a handle on the skill's folder (so these need the disk, and [`check_text`] does
//! not report them):
//!
//! - `broken_reference`: a file the body points at — a Markdown link or image, a `[label]: path`
//!   definition, or inline code that reads as a path of the skill (`scripts/fill.py`) — is not in
//!   the skill's folder. The hint names the file meant when one matches in another case, by file
//!   name, or as a near miss (`FORMS.md` → `forms.md`).
//! - `reference_outside_skill`: a reference leaves the skill's folder — an absolute path, `..`
//!   climbing out, or a symbolic link inside the skill that leads out (never followed) — whether
//!   or not the file exists.
//!
//! Both are warnings, errors under [`Mode::Strict`], and never reported in [`Mode::Lenient`]:
//! discovery does not look them up. URLs, anchors and code blocks are not references.
//!
//! ```
//! use std::path::Path;
//! use skillbook::check::{self, Mode};
//!
//! let text = "---\nname: PDF Tools\ndescription: Fill PDF forms.\n---\n";
//! let problems = check::check_text(Path::new("skills/pdf-tools/SKILL.md"), text, Mode::Standard);
//! assert_eq!(problems[0].code.as_str(), "name_not_lowercase");
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, DiagnosticCode, Severity};
use crate::discovery::{Discovery, Home, Limits, SymlinkPolicy};
use crate::frontmatter::SkillDocument;

mod references;
mod source;

pub use crate::format::{
    CLIENT_FIELDS, FORMAT_FIELDS, MAX_COMPATIBILITY_CHARACTERS, MAX_DESCRIPTION_CHARACTERS,
    MAX_NAME_CHARACTERS, Mode, check_text,
};
use crate::format::{Class, check_document_allowing, class, grade, severity};

/// What a check found.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// How many skill files were checked.
    pub skills_checked: usize,
    /// Every problem, grouped by file and in line order within a file.
    pub diagnostics: Vec<Diagnostic>,
    /// The source line of each positioned diagnostic, by path and line.
    source_lines: BTreeMap<(PathBuf, u64), String>,
}

impl Report {
    /// No diagnostic is an error. Warnings alone leave a report valid.
    pub fn is_valid(&self) -> bool {
        self.count(Severity::Error) == 0
    }

    /// How many diagnostics have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == severity)
            .count()
    }

    /// The text of the line a diagnostic points at (without its line end), when it has one.
    pub fn source_line(&self, diagnostic: &Diagnostic) -> Option<&str> {
        let line = diagnostic.line?;
        self.source_lines
            .get(&(diagnostic.path.clone(), line))
            .map(String::as_str)
    }

    /// Adds another report's skills and diagnostics to this one.
    pub fn merge(&mut self, other: Report) {
        self.skills_checked += other.skills_checked;
        self.diagnostics.extend(other.diagnostics);
        self.source_lines.extend(other.source_lines);
    }

    fn problem(diagnostic: Diagnostic) -> Self {
        Report {
            diagnostics: vec![diagnostic],
            ..Report::default()
        }
    }
}

/// Why a path could not be checked at all.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct CheckError {
    path: PathBuf,
    kind: CheckErrorKind,
}

impl CheckError {
    /// The path as it was given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What was wrong with it.
    pub fn kind(&self) -> CheckErrorKind {
        self.kind
    }
}

/// What was wrong with a path given to [`Checker::check_path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckErrorKind {
    /// Nothing exists at the path.
    #[error(
        "no such file or directory; give a skill directory, a SKILL.md, or a directory of skills"
    )]
    NotFound,
    /// The path is a file that is not named `SKILL.md` or `skill.md`.
    #[error("not a skill file: give a skill directory, a SKILL.md, or a directory of skills")]
    NotASkillFile,
}

/// Checks skills on disk: a skill directory, a `SKILL.md`, or a directory holding many skills.
///
/// ```
/// use skillbook::check::{Checker, Mode};
///
/// let root = tempfile::tempdir()?;
/// let skill = root.path().join("review");
/// std::fs::create_dir(&skill)?;
/// std::fs::write(skill.join("SKILL.md"), "---\nname: review\ndescription: Review code.\n---\n")?;
///
/// let report = Checker::new(Mode::Strict).check_path(root.path())?;
/// assert_eq!(report.skills_checked, 1);
/// assert!(report.is_valid());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Checker {
    mode: Mode,
    symlinks: SymlinkPolicy,
    limits: Limits,
    allowed_fields: Vec<String>,
}

impl Checker {
    /// A checker grading findings for `mode`.
    pub fn new(mode: Mode) -> Self {
        Checker {
            mode,
            symlinks: SymlinkPolicy::default(),
            limits: Limits::default(),
            allowed_fields: Vec::new(),
        }
    }

    /// Accepts a front matter field the format does not define, as if it did: no
    /// `unknown_field` for it. For fields a client you target reads; [`CLIENT_FIELDS`] are
    /// accepted already.
    #[must_use]
    pub fn allow_field(mut self, name: impl Into<String>) -> Self {
        self.allowed_fields.push(name.into());
        self
    }

    /// What to do with symbolic links below a directory, and with a linked `SKILL.md` given
    /// directly. Default: [`SymlinkPolicy::Skip`], as in discovery.
    #[must_use]
    pub fn symlinks(mut self, policy: SymlinkPolicy) -> Self {
        self.symlinks = policy;
        self
    }

    /// Walk bounds and the largest skill file read. Default: [`Limits::default`].
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Checks `path`: a `SKILL.md` (or `skill.md`), a skill directory, or a directory searched
    /// for skills at any depth as discovery searches a root. A path holding no skill gets a
    /// `no_skill_found` error; problems on the way (unreadable folders, skipped links) are
    /// diagnostics. Paths in the report start with `path` as given.
    ///
    /// # Errors
    ///
    /// Nothing exists at `path` ([`CheckErrorKind::NotFound`]), or it is a file with another
    /// name ([`CheckErrorKind::NotASkillFile`]).
    pub fn check_path(&self, path: impl AsRef<Path>) -> Result<Report, CheckError> {
        let path = path.as_ref();
        let error = |kind| CheckError {
            path: path.to_path_buf(),
            kind,
        };
        let metadata = match fs::symlink_metadata(path) {
            Ok(metadata) => metadata,
            Err(failure) if failure.kind() == io::ErrorKind::NotFound => {
                return Err(error(CheckErrorKind::NotFound));
            }
            Err(failure) => return Ok(Report::problem(unreadable(path, &failure))),
        };
        let link = metadata.file_type().is_symlink();
        let is_directory = if link {
            fs::metadata(path).is_ok_and(|target| target.is_dir())
        } else {
            metadata.is_dir()
        };
        if is_directory {
            let mut report = self.check_directory(path);
            if report.skills_checked == 0 {
                report.diagnostics.push(no_skill_found(path));
            }
            return Ok(report);
        }
        if !is_skill_file_name(path) {
            return Err(error(CheckErrorKind::NotASkillFile));
        }
        if link && self.symlinks == SymlinkPolicy::Skip {
            let mut report = Report::problem(symlink_skipped(path));
            report.diagnostics.push(no_skill_found(path));
            return Ok(report);
        }
        Ok(self.check_file(path, link))
    }

    /// Checks the skills under every root `discovery` searches ([`Discovery::roots`]), each
    /// root on its own, so that a workspace skill overriding a home skill of the same name is
    /// not a problem. Missing roots are skipped; when no root holds a skill, the report has one
    /// `no_skill_found` error at the workspace.
    pub fn check_roots(&self, discovery: &Discovery) -> Report {
        let mut report = Report::default();
        for root in discovery.roots() {
            if fs::metadata(&root.path).is_ok_and(|metadata| metadata.is_dir()) {
                report.merge(self.check_directory(&root.path));
            }
        }
        if report.skills_checked == 0 {
            report.diagnostics.push(
                Diagnostic::error(
                    DiagnosticCode::NoSkillFound,
                    discovery.workspace(),
                    "no skill found in the searched roots",
                )
                .with_hint(
                    "put skills under .agents/skills in the workspace, or give the paths to check",
                ),
            );
        }
        report
    }

    /// Checks every skill discovery finds with `directory` as its only root.
    fn check_directory(&self, directory: &Path) -> Report {
        let mut discovery = Discovery::new(directory);
        let absolute = discovery.workspace().to_path_buf();
        discovery = discovery
            .home(Home::Off)
            .namespaces(Vec::<String>::new())
            .extra_root(&absolute)
            .symlinks(self.symlinks)
            .limits(self.limits);
        // Discovery reads every skill file whole once (shadowed ones too); its content findings
        // are graded again below for this mode, its walk findings are kept as they are.
        let (found, inspected) = discovery.inspect();
        let walk_diagnostics: Vec<Diagnostic> = found
            .into_parts()
            .1
            .into_iter()
            .filter(|diagnostic| {
                class(diagnostic.code) == Class::Walk || diagnostic.code == DiagnosticCode::Shadowed
            })
            .collect();
        let mut report = Report::default();
        for file in inspected {
            report.merge(self.report_of(&file.path, &file.document, &file.text));
        }
        report
            .diagnostics
            .extend(grade(walk_diagnostics, self.mode));
        report
            .diagnostics
            .sort_by(|left, right| left.path.cmp(&right.path));
        report.relative_to(&absolute, directory)
    }

    /// Checks one skill file.
    fn check_file(&self, path: &Path, follow_link: bool) -> Report {
        let source = match source::read(path, self.limits.max_file_bytes, follow_link) {
            Ok(source) => source,
            Err(source::ReadFailure::NotRegular) => {
                return Report::problem(Diagnostic::error(
                    DiagnosticCode::NotRegularFile,
                    path,
                    "not a regular file (a directory, FIFO, socket or device), so it is not a \
                     skill file; replace it with a regular file",
                ));
            }
            Err(source::ReadFailure::Io(failure)) => {
                return Report::problem(unreadable(path, &failure));
            }
        };
        self.report_of(path, &source.document, &source.text)
    }

    /// The graded findings of one parsed skill file, with the source line of each.
    fn report_of(&self, path: &Path, document: &SkillDocument, text: &str) -> Report {
        let mut diagnostics =
            check_document_allowing(path, document, self.mode, &self.allowed_fields);
        // Lenient mode (discovery's) never reports references, so it never looks them up.
        let reported = severity(
            DiagnosticCode::BrokenReference,
            self.mode,
            Severity::Warning,
        );
        if reported.is_some() {
            let found = references::check(path, text, document.body_line);
            diagnostics.extend(grade(found, self.mode));
            diagnostics.sort_by_key(|diagnostic| diagnostic.line);
        }
        let wanted: BTreeSet<u64> = diagnostics
            .iter()
            .filter_map(|diagnostic| diagnostic.line)
            .collect();
        let mut source_lines = BTreeMap::new();
        for (number, text) in (1..).zip(text.lines()) {
            if wanted.contains(&number) {
                let text = text.strip_prefix('\u{feff}').unwrap_or(text);
                let text = text.strip_suffix('\r').unwrap_or(text);
                source_lines.insert((path.to_path_buf(), number), text.to_owned());
            }
            if wanted.last().is_none_or(|last| number >= *last) {
                break;
            }
        }
        Report {
            skills_checked: 1,
            diagnostics,
            source_lines,
        }
    }
}

impl Report {
    /// Rewrites paths under `absolute` to start with `given` instead.
    fn relative_to(mut self, absolute: &Path, given: &Path) -> Report {
        if absolute == given {
            return self;
        }
        let rewrite = |path: &Path| match path.strip_prefix(absolute) {
            Ok(rest) if rest.as_os_str().is_empty() => given.to_path_buf(),
            Ok(rest) => given.join(rest),
            Err(_) => path.to_path_buf(),
        };
        for diagnostic in &mut self.diagnostics {
            diagnostic.path = rewrite(&diagnostic.path);
        }
        self.source_lines = std::mem::take(&mut self.source_lines)
            .into_iter()
            .map(|((path, line), text)| ((rewrite(&path), line), text))
            .collect();
        self
    }
}

fn is_skill_file_name(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == "SKILL.md" || name == "skill.md")
}

fn unreadable(path: &Path, failure: &io::Error) -> Diagnostic {
    Diagnostic::error(
        DiagnosticCode::Unreadable,
        path,
        format!("cannot be read ({failure})"),
    )
    .with_hint("check its permissions")
}

fn symlink_skipped(path: &Path) -> Diagnostic {
    Diagnostic::warning(
        DiagnosticCode::SymlinkSkipped,
        path,
        "symbolic link skipped: links are not followed by default",
    )
    .with_hint("give the link's target, or follow links (--symlinks follow)")
}

fn no_skill_found(path: &Path) -> Diagnostic {
    Diagnostic::error(
        DiagnosticCode::NoSkillFound,
        path,
        "no skill found here: a skill is a directory holding a SKILL.md",
    )
    .with_hint("give a skill directory, a SKILL.md, or a directory that holds skills")
}

#[cfg(test)]
mod tests;
