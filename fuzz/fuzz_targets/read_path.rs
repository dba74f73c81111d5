//! Arbitrary strings as the `path` of a `read_file` call over a small tree, through the
//! `SkillReader` built both ways: over a normal and a restricted `ReadBoundary`, and from a
//! discovery, exposing every skill or only one. No call may panic, and none may show the content
//! of a file its reader must not reach.
//!
//! The tree, built once in a temporary directory `<top>` (the names are in `read_path.dict`):
//!
//! ```text
//! <top>/ws/notes.md                  WORKSPACE marker     the workspace of the normal boundary
//! <top>/ws/leak -> ../outside        link out of the workspace
//! <top>/ws/skills -> ../skills       link from the workspace into the skill root
//! <top>/skills/pdf/SKILL.md          the skill `pdf`
//! <top>/skills/pdf/reference.md
//! <top>/skills/pdf/.git/config       GIT marker           never served by the skill reader
//! <top>/skills/pdf/in -> SKILL.md    link inside the skill
//! <top>/skills/pdf/out -> ../../outside
//! <top>/skills/pdf/secret -> ../../outside/secret.md
//! <top>/skills/pdf/absolute -> <top>/outside/secret.md
//! <top>/skills/pdf/up -> ..          link to the skill root, out of the skill
//! <top>/skills/pdf/sibling -> ../hidden/SKILL.md
//! <top>/skills/pdf/loop -> loop
//! <top>/skills/hidden/SKILL.md       HIDDEN marker        the skill `hidden`
//! <top>/skills/pdf-old/secret.md     LOOSE marker         in the skill root, in no skill
//! <top>/skills-old/secret.md         OUTSIDE marker       shares the skill root's prefix
//! <top>/outside/secret.md            OUTSIDE marker
//! ```
//!
//! Absolute paths are reachable too: every `{top}` in the input is replaced by `<top>` before
//! the read, so `{top}/outside/secret.md` names the real file.
//!
//! Properties (each a panic when broken): no read panics; no error message shows any marker;
//! a successful read never shows a marker its reader must not reach (in an error, a marker the
//! path itself holds does not count: an error may quote the path):
//!
//! | reader                                        | must never show                        |
//! | --------------------------------------------- | -------------------------------------- |
//! | `SkillReader`, normal boundary (ws, skills)   | OUTSIDE                                |
//! | `SkillReader`, restricted boundary (skills)   | OUTSIDE, WORKSPACE                     |
//! | `SkillReader`, discovery, both skills         | OUTSIDE, WORKSPACE, LOOSE, GIT         |
//! | `SkillReader`, discovery, `pdf` only          | OUTSIDE, WORKSPACE, LOOSE, GIT, HIDDEN |
#![no_main]

use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skillbook::ReadBoundary;
use skillbook::ReadRequest;
use skillbook::{Discovery, Home, ReadError, ReadResult, SkillReader};

/// The placeholder the input uses for the tree's absolute path.
const TOP: &str = "{top}";

const OUTSIDE: &str = "OUTSIDE-SECRET-fuzz";
const WORKSPACE: &str = "WORKSPACE-NOTES-fuzz";
const LOOSE: &str = "LOOSE-FILE-fuzz";
const GIT: &str = "GIT-CONFIG-fuzz";
const HIDDEN: &str = "HIDDEN-SKILL-fuzz";
const MARKERS: [&str; 5] = [OUTSIDE, WORKSPACE, LOOSE, GIT, HIDDEN];

struct Tree {
    directory: tempfile::TempDir,
    normal: SkillReader,
    restricted: SkillReader,
    every_skill: SkillReader,
    pdf_only: SkillReader,
}

fn write(path: &Path, contents: &str) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .unwrap_or_else(|error| panic!("fuzz harness: cannot create {parent:?}: {error}"));
    }
    fs::write(path, contents)
        .unwrap_or_else(|error| panic!("fuzz harness: cannot write {path:?}: {error}"));
}

#[cfg(unix)]
fn link(target: impl AsRef<Path>, at: &Path) {
    std::os::unix::fs::symlink(target.as_ref(), at)
        .unwrap_or_else(|error| panic!("fuzz harness: cannot link {at:?}: {error}"));
}

