//! Walking one root: the leaf rule, symlinks, bounds, and errors that stay local.
//!
//! The walk goes by handles, never by paths: each root is opened from its anchor one component
//! at a time without following links, each directory beneath its parent's handle, each skill
//! file beneath its folder's handle (see [`crate::boundary`]). A folder swapped for a link while
//! the walk runs is met as a link — skipped and reported, or followed when the user asked for
//! that — so a `SKILL.md` from outside the roots never reaches the catalog. The handles held at
//! once are one per level of the directory being searched, whatever the number of skills, plus
//! at most 16 skill files handed to parser threads to be read from the disk ([`super::parse`]).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::Dir;

use super::cache::{FileState, Stamp};
use super::complete::{Completion, Reread, Sink};
use super::parse::{self, Batch, Job, Jobs, Keep, Parsed, Results, Workers};
use super::skill_file;
use super::{Limits, RootRecord, SymlinkPolicy};
use crate::boundary::open::{self, EntryKind, FileId, FileIdSet, Opened};
use crate::diagnostic::{Diagnostic, DiagnosticCode, Severity};
use crate::skill::{Place, Skill, SkillFile, Source};
use crate::sources::{SKILL_FILE_NAMES, skill_file};

mod links;
mod roots;

/// The most links followed in a row to reach one root.
const MAX_ROOT_LINKS: usize = 40;

/// Called with each directory the walk is about to search (before it is listed), so a watcher
/// can watch exactly the directories discovery depends on.
pub(crate) type Observer<'o> = &'o mut dyn FnMut(&Path);

/// A skill file as a checker sees it: where it is, what the reader made of it, and its text.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "check"), allow(dead_code))]
pub(crate) struct Inspected {
    pub(crate) path: PathBuf,
    pub(crate) document: crate::frontmatter::SkillDocument,
    pub(crate) text: String,
}

/// What a walk produced: the skills and diagnostics (kept, before duplicate names are resolved,
/// or already handed over), and the roots.
pub(super) struct Walked<'e> {
    pub(super) sink: Sink<'e>,
    pub(super) roots: Vec<RootRecord>,
    /// The state of every path the result depends on, when recording.
    pub(super) stamps: Vec<Stamp>,
}

/// Walks roots one after another, remembering files and directories already seen.
pub(super) struct Walker<'o> {
    symlinks: SymlinkPolicy,
    limits: Limits,
    /// Everything met, settled in walk order as the parse results come back.
    completion: Completion<'o>,
    /// Where skill files go to be parsed; `None` parses them inline.
    jobs: Option<Jobs>,
    /// The parse results of the workers, a batch at a time.
    results: Option<Results>,
    /// Room for a skill file read to be parsed here (without workers).
    scratch: Vec<u8>,
    roots: Vec<RootRecord>,
    /// The position of each root in `roots`, by path.
    root_positions: HashMap<PathBuf, usize>,
    /// The walk's own diagnostics since the last skill found (they join the completion's
    /// queue ahead of it).
    diagnostics: Vec<Diagnostic>,
    seen_files: FileIdSet,
    /// Directories entered, by identity; only tracked when following symlinks.
    seen_directories: FileIdSet,
    /// The state of each path read, for a cache to check later; `None` when not recording.
    stamps: Option<Vec<Stamp>>,
    observer: Option<Observer<'o>>,
    /// How much of each skill file's reading is kept.
    keep: Keep,
    /// The parent (its handle's address) of the last skill the full search found: the next
    /// folders beneath it likely are skills too.
    skill_parent: Option<usize>,
    /// Whether the inode number the parent's listing gave for that skill's folder was the
    /// folder's own (and the skill file lay on the folder's device): then its siblings' are
    /// taken as theirs. (On some file systems they differ: overlays of several, for one.)
    listed_inodes_agree: bool,
}

/// How a directory waiting to be searched is opened.
enum Handle {
    /// Already open (a root).
    Open(Dir),
    /// `name` beneath the parent's handle, without following a link, with the inode number the
    /// parent's listing gave for it.
    Beneath(Arc<Dir>, OsString, Option<u64>),
    /// The target of a directory link the user chose to follow: a root of its own.
    Followed { link: PathBuf },
}

/// A directory waiting to be searched: how to open it, and where it lies.
struct Pending {
    handle: Handle,
    folder: Folder,
}

