use super::*;
use crate::diagnostic::DiagnosticCode;
use std::fs;

use tempfile::TempDir;

/// Writes `<root>/<relative>/SKILL.md` with the given front matter lines and a small body.
fn skill(root: &Path, relative: &str, front_matter: &str) -> PathBuf {
    let directory = root.join(relative);
    fs::create_dir_all(&directory).unwrap();
    let file = directory.join("SKILL.md");
    fs::write(&file, format!("---\n{front_matter}\n---\n# Body\n")).unwrap();
    file
}

fn named(root: &Path, relative: &str, name: &str) -> PathBuf {
    skill(
        root,
        relative,
        &format!("name: {name}\ndescription: {name} skill"),
    )
}

fn workspace() -> TempDir {
    tempfile::tempdir().unwrap()
}

fn discover(workspace: &Path) -> Discovered {
    Discovery::new(workspace).home(Home::Off).discover()
}

fn names(found: &Discovered) -> Vec<&str> {
    found
        .skills
        .iter()
        .map(|skill| skill.name.as_str())
        .collect()
}

fn codes(found: &Discovered) -> Vec<&'static str> {
    found
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.code.as_str())
        .collect()
}

#[test]
fn nested_skills_come_out_in_path_order_and_repeat_equal() {
    let workspace = workspace();
    let root = workspace.path().join(".skillbook/skills");
    named(&root, "team-b/zeta", "zeta");
    named(&root, "team-a/deep/er/alpha", "alpha");
    named(&root, "team-a/beta", "beta");
    named(&root, "team-a-b/gamma", "gamma");
    let first = discover(workspace.path());
    assert_eq!(names(&first), ["beta", "alpha", "gamma", "zeta"]);
    assert_eq!(first, discover(workspace.path()));
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
}

#[test]
fn agents_namespace_is_found_after_skillbook() {
    let workspace = workspace();
    named(&workspace.path().join(".agents/skills"), "a", "from-agents");
    named(
        &workspace.path().join(".skillbook/skills"),
        "z",
        "from-skillbook",
    );
    assert_eq!(
        names(&discover(workspace.path())),
        ["from-skillbook", "from-agents"]
    );
}

#[test]
fn namespaces_are_configurable() {
    let workspace = workspace();
    named(
        &workspace.path().join(".claude/skills"),
        "a",
        "claude-skill",
    );
    named(
        &workspace.path().join(".agents/skills"),
        "b",
        "agents-skill",
    );
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .namespaces([".claude"])
        .discover();
    assert_eq!(names(&found), ["claude-skill"]);
}

#[test]
fn home_skills_appear_only_when_home_is_on() {
    let workspace = workspace();
    let home = tempfile::tempdir().unwrap();
    named(&home.path().join(".agents/skills"), "mine", "personal");
    named(&workspace.path().join(".agents/skills"), "repo", "project");
    let with_home = Discovery::new(workspace.path())
        .home(Home::Path(home.path().to_path_buf()))
        .discover();
    assert_eq!(names(&with_home), ["project", "personal"]);
    assert_eq!(with_home.skills[0].source, Source::Workspace);
    assert_eq!(with_home.skills[1].source, Source::Global);
    assert_eq!(names(&discover(workspace.path())), ["project"]);
}

#[test]
fn relative_extra_roots_resolve_against_the_workspace() {
    let workspace = workspace();
    named(&workspace.path().join("team/skills"), "shared", "shared");
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .extra_root("team/../team/skills")
        .discover();
    assert_eq!(names(&found), ["shared"]);
    assert_eq!(found.skills[0].source, Source::Workspace);
    assert_eq!(found.read_roots, [workspace.path().join("team/skills")]);
}

#[test]
fn extra_roots_outside_the_workspace_are_global_and_come_last() {
    let workspace = workspace();
    let outside = tempfile::tempdir().unwrap();
    named(outside.path(), "x", "outside");
    named(&workspace.path().join(".agents/skills"), "y", "inside");
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .extra_root(outside.path())
        .discover();
    assert_eq!(names(&found), ["inside", "outside"]);
    assert_eq!(found.skills[1].source, Source::Global);
}

#[test]
fn missing_default_roots_are_skipped_silently() {
    let workspace = workspace();
    fs::create_dir_all(workspace.path().join(".skillbook")).unwrap();
    let found = discover(workspace.path());
    assert_eq!(found, Discovered::default());
}

