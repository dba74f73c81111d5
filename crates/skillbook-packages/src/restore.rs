//! Restoring locked skills from their sources (`install`), and taking their new versions
//! (`update`).
//!
//! Both read each skill from the source its lock entry records, by discovery's rules and with
//! the same checks and atomic install as [`crate::Add`]. `install` never installs anything
//! other than what the lock pins: a source that no longer matches is an error naming the skill.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;

use crate::agents::{self, Agent, ExposeMode, Exposer, Exposure};
use crate::error::PackageError;
use crate::git::{self, Revision};
use crate::install::{Add, CheckPolicy, PlannedSkill, Target, put_in_place};
use crate::lock::{Lock, LockEntry, resolve_local_source};
use crate::snapshot::{FolderLimits, Snapshot};
use crate::source::{GitSource, Source};
use crate::verify::{SkillDrift, verify};

/// What [`install`] does when an installed skill differs from the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum InstallMode {
    /// Each missing or drifted skill is installed again from its source.
    #[default]
    Restore,
    /// Nothing is changed; the report lists what would be (`--frozen`).
    Frozen,
}

/// What [`install`] found and did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct InstallReport {
    /// How many locked skills were compared.
    pub checked: usize,
    /// Each locked skill that was missing or differed from the lock, with how.
    pub restored: Vec<SkillDrift>,
    /// Each link or copy in a client's folder (recorded in the lock by `add --agent`) that
    /// was missing or differed, by its place.
    pub exposed: Vec<PathBuf>,
    /// Skills whose lock entry gains the clients given to [`Install::agents`].
    pub recorded: Vec<String>,
    /// The skills in `restored` and the places in `exposed` were made again, and the clients
    /// in `recorded` written to the lock (never with [`InstallMode::Frozen`]).
    pub applied: bool,
}

impl InstallReport {
    /// Every locked skill, link and copy already matched the lock: nothing was (or would be)
    /// installed.
    pub fn is_unchanged(&self) -> bool {
        self.restored.is_empty() && self.exposed.is_empty() && self.recorded.is_empty()
    }
}

/// Restoring a lock: what may change, and which clients to expose every skill to as well.
#[derive(Debug, Clone, Default)]
pub struct Install {
    mode: InstallMode,
    agents: Vec<Agent>,
    expose: ExposeMode,
}

impl Install {
    /// Restores, with no client beyond those the lock records.
    pub fn new() -> Install {
        Install::default()
    }

    /// What a difference from the lock does. Default: [`InstallMode::Restore`].
    #[must_use]
    pub fn mode(mut self, mode: InstallMode) -> Self {
        self.mode = mode;
        self
    }

    /// Also exposes every locked skill to these clients, and records them in the lock (the
    /// only change `install` makes to it). Default: none.
    #[must_use]
    pub fn agents<I: IntoIterator<Item = Agent>>(mut self, agents: I) -> Self {
        self.agents = agents.into_iter().collect();
        self
    }

    /// How skills are exposed to the clients of [`Install::agents`]. Default:
    /// [`ExposeMode::Link`].
    #[must_use]
    pub fn expose(mut self, mode: ExposeMode) -> Self {
        self.expose = mode;
        self
    }

    /// Runs [`install`] with these options.
    ///
    /// # Errors
    ///
    /// As [`install`]; also [`PackageError::AgentPlaceTaken`] when a client's folder holds
    /// something of a skill's name that skillbook did not make.
    pub fn run(&self, target: &Target) -> Result<InstallReport, PackageError> {
        restore(target, self)
    }
}

/// Restores every skill in `target`'s lock from its recorded source: a skill whose installed
/// files match the lock is left alone; a missing or drifted one is read from its source,
/// compared with the lock (skillbook's digest, or the `skills` tool's `computedHash` when the
/// entry has only that) and installed again. All or nothing; the lock is not changed.
///
/// Checker errors do not refuse a locked skill: the lock pins the content that was accepted
/// when it was added.
///
/// # Errors
///
/// The lock cannot be read; a skill's source is not a local folder
/// ([`PackageError::UnsupportedLockedSource`]), no longer holds the skill, or no longer matches
/// the lock ([`PackageError::SourceChanged`]); a skill is hostile; a folder cannot be written.
/// Nothing is changed when an error is returned.
pub fn install(target: &Target, mode: InstallMode) -> Result<InstallReport, PackageError> {
    Install::new().mode(mode).run(target)
}

