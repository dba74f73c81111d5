//! Discovery: finding skills under the workspace, the home directory and extra roots.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::boundary::open::{Anchor, FileId};
use crate::diagnostic::{Diagnostic, Severity};
use crate::format::name_key;
use crate::paths;
use crate::skill::{Skill, Source};

pub(crate) mod admission;
pub(crate) mod cache;
mod complete;
mod first_names;
pub(crate) mod index;
mod parse;
pub(crate) mod skill_file;
mod walk;
#[cfg(feature = "watch")]
pub(crate) mod watches;

use complete::{Kept, Sink};
use index::{Entry, Index};
use parse::Keep;
pub(crate) use walk::{Inspected, Observer};

pub use admission::Admission;
pub use cache::DiscoveryCache;

/// The namespaces searched by default: `.skillbook`, then the cross-client `.agents`, then
/// `.claude` (Claude Code's folder, where many public collections install).
pub const DEFAULT_NAMESPACES: [&str; 3] = [".skillbook", ".agents", ".claude"];

/// Which home directory to search.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Home {
    /// `$HOME` (`%USERPROFILE%` on Windows); no home roots when it is unset.
    #[default]
    FromEnv,
    /// This directory (a relative path resolves against the workspace).
    Path(PathBuf),
    /// No home roots.
    Off,
}

/// What discovery does with symbolic links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SymlinkPolicy {
    /// Skip every link (root, directory or skill file) and report it, so discovery never widens
    /// the read boundary behind the user's back.
    #[default]
    Skip,
    /// Follow links, report loops and broken links, and add each followed target directory to
    /// the read roots so that the boundary stays declared.
    Follow,
}

/// What happens when two skills share a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum DuplicatePolicy {
    /// The first by priority wins; later ones are reported as `shadowed` warnings.
    #[default]
    Shadow,
    /// The first still wins, but each later one is a `duplicate_name` error.
    Reject,
}

/// Bounds on a walk. The defaults are generous; reaching one is always reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// Deepest directory searched below a root (the root is depth 0). Default 32.
    pub max_depth: usize,
    /// Most directories searched in one root. Default 1,000,000.
    pub max_directories: usize,
    /// Largest skill file read in full; bigger files are read up to this size. Default 1 MiB.
    pub max_file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 32,
            max_directories: 1_000_000,
            max_file_bytes: 1024 * 1024,
        }
    }
}

/// Where a root comes from, which decides its priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum RootKind {
    /// `<workspace>/<ns>/skills`.
    Workspace,
    /// `<home>/<ns>/skills`.
    Home,
    /// An extra directory.
    Extra,
}

/// A directory searched for skills.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// Absolute, lexically normalised path.
    pub path: PathBuf,
    /// Where it comes from.
    pub kind: RootKind,
    /// How it is opened: from the directory the user named, one component at a time.
    pub(crate) anchor: Anchor,
}

/// A read root as discovery opened it: how to reach it again, and what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RootRecord {
    /// The absolute path (a followed link's target, when it was reached through one).
    pub(crate) path: PathBuf,
    /// How to open it again without following a link the user did not ask to follow.
    pub(crate) anchor: Anchor,
    /// The directory discovery searched; a reader refuses any other one at this place.
    pub(crate) id: FileId,
    /// Reached through a link the user chose to follow: opened on demand, never held.
    pub(crate) followed: bool,
}

/// The outcome of discovery: all skills found and all problems met.
///
/// Read-only: a host that wants fewer skills calls [`Discovered::retain`], which keeps the
/// lookup index (shared by every [`SkillReader`](crate::SkillReader) made from this result) in
/// step with the skills.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    /// Skills in priority order: by root, then by path within the root.
    skills: Vec<Skill>,
    /// Every root that exists as a directory (even if empty), plus followed symlink targets.
    read_roots: Vec<PathBuf>,
    /// Problems, in the order they were met.
    diagnostics: Vec<Diagnostic>,
    /// How each read root was opened, in the order of `read_roots`; skills refer to it.
    roots: Vec<RootRecord>,
    /// The skills by folder and by name, built the first time a lookup or a reader needs it.
    index: OnceLock<Arc<Index>>,
    /// The admission the skills passed, asked again by readers before each read.
    admission: Option<admission::Admit>,
}