#[test]
fn extra_roots_that_are_missing_or_files_are_reported() {
    let workspace = workspace();
    fs::write(workspace.path().join("not-a-dir"), "x").unwrap();
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .extra_roots(["missing", "not-a-dir"])
        .discover();
    assert!(found.skills.is_empty());
    let reported: Vec<(&str, &Path, &str)> = found
        .diagnostics
        .iter()
        .map(|diagnostic| {
            (
                diagnostic.code.as_str(),
                diagnostic.path.as_path(),
                diagnostic.message.as_str(),
            )
        })
        .collect();
    let missing = workspace.path().join("missing");
    let file = workspace.path().join("not-a-dir");
    assert_eq!(
        reported,
        [
            (
                "extra_root_missing",
                missing.as_path(),
                "this extra skills root does not exist; check the path (`--extra` on the command line)"
            ),
            (
                "extra_root_missing",
                file.as_path(),
                "this extra skills root is not a directory; check the path (`--extra` on the command line)"
            ),
        ]
    );
    assert!(
        found
            .diagnostics
            .iter()
            .all(|diagnostic| diagnostic.severity == Severity::Warning)
    );
}

#[test]
fn read_roots_list_existing_roots_even_when_empty() {
    let workspace = workspace();
    fs::create_dir_all(workspace.path().join(".agents/skills")).unwrap();
    let found = discover(workspace.path());
    assert!(found.skills.is_empty());
    assert_eq!(found.read_roots, [workspace.path().join(".agents/skills")]);
}

#[test]
fn a_root_that_is_a_skill_is_the_only_skill_of_that_root() {
    let workspace = workspace();
    let root = workspace.path().join("single");
    named(&root, "", "single");
    named(&root, "nested", "nested");
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .extra_root("single")
        .discover();
    assert_eq!(names(&found), ["single"]);
    assert_eq!(found.skills[0].directory(), root);
}

#[test]
fn a_skill_file_below_a_skill_directory_is_not_a_skill() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    named(&root, "outer", "outer");
    named(&root, "outer/references/inner", "inner");
    assert_eq!(names(&discover(workspace.path())), ["outer"]);
}

#[test]
fn upper_case_skill_file_wins_over_lower_case() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/both");
    fs::create_dir_all(&directory).unwrap();
    fs::write(directory.join("skill.md"), "---\nname: lower\n---\n").unwrap();
    fs::write(directory.join("SKILL.md"), "---\nname: upper\n---\n").unwrap();
    let only_lower = workspace.path().join(".agents/skills/lower-only");
    fs::create_dir_all(&only_lower).unwrap();
    fs::write(only_lower.join("skill.md"), "---\nname: lower-only\n---\n").unwrap();
    let found = discover(workspace.path());
    if found.skills.len() == 2 && names(&found)[0] == "upper" {
        assert_eq!(names(&found), ["upper", "lower-only"]);
    } else {
        // A case-insensitive file system holds only one of the two files.
        assert_eq!(found.skills.len(), 2);
    }
}

#[test]
fn git_and_node_modules_are_not_searched_but_other_hidden_folders_are() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    named(&root, ".git/hooks", "in-git");
    named(&root, "node_modules/pkg", "in-node-modules");
    named(&root, ".system/builtin", "hidden-ok");
    assert_eq!(names(&discover(workspace.path())), ["hidden-ok"]);
}

#[test]
fn names_differing_only_in_case_give_one_skill_and_a_shadowed_warning() {
    let workspace = workspace();
    let first = named(&workspace.path().join(".skillbook/skills"), "a", "review");
    let second = named(&workspace.path().join(".agents/skills"), "b", " REVIEW ");
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["review"]);
    assert_eq!(found.skills[0].location(), first);
    // The folders `a` and `b` do not match the names, and ` REVIEW ` is not lower case: the
    // lenient format rules warn about both skills before the duplicate is resolved.
    assert_eq!(
        codes(&found),
        [
            "name_directory_mismatch",
            "name_not_lowercase",
            "name_directory_mismatch",
            "shadowed"
        ]
    );
    let diagnostic = &found.diagnostics[3];
    assert_eq!(diagnostic.path, second);
    assert_eq!(diagnostic.severity, Severity::Warning);
    assert!(diagnostic.message.contains(&first.display().to_string()));
}

