//! Adding skills from a source into a target's skills folder, and removing them.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use skillbook::check::{Checker, Mode};
use skillbook::{Diagnostic, Discovery, Home, Severity};

use crate::agents::{self, Agent, ExposeMode, Exposer, Exposure};
use crate::error::PackageError;
use crate::git::{self, Fetched, Revision};
use crate::lock::{LOCK_FILE_NAME, Lock, LockEntry, NewEntry, normalize, portable_local_source};
use crate::snapshot::{FolderLimits, LeftOut, Snapshot, below, is_safe_name};
use crate::source::{GitSource, Source};

/// Where skills are installed: a skills folder and the lock that records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    skills_folder: PathBuf,
    lock_path: PathBuf,
    /// The workspace or the home: where other clients' folders are.
    base: PathBuf,
    global: bool,
}

impl Target {
    /// A workspace: skills in `<workspace>/.agents/skills`, the lock in
    /// `<workspace>/skills-lock.json` (where the `skills` tool keeps it).
    pub fn workspace(workspace: impl AsRef<Path>) -> Target {
        let workspace = workspace.as_ref();
        Target {
            skills_folder: workspace.join(".agents").join("skills"),
            lock_path: workspace.join(LOCK_FILE_NAME),
            base: workspace.to_path_buf(),
            global: false,
        }
    }

    /// A home (`--global`): skills in `<home>/.agents/skills`, the lock in
    /// `<home>/.agents/skills-lock.json`.
    pub fn global(home: impl AsRef<Path>) -> Target {
        let agents = home.as_ref().join(".agents");
        Target {
            skills_folder: agents.join("skills"),
            lock_path: agents.join(LOCK_FILE_NAME),
            base: home.as_ref().to_path_buf(),
            global: true,
        }
    }

    /// The target a lock file records, by where it lies: `<home>/.agents/skills-lock.json`
    /// records the home's skills ([`Target::global`]), a lock anywhere else the skills of the
    /// workspace it lies in ([`Target::workspace`]).
    pub fn of_lock(lock: impl AsRef<Path>) -> Target {
        let lock = lock.as_ref();
        let folder = lock.parent().unwrap_or(Path::new("."));
        match folder.file_name() {
            Some(name) if name == ".agents" => {
                let mut target = Target::global(folder.parent().unwrap_or(Path::new(".")));
                target.lock_path = lock.to_path_buf();
                target
            }
            _ => {
                let mut target = Target::workspace(folder);
                target.lock_path = lock.to_path_buf();
                target
            }
        }
    }

    /// The folder skills are installed into.
    pub fn skills_folder(&self) -> &Path {
        &self.skills_folder
    }

    /// The lock file.
    pub fn lock_path(&self) -> &Path {
        &self.lock_path
    }

    /// The workspace, or the home for [`Target::global`].
    pub(crate) fn base(&self) -> &Path {
        &self.base
    }

    /// Whether this is a home's skills ([`Target::global`]).
    pub(crate) fn is_global(&self) -> bool {
        self.global
    }

    pub(crate) fn lock_folder(&self) -> &Path {
        self.lock_path.parent().unwrap_or(Path::new("."))
    }

    /// Refuses a skills folder that is, or sits in, a symbolic link; creates it when missing.
    fn prepare(&self) -> Result<(), PackageError> {
        for path in [
            self.skills_folder.parent(),
            Some(self.skills_folder.as_path()),
        ]
        .into_iter()
        .flatten()
        {
            if fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink()) {
                return Err(PackageError::TargetIsLink {
                    path: path.to_path_buf(),
                });
            }
        }
        fs::create_dir_all(&self.skills_folder)
            .map_err(|error| PackageError::io(&self.skills_folder, error))
    }
}

/// Whether errors from the checker stop an install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CheckPolicy {
    /// A skill with an error from `skillbook check` is refused.
    #[default]
    RefuseErrors,
    /// Errors are reported with the plan, and the skill is installed anyway (`--force`).
    Force,
}

