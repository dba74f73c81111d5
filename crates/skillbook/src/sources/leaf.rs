//! The leaf rule (SPEC §2.2), written once: a folder holding a skill file (`SKILL.md`, else
//! `skill.md`) is a skill, owns everything below it, and is not searched for more skills.
//!
//! Discovery applies it to each folder it walks on disk ([`skill_file`], asking the folder's
//! handle); zip archives, embedded directories and object stores apply it to flat listings of
//! `/`-separated keys ([`SkillFolders`]).

use std::collections::BTreeMap;

/// The names a skill file may have, in order of preference: `SKILL.md` wins when a folder
/// holds both.
pub const SKILL_FILE_NAMES: [&str; 2] = ["SKILL.md", "skill.md"];

/// The leaf rule for one folder: its skill file — the first of [`SKILL_FILE_NAMES`] for which
/// `holds` says the folder holds that file — or `None`, when the folder is not a skill and its
/// subfolders are searched. `holds` is asked in order of preference and no further than the
/// first `true`.
pub(crate) fn skill_file(mut holds: impl FnMut(&'static str) -> bool) -> Option<&'static str> {
    SKILL_FILE_NAMES.into_iter().find(|name| holds(name))
}

/// The skills of a flat listing — an archive's entries, an embedded directory's files, an
/// object store's keys below a prefix — by the leaf rule: each folder whose files include a
/// skill file is a skill, with that file, unless it lies inside another skill's folder (a
/// skill owns everything below it).
///
/// Keys are relative `/`-separated paths of files; a folder is named by its key prefix without
/// the trailing `/`, and `""` is the top of the listing (a listing that is a single skill).
///
/// ```
/// use skillbook::sources::SkillFolders;
///
/// let keys = [
///     "pdf/SKILL.md",
///     "pdf/forms/SKILL.md",
///     "pdf/forms/guide.md",
///     "team/notes/skill.md",
///     "README.md",
/// ];
/// let folders = SkillFolders::new(keys);
/// let skills: Vec<_> = folders.iter().collect();
/// assert_eq!(skills, [("pdf", "SKILL.md"), ("team/notes", "skill.md")]);
/// // A file belongs to the outermost skill folder above it: `pdf/forms` is not a skill.
/// assert_eq!(folders.folder_of("pdf/forms/guide.md"), Some("pdf"));
/// assert_eq!(folders.folder_of("README.md"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillFolders<'k> {
    /// Each skill folder (none inside another), with the name of its skill file.
    folders: BTreeMap<&'k str, &'static str>,
}

impl<'k> SkillFolders<'k> {
    /// The skill folders of `keys`, by the leaf rule.
    pub fn new(keys: impl IntoIterator<Item = &'k str>) -> Self {
        // The skill-file names each folder holds.
        let mut held: BTreeMap<&'k str, Vec<&'k str>> = BTreeMap::new();
        for key in keys {
            let (folder, name) = key.rsplit_once('/').unwrap_or(("", key));
            if SKILL_FILE_NAMES.contains(&name) {
                held.entry(folder).or_default().push(name);
            }
        }
        let skills: BTreeMap<&'k str, &'static str> = held
            .into_iter()
            .filter_map(|(folder, names)| Some((folder, skill_file(|name| names.contains(&name))?)))
            .collect();
        let mut folders = skills.clone();
        folders.retain(|folder, _| outer_folder(folder, &skills).is_none());
        SkillFolders { folders }
    }

    /// Each skill folder with the name of its skill file, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&'k str, &'static str)> + '_ {
        self.folders.iter().map(|(folder, file)| (*folder, *file))
    }

    /// How many skills the listing holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.folders.len()
    }

    /// Whether the listing holds no skill.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.folders.is_empty()
    }

    /// The skill folder the file `key` belongs to — the one folder above it that is a skill —
    /// or `None` when it lies in no skill (nothing serves it).
    #[must_use]
    pub fn folder_of(&self, key: &str) -> Option<&'k str> {
        outer_folder(key, &self.folders)
    }
}

/// The first (outermost) of `folders` strictly above `key`: `""` first, then each key prefix
/// ending before a `/`.
fn outer_folder<'k>(key: &str, folders: &BTreeMap<&'k str, &'static str>) -> Option<&'k str> {
    if !key.is_empty()
        && let Some((folder, _)) = folders.get_key_value("")
    {
        return Some(*folder);
    }
    key.match_indices('/')
        .find_map(|(end, _)| folders.get_key_value(&key[..end]))
        .map(|(folder, _)| *folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_a_skill_by_its_preferred_skill_file() {
        assert_eq!(skill_file(|name| name == "skill.md"), Some("skill.md"));
        assert_eq!(skill_file(|_| true), Some("SKILL.md"));
        assert_eq!(skill_file(|name| name == "Skill.md"), None);
        // Asked in order, and no further than the first it holds.
        let mut asked = Vec::new();
        skill_file(|name| {
            asked.push(name);
            true
        });
        assert_eq!(asked, ["SKILL.md"]);
    }

    #[test]
    fn a_listing_has_its_outermost_skill_folders() {
        let keys = [
            "a/SKILL.md",
            "a/skill.md",
            "a/b/SKILL.md",
            "a/b/c.md",
            "ab/skill.md",
            "a b/SKILL.md",
            "x/y/z/SKILL.md",
            "x/Skill.md",
            "loose.md",
        ];
        let folders = SkillFolders::new(keys);
        let skills: Vec<_> = folders.iter().collect();
        assert_eq!(
            skills,
            [
                ("a", "SKILL.md"),
                ("a b", "SKILL.md"),
                ("ab", "skill.md"),
                ("x/y/z", "SKILL.md")
            ]
        );
        assert_eq!(folders.len(), 4);
        for (key, folder) in [
            ("a/SKILL.md", Some("a")),
            ("a/b/c.md", Some("a")),
            ("ab/skill.md", Some("ab")),
            ("a b/x", Some("a b")),
            ("x/y/z/deeper/file", Some("x/y/z")),
            ("x/y/file", None),
            ("x/Skill.md", None),
            ("a", None),
            ("loose.md", None),
        ] {
            assert_eq!(folders.folder_of(key), folder, "{key}");
        }
    }

    #[test]
    fn a_listing_that_is_one_skill_owns_every_file() {
        let folders = SkillFolders::new(["SKILL.md", "refs/SKILL.md", "refs/a.md"]);
        assert_eq!(folders.iter().collect::<Vec<_>>(), [("", "SKILL.md")]);
        assert_eq!(folders.folder_of("refs/a.md"), Some(""));
        assert_eq!(folders.folder_of("SKILL.md"), Some(""));
        assert!(SkillFolders::new(["a.md", "b/c.md"]).is_empty());
    }
}
