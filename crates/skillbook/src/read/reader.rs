//! The skill reader: how every surface — the runtime's tools, `skillbook read`, `skillbook
//! show`, host-selected skills and the MCP server — reads a skill's files, and the one reader
//! type the library offers.
//!
//! The reader's settings are [`ReadOptions`]; opening a located file is in `open_file`, a
//! skill's folder and its listings in `folder`, the workspace reads of a reader over a
//! [`ReadBoundary`] in `bounded`.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cap_std::fs::Dir;
use serde_json::Value;

use crate::boundary::open;
use crate::boundary::{BoundaryError, DirectoryEntry, ReadBoundary};
use crate::discovery::{Admission, Discovered, RootRecord};
use crate::format::{SkillName, name_key};
use crate::paths;
use crate::read::{self, Addressing, KnownSkill, ReadError, ReadOptions, ReadRequest, ReadResult};
use crate::sources::ProvidedSkill;
use crate::uri::{self, SKILL_FILE, SkillUri};

/// The read tool, and every read of a skill's files: the one reader the library offers.
///
/// Two constructors, one reader:
///
/// - [`SkillReader::new`] reads what discovery found (and, with [`SkillReader::with_provided`],
///   skills held in memory): only the exposed skills' own files, as the runtime, `skillbook read
///   --restricted`, `skillbook show` and the MCP server read them. The rules are below.
/// - [`SkillReader::over_boundary`] reads whatever a [`ReadBoundary`] allows — the workspace
///   and the skill roots, or only the roots of a restricted boundary — marking the SKILL.md of
///   the skills it is told of: the workspace reads of `skillbook read`.
///
/// Both take the same [`ReadOptions`] ([`SkillReader::with_options`]) and answer every call with
/// a [`ReadResult`] or a [`ReadError`].
///
/// A reader built from discovery holds at most one directory handle per read root, opened the
/// first time a read needs it, never one per skill, and finds a path's skill through a map keyed
/// by skill folder (a lookup per path component, not a scan). Each read then goes:
///
/// 1. **Which skill.** `skill://<name>/<file>` names a skill directly; a path is made absolute
///    (a relative path resolves against the only skill folder, and is refused as ambiguous when
///    there are several) and its skill is the deepest folder that holds it. A path in no exposed
///    skill is [`BoundaryError::OutsideBoundary`] — so a manual-only sibling that was not
///    exposed stays unreadable.
/// 2. **The folder, verified.** The skill folder is opened beneath its root's handle one
///    component at a time without following a link, and must be the directory discovery
///    recorded (device and inode); otherwise [`BoundaryError::SkillChanged`]. The root's handle
///    was checked the same way when it was opened.
/// 3. **The file, beneath the folder.** Links inside the folder are followed only while they
///    stay in it (a link into a sibling skill leaves it, and is refused), `.git` and
///    `node_modules` are never served, and the file is opened without following any link at the
///    moment of opening and without blocking. Only regular files are read.
/// 4. **Followed links** (`--symlinks follow`): a followed directory link is a root of its own,
///    opened on demand and checked by identity, never held; a followed skill-file link is that
///    one file, also checked by identity — its folder does not become readable.
///
/// Skills held in memory are served from memory and never touch the disk.
///
/// A reader keeps a root's handle once it has opened and checked it: if the root is later moved
/// away and another directory put in its place, the reader goes on reading the root it checked
/// (never the new one, which no discovery vouched for). A new discovery — the next run, or the
/// MCP server's reload after the watcher saw the change — builds a reader over the new root.
///
/// Cheap to clone: clones share the root handles and the index of the skills (which is built
/// once per discovery and kept with it). [`SkillReader::only`] makes a narrower reader (for
/// example the model-visible skills only) and [`SkillReader::with_provided`] a wider one, both
/// sharing them too: building a reader for a run scans nothing.
///
/// ```
/// use skillbook::SkillReader;
/// use skillbook::{Discovery, Home};
///
/// let workspace = tempfile::tempdir()?;
/// let skill = workspace.path().join(".agents/skills/pdf");
/// std::fs::create_dir_all(&skill)?;
/// std::fs::write(skill.join("SKILL.md"), "---\nname: pdf\ndescription: Fill forms.\n---\nSteps.\n")?;
/// std::fs::write(skill.join("forms.md"), "Form help.\n")?;
///
/// let found = Discovery::new(workspace.path()).home(Home::Off).discover();
/// let reader = SkillReader::new(&found);
/// // The only skill: relative paths resolve against its folder.
/// let result = reader.call(&serde_json::json!({"path": "SKILL.md"}))?;
/// assert_eq!(result.skill.as_deref(), Some("pdf")); // the compaction marker
/// let forms = reader.call(&serde_json::json!({"path": "skill://pdf/forms.md"}))?;
/// assert_eq!(forms.content, "Form help.");
/// assert_eq!(reader.call(&serde_json::json!({"path": "/etc/passwd"})).unwrap_err().code(), "outside_boundary");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct SkillReader {
    roots: Arc<[ReaderRoot]>,
    /// The discovered skills, shared by every reader of the same discovery.
    disk: Arc<Index>,
    /// Skills held in memory.
    memory: Arc<Index>,
    /// Which skills this reader exposes.
    filter: Filter,
    /// The folder relative paths resolve against, found the first time a relative path comes.
    base: Arc<OnceLock<Option<BaseKind>>>,
    /// The boundary paths are read through, for a reader over explicit roots.
    bounded: Option<Arc<Bounded>>,
    options: ReadOptions,
    /// The discovery's admission, asked again before each read of a discovered skill.
    admission: Option<Arc<dyn Admission>>,
}

