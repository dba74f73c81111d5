use super::*;
use crate::format::NameError;
#[cfg(feature = "zip")]
use std::io::{Cursor, Write};

#[cfg(feature = "zip")]
use zip::write::SimpleFileOptions;

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n# {name}\n")
}

#[test]
fn parse_reads_name_description_and_flag() {
    let skill = ProvidedSkill::parse(
        "---\nname: tenant-policy\ndescription: Policy.\ndisable-model-invocation: true\n---\n",
    )
    .unwrap();
    assert_eq!(skill.name(), "tenant-policy");
    assert_eq!(skill.description(), "Policy.");
    assert!(skill.disable_model_invocation());
    assert_eq!(skill.uri(), "skill://tenant-policy/SKILL.md");
    assert_eq!(skill.origin(), Origin::Provided);
    let from_heading = ProvidedSkill::parse("# notes\nTake notes.\n").unwrap();
    assert_eq!(
        (from_heading.name().as_str(), from_heading.description()),
        ("notes", "Take notes.")
    );
}

#[test]
fn parse_refuses_skills_without_a_usable_name() {
    assert!(matches!(
        ProvidedSkill::parse("just text\n"),
        Err(SourceError::Name(NameError::Empty))
    ));
    let error = ProvidedSkill::parse("---\nname: pdf/forms\n---\n").unwrap_err();
    assert_eq!(
        error.to_string(),
        "provided skill has no usable name: the name `pdf/forms` holds a `/`, which would split \
         its `skill://` address; use a name like `my-skill`"
    );
    // Any name discovery accepts is accepted, and its URI is encoded.
    let spaced = ProvidedSkill::parse("---\nname: two words\n---\n").unwrap();
    assert_eq!(spaced.uri(), "skill://two%20words/SKILL.md");
}

#[test]
fn file_paths_that_could_escape_are_refused() {
    let skill = || ProvidedSkill::parse(skill_md("x")).unwrap();
    for path in [
        "",
        "/etc/passwd",
        "../x",
        "a/../../b",
        "a//b",
        "./a",
        "a\\b",
        "C:/x",
        "a\0b",
        "a/.",
    ] {
        let result = skill().with_file(path, b"x".as_slice());
        assert!(
            matches!(result, Err(SourceError::FilePath { .. })),
            "{path:?} was accepted"
        );
    }
    let skill = skill()
        .with_file("references/guide.md", b"guide".as_slice())
        .unwrap();
    assert_eq!(skill.file("references/guide.md"), Some(b"guide".as_slice()));
    assert_eq!(skill.file("SKILL.md"), Some(skill_md("x").as_bytes()));
    assert_eq!(skill.file("missing.md"), None);
}

#[test]
#[cfg(feature = "embed")]
fn embedded_skills_follow_the_leaf_rule_and_keep_their_files() {
    static EXAMPLES: include_dir::Dir<'_> =
        include_dir::include_dir!("$CARGO_MANIFEST_DIR/../../examples/skills");
    let skills = from_embedded(&EXAMPLES).unwrap();
    let names: Vec<&str> = skills.iter().map(|skill| skill.name().as_str()).collect();
    assert_eq!(names, ["code-review", "incident-runbook", "release-notes"]);
    assert!(
        skills
            .iter()
            .all(|skill| skill.origin() == Origin::Embedded)
    );
    let files: Vec<&str> = skills[2].files().map(|(path, _)| path).collect();
    assert_eq!(files, ["references/template.md"]);
    assert!(skills[1].disable_model_invocation());
}

#[cfg(feature = "zip")]
fn zip(entries: &[(&str, &[u8])]) -> Cursor<Vec<u8>> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, contents) in entries {
        writer
            .start_file(*name, SimpleFileOptions::default())
            .unwrap();
        writer.write_all(contents).unwrap();
    }
    let mut cursor = writer.finish().unwrap();
    cursor.set_position(0);
    cursor
}

#[test]
#[cfg(feature = "zip")]
fn zip_skills_are_read_in_place_with_the_leaf_rule() {
    let pdf = skill_md("pdf");
    let inner = skill_md("inner");
    let archive = zip(&[
        ("team/pdf/SKILL.md", pdf.as_bytes()),
        ("team/pdf/forms/guide.md", b"guide"),
        ("team/pdf/nested/SKILL.md", inner.as_bytes()),
        ("team/lower/skill.md", b"# lower-case\nA skill.\n"),
        ("README.md", b"not a skill"),
    ]);
    let skills = from_zip(archive, ArchiveLimits::default()).unwrap();
    let names: Vec<&str> = skills.iter().map(|skill| skill.name().as_str()).collect();
    assert_eq!(names, ["lower-case", "pdf"]);
    let files: Vec<&str> = skills[1].files().map(|(path, _)| path).collect();
    assert_eq!(files, ["forms/guide.md", "nested/SKILL.md"]);
    assert_eq!(skills[1].origin(), Origin::Archive);
}

