//! The skill reader: how every surface — the runtime's tools, `skillbook read --restricted`,

use std::fmt;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cap_std::fs::Dir;
use serde_json::Value;

use crate::boundary::open::{self, FileId, Opened, Resolve, VerifyFailure};
use crate::boundary::{BoundaryError, DirectoryEntry, EntryKind, check_regular};
use crate::discovery::cache::FileState;
use crate::discovery::{Discovered, RootRecord};
use crate::format::{SkillName, name_key};
use crate::paths;
use crate::read::{
    self, DEFAULT_LOOK_AHEAD_BYTES, DEFAULT_MAX_FILE_BYTES, ReadError, ReadRequest, ReadResult,
};
use crate::skill::{Place, SkillFile};
use crate::sources::ProvidedSkill;
use crate::uri::{self, SKILL_FILE, SkillUri};

/// Reads skills' files through the boundary.
///
/// A [`SkillReader`] is built from what discovery found (and from skills held in memory). It
/// holds at most one directory handle per read root, opened the first time a read needs it,
/// never one per skill, and finds a path's skill through a map keyed by skill folder (a lookup
/// per path component, not a scan). Each read then goes:
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
    max_file_bytes: Option<u64>,
    look_ahead_bytes: u64,
    addressing: Addressing,
}

impl fmt::Debug for SkillReader {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SkillReader")
            .field("roots", &self.roots.len())
            .field("skills", &self.names().count())
            .finish_non_exhaustive()
    }
}

/// A read root and, once a read needed it, its verified handle.
struct ReaderRoot {
    record: RootRecord,
    handle: OnceLock<Dir>,
}

