//! Walking one root: the leaf rule, symlinks, bounds, and errors that stay local.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::{self, FileType};
use std::io;
use std::path::{Path, PathBuf};

use std::sync::mpsc::SyncSender;

use super::cache::{FileState, Stamp};
use super::parse::{self, Job, Parsed};
use super::skill_file::{self, FileId, Opened};
use super::{Limits, SymlinkPolicy};
use crate::diagnostic::{Diagnostic, DiagnosticCode, Severity};
use crate::skill::{Skill, Source};

/// Skill file names, in order of preference.
pub(super) const SKILL_FILE_NAMES: [&str; 2] = ["SKILL.md", "skill.md"];

/// Directories never searched.
const SKIPPED_DIRECTORIES: [&str; 2] = [".git", "node_modules"];

/// What a walk produced, before duplicate names are resolved.
pub(super) struct Walked {
    pub(super) skills: Vec<Skill>,
    pub(super) read_roots: Vec<PathBuf>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The state of every path the result depends on, when recording.
    pub(super) stamps: Vec<Stamp>,
}

/// A skill file handed to the parser, in walk order.
struct Slot {
    path: PathBuf,
    source: Source,
    /// How many diagnostics the walk had met before this skill.
    diagnostics_before: usize,
}

/// Walks roots one after another, remembering files and directories already seen.
pub(super) struct Walker {
    symlinks: SymlinkPolicy,
    limits: Limits,
    slots: Vec<Slot>,
    /// Where skill files go to be parsed; `None` parses them inline.
    jobs: Option<SyncSender<Job>>,
    /// Results parsed inline, by slot.
    parsed: Vec<(usize, Parsed)>,
    read_roots: Vec<PathBuf>,
    diagnostics: Vec<Diagnostic>,
    seen_files: HashSet<FileId>,
    /// Directories entered, by identity; only tracked when following symlinks.
    seen_directories: HashSet<FileId>,
    /// The state of each path read, for a cache to check later; `None` when not recording.
    stamps: Option<Vec<Stamp>>,
}

/// A directory waiting to be searched.
struct Pending {
    path: PathBuf,
    depth: usize,
}

/// Per-root counters for the bounds.
#[derive(Default)]
struct Bounds {
    directories: usize,
    too_deep: usize,
    first_too_deep: Option<PathBuf>,
}

impl Walker {
    pub(super) fn new(
        symlinks: SymlinkPolicy,
        limits: Limits,
        record: bool,
        jobs: Option<SyncSender<Job>>,
    ) -> Self {
        Walker {
            stamps: record.then(Vec::new),
            symlinks,
            limits,
            slots: Vec::new(),
            jobs,
            parsed: Vec::new(),
            read_roots: Vec::new(),
            diagnostics: Vec::new(),
            seen_files: HashSet::new(),
            seen_directories: HashSet::new(),
        }
    }

    /// Stops handing files to workers, so that they finish once the queue is empty.
    pub(super) fn stop_sending(&mut self) {
        self.jobs = None;
    }

    /// Puts the parse results back in walk order: each skill, with its diagnostics, where the
    /// walk met it.
    pub(super) fn finish(mut self, results: Vec<(usize, Parsed)>) -> Walked {
        let mut by_slot: Vec<Option<Parsed>> = (0..self.slots.len()).map(|_| None).collect();
        for (slot, parsed) in results.into_iter().chain(std::mem::take(&mut self.parsed)) {
            if let Some(place) = by_slot.get_mut(slot) {
                *place = Some(parsed);
            }
        }
        let mut walk_diagnostics = std::mem::take(&mut self.diagnostics).into_iter();
        let mut diagnostics = Vec::with_capacity(walk_diagnostics.len());
        let mut skills = Vec::with_capacity(self.slots.len());
        let mut taken = 0;
        for (slot, parsed) in self.slots.into_iter().zip(by_slot) {
            diagnostics.extend(
                walk_diagnostics
                    .by_ref()
                    .take(slot.diagnostics_before - taken),
            );
            taken = slot.diagnostics_before;
            match parsed {
                Some(Ok((mut document, findings))) => {
                    diagnostics.append(&mut document.diagnostics);
                    diagnostics.extend(findings);
                    skills.push(Skill::from_document(document, slot.path, slot.source));
                }
                Some(Err(error)) => diagnostics.push(unreadable(&slot.path, &error)),
                None => {}
            }
        }
        diagnostics.extend(walk_diagnostics);
        Walked {
            skills,
            read_roots: self.read_roots,
            diagnostics,
            stamps: self.stamps.unwrap_or_default(),
        }
    }