fn restore(target: &Target, options: &Install) -> Result<InstallReport, PackageError> {
    let frozen = options.mode == InstallMode::Frozen;
    let verified = verify(target)?;
    let lock = Lock::read(target.lock_path())?;
    let names: Vec<String> = verified
        .drifted
        .iter()
        .map(|skill| skill.name.clone())
        .collect();
    let planned = if names.is_empty() || frozen {
        Vec::new()
    } else {
        read_locked(target, &lock, &names)?
    };
    let requested: Vec<(Agent, ExposeMode)> = options
        .agents
        .iter()
        .map(|agent| (*agent, options.expose))
        .collect();
    let clients = ClientChanges::plan(target, &lock, &requested, &planned, &names)?;
    let report = InstallReport {
        checked: verified.checked,
        restored: verified.drifted,
        exposed: clients
            .exposures
            .iter()
            .map(|exposure| exposure.place().to_path_buf())
            .collect(),
        recorded: clients
            .records
            .iter()
            .map(|(name, _)| name.clone())
            .collect(),
        applied: false,
    };
    if report.is_unchanged() || frozen {
        return Ok(report);
    }
    let skills: Vec<&PlannedSkill> = planned.iter().collect();
    put_in_place(
        target,
        &skills,
        &clients.exposures,
        |lock| {
            for (name, record) in &clients.records {
                lock.set_agents(name, record);
            }
            !clients.records.is_empty()
        },
        |lock, path| lock.write(path),
    )?;
    Ok(InstallReport {
        applied: true,
        ..report
    })
}

/// Reads each of `names` from its source and makes sure it is what the lock pins.
fn read_locked(
    target: &Target,
    lock: &Lock,
    names: &[String],
) -> Result<Vec<PlannedSkill>, PackageError> {
    let planned = read_sources(target, lock, names, CheckPolicy::Force, true)?;
    for (skill, entry) in planned.iter().zip(entries(target, lock, names)?) {
        if !matches_lock(skill.snapshot(), entry) {
            return Err(PackageError::SourceChanged {
                name: skill.name().to_owned(),
                path: PathBuf::from(skill.origin()),
            });
        }
    }
    Ok(planned)
}

/// What `install` changes in clients' folders and in the lock's record of them.
struct ClientChanges {
    exposures: Vec<Exposure>,
    /// Each skill whose record gains clients, with its new record.
    records: Vec<(String, BTreeMap<String, String>)>,
}

impl ClientChanges {
    /// For every locked skill: the links and copies its clients (recorded, and `requested`)
    /// need. `planned` are the skills being installed again; `restored` names every skill
    /// that differs (with `--frozen`, none of them is read, and their clients wait).
    fn plan(
        target: &Target,
        lock: &Lock,
        requested: &[(Agent, ExposeMode)],
        planned: &[PlannedSkill],
        restored: &[String],
    ) -> Result<ClientChanges, PackageError> {
        let exposer = Exposer::new(target, lock);
        let mut changes = ClientChanges {
            exposures: Vec::new(),
            records: Vec::new(),
        };
        for (name, entry) in lock.entries() {
            let recorded = agents::recorded(Some(entry));
            let clients = agents::merged(&recorded, requested);
            if clients != recorded {
                changes
                    .records
                    .push((name.to_owned(), agents::record(&clients)));
            }
            let files = planned
                .iter()
                .find(|skill| skill.name() == name)
                .map(PlannedSkill::snapshot);
            if files.is_none() && restored.iter().any(|restored| restored == name) {
                continue;
            }
            for (agent, how) in clients {
                changes
                    .exposures
                    .extend(exposer.plan(name, agent, how, files)?);
            }
        }
        Ok(changes)
    }
}

/// How one skill's files changed between the lock and its source.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillUpdate {
    /// The skill's name.
    pub name: String,
    /// Files in the source and not in the lock.
    pub added: Vec<String>,
    /// Files in the lock and no longer in the source.
    pub removed: Vec<String>,
    /// Files whose content changed.
    pub changed: Vec<String>,
}

/// What [`update`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct UpdateReport {
    /// Each skill whose source changed: installed in its new version and locked.
    pub updated: Vec<SkillUpdate>,
    /// Skills whose source still matches the lock.
    pub unchanged: Vec<String>,
}