impl PartialEq for Discovered {
    /// Two results are equal when their skills, roots and diagnostics are; the index is derived.
    fn eq(&self, other: &Self) -> bool {
        self.skills == other.skills
            && self.read_roots == other.read_roots
            && self.diagnostics == other.diagnostics
            && self.roots == other.roots
    }
}

impl Discovered {
    /// Skills in priority order: by root, then by path within the root.
    #[must_use]
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// Every root that exists as a directory (even if empty), plus followed symlink targets:
    /// the folders a reader made from this result may read beneath.
    #[must_use]
    pub fn read_roots(&self) -> &[PathBuf] {
        &self.read_roots
    }

    /// Problems, in the order they were met.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The skills and the diagnostics, taken out of the result.
    #[must_use]
    pub fn into_parts(self) -> (Vec<Skill>, Vec<Diagnostic>) {
        (self.skills, self.diagnostics)
    }

    /// Keeps only the skills `keep` accepts (in their order). Readers made afterwards serve
    /// only these; readers made before keep what they had.
    pub fn retain(&mut self, keep: impl FnMut(&Skill) -> bool) {
        self.skills.retain(keep);
        self.index = OnceLock::new();
    }

    /// The skill with this name (compared trimmed and ignoring case).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Skill> {
        let position = *self.index().by_key.get(&name_key(name))?;
        self.skills.get(position)
    }

    /// Whether any diagnostic is an error.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|diagnostic| diagnostic.severity == Severity::Error)
    }

    /// The skills by folder and by name (built on first use, shared by every reader).
    pub(crate) fn index(&self) -> Arc<Index> {
        Arc::clone(
            self.index
                .get_or_init(|| Arc::new(Index::of(self.skills.iter().map(Entry::of_skill)))),
        )
    }

    /// How each read root was opened, in the order of [`Discovered::read_roots`].
    pub(crate) fn root_records(&self) -> &[RootRecord] {
        &self.roots
    }

    /// The admission the skills passed, if the discovery had one.
    pub(crate) fn admission(&self) -> Option<Arc<dyn Admission>> {
        self.admission.as_ref().map(|admit| Arc::clone(&admit.0))
    }

    /// A result holding `skills` found beneath `roots`, with `diagnostics`.
    pub(crate) fn from_parts(
        skills: Vec<Skill>,
        roots: Vec<RootRecord>,
        diagnostics: Vec<Diagnostic>,
    ) -> Self {
        Discovered {
            skills,
            read_roots: roots.iter().map(|root| root.path.clone()).collect(),
            diagnostics,
            roots,
            index: OnceLock::new(),
            admission: None,
        }
    }
}

/// A skill or a diagnostic, handed over by [`Discovery::discover_each`] as soon as it is settled.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Finding {
    /// A skill, in the order [`Discovery::discover`] lists them.
    Skill(Skill),
    /// A problem discovery met, in the order met.
    Diagnostic(Diagnostic),
}

/// Discovers skills under the workspace, the home directory (`$HOME`) and nothing else, with
/// default settings.
pub fn discover_default(workspace: impl AsRef<Path>) -> Discovered {
    Discovery::new(workspace).discover()
}

