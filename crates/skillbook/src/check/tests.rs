use super::*;
use crate::format::check_document;
use std::fs;

/// `(severity, code, line, column)` of each finding.
type Finding = (&'static str, &'static str, Option<u64>, Option<u64>);

fn summarize(diagnostics: &[Diagnostic]) -> Vec<Finding> {
    diagnostics
        .iter()
        .map(|diagnostic| {
            (
                diagnostic.severity.as_str(),
                diagnostic.code.as_str(),
                diagnostic.line,
                diagnostic.column,
            )
        })
        .collect()
}

/// Checks `text` as `/skills/<folder>/SKILL.md`.
fn check_in(folder: &str, text: &str, mode: Mode) -> Vec<Diagnostic> {
    let path = PathBuf::from(format!("/skills/{folder}/SKILL.md"));
    check_text(&path, text, mode)
}

/// A skill file in folder `folder` whose front matter is `lines`.
fn front_matter(folder: &str, lines: &[&str], mode: Mode) -> Vec<Finding> {
    let text = format!("---\n{}\n---\n# Body\n", lines.join("\n"));
    summarize(&check_in(folder, &text, mode))
}

fn standard(folder: &str, lines: &[&str]) -> Vec<Finding> {
    front_matter(folder, lines, Mode::Standard)
}

fn error(code: &'static str, line: u64, column: u64) -> Finding {
    ("error", code, Some(line), Some(column))
}

fn warning(code: &'static str, line: u64, column: u64) -> Finding {
    ("warning", code, Some(line), Some(column))
}

#[test]
fn a_skill_using_every_field_is_valid_in_every_mode() {
    let lines = [
        "name: pdf-forms",
        "description: Fill PDF forms. Use when the user mentions a form.",
        "license: MIT",
        "compatibility: Needs Python 3 and network access",
        "allowed-tools: Bash(python:*) Read",
        "metadata:",
        "  author: ann",
        "  version: \"1.0\"",
    ];
    for mode in [Mode::Lenient, Mode::Standard, Mode::Strict] {
        assert_eq!(front_matter("pdf-forms", &lines, mode), [], "{mode:?}");
    }
}

#[test]
fn each_name_rule_has_its_code_and_position() {
    let cases: [(&str, &str, Vec<Finding>); 9] = [
        ("good-name", "good-name", vec![]),
        ("pdf2docx", "pdf2docx", vec![]),
        (
            "PDF-Tools",
            "PDF-Tools",
            vec![error("name_not_lowercase", 2, 7)],
        ),
        (
            "my_skill",
            "my_skill",
            vec![error("name_invalid_character", 2, 9)],
        ),
        ("-lead", "-lead", vec![error("name_hyphens", 2, 7)]),
        ("trail-", "trail-", vec![error("name_hyphens", 2, 12)]),
        ("dou--ble", "dou--ble", vec![error("name_hyphens", 2, 10)]),
        (
            "review",
            "folder",
            vec![error("name_directory_mismatch", 2, 7)],
        ),
        (
            "PDF Tools",
            "pdf-tools",
            vec![
                error("name_not_lowercase", 2, 7),
                error("name_invalid_character", 2, 10),
                error("name_directory_mismatch", 2, 7),
            ],
        ),
    ];
    for (name, folder, expected) in cases {
        let name_line = format!("name: {name}");
        assert_eq!(
            standard(folder, &[&name_line, "description: d"]),
            expected,
            "{name}"
        );
    }
}

#[test]
fn name_hints_give_the_corrected_name() {
    let diagnostics = check_in(
        "pdf-tools",
        "---\nname: PDF  Tools_\ndescription: d\n---\n",
        Mode::Standard,
    );
    let hints: Vec<(&str, Option<&str>)> = diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.code.as_str(), diagnostic.hint.as_deref()))
        .collect();
    assert_eq!(
        hints,
        [
            ("name_not_lowercase", Some("write it as: name: pdf-tools")),
            (
                "name_invalid_character",
                Some("write it as: name: pdf-tools")
            ),
            (
                "name_directory_mismatch",
                Some("write it as: name: pdf-tools")
            ),
        ]
    );
    assert_eq!(
        diagnostics[1].message,
        "the name `PDF  Tools_` holds a space; only letters, digits and hyphens are allowed"
    );
}

