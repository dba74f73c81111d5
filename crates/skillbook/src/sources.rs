//! Skills that have no file behind them: handed in by the host, embedded in the binary, or read
//! from a zip archive in place.
//!
//! Each becomes a [`ProvidedSkill`], addressed by the virtual URI `skill://<name>/SKILL.md` (and
//! `skill://<name>/<file>` for its other files). The reader serves them from memory; nothing is
//! ever written to disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;
use crate::format::{NameError, SkillName};
use crate::frontmatter;
use crate::skill::{DEFAULT_DESCRIPTION, NameCandidates, resolve_name};

#[cfg(feature = "zip")]
mod archive;
#[cfg(feature = "embed")]
mod embedded;
mod leaf;
mod tree;

#[cfg(feature = "zip")]
pub use archive::{ArchiveLimits, from_zip};
#[cfg(feature = "embed")]
pub use embedded::from_embedded;
pub(crate) use leaf::skill_file;
pub use leaf::{SKILL_FILE_NAMES, SkillFolders};

/// Where a provided skill came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Origin {
    /// Handed in by the host (a database, a tenant store, …).
    Provided,
    /// Compiled into the binary.
    Embedded,
    /// Read from a zip archive.
    Archive,
    /// Read from an object store (S3, GCS, Azure, local files) below a prefix.
    #[serde(rename = "object_store")]
    ObjectStore,
}

/// Why a provided skill or a source was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The skill has no usable name: it has no folder (it was handed in as text, or lies at the
    /// top of an archive or a set of files), and neither its front matter nor a heading names
    /// it.
    #[error("provided skill has no usable name: {0}")]
    Name(#[from] NameError),
    /// A file of a provided skill has a path that could escape or is malformed.
    #[error(
        "file `{path}` of skill `{skill}` is refused: {reason}; use a relative path with `/` separators and no `..`"
    )]
    FilePath {
        /// The skill.
        skill: String,
        /// The offending path.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An archive entry is refused (unsafe name, symbolic link, …).
    #[error("archive entry `{entry}` is refused: {reason}")]
    ArchiveEntry {
        /// The entry's name as stored.
        entry: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file of a set of files ([`from_files`]) has a path that could escape or is malformed.
    #[error(
        "file `{path}` is refused: {reason}; name files by relative `/`-separated paths without `.`, `..`, empty segments or control characters"
    )]
    File {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A skill folder of a set of files ([`from_files`]) holds no skill that can be served.
    #[error("the skill in `{folder}` is left out: {source}")]
    Folder {
        /// The folder (empty for the top).
        folder: String,
        /// Why.
        source: Box<SourceError>,
    },
    /// An archive is over one of its limits.
    #[error("archive refused: {0}")]
    ArchiveLimit(String),
    /// The archive could not be read.
    #[error("cannot read the archive: {0}; check that it is a valid zip file")]
    Archive(String),
}

/// Every skill in a flat set of files, each named by its relative `/`-separated path (an
/// object store's keys below a prefix, say), by discovery's leaf rule: a folder holding
/// `SKILL.md` (or `skill.md`) is a skill and owns every file below it.
///
/// Unlike `from_zip`, which refuses a whole archive for one bad entry, this keeps what it can
/// and returns the rest as errors: a path that is absolute, empty, or holds `.`, `..`, an empty
/// segment, a backslash or a control character ([`SourceError::File`]; the file is left out),
/// and a skill that cannot be made ([`SourceError::Folder`]; the skill is left out): one at the
/// top without a usable name or heading. A skill in a folder always has a name, as on disk: a
/// name it cannot take is reported in its [`ProvidedSkill::diagnostics`], and the next one in
/// line, at last the folder's name, is used.
///
/// ```
/// use std::sync::Arc;
/// use skillbook::sources::{Origin, from_files};
///
/// let text: Arc<[u8]> = Arc::from(&b"---\nname: pdf\ndescription: Fill PDF forms.\n---\n"[..]);
/// let (skills, refused) = from_files(
///     [
///         ("pdf/SKILL.md".to_owned(), text),
///         ("pdf/../secret".to_owned(), Arc::from(&b"no"[..])),
///     ],
///     Origin::ObjectStore,
/// );
/// assert_eq!(skills[0].name().as_str(), "pdf");
/// assert_eq!(refused.len(), 1);
/// ```
pub fn from_files(
    files: impl IntoIterator<Item = (String, Arc<[u8]>)>,
    origin: Origin,
) -> (Vec<ProvidedSkill>, Vec<SourceError>) {
    let mut refused = Vec::new();
    let mut kept = BTreeMap::new();
    for (path, contents) in files {
        match relative_path(&path) {
            Ok(path) => {
                kept.insert(path, contents);
            }
            Err(reason) => refused.push(SourceError::File { path, reason }),
        }
    }
    let mut skills = Vec::new();
    for (folder, skill) in tree::each_skill(&kept, origin) {
        match skill {
            Ok(skill) => skills.push(skill),
            Err(error) => refused.push(SourceError::Folder {
                folder,
                source: Box::new(error),
            }),
        }
    }
    (skills, refused)
}

/// A skill held in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct ProvidedSkill {
    name: SkillName,
    description: String,
    disable_model_invocation: bool,
    front_matter: Map<String, Value>,
    skill_md: Arc<str>,
    files: BTreeMap<String, Arc<[u8]>>,
    origin: Origin,
    file: Option<PathBuf>,
    diagnostics: Vec<Diagnostic>,
}

