//! Reading one opened skill file for discovery: only as far as needed, never past the size
//! limit. (Opening it is [`crate::boundary`]'s business.)
//!
//! Discovery reads the first [`HEAD_BYTES`] of a file where it opens it and closes it at once
//! when the page cache holds them (a file that would wait for the disk is read by a parser
//! thread instead, a bounded number at a time); the parser scans those bytes and says when it
//! needs more (a front matter longer than the head, a body fallback further down), which is rare.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::diagnostic::{Diagnostic, DiagnosticCode};
use crate::frontmatter::{Needs, Progress, Scanner, SkillDocument};

/// How much of a skill file discovery reads first: the front matter nearly always fits.
pub(crate) const HEAD_BYTES: usize = 4096;

/// An opened regular skill file, handed to a parser.
#[cfg(feature = "check")]
pub(crate) struct OpenFile {
    pub(crate) file: File,
    pub(crate) len: u64,
}

/// The beginning of a skill file, or all of it.
pub(crate) struct Head<'b> {
    pub(crate) bytes: &'b [u8],
    /// The file's length when it was opened.
    pub(crate) len: u64,
    /// `bytes` hold the whole file up to the size limit.
    pub(crate) complete: bool,
}

/// Appends the first [`HEAD_BYTES`] of the file — or, with `whole`, all of it — never more
/// than `max_bytes`, to `buffer`; returns whether that is the whole file up to the limit.
pub(crate) fn read_head(
    file: &mut File,
    len: u64,
    max_bytes: u64,
    whole: bool,
    buffer: &mut Vec<u8>,
) -> io::Result<bool> {
    let readable = len.min(max_bytes);
    let wanted = if whole {
        max_bytes
    } else {
        readable.min(HEAD_BYTES as u64)
    };
    let start = buffer.len();
    buffer.reserve(usize::try_from(wanted.min(readable)).unwrap_or(0));
    if let Err(error) = file.take(wanted).read_to_end(buffer) {
        buffer.truncate(start);
        return Err(error);
    }
    Ok(whole || (buffer.len() - start) as u64 >= readable)
}