/// Configures and runs discovery.
///
/// [`Discovery`] follows these rules (SPEC §2), in this order:
///
/// 1. **Roots, by priority.** `<workspace>/<ns>/skills` for each namespace (default `.skillbook`,
///    then `.agents`); then `<home>/<ns>/skills` for the same namespaces unless home is off; then
///    the extra roots in the order given, relative ones resolved against the workspace. Roots are
///    made absolute and normalised lexically, and a root listed twice is used once. Missing roots
///    and roots that are files are skipped silently.
/// 2. **Single-skill roots.** A root that itself holds `SKILL.md` (or `skill.md`) is one skill.
/// 3. **Collections.** Otherwise every directory below the root is searched, at any depth; a
///    directory holding a skill file is a skill and is not searched further (the leaf rule).
///    `SKILL.md` wins over `skill.md`. A skill file must be a regular file: anything else is
///    reported and never opened in a way that could block.
/// 4. **Symlinks** are skipped and reported by default ([`SymlinkPolicy::Skip`]). With
///    [`SymlinkPolicy::Follow`], links are followed, loops and broken links are reported, and each
///    followed target directory is added to the read roots.
/// 5. `.git` and `node_modules` are not searched; other hidden directories are.
/// 6. **Bounds.** [`Limits`] caps depth, directories per root and skill file size; reaching one is
///    a diagnostic, never a silent cut.
/// 7. **Errors stay local.** An unreadable directory or file is a diagnostic; its siblings and the
///    other roots are still searched.
/// 8. **Order.** By root priority, then by path within the root, independent of the order in
///    which the file system lists entries.
/// 9. **Duplicates.** Names collide when equal after trimming and lower-casing. The first skill
///    by priority wins and each later one is reported as `shadowed` (or as an error under
///    [`DuplicatePolicy::Reject`]). The same file reached twice (overlapping roots, hard links)
///    is one skill, silently.
///
///
/// ```
/// use skillbook::{Discovery, Home};
///
/// let workspace = tempfile::tempdir()?;
/// let skill = workspace.path().join(".agents/skills/review");
/// std::fs::create_dir_all(&skill)?;
/// std::fs::write(skill.join("SKILL.md"), "---\nname: review\ndescription: Review code.\n---\n")?;
///
/// let found = Discovery::new(workspace.path()).home(Home::Off).discover();
/// assert_eq!(found.skills()[0].name(), "review");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Discovery {
    workspace: PathBuf,
    namespaces: Vec<String>,
    home: Home,
    extra_roots: Vec<PathBuf>,
    symlinks: SymlinkPolicy,
    duplicates: DuplicatePolicy,
    limits: Limits,
    admission: Option<admission::Admit>,
    keep_front_matter: bool,
}

impl Discovery {
    /// Starts a discovery for `workspace` (made absolute against the current directory; when
    /// that cannot be read, a relative workspace stays relative and finds nothing — it is never
    /// taken from `/`).
    pub fn new(workspace: impl AsRef<Path>) -> Self {
        Discovery {
            workspace: paths::absolute(workspace.as_ref()),
            namespaces: DEFAULT_NAMESPACES.map(str::to_owned).to_vec(),
            home: Home::default(),
            extra_roots: Vec::new(),
            symlinks: SymlinkPolicy::default(),
            duplicates: DuplicatePolicy::default(),
            limits: Limits::default(),
            admission: None,
            keep_front_matter: false,
        }
    }

    /// Replaces the namespace list. Default: [`DEFAULT_NAMESPACES`].
    #[must_use]
    pub fn namespaces<I, S>(mut self, namespaces: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.namespaces = namespaces.into_iter().map(Into::into).collect();
        self
    }

    /// Which home directory to search. Default: [`Home::FromEnv`].
    #[must_use]
    pub fn home(mut self, home: Home) -> Self {
        self.home = home;
        self
    }

    /// Adds an extra root, searched after the workspace and home roots. A relative path resolves
    /// against the workspace. Default: none.
    #[must_use]
    pub fn extra_root(mut self, root: impl AsRef<Path>) -> Self {
        self.extra_roots.push(root.as_ref().to_path_buf());
        self
    }

    /// Adds several extra roots, in order.
    #[must_use]
    pub fn extra_roots<I, P>(mut self, roots: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        for root in roots {
            self = self.extra_root(root);
        }
        self
    }

    /// The symlink policy. Default: [`SymlinkPolicy::Skip`].
    #[must_use]
    pub fn symlinks(mut self, policy: SymlinkPolicy) -> Self {
        self.symlinks = policy;
        self
    }

    /// The duplicate-name policy. Default: [`DuplicatePolicy::Shadow`].
    #[must_use]
    pub fn duplicates(mut self, policy: DuplicatePolicy) -> Self {
        self.duplicates = policy;
        self
    }

    /// Walk bounds. Default: [`Limits::default`].
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Hands on only the skills `admission` admits; each one refused is reported by the
    /// diagnostic it returns instead (see [`Admission`]). Default: every skill.
    #[must_use]
    pub fn admission(mut self, admission: Arc<dyn Admission>) -> Self {
        self.admission = Some(admission::Admit(admission));
        self
    }

    /// Whether each skill keeps its front matter's fields as discovery read them. Default: no,
    /// a skill keeps the front matter's text and [`Skill::front_matter`] reads the fields from
    /// it again when asked, as serializing a skill does; kept, they are not read twice. Worth it
    /// for a host that serializes every skill as it comes from [`Discovery::discover_each`] (as
    /// `skillbook list --format json` does); a host holding many skills pays several times each
    /// front matter's text in memory.
    #[must_use]
    pub fn keep_front_matter(mut self, keep: bool) -> Self {
        self.keep_front_matter = keep;
        self
    }

