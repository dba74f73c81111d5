//! Skills compiled into the binary with `include_dir`.

use std::collections::BTreeMap;
use std::sync::Arc;

use include_dir::Dir;

use super::{Origin, ProvidedSkill, SourceError, relative_path, tree};

/// Every skill in a directory embedded with [`include_dir::include_dir!`], in path order.
///
/// The directory may itself be a skill or hold skills at any depth (the leaf rule applies).
///
/// # Errors
///
/// A skill at the top of the directory without a usable name or heading (one in a folder takes
/// the folder's name when it has no other, as on disk), or a file name that is not a safe
/// relative path.
pub fn from_embedded(directory: &Dir<'_>) -> Result<Vec<ProvidedSkill>, SourceError> {
    let mut files = BTreeMap::new();
    collect(directory, directory, &mut files)?;
    tree::skills_from_files(files, Origin::Embedded)
}

fn collect(
    root: &Dir<'_>,
    directory: &Dir<'_>,
    files: &mut BTreeMap<String, Arc<[u8]>>,
) -> Result<(), SourceError> {
    for file in directory.files() {
        let relative = file
            .path()
            .strip_prefix(root.path())
            .unwrap_or(file.path())
            .to_string_lossy()
            .replace(std::path::MAIN_SEPARATOR, "/");
        let relative = relative_path(&relative).map_err(|reason| SourceError::ArchiveEntry {
            entry: relative.clone(),
            reason: reason.to_owned(),
        })?;
        files.insert(relative, Arc::from(file.contents()));
    }
    for child in directory.dirs() {
        collect(root, child, files)?;
    }
    Ok(())
}