#[test]
fn a_mismatch_between_two_valid_names_offers_both_fixes() {
    let diagnostics = check_in(
        "folder",
        "---\nname: review\ndescription: d\n---\n",
        Mode::Strict,
    );
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(
        diagnostics[0],
        Diagnostic::error(
            DiagnosticCode::NameDirectoryMismatch,
            Path::new("/skills/folder/SKILL.md"),
            "the name `review` differs from the skill's directory `folder`; clients expect them \
             to be equal",
        )
        .at(2, 7)
        .with_hint("rename the directory to `review`, or write: name: folder")
    );
}

#[test]
fn name_length_is_counted_in_characters_after_normalisation() {
    let name_64 = "é".repeat(64);
    let name_65 = "a".repeat(65);
    assert_eq!(
        standard(&name_64, &[&format!("name: {name_64}"), "description: d"]),
        []
    );
    assert_eq!(
        standard(&name_65, &[&format!("name: {name_65}"), "description: d"]),
        [error("name_too_long", 2, 7)]
    );
}

#[test]
fn unicode_names_follow_letters_of_any_script_and_nfkc() {
    let valid = [
        ("café", "café"),
        ("cafe\u{301}", "café"),
        ("数据分析", "数据分析"),
        ("हिंदी", "हिंदी"),
        ("\u{fb01}le", "file"),
    ];
    for (name, folder) in valid {
        let name_line = format!("name: {name}");
        assert_eq!(
            standard(folder, &[&name_line, "description: d"]),
            [],
            "{name}"
        );
    }
    assert_eq!(
        standard("Café", &["name: Café", "description: d"]),
        [error("name_not_lowercase", 2, 7)]
    );
}

#[test]
fn quoted_names_are_trimmed_and_positioned_inside_the_quotes() {
    assert_eq!(
        standard("spaced", &["name: \" spaced \"", "description: d"]),
        []
    );
    assert_eq!(
        standard("Quoted", &["name: \"Quoted\"", "description: d"]),
        [error("name_not_lowercase", 2, 8)]
    );
}

#[test]
fn missing_and_empty_name_and_description() {
    assert_eq!(
        standard("skill", &["license: MIT"]),
        [
            error("missing_name", 1, 1),
            error("missing_description", 1, 1)
        ]
    );
    assert_eq!(
        standard("skill", &["name:", "description: \"   \""]),
        [
            error("missing_name", 2, 1),
            error("missing_description", 3, 1)
        ]
    );
    let diagnostics = check_in("My Skill", "---\n---\n", Mode::Standard);
    assert_eq!(
        diagnostics[0].hint.as_deref(),
        Some("add the line: name: my-skill")
    );
}

#[test]
fn description_and_compatibility_lengths() {
    let description = |length: usize| format!("description: {}", "é".repeat(length));
    assert_eq!(standard("s", &["name: s", &description(1024)]), []);
    assert_eq!(
        standard("s", &["name: s", &description(1025)]),
        [error("description_too_long", 3, 14)]
    );
    let compatibility = |length: usize| format!("compatibility: {}", "c".repeat(length));
    let fields = |line: &str| standard("s", &["name: s", "description: d", line]);
    assert_eq!(fields(&compatibility(500)), []);
    assert_eq!(
        fields(&compatibility(501)),
        [error("compatibility_too_long", 4, 16)]
    );
    assert_eq!(fields("compatibility: \"\""), [error("empty_field", 4, 1)]);
}

#[test]
fn a_literal_block_description_counts_its_final_line_end() {
    let text = format!("description: |\n  {}", "d".repeat(1023));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        standard("s", &[&["name: s"], lines.as_slice()].concat()),
        []
    );
    let text = format!("description: |\n  {}", "d".repeat(1024));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        standard("s", &[&["name: s"], lines.as_slice()].concat()),
        [error("description_too_long", 3, 14)]
    );
}

#[test]
fn optional_fields_must_be_strings() {
    let fields = |lines: &[&str]| standard("s", &[&["name: s", "description: d"], lines].concat());
    // A list of tools: some clients read it, the format asks for a string.
    assert_eq!(
        fields(&["allowed-tools:", "  - Read", "  - Grep"]),
        [warning("non_string_value", 4, 15)]
    );
    assert_eq!(
        fields(&["allowed-tools:", "  - tool: Read"]),
        [error("invalid_field_type", 4, 15)]
    );
    let diagnostics = check_in(
        "s",
        "---\nname: s\ndescription: d\nallowed-tools: [Read, Grep]\n---\n",
        Mode::Standard,
    );
    assert_eq!(
        diagnostics[0].hint.as_deref(),
        Some("write it as one string: allowed-tools: Read Grep")
    );
    assert_eq!(fields(&["license:"]), [error("empty_field", 4, 1)]);
    assert_eq!(
        fields(&["license: 2024"]),
        [warning("non_string_value", 4, 10)]
    );
}