    /// The absolute, normalised workspace.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The roots that [`discover`](Self::discover) searches, in priority order, without
    /// touching the disk.
    pub fn roots(&self) -> Vec<Root> {
        let mut roots: Vec<Root> = Vec::new();
        let mut add = |path: PathBuf, kind: RootKind, anchor: Anchor| {
            if !roots.iter().any(|root| root.path == path) {
                roots.push(Root { path, kind, anchor });
            }
        };
        // Namespace roots are reached from the workspace (or home) one component at a time.
        let beneath = |base: &Path, namespace: &str| {
            let relative = Path::new(namespace).join("skills");
            let path = paths::normalize(&base.join(&relative));
            let anchor = match path.strip_prefix(base) {
                Ok(inside) if !inside.as_os_str().is_empty() => Anchor::beneath(base, inside),
                _ => Anchor::of_path(&path),
            };
            (path, anchor)
        };
        for namespace in &self.namespaces {
            let (path, anchor) = beneath(&self.workspace, namespace);
            add(path, RootKind::Workspace, anchor);
        }
        if let Some(home) = self.home_dir() {
            for namespace in &self.namespaces {
                let (path, anchor) = beneath(&home, namespace);
                add(path, RootKind::Home, anchor);
            }
        }
        for extra in &self.extra_roots {
            let path = paths::absolute_against(&self.workspace, extra);
            let anchor = Anchor::of_path(&path);
            add(path, RootKind::Extra, anchor);
        }
        roots
    }

    fn home_dir(&self) -> Option<PathBuf> {
        let home = match &self.home {
            Home::Off => return None,
            Home::Path(path) => path.clone(),
            Home::FromEnv => {
                let variable = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
                PathBuf::from(std::env::var_os(variable).filter(|home| !home.is_empty())?)
            }
        };
        Some(paths::absolute_against(&self.workspace, &home))
    }

    /// Runs discovery. This never fails as a whole: problems are [`Discovered::diagnostics`].
    pub fn discover(&self) -> Discovered {
        self.run(false).0
    }

