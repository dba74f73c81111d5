//! The domain type: one discovered skill.

use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::boundary::open::FileId;
use crate::diagnostic::{Diagnostic, DiagnosticCode};
use crate::format::{NameError, SkillName};
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
///
/// It serializes as `list --format json` prints it: `name`, `description`, `location`,
/// `directory`, `source`, `disable_model_invocation`, `front_matter` (every field, in file
/// order) and `raw_front_matter`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Skill {
    /// The name: front matter `name`, else the body's first heading, else the directory name
    /// (the first of these that is a usable [`SkillName`]).
    pub(crate) name: SkillName,
    /// The description: front matter `description`, else the body's first paragraph, else
    /// [`DEFAULT_DESCRIPTION`].
    pub(crate) description: String,
    /// The skill file (`SKILL.md` or `skill.md`), absolute.
    pub(crate) location: PathBuf,
    /// Whether the root lies inside the workspace.
    pub(crate) source: Source,
    /// `disable-model-invocation: true`.
    pub(crate) disable_model_invocation: bool,
    /// The front matter text exactly as written between the `---` lines.
    pub(crate) raw_front_matter: Option<String>,
    /// A closing `---` ended the front matter.
    pub(crate) front_matter_closed: bool,
    /// The front matter's fields as discovery read them, when the host asked to keep them.
    pub(crate) fields: KeptFields,
    /// How a reader reaches the skill folder again, and what discovery found there.
    pub(crate) place: Place,
}

impl Skill {
    /// The name: front matter `name`, else the body's first heading, else the directory name
    /// (the first of these that is a usable [`SkillName`]).
    #[must_use]
    pub fn name(&self) -> &SkillName {
        &self.name
    }

    /// The description: front matter `description`, else the body's first paragraph, else
    /// [`DEFAULT_DESCRIPTION`].
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Where the skill file (`SKILL.md` or `skill.md`) is, absolute: what the catalog and
    /// `list` show as its location. Under `--symlinks follow` a skill file that is a link keeps
    /// this path; only that one file is read through the link.
    #[must_use]
    pub fn location(&self) -> &Path {
        &self.location
    }

    /// Whether the root lies inside the workspace.
    #[must_use]
    pub fn source(&self) -> Source {
        self.source
    }

    /// `disable-model-invocation: true`: the host may select the skill, the model never sees it
    /// in the catalog.
    #[must_use]
    pub fn disable_model_invocation(&self) -> bool {
        self.disable_model_invocation
    }

    /// The front matter text exactly as written between the `---` lines. Its fields are read
    /// from it when asked ([`Skill::front_matter`]): a skill keeps the text alone, which holds a
    /// fraction of the memory of the fields read.
    #[must_use]
    pub fn raw_front_matter(&self) -> Option<&str> {
        self.raw_front_matter.as_deref()
    }
}

impl Serialize for Skill {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut skill = serializer.serialize_struct("Skill", 8)?;
        skill.serialize_field("name", &self.name)?;
        skill.serialize_field("description", &self.description)?;
        skill.serialize_field("location", &self.location.to_string_lossy())?;
        skill.serialize_field("directory", &self.directory().to_string_lossy())?;
        skill.serialize_field("source", &self.source)?;
        skill.serialize_field("disable_model_invocation", &self.disable_model_invocation)?;
        match &self.fields.0 {
            Some(fields) => skill.serialize_field("front_matter", fields)?,
            None => skill.serialize_field("front_matter", &self.front_matter())?,
        }
        skill.serialize_field("raw_front_matter", &self.raw_front_matter)?;
        skill.end()
    }
}

/// Where a discovered skill lies, for a reader to reach it again beneath its root's handle and
/// to check that it is still the folder discovery saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The index of its root in the discovery's read roots.
    pub(crate) root: usize,
    /// How many folders below the root it lies: its path below the root is that many last
    /// components of [`Skill::directory`] (none when the root is the skill). A count, not a
    /// second copy of the path.
    pub(crate) below: usize,
    /// The folder's identity when discovery searched it.
    pub(crate) id: FileId,
    /// The skill file.
    pub(crate) file: SkillFile,
}

