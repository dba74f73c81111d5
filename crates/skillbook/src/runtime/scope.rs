//! Resolving a [`Scope`] into the skills of one run: discovery, enabled names, provided skills.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::CatalogEntry;
use crate::diagnostic::Diagnostic;
use crate::discovery::{Discovered, DiscoveryCache, Limits};
use crate::paths;
use crate::read::KnownSkill;
use crate::skill::{Skill, name_key};
use crate::sources::ProvidedSkill;

use super::RuntimeError;
use super::resolver::Scope;

/// A skill of one run: on disk (shared with the discovery cache) or in memory.
#[derive(Debug, Clone)]
pub(crate) enum ScopedSkill {
    Disk(DiskSkill),
    Provided(ProvidedSkill),
}

/// A discovered skill, by position in a shared discovery result.
#[derive(Debug, Clone)]
pub(crate) struct DiskSkill {
    found: Arc<Discovered>,
    index: usize,
}

impl std::ops::Deref for DiskSkill {
    type Target = Skill;

    fn deref(&self) -> &Skill {
        &self.found.skills[self.index]
    }
}

impl ScopedSkill {
    pub(crate) fn name(&self) -> &str {
        match self {
            ScopedSkill::Disk(skill) => &skill.name,
            ScopedSkill::Provided(skill) => skill.name(),
        }
    }

    pub(crate) fn key(&self) -> String {
        name_key(self.name())
    }

    pub(crate) fn is_model_visible(&self) -> bool {
        match self {
            ScopedSkill::Disk(skill) => skill.is_model_visible(),
            ScopedSkill::Provided(skill) => !skill.disable_model_invocation(),
        }
    }

    /// The absolute path of the skill file, or its `skill://` URI.
    pub(crate) fn location(&self) -> String {
        match self {
            ScopedSkill::Disk(skill) => skill.path.display().to_string(),
            ScopedSkill::Provided(skill) => skill.uri(),
        }
    }

    /// The skill directory, or its `skill://<name>` URI.
    pub(crate) fn directory(&self) -> String {
        match self {
            ScopedSkill::Disk(skill) => skill.directory.display().to_string(),
            ScopedSkill::Provided(skill) => skill.directory_uri(),
        }
    }

    pub(crate) fn entry(&self) -> CatalogEntry<'_> {
        match self {
            ScopedSkill::Disk(skill) => CatalogEntry::from(&**skill),
            ScopedSkill::Provided(skill) => CatalogEntry::from(skill),
        }
    }

    pub(crate) fn known(&self) -> KnownSkill {
        match self {
            ScopedSkill::Disk(skill) => KnownSkill::from(&**skill),
            ScopedSkill::Provided(skill) => {
                KnownSkill::new(skill.name(), skill.uri(), skill.directory_uri())
            }
        }
    }

    /// The whole SKILL.md text, at most `max_bytes` of it from disk.
    pub(crate) fn text(&self, max_bytes: u64) -> Result<String, RuntimeError> {
        match self {
            ScopedSkill::Disk(skill) => {
                skill
                    .read_text(max_bytes)
                    .map(|(text, _)| text)
                    .map_err(|source| RuntimeError::SkillUnreadable {
                        name: skill.name.clone(),
                        path: skill.path.clone(),
                        source,
                    })
            }
            ScopedSkill::Provided(skill) => Ok(skill.skill_md().to_owned()),
        }
    }
}

/// The skills of one run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Resolved {
    pub(crate) skills: Vec<ScopedSkill>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Resolved {
    pub(crate) fn get(&self, name: &str) -> Option<&ScopedSkill> {
        let key = name_key(name);
        self.skills.iter().find(|skill| skill.key() == key)
    }
}

/// Discovers the scope's roots, keeps the enabled names, and merges the provided skills.
pub(crate) fn resolve(scope: &Scope, cache: &DiscoveryCache) -> Result<Resolved, RuntimeError> {
    let discovery = scope.discovery();
    let found = cache.discover(&discovery);
    let enabled = scope
        .enabled
        .as_ref()
        .map(|names| names.iter().map(|name| name_key(name)).collect::<Vec<_>>());
    let is_enabled = |name: &str| {
        enabled
            .as_ref()
            .is_none_or(|keys| keys.contains(&name_key(name)))
    };
    let mut skills: Vec<ScopedSkill> = (0..found.skills.len())
        .filter(|&index| is_enabled(&found.skills[index].name))
        .map(|index| {
            ScopedSkill::Disk(DiskSkill {
                found: Arc::clone(&found),
                index,
            })
        })
        .collect();
    let mut index: HashMap<String, usize> = skills
        .iter()
        .enumerate()
        .map(|(position, skill)| (skill.key(), position))
        .collect();
    for provided in &scope.provided {
        if !is_enabled(provided.name()) {
            continue;
        }
        check_provided(provided, discovery.workspace(), &found.read_roots)?;
        let key = name_key(provided.name());
        if let Some(&position) = index.get(&key) {
            if same_content(&skills[position], provided)? {
                continue;
            }
            return Err(RuntimeError::DuplicateSkill {
                name: provided.name().to_owned(),
                first: skills[position].location(),
                second: provided.uri(),
            });
        }
        index.insert(key, skills.len());
        skills.push(ScopedSkill::Provided(provided.clone()));
    }
    Ok(Resolved {
        skills,
        diagnostics: found.diagnostics.clone(),
    })
}

/// A provided skill pointing at a file must lie under a declared root, and fit the size limit.
fn check_provided(
    provided: &ProvidedSkill,
    workspace: &Path,
    read_roots: &[PathBuf],
) -> Result<(), RuntimeError> {
    let limit = Limits::default().max_file_bytes;
    if provided.skill_md().len() as u64 > limit {
        return Err(RuntimeError::ProvidedTooLarge {
            name: provided.name().to_owned(),
            bytes: provided.skill_md().len(),
            limit,
        });
    }
    let Some(file) = provided.source_file() else {
        return Ok(());
    };
    let file = paths::absolute_against(workspace, file);
    if read_roots.iter().any(|root| file.starts_with(root)) {
        Ok(())
    } else {
        Err(RuntimeError::ProvidedOutsideRoots {
            name: provided.name().to_owned(),
            path: file,
        })
    }
}

fn same_content(existing: &ScopedSkill, provided: &ProvidedSkill) -> Result<bool, RuntimeError> {
    Ok(match existing {
        ScopedSkill::Provided(other) => other.same_content(provided),
        ScopedSkill::Disk(_) => {
            provided.files().next().is_none()
                && existing.text(Limits::default().max_file_bytes)? == provided.skill_md()
        }
    })
}