#[cfg(test)]
thread_local! {
    /// Tests: [`read_head_cached`] on this thread finds nothing in memory, as on a cold disk.
    pub(crate) static AS_IF_UNCACHED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// [`read_head`] from the page cache only, into `buffer` from `start` (the buffer is grown,
/// zero-filled, only where it is shorter, so a buffer used again is not cleared for every
/// file): `Ok(Some((complete, end)))` with the bytes at `start..end`, or `Ok(None)` when some of
/// the bytes are not in memory (reading would wait for the disk) or the platform cannot tell.
pub(crate) fn read_head_cached(
    file: &File,
    len: u64,
    max_bytes: u64,
    whole: bool,
    buffer: &mut Vec<u8>,
    start: usize,
) -> io::Result<Option<(bool, usize)>> {
    #[cfg(test)]
    if AS_IF_UNCACHED.get() {
        return Ok(None);
    }
    #[cfg(target_os = "linux")]
    {
        use rustix::io::{Errno, ReadWriteFlags};

        let readable = len.min(max_bytes);
        let wanted = if whole {
            readable
        } else {
            readable.min(HEAD_BYTES as u64)
        };
        let Ok(wanted) = usize::try_from(wanted) else {
            return Ok(None);
        };
        if buffer.len() < start + wanted {
            buffer.resize(start + wanted, 0);
        }
        let mut done = 0;
        while done < wanted {
            let end = start + wanted;
            let mut slices = [io::IoSliceMut::new(&mut buffer[start + done..end])];
            match rustix::io::preadv2(file, &mut slices, done as u64, ReadWriteFlags::NOWAIT) {
                Ok(0) => break,
                Ok(read) => done += read,
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN | Errno::OPNOTSUPP | Errno::NOSYS | Errno::INVAL) => {
                    return Ok(None);
                }
                Err(errno) => return Err(errno.into()),
            }
        }
        Ok(Some((whole || done as u64 >= readable, start + done)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, len, max_bytes, whole, buffer, start);
        Ok(None)
    }
}

/// Reads as much of the file as `needs` asks, at most `max_bytes`; with `keep_text`, also
/// returns the text read (invalid UTF-8 replaced), for a checker to quote.
#[cfg(feature = "check")]
pub(crate) fn read(
    mut opened: OpenFile,
    path: &Path,
    max_bytes: u64,
    needs: Needs,
    keep_text: bool,
) -> io::Result<(SkillDocument, Option<String>)> {
    let mut bytes = Vec::new();
    let complete = read_head(&mut opened.file, opened.len, max_bytes, true, &mut bytes)?;
    let head = Head {
        bytes: &bytes,
        len: opened.len,
        complete,
    };
    // A whole file never needs more bytes; were it to, an empty document beats a panic.
    Ok(scan(&head, path, max_bytes, needs, keep_text)
        .unwrap_or_else(|| (Scanner::new(path, needs).finish(), None)))
}

/// Scans what was read as `needs` asks; `None` when the head ends before the scanner has what
/// it needs and the file goes on.
pub(crate) fn scan(
    head: &Head<'_>,
    path: &Path,
    max_bytes: u64,
    needs: Needs,
    keep_text: bool,
) -> Option<(SkillDocument, Option<String>)> {
    let mut scanner = Scanner::new(path, needs);
    let mut kept = keep_text.then(String::new);
    if head.len > max_bytes {
        scanner.diagnostic(
            Diagnostic::warning(
                DiagnosticCode::FileTooLarge,
                path,
                format!(
                    "the file is {} bytes, over the {max_bytes}-byte limit; only the beginning \
                     was read",
                    head.len
                ),
            )
            .with_hint("move long material into reference files next to SKILL.md"),
        );
    }
    let at_size_limit = head.bytes.len() as u64 >= max_bytes;
    let mut reported_utf8 = false;
    let mut rest = head.bytes;
    while !rest.is_empty() {
        let end = memchr_newline(rest).map_or(rest.len(), |index| index + 1);
        let (line, after) = rest.split_at(end);
        rest = after;
        let last_and_cut = !line.ends_with(b"\n");
        if last_and_cut && !head.complete {
            // The head ends inside this line, and the file goes on.
            return None;
        }
        let text = decode(line, last_and_cut && at_size_limit);
        if text.is_none() && !reported_utf8 {
            reported_utf8 = true;
            // Count the line first so the diagnostic points at it.
            let lossy = String::from_utf8_lossy(line);
            let progress = scanner.push_line(&lossy);
            if let Some(kept) = &mut kept {
                kept.push_str(&lossy);
            }
            scanner.invalid_utf8_on_last_line();
            if progress == Progress::Enough {
                return Some((scanner.finish(), kept));
            }
            continue;
        }
        let text = text.unwrap_or_else(|| String::from_utf8_lossy(line));
        if let Some(kept) = &mut kept {
            kept.push_str(&text);
        }
        if scanner.push_line(&text) == Progress::Enough {
            return Some((scanner.finish(), kept));
        }
    }
    // Every line was read and the scanner wants more: fine at the end of the file.
    head.complete.then(|| (scanner.finish(), kept))
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|byte| *byte == b'\n')
}

/// The line as UTF-8; `None` when it holds invalid bytes. A sequence cut by the size limit at
/// the very end is dropped rather than reported.
fn decode(line: &[u8], at_limit: bool) -> Option<std::borrow::Cow<'_, str>> {
    match std::str::from_utf8(line) {
        Ok(text) => Some(text.into()),
        Err(error) if at_limit && error.error_len().is_none() => Some(
            String::from_utf8_lossy(&line[..error.valid_up_to()])
                .into_owned()
                .into(),
        ),
        Err(_) => None,
    }
}
