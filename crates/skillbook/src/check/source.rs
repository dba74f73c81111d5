//! Reading one skill file named on the command line for the validator: all of it up to the
//! size limit, never blocking, with the same reader (and the same findings) as discovery.

use std::io;
use std::path::Path;

use crate::boundary::open;
use crate::discovery::skill_file::{self, OpenFile};
use crate::frontmatter::{Needs, SkillDocument};

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
    let opened = open::open_named_file(path, follow_link).map_err(ReadFailure::Io)?;
    if !opened.metadata.is_file() {
        return Err(ReadFailure::NotRegular);
    }
    let file = OpenFile {
        len: opened.metadata.len(),
        file: opened.file,
    };
    let (document, text) = skill_file::read(file, path, max_bytes, Needs::Everything, true)
        .map_err(ReadFailure::Io)?;
    Ok(SourceFile {
        text: text.unwrap_or_default(),
        document,
    })
}