impl fmt::Debug for SkillReader {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SkillReader")
            .field("roots", &self.roots.len())
            .field("skills", &self.names().count())
            .field("bounded", &self.bounded)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// A read root and, once a read needed it, its verified handle.
struct ReaderRoot {
    record: RootRecord,
    handle: OnceLock<Dir>,
}

/// Which skills a reader exposes: a name and whether it is model-visible in, a yes or no out.
type Filter = Option<Arc<dyn Fn(&SkillName, bool) -> bool + Send + Sync>>;

impl SkillReader {
    /// A reader over every skill `found` holds. Nothing is opened yet: each root is opened (and
    /// checked) the first time a read needs it.
    #[must_use]
    pub fn new(found: &Discovered) -> Self {
        let roots: Arc<[ReaderRoot]> = found
            .root_records()
            .iter()
            .map(|record| ReaderRoot {
                record: record.clone(),
                handle: OnceLock::new(),
            })
            .collect();
        SkillReader {
            roots,
            disk: found.index(),
            memory: Arc::default(),
            filter: None,
            base: Arc::default(),
            bounded: None,
            options: ReadOptions::default(),
            admission: found.admission(),
        }
    }

    /// A reader over a [`ReadBoundary`]: the workspace reads of SPEC §5.1, as `skillbook read`
    /// makes them without `--restricted`. A path (absolute, or relative to
    /// [`ReadBoundary::base`]) reads any regular file of the boundary's roots, following the
    /// boundary's rules; the SKILL.md of each of `skills` gets the compaction marker. A skill
    /// name that is not a [`SkillName`] is shown with its control characters and `/` replaced
    /// by U+FFFD.
    ///
    /// Such a reader names no skills of its own: [`SkillReader::names`],
    /// [`SkillReader::open_in`] and the other lookups by name see only the skills added with
    /// [`SkillReader::with_provided`], and [`SkillReader::only`] narrows those, not the
    /// boundary. Its schema is the workspace tool's. Under [`Addressing::SkillUris`] it reads
    /// `skill://` URIs only, so nothing of the boundary.
    ///
    /// ```no_run
    /// use skillbook::{KnownSkill, ReadBoundary, SkillReader};
    ///
    /// let boundary = ReadBoundary::new("/work/project", ["/home/me/.agents/skills"])?;
    /// let pdf = KnownSkill::new(
    ///     "pdf",
    ///     "/home/me/.agents/skills/pdf/SKILL.md",
    ///     "/home/me/.agents/skills/pdf",
    /// );
    /// let reader = SkillReader::over_boundary(boundary, [pdf]);
    /// let notes = reader.call(&serde_json::json!({"path": "notes.md"}))?; // the workspace
    /// assert_eq!(notes.skill, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn over_boundary(
        boundary: ReadBoundary,
        skills: impl IntoIterator<Item = KnownSkill>,
    ) -> Self {
        SkillReader {
            roots: Arc::default(),
            disk: Arc::default(),
            memory: Arc::default(),
            filter: None,
            base: Arc::default(),
            bounded: Some(Arc::new(Bounded::new(boundary, skills))),
            options: ReadOptions::default(),
            admission: None,
        }
    }