    /// Runs discovery and hands each skill and diagnostic to `each` as soon as it is settled,
    /// keeping none of them: beyond what `each` keeps, discovery holds only each name with the
    /// location of its first skill (to report a later duplicate), whatever the skills hold.
    /// Returns the read roots (as [`Discovered::read_roots`]).
    ///
    /// The skills come in the order [`Discovery::discover`] lists them, with duplicate names
    /// already resolved by the [`DuplicatePolicy`]. The diagnostics come in the order they are
    /// met, so a duplicate's `shadowed` (or `duplicate_name`) diagnostic comes where the
    /// duplicate is met rather than last.
    ///
    /// ```
    /// use skillbook::{Discovery, Finding, Home};
    ///
    /// let workspace = tempfile::tempdir()?;
    /// let folder = workspace.path().join(".agents/skills/pdf");
    /// std::fs::create_dir_all(&folder)?;
    /// std::fs::write(folder.join("SKILL.md"), "---\nname: pdf\ndescription: PDFs.\n---\n")?;
    ///
    /// let mut names = Vec::new();
    /// let read_roots = Discovery::new(workspace.path())
    ///     .home(Home::Off)
    ///     .discover_each(|finding| match finding {
    ///         Finding::Skill(skill) => names.push(skill.name().to_string()),
    ///         Finding::Diagnostic(diagnostic) => eprintln!("{diagnostic}"),
    ///         _ => {}
    ///     });
    /// assert_eq!(names, ["pdf"]);
    /// assert_eq!(read_roots.len(), 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn discover_each(&self, mut each: impl FnMut(Finding)) -> Vec<PathBuf> {
        self.each_with(parse::workers(), &mut each)
    }

    /// [`Discovery::discover_each`] with `workers` parse threads (0: parse on the walking
    /// thread).
    pub(crate) fn each_with(&self, workers: usize, each: &mut dyn FnMut(Finding)) -> Vec<PathBuf> {
        let sink = Sink::Each(complete::Each::new(each, self.duplicates));
        let walked = self.walk_into(false, workers, None, self.keep(), sink);
        walked.roots.into_iter().map(|root| root.path).collect()
    }

    /// Runs discovery, also recording the state of every path the result depends on when
    /// `record` is set (for [`DiscoveryCache`]).
    fn run(&self, record: bool) -> (Discovered, Vec<cache::Stamp>) {
        self.run_with(record, parse::workers(), None)
    }

    /// Runs discovery reading every skill file whole, and returns each file (shadowed ones too)
    /// with its text, for a checker that grades the format itself: every file is read once.
    #[cfg(feature = "check")]
    pub(crate) fn inspect(&self) -> (Discovered, Vec<Inspected>) {
        let (found, _, inspected) = self.walk(false, parse::workers(), None, Keep::Whole);
        (found, inspected)
    }

    /// Runs discovery, recording stamps, and tells `observer` about every directory just before
    /// it is searched (so a watcher can watch exactly those).
    #[cfg(feature = "watch")]
    pub(crate) fn run_watched(
        &self,
        observer: &mut dyn FnMut(&Path),
    ) -> (Discovered, Vec<cache::Stamp>) {
        self.run_with(true, parse::workers(), Some(observer))
    }

    /// [`Discovery::run`] with `workers` parse threads (0: parse on the walking thread), telling
    /// `observer` about every directory searched.
    pub(crate) fn run_with(
        &self,
        record: bool,
        workers: usize,
        observer: Option<Observer<'_>>,
    ) -> (Discovered, Vec<cache::Stamp>) {
        let (found, stamps, _) = self.walk(record, workers, observer, self.keep());
        (found, stamps)
    }

    /// How much of each skill file's reading the walk keeps, when not checking.
    fn keep(&self) -> Keep {
        if self.keep_front_matter {
            Keep::Fields
        } else {
            Keep::Head
        }
    }

    /// The walk behind every way of running discovery.
    fn walk(
        &self,
        record: bool,
        workers: usize,
        observer: Option<Observer<'_>>,
        keep: Keep,
    ) -> (Discovered, Vec<cache::Stamp>, Vec<Inspected>) {
        let walked = self.walk_into(record, workers, observer, keep, Sink::Keep(Kept::default()));
        let Sink::Keep(kept) = walked.sink else {
            unreachable!("a walk keeps what it is asked to keep")
        };
        let Kept {
            skills,
            mut diagnostics,
            inspected,
        } = kept;
        let skills = self.remove_duplicates(skills, &mut diagnostics);
        tracing::debug!(
            skills = skills.len(),
            diagnostics = diagnostics.len(),
            "discovery finished"
        );
        let mut found = Discovered::from_parts(skills, walked.roots, diagnostics);
        found.admission = self.admission.clone();
        (found, walked.stamps, inspected)
    }

    /// Walks every root, settling what it meets into `sink`.
    fn walk_into<'e>(
        &self,
        record: bool,
        workers: usize,
        observer: Option<Observer<'e>>,
        keep: Keep,
        sink: Sink<'e>,
    ) -> walk::Walked<'e> {
        parse::with_workers(workers, |workers| {
            let mut walker = walk::Walker::new(
                self.symlinks,
                self.limits,
                record,
                workers,
                observer,
                keep,
                sink,
            );
            walker.admit_with(self.admission.as_ref().map(|admit| Arc::clone(&admit.0)));
            for root in self.roots() {
                let source = if root.path.starts_with(&self.workspace) {
                    Source::Workspace
                } else {
                    Source::Global
                };
                walker.walk_root(&root, source);
            }
            walker.finish()
        })
    }

    fn remove_duplicates(
        &self,
        mut candidates: Vec<Skill>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<Skill> {
        // In place: the first skill of each name stays, the others are reported and dropped.
        let mut keep = vec![true; candidates.len()];
        {
            let mut first_by_key: HashMap<String, usize> = HashMap::new();
            for (index, skill) in candidates.iter().enumerate() {
                match first_by_key.entry(skill.name.key()) {
                    std::collections::hash_map::Entry::Occupied(winner) => {
                        let winner = &candidates[*winner.get()].location;
                        diagnostics.push(complete::duplicate_diagnostic(
                            self.duplicates,
                            skill,
                            winner,
                        ));
                        keep[index] = false;
                    }
                    std::collections::hash_map::Entry::Vacant(entry) => {
                        entry.insert(index);
                    }
                }
            }
        }
        let mut kept = keep.into_iter();
        candidates.retain(|_| kept.next().unwrap_or(true));
        candidates
    }
}

#[cfg(test)]
mod tests;