/// Adding skills from a source: which ones, and how strictly.
#[derive(Debug, Clone)]
pub struct Add {
    source: Source,
    names: Vec<String>,
    check: CheckPolicy,
    limits: FolderLimits,
    agents: Vec<Agent>,
    expose: ExposeMode,
}

impl Add {
    /// Adds every skill `source` holds, refusing errors, within [`FolderLimits::default`].
    pub fn new(source: Source) -> Add {
        Add {
            source,
            names: Vec::new(),
            check: CheckPolicy::default(),
            limits: FolderLimits::default(),
            agents: Vec::new(),
            expose: ExposeMode::default(),
        }
    }

    /// Adds only these skills, by name. Default: all.
    #[must_use]
    pub fn skills<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.names = names.into_iter().map(Into::into).collect();
        self
    }

    /// What checker errors do. Default: [`CheckPolicy::RefuseErrors`].
    #[must_use]
    pub fn check(mut self, policy: CheckPolicy) -> Self {
        self.check = policy;
        self
    }

    /// Also exposes each skill to these clients, where they look (see [`Agent::folder`]); the
    /// lock records them, with the clients an earlier `add` recorded. Default: none.
    #[must_use]
    pub fn agents<I: IntoIterator<Item = Agent>>(mut self, agents: I) -> Self {
        self.agents = agents.into_iter().collect();
        self
    }

    /// How skills are exposed to the clients of [`Add::agents`]. Default: [`ExposeMode::Link`].
    #[must_use]
    pub fn expose(mut self, mode: ExposeMode) -> Self {
        self.expose = mode;
        self
    }

    /// Bounds on each skill. Default: [`FolderLimits::default`].
    #[must_use]
    pub fn limits(mut self, limits: FolderLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Finds the chosen skills in the source by discovery's rules, reads and checks each one,
    /// and makes sure each can be installed into `target`. Changes nothing.
    ///
    /// # Errors
    ///
    /// The source is not a folder or holds no skill; a named skill is not in it; a skill is
    /// hostile ([`PackageError::UnsafeName`], [`PackageError::SkillFolderIsLink`],
    /// [`PackageError::OverLimit`], [`PackageError::CaseCollision`]), has checker errors
    /// (unless forced), or collides with an installed skill; the lock cannot be read.
    pub fn plan(&self, target: &Target) -> Result<Plan, PackageError> {
        match &self.source {
            Source::Local(folder) => self.plan_local(folder, target),
            Source::Git(source) => {
                let fetched = git::fetch(source, Revision::Named)?;
                self.plan_fetched(
                    source,
                    &fetched,
                    source.folder().unwrap_or_default(),
                    target,
                )
            }
        }
    }

    /// Plans from `folder` (a path in the repository, `""` for its top) of a tree already
    /// fetched from `source`.
    pub(crate) fn plan_fetched(
        &self,
        source: &GitSource,
        fetched: &Fetched,
        folder: &str,
        target: &Target,
    ) -> Result<Plan, PackageError> {
        let base = fetched.tree().to_path_buf();
        let root = folder
            .split('/')
            .filter(|part| !part.is_empty())
            .fold(base.clone(), |path, part| path.join(part));
        self.plan_in(&root, &root, &base, target, Some((source, fetched)))
    }

    fn plan_local(&self, folder: &Path, target: &Target) -> Result<Plan, PackageError> {
        if !fs::metadata(folder).is_ok_and(|metadata| metadata.is_dir()) {
            return Err(PackageError::NotADirectory {
                path: folder.to_path_buf(),
            });
        }
        // A source folder that is itself a link was named by the user: it is followed (links
        // inside it are not).
        let linked = fs::symlink_metadata(folder).is_ok_and(|metadata| metadata.is_symlink());
        let root = if linked {
            fs::canonicalize(folder).map_err(|error| PackageError::io(folder, error))?
        } else {
            folder.to_path_buf()
        };
        self.plan_in(folder, &root, &root, target, None)
    }

    /// Plans from the skills found under `root` (`folder` as the user named it), each
    /// recorded in the lock by its path below `base` (the repository's top for a git source).
    fn plan_in(
        &self,
        folder: &Path,
        root: &Path,
        base: &Path,
        target: &Target,
        git: Option<(&GitSource, &Fetched)>,
    ) -> Result<Plan, PackageError> {
        let found = Discovery::new(root)
            .namespaces(Vec::<String>::new())
            .home(Home::Off)
            .extra_root(root)
            .discover();
        let (skills, diagnostics) = found.into_parts();
        // A git source is named by its URL (and folder), never by the temporary folder.
        let shown = match git {
            Some((source, _)) => PathBuf::from(match source.folder() {
                Some(subpath) => format!("{} {subpath}", source.shown()),
                None => source.shown(),
            }),
            None => folder.to_path_buf(),
        };
        if skills.is_empty() {
            return Err(PackageError::NoSkills {
                path: shown,
                diagnostics,
            });
        }
        let chosen = self.choose(&shown, &skills)?;
        let lock = Lock::read(target.lock_path())?;
        let mut planned = Vec::new();
        for skill in chosen {
            let mut skill = self.plan_skill(skill, base, target, &lock)?;
            if let Some((source, fetched)) = git {
                skill.mark_fetched(source, fetched);
            }
            planned.push(skill);
        }
        let requested: Vec<(Agent, ExposeMode)> = self
            .agents
            .iter()
            .map(|agent| (*agent, self.expose))
            .collect();
        let exposer = Exposer::new(target, &lock);
        let mut exposures = Vec::new();
        for skill in &planned {
            let recorded = agents::recorded(lock.get(&skill.name));
            for (agent, mode) in agents::merged(&recorded, &requested) {
                exposures.extend(exposer.plan(&skill.name, agent, mode, Some(&skill.snapshot))?);
            }
        }
        Ok(Plan {
            source: self.source.clone(),
            skills: planned,
            diagnostics,
            requested,
            exposures,
        })
    }

    fn choose<'a>(
        &self,
        folder: &Path,
        skills: &'a [skillbook::Skill],
    ) -> Result<Vec<&'a skillbook::Skill>, PackageError> {
        if self.names.is_empty() {
            return Ok(skills.iter().collect());
        }
        self.names
            .iter()
            .map(|name| {
                skills
                    .iter()
                    .find(|skill| skill.name().as_str() == name)
                    .ok_or_else(|| PackageError::SkillNotInSource {
                        name: name.clone(),
                        path: folder.to_path_buf(),
                        available: skills
                            .iter()
                            .map(|skill| skill.name().to_string())
                            .collect(),
                    })
            })
            .collect()
    }

    fn plan_skill(
        &self,
        skill: &skillbook::Skill,
        root: &Path,
        target: &Target,
        lock: &Lock,
    ) -> Result<PlannedSkill, PackageError> {
        let directory = skill.directory();
        let name = skill.name().as_str().to_owned();
        if !is_safe_name(&name) || name.starts_with('.') {
            return Err(PackageError::UnsafeName {
                path: directory.to_path_buf(),
            });
        }
        let snapshot = Snapshot::read(directory, &self.limits)?;
        if let Some((path, other)) = &snapshot.case_collision {
            return Err(PackageError::CaseCollision {
                path: path.clone(),
                other: other.clone(),
            });
        }
        let report = Checker::new(Mode::Standard)
            .check_path(directory)
            .map_err(|error| PackageError::io(directory, std::io::Error::other(error)))?;
        let (errors, warnings): (Vec<Diagnostic>, Vec<Diagnostic>) = report
            .diagnostics
            .into_iter()
            .partition(|diagnostic| diagnostic.severity == Severity::Error);
        if !errors.is_empty() && self.check == CheckPolicy::RefuseErrors {
            return Err(PackageError::CheckFailed {
                path: directory.to_path_buf(),
                diagnostics: errors,
            });
        }
        let relative = directory
            .strip_prefix(root)
            .ok()
            .map(|path| path.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        self.refuse_collision(&name, &relative, target, lock)?;
        let skill_file = skill
            .location()
            .file_name()
            .map(|file| file.to_string_lossy().into_owned())
            .unwrap_or_else(|| "SKILL.md".to_owned());
        let skill_path = if relative.is_empty() {
            skill_file
        } else {
            format!("{relative}/{skill_file}")
        };
        Ok(PlannedSkill {
            name,
            origin: directory.display().to_string(),
            fetched_from: None,
            directory: directory.to_path_buf(),
            skill_path,
            allowed_tools: skill.front_matter().get("allowed-tools").map(|value| {
                value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned)
            }),
            snapshot,
            diagnostics: errors.into_iter().chain(warnings).collect(),
        })
    }

    /// A skill of this name (or one differing only in case) is installed and the lock does not
    /// record it from this source.
    /// The lock's source may name the folder of skills or (as the `skills` tool writes after
    /// restoring) the skill's own folder in it.
    fn is_same_source(&self, entry: LockEntry<'_>, relative: &str, target: &Target) -> bool {
        match &self.source {
            Source::Local(folder) => {
                let locked = entry
                    .source()
                    .map(|source| crate::lock::resolve_local_source(source, target.lock_folder()));
                entry.source_type() == Some("local")
                    && locked.is_some_and(|locked| {
                        locked == *folder || locked == normalize(&below(folder, relative))
                    })
            }
            Source::Git(source) => {
                let locked = GitSource::from_lock(
                    entry.source_type().unwrap_or_default(),
                    entry.source().unwrap_or_default(),
                    entry.source_url(),
                    None,
                );
                locked.and_then(Result::ok).is_some_and(|locked| {
                    locked.fetch_url().trim_end_matches(".git")
                        == source.fetch_url().trim_end_matches(".git")
                })
            }
        }
    }

    fn refuse_collision(
        &self,
        name: &str,
        relative: &str,
        target: &Target,
        lock: &Lock,
    ) -> Result<(), PackageError> {
        let same_source = lock
            .get(name)
            .is_some_and(|entry| self.is_same_source(entry, relative, target));
        let Ok(entries) = fs::read_dir(target.skills_folder()) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let installed = entry.file_name();
            let Some(installed) = installed.to_str() else {
                continue;
            };
            let exact = installed == name;
            if (exact && !same_source)
                || (!exact && installed.to_lowercase() == name.to_lowercase())
            {
                return Err(PackageError::NameCollision {
                    name: name.to_owned(),
                    path: entry.path(),
                });
            }
        }
        if lock.get(name).is_some() && !same_source {
            return Err(PackageError::NameCollision {
                name: name.to_owned(),
                path: target.lock_path().to_path_buf(),
            });
        }
        Ok(())
    }
}