/// Where a directory being searched lies.
struct Folder {
    /// The absolute path.
    path: PathBuf,
    /// The index of its root in [`Walker::roots`].
    root: usize,
    /// How many folders below the root it lies.
    below: usize,
    depth: usize,
    /// Where the skills found below it come from (a followed link keeps its root's source).
    source: Source,
}

/// Per-root counters for the bounds.
#[derive(Default)]
struct Bounds {
    directories: usize,
    too_deep: usize,
    first_too_deep: Option<PathBuf>,
}

/// A skill file found in a directory.
struct Found {
    opened: Opened,
    /// The skill file's path in its folder (a followed link keeps its own path).
    path: PathBuf,
    file: SkillFile,
}

/// A skill folder's identity as [`Walker::leaf`] first knows it.
enum FolderId {
    /// Taken from the folder itself.
    Known(FileId),
    /// The inode number its parent's listing gave; the device is the skill file's.
    Listed(u64),
}

/// What [`Walker::leaf`] made of a folder.
enum Leaf {
    /// A skill, recorded (or a folder already searched).
    Taken,
    /// Left to the full search; `observed` when the observer was told of it already.
    Not { observed: bool },
}

/// The result of looking for a skill file in one directory.
enum SkillFileSearch {
    Found(Box<Found>),
    /// A skill file exists but cannot be read (reported); the directory is still a skill.
    Unreadable,
    None,
}

impl<'o> Walker<'o> {
    pub(super) fn new(
        symlinks: SymlinkPolicy,
        limits: Limits,
        record: bool,
        workers: Option<Workers>,
        observer: Option<Observer<'o>>,
        keep: Keep,
        sink: Sink<'o>,
    ) -> Self {
        let (jobs, results) = match workers {
            Some(Workers { jobs, results }) => (Some(jobs), Some(results)),
            None => (None, None),
        };
        Walker {
            keep,
            stamps: record.then(Vec::new),
            symlinks,
            limits,
            completion: Completion::new(sink),
            jobs,
            results,
            scratch: Vec::new(),
            roots: Vec::new(),
            root_positions: HashMap::new(),
            diagnostics: Vec::new(),
            seen_files: FileIdSet::default(),
            seen_directories: FileIdSet::default(),
            observer,
            skill_parent: None,
            listed_inodes_agree: false,
        }
    }

    /// Hands on only the skills `admission` admits.
    pub(super) fn admit_with(&mut self, admission: Option<Arc<dyn super::Admission>>) {
        self.completion.admit_with(admission);
    }

    /// Settles nothing until the walk has finished, so that a test can change the tree between
    /// the walk and the second read of a long skill file.
    #[cfg(test)]
    pub(super) fn hold_results(&mut self) {
        self.completion.hold();
    }

    /// Hands the walk's pending diagnostics to the completion, in their place.
    fn pass_diagnostics(&mut self) {
        for diagnostic in self.diagnostics.drain(..) {
            self.completion.diagnostic(diagnostic);
        }
    }

    /// Takes the parse results that have come back so far, settling what they let settle.
    fn take_results(&mut self) {
        let Some(results) = &self.results else {
            return;
        };
        while let Ok(batch) = results.try_recv() {
            let reread = Reread {
                roots: &self.roots,
                limits: self.limits,
                keep: self.keep,
            };
            self.completion.results(batch, &reread);
        }
    }

    /// Parses on this thread files the workers could not take.
    fn parse_inline(&mut self, mut batch: Batch) {
        let parsed = batch.parse();
        let reread = Reread {
            roots: &self.roots,
            limits: self.limits,
            keep: self.keep,
        };
        self.completion.results(parsed, &reread);
    }

