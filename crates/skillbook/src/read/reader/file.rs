//! A file a reader opened: on disk or in memory.

use std::io::{self, Read};
use std::sync::Arc;

use crate::discovery::cache::FileState;
use crate::format::SkillName;

/// A file a [`SkillReader`](super::SkillReader) opened: on disk, or held in memory. Read it with [`Read`].
#[derive(Debug)]
pub struct SkillFileReader {
    pub(super) path: String,
    pub(super) size: u64,
    pub(super) marker: Option<(SkillName, String)>,
    pub(super) version: Option<FileVersion>,
    pub(super) content: Content,
}

/// What a file on disk was when it was opened: device, inode, size and times. Two opens give
/// equal versions only when the file was not replaced or written in between (to the
/// resolution of the file system's clock), so a digest can be cached by version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileVersion(pub(super) FileState);

#[derive(Debug)]
pub(super) enum Content {
    Disk(std::fs::File),
    Memory(io::Cursor<MemoryBytes>),
}

#[derive(Debug, Clone)]
pub(super) enum MemoryBytes {
    Text(Arc<str>),
    Bytes(Arc<[u8]>),
}

impl AsRef<[u8]> for MemoryBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            MemoryBytes::Text(text) => text.as_bytes(),
            MemoryBytes::Bytes(bytes) => bytes,
        }
    }
}

impl SkillFileReader {
    /// The file as results name it: its absolute path, or its `skill://` URI.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its size in bytes when it was opened.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The skill whose `SKILL.md` this is, if it is one.
    #[must_use]
    pub fn skill(&self) -> Option<&SkillName> {
        self.marker.as_ref().map(|(name, _)| name)
    }

    /// The version of a file on disk; `None` for a file held in memory, and for one a reader
    /// over a boundary opened ([`SkillReader::over_boundary`](super::SkillReader::over_boundary)).
    #[must_use]
    pub fn version(&self) -> Option<FileVersion> {
        self.version
    }
}

impl Read for SkillFileReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match &mut self.content {
            Content::Disk(file) => file.read(buffer),
            Content::Memory(cursor) => cursor.read(buffer),
        }
    }
}