    /// Remembers the state of `path` (as `metadata` shows it) when recording.
    fn stamp(&mut self, path: &Path, follow: bool, metadata: Option<&fs::Metadata>) {
        if let Some(stamps) = &mut self.stamps {
            stamps.push(Stamp {
                path: path.to_path_buf(),
                follow,
                state: metadata.map(FileState::of),
            });
        }
    }

    /// Searches one root. Missing roots and roots that are files are skipped silently.
    pub(super) fn walk_root(&mut self, root: &Path, source: Source) {
        let metadata = match fs::symlink_metadata(root) {
            Ok(metadata) => metadata,
            Err(error) if is_missing(&error) => {
                self.stamp(root, false, None);
                return;
            }
            Err(error) => {
                self.unreadable(root, &error);
                return;
            }
        };
        self.stamp(root, false, Some(&metadata));
        let start = if metadata.file_type().is_symlink() {
            match self.follow_directory_link(root) {
                Some(target) => target,
                None => return,
            }
        } else if metadata.is_dir() {
            root.to_path_buf()
        } else {
            return;
        };
        if !self.read_roots.contains(&start) {
            self.read_roots.push(start.clone());
        }
        self.walk_from(start, source);
    }

    fn walk_from(&mut self, start: PathBuf, source: Source) {
        let mut bounds = Bounds::default();
        let mut stack = vec![Pending {
            path: start.clone(),
            depth: 0,
        }];
        while let Some(pending) = stack.pop() {
            bounds.directories += 1;
            if bounds.directories > self.limits.max_directories {
                self.diagnostics.push(Diagnostic::warning(
                    DiagnosticCode::DirectoryLimit,
                    &start,
                    format!(
                        "stopped after searching {} directories in this root; skills further \
                         on were not found. Raise the directory limit or point at a narrower \
                         root",
                        self.limits.max_directories
                    ),
                ));
                break;
            }
            // Taken before the search, so a change during it is seen by the next check.
            let before = self
                .stamps
                .is_some()
                .then(|| fs::symlink_metadata(&pending.path).ok())
                .flatten();
            if self.enter_directory(&pending.path) {
                let (is_skill, children) = self.search_directory(&pending, source, &mut bounds);
                // A skill directory's listing does not matter: its skill file is stamped.
                if !is_skill {
                    self.stamp(&pending.path, false, before.as_ref());
                }
                stack.extend(children.into_iter().rev());
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
                    start.display()
                ),
            ));
        }
    }

    /// Records the directory's identity when following links; false if it was already walked.
    fn enter_directory(&mut self, directory: &Path) -> bool {
        if self.symlinks == SymlinkPolicy::Skip {
            return true;
        }
        match fs::metadata(directory) {
            Ok(metadata) => self.seen_directories.insert(FileId::of(&metadata)),
            Err(_) => true,
        }
    }

    /// Searches one directory: either it is a skill (`true`), or its subdirectories are
    /// returned.
    fn search_directory(
        &mut self,
        pending: &Pending,
        source: Source,
        bounds: &mut Bounds,
    ) -> (bool, Vec<Pending>) {
        match self.find_skill_file(&pending.path) {
            SkillFileSearch::Found(opened, path) => {
                self.add_skill(opened, path, source);
                return (true, Vec::new());
            }
            SkillFileSearch::Unreadable => return (false, Vec::new()),
            SkillFileSearch::None => {}
        }
        let entries = match self.list(&pending.path) {
            Some(entries) => entries,
            None => return (false, Vec::new()),
        };
        let mut children = Vec::new();
        for (name, file_type) in entries {
            if SKIPPED_DIRECTORIES.iter().any(|skipped| name == *skipped) {
                continue;
            }
            let path = pending.path.join(&name);
            let child = if file_type.is_dir() {
                path
            } else if file_type.is_symlink() {
                match self.directory_link(&path) {
                    Some(target) => target,
                    None => continue,
                }
            } else {
                continue;
            };
            if pending.depth + 1 > self.limits.max_depth {
                bounds.too_deep += 1;
                bounds.first_too_deep.get_or_insert(child);
                continue;
            }
            children.push(Pending {
                path: child,
                depth: pending.depth + 1,
            });
        }
        (false, children)
    }

    /// Lists a directory's entries sorted by name; `None` (reported) when it cannot be read.
    fn list(&mut self, directory: &Path) -> Option<Vec<(OsString, FileType)>> {
        let reader = match fs::read_dir(directory) {
            Ok(reader) => reader,
            Err(error) => {
                self.unreadable(directory, &error);
                return None;
            }
        };
        let mut entries = Vec::new();
        for entry in reader {
            match entry.and_then(|entry| Ok((entry.file_name(), entry.file_type()?))) {
                Ok(entry) => entries.push(entry),
                Err(error) => self.unreadable(directory, &error),
            }
        }
        entries.sort_unstable_by(|left, right| left.0.cmp(&right.0));
        Some(entries)
    }

    /// Looks for `SKILL.md`, then `skill.md`, reporting candidates that cannot be skill files.
    fn find_skill_file(&mut self, directory: &Path) -> SkillFileSearch {
        let mut missing: Vec<PathBuf> = Vec::new();
        for name in SKILL_FILE_NAMES {
            let path = directory.join(name);
            let metadata = match fs::symlink_metadata(&path) {
                Ok(metadata) => metadata,
                Err(error) if is_missing(&error) => {
                    missing.push(path);
                    continue;
                }
                Err(error) => {
                    // The directory itself cannot be searched.
                    self.unreadable(directory, &error);
                    return SkillFileSearch::Unreadable;
                }
            };
            self.stamp(&path, false, Some(&metadata));
            let file_type = metadata.file_type();
            if file_type.is_symlink() && self.stamps.is_some() {
                let target = fs::metadata(&path).ok();
                self.stamp(&path, true, target.as_ref());
            }
            if file_type.is_symlink() && self.symlinks == SymlinkPolicy::Skip {
                self.symlink_skipped(&path);
                continue;
            }
            if !file_type.is_symlink() && !file_type.is_file() {
                self.not_regular(&path);
                continue;
            }
            match skill_file::open(&path, file_type.is_symlink()) {
                Ok(Opened::Regular(opened)) => {
                    // A preferred name created later would take over: watch for it.
                    for absent in &missing {
                        self.stamp(absent, false, None);
                    }
                    return SkillFileSearch::Found(opened, path);
                }
                Ok(Opened::NotRegular) => self.not_regular(&path),
                Err(error) if is_missing(&error) => self.broken_link(&path),
                Err(error) => {
                    self.unreadable(&path, &error);
                    return SkillFileSearch::Unreadable;
                }
            }
        }
        SkillFileSearch::None
    }

    fn add_skill(&mut self, opened: skill_file::OpenFile, path: PathBuf, source: Source) {
        if !self.seen_files.insert(opened.id) {
            return;
        }
        let path = if opened.followed {
            self.followed_file_target(path)
        } else {
            path
        };
        let slot = self.slots.len();
        self.slots.push(Slot {
            path: path.clone(),
            source,
            diagnostics_before: self.diagnostics.len(),
        });
        let max_bytes = self.limits.max_file_bytes;
        let job = Job {
            slot,
            opened,
            path,
            max_bytes,
        };
        let job = match &self.jobs {
            Some(jobs) => match jobs.send(job) {
                Ok(()) => return,
                Err(returned) => returned.0,
            },
            None => job,
        };
        let parsed = parse::parse(job.opened, &job.path, max_bytes);
        self.parsed.push((slot, parsed));
    }

    /// A followed skill-file link is located at its target, whose directory becomes a read root.
    fn followed_file_target(&mut self, link: PathBuf) -> PathBuf {
        match fs::canonicalize(&link) {
            Ok(target) => {
                if let Some(parent) = target.parent() {
                    self.add_read_root(parent.to_path_buf());
                }
                target
            }
            Err(_) => link,
        }
    }

    /// A symlink in a collection: its target directory under `Follow`, else nothing (reported).
    fn directory_link(&mut self, link: &Path) -> Option<PathBuf> {
        // A broken link is reported whatever the policy: it may have been meant as a skill folder.
        let metadata = match fs::metadata(link) {
            Ok(metadata) => metadata,
            Err(error) => return self.link_failed(link, &error),
        };
        if !metadata.is_dir() {
            return None;
        }
        self.follow_directory_link(link)
    }

    /// Follows a link to a directory under `Follow` (adding the target to the read roots), or
    /// reports it as skipped.
    fn follow_directory_link(&mut self, link: &Path) -> Option<PathBuf> {
        if self.symlinks == SymlinkPolicy::Skip {
            self.symlink_skipped(link);
            return None;
        }
        let target = match fs::canonicalize(link) {
            Ok(target) => target,
            Err(error) => return self.link_failed(link, &error),
        };
        let already_seen = fs::metadata(&target)
            .map(|metadata| self.seen_directories.contains(&FileId::of(&metadata)))
            .unwrap_or(false);
        if already_seen {
            self.diagnostics.push(Diagnostic::warning(
                DiagnosticCode::SymlinkLoop,
                link,
                format!(
                    "not followed: {} was already searched (a symlink loop or a second path to \
                     the same directory)",
                    target.display()
                ),
            ));
            return None;
        }
        self.add_read_root(target.clone());
        Some(target)
    }

    fn add_read_root(&mut self, root: PathBuf) {
        if !self.read_roots.contains(&root) {
            self.read_roots.push(root);
        }
    }

    fn symlink_skipped(&mut self, link: &Path) {
        let target = fs::read_link(link)
            .map(|target| format!(" (to {})", target.display()))
            .unwrap_or_default();
        self.diagnostics.push(Diagnostic::warning(
            DiagnosticCode::SymlinkSkipped,
            link,
            format!(
                "symbolic link{target} skipped: links are not followed by default so the read \
                 boundary stays as declared. Add the target as a root, or follow links \
                 (--symlinks follow)"
            ),
        ));
    }

    /// Reports a link that could not be resolved: broken, or unreadable.
    fn link_failed(&mut self, link: &Path, error: &io::Error) -> Option<PathBuf> {
        if is_missing(error) {
            self.broken_link(link);
        } else {
            self.unreadable(link, error);
        }
        None
    }

    fn broken_link(&mut self, link: &Path) {
        self.diagnostics.push(Diagnostic::warning(
            DiagnosticCode::BrokenSymlink,
            link,
            "symbolic link points to nothing; fix or remove it",
        ));
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

/// The result of looking for a skill file in one directory.
enum SkillFileSearch {
    Found(skill_file::OpenFile, PathBuf),
    /// A skill file exists but cannot be read (reported); the directory is still a skill.
    Unreadable,
    None,
}

fn unreadable(path: &Path, error: &io::Error) -> Diagnostic {
    Diagnostic::new(
        Severity::Error,
        DiagnosticCode::Unreadable,
        path,
        format!("cannot be read ({error}); check its permissions. Skills elsewhere are unaffected"),
    )
}

fn is_missing(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}