/// What an [`Add`] will install: each skill read, checked and cleared to install.
#[derive(Debug, Clone)]
pub struct Plan {
    source: Source,
    skills: Vec<PlannedSkill>,
    diagnostics: Vec<Diagnostic>,
    /// The clients asked for, each with how.
    requested: Vec<(Agent, ExposeMode)>,
    exposures: Vec<Exposure>,
}

/// One skill of a [`Plan`].
#[derive(Debug, Clone)]
pub struct PlannedSkill {
    name: String,
    directory: PathBuf,
    /// Where the skill comes from, as shown: its folder, or a git source's URL, folder and
    /// commit.
    origin: String,
    /// The git source it was fetched from, and the commit.
    fetched_from: Option<(GitSource, String)>,
    skill_path: String,
    allowed_tools: Option<String>,
    snapshot: Snapshot,
    diagnostics: Vec<Diagnostic>,
}

impl PlannedSkill {
    /// The skill's name, which is also its folder's name once installed.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The skill's folder in the source (for a git source, in a temporary copy of its tree
    /// that is gone once the plan is).
    pub fn directory(&self) -> &Path {
        &self.directory
    }

    /// Where the skill comes from, for people: its folder, or a git source's URL, the skill's
    /// folder in the repository and the commit.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Marks the skill as fetched from `source`: where it is shown to come from, and what of
    /// it the fetch could not write out (submodules).
    fn mark_fetched(&mut self, source: &GitSource, fetched: &Fetched) {
        let folder = self.folder().to_owned();
        let short = fetched.commit().get(..12).unwrap_or(fetched.commit());
        self.origin = if folder.is_empty() {
            format!("{} at {short}", source.shown())
        } else {
            format!("{} {folder} at {short}", source.shown())
        };
        for (path, reason) in fetched.left_out_below(&folder) {
            self.snapshot.left_out.push(LeftOut { path, reason });
        }
        self.fetched_from = Some((source.clone(), fetched.commit().to_owned()));
    }