/// The skill file of a discovered skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SkillFile {
    /// `SKILL.md` or `skill.md` in the folder itself.
    Named(&'static str),
    /// A link the user chose to follow: only this one target file is read through it (boxed:
    /// links are rare, and every skill holds a `SkillFile`).
    Linked(Box<LinkedFile>),
}

/// A skill-file link discovery followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkedFile {
    /// The target's absolute path when discovery followed the link.
    pub(crate) target: PathBuf,
    /// The target's identity then.
    pub(crate) id: FileId,
}

impl Place {
    /// The folder's path below its root: the last [`Place::below`] components of `directory`,
    /// the skill's directory (empty when the root is the skill).
    pub(crate) fn relative<'d>(&self, directory: &'d Path) -> &'d Path {
        let mut above = directory.components();
        for _ in 0..self.below {
            above.next_back();
        }
        directory
            .strip_prefix(above.as_path())
            .unwrap_or(Path::new(""))
    }

    /// A place no reader can open (for skills built in tests, not by a walk).
    #[cfg(test)]
    pub(crate) fn nowhere() -> Self {
        Place {
            root: usize::MAX,
            below: 0,
            id: FileId::of_parts(0, 0),
            file: SkillFile::Named("SKILL.md"),
        }
    }
}

/// What a skill is built from: the parts of its parsed document it keeps or needs (a walk holds
/// one for every skill until it ends, so nothing more).
#[derive(Debug)]
pub(crate) struct SkillHead {
    name: Option<String>,
    description: Option<String>,
    heading: Option<String>,
    first_paragraph: Option<String>,
    disable_model_invocation: bool,
    raw_front_matter: Option<String>,
    front_matter_closed: bool,
    fields: Option<Box<Map<String, Value>>>,
}

/// A [`SkillHead`] with the fallbacks applied: what a found skill is completed from.
#[derive(Debug)]
pub(crate) struct SettledHead {
    name: SkillName,
    description: String,
    disable_model_invocation: bool,
    raw_front_matter: Option<String>,
    front_matter_closed: bool,
    fields: Option<Box<Map<String, Value>>>,
}

impl SkillHead {
    /// Applies the fallbacks of SPEC §2.3 for the skill file at `location`: a name that cannot
    /// be a [`SkillName`] is reported and the next one in line is used. Done where the file was
    /// parsed, so that the walk only moves the result into its skill.
    pub(crate) fn settle(self, location: &Path, diagnostics: &mut Vec<Diagnostic>) -> SettledHead {
        let name = {
            let folder = location
                .parent()
                .and_then(Path::file_name)
                .map(|name| name.to_string_lossy());
            let candidates = NameCandidates {
                front_matter: self.name.as_deref(),
                heading: self.heading.as_deref(),
                folder: Some(folder.as_deref().unwrap_or_default()),
            };
            // With a folder the last candidate always serves: this never falls back further.
            resolve_name(candidates, location, diagnostics)
                .unwrap_or_else(|_| SkillName::sanitized(""))
        };
        let description = first_non_blank([self.description, self.first_paragraph])
            .unwrap_or_else(|| DEFAULT_DESCRIPTION.to_owned());
        if has_unsafe_control(&description)
            && let Some(control) = description.chars().find(|c| is_unsafe_control(*c))
        {
            diagnostics.push(
                Diagnostic::warning(
                    DiagnosticCode::ControlCharacter,
                    location,
                    format!(
                        "the description holds the control character U+{:04X}; the catalog shows \
                         such characters as U+FFFD (XML cannot carry them)",
                        u32::from(control)
                    ),
                )
                .with_hint("remove control characters from the description"),
            );
        }
        SettledHead {
            name,
            description,
            disable_model_invocation: self.disable_model_invocation,
            raw_front_matter: self.raw_front_matter,
            front_matter_closed: self.front_matter_closed,
            fields: self.fields,
        }
    }

    /// The head, keeping the front matter's `fields` as read (when given).
    pub(crate) fn with_fields(mut self, fields: Option<Box<Map<String, Value>>>) -> Self {
        self.fields = fields;
        self
    }
}

impl From<SkillDocument> for SkillHead {
    fn from(document: SkillDocument) -> Self {
        SkillHead {
            name: document.name,
            description: document.description,
            heading: document.heading,
            first_paragraph: document.first_paragraph,
            disable_model_invocation: document.disable_model_invocation,
            raw_front_matter: document.raw_front_matter,
            front_matter_closed: document.front_matter_closed,
            fields: None,
        }
    }
}

