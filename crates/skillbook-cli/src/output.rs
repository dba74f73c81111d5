//! Writing results: JSON documents on stdout, diagnostics on stderr in text mode, and errors in
//! the one shape every command shares.

use std::borrow::Cow;
use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;
use skillbook::Diagnostic;

use crate::cli::Format;

/// How a command ended, beyond "it worked".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran and reports a failure.
    Failure,
    /// Exit 2: the command line cannot be carried out (it printed why).
    UsageError,
}

impl Outcome {
    pub(crate) fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Success => ExitCode::SUCCESS,
            Outcome::Failure => ExitCode::FAILURE,
            Outcome::UsageError => ExitCode::from(2),
        }
    }
}

/// Reports an error the way `format` asks, and returns `outcome` for the command to end with.
///
/// Text: `error: MESSAGE` on stderr (control characters escaped). JSON: the one error document
/// every command shares, `{"error": CODE, "message": MESSAGE}`, alone on stdout. `code` is
/// stable and snake_case; scripts match on it.
pub(crate) fn fail(
    format: Format,
    code: &str,
    message: &str,
    outcome: Outcome,
) -> anyhow::Result<Outcome> {
    error(format, code, message)?;
    Ok(outcome)
}

/// Writes an error as [`fail`] does.
pub(crate) fn error(format: Format, code: &str, message: &str) -> anyhow::Result<()> {
    match format {
        Format::Json => json(&ErrorDocument {
            error: code,
            message,
        }),
        Format::Text => Ok(writeln!(
            io::stderr().lock(),
            "error: {}",
            printable(message)
        )?),
    }
}

/// The error document of every command under `--format json` (SPEC §9).
#[derive(Serialize)]
pub(crate) struct ErrorDocument<'a> {
    /// A stable, snake_case code.
    pub(crate) error: &'a str,
    /// What happened and what to do, for a person.
    pub(crate) message: &'a str,
}

/// Prints `value` as pretty JSON on stdout.
pub(crate) fn json(value: &impl Serialize) -> anyhow::Result<()> {
    // Buffered: stdout alone is line-buffered, and pretty JSON is many short lines.
    let mut stdout = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    serde_json::to_writer_pretty(&mut stdout, value)?;
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(())
}

/// Leaves a command's last big value to the end of the process instead of freeing it piece by
/// piece (a hundred thousand skills take a noticeable moment to free, and the process is about to
/// exit anyway).
pub(crate) fn leave<T>(value: T) {
    std::mem::forget(value);
}

/// Prints diagnostics on stderr, one per line (control characters shown as escapes).
pub(crate) fn diagnostics(diagnostics: &[Diagnostic]) {
    let mut stderr = io::stderr().lock();
    for diagnostic in diagnostics {
        let _ = writeln!(stderr, "{}", printable(&diagnostic.to_string()));
    }
}

/// `text` for a terminal: every control character but line feed, tab and a carriage return
/// ending a line is shown as an escape (`\u{1b}`), so nothing a skill holds — a name, a
/// description, a folder's name — can move the cursor, retitle the window or ring the bell.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    let unsafe_at = |index: usize, c: char| {
        c.is_control()
            && c != '\n'
            && c != '\t'
            && !(c == '\r' && text[index + 1..].starts_with('\n'))
    };
    if !text.char_indices().any(|(index, c)| unsafe_at(index, c)) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for (index, c) in text.char_indices() {
        if unsafe_at(index, c) {
            shown.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}
