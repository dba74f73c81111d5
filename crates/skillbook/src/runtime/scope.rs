//! Resolving a [`Scope`] into the skills of one run: discovery, enabled names, provided skills,
//! and the one reader every read of those skills goes through.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::catalog::CatalogEntry;
use crate::diagnostic::Diagnostic;
use crate::discovery::{Discovered, DiscoveryCache, Limits};
use crate::format::{SkillName, name_key};
use crate::paths;
use crate::read::{Addressing, ReadError, ReadOptions, SkillReader};
use crate::skill::Skill;
use crate::sources::ProvidedSkill;
use crate::uri;

use super::RuntimeError;
use super::resolver::Scope;

/// A skill of a resolved scope: found on disk (shared with the discovery result) or held in
/// memory.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ScopedSkill {
    /// A discovered skill.
    Disk(DiskSkill),
    /// A skill held in memory (handed in, embedded, or from an archive).
    Provided(ProvidedSkill),
}

/// A discovered skill, by position in a shared discovery result.
#[derive(Debug, Clone)]
pub struct DiskSkill {
    found: Arc<Discovered>,
    index: usize,
    addressing: Addressing,
}

impl DiskSkill {
    /// The skill as discovery found it.
    #[must_use]
    pub fn skill(&self) -> &Skill {
        &self.found.skills()[self.index]
    }
}

impl ScopedSkill {
    /// The name.
    #[must_use]
    pub fn name(&self) -> &SkillName {
        match self {
            ScopedSkill::Disk(skill) => skill.skill().name(),
            ScopedSkill::Provided(skill) => skill.name(),
        }
    }

    /// The description.
    #[must_use]
    pub fn description(&self) -> &str {
        match self {
            ScopedSkill::Disk(skill) => skill.skill().description(),
            ScopedSkill::Provided(skill) => skill.description(),
        }
    }

    /// Every front matter field, as written.
    #[must_use]
    pub fn front_matter(&self) -> Cow<'_, Map<String, Value>> {
        match self {
            ScopedSkill::Disk(skill) => Cow::Owned(skill.skill().front_matter()),
            ScopedSkill::Provided(skill) => Cow::Borrowed(skill.front_matter()),
        }
    }

    /// The key under which names collide.
    pub(crate) fn key(&self) -> String {
        self.name().key()
    }

    /// Whether the model may see it in the catalog (not `disable-model-invocation`).
    #[must_use]
    pub fn is_model_visible(&self) -> bool {
        match self {
            ScopedSkill::Disk(skill) => skill.skill().is_model_visible(),
            ScopedSkill::Provided(skill) => !skill.disable_model_invocation(),
        }
    }

    /// Where a reader finds its SKILL.md: the absolute path of the skill file, or its
    /// `skill://` URI (always for a skill in memory, and for every skill of a scope that names
    /// files by URI).
    #[must_use]
    pub fn location(&self) -> String {
        match self {
            ScopedSkill::Disk(skill) if skill.addressing == Addressing::Paths => {
                skill.skill().location().display().to_string()
            }
            ScopedSkill::Disk(_) => self.uri(),
            ScopedSkill::Provided(skill) => skill.uri(),
        }
    }

    /// The skill directory, or its `skill://<name>` URI (as [`ScopedSkill::location`]).
    #[must_use]
    pub fn directory(&self) -> String {
        match self {
            ScopedSkill::Disk(skill) if skill.addressing == Addressing::Paths => {
                skill.skill().directory().display().to_string()
            }
            ScopedSkill::Disk(_) => uri::directory(self.name()),
            ScopedSkill::Provided(skill) => skill.directory_uri(),
        }
    }

    /// `skill://<name>/SKILL.md`: how the skill is addressed by URI, wherever it lives.
    #[must_use]
    pub fn uri(&self) -> String {
        uri::skill_file(self.name())
    }

    /// The skill as the catalog lists it.
    #[must_use]
    pub fn entry(&self) -> CatalogEntry<'_> {
        match self {
            ScopedSkill::Disk(skill) if skill.addressing == Addressing::Paths => {
                CatalogEntry::from(skill.skill())
            }
            ScopedSkill::Disk(_) => CatalogEntry::new(
                self.name().as_str(),
                self.description(),
                self.uri(),
                self.is_model_visible(),
            ),
            ScopedSkill::Provided(skill) => CatalogEntry::from(skill),
        }
    }
}