/// The front matter's fields as discovery read them, kept only when the host asked
/// ([`crate::Discovery::keep_front_matter`]): a copy of what the text says, so two skills are
/// equal whether or not they kept it.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeptFields(pub(crate) Option<Box<Map<String, Value>>>);

impl PartialEq for KeptFields {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Skill {
    /// [`Skill::from_head`] from a whole parsed document (skills built in tests).
    #[cfg(test)]
    pub(crate) fn from_document(
        document: SkillDocument,
        path: PathBuf,
        place: Place,
        source: Source,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Self {
        Skill::from_head(SkillHead::from(document), path, place, source, diagnostics)
    }

    /// Builds a skill from the parts of its parsed document, applying the fallbacks of SPEC
    /// §2.3 ([`Skill::read_from`]).
    #[cfg(test)]
    pub(crate) fn from_head(
        document: SkillHead,
        path: PathBuf,
        place: Place,
        source: Source,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Self {
        let settled = document.settle(&path, diagnostics);
        let mut skill = Skill::found(path, place, source);
        skill.read_from(settled);
        skill
    }

    /// A skill a walk found, before its file is parsed: where it lies, with nothing read yet
    /// (an empty name and description until [`Skill::read_from`]). A walk keeps the skills it
    /// finds this way and completes them in place, so that each is held once.
    pub(crate) fn found(path: PathBuf, place: Place, source: Source) -> Self {
        Skill {
            name: SkillName::unset(),
            description: String::new(),
            location: path,
            source,
            disable_model_invocation: false,
            raw_front_matter: None,
            front_matter_closed: false,
            fields: KeptFields::default(),
            place,
        }
    }

    /// Completes a [`Skill::found`] from its file's head, settled by [`SkillHead::settle`].
    pub(crate) fn read_from(&mut self, head: SettledHead) {
        self.name = head.name;
        self.description = head.description;
        self.disable_model_invocation = head.disable_model_invocation;
        self.raw_front_matter = head.raw_front_matter;
        self.front_matter_closed = head.front_matter_closed;
        self.fields = KeptFields(head.fields);
    }

    /// Every front matter field, losslessly and in file order (unknown fields included), read
    /// from [`Skill::raw_front_matter`] by the rules discovery applied; empty without front
    /// matter.
    #[must_use]
    pub fn front_matter(&self) -> Map<String, Value> {
        if let Some(fields) = &self.fields.0 {
            return Map::clone(fields);
        }
        match &self.raw_front_matter {
            Some(raw) => crate::frontmatter::fields_of(raw, self.front_matter_closed),
            None => Map::new(),
        }
    }

    /// The skill directory, absolute: the folder of [`Skill::location`]. Relative paths in the
    /// skill resolve against it.
    #[must_use]
    pub fn directory(&self) -> &Path {
        self.location.parent().unwrap_or(Path::new(""))
    }

    /// The key under which names collide: trimmed and lower-cased.
    #[must_use]
    pub fn key(&self) -> String {
        self.name.key()
    }

    /// Whether the model may see this skill in the catalog.
    #[must_use]
    pub fn is_model_visible(&self) -> bool {
        !self.disable_model_invocation
    }
}

/// A character the catalog cannot carry as it is: a C0 control other than tab and line feed,
/// or U+007F–U+009F (XML 1.0 forbids most of them, even escaped, and they drive terminals).
pub(crate) fn is_unsafe_control(character: char) -> bool {
    character.is_control() && character != '\t' && character != '\n'
}

/// Whether `text` holds a character [`is_unsafe_control`] refuses, found by its bytes: a C0
/// control or DEL is that byte, U+0080–U+009F are `C2 80`–`C2 9F` in UTF-8.
pub(crate) fn has_unsafe_control(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, &byte)| match byte {
        b'\t' | b'\n' => false,
        0x00..=0x1F | 0x7F => true,
        0xC2 => bytes
            .get(at + 1)
            .is_some_and(|next| (0x80..=0x9F).contains(next)),
        _ => false,
    })
}

/// What a skill's name is chosen from (SPEC §2.3), in order: its front matter's `name`, its
/// first heading, its folder's name.
pub(crate) struct NameCandidates<'a> {
    /// The front matter's `name`.
    pub(crate) front_matter: Option<&'a str>,
    /// The body's first Markdown heading.
    pub(crate) heading: Option<&'a str>,
    /// The skill folder's name; `None` for a skill without one (a provided skill handed in as
    /// text, or one at the top of an archive or object-store prefix).
    pub(crate) folder: Option<&'a str>,
}