#[test]
fn strict_duplicates_are_errors() {
    let workspace = workspace();
    named(&workspace.path().join(".skillbook/skills"), "a", "review");
    named(&workspace.path().join(".agents/skills"), "b", "Review");
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .duplicates(DuplicatePolicy::Reject)
        .discover();
    assert_eq!(
        codes(&found),
        [
            "name_directory_mismatch",
            "name_not_lowercase",
            "name_directory_mismatch",
            "duplicate_name"
        ]
    );
    assert!(found.has_errors());
}

#[test]
fn overlapping_roots_count_a_skill_once_silently() {
    let workspace = workspace();
    let root = workspace.path().join("r");
    named(&root, "shared/one", "one");
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .extra_roots(["r", "r/shared", "r"])
        .discover();
    assert_eq!(names(&found), ["one"]);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.read_roots, [root.clone(), root.join("shared")]);
}

#[test]
fn a_hard_link_to_the_same_file_is_one_skill() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let original = named(&root, "a", "linked");
    fs::create_dir_all(root.join("b")).unwrap();
    fs::hard_link(&original, root.join("b/SKILL.md")).unwrap();
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["linked"]);
    // Found once, through folder `a`, whose name differs from `linked`.
    assert_eq!(codes(&found), ["name_directory_mismatch"]);
    assert_eq!(found.diagnostics[0].path, original);
}

#[test]
fn heading_only_skill_takes_name_and_description_from_the_body() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/folder-name");
    fs::create_dir_all(&directory).unwrap();
    fs::write(
        directory.join("SKILL.md"),
        "# reviewer\nChecks pull requests.\n",
    )
    .unwrap();
    let found = discover(workspace.path());
    assert_eq!(found.skills[0].name, "reviewer");
    assert_eq!(found.skills[0].description, "Checks pull requests.");
}

#[test]
fn empty_skill_file_falls_back_to_directory_name_and_default_description() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/empty-one");
    fs::create_dir_all(&directory).unwrap();
    fs::write(directory.join("SKILL.md"), "").unwrap();
    let found = discover(workspace.path());
    assert_eq!(found.skills[0].name, "empty-one");
    assert_eq!(found.skills[0].description, crate::DEFAULT_DESCRIPTION);
}

#[test]
fn manual_only_skills_are_discovered_with_their_flag() {
    let workspace = workspace();
    skill(
        &workspace.path().join(".agents/skills"),
        "manual",
        "name: manual\ndescription: d\ndisable-model-invocation: true",
    );
    let found = discover(workspace.path());
    assert!(found.skills[0].disable_model_invocation);
}

#[test]
fn broken_yaml_keeps_the_skill_and_reports_it() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let broken = skill(&root, "broken", "name: broken\ndescription: [oops");
    named(&root, "fine", "fine");
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["broken", "fine"]);
    assert_eq!(codes(&found), ["invalid_yaml"]);
    assert_eq!(found.diagnostics[0].path, broken);
}

#[test]
fn oversized_skill_file_is_reported_and_read_up_to_the_limit() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/big");
    fs::create_dir_all(&directory).unwrap();
    let mut text = String::from("# big\n");
    text.push_str(&"x".repeat(4096));
    fs::write(directory.join("SKILL.md"), text).unwrap();
    let limits = Limits {
        max_file_bytes: 1024,
        ..Limits::default()
    };
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .limits(limits)
        .discover();
    assert_eq!(names(&found), ["big"]);
    assert_eq!(found.skills[0].description.len(), 1024 - "# big\n".len());
    assert_eq!(codes(&found), ["file_too_large", "missing_front_matter"]);
}

#[test]
fn a_one_gibibyte_skill_file_is_read_only_up_to_the_limit() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/huge");
    fs::create_dir_all(&directory).unwrap();
    let file = fs::File::create(directory.join("SKILL.md")).unwrap();
    // Sparse: 1 GiB of zero bytes that take no room on disk.
    file.set_len(1 << 30).unwrap();
    named(&workspace.path().join(".agents/skills"), "fine", "fine");
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["fine", "huge"]);
    let codes = codes(&found);
    assert!(codes.contains(&"file_too_large"), "{codes:?}");
}

#[test]
fn a_binary_skill_file_keeps_its_folder_name_and_is_reported() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/blob");
    fs::create_dir_all(&directory).unwrap();
    fs::write(
        directory.join("SKILL.md"),
        [0xff_u8, 0xfe, 0, 1, 2, 0x80, b'\n', 0xc3],
    )
    .unwrap();
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["blob"]);
    assert!(codes(&found).contains(&"invalid_utf8"));
}