    /// Every file that will be installed, relative to the skill folder, in byte order.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.snapshot.files.iter().map(|file| file.path.as_str())
    }

    /// The files under `scripts/`, which an agent may run.
    pub fn scripts(&self) -> impl Iterator<Item = &str> {
        self.files().filter(|path| path.starts_with("scripts/"))
    }

    /// The skill's `allowed-tools`, when it asks for any.
    pub fn allowed_tools(&self) -> Option<&str> {
        self.allowed_tools.as_deref()
    }

    /// Entries that will not be installed (links, `.git`, special files), with why.
    pub fn left_out(&self) -> &[LeftOut] {
        &self.snapshot.left_out
    }

    /// What the checker said: errors (only when forced) then warnings.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The lock entry recording this skill from a local folder, `source` as written in the
    /// lock.
    pub(crate) fn lock_entry(&self, source: String) -> NewEntry {
        NewEntry::new(source, "local", self.snapshot.computed_hash())
            .skill_path(self.skill_path.clone())
            .digests(self.snapshot.digest(), self.snapshot.file_digests())
    }

    /// The lock entry recording this skill: from its git source and commit, as the `skills`
    /// tool writes one (`ref` only when named) with the commit; or from a local folder, recorded
    /// as `local_source` gives it.
    pub(crate) fn locked_entry(&self, local_source: impl FnOnce() -> String) -> NewEntry {
        let Some((source, commit)) = &self.fetched_from else {
            return self.lock_entry(local_source());
        };
        let mut entry = NewEntry::new(
            source.lock_source(),
            source.source_type(),
            self.snapshot.computed_hash(),
        );
        if let Some(url) = source.lock_source_url() {
            entry = entry.source_url(url);
        }
        if let Some(reference) = source.reference() {
            entry = entry.git_ref(reference);
        }
        entry
            .skill_path(self.skill_path.clone())
            .commit(commit.clone())
            .digests(self.snapshot.digest(), self.snapshot.file_digests())
    }

    /// The skill's folder below the source's top (`""` when the source is the skill),
    /// `/`-separated.
    pub(crate) fn folder(&self) -> &str {
        self.skill_path
            .rsplit_once('/')
            .map_or("", |(folder, _)| folder)
    }

    /// The files read from the source.
    pub(crate) fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }
}

