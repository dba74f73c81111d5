//! Arbitrary strings as the `path` of a `read_file` call over a small tree: no call may panic,
//! and none may return the content of the file outside the roots.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skillbook::boundary::ReadBoundary;
use skillbook::read::{ReadFile, ReadRequest};

const MARKER: &str = "OUTSIDE-SECRET-fuzz";

struct Tree {
    _directory: tempfile::TempDir,
    normal: ReadBoundary,
    restricted: ReadBoundary,
}

fn build() -> std::io::Result<Tree> {
    let directory = tempfile::tempdir()?;
    let top = directory.path();
    let skill = top.join("skills/pdf");
    std::fs::create_dir_all(&skill)?;
    std::fs::create_dir_all(top.join("ws"))?;
    std::fs::create_dir_all(top.join("outside"))?;
    std::fs::write(skill.join("SKILL.md"), "# PDF\r\n\nline\rline\n")?;
    std::fs::write(top.join("ws/notes.md"), "notes\n")?;
    std::fs::write(top.join("outside/secret.md"), MARKER)?;
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("../../outside", skill.join("out"))?;
        std::os::unix::fs::symlink("SKILL.md", skill.join("in"))?;
    }
    let skills: PathBuf = top.join("skills");
    let invalid = |error| std::io::Error::other(error);
    Ok(Tree {
        normal: ReadBoundary::new(top.join("ws"), [&skills]).map_err(invalid)?,
        restricted: ReadBoundary::restricted([&skills]).map_err(invalid)?,
        _directory: directory,
    })
}

static TREE: OnceLock<Option<Tree>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Some(tree) = TREE.get_or_init(|| build().ok()) else {
        return;
    };
    let request = ReadRequest::new(String::from_utf8_lossy(data).into_owned());
    for boundary in [&tree.normal, &tree.restricted] {
        match ReadFile::new(boundary).read(&request) {
            Ok(result) => assert!(!result.content.contains(MARKER)),
            Err(error) => assert!(!error.to_string().contains(MARKER)),
        }
    }
});