/// How a reader's results, its `<skill_instructions>` markers and its errors name a skill's
/// files; the catalog of a runtime scope follows the same choice
/// ([`runtime::Scope::addressing`](crate::runtime::Scope)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Addressing {
    /// A skill found on disk is named by the absolute path of its files, and a read may name
    /// a file by path (absolute, or relative to the only skill's folder) as well as by
    /// `skill://` URI. Skills held in memory are `skill://` URIs. For a host that runs on the
    /// user's own machine.
    #[default]
    Paths,
    /// Every file is named by its `skill://<name>/<path>` URI, and a read must name one that
    /// way ([`BoundaryError::UriRequired`] otherwise): results, markers and error messages never
    /// show a path of the host's disk. For a host that serves others (tenants, a network
    /// server).
    SkillUris,
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
            max_file_bytes: Some(DEFAULT_MAX_FILE_BYTES),
            look_ahead_bytes: DEFAULT_LOOK_AHEAD_BYTES,
            addressing: Addressing::Paths,
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

    /// Sets the read tool's size limit in bytes; `None` disables it (default
    /// [`DEFAULT_MAX_FILE_BYTES`]).
    #[must_use]
    pub fn max_file_bytes(mut self, limit: Option<u64>) -> Self {
        self.max_file_bytes = limit;
        self
    }

    /// Sets how many bytes past a segment the read tool scans to learn `totalLines` (default
    /// [`DEFAULT_LOOK_AHEAD_BYTES`]).
    #[must_use]
    pub fn look_ahead_bytes(mut self, bytes: u64) -> Self {
        self.look_ahead_bytes = bytes;
        self
    }

    /// Sets how results, markers and errors name the skills' files (default
    /// [`Addressing::Paths`]).
    #[must_use]
    pub fn addressing(mut self, addressing: Addressing) -> Self {
        self.addressing = addressing;
        self
    }

    /// How this reader names the skills' files.
    #[must_use]
    pub fn addressing_mode(&self) -> Addressing {
        self.addressing
    }

    /// The folder of `entry` as markers name it: its path, or `skill://<name>`.
    fn directory_label(&self, entry: &Entry) -> String {
        match self.addressing {
            Addressing::Paths => entry.directory_label(),
            Addressing::SkillUris => uri::directory(&entry.name),
        }
    }

    /// `error`, about a file of `entry`, naming that file as this reader names files: under
    /// [`Addressing::SkillUris`] a path in the skill's folder becomes its `skill://` URI and
    /// any other path the skill's URI (what lies outside is never named).
    fn addressed(&self, entry: &Entry, error: BoundaryError) -> BoundaryError {
        let (Addressing::SkillUris, Body::Disk { directory, .. }) = (self.addressing, &entry.body)
        else {
            return error;
        };
        error.map_path(|path| {
            if path
                .to_str()
                .is_some_and(|text| text.starts_with(uri::SCHEME))
            {
                return path;
            }
            let relative = path
                .strip_prefix(directory)
                .map(|rest| {
                    let parts: Vec<_> = rest.iter().map(|part| part.to_string_lossy()).collect();
                    parts.join("/")
                })
                .unwrap_or_default();
            PathBuf::from(uri::resource(&entry.name, &relative))
        })
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
    /// only skill's folder, or a `skill://<name>/<file>` URI.
    ///
    /// # Errors
    ///
    /// [`BoundaryError::NulByte`], [`BoundaryError::RelativePath`] (several skills),
    /// [`BoundaryError::OutsideBoundary`] (in no exposed skill, a link that leaves its skill, a
    /// `.git` or `node_modules` folder), [`BoundaryError::SkillChanged`],
    /// [`BoundaryError::NotFound`], [`BoundaryError::IsDirectory`],
    /// [`BoundaryError::NotRegularFile`] and [`BoundaryError::Io`].
    pub fn open(&self, path: &Path) -> Result<SkillFileReader, BoundaryError> {
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

    /// The read tool's definition under `name` (see [`crate::skill_file_schema`]).
    #[must_use]
    pub fn schema(&self, name: &str) -> Value {
        read::skill_file_schema(name)
    }

    /// Runs one `read_file` call with the model's arguments.
    ///
    /// # Errors
    ///
    /// As [`crate::ReadFile::call`]: one [`ReadError`] per failure, each with its own code.
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
        if let Some(limit) = self.max_file_bytes
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
        let reader = opened.take(self.max_file_bytes.unwrap_or(u64::MAX));
        read::segment(
            reader,
            &path,
            request,
            self.look_ahead_bytes,
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
            && text
                .get(..uri::SCHEME.len())
                .is_some_and(|scheme| scheme.eq_ignore_ascii_case(uri::SCHEME))
        {
            let parsed = SkillUri::parse(text).map_err(|_| BoundaryError::OutsideBoundary)?;
            let entry = self
                .by_name(&parsed.name)
                .ok_or_else(|| not_found(text.to_owned()))?;
            return Located::by_uri(entry, &parsed.relative);
        }
        if self.addressing == Addressing::SkillUris {
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

    fn open_located(
        &self,
        located: &Located<'_>,
        folder: Option<&Dir>,
    ) -> Result<SkillFileReader, BoundaryError> {
        self.open_entry(located, folder)
            .map_err(|error| self.addressed(located.entry, error))
    }

    fn open_entry(
        &self,
        located: &Located<'_>,
        folder: Option<&Dir>,
    ) -> Result<SkillFileReader, BoundaryError> {
        let entry = located.entry;
        match &entry.body {
            Body::Memory(skill) => {
                let relative = located.relative.to_string_lossy();
                let content = if relative == SKILL_FILE {
                    MemoryBytes::Text(skill.skill_md_shared())
                } else {
                    match skill.file_shared(&relative) {
                        Some(bytes) => MemoryBytes::Bytes(bytes),
                        None if memory_listing(skill, &located.relative).is_some() => {
                            return Err(BoundaryError::IsDirectory {
                                path: PathBuf::from(&located.display),
                            });
                        }
                        None => return Err(not_found(located.display.clone())),
                    }
                };
                Ok(SkillFileReader {
                    path: located.display.clone(),
                    size: content.as_ref().len() as u64,
                    marker: (relative == SKILL_FILE)
                        .then(|| (entry.name.clone(), self.directory_label(entry))),
                    version: None,
                    content: Content::Memory(io::Cursor::new(content)),
                })
            }
            Body::Disk {
                directory,
                file_name,
                place,
            } => {
                let is_skill_file = located.relative.as_os_str() == file_name.as_os_str();
                let opened = match folder {
                    Some(folder) => {
                        open_disk(folder, place, directory, &located.relative, is_skill_file)?
                    }
                    None => {
                        let folder = self.verified_folder(place, directory)?;
                        open_disk(&folder, place, directory, &located.relative, is_skill_file)?
                    }
                };
                let display = PathBuf::from(&located.display);
                check_regular(opened.metadata.file_type(), display)?;
                Ok(SkillFileReader {
                    path: located.display.clone(),
                    size: opened.metadata.len(),
                    marker: is_skill_file
                        .then(|| (entry.name.clone(), self.directory_label(entry))),
                    version: Some(FileVersion(FileState::of_cap(&opened.metadata))),
                    content: Content::Disk(opened.file),
                })
            }
        }
    }

    /// The verified handle of a skill folder.
    fn verified_folder(&self, place: &Place, directory: &Path) -> Result<Dir, BoundaryError> {
        let changed = || BoundaryError::SkillChanged {
            path: directory.to_path_buf(),
        };
        let root = self.roots.get(place.root).ok_or_else(changed)?;
        let verified = |failure: VerifyFailure| match failure {
            VerifyFailure::Changed => changed(),
            VerifyFailure::Io(source) => BoundaryError::Io {
                path: root.record.path.clone(),
                source,
            },
        };
        let opened = if root.record.followed {
            let handle =
                open::open_verified(&root.record.anchor, root.record.id).map_err(verified)?;
            open::open_dir_path(&handle, place.relative(directory))
        } else {
            let handle = match root.handle.get() {
                Some(handle) => handle,
                None => {
                    let handle = open::open_verified(&root.record.anchor, root.record.id)
                        .map_err(verified)?;
                    // Two reads racing here both open it; one handle is kept.
                    let _ = root.handle.set(handle);
                    root.handle.get().ok_or_else(changed)?
                }
            };
            open::open_dir_path(handle, place.relative(directory))
        };
        let folder = opened.map_err(|error| match error.kind() {
            io::ErrorKind::PermissionDenied if error.raw_os_error().is_some() => {
                BoundaryError::Io {
                    path: directory.to_path_buf(),
                    source: error,
                }
            }
            _ if is_out_of_resources(&error) => BoundaryError::Io {
                path: directory.to_path_buf(),
                source: error,
            },
            _ => changed(),
        })?;
        open::verify(folder, place.id).map_err(|failure| match failure {
            VerifyFailure::Changed => changed(),
            VerifyFailure::Io(source) => BoundaryError::Io {
                path: directory.to_path_buf(),
                source,
            },
        })
    }
}

/// Opens `relative` in a skill's verified `folder`: directly when no link lies on the way (no
/// link is followed then), else after resolving the links inside the folder; a followed
/// skill-file link opens its recorded target, checked by identity.
fn open_disk(
    folder: &Dir,
    place: &Place,
    directory: &Path,
    relative: &Path,
    is_skill_file: bool,
) -> Result<Opened, BoundaryError> {
    let path = directory.join(relative);
    if relative.as_os_str().is_empty() {
        return Err(BoundaryError::IsDirectory { path });
    }
    if let (true, SkillFile::Linked(link)) = (is_skill_file, &place.file) {
        let opened =
            open::open_followed_file(&link.target).map_err(|source| disk_failure(&path, source))?;
        if FileId::of(&opened.metadata) != link.id {
            return Err(BoundaryError::SkillChanged {
                path: directory.to_path_buf(),
            });
        }
        return Ok(opened);
    }
    if relative
        .components()
        .any(|component| open::is_never_served(component.as_os_str()))
    {
        return Err(BoundaryError::OutsideBoundary);
    }
    // Most paths hold no link: open them as they are, following none.
    match open::open_resolved(folder, relative) {
        Ok(opened) => return Ok(opened),
        // No link on the way can answer "not found" to an open that follows none.
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(disk_failure(&path, error));
        }
        Err(_) => {}
    }
    let resolved = match open::resolve_beneath(folder, relative) {
        Ok(resolved) => resolved,
        Err(Resolve::Escape) => return Err(BoundaryError::OutsideBoundary),
        Err(Resolve::TooManyLinks) => {
            return Err(BoundaryError::Io {
                path,
                source: io::Error::other("too many levels of symbolic links"),
            });
        }
    };
    match open::open_resolved(folder, &resolved) {
        Ok(opened) => Ok(opened),
        Err(error) => Err(open_failure(folder, &resolved, path, error)),
    }
}

/// Words a failed open: a link appearing where resolution saw none is a refusal; a socket is
/// named as such.
fn open_failure(folder: &Dir, resolved: &Path, path: PathBuf, error: io::Error) -> BoundaryError {
    match folder.symlink_metadata(resolved) {
        // Swapped in after the path was resolved: never followed.
        Ok(metadata) if metadata.is_symlink() => BoundaryError::OutsideBoundary,
        Ok(metadata) if !metadata.is_file() => match check_regular(metadata.file_type(), path) {
            Err(refusal) => refusal,
            Ok(()) => BoundaryError::OutsideBoundary,
        },
        _ => disk_failure(&path, error),
    }
}

/// A skill's folder, opened and checked once, for reading many of its files.
pub struct SkillFolder<'r> {
    reader: &'r SkillReader,
    entry: &'r Entry,
    /// The verified folder handle (none for a skill in memory).
    handle: Option<Dir>,
}

impl fmt::Debug for SkillFolder<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SkillFolder")
            .field("skill", &self.entry.name)
            .finish_non_exhaustive()
    }
}