    /// This reader, also exposing skills held in memory (served as `skill://<name>/…`). A
    /// skill whose name (ignoring case) is taken already is left out.
    #[must_use]
    pub fn with_provided(&self, skills: impl IntoIterator<Item = ProvidedSkill>) -> SkillReader {
        let entries = self
            .memory
            .entries
            .iter()
            .cloned()
            .chain(skills.into_iter().map(Entry::of_provided))
            .filter(|entry| {
                !matches!(entry.body, Body::Memory(_))
                    || !self.disk.by_key.contains_key(&entry.name.key())
            });
        SkillReader {
            memory: Arc::new(Index::of(entries)),
            base: Arc::default(),
            ..self.clone()
        }
    }

    /// A reader exposing only the skills `keep` accepts, given each skill's name and whether it
    /// is model-visible (sharing this reader's root handles and index; nothing is scanned).
    #[must_use]
    pub fn only(
        &self,
        keep: impl Fn(&SkillName, bool) -> bool + Send + Sync + 'static,
    ) -> SkillReader {
        let filter: Filter = match self.filter.clone() {
            None => Some(Arc::new(keep)),
            Some(before) => Some(Arc::new(move |name: &SkillName, visible: bool| {
                before(name, visible) && keep(name, visible)
            })),
        };
        SkillReader {
            filter,
            base: Arc::default(),
            ..self.clone()
        }
    }

    /// Sets this reader's settings: the tool's name, size limit, look-ahead and addressing
    /// (default [`ReadOptions::default`]).
    #[must_use]
    pub fn with_options(mut self, options: ReadOptions) -> Self {
        self.options = options;
        self
    }

    /// This reader's settings.
    #[must_use]
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    fn exposes(&self, entry: &Entry) -> bool {
        self.filter
            .as_ref()
            .is_none_or(|keep| keep(&entry.name, entry.model_visible))
    }