#[test]
#[cfg(feature = "zip")]
fn zip_root_can_be_a_single_skill() {
    let text = skill_md("solo");
    let skills = from_zip(
        zip(&[("SKILL.md", text.as_bytes())]),
        ArchiveLimits::default(),
    )
    .unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].name(), "solo");
}

#[test]
#[cfg(feature = "zip")]
fn zip_entries_that_escape_are_refused() {
    for name in ["../evil/SKILL.md", "/abs/SKILL.md", "a\\..\\b/SKILL.md"] {
        let error = from_zip(zip(&[(name, b"x")]), ArchiveLimits::default()).unwrap_err();
        assert!(
            matches!(&error, SourceError::ArchiveEntry { entry, .. } if entry == name),
            "{name}: {error}"
        );
    }
}

#[test]
#[cfg(feature = "zip")]
fn zip_symlink_entries_are_refused() {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    writer
        .add_symlink(
            "skill/SKILL.md",
            "/etc/passwd",
            SimpleFileOptions::default(),
        )
        .unwrap();
    let mut cursor = writer.finish().unwrap();
    cursor.set_position(0);
    let error = from_zip(cursor, ArchiveLimits::default()).unwrap_err();
    assert!(error.to_string().contains("symbolic links"), "{error}");
}

#[test]
#[cfg(feature = "zip")]
fn zip_limits_are_enforced() {
    let few = ArchiveLimits {
        max_entries: 2,
        ..ArchiveLimits::default()
    };
    let three = zip(&[
        ("a/SKILL.md", b"# a"),
        ("b/SKILL.md", b"# b"),
        ("c/SKILL.md", b"# c"),
    ]);
    assert!(matches!(
        from_zip(three, few),
        Err(SourceError::ArchiveLimit(_))
    ));

    let big = vec![b'x'; 2048];
    let small_files = ArchiveLimits {
        max_file_bytes: 1024,
        ..ArchiveLimits::default()
    };
    let error = from_zip(zip(&[("a/SKILL.md", &big)]), small_files).unwrap_err();
    assert!(error.to_string().contains("per-file limit"), "{error}");

    let small_total = ArchiveLimits {
        max_total_bytes: 3000,
        ..ArchiveLimits::default()
    };
    let error = from_zip(
        zip(&[("a/SKILL.md", &big), ("b/SKILL.md", &big)]),
        small_total,
    )
    .unwrap_err();
    assert!(error.to_string().contains("total limit"), "{error}");
}

#[test]
#[cfg(feature = "zip")]
fn no_limit_means_no_limit_and_unsafe_folder_names_are_refused_too() {
    let text = skill_md("pdf");
    let unlimited = ArchiveLimits {
        max_file_bytes: u64::MAX,
        max_total_bytes: u64::MAX,
        ..ArchiveLimits::default()
    };
    let skills = from_zip(zip(&[("pdf/SKILL.md", text.as_bytes())]), unlimited).unwrap();
    assert_eq!(skills[0].skill_md(), text);

    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    writer
        .add_directory("../outside/", SimpleFileOptions::default())
        .unwrap();
    writer
        .start_file("pdf/SKILL.md", SimpleFileOptions::default())
        .unwrap();
    writer.write_all(text.as_bytes()).unwrap();
    let mut cursor = writer.finish().unwrap();
    cursor.set_position(0);
    let error = from_zip(cursor, ArchiveLimits::default()).unwrap_err();
    assert!(
        matches!(&error, SourceError::ArchiveEntry { entry, .. } if entry == "../outside/"),
        "{error}"
    );
}

#[test]
#[cfg(feature = "zip")]
fn garbage_is_not_an_archive() {
    let error = from_zip(Cursor::new(b"not a zip".to_vec()), ArchiveLimits::default()).unwrap_err();
    assert!(matches!(error, SourceError::Archive(_)));
}

