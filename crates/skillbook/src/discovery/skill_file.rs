//! Opening and reading one skill file: never blocking, never past the size limit.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use crate::diagnostic::{Diagnostic, DiagnosticCode};
use crate::frontmatter::{Needs, Progress, Scanner, SkillDocument};

/// Identity of a file: device and inode, so hard links and overlapping roots count once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    #[cfg(unix)]
    pub(super) fn of(metadata: &Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileId {
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }

    /// Without inodes, identity falls back to size and modification time, which only ever
    /// merges byte-identical copies reached through overlapping roots.
    #[cfg(not(unix))]
    pub(super) fn of(metadata: &Metadata) -> Self {
        let modified = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |duration| duration.as_nanos() as u64);
        FileId {
            device: metadata.len(),
            inode: modified,
        }
    }
}

/// An opened regular skill file.
pub(super) struct OpenFile {
    file: File,
    len: u64,
    pub(super) id: FileId,
    /// The path was a symbolic link that was followed.
    pub(super) followed: bool,
}

/// The outcome of opening a skill file.
pub(super) enum Opened {
    Regular(OpenFile),
    /// The opened handle is not a regular file (it was swapped, or a link led to one).
    NotRegular,
}

/// Opens a skill file without blocking (FIFOs open non-blocking) and checks the handle's type.
///
/// Links are only followed when `follow_link` is set; otherwise a link swapped in after the
/// caller's check makes the open fail instead of leaving the root.
pub(super) fn open(path: &Path, follow_link: bool) -> io::Result<Opened> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK;
        if !follow_link {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Ok(Opened::NotRegular);
    }
    Ok(Opened::Regular(OpenFile {
        len: metadata.len(),
        id: FileId::of(&metadata),
        file,
        followed: follow_link,
    }))
}

/// Reads as much of the file as discovery needs, at most `max_bytes`.
pub(super) fn read(opened: OpenFile, path: &Path, max_bytes: u64) -> io::Result<SkillDocument> {
    let mut scanner = Scanner::new(path, Needs::Catalog);
    if opened.len > max_bytes {
        scanner.diagnostic(Diagnostic::warning(
            DiagnosticCode::FileTooLarge,
            path,
            format!(
                "the file is {} bytes, over the {max_bytes}-byte limit; only the beginning was \
                 read. Move long material into reference files next to SKILL.md",
                opened.len
            ),
        ));
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
            scanner.invalid_utf8_on_last_line();
            if progress == Progress::Enough {
                break;
            }
            continue;
        }
        let text = text.unwrap_or_else(|| String::from_utf8_lossy(&line).into_owned());
        if scanner.push_line(&text) == Progress::Enough {
            break;
        }
    }
    Ok(scanner.finish())
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

/// The first `max_bytes` of a regular file and its full length; `Ok(None)` when the path is
/// not a regular file. Never blocks on a FIFO; follows a final symlink only when asked.
pub(crate) fn read_prefix(
    path: &Path,
    follow_link: bool,
    max_bytes: u64,
) -> io::Result<Option<(Vec<u8>, u64)>> {
    let Opened::Regular(opened) = open(path, follow_link)? else {
        return Ok(None);
    };
    let capacity = usize::try_from(opened.len.min(max_bytes)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    opened.file.take(max_bytes).read_to_end(&mut bytes)?;
    Ok(Some((bytes, opened.len)))
}

/// Reads a whole skill file as text (invalid UTF-8 replaced), at most `max_bytes`, without
/// following a final symlink or blocking on a FIFO. The flag says whether it was cut.
pub(crate) fn read_text(path: &Path, max_bytes: u64) -> io::Result<(String, bool)> {
    let (bytes, len) = read_prefix(path, false, max_bytes)?
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"))?;
    Ok((
        String::from_utf8_lossy(&bytes).into_owned(),
        len > max_bytes,
    ))
}
