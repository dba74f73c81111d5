//! A reader over a [`ReadBoundary`]: the workspace reads of `skillbook read` (SPEC §5.1), where
//! any file of the workspace and the skill roots is readable and known skills get the marker.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::boundary::{BoundaryError, ReadBoundary};
use crate::format::SkillName;
use crate::read::KnownSkill;

use super::file::{Content, SkillFileReader};

/// A boundary and the skills whose SKILL.md get the compaction marker.
pub(super) struct Bounded {
    boundary: ReadBoundary,
    skills: Vec<Marked>,
}

/// A known skill, with its SKILL.md resolved inside the boundary once.
struct Marked {
    /// The SKILL.md's absolute path, `None` when it lies outside the boundary.
    resolved: Option<PathBuf>,
    name: SkillName,
    /// The directory as the marker shows it.
    directory: String,
}

impl fmt::Debug for Bounded {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Bounded")
            .field("boundary", &self.boundary)
            .field("known_skills", &self.skills.len())
            .finish()
    }
}

impl Bounded {
    /// Reads through `boundary`, marking the SKILL.md of each of `skills`. A name that is not a
    /// [`SkillName`] is shown with its control characters and `/` replaced by U+FFFD.
    pub(super) fn new(
        boundary: ReadBoundary,
        skills: impl IntoIterator<Item = KnownSkill>,
    ) -> Self {
        let skills = skills
            .into_iter()
            .map(|skill| Marked {
                resolved: boundary.resolve(&skill.path).ok(),
                name: SkillName::new(&skill.name)
                    .unwrap_or_else(|_| SkillName::sanitized(&skill.name)),
                directory: skill.directory.display().to_string(),
            })
            .collect();
        Self { boundary, skills }
    }

    /// Opens `path` through the boundary (absolute, or relative to its base).
    pub(super) fn open(&self, path: &Path) -> Result<SkillFileReader, BoundaryError> {
        let opened = self.boundary.open(path)?;
        let marker = self
            .skills
            .iter()
            .find(|skill| skill.resolved.as_deref() == Some(opened.path()))
            .map(|skill| (skill.name.clone(), skill.directory.clone()));
        Ok(SkillFileReader {
            path: opened.path().display().to_string(),
            size: opened.size(),
            marker,
            version: None,
            content: Content::Disk(opened.into_file()),
        })
    }
}
