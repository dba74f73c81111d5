//! Turning a flat list of files (an embedded directory, a zip archive) into skills, with the
//! same leaf rule as discovery: a folder holding `SKILL.md` (or `skill.md`) is a skill and owns
//! everything below it.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Origin, ProvidedSkill, SourceError};

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
    skill_folders(files)
        .into_iter()
        .filter_map(move |(folder, skill_file)| {
            let text = files.get(&skill_file)?;
            let skill = skill_in(files, &folder, &skill_file, text, origin);
            Some((folder, skill))
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
    let fallback = folder.rsplit('/').next().filter(|name| !name.is_empty());
    let text = String::from_utf8_lossy(text).into_owned();
    let mut skill = ProvidedSkill::parse_with_fallback_name(text, fallback, origin)?;
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

/// `(folder, skill file)` for each skill folder that no other skill folder contains.
fn skill_folders(files: &BTreeMap<String, Arc<[u8]>>) -> Vec<(String, String)> {
    let mut folders: BTreeMap<String, String> = BTreeMap::new();
    for path in files.keys() {
        let (folder, name) = match path.rsplit_once('/') {
            Some((folder, name)) => (folder, name),
            None => ("", path.as_str()),
        };
        match name {
            "SKILL.md" => {
                folders.insert(folder.to_owned(), path.clone());
            }
            "skill.md" => {
                folders
                    .entry(folder.to_owned())
                    .or_insert_with(|| path.clone());
            }
            _ => {}
        }
    }
    let mut leaves: Vec<(String, String)> = Vec::new();
    for (folder, file) in folders {
        let inside_earlier = leaves
            .iter()
            .any(|(outer, _)| outer.is_empty() || folder.starts_with(&format!("{outer}/")));
        if !inside_earlier {
            leaves.push((folder, file));
        }
    }
    leaves
}
