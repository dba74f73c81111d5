//! Reading one opened skill file for discovery: only as far as needed, never past the size
//! limit. (Opening it is [`crate::boundary`]'s business.)

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use crate::diagnostic::{Diagnostic, DiagnosticCode};
use crate::frontmatter::{Needs, Progress, Scanner, SkillDocument};

/// An opened regular skill file, handed to a parser.
pub(crate) struct OpenFile {
    pub(crate) file: File,
    pub(crate) len: u64,
}

/// Reads as much of the file as `needs` asks, at most `max_bytes`; with `keep_text`, also
/// returns the text read (invalid UTF-8 replaced), for a checker to quote.
pub(crate) fn read(
    opened: OpenFile,
    path: &Path,
    max_bytes: u64,
    needs: Needs,
    keep_text: bool,
) -> io::Result<(SkillDocument, Option<String>)> {
    let mut scanner = Scanner::new(path, needs);
    let mut kept = keep_text.then(String::new);
    if opened.len > max_bytes {
        scanner.diagnostic(
            Diagnostic::warning(
                DiagnosticCode::FileTooLarge,
                path,
                format!(
                    "the file is {} bytes, over the {max_bytes}-byte limit; only the beginning \
                     was read",
                    opened.len
                ),
            )
            .with_hint("move long material into reference files next to SKILL.md"),
        );
    }
    let mut reader = BufReader::with_capacity(8 * 1024, opened.file.take(max_bytes));
    let mut line = Vec::with_capacity(256);
    let mut reported_utf8 = false;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let at_limit = reader.get_ref().limit() == 0 && !line.ends_with(b"\n");
        let text = decode(&line, at_limit);
        if text.is_none() && !reported_utf8 {
            reported_utf8 = true;
            // Count the line first so the diagnostic points at it.
            let lossy = String::from_utf8_lossy(&line).into_owned();
            let progress = scanner.push_line(&lossy);
            if let Some(kept) = &mut kept {
                kept.push_str(&lossy);
            }
            scanner.invalid_utf8_on_last_line();
            if progress == Progress::Enough {
                break;
            }
            continue;
        }
        let text = text.unwrap_or_else(|| String::from_utf8_lossy(&line).into_owned());
        if let Some(kept) = &mut kept {
            kept.push_str(&text);
        }
        if scanner.push_line(&text) == Progress::Enough {
            break;
        }
    }
    Ok((scanner.finish(), kept))
}

/// The line as UTF-8; `None` when it holds invalid bytes. A sequence cut by the size limit at
/// the very end is dropped rather than reported.
fn decode(line: &[u8], at_limit: bool) -> Option<String> {
    match std::str::from_utf8(line) {
        Ok(text) => Some(text.to_owned()),
        Err(error) if at_limit && error.error_len().is_none() => {
            Some(String::from_utf8_lossy(&line[..error.valid_up_to()]).into_owned())
        }
        Err(_) => None,
    }
}
