//! `skillbook check [PATH…] [--strict]`: the format's rules, reported like a compiler.
//!
//! Exit codes: 0 when no problem is an error (warnings alone pass unless `--strict` makes them
//! errors), 1 when there are errors, 2 when a path does not exist or is not a skill file.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use serde::Serialize;
use skillbook::check::{CheckErrorKind, Checker, Mode, Report};
use skillbook::{Diagnostic, DiagnosticCode, Severity};

use crate::cli::{CheckArgs, CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

/// The JSON document of `skillbook check`.
#[derive(Serialize)]
struct CheckJson<'a> {
    valid: bool,
    skills_checked: usize,
    problems: Vec<Problem<'a>>,
}

/// One problem; every key is always present, `null` when it does not apply.
#[derive(Serialize)]
struct Problem<'a> {
    severity: Severity,
    code: DiagnosticCode,
    path: String,
    line: Option<u64>,
    column: Option<u64>,
    message: &'a str,
    hint: Option<&'a str>,
}

pub(crate) fn run(common: &CommonArgs, args: &CheckArgs) -> anyhow::Result<Outcome> {
    let mode = if args.strict {
        Mode::Strict
    } else {
        Mode::Standard
    };
    let mut checker = Checker::new(mode);
    checker = checker.symlinks(settings::symlink_policy(common.symlinks));
    for field in &args.allow_fields {
        checker = checker.allow_field(field);
    }
    let report = if args.paths.is_empty() {
        checker.check_roots(&settings::discovery(common))
    } else {
        match check_paths(&checker, &args.paths) {
            Ok(report) => report,
            Err(error) => {
                let code = match error.kind() {
                    CheckErrorKind::NotFound => "not_found",
                    _ => "not_a_skill_file",
                };
                return output::fail(common.format, code, &error.to_string(), Outcome::UsageError);
            }
        }
    };
    match common.format {
        Format::Json => output::json(&to_json(&report))?,
        Format::Text => print_text(&report, common.color.enabled(io::stdout().is_terminal()))?,
    }
    Ok(if report.is_valid() {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}

fn check_paths(
    checker: &Checker,
    paths: &[PathBuf],
) -> Result<Report, skillbook::check::CheckError> {
    let mut report = Report::default();
    for path in paths {
        report.merge(checker.check_path(path)?);
    }
    Ok(report)
}

fn to_json(report: &Report) -> CheckJson<'_> {
    CheckJson {
        valid: report.is_valid(),
        skills_checked: report.skills_checked,
        problems: report
            .diagnostics
            .iter()
            .map(|diagnostic| Problem {
                severity: diagnostic.severity,
                code: diagnostic.code,
                path: diagnostic.path.to_string_lossy().into_owned(),
                line: diagnostic.line,
                column: diagnostic.column,
                message: &diagnostic.message,
                hint: diagnostic.hint.as_deref(),
            })
            .collect(),
    }
}

/// Each problem as a compiler prints it, then a summary line, on stdout.
fn print_text(report: &Report, colored: bool) -> io::Result<()> {
    let renderer = if colored {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut stdout = io::BufWriter::new(crate::output::stdout());
    for diagnostic in &report.diagnostics {
        let path = diagnostic.path.to_string_lossy();
        let group = render_group(diagnostic, &path, report.source_line(diagnostic));
        writeln!(stdout, "{}\n", renderer.render(&[group]))?;
    }
    writeln!(stdout, "{}", summary(report))?;
    stdout.flush()
}

fn render_group<'a>(
    diagnostic: &'a Diagnostic,
    path: &'a str,
    source_line: Option<&'a str>,
) -> Group<'a> {
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        _ => Level::INFO,
    };
    let title = level
        .primary_title(diagnostic.message.as_str())
        .id(diagnostic.code.as_str());
    let group = match (diagnostic.line, source_line) {
        (Some(line), Some(source)) => {
            let column = diagnostic.column.unwrap_or(1);
            title.element(
                Snippet::source(source)
                    .line_start(to_usize(line))
                    .path(path)
                    .annotation(AnnotationKind::Primary.span(caret(source, column))),
            )
        }
        (Some(line), None) => title.element(
            Origin::path(path)
                .line(to_usize(line))
                .char_column(to_usize(diagnostic.column.unwrap_or(1))),
        ),
        (None, _) => title.element(Origin::path(path)),
    };
    match &diagnostic.hint {
        Some(hint) => group.element(Level::HELP.message(hint.as_str())),
        None => group,
    }
}

/// The byte range of the character at 1-based `column` (empty at the end of the line).
fn caret(source: &str, column: u64) -> std::ops::Range<usize> {
    let index = to_usize(column.saturating_sub(1));
    match source.char_indices().nth(index) {
        Some((start, character)) => start..start + character.len_utf8(),
        None => source.len()..source.len(),
    }
}

fn to_usize(number: u64) -> usize {
    usize::try_from(number).unwrap_or(usize::MAX)
}

/// `checked 3 skills: 1 error, 2 warnings`, or `…: no problems`.
fn summary(report: &Report) -> String {
    let plural =
        |count: usize, word: &str| format!("{count} {word}{}", if count == 1 { "" } else { "s" });
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let findings = if errors + warnings == 0 {
        "no problems".to_owned()
    } else {
        format!(
            "{}, {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        )
    };
    format!(
        "checked {}: {findings}",
        plural(report.skills_checked, "skill")
    )
}