#[test]
fn invalid_utf8_is_replaced_and_reported() {
    let workspace = workspace();
    let directory = workspace.path().join(".agents/skills/latin1");
    fs::create_dir_all(&directory).unwrap();
    fs::write(
        directory.join("SKILL.md"),
        b"---\nname: latin1\ndescription: caf\xe9\n---\n",
    )
    .unwrap();
    let found = discover(workspace.path());
    assert_eq!(found.skills[0].description, "caf\u{fffd}");
    assert_eq!(codes(&found), ["invalid_utf8"]);
    assert_eq!(found.diagnostics[0].line, Some(3));
}

#[test]
fn depth_limit_is_reported() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    named(&root, "a/b/c/d", "deep");
    named(&root, "a/shallow", "shallow");
    let limits = Limits {
        max_depth: 2,
        ..Limits::default()
    };
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .limits(limits)
        .discover();
    assert_eq!(names(&found), ["shallow"]);
    assert_eq!(codes(&found), ["depth_limit"]);
    assert_eq!(found.diagnostics[0].path, root.join("a/b/c"));
}

#[test]
fn directory_limit_is_reported() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    for name in ["a", "b", "c", "d"] {
        named(&root, name, name);
    }
    let limits = Limits {
        max_directories: 3,
        ..Limits::default()
    };
    let found = Discovery::new(workspace.path())
        .home(Home::Off)
        .limits(limits)
        .discover();
    assert_eq!(names(&found), ["a", "b"]);
    assert_eq!(codes(&found), ["directory_limit"]);
}

// An unreadable directory is tested in the CLI tests, as an unprivileged user: permissions do
// not stop root, which runs these tests in CI.
mod admission;
mod as_written;

#[cfg(unix)]
mod client_folders;

#[cfg(unix)]
mod unix;

/// What parsing the whole file gives.
#[expect(
    clippy::disallowed_methods,
    reason = "the test reads its own fixture, to compare"
)]
fn whole_document(path: &Path) -> crate::frontmatter::SkillDocument {
    crate::frontmatter::parse(path, &fs::read_to_string(path).unwrap())
}

/// A front matter longer than discovery's first read.
fn long_front_matter(index: usize) -> String {
    let mut text = format!("name: s{index:03}\ndescription: long\nmetadata:\n");
    for key in 0..(skill_file::HEAD_BYTES / 16 + index) {
        text.push_str(&format!("  key-{key:05}: value\n"));
    }
    text.pop();
    text
}

/// A skill with no front matter whose first heading comes after the first read.
fn late_heading(root: &Path, relative: &str, index: usize) -> PathBuf {
    let directory = root.join(relative);
    fs::create_dir_all(&directory).unwrap();
    let file = directory.join("SKILL.md");
    let text = format!(
        "{}# Late {index}\nFound past the first read.\n",
        "\n".repeat(skill_file::HEAD_BYTES + index)
    );
    fs::write(&file, text).unwrap();
    file
}

#[test]
fn skill_files_longer_than_the_first_read_are_read_as_far_as_needed() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let long = skill(&root, "s001", &long_front_matter(1));
    let late = late_heading(&root, "late", 2);
    for workers in [0, 2] {
        let mut discovery = Discovery::new(workspace.path());
        discovery = discovery.home(Home::Off);
        let (found, _) = discovery.run_with(false, workers, None);
        assert_eq!(names(&found), ["Late 2", "s001"], "{workers} workers");
        let by_path = |path: &Path| {
            found
                .skills
                .iter()
                .find(|skill| skill.location() == path)
                .unwrap()
        };
        assert_eq!(by_path(&late).description, "Found past the first read.");
        let whole = whole_document(&long);
        assert_eq!(by_path(&long).front_matter(), whole.fields);
        assert_eq!(
            by_path(&long).front_matter()["metadata"]
                .as_object()
                .unwrap()
                .len(),
            skill_file::HEAD_BYTES / 16 + 1
        );
    }
}

/// 300 skills of every kind the parser treats differently, in seven collections: broken front
/// matter, three names shared by 30 skills, files longer than the first read, late headings.
fn mixed_tree(root: &Path) {
    for index in 0..300 {
        let relative = format!("group-{}/skill-{index:03}", index % 7);
        match index % 10 {
            0 => skill(root, &relative, "name: broken\ndescription: [oops"),
            1 => skill(
                root,
                &relative,
                &format!("name: Dup-{}\ndescription: d", index % 3),
            ),
            2 => skill(root, &relative, "description: Use when: colon"),
            // Longer than the first read: a long front matter, a late heading, a line across
            // the end of the first read.
            3 => skill(root, &relative, &long_front_matter(index)),
            4 => late_heading(root, &relative, index),
            5 => skill(
                root,
                &relative,
                &format!(
                    "name: s{index:03}\ndescription: {}",
                    "word ".repeat(skill_file::HEAD_BYTES / 5 + index)
                ),
            ),
            _ => named(root, &relative, &format!("s{index:03}")),
        };
    }
}