#[test]
fn metadata_is_a_mapping_of_strings() {
    let fields = |lines: &[&str]| standard("s", &[&["name: s", "description: d"], lines].concat());
    assert_eq!(fields(&["metadata: {author: ann}"]), []);
    assert_eq!(fields(&["metadata:"]), [error("empty_field", 4, 1)]);
    assert_eq!(
        fields(&["metadata:", "  - ann"]),
        [error("invalid_field_type", 4, 10)]
    );
    assert_eq!(
        fields(&["metadata:", "  author:", "    name: ann", "  tags: [a, b]"]),
        [
            error("metadata_value_not_string", 5, 10),
            error("metadata_value_not_string", 7, 9)
        ]
    );
    assert_eq!(
        fields(&["metadata:", "  version: 1.0", "  beta: true", "  owner:"]),
        [
            warning("non_string_value", 5, 12),
            warning("non_string_value", 6, 9),
            warning("non_string_value", 7, 9)
        ]
    );
    let diagnostics = check_in(
        "s",
        "---\nname: s\ndescription: d\nmetadata:\n  version: 1.0\n---\n",
        Mode::Standard,
    );
    assert_eq!(
        diagnostics[0].hint.as_deref(),
        Some("quote it: version: \"1.0\"")
    );
}

#[test]
fn unknown_fields_depend_on_the_mode() {
    let lines = ["name: s", "description: d", "version: 2", "owner: ann"];
    assert_eq!(front_matter("s", &lines, Mode::Lenient), []);
    assert_eq!(
        front_matter("s", &lines, Mode::Standard),
        [
            warning("unknown_field", 4, 1),
            warning("unknown_field", 5, 1)
        ]
    );
    let strict = check_in(
        "s",
        &format!("---\n{}\n---\n", lines.join("\n")),
        Mode::Strict,
    );
    assert_eq!(
        summarize(&strict),
        [error("unknown_field", 4, 1), error("unknown_field", 5, 1)]
    );
    assert_eq!(
        strict[0].hint.as_deref(),
        Some(
            "move `version` under `metadata:`, or remove it; if a client you target reads it, \
             allow it with --allow-field version"
        )
    );
}

#[test]
fn client_fields_and_allowed_fields_are_not_unknown() {
    let mut lines = vec!["name: s", "description: d"];
    let client: Vec<String> = CLIENT_FIELDS
        .iter()
        .map(|field| format!("{field}: x"))
        .collect();
    lines.extend(client.iter().map(String::as_str));
    assert_eq!(front_matter("s", &lines, Mode::Strict), []);

    let root = tempfile::tempdir().unwrap();
    let skill = root.path().join("s");
    std::fs::create_dir(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: s\ndescription: d\nversion: \"2\"\nowner: ann\n---\n",
    )
    .unwrap();
    let mut checker = Checker::new(Mode::Strict);
    checker = checker.allow_field("owner");
    let report = checker.check_path(&skill).unwrap();
    assert_eq!(
        summarize(&report.diagnostics),
        [error("unknown_field", 4, 1)]
    );
    assert!(report.diagnostics[0].message.contains("`version`"));
}

