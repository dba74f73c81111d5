//! The domain type: one discovered skill.

use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::frontmatter::SkillDocument;

/// The description used when neither the front matter nor the body gives one.
pub const DEFAULT_DESCRIPTION: &str = "No description available.";

/// Where a skill came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Source {
    /// Found under a root that lies inside the workspace.
    Workspace,
    /// Found under a root outside the workspace (home or an extra directory).
    Global,
}

impl Source {
    /// `workspace` or `global`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Workspace => "workspace",
            Source::Global => "global",
        }
    }
}

/// A skill: a directory holding a `SKILL.md`, as discovery resolved it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Skill {
    /// The name: front matter `name`, else the body's first heading, else the directory name.
    pub name: String,
    /// The description: front matter `description`, else the body's first paragraph, else
    /// [`DEFAULT_DESCRIPTION`].
    pub description: String,
    /// The skill file (`SKILL.md` or `skill.md`), absolute.
    #[serde(rename = "location", serialize_with = "serialize_path")]
    pub path: PathBuf,
    /// The skill directory, absolute. Relative paths in the skill resolve against it.
    #[serde(serialize_with = "serialize_path")]
    pub directory: PathBuf,
    /// Whether the root lies inside the workspace.
    pub source: Source,
    /// `disable-model-invocation: true`: the host may select the skill, the model never sees it
    /// in the catalog.
    pub disable_model_invocation: bool,
    /// Every front matter field, losslessly and in file order (unknown fields included).
    pub front_matter: Map<String, Value>,
    /// The front matter text exactly as written between the `---` lines.
    pub raw_front_matter: Option<String>,
}

impl Skill {
    /// Builds a skill from a parsed document, applying the fallbacks of SPEC §2.3.
    pub(crate) fn from_document(document: SkillDocument, path: PathBuf, source: Source) -> Self {
        let directory = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = first_non_blank([
            document.name,
            document.heading,
            directory
                .file_name()
                .map(|name| name.to_string_lossy().into_owned()),
        ])
        .unwrap_or_default();
        let description = first_non_blank([document.description, document.first_paragraph])
            .unwrap_or_else(|| DEFAULT_DESCRIPTION.to_owned());
        Skill {
            name,
            description,
            path,
            directory,
            source,
            disable_model_invocation: document.disable_model_invocation,
            front_matter: document.fields,
            raw_front_matter: document.raw_front_matter,
        }
    }

    /// The key under which names collide: trimmed and lower-cased.
    pub fn key(&self) -> String {
        name_key(&self.name)
    }

    /// Reads the whole skill file as text, at most `max_bytes` (invalid UTF-8 is replaced).
    /// The flag is true when the file was longer and was cut.
    ///
    /// # Errors
    ///
    /// The file can no longer be opened or read, or is no longer a regular file (it is never
    /// opened in a way that could block).
    pub fn read_text(&self, max_bytes: u64) -> std::io::Result<(String, bool)> {
        crate::discovery::skill_file::read_text(&self.path, max_bytes)
    }

    /// Whether the model may see this skill in the catalog.
    pub fn is_model_visible(&self) -> bool {
        !self.disable_model_invocation
    }
}

/// The duplicate key of a name: trimmed and lower-cased.
pub(crate) fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn first_non_blank<const N: usize>(candidates: [Option<String>; N]) -> Option<String> {
    candidates
        .into_iter()
        .flatten()
        .map(|text| text.trim().to_owned())
        .find(|text| !text.is_empty())
}

/// Serialises a path as a string (lossily for non-UTF-8 paths).
pub(crate) fn serialize_path<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}