fn build() -> Tree {
    let directory = tempfile::tempdir().expect("fuzz harness: no temporary directory");
    let top = directory.path();
    let skills = top.join("skills");
    let pdf = skills.join("pdf");
    write(&top.join("ws/notes.md"), &format!("{WORKSPACE}\n"));
    write(
        &pdf.join("SKILL.md"),
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\r\n\nline\rline\n",
    );
    write(&pdf.join("reference.md"), "reference\n");
    write(&pdf.join(".git/config"), GIT);
    write(
        &skills.join("hidden/SKILL.md"),
        &format!("---\nname: hidden\ndescription: Not for the pdf-only reader.\n---\n{HIDDEN}\n"),
    );
    write(&skills.join("pdf-old/secret.md"), LOOSE);
    write(&top.join("skills-old/secret.md"), OUTSIDE);
    write(&top.join("outside/secret.md"), OUTSIDE);
    #[cfg(unix)]
    {
        link("../outside", &top.join("ws/leak"));
        link("../skills", &top.join("ws/skills"));
        link("SKILL.md", &pdf.join("in"));
        link("../../outside", &pdf.join("out"));
        link("../../outside/secret.md", &pdf.join("secret"));
        link(top.join("outside/secret.md"), &pdf.join("absolute"));
        link("..", &pdf.join("up"));
        link("../hidden/SKILL.md", &pdf.join("sibling"));
        link("loop", &pdf.join("loop"));
    }

    let found = Discovery::new(top.join("ws"))
        .home(Home::Off)
        .namespaces(Vec::<String>::new())
        .extra_root(&skills)
        .discover();
    let every_skill = SkillReader::new(&found);
    assert!(
        every_skill.names().count() == 2
            && every_skill.contains("pdf")
            && every_skill.contains("hidden"),
        "fuzz harness: discovery found {found:?}"
    );
    let pdf_only = every_skill.only(|name, _| name.as_str() == "pdf");

    let normal = ReadBoundary::new(top.join("ws"), [&skills])
        .unwrap_or_else(|error| panic!("fuzz harness: no normal boundary: {error}"));
    let restricted = ReadBoundary::restricted([&skills])
        .unwrap_or_else(|error| panic!("fuzz harness: no restricted boundary: {error}"));
    let normal = SkillReader::over_boundary(normal, []);
    let restricted = SkillReader::over_boundary(restricted, []);
    Tree {
        normal,
        restricted,
        every_skill,
        pdf_only,
        directory,
    }
}

static TREE: OnceLock<Tree> = OnceLock::new();

/// Checks one read: `forbidden` markers never in the content, no marker in an error message
/// (an error may quote the path, so there a marker the path itself holds does not count).
fn check(
    reader: &str,
    request: &ReadRequest,
    outcome: Result<ReadResult, ReadError>,
    forbidden: &[&str],
) {
    let path = request.path.to_string_lossy();
    match outcome {
        Ok(result) => {
            for marker in forbidden {
                assert!(
                    !result.content.contains(marker),
                    "{reader} showed {marker}: {request:?} -> {result:?}"
                );
            }
        }
        Err(error) => {
            let message = error.to_string();
            for marker in MARKERS {
                assert!(
                    !message.contains(marker) || path.contains(marker),
                    "{reader} error shows {marker}: {request:?} -> {message}"
                );
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let tree = TREE.get_or_init(build);
    let text = String::from_utf8_lossy(data);
    let path = text.replace(TOP, &tree.directory.path().to_string_lossy());
    let request = ReadRequest::new(path);
    check(
        "SkillReader (normal boundary)",
        &request,
        tree.normal.read(&request),
        &[OUTSIDE],
    );
    check(
        "SkillReader (restricted boundary)",
        &request,
        tree.restricted.read(&request),
        &[OUTSIDE, WORKSPACE],
    );
    check(
        "SkillReader (every skill)",
        &request,
        tree.every_skill.read(&request),
        &[OUTSIDE, WORKSPACE, LOOSE, GIT],
    );
    check(
        "SkillReader (pdf only)",
        &request,
        tree.pdf_only.read(&request),
        &[OUTSIDE, WORKSPACE, LOOSE, GIT, HIDDEN],
    );
});