impl Plan {
    /// The skills to install, in discovery's order.
    pub fn skills(&self) -> &[PlannedSkill] {
        &self.skills
    }

    /// What discovery reported while searching the source (skipped links, duplicates, …).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The links and copies that installing will make in clients' folders.
    pub fn exposed(&self) -> impl Iterator<Item = &Path> {
        self.exposures.iter().map(Exposure::place)
    }

    /// Installs the planned skills into `target` and records them in its lock. Each skill is
    /// written into a temporary folder inside the skills folder, then renamed into place
    /// (replacing the copy from an earlier install from the same source); the lock is written
    /// last. On any failure every skill and the lock are left as they were.
    ///
    /// # Errors
    ///
    /// The skills folder is a link or cannot be written, or the lock cannot be read or written.
    pub fn install(&self, target: &Target) -> Result<Installed, PackageError> {
        self.install_with(target, |lock, path| lock.write(path))
    }

    /// [`Plan::install`], writing the lock with `write_lock`.
    fn install_with(
        &self,
        target: &Target,
        write_lock: impl FnOnce(&Lock, &Path) -> Result<(), crate::error::LockError>,
    ) -> Result<Installed, PackageError> {
        let skills: Vec<&PlannedSkill> = self.skills.iter().collect();
        put_in_place(
            target,
            &skills,
            &self.exposures,
            |lock| {
                for skill in &self.skills {
                    let recorded = agents::recorded(lock.get(&skill.name));
                    let clients = agents::merged(&recorded, &self.requested);
                    let entry = skill
                        .locked_entry(|| match &self.source {
                            Source::Local(folder) => {
                                portable_local_source(folder, target.lock_folder())
                            }
                            Source::Git(git) => git.lock_source(),
                        })
                        .agents(agents::record(&clients));
                    lock.insert(&skill.name, entry);
                }
                true
            },
            write_lock,
        )?;
        Ok(Installed {
            names: self.skills.iter().map(|skill| skill.name.clone()).collect(),
        })
    }