/// What a [`Scope`] resolved to: its skills (discovered, then provided, names unique), the
/// problems met, and a reader over every one of them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ResolvedScope {
    /// The skills, discovered ones first in discovery order, then provided ones.
    skills: Vec<ScopedSkill>,
    /// Problems met while discovering, then those of reading each provided skill served.
    diagnostics: Vec<Diagnostic>,
    /// The discovery the disk skills come from.
    found: Arc<Discovered>,
    /// Reads every skill of the scope.
    reader: SkillReader,
    /// The most bytes of a skill file read whole (the scope's [`Limits::max_file_bytes`]).
    skill_file_bytes: u64,
    /// The position of each skill, by name key.
    by_key: HashMap<String, usize>,
}

impl ResolvedScope {
    /// The skill with this name (compared ignoring case).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&ScopedSkill> {
        self.by_key
            .get(&name_key(name))
            .and_then(|&position| self.skills.get(position))
    }

    /// The skills, discovered ones first in discovery order, then provided ones.
    #[must_use]
    pub fn skills(&self) -> &[ScopedSkill] {
        &self.skills
    }

    /// Problems met while discovering, then those met reading each provided skill the scope
    /// serves ([`ProvidedSkill::diagnostics`]: a name it could not take, a front matter
    /// repaired), so a provided skill's problems reach the host as a disk skill's do.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The discovery the disk skills come from.
    #[must_use]
    pub fn found(&self) -> &Arc<Discovered> {
        &self.found
    }

    /// Reads every skill of the scope (manual-only ones included); narrow it with
    /// [`SkillReader::only`].
    #[must_use]
    pub fn reader(&self) -> &SkillReader {
        &self.reader
    }

    /// The most bytes of a skill file read whole — for a selected skill, `activate_skill` or a
    /// duplicate check — which is the scope's [`Limits::max_file_bytes`]: a larger skill file is
    /// refused, never cut. The read tool has its own limit ([`ReadOptions::max_file_bytes`]).
    #[must_use]
    pub fn skill_file_bytes(&self) -> u64 {
        self.skill_file_bytes
    }

    /// The skills and the diagnostics, taken out of the result.
    #[must_use]
    pub fn into_parts(self) -> (Vec<ScopedSkill>, Vec<Diagnostic>) {
        (self.skills, self.diagnostics)
    }
}

impl Scope {
    /// Discovers this scope's roots (through `cache`), keeps the enabled names, and adds the
    /// provided skills.
    ///
    /// # Errors
    ///
    /// [`RuntimeError::DuplicateSkill`], [`RuntimeError::ProvidedOutsideRoots`] or
    /// [`RuntimeError::ProvidedTooLarge`] for provided skills.
    pub fn resolve(&self, cache: &DiscoveryCache) -> Result<ResolvedScope, RuntimeError> {
        self.resolve_found(cache.discover(&self.discovery()))
    }