/// The name of every kind of skill — on disk, provided, embedded, in an archive or an object
/// store — by SPEC §2.3: the first usable one of the [`NameCandidates`], blank ones skipped.
/// Each one that cannot be a [`SkillName`] is reported as an `unusable_name` warning on `path`
/// and the next one in line is tried, so a skill is never dropped for its name. The folder's
/// name always serves: a control character or `/` in it is replaced, and an empty one is
/// `skill`.
///
/// # Errors
///
/// Only for a skill without a folder, which has no last fallback: when neither its front
/// matter's `name` nor its first heading is usable, the problem with the last one tried (or
/// [`NameError::Empty`] when both are blank). The warnings pushed for it then say nothing more.
pub(crate) fn resolve_name(
    candidates: NameCandidates<'_>,
    path: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<SkillName, NameError> {
    let next = match candidates.folder {
        Some(_) => "the first heading, else its directory's name",
        None => "the first heading",
    };
    let mut last = NameError::Empty;
    for (origin, candidate) in [
        ("the front matter `name`", candidates.front_matter),
        ("the first heading", candidates.heading),
    ] {
        let Some(text) = candidate.filter(|text| !text.trim().is_empty()) else {
            continue;
        };
        match SkillName::new(text) {
            Ok(name) => return Ok(name),
            Err(problem) => {
                diagnostics.push(Diagnostic::warning(
                    DiagnosticCode::UnusableName,
                    path,
                    format!(
                        "{origin} cannot name the skill: {problem}. The skill takes the next \
                         name in line ({next})"
                    ),
                ));
                last = problem;
            }
        }
    }
    match candidates.folder {
        Some(folder) => Ok(SkillName::sanitized(folder)),
        None => Err(last),
    }
}

fn first_non_blank<const N: usize>(candidates: [Option<String>; N]) -> Option<String> {
    candidates
        .into_iter()
        .flatten()
        .map(|text| text.trim().to_owned())
        .find(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn below(count: usize) -> Place {
        Place {
            below: count,
            ..Place::nowhere()
        }
    }

    proptest::proptest! {
        /// The byte scan finds exactly the characters the character test refuses.
        #[test]
        fn unsafe_controls_are_found_by_their_bytes(text in "\\PC*|[\\x00-\\x{a0}\\t\\n]{0,12}") {
            proptest::prop_assert_eq!(
                has_unsafe_control(&text),
                text.chars().any(is_unsafe_control)
            );
        }
    }

    #[test]
    fn unsafe_controls_of_every_kind_are_found() {
        for control in ['\0', '\r', '\u{1b}', '\u{7f}', '\u{80}', '\u{9f}'] {
            assert!(has_unsafe_control(&format!("a{control}b")), "{control:?}");
        }
        for safe in ["tab\there", "line\nend", "\u{a0}é€😀", ""] {
            assert!(!has_unsafe_control(safe), "{safe:?}");
        }
    }

    #[test]
    fn a_place_finds_its_path_below_the_root_in_the_directory() {
        let directory = Path::new("/srv/skills/team/a b/pdf");
        assert_eq!(below(0).relative(directory), Path::new(""));
        assert_eq!(below(1).relative(directory), Path::new("pdf"));
        assert_eq!(below(3).relative(directory), Path::new("team/a b/pdf"));
        // A root at `/`: every component below it.
        assert_eq!(below(2).relative(Path::new("/a/b")), Path::new("a/b"));
        // Names that are not UTF-8 are kept.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = Path::new("/r").join(std::ffi::OsStr::from_bytes(b"x\xffy"));
            assert_eq!(
                below(1).relative(&odd).as_os_str().as_bytes(),
                b"x\xffy".as_slice()
            );
        }
    }
}
