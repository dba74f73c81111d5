//! Skills by folder and by name: a discovery's lookup index, which every reader made from it
//! shares (readers add the skills they hold in memory).

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use crate::format::SkillName;
use crate::skill::{Place, Skill};
use crate::sources::ProvidedSkill;
use crate::uri::{self, SKILL_FILE};

/// Skills by folder and by name. Built once per discovery (and kept with it), so a lookup or a
/// reader for one run costs no scan of the skills.
#[derive(Default)]
pub(crate) struct Index {
    pub(crate) entries: Vec<Entry>,
    pub(crate) by_directory: HashMap<PathBuf, usize>,
    pub(crate) by_key: HashMap<String, usize>,
    /// The depths (components) at which skill folders lie, so a path is looked up only there.
    depths: std::collections::BTreeSet<usize>,
}

impl fmt::Debug for Index {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Index")
            .field("skills", &self.entries.len())
            .finish_non_exhaustive()
    }
}

/// One skill.
#[derive(Clone)]
pub(crate) struct Entry {
    pub(crate) name: SkillName,
    pub(crate) model_visible: bool,
    pub(crate) body: Body,
}

#[derive(Clone)]
pub(crate) enum Body {
    Disk {
        directory: PathBuf,
        /// The skill file's name in its folder (`SKILL.md` or `skill.md`).
        file_name: OsString,
        place: Place,
    },
    Memory(ProvidedSkill),
}

impl Entry {
    pub(crate) fn of_skill(skill: &Skill) -> Self {
        Entry {
            name: skill.name.clone(),
            model_visible: skill.is_model_visible(),
            body: Body::Disk {
                directory: skill.directory().to_path_buf(),
                file_name: skill
                    .location
                    .file_name()
                    .map_or_else(|| SKILL_FILE.into(), ToOwned::to_owned),
                place: skill.place.clone(),
            },
        }
    }

    pub(crate) fn of_provided(skill: ProvidedSkill) -> Self {
        Entry {
            name: skill.name().clone(),
            model_visible: !skill.disable_model_invocation(),
            body: Body::Memory(skill),
        }
    }

    /// The directory as the marker and the catalog show it: a path, or `skill://<name>`.
    pub(crate) fn directory_label(&self) -> String {
        match &self.body {
            Body::Disk { directory, .. } => directory.display().to_string(),
            Body::Memory(_) => uri::directory(&self.name),
        }
    }
}

impl Index {
    /// Whether some skill folder lies at this depth.
    pub(crate) fn has_depth(&self, depth: usize) -> bool {
        self.depths.contains(&depth)
    }

    /// Of two entries with one name (ignoring case), the first is kept.
    pub(crate) fn of(entries: impl IntoIterator<Item = Entry>) -> Self {
        let mut index = Index::default();
        for entry in entries {
            let key = entry.name.key();
            if index.by_key.contains_key(&key) {
                continue;
            }
            let position = index.entries.len();
            if let Body::Disk { directory, .. } = &entry.body {
                index.depths.insert(directory.components().count());
                index.by_directory.insert(directory.clone(), position);
            }
            index.by_key.insert(key, position);
            index.entries.push(entry);
        }
        index
    }
}
