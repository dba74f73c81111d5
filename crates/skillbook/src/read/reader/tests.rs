#![allow(clippy::disallowed_methods, reason = "tests read what they wrote")]
#![allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]

use super::*;
use crate::boundary::EntryKind;
use std::fs;

use serde_json::json;
use tempfile::TempDir;

use crate::discovery::{Discovery, Home, SymlinkPolicy};

/// What every file outside the skills holds; no read may ever return it.
const SECRET: &str = "OUTSIDE-SECRET-reader";

/// `<top>/ws/.agents/skills/<relative>` with `text`.
fn write(top: &Path, relative: &str, text: &str) -> PathBuf {
    let path = top.join("ws/.agents/skills").join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

fn skill_md(name: &str, manual: bool) -> String {
    format!(
        "---\nname: {name}\ndescription: {name} skill.\ndisable-model-invocation: {manual}\n---\nBody of {name}.\n"
    )
}

/// A workspace with `pdf` (refs/guide.md), the manual-only `runbook` (notes.md), and a secret
/// outside the skills.
fn tree() -> TempDir {
    let temporary = tempfile::tempdir().unwrap();
    let top = temporary.path();
    write(top, "pdf/SKILL.md", &skill_md("pdf", false));
    write(top, "pdf/refs/guide.md", "one\ntwo\n");
    write(top, "team/runbook/SKILL.md", &skill_md("runbook", true));
    write(top, "team/runbook/notes.md", "runbook notes\n");
    fs::write(top.join("secret.md"), SECRET).unwrap();
    temporary
}

fn discover(top: &Path, symlinks: SymlinkPolicy) -> Discovered {
    Discovery::new(top.join("ws"))
        .home(Home::Off)
        .symlinks(symlinks)
        .discover()
}

fn skills_root(top: &Path) -> PathBuf {
    top.join("ws/.agents/skills")
}

/// The error code of reading `path`, or `ok`; never the secret.
fn outcome(reader: &SkillReader, path: &str) -> String {
    let reply = reader.call_json(&json!({ "path": path }));
    assert!(!reply.to_string().contains(SECRET), "{path}: {reply}");
    reply["error"].as_str().unwrap_or("ok").to_owned()
}

#[test]
fn paths_uris_and_relative_paths_name_the_same_files() {
    let temporary = tree();
    let top = temporary.path();
    let found = discover(top, SymlinkPolicy::Skip);
    let reader = SkillReader::new(&found);
    let guide = skills_root(top).join("pdf/refs/guide.md");
    let by_path = reader.call(&json!({ "path": guide })).unwrap();
    let by_uri = reader
        .call(&json!({ "path": "skill://pdf/refs/guide.md" }))
        .unwrap();
    assert_eq!(by_path.content, "one\ntwo");
    assert_eq!(by_uri.content, by_path.content);
    assert_eq!(by_path.path, guide.display().to_string());
    assert_eq!(by_uri.path, "skill://pdf/refs/guide.md");
    // The skill file gets the marker by path and by URI, with the folder as `dir`.
    let directory = skills_root(top).join("pdf").display().to_string();
    for path in [
        skills_root(top).join("pdf/SKILL.md").display().to_string(),
        "skill://pdf/SKILL.md".to_owned(),
        "SKILL://pdf/SKILL.md".to_owned(),
    ] {
        let result = reader.call(&json!({ "path": path })).unwrap();
        assert_eq!(result.skill.as_deref(), Some("pdf"), "{path}");
        assert!(
            result.content.starts_with(&format!(
                "<skill_instructions name=\"pdf\" dir=\"{directory}\">"
            )),
            "{path}: {}",
            result.content
        );
    }
    // Several skills: a relative path could mean any of them.
    assert_eq!(outcome(&reader, "refs/guide.md"), "invalid_argument");
    // One skill: relative paths resolve against its folder.
    let only = reader.only(|name, _| name == "pdf");
    assert_eq!(outcome(&only, "refs/guide.md"), "ok");
    assert_eq!(outcome(&only, "refs/../SKILL.md"), "ok");
    assert_eq!(
        outcome(&only, "../team/runbook/notes.md"),
        "outside_boundary"
    );
    // None: nothing is readable.
    let none = reader.only(|_, _| false);
    assert_eq!(outcome(&none, "SKILL.md"), "outside_boundary");
    assert_eq!(outcome(&none, "skill://pdf/SKILL.md"), "not_found");
}

#[test]
fn only_exposed_skills_are_readable_and_the_rest_reveals_nothing() {
    let temporary = tree();
    let top = temporary.path();
    let found = discover(top, SymlinkPolicy::Skip);
    let visible = SkillReader::new(&found).only(|_, model_visible| model_visible);
    let runbook = skills_root(top).join("team/runbook/notes.md");
    let secret = top.join("secret.md");
    #[rustfmt::skip]
    let cases: &[(String, &str)] = &[
        (runbook.display().to_string(),                        "outside_boundary"),
        ("skill://runbook/notes.md".to_owned(),                "not_found"),
        (secret.display().to_string(),                         "outside_boundary"),
        (top.join("missing/x.md").display().to_string(),       "outside_boundary"),
        (skills_root(top).join("pdf/missing.md").display().to_string(), "not_found"),
        (skills_root(top).join("pdf/refs").display().to_string(), "is_directory"),
        (skills_root(top).join("pdf").display().to_string(),   "is_directory"),
        ("skill://pdf/../runbook/notes.md".to_owned(),         "outside_boundary"),
        ("skill://pdf/%2e%2e/secret.md".to_owned(),            "outside_boundary"),
        ("skill://pdf/refs/%2Fguide.md".to_owned(),            "outside_boundary"),
        ("skill://pdf/refs".to_owned(),                        "is_directory"),
        ("skill://pdf".to_owned(),                             "is_directory"),
        ("/etc/passwd".to_owned(),                             "outside_boundary"),
    ];
    for (path, expected) in cases {
        assert_eq!(outcome(&visible, path), *expected, "{path}");
    }
    let long = format!(
        "{}/{}",
        skills_root(top).join("pdf").display(),
        "a/".repeat(5000)
    );
    assert_eq!(outcome(&visible, &long), "outside_boundary");
    let with_nul = visible.read(&ReadRequest::new("skill://pdf/SKILL.md\0"));
    assert_eq!(with_nul.unwrap_err().code(), "invalid_argument");
}

#[cfg(unix)]
#[test]
fn links_stay_inside_their_own_skill_folder() {
    use std::os::unix::fs::symlink;
    let temporary = tree();
    let top = temporary.path();
    let pdf = skills_root(top).join("pdf");
    fs::create_dir_all(pdf.join(".git")).unwrap();
    fs::write(pdf.join(".git/config"), SECRET).unwrap();
    fs::create_dir_all(pdf.join("node_modules/x")).unwrap();
    fs::write(pdf.join("node_modules/x/index.js"), SECRET).unwrap();
    symlink("refs/guide.md", pdf.join("inside.md")).unwrap();
    symlink("refs", pdf.join("refs-link")).unwrap();
    symlink("../team/runbook/notes.md", pdf.join("sibling.md")).unwrap();
    symlink("../team/runbook", pdf.join("sibling-dir")).unwrap();
    symlink(top.join("secret.md"), pdf.join("absolute.md")).unwrap();
    symlink("../../../../secret.md", pdf.join("up.md")).unwrap();
    symlink(".git/config", pdf.join("config.md")).unwrap();
    symlink("loop-b", pdf.join("loop-a")).unwrap();
    symlink("loop-a", pdf.join("loop-b")).unwrap();
    let found = discover(top, SymlinkPolicy::Skip);
    let reader = SkillReader::new(&found);
    let in_pdf = |relative: &str| pdf.join(relative).display().to_string();
    #[rustfmt::skip]
    let cases = [
        ("inside.md",               "ok"),
        ("refs-link/guide.md",      "ok"),
        // Into the sibling (manual-only) skill: it leaves `pdf`, even though `runbook` is
        // readable through this reader by its own path.
        ("sibling.md",              "outside_boundary"),
        ("sibling-dir/notes.md",    "outside_boundary"),
        ("absolute.md",             "outside_boundary"),
        ("up.md",                   "outside_boundary"),
        (".git/config",             "outside_boundary"),
        // Case-insensitive file systems open `.GIT` as `.git`: refused whatever the case.
        (".GIT/config",             "outside_boundary"),
        ("Node_Modules/x/index.js", "outside_boundary"),
        ("node_modules/x/index.js", "outside_boundary"),
        ("config.md",               "outside_boundary"),
        ("loop-a",                  "io"),
    ];
    for (relative, expected) in cases {
        assert_eq!(outcome(&reader, &in_pdf(relative)), expected, "{relative}");
    }
    assert_eq!(
        outcome(
            &reader,
            &skills_root(top)
                .join("team/runbook/notes.md")
                .display()
                .to_string()
        ),
        "ok"
    );
    let listed: Vec<String> = reader
        .list_directory("pdf", "")
        .unwrap()
        .into_iter()
        .map(|entry| entry.name.to_string_lossy().into_owned())
        .collect();
    assert!(
        !listed
            .iter()
            .any(|name| name == ".git" || name == "node_modules"),
        "{listed:?}"
    );
    assert!(listed.contains(&"sibling.md".to_owned()));
}

#[cfg(unix)]
#[test]
fn a_replaced_skill_folder_is_refused_until_discovered_again() {
    let temporary = tree();
    let top = temporary.path();
    let found = discover(top, SymlinkPolicy::Skip);
    let reader = SkillReader::new(&found);
    let pdf = skills_root(top).join("pdf");
    let guide = pdf.join("refs/guide.md").display().to_string();
    assert_eq!(outcome(&reader, &guide), "ok");
    // The same path, another directory: its content is not what discovery vouched for.
    fs::rename(&pdf, top.join("pdf-old")).unwrap();
    fs::create_dir_all(pdf.join("refs")).unwrap();
    fs::write(pdf.join("refs/guide.md"), "replaced\n").unwrap();
    assert_eq!(outcome(&reader, &guide), "skill_changed");
    // A link in its place is never followed.
    fs::remove_dir_all(&pdf).unwrap();
    std::os::unix::fs::symlink(top.join("pdf-old"), &pdf).unwrap();
    assert_eq!(outcome(&reader, &guide), "skill_changed");
    // The folder back in place: readable again, no rediscovery needed.
    fs::remove_file(&pdf).unwrap();
    fs::rename(top.join("pdf-old"), &pdf).unwrap();
    assert_eq!(outcome(&reader, &guide), "ok");
    // A fresh discovery vouches for a new folder.
    fs::rename(&pdf, top.join("pdf-old")).unwrap();
    write(top, "pdf/SKILL.md", &skill_md("pdf", false));
    let again = SkillReader::new(&discover(top, SymlinkPolicy::Skip));
    assert_eq!(
        outcome(&again, &pdf.join("SKILL.md").display().to_string()),
        "ok"
    );
}

#[cfg(unix)]
#[test]
fn a_followed_skill_file_link_is_that_one_file() {
    use std::os::unix::fs::symlink;
    let temporary = tree();
    let top = temporary.path();
    let elsewhere = top.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("passwd"), "root:x:0:0:root:/root:/bin/sh\n").unwrap();
    fs::write(elsewhere.join("shadow"), SECRET).unwrap();
    let linked = skills_root(top).join("linked");
    fs::create_dir_all(&linked).unwrap();
    symlink(elsewhere.join("passwd"), linked.join("SKILL.md")).unwrap();
    fs::write(linked.join("notes.md"), "notes\n").unwrap();
    let found = discover(top, SymlinkPolicy::Follow);
    let skill = found.get("linked").unwrap();
    assert_eq!(skill.location(), linked.join("SKILL.md"));
    assert_eq!(skill.directory(), linked);
    assert!(
        !found.read_roots().contains(&elsewhere),
        "{:?}",
        found.read_roots()
    );
    let reader = SkillReader::new(&found);
    let through_link = reader
        .call(&json!({ "path": linked.join("SKILL.md") }))
        .unwrap();
    assert!(through_link.content.contains("root:x:0:0"));
    assert_eq!(through_link.skill.as_deref(), Some("linked"));
    assert_eq!(
        outcome(&reader, &linked.join("notes.md").display().to_string()),
        "ok"
    );
    for path in [
        elsewhere.join("shadow"),
        elsewhere.join("passwd"),
        linked.join("../../../../elsewhere/shadow"),
    ] {
        assert_eq!(
            outcome(&reader, &path.display().to_string()),
            "outside_boundary",
            "{}",
            path.display()
        );
    }
    // Another file swapped in at the link's target is refused.
    fs::rename(elsewhere.join("shadow"), elsewhere.join("passwd")).unwrap();
    assert_eq!(
        outcome(&reader, &linked.join("SKILL.md").display().to_string()),
        "skill_changed"
    );
}