#[test]
fn parallel_parsing_gives_exactly_the_serial_result() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    mixed_tree(&root);
    let mut discovery = Discovery::new(workspace.path());
    discovery = discovery.home(Home::Off);
    let (serial, serial_stamps) = discovery.run_with(true, 0, None);
    for uncached in [false, true] {
        // Uncached: every file is handed to a worker open and read there, as from a cold disk.
        skill_file::AS_IF_UNCACHED.set(uncached);
        for workers in [1, 2, 4] {
            let (parallel, stamps) = discovery.run_with(true, workers, None);
            assert_eq!(parallel, serial, "{workers} workers, uncached: {uncached}");
            assert_eq!(
                stamps, serial_stamps,
                "{workers} workers, uncached: {uncached}"
            );
        }
    }
    skill_file::AS_IF_UNCACHED.set(false);
    // 30 `broken`, 30 heading-named `Body` and 30 `Dup-*` (three names) shadow each other.
    assert_eq!(serial.skills.len(), 300 - 29 - 29 - 27);
    // Every skill is what parsing its whole file gives.
    for skill in &serial.skills {
        let whole = whole_document(skill.location());
        assert_eq!(
            skill.front_matter(),
            whole.fields,
            "{}",
            skill.location().display()
        );
    }
    assert!(codes(&serial).contains(&"shadowed"));
}

mod completion;
mod properties;

#[test]
fn a_description_with_control_characters_is_reported() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let file = skill(
        &root,
        "bell",
        "name: bell\ndescription: \"Rings \\a and \\e[31m\"",
    );
    let found = discover(workspace.path());
    assert_eq!(found.skills[0].description, "Rings \u{7} and \u{1b}[31m");
    assert_eq!(codes(&found), ["control_character"]);
    assert_eq!(found.diagnostics[0].path, file);
    assert!(found.diagnostics[0].message.contains("U+0007"));
}

/// A file whose beginning was not enough is read again after the walk, beneath its root by
/// handles: if its folder or the file itself was replaced in between, it is reported, never read
/// from the replacement.
#[test]
fn a_long_skill_file_replaced_before_it_is_read_again_is_reported_not_read() {
    for replace_folder in [false, true] {
        let workspace = workspace();
        let root = workspace.path().join(".agents/skills");
        let long = skill(&root, "s001", &long_front_matter(1));
        let discovery = Discovery::new(workspace.path());
        let mut walker = walk::Walker::new(
            SymlinkPolicy::Skip,
            Limits::default(),
            false,
            None,
            None,
            parse::Keep::Head,
            complete::Sink::Keep(complete::Kept::default()),
        );
        walker.hold_results();
        for found_root in discovery.roots() {
            walker.walk_root(&found_root, Source::Workspace);
        }
        // Same path, same text, another file (or another folder) now; the old ones are kept
        // so that their inodes cannot be reused.
        if replace_folder {
            fs::rename(root.join("s001"), root.join("old")).unwrap();
            fs::create_dir(root.join("s001")).unwrap();
        } else {
            fs::rename(&long, root.join("s001/old.md")).unwrap();
        }
        skill(&root, "s001", &long_front_matter(1));
        let complete::Sink::Keep(walked) = walker.finish().sink else {
            panic!("a walk keeps what it is asked to keep");
        };
        assert!(walked.skills.is_empty(), "replace folder: {replace_folder}");
        let reported: Vec<_> = walked
            .diagnostics
            .iter()
            .map(|diagnostic| (diagnostic.code.as_str(), diagnostic.path.clone()))
            .collect();
        assert_eq!(
            reported,
            [("unreadable", long.clone())],
            "replace folder: {replace_folder}"
        );
        assert!(
            walked.diagnostics[0]
                .message
                .contains("replaced or removed")
        );
    }
}

