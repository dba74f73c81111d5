//! Turning a flat list of files (an embedded directory, a zip archive, an object store's keys)
//! into skills, by discovery's leaf rule ([`SkillFolders`]): a folder holding `SKILL.md` (or
//! `skill.md`) is a skill and owns everything below it.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Origin, ProvidedSkill, SkillFolders, SourceError};

/// Groups `files` (relative `/`-separated paths, already validated) into skills, in path order;
/// the first skill that cannot be made fails them all.
#[cfg(any(feature = "embed", feature = "zip"))]
pub(super) fn skills_from_files(
    files: BTreeMap<String, Arc<[u8]>>,
    origin: Origin,
) -> Result<Vec<ProvidedSkill>, SourceError> {
    each_skill(&files, origin).map(|(_, skill)| skill).collect()
}

/// Each skill folder of `files` (relative `/`-separated paths, already validated), in path
/// order, with its skill or why it is not one.
pub(super) fn each_skill(
    files: &BTreeMap<String, Arc<[u8]>>,
    origin: Origin,
) -> impl Iterator<Item = (String, Result<ProvidedSkill, SourceError>)> {
    let folders = SkillFolders::new(files.keys().map(String::as_str));
    let skills: Vec<(&str, &str)> = folders.iter().collect();
    skills.into_iter().filter_map(move |(folder, name)| {
        let skill_file = match folder {
            "" => name.to_owned(),
            _ => format!("{folder}/{name}"),
        };
        let text = files.get(&skill_file)?;
        let skill = skill_in(files, folder, &skill_file, text, origin);
        Some((folder.to_owned(), skill))
    })
}

/// The skill in `folder`, with every file below it.
fn skill_in(
    files: &BTreeMap<String, Arc<[u8]>>,
    folder: &str,
    skill_file: &str,
    text: &[u8],
    origin: Origin,
) -> Result<ProvidedSkill, SourceError> {
    // The folder's own name; a skill at the top has none.
    let folder_name = folder.rsplit('/').next().filter(|name| !name.is_empty());
    let text = String::from_utf8_lossy(text).into_owned();
    let mut skill = ProvidedSkill::parse_in(text, skill_file, folder_name, origin)?;
    let prefix = if folder.is_empty() {
        String::new()
    } else {
        format!("{folder}/")
    };
    for (path, contents) in files.range(prefix.clone()..) {
        let Some(relative) = path.strip_prefix(&prefix) else {
            break;
        };
        if path != skill_file {
            skill = skill.with_file(relative, Arc::clone(contents))?;
        }
    }
    Ok(skill.with_origin(origin))
}
