//! Writing results: JSON documents on stdout, diagnostics on stderr in text mode.

use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;
use skillbook::Diagnostic;

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

/// Prints diagnostics on stderr, one per line.
pub(crate) fn diagnostics(diagnostics: &[Diagnostic]) {
    let mut stderr = io::stderr().lock();
    for diagnostic in diagnostics {
        let _ = writeln!(stderr, "{diagnostic}");
    }
}