impl ProvidedSkill {
    /// A skill from the text of its `SKILL.md`. The name comes from the front matter, else the
    /// first heading, as on disk: a name that is not a [`SkillName`] (it holds a `/` or a
    /// control character) is reported in [`ProvidedSkill::diagnostics`] and the next one in
    /// line is used. The description comes from the front matter, else the first paragraph.
    ///
    /// # Errors
    ///
    /// [`SourceError::Name`] when neither the front matter nor a heading gives a usable name:
    /// a skill handed in as text has no folder, whose name is the last fallback on disk.
    pub fn parse(skill_md: impl Into<String>) -> Result<Self, SourceError> {
        Self::parse_in(skill_md.into(), "SKILL.md", None, Origin::Provided)
    }

    /// A skill from the text of its skill file `skill_file` (a relative path, which its
    /// diagnostics name), in `folder` when it has one (the last fallback of its name).
    pub(crate) fn parse_in(
        skill_md: String,
        skill_file: &str,
        folder: Option<&str>,
        origin: Origin,
    ) -> Result<Self, SourceError> {
        let path = Path::new(skill_file);
        let mut document = frontmatter::parse(path, &skill_md);
        let mut diagnostics = std::mem::take(&mut document.diagnostics);
        let candidates = NameCandidates {
            front_matter: document.name.as_deref(),
            heading: document.heading.as_deref(),
            folder,
        };
        let name = resolve_name(candidates, path, &mut diagnostics)?;
        let description = [document.description, document.first_paragraph]
            .into_iter()
            .flatten()
            .find(|text| !text.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_DESCRIPTION.to_owned());
        Ok(ProvidedSkill {
            name,
            description,
            disable_model_invocation: document.disable_model_invocation,
            front_matter: crate::frontmatter::compact(document.fields),
            skill_md: skill_md.into(),
            files: BTreeMap::new(),
            origin,
            file: None,
            diagnostics,
        })
    }

    /// Adds another file of the skill (a reference, a script, an asset).
    ///
    /// # Errors
    ///
    /// [`SourceError::FilePath`] when `path` is absolute, empty, holds `..`, `.`, an empty
    /// segment, a backslash, a NUL or another control character.
    pub fn with_file(
        mut self,
        path: &str,
        contents: impl Into<Arc<[u8]>>,
    ) -> Result<Self, SourceError> {
        let path = relative_path(path).map_err(|reason| SourceError::FilePath {
            skill: self.name.to_string(),
            path: path.to_owned(),
            reason,
        })?;
        if path != "SKILL.md" {
            self.files.insert(path, contents.into());
        }
        Ok(self)
    }

    /// Records that this skill also exists as a file. The runtime refuses it unless the file
    /// lies under a declared root.
    pub fn with_source_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.file = Some(path.into());
        self
    }

    pub(crate) fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }

    /// The name.
    pub fn name(&self) -> &SkillName {
        &self.name
    }

    /// The description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether the skill is manual-only.
    pub fn disable_model_invocation(&self) -> bool {
        self.disable_model_invocation
    }

    /// Every front matter field.
    pub fn front_matter(&self) -> &Map<String, Value> {
        &self.front_matter
    }

    /// The text of the `SKILL.md`.
    pub fn skill_md(&self) -> &str {
        &self.skill_md
    }

    /// The text of the `SKILL.md`, shared.
    pub(crate) fn skill_md_shared(&self) -> Arc<str> {
        Arc::clone(&self.skill_md)
    }

    /// One other file's bytes, shared.
    pub(crate) fn file_shared(&self, path: &str) -> Option<Arc<[u8]>> {
        self.files.get(path).map(Arc::clone)
    }

    /// The other files, by relative path.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files
            .iter()
            .map(|(path, contents)| (path.as_str(), &**contents))
    }

    /// One file by relative path; `SKILL.md` gives the skill text.
    pub fn file(&self, path: &str) -> Option<&[u8]> {
        if path == "SKILL.md" {
            return Some(self.skill_md.as_bytes());
        }
        self.files.get(path).map(|contents| &**contents)
    }

    /// Where it came from.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The file this skill says it was read from, if any.
    pub fn source_file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// What reading its skill file reported, as discovery reports it for a skill on disk:
    /// front matter repaired or read line by line, and names that could not name the skill
    /// (`unusable_name`, the next one in line taken). Each names the skill file by its path
    /// in its source (`SKILL.md` for [`ProvidedSkill::parse`]; `pdf/SKILL.md` in an archive).
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// `skill://<name>/SKILL.md` (encoded as [`crate::uri`] encodes every skill URI).
    pub fn uri(&self) -> String {
        crate::uri::skill_file(&self.name)
    }

    /// `skill://<name>`, the virtual directory.
    pub fn directory_uri(&self) -> String {
        crate::uri::directory(&self.name)
    }

    /// The total size of the skill's text and files, in bytes.
    pub fn size(&self) -> usize {
        self.skill_md.len() + self.files.values().map(|file| file.len()).sum::<usize>()
    }

    /// Whether two skills hold the same name, text and files.
    pub fn same_content(&self, other: &ProvidedSkill) -> bool {
        self.name == other.name && self.skill_md == other.skill_md && self.files == other.files
    }
}

/// Validates a relative `/`-separated path and returns it unchanged.
pub(crate) fn relative_path(path: &str) -> Result<String, &'static str> {
    if path.is_empty() {
        return Err("the path is empty");
    }
    if path.starts_with('/') {
        return Err("the path is absolute");
    }
    if path.contains('\\') {
        return Err("the path holds a backslash");
    }
    if path.chars().any(char::is_control) {
        return Err("the path holds a control character");
    }
    for segment in path.split('/') {
        match segment {
            "" => return Err("the path has an empty segment"),
            "." | ".." => return Err("the path has a `.` or `..` segment"),
            _ if segment.len() == 2 && segment.ends_with(':') => {
                return Err("the path starts with a drive letter");
            }
            _ => {}
        }
    }
    Ok(path.to_owned())
}

#[cfg(test)]
mod tests;