    /// The planned skills, taken out of the plan.
    pub(crate) fn into_skills(self) -> Vec<PlannedSkill> {
        self.skills
    }
}

/// Installs `skills` into `target` all or nothing: each is written into a temporary folder in
/// the skills folder and renamed into place, then each link or copy of `exposures` likewise;
/// then `edit_lock` changes the lock, which is written with `write_lock` when `edit_lock` says
/// it changed. On any failure every skill, client folder and the lock are left as they were.
pub(crate) fn put_in_place(
    target: &Target,
    skills: &[&PlannedSkill],
    exposures: &[Exposure],
    edit_lock: impl FnOnce(&mut Lock) -> bool,
    write_lock: impl FnOnce(&Lock, &Path) -> Result<(), crate::error::LockError>,
) -> Result<(), PackageError> {
    let result = swap_all(target, skills, exposures, edit_lock, write_lock);
    // Whatever happened, the staged folders are gone by now: their staging folders go too.
    tidy_staging(target.skills_folder());
    for exposure in exposures {
        if let Some(folder) = exposure.place().parent() {
            tidy_staging(folder);
        }
    }
    result
}

/// [`put_in_place`], leaving the staging folders behind.
fn swap_all(
    target: &Target,
    skills: &[&PlannedSkill],
    exposures: &[Exposure],
    edit_lock: impl FnOnce(&mut Lock) -> bool,
    write_lock: impl FnOnce(&Lock, &Path) -> Result<(), crate::error::LockError>,
) -> Result<(), PackageError> {
    target.prepare()?;
    let mut lock = Lock::read(target.lock_path())?;
    let mut staged = Vec::new();
    for skill in skills {
        staged.push(stage(target.skills_folder(), &skill.snapshot)?);
    }
    let mut exposed = Vec::new();
    for exposure in exposures {
        exposed.push(exposure.stage()?);
    }
    let mut swaps = Swaps::default();
    let places = skills
        .iter()
        .map(|skill| target.skills_folder().join(&skill.name));
    let moves = staged
        .iter()
        .map(tempfile::TempDir::path)
        .zip(places)
        .chain(
            exposed.iter().map(agents::Staged::path).zip(
                exposures
                    .iter()
                    .map(|exposure| exposure.place().to_path_buf()),
            ),
        );
    for (staged, place) in moves {
        if let Err(error) = swaps.swap_in(staged, &place) {
            swaps.undo();
            return Err(error);
        }
    }
    if edit_lock(&mut lock)
        && let Err(error) = write_lock(&lock, target.lock_path())
    {
        swaps.undo();
        return Err(error.into());
    }
    swaps.finish();
    Ok(())
}

/// What [`Plan::install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    names: Vec<String>,
}