/// A skill keeps its front matter's text and reads the fields again when asked: they are the
/// fields parsing its whole file gives, whatever the front matter's shape.
#[test]
fn front_matter_fields_read_again_are_those_of_the_whole_file() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let texts = [
        "---\nname: a\ndescription: Plain.\nmetadata:\n  owner: x\n---\n",
        "---\r\nname: b\r\ndescription: CRLF lines.\r\nlicense: MIT\r\n---\r\n",
        "\u{feff}---\nname: c\ndescription: A byte-order mark.\n---\n",
        "---\nname: d\ndescription: >\n  Folded\n  text\ntags: [x, y]\nflag: yes\nversion: 1.10\n---\n",
        "---\nname: e\ndescription: Use when: a colon\n---\n",
        "---\nname: f\ndescription: [broken\n---\n",
        "---\nname: g\ndescription: Never closed.\nlicense: MIT\n",
        "---\n---\n# H\n\nNo fields at all.\n",
        "# I\n\nNo front matter.\n",
    ];
    let mut paths = Vec::new();
    for (number, text) in texts.iter().enumerate() {
        let directory = root.join(format!("s{number}"));
        fs::create_dir_all(&directory).unwrap();
        let path = directory.join("SKILL.md");
        fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let mut discovery = Discovery::new(workspace.path());
    discovery = discovery.home(Home::Off);
    let found = discovery.discover();
    assert_eq!(found.skills.len(), texts.len());
    for skill in &found.skills {
        let whole = whole_document(skill.location());
        assert_eq!(
            skill.front_matter(),
            whole.fields,
            "{}",
            skill.location().display()
        );
        assert_eq!(skill.raw_front_matter, whole.raw_front_matter);
    }
    let unclosed = found.skills.iter().find(|skill| skill.name == "g").unwrap();
    assert_eq!(unclosed.front_matter()["description"], "Never closed.");
    let typed = found.skills.iter().find(|skill| skill.name == "d").unwrap();
    assert_eq!(typed.front_matter()["tags"], serde_json::json!(["x", "y"]));
}

/// `discover_each` hands over exactly what `discover` keeps: the same skills in the same order,
/// the same diagnostics in the same order, except that a duplicate's diagnostic comes where the
/// duplicate is met — serially and with any number of workers, from the page cache or the disk.
#[test]
fn each_finding_handed_over_is_what_discover_keeps() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    mixed_tree(&root);
    let discovery = Discovery::new(workspace.path()).home(Home::Off);
    let kept = discovery.run_with(false, 0, None).0;
    let is_duplicate = |diagnostic: &&Diagnostic| diagnostic.code == DiagnosticCode::Shadowed;
    let kept_duplicates: Vec<&Diagnostic> = kept.diagnostics.iter().filter(is_duplicate).collect();
    let kept_others: Vec<&Diagnostic> = kept
        .diagnostics
        .iter()
        .filter(|diagnostic| !is_duplicate(diagnostic))
        .collect();
    assert_eq!(kept_duplicates.len(), 29 + 29 + 27);
    for uncached in [false, true] {
        skill_file::AS_IF_UNCACHED.set(uncached);
        for workers in [0, 1, 2, 4] {
            let mut skills = Vec::new();
            let mut diagnostics = Vec::new();
            let mut order = Vec::new();
            let read_roots = discovery.each_with(workers, &mut |finding| match finding {
                Finding::Skill(skill) => {
                    order.push(skill.name.to_string());
                    skills.push(skill);
                }
                Finding::Diagnostic(diagnostic) => {
                    if diagnostic.code == DiagnosticCode::Shadowed {
                        order.push(format!("shadowed {}", diagnostic.path.display()));
                    }
                    diagnostics.push(diagnostic);
                }
            });
            let context = format!("{workers} workers, uncached: {uncached}");
            assert_eq!(skills, kept.skills, "{context}");
            assert_eq!(read_roots, kept.read_roots, "{context}");
            let duplicates: Vec<&Diagnostic> = diagnostics.iter().filter(is_duplicate).collect();
            let others: Vec<&Diagnostic> = diagnostics
                .iter()
                .filter(|diagnostic| !is_duplicate(diagnostic))
                .collect();
            assert_eq!(duplicates, kept_duplicates, "{context}");
            assert_eq!(others, kept_others, "{context}");
            // A duplicate is reported as soon as it is met, not after every skill.
            let first_duplicate = order.iter().position(|seen| seen.starts_with("shadowed "));
            assert!(
                first_duplicate.is_some_and(|at| at < order.len() - 100),
                "{context}"
            );
        }
    }
    skill_file::AS_IF_UNCACHED.set(false);
}
