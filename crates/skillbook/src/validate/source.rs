//! Reading one skill file for the validator: the whole file up to the size limit, never
//! blocking, with invalid UTF-8 and the size limit reported.

use std::io;
use std::path::Path;

use crate::boundary::open;
use crate::diagnostic::{Diagnostic, DiagnosticCode};
use crate::frontmatter::{self, SkillDocument};

/// A skill file's text and what the reader made of it.
pub(super) struct SourceFile {
    pub(super) text: String,
    pub(super) document: SkillDocument,
}

/// Why a skill file could not be read.
pub(super) enum ReadFailure {
    /// The path is not a regular file (a directory, FIFO, socket or device).
    NotRegular,
    /// Any other I/O error.
    Io(io::Error),
}

/// Reads and parses the skill file at `path`, at most `max_bytes`. A final symbolic link is
/// followed only when `follow_link` is set; a FIFO is never waited on.
pub(super) fn read(
    path: &Path,
    max_bytes: u64,
    follow_link: bool,
) -> Result<SourceFile, ReadFailure> {
    let (bytes, len) = open::read_named_file(path, follow_link, max_bytes)
        .map_err(ReadFailure::Io)?
        .ok_or(ReadFailure::NotRegular)?;
    let truncated = len > max_bytes;
    let (text, invalid_line) = decode(&bytes, truncated);
    let mut document = frontmatter::parse(path, &text);
    if let Some(line) = invalid_line {
        document.diagnostics.push(
            Diagnostic::error(
                DiagnosticCode::InvalidUtf8,
                path,
                "the file is not valid UTF-8; invalid bytes were replaced with U+FFFD",
            )
            .at(line, 1)
            .with_hint("save the file as UTF-8"),
        );
    }
    if truncated {
        document.diagnostics.push(
            Diagnostic::warning(
                DiagnosticCode::FileTooLarge,
                path,
                format!(
                    "the file is {} bytes, over the {max_bytes}-byte limit; only the beginning \
                     was read",
                    len
                ),
            )
            .with_hint("move long material into reference files next to SKILL.md"),
        );
    }
    Ok(SourceFile { text, document })
}

/// The bytes as text, and the 1-based line of the first invalid UTF-8 sequence. A sequence cut
/// by the size limit at the very end is dropped rather than reported.
fn decode(bytes: &[u8], truncated: bool) -> (String, Option<u64>) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), None),
        Err(error) if truncated && error.error_len().is_none() => (
            String::from_utf8_lossy(&bytes[..error.valid_up_to()]).into_owned(),
            None,
        ),
        Err(error) => {
            let valid = &bytes[..error.valid_up_to()];
            let line = valid.iter().filter(|byte| **byte == b'\n').count() as u64 + 1;
            (String::from_utf8_lossy(bytes).into_owned(), Some(line))
        }
    }
}
