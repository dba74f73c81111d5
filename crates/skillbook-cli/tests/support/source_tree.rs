//! Files of a skill source written by the package tests: a file with its folders, and a skill.

use std::fs;
use std::path::Path;

/// Writes `<root>/<path>` (and its folders).
pub fn write(root: &Path, path: &str, content: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// Writes `<root>/<folder>/SKILL.md` for the skill `name`, with `extra` front matter lines.
pub fn skill(root: &Path, folder: &str, name: &str, extra: &str) {
    write(
        root,
        &format!("{folder}/SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {name} skill.\n{extra}---\n# Steps\n"),
    );
}