/// Reads each of `names` (every locked skill when empty) from its source again; each one
/// that changed is installed in its new version and recorded in the lock, all or nothing.
/// The files named in the report are compared with the lock's per-file digests, or, for an
/// entry the `skills` tool wrote (which has none), with the installed folder.
///
/// # Errors
///
/// A name is not in the lock ([`PackageError::NotLocked`]); a source is not a local folder
/// or no longer holds the skill; a new version is hostile or has checker errors (as for
/// [`crate::Add`]); the lock or a folder cannot be read or written. Nothing is changed when an
/// error is returned.
pub fn update<S: AsRef<str>>(target: &Target, names: &[S]) -> Result<UpdateReport, PackageError> {
    let lock = Lock::read(target.lock_path())?;
    let mut chosen: Vec<String> = Vec::new();
    for name in names {
        let name = name.as_ref();
        if lock.get(name).is_none() {
            return Err(PackageError::NotLocked {
                name: name.to_owned(),
                path: target.lock_path().to_path_buf(),
            });
        }
        if !chosen.iter().any(|known| known == name) {
            chosen.push(name.to_owned());
        }
    }
    if names.is_empty() {
        chosen = lock.entries().map(|(name, _)| name.to_owned()).collect();
    }
    let planned = read_sources(target, &lock, &chosen, CheckPolicy::RefuseErrors, false)?;
    let mut report = UpdateReport::default();
    let exposer = Exposer::new(target, &lock);
    let mut exposures = Vec::new();
    let mut changed = Vec::new();
    for (skill, entry) in planned.iter().zip(entries(target, &lock, &chosen)?) {
        if matches_lock(skill.snapshot(), entry) {
            report.unchanged.push(skill.name().to_owned());
            continue;
        }
        report.updated.push(file_changes(target, skill, entry));
        let clients = agents::recorded(Some(entry));
        for (agent, how) in &clients {
            exposures.extend(exposer.plan(skill.name(), *agent, *how, Some(skill.snapshot()))?);
        }
        let entry = skill
            .locked_entry(|| entry.source().unwrap_or_default().to_owned())
            .agents(agents::record(&clients));
        changed.push((skill, entry));
    }
    if changed.is_empty() {
        return Ok(report);
    }
    let skills: Vec<&PlannedSkill> = changed.iter().map(|(skill, _)| *skill).collect();
    put_in_place(
        target,
        &skills,
        &exposures,
        |lock| {
            for (skill, entry) in changed {
                lock.insert(skill.name(), entry);
            }
            true
        },
        |lock, path| lock.write(path),
    )?;
    Ok(report)
}

/// The lock entries of `names`, in order.
fn entries<'a>(
    target: &Target,
    lock: &'a Lock,
    names: &[String],
) -> Result<Vec<LockEntry<'a>>, PackageError> {
    names
        .iter()
        .map(|name| {
            lock.get(name).ok_or_else(|| PackageError::NotLocked {
                name: name.clone(),
                path: target.lock_path().to_path_buf(),
            })
        })
        .collect()
}

/// A git source to fetch: its URL, ref and commit.
type FetchKey = (String, Option<String>, Option<String>);