#[cfg(unix)]
#[test]
fn a_followed_directory_link_adds_exactly_that_directory() {
    use std::os::unix::fs::symlink;
    let temporary = tree();
    let top = temporary.path();
    let shared = top.join("shared");
    fs::create_dir_all(shared.join("lint")).unwrap();
    fs::write(shared.join("lint/SKILL.md"), skill_md("lint", false)).unwrap();
    fs::write(shared.join("beside.md"), SECRET).unwrap();
    symlink(shared.join("lint"), skills_root(top).join("lint")).unwrap();
    let found = discover(top, SymlinkPolicy::Follow);
    let lint = found.get("lint").unwrap();
    let target = fs::canonicalize(shared.join("lint")).unwrap();
    assert_eq!(lint.directory(), target);
    let reader = SkillReader::new(&found);
    assert_eq!(
        outcome(&reader, &target.join("SKILL.md").display().to_string()),
        "ok"
    );
    assert_eq!(outcome(&reader, "skill://lint/SKILL.md"), "ok");
    assert_eq!(
        outcome(&reader, &target.join("../beside.md").display().to_string()),
        "outside_boundary"
    );
}

/// The descriptors this process holds now.
#[cfg(target_os = "linux")]
fn open_descriptors() -> usize {
    fs::read_dir("/proc/self/fd").unwrap().count()
}