impl Installed {
    /// The skills installed, in the plan's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// The name of the folder, beside a skills folder, where installs stage new folders and keep
/// the ones they replace until the end.
const STAGING: &str = ".skillbook-staging";

/// The staging folder for places in `folder`: beside it, so that nothing half-written or
/// about to be deleted is ever inside a folder discovery searches, and on the same file system,
/// so that renaming into place is atomic.
pub(crate) fn staging_folder(folder: &Path) -> PathBuf {
    folder.parent().unwrap_or(Path::new(".")).join(STAGING)
}

/// Removes the staging folder of `folder` when nothing is left in it.
pub(crate) fn tidy_staging(folder: &Path) {
    let _ = fs::remove_dir(staging_folder(folder));
}

/// Writes a skill's files into a new temporary folder in the staging folder of
/// `skills_folder`.
pub(crate) fn stage(
    skills_folder: &Path,
    snapshot: &Snapshot,
) -> Result<tempfile::TempDir, PackageError> {
    let staging = staging_folder(skills_folder);
    fs::create_dir_all(&staging).map_err(|error| PackageError::io(&staging, error))?;
    let folder = tempfile::Builder::new()
        .prefix("install-")
        .tempdir_in(&staging)
        .map_err(|error| PackageError::io(&staging, error))?;
    for file in &snapshot.files {
        let path = below(folder.path(), &file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|error| PackageError::io(parent, error))?;
        }
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        set_mode(&mut options, file.executable);
        let mut written = options
            .open(&path)
            .map_err(|error| PackageError::io(&path, error))?;
        written
            .write_all(&file.content)
            .and_then(|()| written.sync_all())
            .map_err(|error| PackageError::io(&path, error))?;
    }
    Ok(folder)
}

#[cfg(unix)]
fn set_mode(options: &mut fs::OpenOptions, executable: bool) {
    use std::os::unix::fs::OpenOptionsExt;
    options.mode(if executable { 0o755 } else { 0o644 });
}

#[cfg(not(unix))]
fn set_mode(_options: &mut fs::OpenOptions, _executable: bool) {}

/// Folders renamed into place, with the old folders they replaced kept aside until the end.
#[derive(Default)]
pub(crate) struct Swaps {
    /// (place, the old folder moved aside, if there was one)
    done: Vec<(PathBuf, Option<PathBuf>)>,
}

impl Swaps {
    pub(crate) fn swap_in(&mut self, staged: &Path, place: &Path) -> Result<(), PackageError> {
        let aside = if fs::symlink_metadata(place).is_ok() {
            let aside = aside_path(place);
            fs::rename(place, &aside).map_err(|error| PackageError::io(place, error))?;
            Some(aside)
        } else {
            None
        };
        if let Err(error) = fs::rename(staged, place) {
            if let Some(aside) = &aside {
                let _ = fs::rename(aside, place);
            }
            return Err(PackageError::io(place, error));
        }
        self.done.push((place.to_path_buf(), aside));
        Ok(())
    }

    /// Puts every old folder back.
    pub(crate) fn undo(&mut self) {
        for (place, aside) in self.done.drain(..).rev() {
            let _ = remove_entry(&place);
            if let Some(aside) = aside {
                let _ = fs::rename(aside, &place);
            }
        }
    }

    /// Deletes the old folders.
    pub(crate) fn finish(&mut self) {
        for (_, aside) in self.done.drain(..) {
            if let Some(aside) = aside {
                let _ = remove_entry(&aside);
            }
        }
    }
}

/// A free name in the staging folder of `place`'s folder (made when missing) for `place` to be
/// moved aside to, or a link to be made under before it is renamed into `place`.
pub(crate) fn aside_path(place: &Path) -> PathBuf {
    let name = place
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = staging_folder(place.parent().unwrap_or(Path::new(".")));
    // A failure shows as the rename's error, naming the path.
    let _ = fs::create_dir_all(&staging);
    (0u32..)
        .map(|n| staging.join(format!("old-{name}-{}-{n}", std::process::id())))
        .find(|path| fs::symlink_metadata(path).is_err())
        .unwrap_or_else(|| staging.join("old"))
}

/// Removes a folder, or a link without following it.
pub(crate) fn remove_entry(path: &Path) -> std::io::Result<()> {
    if fs::symlink_metadata(path)?.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}

#[cfg(test)]
mod tests;