    /// Every exposed skill: the discovered ones, then those in memory.
    fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.disk
            .entries
            .iter()
            .chain(&self.memory.entries)
            .filter(|entry| self.exposes(entry))
    }

    /// The exposed skill with this name (ignoring case).
    fn by_name(&self, name: &str) -> Option<&Entry> {
        let key = name_key(name);
        [&self.disk, &self.memory]
            .into_iter()
            .find_map(|index| index.by_key.get(&key).and_then(|&at| index.entries.get(at)))
            .filter(|entry| self.exposes(entry))
    }

    /// The exposed skill whose folder is `directory`.
    fn by_directory(&self, directory: &Path) -> Option<&Entry> {
        self.disk
            .by_directory
            .get(directory)
            .and_then(|&at| self.disk.entries.get(at))
            .filter(|entry| self.exposes(entry))
    }

    /// The directory relative paths resolve against: the folder of the only exposed skill
    /// (found once per reader, however many skills it filters out).
    fn base(&self) -> Base<'_> {
        let kind = self.base.get_or_init(|| {
            let mut exposed = self
                .disk
                .entries
                .iter()
                .enumerate()
                .filter(|(_, entry)| self.exposes(entry))
                .map(|(position, entry)| (Some(position), entry))
                .chain(
                    self.memory
                        .entries
                        .iter()
                        .filter(|entry| self.exposes(entry))
                        .map(|entry| (None, entry)),
                );
            match (exposed.next(), exposed.next()) {
                (None, _) => None,
                (Some((Some(position), _)), None) => Some(BaseKind::One(position)),
                _ => Some(BaseKind::Several),
            }
        });
        match kind {
            None => Base::None,
            Some(BaseKind::One(position)) => match self.disk.entries.get(*position) {
                Some(Entry {
                    body: Body::Disk { directory, .. },
                    ..
                }) => Base::One(directory),
                _ => Base::Several,
            },
            Some(BaseKind::Several) => Base::Several,
        }
    }

    /// The names of the exposed skills: the discovered ones in discovery order, then those in
    /// memory.
    pub fn names(&self) -> impl Iterator<Item = &SkillName> {
        self.entries().map(|entry| &entry.name)
    }

    /// Whether a skill with this name (ignoring case) is exposed.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.by_name(name).is_some()
    }

    /// The name of the skill file of `name` in its folder: `SKILL.md`, or `skill.md` when that
    /// is what the folder holds (skills in memory always have `SKILL.md`).
    #[must_use]
    pub fn skill_file_name(&self, name: &str) -> Option<&std::ffi::OsStr> {
        self.by_name(name).map(|entry| match &entry.body {
            Body::Disk { file_name, .. } => file_name.as_os_str(),
            Body::Memory(_) => std::ffi::OsStr::new(SKILL_FILE),
        })
    }

    /// Whether no skill is exposed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries().next().is_none()
    }

    /// Opens a file of an exposed skill for reading: an absolute path, a path relative to the
    /// only skill's folder, or a `skill://<name>/<file>` URI. A reader over a boundary
    /// ([`SkillReader::over_boundary`]) opens a path through the boundary instead: absolute, or
    /// relative to [`ReadBoundary::base`].
    ///
    /// # Errors
    ///
    /// [`BoundaryError::NulByte`], [`BoundaryError::RelativePath`] (several skills),
    /// [`BoundaryError::UriRequired`] (a path under [`Addressing::SkillUris`]),
    /// [`BoundaryError::OutsideBoundary`] (in no exposed skill, a link that leaves its skill, a
    /// `.git` or `node_modules` folder; outside the boundary), [`BoundaryError::SkillChanged`],
    /// [`BoundaryError::NotFound`], [`BoundaryError::IsDirectory`],
    /// [`BoundaryError::NotRegularFile`] and [`BoundaryError::Io`].
    pub fn open(&self, path: &Path) -> Result<SkillFileReader, BoundaryError> {
        if let Some(bounded) = &self.bounded
            && self.options.addressing() == Addressing::Paths
            && !names_skill_uri(path)
        {
            return bounded.open(path);
        }
        let located = self.locate(path)?;
        self.open_located(&located, None)
    }

    /// Opens the file at `relative` (`/`-separated) in the skill `name`; `SKILL.md` is the
    /// skill file whatever it is called on disk.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::open`]; an unknown name is [`BoundaryError::NotFound`].
    pub fn open_in(&self, name: &str, relative: &str) -> Result<SkillFileReader, BoundaryError> {
        if !self.contains(name) {
            return Err(not_found(uri::resource(name, relative)));
        }
        self.folder(name)?.open(relative)
    }

    /// The entries of the directory `relative` (`/`-separated; empty for the skill folder) of
    /// the skill `name`, sorted by name. Links are listed as links, never followed; `.git` and
    /// `node_modules` are left out.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::open_in`]; a path that is not a directory is [`BoundaryError::Io`]
    /// (disk) or [`BoundaryError::NotFound`] (memory).
    pub fn list_directory(
        &self,
        name: &str,
        relative: &str,
    ) -> Result<Vec<DirectoryEntry>, BoundaryError> {
        if !self.contains(name) {
            return Err(not_found(uri::resource(name, relative)));
        }
        self.folder(name)?.list(relative)
    }

    /// The folder of the skill `name`, opened and checked once, to read many of its files (as
    /// an index of the skill does) without reaching the folder again for each.
    ///
    /// # Errors
    ///
    /// [`BoundaryError::NotFound`] for a name no exposed skill has, and the folder's own errors
    /// ([`BoundaryError::SkillChanged`], [`BoundaryError::Io`]).
    pub fn folder(&self, name: &str) -> Result<SkillFolder<'_>, BoundaryError> {
        let entry = self
            .by_name(name)
            .ok_or_else(|| not_found(uri::directory(name)))?;
        let handle = match &entry.body {
            Body::Disk {
                place, directory, ..
            } => Some(
                self.verified_folder(place, directory)
                    .map_err(|error| self.addressed(entry, error))?,
            ),
            Body::Memory(_) => None,
        };
        Ok(SkillFolder {
            reader: self,
            entry,
            handle,
        })
    }

    /// The text of the skill file of `name`, at most `max_bytes` of it (invalid UTF-8 replaced);
    /// the flag says whether it was cut.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::open_in`], and [`ReadError::Io`] when reading fails.
    pub fn skill_text(&self, name: &str, max_bytes: u64) -> Result<(String, bool), ReadError> {
        let opened = self.open_in(name, SKILL_FILE)?;
        let size = opened.size;
        let path = PathBuf::from(&opened.path);
        let mut bytes = Vec::with_capacity(usize::try_from(size.min(max_bytes)).unwrap_or(0));
        opened
            .take(max_bytes)
            .read_to_end(&mut bytes)
            .map_err(|source| ReadError::Io { path, source })?;
        let cut = size > max_bytes;
        Ok((String::from_utf8_lossy(&bytes).into_owned(), cut))
    }

    /// The read tool's definition in the OpenAI function-tool shape, offered under
    /// [`ReadOptions::tool_name`]: `{"type": "function", "function": {"name", "description",
    /// "parameters"}}`. A reader built from discovery promises the skills' own files and
    /// nothing of the workspace; a reader over a boundary offers the workspace as well.
    #[must_use]
    pub fn schema(&self) -> Value {
        let name = self.options.tool_name();
        let accepted = match (self.options.addressing(), self.base()) {
            (Addressing::SkillUris, _) => read::Accepted::Uris,
            (Addressing::Paths, Base::One(_)) => read::Accepted::PathsOfOneSkill,
            (Addressing::Paths, _) => read::Accepted::PathsOfSeveralSkills,
        };
        match self.bounded {
            Some(_) => read::read_file_schema(name),
            None => read::skill_file_schema(name, accepted),
        }
    }

    /// Runs one `read_file` call with the model's arguments.
    ///
    /// # Errors
    ///
    /// One [`ReadError`] per failure, each with its own [`ReadError::code`]: a missing `path`,
    /// an invalid argument (including a `startLine` past the end of the file), a path outside
    /// the reader's reach, a `skill://` URI required, a changed skill folder, not found, a
    /// directory, not a regular file, not text, too large, or I/O.
    pub fn call(&self, arguments: &Value) -> Result<ReadResult, ReadError> {
        self.read(&read::arguments::parse(arguments)?)
    }

    /// Runs one call and returns the JSON a model sees: the result, or `{"error", "message"}`.
    #[must_use]
    pub fn call_json(&self, arguments: &Value) -> Value {
        match self.call(arguments) {
            Ok(result) => result.to_json(),
            Err(error) => error.to_json(),
        }
    }

    /// Runs one read from typed values: a segment of the file, with the compaction marker when
    /// it is a skill's `SKILL.md`.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::call`].
    pub fn read(&self, request: &ReadRequest) -> Result<ReadResult, ReadError> {
        request.validate()?;
        let opened = self.open(&request.path)?;
        let max_file_bytes = self.options.max_file_bytes();
        if let Some(limit) = max_file_bytes
            && opened.size > limit
        {
            return Err(ReadError::TooLarge {
                size: opened.size,
                limit,
                path: PathBuf::from(&opened.path),
            });
        }
        let path = opened.path.clone();
        let marker = opened.marker.clone();
        // A file that grows while it is read is read only up to the limit.
        let reader = opened.take(max_file_bytes.unwrap_or(u64::MAX));
        read::segment(
            reader,
            &path,
            request,
            self.options.look_ahead_bytes(),
            marker
                .as_ref()
                .map(|(name, directory)| (name.as_str(), directory.as_str())),
        )
    }

    /// Which exposed skill `path` belongs to, and where in it.
    fn locate(&self, path: &Path) -> Result<Located<'_>, BoundaryError> {
        let bytes = path.as_os_str().as_encoded_bytes();
        if bytes.contains(&0) {
            return Err(BoundaryError::NulByte);
        }
        if bytes.len() > open::MAX_PATH_BYTES {
            return Err(BoundaryError::OutsideBoundary);
        }
        if let Some(text) = path.to_str()
            && names_skill_uri(path)
        {
            let parsed = SkillUri::parse(text).map_err(|_| BoundaryError::OutsideBoundary)?;
            let entry = self
                .by_name(&parsed.name)
                .ok_or_else(|| not_found(text.to_owned()))?;
            return Located::by_uri(entry, &parsed.relative);
        }
        if self.options.addressing() == Addressing::SkillUris {
            return Err(BoundaryError::UriRequired);
        }
        let absolute = match (path.is_absolute(), self.base()) {
            (true, _) => paths::absolute_against(Path::new("/"), path),
            (false, Base::One(base)) => paths::absolute_against(base, path),
            (false, Base::Several) => {
                return Err(BoundaryError::RelativePath {
                    path: path.to_path_buf(),
                });
            }
            (false, Base::None) => return Err(BoundaryError::OutsideBoundary),
        };
        // Only the depths where some skill folder lies are looked up.
        let depth = absolute.components().count();
        let entry = absolute
            .ancestors()
            .enumerate()
            .filter(|(up, _)| self.disk.has_depth(depth - up))
            .find_map(|(_, folder)| self.by_directory(folder))
            .ok_or(BoundaryError::OutsideBoundary)?;
        let Body::Disk { directory, .. } = &entry.body else {
            return Err(BoundaryError::OutsideBoundary);
        };
        let relative = absolute
            .strip_prefix(directory)
            .map_err(|_| BoundaryError::OutsideBoundary)?
            .to_path_buf();
        Ok(Located {
            entry,
            display: absolute.display().to_string(),
            relative,
        })
    }
}

/// The outcome of looking for the only exposed skill, kept per reader.
#[derive(Debug, Clone, Copy)]
enum BaseKind {
    /// The one exposed skill, a discovered one at this position.
    One(usize),
    /// Several skills, or one held in memory: relative paths are ambiguous.
    Several,
}

/// Whether `path` is written as a `skill://` URI (the scheme in any case).
fn names_skill_uri(path: &Path) -> bool {
    path.to_str().is_some_and(|text| {
        text.get(..uri::SCHEME.len())
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case(uri::SCHEME))
    })
}

mod bounded;
mod file;
mod folder;
mod open_file;
#[cfg(test)]
mod tests;

use crate::discovery::index::{Body, Entry, Index};
use bounded::Bounded;
pub use file::{FileVersion, SkillFileReader};
pub use folder::SkillFolder;
use open_file::{Located, not_found};

/// The folder a relative path resolves against.
enum Base<'a> {
    None,
    One(&'a Path),
    Several,
}