#[test]
fn a_set_of_files_keeps_what_it_can_and_reports_the_rest() {
    let file = |path: &str, text: &str| (path.to_owned(), Arc::from(text.as_bytes()));
    let (skills, refused) = from_files(
        [
            file("pdf/SKILL.md", &skill_md("pdf")),
            file("pdf/refs/forms.md", "# Forms"),
            file("pdf/../escape.md", "no"),
            file("pdf//empty-segment.md", "no"),
            file("pdf/bell\u{7}.md", "no"),
            file("/absolute/SKILL.md", "no"),
            file("broken/SKILL.md", "---\nname: a/b\n---\n"),
            file("notes/SKILL.md", "# notes\n\nTake notes.\n"),
            file("loose.md", "outside every skill"),
        ],
        Origin::ObjectStore,
    );
    let names: Vec<&str> = skills.iter().map(|skill| skill.name().as_str()).collect();
    // A name a skill cannot take is reported, and its folder names it, as on disk.
    assert_eq!(names, ["broken", "notes", "pdf"]);
    assert_eq!(
        skills[0].diagnostics()[0].to_string(),
        "warning[unusable_name]: broken/SKILL.md: the front matter `name` cannot name the skill: \
         the name `a/b` holds a `/`, which would split its `skill://` address; use a name like \
         `my-skill`. The skill takes the next name in line (the first heading, else its \
         directory's name)"
    );
    assert!(skills[1].diagnostics().is_empty());
    assert!(
        skills
            .iter()
            .all(|skill| skill.origin() == Origin::ObjectStore)
    );
    let pdf_files: Vec<&str> = skills[2].files().map(|(path, _)| path).collect();
    assert_eq!(pdf_files, ["refs/forms.md"]);
    let messages: Vec<String> = refused.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    for path in [
        "pdf/../escape.md",
        "pdf//empty-segment.md",
        "pdf/bell\u{7}.md",
        "/absolute/SKILL.md",
    ] {
        assert!(
            messages
                .iter()
                .any(|message| message.starts_with(&format!("file `{path}` is refused"))),
            "{path}: {messages:#?}"
        );
    }
    // Only a skill at the top, without a folder to fall back on, can have no name.
    let (skills, refused) = from_files(
        [
            file("SKILL.md", "---\nname: a/b\n---\n"),
            file("inner/SKILL.md", &skill_md("inner")),
        ],
        Origin::ObjectStore,
    );
    assert!(skills.is_empty());
    let messages: Vec<String> = refused.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "the skill in `` is left out: provided skill has no usable name: the name `a/b` holds \
          a `/`, which would split its `skill://` address; use a name like `my-skill`"
        ]
    );
}

/// The same skill on disk, in a zip archive, in a set of files and handed in as text: one name
/// rule (SPEC §2.3) for all, with the same warning for a name the skill cannot take.
#[test]
#[cfg(feature = "zip")]
fn an_unusable_name_falls_back_and_is_reported_as_on_disk() {
    let text = "---\nname: \"a\\u0007b\"\ndescription: Broken name.\n---\nBody.\n";
    let workspace = tempfile::tempdir().unwrap();
    let folder = workspace.path().join(".agents/skills/pdf");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
    let found = crate::Discovery::new(workspace.path())
        .home(crate::Home::Off)
        .discover();
    let on_disk = &found.skills()[0];
    assert_eq!(on_disk.name(), "pdf");
    // (Discovery also grades the name by the format's rules.)
    let disk_warning = found
        .diagnostics()
        .iter()
        .find(|diagnostic| diagnostic.code == crate::DiagnosticCode::UnusableName)
        .unwrap();

    let zipped = from_zip(
        zip(&[("pdf/SKILL.md", text.as_bytes())]),
        ArchiveLimits::default(),
    )
    .unwrap();
    let (listed, refused) = from_files(
        [("pdf/SKILL.md".to_owned(), Arc::from(text.as_bytes()))],
        Origin::ObjectStore,
    );
    assert!(refused.is_empty(), "{refused:?}");
    for provided in [&zipped[0], &listed[0]] {
        assert_eq!(provided.name(), on_disk.name());
        assert_eq!(provided.description(), on_disk.description());
        let [warning] = provided.diagnostics() else {
            panic!("{:?}", provided.diagnostics());
        };
        assert_eq!(
            (warning.severity, warning.code, &warning.message),
            (
                disk_warning.severity,
                disk_warning.code,
                &disk_warning.message
            )
        );
        assert_eq!(warning.path, Path::new("pdf/SKILL.md"));
    }

    // Without a folder, a heading is the last fallback; with none either, it is refused.
    let memory = ProvidedSkill::parse("---\nname: a/b\n---\n# notes\nTake notes.\n").unwrap();
    assert_eq!(memory.name(), "notes");
    assert_eq!(
        memory.diagnostics()[0].to_string(),
        "warning[unusable_name]: SKILL.md: the front matter `name` cannot name the skill: the \
         name `a/b` holds a `/`, which would split its `skill://` address; use a name like \
         `my-skill`. The skill takes the next name in line (the first heading)"
    );
}