    /// [`Scope::resolve`] with a discovery already made (for example by a watcher) of
    /// [`Scope::discovery`].
    ///
    /// # Errors
    ///
    /// As [`Scope::resolve`].
    pub fn resolve_found(&self, found: Arc<Discovered>) -> Result<ResolvedScope, RuntimeError> {
        let enabled = self
            .enabled()
            .map(|names| names.iter().map(|name| name_key(name)).collect::<Vec<_>>());
        let is_enabled = |name: &str| {
            enabled
                .as_ref()
                .is_none_or(|keys| keys.contains(&name_key(name)))
        };
        let mut skills: Vec<ScopedSkill> = (0..found.skills().len())
            .filter(|&index| is_enabled(&found.skills()[index].name))
            .map(|index| {
                ScopedSkill::Disk(DiskSkill {
                    found: Arc::clone(&found),
                    index,
                    addressing: self.addressing(),
                })
            })
            .collect();
        // The read tool keeps its own limit (files are read a segment at a time); a skill file
        // read whole keeps to the one discovery kept to ([`whole_skill_text`]).
        let options = ReadOptions::default().with_addressing(self.addressing());
        let mut disk_reader = SkillReader::new(&found).with_options(options);
        if let Some(keys) = &enabled {
            let keys: HashSet<String> = keys.iter().cloned().collect();
            disk_reader = disk_reader.only(move |name, _| keys.contains(&name.key()));
        }
        let mut index: HashMap<String, usize> = skills
            .iter()
            .enumerate()
            .map(|(position, skill)| (skill.key(), position))
            .collect();
        for provided in self.provided() {
            if !is_enabled(provided.name()) {
                continue;
            }
            check_provided(provided, self, found.read_roots())?;
            let key = provided.name().key();
            if let Some(&position) = index.get(&key) {
                if same_content(&skills[position], provided, &disk_reader, self.limits())? {
                    continue;
                }
                return Err(RuntimeError::DuplicateSkill {
                    name: provided.name().to_string(),
                    first: skills[position].location(),
                    second: provided.uri(),
                });
            }
            index.insert(key, skills.len());
            skills.push(ScopedSkill::Provided(provided.clone()));
        }
        let by_key = index;
        let reader = disk_reader.with_provided(skills.iter().filter_map(|skill| match skill {
            ScopedSkill::Provided(provided) => Some(provided.clone()),
            ScopedSkill::Disk(_) => None,
        }));
        let mut diagnostics = found.diagnostics().to_vec();
        for skill in &skills {
            if let ScopedSkill::Provided(provided) = skill {
                diagnostics.extend_from_slice(provided.diagnostics());
            }
        }
        Ok(ResolvedScope {
            skills,
            diagnostics,
            reader,
            skill_file_bytes: self.limits().max_file_bytes,
            found,
            by_key,
        })
    }
}

/// A provided skill pointing at a file must lie under a declared root, and fit the scope's size
/// limit.
fn check_provided(
    provided: &ProvidedSkill,
    scope: &Scope,
    read_roots: &[PathBuf],
) -> Result<(), RuntimeError> {
    let limit = scope.limits().max_file_bytes;
    if provided.skill_md().len() as u64 > limit {
        return Err(RuntimeError::ProvidedTooLarge {
            name: provided.name().to_string(),
            bytes: provided.skill_md().len(),
            limit,
        });
    }
    let Some(file) = provided.source_file() else {
        return Ok(());
    };
    let workspace = paths::absolute(scope.workspace_path());
    let file = paths::absolute_against(&workspace, file);
    if read_roots.iter().any(|root| file.starts_with(root)) {
        Ok(())
    } else {
        Err(RuntimeError::ProvidedOutsideRoots {
            name: provided.name().to_string(),
            path: file,
        })
    }
}

/// Whether a provided skill repeats one already in scope: the same text, and no other files.
fn same_content(
    existing: &ScopedSkill,
    provided: &ProvidedSkill,
    disk: &SkillReader,
    limits: Limits,
) -> Result<bool, RuntimeError> {
    Ok(match existing {
        ScopedSkill::Provided(other) => other.same_content(provided),
        ScopedSkill::Disk(skill) => {
            if provided.files().next().is_some() {
                return Ok(false);
            }
            // A provided skill fits the limit (checked before), so one over it differs.
            match whole_skill_text(disk, skill.skill().name(), limits.max_file_bytes) {
                Ok(text) => text == provided.skill_md(),
                Err(ReadError::TooLarge { .. }) => false,
                Err(source) => {
                    return Err(RuntimeError::SkillUnreadable {
                        name: skill.skill().name().to_string(),
                        path: skill.skill().location().to_path_buf(),
                        source,
                    });
                }
            }
        }
    })
}

/// The whole text of the skill file of `name` (invalid UTF-8 replaced), refused as too large
/// over `limit` — the scope's [`Limits::max_file_bytes`](crate::Limits) — and never cut to fit:
/// the one rule for a selected skill, `activate_skill` and a duplicate check.
pub(super) fn whole_skill_text(
    reader: &SkillReader,
    name: &str,
    limit: u64,
) -> Result<String, ReadError> {
    let opened = reader.open_in(name, uri::SKILL_FILE)?;
    let path = PathBuf::from(opened.path());
    if opened.size() > limit {
        return Err(ReadError::TooLarge {
            path,
            size: opened.size(),
            limit,
        });
    }
    let mut bytes = Vec::new();
    // A file that grows while it is read is read only up to the limit.
    opened
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|source| ReadError::Io { path, source })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