#[cfg(target_os = "linux")]
#[test]
fn a_reader_holds_one_handle_per_root_never_one_per_skill() {
    let temporary = tempfile::tempdir().unwrap();
    let top = temporary.path();
    for number in 0..300 {
        write(
            top,
            &format!("group-{}/s{number}/SKILL.md", number % 7),
            &skill_md(&format!("s{number}"), false),
        );
    }
    let found = discover(top, SymlinkPolicy::Skip);
    assert_eq!(found.skills().len(), 300);
    let before = open_descriptors();
    let reader = SkillReader::new(&found);
    for skill in found.skills() {
        let result = reader.call(&json!({ "path": skill.location() })).unwrap();
        assert_eq!(result.skill.as_deref(), Some(skill.name.as_str()));
    }
    // Other tests of this process open and close files meanwhile: allow a little slack, far
    // below one descriptor per skill.
    let held = open_descriptors().saturating_sub(before);
    assert!(
        held <= found.root_records().len() + 8,
        "{held} descriptors held for 300 skills"
    );
    drop(reader);
}

#[test]
fn skills_in_memory_are_read_listed_and_never_touch_the_disk() {
    let temporary = tree();
    let found = discover(temporary.path(), SymlinkPolicy::Skip);
    let memo = ProvidedSkill::parse("---\nname: team memo\ndescription: Memos.\n---\nBe brief.\n")
        .unwrap()
        .with_file("refs/style.md", b"Short.\n".as_slice())
        .unwrap();
    let reader = SkillReader::new(&found).with_provided([memo]);
    let result = reader
        .call(&json!({ "path": "skill://team%20memo/SKILL.md" }))
        .unwrap();
    assert_eq!(result.skill.as_deref(), Some("team memo"));
    assert!(
        result
            .content
            .starts_with("<skill_instructions name=\"team memo\" dir=\"skill://team%20memo\">")
    );
    assert_eq!(
        reader
            .call(&json!({ "path": "skill://team%20memo/refs/style.md" }))
            .unwrap()
            .content,
        "Short."
    );
    assert_eq!(outcome(&reader, "skill://team%20memo/refs"), "is_directory");
    assert_eq!(outcome(&reader, "skill://team%20memo/nope.md"), "not_found");
    let names = |relative: &str| -> Vec<(String, EntryKind)> {
        reader
            .list_directory("team memo", relative)
            .unwrap()
            .into_iter()
            .map(|entry| (entry.name.to_string_lossy().into_owned(), entry.kind))
            .collect()
    };
    assert_eq!(
        names(""),
        [
            ("SKILL.md".to_owned(), EntryKind::File),
            ("refs".to_owned(), EntryKind::Directory)
        ]
    );
    assert_eq!(names("refs"), [("style.md".to_owned(), EntryKind::File)]);
    assert!(reader.list_directory("team memo", "nope").is_err());
    assert_eq!(
        reader
            .skill_text("TEAM MEMO", 1024)
            .unwrap()
            .0
            .lines()
            .last(),
        Some("Be brief.")
    );
}