impl SkillFolder<'_> {
    /// Opens the file at `relative` (`/`-separated); `SKILL.md` is the skill file whatever it
    /// is called on disk.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::open`].
    pub fn open(&self, relative: &str) -> Result<SkillFileReader, BoundaryError> {
        let located = Located::by_uri(self.entry, relative)?;
        self.reader.open_located(&located, self.handle.as_ref())
    }

    /// The entries of the directory `relative` (empty for the folder itself), as
    /// [`SkillReader::list_directory`] gives them.
    ///
    /// # Errors
    ///
    /// As [`SkillReader::list_directory`].
    pub fn list(&self, relative: &str) -> Result<Vec<DirectoryEntry>, BoundaryError> {
        self.list_entries(relative)
            .map_err(|error| self.reader.addressed(self.entry, error))
    }

    fn list_entries(&self, relative: &str) -> Result<Vec<DirectoryEntry>, BoundaryError> {
        let label = || uri::resource(&self.entry.name, relative);
        let relative = relative_path(relative).ok_or(BoundaryError::OutsideBoundary)?;
        let (Body::Disk { directory, .. }, Some(folder)) = (&self.entry.body, &self.handle) else {
            return match &self.entry.body {
                Body::Memory(skill) => {
                    memory_listing(skill, &relative).ok_or_else(|| not_found(label()))
                }
                Body::Disk { .. } => Err(not_found(label())),
            };
        };
        if relative
            .components()
            .any(|component| open::is_never_served(component.as_os_str()))
        {
            return Err(BoundaryError::OutsideBoundary);
        }
        let path = directory.join(&relative);
        let failure = |source: io::Error| disk_failure(&path, source);
        let listed = open::open_dir_path(folder, &relative).map_err(failure)?;
        let mut entries = Vec::new();
        for item in listed.entries().map_err(failure)? {
            let item = item.map_err(failure)?;
            let name = item.file_name();
            if open::is_never_served(&name) {
                continue;
            }
            let kind = EntryKind::of(item.file_type().map_err(failure)?);
            entries.push(DirectoryEntry { name, kind });
        }
        entries.sort_by(|left, right| left.name.cmp(&right.name));
        Ok(entries)
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

/// Where a requested file lies: its skill, the path inside it, and how results name it.
struct Located<'a> {
    entry: &'a Entry,
    /// The path below the skill folder (for memory skills, `/`-separated).
    relative: PathBuf,
    /// The absolute path, or the `skill://` URI, as results show it.
    display: String,
}

