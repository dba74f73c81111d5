//! Files of a skill source written by the package tests: a file with its folders, a skill, and
//! an edit that keeps a file's size and times.
#![allow(dead_code, reason = "each test file uses a part of it")]

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

/// Rewrites a file with content of the same size (the case of its last letter before the final
/// line break toggled) and puts its modification time back.
pub fn edit_keeping_size_and_times(path: &Path) {
    let before = fs::metadata(path).unwrap();
    let modified = before.modified().unwrap();
    let mut content = fs::read(path).unwrap();
    let last = content.len() - 2;
    content[last] ^= 0x20;
    fs::write(path, &content).unwrap();
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(modified).unwrap();
    assert_eq!(fs::metadata(path).unwrap().len(), before.len());
    assert_eq!(fs::metadata(path).unwrap().modified().unwrap(), modified);
}