#[test]
fn the_unquoted_colon_hint_is_the_quoted_line() {
    let text = "---\nname: s\ndescription: Use when: the user asks\n---\n";
    for (mode, severity) in [
        (Mode::Lenient, "warning"),
        (Mode::Standard, "warning"),
        (Mode::Strict, "error"),
    ] {
        let diagnostics = check_in("s", text, mode);
        assert_eq!(
            summarize(&diagnostics),
            [(severity, "repaired_yaml", Some(3), Some(22))]
        );
        assert_eq!(
            diagnostics[0].hint.as_deref(),
            Some(r#"write it as: description: "Use when: the user asks""#)
        );
    }
}

#[test]
fn duplicate_keys_are_errors_only_when_strict() {
    let lines = ["name: s", "description: one", "description: two"];
    assert_eq!(
        front_matter("s", &lines, Mode::Standard),
        [warning("duplicate_key", 4, 1)]
    );
    assert_eq!(
        front_matter("s", &lines, Mode::Strict),
        [error("duplicate_key", 4, 1)]
    );
}

#[test]
fn file_layout_problems_byte_order_mark_blank_lines_crlf_tabs() {
    let text = "\u{feff}\n---\r\nname: s\r\ndescription:\td\r\n---\r\n";
    assert_eq!(
        summarize(&check_in("s", text, Mode::Standard)),
        [
            warning("byte_order_mark", 1, 1),
            warning("leading_blank_lines", 1, 1),
            warning("crlf_line_ends", 3, 8),
            warning("tab_character", 4, 13),
        ]
    );
    assert_eq!(
        summarize(&check_in("s", text, Mode::Lenient)),
        [
            warning("byte_order_mark", 1, 1),
            warning("leading_blank_lines", 1, 1),
            warning("tab_character", 4, 13),
        ]
    );
}

#[test]
fn a_lower_case_file_name_is_reported_without_a_position() {
    let path = Path::new("/skills/s/skill.md");
    let text = "---\nname: s\ndescription: d\n---\n";
    assert_eq!(
        summarize(&check_text(path, text, Mode::Strict)),
        [("error", "lowercase_file_name", None, None)]
    );
    assert_eq!(check_text(path, text, Mode::Lenient), []);
}

#[test]
fn a_heading_only_skill_gets_exactly_one_finding() {
    let text = "# My Skill\n\nDoes things.\n";
    let diagnostics = check_in("my-skill", text, Mode::Lenient);
    assert_eq!(
        diagnostics,
        [Diagnostic::warning(
            DiagnosticCode::MissingFrontMatter,
            Path::new("/skills/my-skill/SKILL.md"),
            "the file has no front matter: a skill file opens with a `---` line, the `name` and \
             `description` fields, and a closing `---` line",
        )
        .at(1, 1)
        .with_hint(
            "start the file with the lines `---`, `name: my-skill`, `description: <what the \
             skill does and when to use it>` and `---`"
        )]
    );
    assert_eq!(
        summarize(&check_in("my-skill", text, Mode::Strict)),
        [error("missing_front_matter", 1, 1)]
    );
}

#[test]
fn unreadable_front_matter_is_not_also_reported_as_missing_fields() {
    let invalid = "---\nname: Broken\ndescription: [unclosed\nextra: 1\n---\n";
    let codes: Vec<&str> = check_in("Broken", invalid, Mode::Standard)
        .iter()
        .map(|diagnostic| diagnostic.code.as_str())
        .collect();
    assert_eq!(codes, ["name_not_lowercase", "invalid_yaml"]);
    let unclosed = "---\nname: open\n";
    assert_eq!(
        summarize(&check_in("open", unclosed, Mode::Standard)),
        [error("unclosed_front_matter", 1, 1)]
    );
}

#[test]
fn severities_by_class_and_mode() {
    let table = [
        (
            DiagnosticCode::InvalidYaml,
            [Some("error"), Some("error"), Some("error")],
        ),
        (
            DiagnosticCode::NameHyphens,
            [Some("warning"), Some("error"), Some("error")],
        ),
        (
            DiagnosticCode::RepairedYaml,
            [Some("warning"), Some("warning"), Some("error")],
        ),
        (
            DiagnosticCode::UnknownField,
            [None, Some("warning"), Some("error")],
        ),
        (
            DiagnosticCode::SymlinkSkipped,
            [Some("info"), Some("info"), Some("info")],
        ),
    ];
    for (code, expected) in table {
        let found = [Mode::Lenient, Mode::Standard, Mode::Strict]
            .map(|mode| crate::format::severity(code, mode, Severity::Info).map(Severity::as_str));
        assert_eq!(found, expected, "{code}");
    }
}

#[test]
fn lenient_findings_leave_out_the_readers_own_diagnostics() {
    let path = Path::new("/skills/s/SKILL.md");
    let document = crate::frontmatter::parse(path, "---\nname: S\ndescription: a: b\n---\n");
    assert_eq!(
        summarize(&crate::format::lenient_findings(path, &document)),
        [
            warning("name_not_lowercase", 2, 7),
            warning("name_directory_mismatch", 2, 7)
        ]
    );
    assert_eq!(
        summarize(&check_document(path, &document, Mode::Lenient)),
        [
            warning("name_not_lowercase", 2, 7),
            warning("name_directory_mismatch", 2, 7),
            warning("repaired_yaml", 3, 15)
        ]
    );
}

mod paths {
    use super::*;
    use tempfile::TempDir;

    fn write(root: &Path, relative: &str, text: &str) -> PathBuf {
        let file = root.join(relative);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, text).unwrap();
        file
    }

    fn valid(name: &str) -> String {
        format!("---\nname: {name}\ndescription: d\n---\n")
    }

    fn tree() -> TempDir {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "team/good/SKILL.md", &valid("good"));
        write(root.path(), "team/Bad/SKILL.md", &valid("Bad"));
        write(root.path(), "lower/skill.md", &valid("lower"));
        root
    }

    fn codes_and_paths(report: &Report, root: &Path) -> Vec<(&'static str, PathBuf)> {
        report
            .diagnostics
            .iter()
            .map(|diagnostic| {
                let path = diagnostic
                    .path
                    .strip_prefix(root)
                    .unwrap_or(&diagnostic.path);
                (diagnostic.code.as_str(), path.to_path_buf())
            })
            .collect()
    }

    #[test]
    fn a_root_of_many_skills_is_checked_skill_by_skill() {
        let root = tree();
        let report = Checker::new(Mode::Standard)
            .check_path(root.path())
            .unwrap();
        assert_eq!(report.skills_checked, 3);
        assert_eq!(
            codes_and_paths(&report, root.path()),
            [
                ("lowercase_file_name", PathBuf::from("lower/skill.md")),
                ("name_not_lowercase", PathBuf::from("team/Bad/SKILL.md")),
            ]
        );
        assert!(!report.is_valid());
        assert_eq!(
            report.source_line(&report.diagnostics[1]),
            Some("name: Bad")
        );
        assert_eq!(report.source_line(&report.diagnostics[0]), None);
    }

    #[test]
    fn a_skill_folder_and_a_skill_file_are_checked_alone() {
        let root = tree();
        let checker = Checker::new(Mode::Strict);
        let folder = checker.check_path(root.path().join("team/good")).unwrap();
        assert_eq!((folder.skills_checked, folder.diagnostics.len()), (1, 0));
        let file = checker
            .check_path(root.path().join("team/Bad/SKILL.md"))
            .unwrap();
        assert_eq!(file.skills_checked, 1);
        assert_eq!(
            summarize(&file.diagnostics),
            [error("name_not_lowercase", 2, 7)]
        );
    }

    #[test]
    fn paths_in_the_report_start_with_the_path_as_given() {
        let root = tree();
        // Discovery normalises the root; the report gives it back as written.
        let given = root.path().join("team/../team");
        let report = Checker::new(Mode::Standard).check_path(&given).unwrap();
        assert_eq!(report.diagnostics[0].path, given.join("Bad/SKILL.md"));
        assert_eq!(
            report.source_line(&report.diagnostics[0]),
            Some("name: Bad")
        );
    }

    #[test]
    fn missing_paths_and_other_files_are_errors() {
        let root = tree();
        let checker = Checker::new(Mode::Standard);
        let missing = checker.check_path(root.path().join("nope")).unwrap_err();
        assert_eq!(missing.kind(), CheckErrorKind::NotFound);
        assert_eq!(missing.path(), root.path().join("nope"));
        let readme = write(root.path(), "README.md", "# hi\n");
        let other = checker.check_path(&readme).unwrap_err();
        assert_eq!(other.kind(), CheckErrorKind::NotASkillFile);
        assert_eq!(
            other.to_string(),
            format!(
                "{}: not a skill file: give a skill directory, a SKILL.md, or a directory of \
                 skills",
                readme.display()
            )
        );
    }

    #[test]
    fn a_folder_without_skills_is_an_error() {
        let root = tempfile::tempdir().unwrap();
        let report = Checker::new(Mode::Standard)
            .check_path(root.path())
            .unwrap();
        assert_eq!(report.skills_checked, 0);
        assert_eq!(
            report.diagnostics,
            [Diagnostic::error(
                DiagnosticCode::NoSkillFound,
                root.path(),
                "no skill found here: a skill is a directory holding a SKILL.md",
            )
            .with_hint("give a skill directory, a SKILL.md, or a directory that holds skills")]
        );
    }

    #[test]
    fn duplicate_names_under_one_path_are_both_checked_and_reported() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "a/review/SKILL.md", &valid("review"));
        write(root.path(), "b/review/SKILL.md", &valid("Review"));
        let report = Checker::new(Mode::Strict).check_path(root.path()).unwrap();
        assert_eq!(report.skills_checked, 2);
        assert_eq!(
            codes_and_paths(&report, root.path()),
            [
                ("name_not_lowercase", PathBuf::from("b/review/SKILL.md")),
                (
                    "name_directory_mismatch",
                    PathBuf::from("b/review/SKILL.md")
                ),
                ("shadowed", PathBuf::from("b/review/SKILL.md")),
            ]
        );
        assert_eq!(report.count(Severity::Error), 3);
    }

    #[test]
    fn invalid_utf8_and_the_size_limit_are_reported() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("latin/SKILL.md");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, b"---\nname: latin\ndescription: caf\xe9\n---\n").unwrap();
        let report = Checker::new(Mode::Standard).check_path(&file).unwrap();
        assert_eq!(
            summarize(&report.diagnostics),
            [error("invalid_utf8", 3, 1)]
        );
        let mut checker = Checker::new(Mode::Standard);
        checker = checker.limits(Limits {
            max_file_bytes: 16,
            ..Limits::default()
        });
        let report = checker.check_path(&file).unwrap();
        let codes: Vec<&str> = report
            .diagnostics
            .iter()
            .map(|diagnostic| diagnostic.code.as_str())
            .collect();
        assert_eq!(codes, ["file_too_large", "unclosed_front_matter"]);
    }

    #[test]
    fn check_roots_checks_each_existing_root_and_reports_when_none_holds_a_skill() {
        let workspace = tempfile::tempdir().unwrap();
        let mut discovery = Discovery::new(workspace.path());
        discovery = discovery.home(Home::Off);
        let checker = Checker::new(Mode::Standard);
        let empty = checker.check_roots(&discovery);
        assert_eq!(
            summarize(&empty.diagnostics),
            [("error", "no_skill_found", None, None)]
        );
        assert_eq!(empty.diagnostics[0].path, workspace.path());
        write(workspace.path(), ".agents/skills/a/SKILL.md", &valid("a"));
        write(
            workspace.path(),
            ".skillbook/skills/b/SKILL.md",
            &valid("a"),
        );
        let report = checker.check_roots(&discovery);
        assert_eq!(report.skills_checked, 2);
        assert_eq!(
            summarize(&report.diagnostics),
            [error("name_directory_mismatch", 2, 7)]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_skill_file_follows_the_symlink_policy() {
        let root = tempfile::tempdir().unwrap();
        let target = write(root.path(), "real/SKILL.md", &valid("linked"));
        fs::create_dir_all(root.path().join("linked")).unwrap();
        let link = root.path().join("linked/SKILL.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let skipped = Checker::new(Mode::Standard).check_path(&link).unwrap();
        let codes: Vec<&str> = skipped
            .diagnostics
            .iter()
            .map(|diagnostic| diagnostic.code.as_str())
            .collect();
        assert_eq!(codes, ["symlink_skipped", "no_skill_found"]);
        let followed = Checker::new(Mode::Standard)
            .symlinks(SymlinkPolicy::Follow)
            .check_path(&link)
            .unwrap();
        assert_eq!(
            (followed.skills_checked, followed.diagnostics.len()),
            (1, 0)
        );
    }
}

mod properties;

#[test]
fn text_that_yaml_1_1_readers_type_is_reported_but_kept_as_written() {
    let fields = |lines: &[&str]| standard("s", &[&["name: s"], lines].concat());
    for written in ["yes", "off", "007", "0x1F", "1.10", "1_000", "+1", ".inf"] {
        assert_eq!(
            fields(&[&format!("description: {written}")]),
            [warning("non_string_value", 3, 14)],
            "{written}"
        );
    }
    // Quoted, or not a number after all: text for every reader.
    for written in ["\"yes\"", "'1.10'", "1.10.2", "0x", "yesterday", "1e"] {
        assert_eq!(
            fields(&[&format!("description: {written}")]),
            [],
            "{written}"
        );
    }
    let diagnostics = check_in(
        "s",
        "---\nname: s\ndescription: 1.10\n---\n",
        Mode::Standard,
    );
    assert_eq!(
        diagnostics[0].message,
        "`description` is `1.10`, which YAML reads as a number, not as text"
    );
    assert_eq!(
        diagnostics[0].hint.as_deref(),
        Some("quote it: description: \"1.10\"")
    );
}

mod references;