impl<'a> Located<'a> {
    /// A file named by a `skill://` URI's path inside its skill.
    fn by_uri(entry: &'a Entry, relative: &str) -> Result<Self, BoundaryError> {
        let path = relative_path(relative).ok_or(BoundaryError::OutsideBoundary)?;
        let (relative, display) = match &entry.body {
            Body::Disk { file_name, .. } if relative == SKILL_FILE => {
                (PathBuf::from(file_name), uri::skill_file(&entry.name))
            }
            _ => (path, uri::resource(&entry.name, relative)),
        };
        Ok(Located {
            entry,
            relative,
            display,
        })
    }
}

/// A `/`-separated relative path as a path of normal components; `None` when it holds
/// anything else (`..`, an absolute start, an empty segment inside).
fn relative_path(relative: &str) -> Option<PathBuf> {
    let path = PathBuf::from(relative.trim_end_matches('/'));
    path.components()
        .all(|component| matches!(component, Component::Normal(_)))
        .then_some(path)
}

/// The children of the virtual directory `relative` of a skill in memory, or `None` when no
/// file lies below it.
fn memory_listing(skill: &ProvidedSkill, relative: &Path) -> Option<Vec<DirectoryEntry>> {
    let prefix = relative.to_string_lossy();
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    let mut children: Vec<DirectoryEntry> = Vec::new();
    let mut any = prefix.is_empty();
    let files = std::iter::once(SKILL_FILE).chain(skill.files().map(|(path, _)| path));
    for path in files {
        let Some(rest) = path.strip_prefix(&prefix) else {
            continue;
        };
        any = true;
        let (name, kind) = match rest.split_once('/') {
            Some((folder, _)) => (folder, EntryKind::Directory),
            None => (rest, EntryKind::File),
        };
        if !children.iter().any(|child| child.name == name) {
            children.push(DirectoryEntry {
                name: name.into(),
                kind,
            });
        }
    }
    children.sort_by(|left, right| left.name.cmp(&right.name));
    any.then_some(children)
}