/// Reads each of `names` from the source its lock entry records (grouped by source, so a
/// source is searched or fetched once), in the order of `names`. A git source is fetched at the
/// lock's commit when `pinned` and the entry records one, else at its ref's newest commit.
fn read_sources(
    target: &Target,
    lock: &Lock,
    names: &[String],
    check: CheckPolicy,
    pinned: bool,
) -> Result<Vec<PlannedSkill>, PackageError> {
    let mut local: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    // By fetch URL, ref and commit: each skill with its folder in the repository.
    let mut remote: BTreeMap<FetchKey, (GitSource, Vec<(String, String)>)> = BTreeMap::new();
    for (name, entry) in names.iter().zip(entries(target, lock, names)?) {
        let source = entry.source().unwrap_or_default();
        let source_type = entry.source_type().unwrap_or_default();
        let unsupported = || PackageError::UnsupportedLockedSource {
            name: name.clone(),
            locked_source: source.to_owned(),
            source_type: source_type.to_owned(),
        };
        if source.is_empty() {
            return Err(unsupported());
        }
        if source_type == "local" {
            let folder = resolve_local_source(source, target.lock_folder());
            local.entry(folder).or_default().push(name.clone());
            continue;
        }
        let git = GitSource::from_lock(source_type, source, entry.source_url(), entry.git_ref())
            .ok_or_else(unsupported)??;
        let commit = entry
            .commit()
            .filter(|commit| pinned && git::is_commit_id(commit))
            .map(str::to_owned);
        let folder = entry
            .skill_path()
            .and_then(|path| path.rsplit_once('/'))
            .map_or("", |(folder, _)| folder)
            .to_owned();
        let key = (
            git.fetch_url().to_owned(),
            git.reference().map(str::to_owned),
            commit,
        );
        remote
            .entry(key)
            .or_insert_with(|| (git, Vec::new()))
            .1
            .push((name.clone(), folder));
    }
    let mut found: BTreeMap<String, PlannedSkill> = BTreeMap::new();
    for (folder, group) in local {
        let plan = Add::new(Source::local(&folder))
            .skills(group)
            .check(check)
            .plan(target)?;
        for skill in plan.into_skills() {
            found.insert(skill.name().to_owned(), skill);
        }
    }
    for ((_, _, commit), (source, group)) in remote {
        let revision = match &commit {
            Some(commit) => Revision::Commit(commit),
            None => Revision::Named,
        };
        let fetched = git::fetch(&source, revision)?;
        // One plan over the whole tree reads every skill of the group; one found in another
        // folder than its lock's (two skills of one name), or not found from the top (inside
        // another skill's folder, which discovery does not search), is read from its own folder.
        let whole = Add::new(Source::Git(source.clone()))
            .skills(group.iter().map(|(name, _)| name.clone()))
            .check(check)
            .plan_fetched(&source, &fetched, "", target);
        let mut skills = match whole {
            Ok(plan) => plan.into_skills(),
            Err(PackageError::SkillNotInSource { .. }) => Vec::new(),
            Err(error) => return Err(error),
        };
        for (name, folder) in group {
            let position = skills.iter().position(|skill| skill.name() == name);
            let skill = match position.map(|position| skills.swap_remove(position)) {
                Some(skill) if skill.folder() == folder => skill,
                _ => {
                    let plan = Add::new(Source::Git(source.clone()))
                        .skills([name.clone()])
                        .check(check)
                        .plan_fetched(&source, &fetched, &folder, target)?;
                    let Some(skill) = plan.into_skills().pop() else {
                        continue;
                    };
                    skill
                }
            };
            found.insert(name, skill);
        }
    }
    Ok(names.iter().filter_map(|name| found.remove(name)).collect())
}

/// The source's files are what the lock pins: skillbook's digest when the entry has it, else
/// the `skills` tool's `computedHash`.
fn matches_lock(snapshot: &Snapshot, entry: LockEntry<'_>) -> bool {
    match (entry.digest(), entry.computed_hash()) {
        (Some(digest), _) => snapshot.digest() == digest,
        (None, Some(hash)) => snapshot.computed_hash() == hash,
        (None, None) => false,
    }
}

/// The files added, removed and changed from the lock's per-file digests (or, without them,
/// the installed folder's files) to the source's.
fn file_changes(target: &Target, skill: &PlannedSkill, entry: LockEntry<'_>) -> SkillUpdate {
    let old: BTreeMap<String, String> = match entry.files() {
        Some(files) => files
            .into_iter()
            .map(|(path, digest)| (path.to_owned(), digest.to_owned()))
            .collect(),
        None => {
            let folder = target.skills_folder().join(skill.name());
            let installed = fs::symlink_metadata(&folder)
                .ok()
                .and_then(|_| Snapshot::read(&folder, &FolderLimits::default()).ok());
            installed
                .map(|snapshot| snapshot.file_digests())
                .unwrap_or_default()
        }
    };
    let new = skill.snapshot().file_digests();
    let paths: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let mut update = SkillUpdate {
        name: skill.name().to_owned(),
        added: Vec::new(),
        removed: Vec::new(),
        changed: Vec::new(),
    };
    for path in paths {
        match (old.get(path), new.get(path)) {
            (None, Some(_)) => update.added.push(path.clone()),
            (Some(_), None) => update.removed.push(path.clone()),
            (Some(before), Some(after)) if before != after => update.changed.push(path.clone()),
            _ => {}
        }
    }
    update
}