    /// Hands the last files to the workers, waits for every result, and settles the rest: the
    /// skills and diagnostics in walk order (kept or handed over, as the sink says).
    pub(super) fn finish(mut self) -> Walked<'o> {
        if let Some(mut jobs) = self.jobs.take()
            && let Some(returned) = jobs.flush()
        {
            self.parse_inline(returned);
        }
        // The queue's sender is gone with the jobs: the workers finish what they hold and stop.
        if let Some(results) = self.results.take() {
            for batch in results {
                let reread = Reread {
                    roots: &self.roots,
                    limits: self.limits,
                    keep: self.keep,
                };
                self.completion.results(batch, &reread);
            }
        }
        self.pass_diagnostics();
        let reread = Reread {
            roots: &self.roots,
            limits: self.limits,
            keep: self.keep,
        };
        let sink = self.completion.finish(&reread);
        Walked {
            sink,
            roots: self.roots,
            stamps: self.stamps.unwrap_or_default(),
        }
    }

    fn recording(&self) -> bool {
        self.stamps.is_some()
    }

    /// Remembers the state of `path` when recording.
    fn stamp(&mut self, path: &Path, follow: bool, state: Option<FileState>) {
        if let Some(stamps) = &mut self.stamps {
            stamps.push(Stamp {
                path: path.to_path_buf(),
                follow,
                state,
            });
        }
    }

    fn walk_from(&mut self, start: Pending) {
        let root_path = start.folder.path.clone();
        let mut bounds = Bounds::default();
        let mut stack = vec![start];
        while let Some(pending) = stack.pop() {
            bounds.directories += 1;
            if bounds.directories > self.limits.max_directories {
                self.directory_limit(&root_path);
                break;
            }
            let skills_before = self.completion.found();
            let mut observed = false;
            // The parent's handle, by address: only compared, to tell siblings apart.
            let (parent, inode) = match &pending.handle {
                Handle::Beneath(parent, _, inode) => (Some(Arc::as_ptr(parent) as usize), *inode),
                _ => (None, None),
            };
            if parent.is_some()
                && parent == self.skill_parent
                && let Handle::Beneath(parent, name, _) = &pending.handle
            {
                let listed = inode.filter(|_| self.listed_inodes_agree);
                match self.leaf(parent, name, listed, &pending.folder) {
                    Leaf::Taken => continue,
                    Leaf::Not { observed: told } => observed = told,
                }
            }
            let Some((directory, folder)) = self.open_pending(pending) else {
                continue;
            };
            stack.extend(
                self.search(directory, &folder, observed, inode, &mut bounds)
                    .into_iter()
                    .rev(),
            );
            if self.completion.found() > skills_before {
                self.skill_parent = parent;
            }
        }
        if let Some(first) = bounds.first_too_deep {
            self.diagnostics.push(Diagnostic::warning(
                DiagnosticCode::DepthLimit,
                &first,
                format!(
                    "{} director{} deeper than {} levels below the root {} were not searched. \
                     Move skills higher or raise the depth limit",
                    bounds.too_deep,
                    if bounds.too_deep == 1 { "y" } else { "ies" },
                    self.limits.max_depth,
                    root_path.display()
                ),
            ));
        }
    }

    fn directory_limit(&mut self, root: &Path) {
        self.diagnostics.push(Diagnostic::warning(
            DiagnosticCode::DirectoryLimit,
            root,
            format!(
                "stopped after searching {} directories in this root; skills further on were \
                 not found. Raise the directory limit or point at a narrower root",
                self.limits.max_directories
            ),
        ));
    }

    /// Takes the directory `name` beneath `parent` as a skill in one step when it plainly is one:
    /// a real directory holding a regular `SKILL.md`, both reached without a link. Anything else
    /// (a collection, a link, a lower-case `skill.md`, a folder that vanished) is left, with
    /// nothing recorded, to the full search, which handles and reports it; it is told whether
    /// the observer has already been told of the folder. `listed` is the folder's inode
    /// number as its parent's listing gave it, when that can be trusted.
    fn leaf(&mut self, parent: &Dir, name: &OsStr, listed: Option<u64>, folder: &Folder) -> Leaf {
        // The folder's identity first: a folder swapped after this is refused by readers. The
        // listing's inode number was taken earlier still; its device is the skill file's,
        // which is opened without crossing a mount point, so on the folder's file system.
        let id = match listed {
            Some(inode) => FolderId::Listed(inode),
            None => match parent.symlink_metadata(name) {
                Ok(metadata) if metadata.is_dir() => FolderId::Known(FileId::of(&metadata)),
                _ => return Leaf::Not { observed: false },
            },
        };
        // Watched before its skill file is opened, so no later change goes unseen.
        let observed = match &mut self.observer {
            Some(observer) => {
                observer(&folder.path);
                true
            }
            None => false,
        };
        let name_of_file = SKILL_FILE_NAMES[0];
        let opened = match open::open_file_in_child(parent, name, name_of_file) {
            Ok(Some(opened)) if opened.metadata.is_file() => opened,
            _ => return Leaf::Not { observed },
        };
        let id = match id {
            FolderId::Known(id) => id,
            FolderId::Listed(inode) => FileId::of(&opened.metadata).with_inode(inode),
        };
        if self.symlinks == SymlinkPolicy::Follow && !self.seen_directories.insert(id) {
            return Leaf::Taken;
        }
        let path = folder.path.join(name_of_file);
        self.stamp(&path, false, Some(FileState::of_cap(&opened.metadata)));
        let found = Found {
            opened,
            path,
            file: SkillFile::Named(name_of_file),
        };
        self.add_skill(found, folder, id);
        Leaf::Taken
    }

    /// Opens a waiting directory; `None` when it is gone, unreadable or (reported) a link.
    fn open_pending(&mut self, pending: Pending) -> Option<(Dir, Folder)> {
        let Pending { handle, mut folder } = pending;
        let directory = match handle {
            Handle::Open(directory) => directory,
            Handle::Beneath(parent, name, _) => match open::open_dir_for_listing(&parent, &name) {
                Ok(directory) => directory,
                Err(error) => {
                    self.vanished_directory(&parent, &name, &folder.path, &error);
                    return None;
                }
            },
            Handle::Followed { link } => {
                let directory = match open::open_ambient_dir(&folder.path) {
                    Ok(directory) => directory,
                    Err(error) => return self.link_failed(&link, &error),
                };
                let id = match directory.dir_metadata() {
                    Ok(metadata) => FileId::of(&metadata),
                    Err(error) => {
                        self.unreadable(&folder.path, &error);
                        return None;
                    }
                };
                // The followed target is a root of its own.
                folder.root = self.root_index(&folder.path, id);
                folder.below = 0;
                directory
            }
        };
        Some((directory, folder))
    }

    /// A directory listed a moment ago cannot be opened beneath its parent: it was removed,
    /// replaced by a link (met as a link), or cannot be read.
    fn vanished_directory(
        &mut self,
        parent: &Dir,
        name: &OsString,
        path: &Path,
        error: &io::Error,
    ) {
        match parent.symlink_metadata(name) {
            Ok(metadata) if metadata.is_symlink() => {
                if self.symlinks == SymlinkPolicy::Skip {
                    self.symlink_skipped(path);
                } else {
                    self.diagnostics.push(unreadable(
                        path,
                        &io::Error::other("it was replaced by a symbolic link during discovery"),
                    ));
                }
            }
            Err(lookup) if open::is_absent(&lookup) => {}
            Ok(metadata) if !metadata.is_dir() => {}
            _ => self.unreadable(path, error),
        }
    }

    /// Searches one opened directory: records it when it is a skill, else returns its
    /// subdirectories to search.
    fn search(
        &mut self,
        directory: Dir,
        folder: &Folder,
        observed: bool,
        inode: Option<u64>,
        bounds: &mut Bounds,
    ) -> Vec<Pending> {
        let needs_identity = self.symlinks == SymlinkPolicy::Follow || self.recording();
        let metadata = if needs_identity {
            match directory.dir_metadata() {
                Ok(metadata) => Some(metadata),
                Err(error) => {
                    self.unreadable(&folder.path, &error);
                    return Vec::new();
                }
            }
        } else {
            None
        };
        if self.symlinks == SymlinkPolicy::Follow
            && let Some(metadata) = &metadata
            && !self.seen_directories.insert(FileId::of(metadata))
        {
            return Vec::new();
        }
        if !observed && let Some(observer) = &mut self.observer {
            observer(&folder.path);
        }
        // Taken before the search, so a change during it is seen by the next check.
        let before = metadata.as_ref().map(FileState::of_cap);
        // Listed first: a folder with nothing named like a skill file is a collection, found so
        // without looking the names up.
        let listed = open::list_entries(&directory);
        // (A file system may fold case: a listed `Skill.md` may open as `SKILL.md`.)
        let may_be_skill = listed.as_ref().map_or(true, |(entries, _)| {
            skill_file(|candidate| {
                entries.iter().any(|entry| {
                    entry
                        .name
                        .as_encoded_bytes()
                        .eq_ignore_ascii_case(candidate.as_bytes())
                })
            })
            .is_some()
        });
        if may_be_skill {
            match self.find_skill_file(&directory, &folder.path) {
                SkillFileSearch::Found(found) => {
                    let id = match &metadata {
                        Some(metadata) => FileId::of(metadata),
                        None => match directory.dir_metadata() {
                            Ok(metadata) => FileId::of(&metadata),
                            Err(error) => {
                                self.unreadable(&folder.path, &error);
                                return Vec::new();
                            }
                        },
                    };
                    let agrees = inode.is_some_and(|inode| {
                        FileId::of(&found.opened.metadata).with_inode(inode) == id
                    });
                    let before = self.completion.found();
                    self.add_skill(*found, folder, id);
                    if self.completion.found() > before {
                        // Its parent becomes the one whose next folders are tried as skills.
                        self.listed_inodes_agree = agrees;
                    }
                    return Vec::new();
                }
                SkillFileSearch::Unreadable => return Vec::new(),
                SkillFileSearch::None => {}
            }
        }
        let (entries, errors) = match listed {
            Ok(listed) => listed,
            Err(error) => {
                self.unreadable(&folder.path, &error);
                return Vec::new();
            }
        };
        for error in errors {
            self.unreadable(&folder.path, &error);
        }
        let children = self.children(directory, entries, folder, bounds);
        // A skill directory's listing does not matter: its skill file is stamped.
        self.stamp(&folder.path, false, before);
        children
    }

    /// The subdirectories (and, under `Follow`, directory links) of a collection directory.
    fn children(
        &mut self,
        directory: Dir,
        mut entries: Vec<open::Entry>,
        folder: &Folder,
        bounds: &mut Bounds,
    ) -> Vec<Pending> {
        entries.sort_unstable_by(|left, right| left.name.cmp(&right.name));
        let parent = Arc::new(directory);
        let mut children = Vec::new();
        for open::Entry { name, kind, inode } in entries {
            if open::is_never_served(&name) {
                continue;
            }
            if kind == EntryKind::Other {
                continue;
            }
            let path = folder.path.join(&name);
            let (handle, path) = match kind {
                EntryKind::Directory => (Handle::Beneath(Arc::clone(&parent), name, inode), path),
                EntryKind::Link => match self.directory_link(&path) {
                    Some(target) => (Handle::Followed { link: path }, target),
                    None => continue,
                },
                EntryKind::Other => continue,
            };
            if folder.depth + 1 > self.limits.max_depth {
                bounds.too_deep += 1;
                bounds.first_too_deep.get_or_insert(path);
                continue;
            }
            children.push(Pending {
                handle,
                folder: Folder {
                    path,
                    root: folder.root,
                    below: folder.below + 1,
                    depth: folder.depth + 1,
                    source: folder.source,
                },
            });
        }
        children
    }

    /// Looks for the skill file the leaf rule names — `SKILL.md`, then `skill.md` — beneath
    /// the directory's handle, reporting candidates that cannot be skill files.
    fn find_skill_file(&mut self, directory: &Dir, directory_path: &Path) -> SkillFileSearch {
        let mut missing: Vec<PathBuf> = Vec::new();
        let mut search = SkillFileSearch::None;
        // The rule asks no further once a candidate is the skill file, or cannot be read.
        skill_file(|name| {
            search = self.try_skill_file(directory, directory_path, name, &mut missing);
            !matches!(search, SkillFileSearch::None)
        });
        search
    }

    /// One candidate of [`Walker::find_skill_file`]: `None` when the directory holds no
    /// skill file of that name (`missing` records the names found absent).
    fn try_skill_file(
        &mut self,
        directory: &Dir,
        directory_path: &Path,
        name: &'static str,
        missing: &mut Vec<PathBuf>,
    ) -> SkillFileSearch {
        let path = directory_path.join(name);
        let error = match open::open_file_nofollow(directory, name.as_ref()) {
            Ok(opened) => {
                self.stamp(&path, false, Some(FileState::of_cap(&opened.metadata)));
                if opened.metadata.is_file() {
                    // A preferred name created later would take over: watch for it.
                    for absent in missing.iter() {
                        self.stamp(absent, false, None);
                    }
                    let file = SkillFile::Named(name);
                    return SkillFileSearch::Found(Box::new(Found { opened, path, file }));
                }
                self.not_regular(&path);
                return SkillFileSearch::None;
            }
            Err(error) if open::is_absent(&error) => {
                missing.push(path);
                return SkillFileSearch::None;
            }
            Err(error) => error,
        };
        // Not opened: a link, a socket, or something unreadable. Look at what is there.
        match directory.symlink_metadata(name) {
            Ok(metadata) if metadata.is_symlink() => {
                self.stamp(&path, false, Some(FileState::of_cap(&metadata)));
                if self.recording() {
                    let target = fs::metadata(&path).ok();
                    self.stamp(&path, true, target.as_ref().map(FileState::of));
                }
                if self.symlinks == SymlinkPolicy::Skip {
                    self.symlink_skipped(&path);
                    return SkillFileSearch::None;
                }
                if let Some(found) = self.follow_file_link(path) {
                    return SkillFileSearch::Found(Box::new(found));
                }
            }
            Ok(metadata) if !metadata.is_file() => {
                self.stamp(&path, false, Some(FileState::of_cap(&metadata)));
                self.not_regular(&path);
            }
            Ok(_) => {
                self.unreadable(&path, &error);
                return SkillFileSearch::Unreadable;
            }
            Err(lookup) if open::is_absent(&lookup) => missing.push(path),
            Err(lookup) => {
                // The directory itself cannot be searched.
                self.unreadable(directory_path, &lookup);
                return SkillFileSearch::Unreadable;
            }
        }
        SkillFileSearch::None
    }

    fn add_skill(&mut self, found: Found, folder: &Folder, directory_id: FileId) {
        let Found { opened, path, file } = found;
        let file_id = FileId::of(&opened.metadata);
        if !self.seen_files.insert(file_id) {
            return;
        }
        let place = Place {
            root: folder.root,
            below: folder.below,
            id: directory_id,
            file,
        };
        // A skill's directory is its file's parent: the folder searched.
        debug_assert_eq!(path.parent(), Some(folder.path.as_path()));
        self.pass_diagnostics();
        let slot = self
            .completion
            .skill(Skill::found(path.clone(), place, folder.source), file_id);
        let mut job = Job {
            slot,
            bytes: 0..0,
            len: opened.metadata.len(),
            complete: false,
            file: None,
            error: None,
            path,
            max_bytes: self.limits.max_file_bytes,
            keep: self.keep,
        };
        let mut file = opened.file;
        let Some(jobs) = &mut self.jobs else {
            // No workers: read and parse here, one file at a time.
            let mut bytes = std::mem::take(&mut self.scratch);
            bytes.clear();
            let (len, max_bytes, whole) = (job.len, job.max_bytes, job.keep.whole());
            let parsed = match skill_file::read_head(&mut file, len, max_bytes, whole, &mut bytes) {
                Ok(complete) => {
                    job.complete = complete;
                    job.bytes = 0..bytes.len();
                    parse::parse(&job, &bytes)
                }
                Err(error) => Parsed::Failed(error),
            };
            self.scratch = bytes;
            let reread = Reread {
                roots: &self.roots,
                limits: self.limits,
                keep: self.keep,
            };
            self.completion.results([(slot, parsed)], &reread);
            return;
        };
        match jobs.add(job, file) {
            Ok(None) => {}
            Ok(Some(returned)) => self.parse_inline(returned),
            Err(error) => {
                let reread = Reread {
                    roots: &self.roots,
                    limits: self.limits,
                    keep: self.keep,
                };
                self.completion
                    .results([(slot, Parsed::Failed(error))], &reread);
            }
        }
        self.take_results();
    }

    fn not_regular(&mut self, path: &Path) {
        self.diagnostics.push(Diagnostic::error(
            DiagnosticCode::NotRegularFile,
            path,
            "not a regular file (a directory, FIFO, socket or device), so it is not a skill \
             file; replace it with a regular file",
        ));
    }

    fn unreadable(&mut self, path: &Path, error: &io::Error) {
        self.diagnostics.push(unreadable(path, error));
    }
}

/// The error for a skill file that is no longer the one the walk met.
pub(super) fn changed() -> io::Error {
    io::Error::other("it was replaced or removed while discovery read it; discover again")
}

/// A directory that is no longer the one the walk met, as an I/O error.
pub(super) fn verify_failure(failure: open::VerifyFailure) -> io::Error {
    match failure {
        open::VerifyFailure::Changed => changed(),
        open::VerifyFailure::Io(error) => error,
    }
}

pub(super) fn unreadable(path: &Path, error: &io::Error) -> Diagnostic {
    Diagnostic::new(
        Severity::Error,
        DiagnosticCode::Unreadable,
        path,
        format!("cannot be read ({error}); check its permissions. Skills elsewhere are unaffected"),
    )
}