fn not_found(path: String) -> BoundaryError {
    BoundaryError::NotFound {
        path: PathBuf::from(path),
    }
}

/// Turns a failed open inside a skill folder into the error a reader can act on.
fn disk_failure(path: &Path, error: io::Error) -> BoundaryError {
    if open::is_escape(&error) {
        return BoundaryError::OutsideBoundary;
    }
    match error.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => BoundaryError::NotFound {
            path: path.to_path_buf(),
        },
        io::ErrorKind::IsADirectory => BoundaryError::IsDirectory {
            path: path.to_path_buf(),
        },
        _ if error.raw_os_error() == Some(ELOOP) => BoundaryError::OutsideBoundary,
        _ => BoundaryError::Io {
            path: path.to_path_buf(),
            source: error,
        },
    }
}

/// `ELOOP`: a link met where none may be followed.
#[cfg(unix)]
const ELOOP: i32 = rustix::io::Errno::LOOP.raw_os_error();
#[cfg(not(unix))]
const ELOOP: i32 = -1;

/// Out of descriptors or memory: an I/O failure, never a changed folder.
fn is_out_of_resources(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        let exhausted = [Errno::MFILE, Errno::NFILE, Errno::NOMEM];
        exhausted
            .iter()
            .any(|errno| error.raw_os_error() == Some(errno.raw_os_error()))
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

mod file;
#[cfg(test)]
mod tests;

use crate::discovery::index::{Body, Entry, Index};
use file::{Content, MemoryBytes};
pub use file::{FileVersion, SkillFileReader};

/// The folder a relative path resolves against.
enum Base<'a> {
    None,
    One(&'a Path),
    Several,
}