#[test]
fn skill_text_is_cut_at_the_limit_and_says_so() {
    let temporary = tree();
    let found = discover(temporary.path(), SymlinkPolicy::Skip);
    let reader = SkillReader::new(&found);
    let (whole, cut) = reader.skill_text("pdf", 1 << 20).unwrap();
    assert_eq!(
        (whole.as_str(), cut),
        (skill_md("pdf", false).as_str(), false)
    );
    let (start, cut) = reader.skill_text("PDF", 3).unwrap();
    assert_eq!((start.as_str(), cut), ("---", true));
    assert_eq!(
        reader.skill_text("nope", 10).unwrap_err().code(),
        "not_found"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn followed_links_are_opened_on_demand_never_held() {
    use std::os::unix::fs::symlink;
    let temporary = tempfile::tempdir().unwrap();
    let top = temporary.path();
    fs::create_dir_all(skills_root(top)).unwrap();
    for number in 0..120 {
        let target = top.join(format!("shared/linked-{number}"));
        fs::create_dir_all(&target).unwrap();
        fs::write(
            target.join("SKILL.md"),
            skill_md(&format!("linked-{number}"), false),
        )
        .unwrap();
        symlink(&target, skills_root(top).join(format!("linked-{number}"))).unwrap();
    }
    let found = discover(top, SymlinkPolicy::Follow);
    assert_eq!(found.skills().len(), 120);
    // Each followed link is a root of its own.
    assert!(
        found.root_records().len() > 120,
        "{}",
        found.root_records().len()
    );
    let before = open_descriptors();
    let reader = SkillReader::new(&found);
    for skill in found.skills() {
        assert_eq!(
            outcome(&reader, &skill.location().display().to_string()),
            "ok"
        );
    }
    let held = open_descriptors().saturating_sub(before);
    assert!(
        held <= 8,
        "{held} descriptors held after reading 120 linked skills"
    );
}

#[test]
fn the_skill_readers_tool_promises_only_the_skills_files() {
    let found = Discovered::default();
    let skill_tool = SkillReader::new(&found).schema();
    let text = |schema: &Value| {
        format!(
            "{} {}",
            schema["function"]["description"].as_str().unwrap(),
            schema["function"]["parameters"]["properties"]["path"]["description"]
                .as_str()
                .unwrap()
        )
    };
    let skill_text = text(&skill_tool);
    assert!(
        skill_text.contains("nothing of the workspace"),
        "{skill_text}"
    );
    assert!(
        !skill_text.contains("relative to the workspace"),
        "{skill_text}"
    );
    // The workspace boundary's tool does read the workspace, and says so.
    let workspace = tempfile::tempdir().unwrap();
    let boundary = ReadBoundary::new(workspace.path(), Vec::<PathBuf>::new()).unwrap();
    let workspace_tool = SkillReader::over_boundary(boundary, []).schema();
    assert!(text(&workspace_tool).contains("from the workspace"));
    assert_eq!(workspace_tool["function"]["name"], "read_file");
}

#[test]
fn both_kinds_of_reader_offer_the_tool_under_the_name_their_options_give() {
    let renamed = ReadOptions::default().with_tool_name("read_skill_file");
    let found = Discovered::default();
    let skills = SkillReader::new(&found).with_options(renamed.clone());
    let workspace = tempfile::tempdir().unwrap();
    let boundary = ReadBoundary::new(workspace.path(), Vec::<PathBuf>::new()).unwrap();
    let bounded = SkillReader::over_boundary(boundary, []).with_options(renamed.clone());
    for reader in [&skills, &bounded] {
        assert_eq!(reader.options(), &renamed);
        assert_eq!(reader.schema()["function"]["name"], "read_skill_file");
    }
    assert_eq!(
        ReadOptions::default(),
        ReadOptions::default()
            .with_tool_name(crate::READ_FILE)
            .with_max_file_bytes(Some(crate::DEFAULT_MAX_FILE_BYTES))
            .with_look_ahead_bytes(crate::DEFAULT_LOOK_AHEAD_BYTES)
            .with_addressing(Addressing::Paths)
    );
}

#[test]
fn a_reader_over_a_boundary_reads_the_workspace_and_marks_known_skills() {
    let temporary = tree();
    let top = temporary.path();
    fs::write(top.join("ws/notes.md"), "workspace notes\n").unwrap();
    let root = skills_root(top);
    let boundary = ReadBoundary::new(top.join("ws"), [&root]).unwrap();
    let pdf = KnownSkill::new("pdf", root.join("pdf/SKILL.md"), root.join("pdf"));
    let reader = SkillReader::over_boundary(boundary, [pdf]);
    assert_eq!(
        reader.call_json(&json!({"path": "notes.md"}))["content"],
        "workspace notes"
    );
    let skill = reader
        .call(&json!({"path": root.join("pdf/SKILL.md")}))
        .unwrap();
    assert_eq!(skill.skill.as_deref(), Some("pdf"));
    assert_eq!(outcome(&reader, "../secret.md"), "outside_boundary");
    // It names no skills of its own: a `skill://` URI finds nothing, and a lookup by name
    // neither.
    assert_eq!(outcome(&reader, "skill://pdf/SKILL.md"), "not_found");
    assert!(reader.is_empty() && !reader.contains("pdf"));
    // Skills held in memory are read by URI beside the boundary.
    let memo = ProvidedSkill::parse("---\nname: memo\ndescription: m.\n---\nMemo.\n").unwrap();
    let wider = reader.with_provided([memo]);
    assert_eq!(outcome(&wider, "skill://memo/SKILL.md"), "ok");
    assert_eq!(outcome(&wider, "notes.md"), "ok");
    // Under `SkillUris` nothing of the boundary is readable: a path is refused as such.
    let uris = reader.with_options(ReadOptions::default().with_addressing(Addressing::SkillUris));
    assert_eq!(outcome(&uris, "notes.md"), "outside_boundary");
    assert!(matches!(
        uris.open(Path::new("notes.md")),
        Err(BoundaryError::UriRequired)
    ));
}

#[test]
fn a_reader_naming_files_by_uri_never_shows_a_path_even_in_its_errors() {
    let temporary = tree();
    let top = temporary.path();
    let found = discover(top, SymlinkPolicy::Skip);
    let reader = SkillReader::new(&found)
        .with_options(ReadOptions::default().with_addressing(Addressing::SkillUris));
    let host = top.display().to_string();
    let answer = |path: &str| {
        let reply = reader.call_json(&json!({ "path": path }));
        assert!(!reply.to_string().contains(&host), "{path}: {reply}");
        reply
    };
    let skill = answer("skill://pdf/SKILL.md");
    assert!(
        skill["content"]
            .as_str()
            .unwrap()
            .contains("dir=\"skill://pdf\"")
    );
    assert_eq!(answer("skill://pdf/refs")["error"], "is_directory");
    assert!(
        answer("skill://pdf/refs")["message"]
            .as_str()
            .unwrap()
            .contains("skill://pdf/refs")
    );
    let absolute = skills_root(top).join("pdf/SKILL.md");
    assert_eq!(
        answer(&absolute.display().to_string())["error"],
        "outside_boundary"
    );
    // The folder swapped for another after discovery: refused, and named by its URI.
    let folder = skills_root(top).join("pdf");
    fs::rename(&folder, top.join("pdf-moved")).unwrap();
    fs::create_dir_all(&folder).unwrap();
    fs::write(folder.join("SKILL.md"), skill_md("pdf", false)).unwrap();
    let changed = answer("skill://pdf/refs/guide.md");
    assert_eq!(changed["error"], "skill_changed", "{changed}");
    assert!(changed["message"].as_str().unwrap().contains("skill://pdf"));
    let listing = reader
        .list_directory("pdf", "refs")
        .unwrap_err()
        .to_string();
    assert!(
        !listing.contains(&host) && listing.contains("skill://pdf"),
        "{listing}"
    );
}

/// A file named in another case, or a letter off, is not found — and the answer names the
/// file that is there (skills often say `FORMS.md` where the file is `forms.md`); a name with
/// nothing near it gets no guess. The same on disk and in memory.
#[test]
fn not_found_names_a_file_of_nearly_that_name() {
    let temporary = tree();
    let top = temporary.path();
    write(top, "pdf/forms.md", "forms\n");
    write(top, "pdf/refs/reference.md", "reference\n");
    let found = discover(top, SymlinkPolicy::Skip);
    let disk = SkillReader::new(&found);
    let memory = SkillReader::new(&Discovered::default()).with_provided([
        crate::sources::ProvidedSkill::parse(skill_md("notes", false))
            .unwrap()
            .with_file("forms.md", b"forms".as_slice())
            .unwrap()
            .with_file("refs/reference.md", b"reference".as_slice())
            .unwrap(),
    ]);
    let root = skills_root(top);
    let cases = [
        (&disk, root.join("pdf/FORMS.md"), Some("forms.md")),
        (
            &disk,
            root.join("pdf/refs/refrence.md"),
            Some("reference.md"),
        ),
        (&disk, root.join("pdf/nothing-like-it.md"), None),
        (
            &memory,
            PathBuf::from("skill://notes/Forms.md"),
            Some("forms.md"),
        ),
        (
            &memory,
            PathBuf::from("skill://notes/refs/reference.mdx"),
            Some("refs/reference.md"),
        ),
    ];
    for (reader, path, expected) in cases {
        let path = path.to_string_lossy().into_owned();
        let reply = reader.call_json(&json!({ "path": path }));
        assert_eq!(reply["error"], "not_found", "{path}: {reply}");
        let message = reply["message"].as_str().unwrap();
        match expected {
            Some(name) => assert!(
                message.contains(&format!("does not exist (did you mean `{name}`?);")),
                "{path}: {message}"
            ),
            None => assert!(!message.contains("did you mean"), "{path}: {message}"),
        }
    }
}

/// The read tool's `path` says exactly what this reader takes: URIs only under `SkillUris`;
/// paths relative to the skill's folder only when one skill is readable.
#[test]
fn the_schema_says_which_paths_the_reader_takes() {
    let temporary = tree();
    let found = discover(temporary.path(), SymlinkPolicy::Skip);
    let path_description = |reader: &SkillReader| {
        reader.schema()["function"]["parameters"]["properties"]["path"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let several = path_description(&SkillReader::new(&found));
    assert!(several.contains("relative path is ambiguous"), "{several}");
    let one = SkillReader::new(&found).only(|name, _| name.as_str() == "pdf");
    let one = path_description(&one);
    assert!(one.contains("relative to that folder"), "{one}");
    let uris = SkillReader::new(&found)
        .with_options(ReadOptions::default().with_addressing(Addressing::SkillUris));
    let uris = path_description(&uris);
    assert!(
        uris.starts_with("The file to read, as a `skill://` URI"),
        "{uris}"
    );
    // And each reader answers as its schema says.
    let one = SkillReader::new(&found).only(|name, _| name.as_str() == "pdf");
    assert_eq!(outcome(&one, "refs/guide.md"), "ok");
    assert_eq!(
        outcome(&SkillReader::new(&found), "refs/guide.md"),
        "invalid_argument"
    );
}

/// A file name with control characters is never suggested, so it never reaches a message.
#[test]
fn a_name_with_control_characters_is_never_suggested() {
    let temporary = tree();
    let top = temporary.path();
    write(top, "pdf/forms\u{1b}.md", "escape\n");
    let found = discover(top, SymlinkPolicy::Skip);
    let path = skills_root(top).join("pdf/forms.md");
    let reply = SkillReader::new(&found).call_json(&json!({ "path": path }));
    assert_eq!(reply["error"], "not_found", "{reply}");
    assert!(
        !reply["message"].as_str().unwrap().contains("did you mean"),
        "{reply}"
    );
}
