//! Differential test: `skillbook check --strict` against the reference validator of the Agent
//! Skills format (`agentskills validate`, PyPI `skills-ref==0.1.1`).
//!
//! Every case is a tiny skill written to a temporary folder. Both tools judge it valid or
//! invalid, and the verdicts must agree — except for the deliberate deviations listed in
//! `docs/check.md`, which must differ exactly as documented.
//!
//! The reference is found through `SKILLS_REF_BIN` (the path to `agentskills`), else at
//! `.venv/bin/agentskills` in the repository. Without it this test fails: install it with
//! `python3 -m venv .venv && .venv/bin/pip install skills-ref==0.1.1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One generated skill.
struct Case {
    /// The case's name, as in the deviations table.
    name: &'static str,
    /// The skill's folder name.
    folder: String,
    /// The skill file's name.
    file: &'static str,
    /// The skill file's bytes.
    content: Vec<u8>,
}

/// The deliberate deviations, mirrored from the table in `docs/check.md`: case name →
/// (skillbook `--strict` says valid, the reference says valid).
const DEVIATIONS: [(&str, bool, bool); 14] = [
    ("manual_only_field", true, false),
    ("client_fields", true, false),
    ("block_list_allowed_tools", false, true),
    ("flow_map_metadata", true, false),
    ("anchors_and_aliases", true, false),
    ("dashes_inside_quoted_value", true, false),
    ("devanagari_name", true, false),
    ("crlf_line_ends", false, true),
    ("lowercase_skill_md", false, true),
    ("empty_metadata", false, true),
    ("nested_metadata", false, true),
    ("list_metadata", false, true),
    ("number_metadata_value", false, true),
    ("empty_compatibility", false, true),
];

/// A SKILL.md with front matter `lines` (joined with `\n`) and a short body.
fn skill_text(lines: &[&str]) -> Vec<u8> {
    format!(
        "---\n{}\n---\n# Instructions\n\nDo the task.\n",
        lines.join("\n")
    )
    .into_bytes()
}

fn case(name: &'static str, folder: &str, lines: &[&str]) -> Case {
    Case {
        name,
        folder: folder.to_owned(),
        file: "SKILL.md",
        content: skill_text(lines),
    }
}

fn raw(name: &'static str, folder: &str, content: &str) -> Case {
    Case {
        name,
        folder: folder.to_owned(),
        file: "SKILL.md",
        content: content.as_bytes().to_vec(),
    }
}

/// `name: <folder>` and a description, for cases about other fields.
fn named(name: &'static str, folder: &str, extra: &[&str]) -> Case {
    let name_line = format!("name: {folder}");
    let mut lines = vec![name_line.as_str(), "description: Does one thing well."];
    lines.extend_from_slice(extra);
    case(name, folder, &lines)
}

fn cases() -> Vec<Case> {
    let mut cases = vec![
        named("good", "good", &[]),
        named(
            "all_fields",
            "all-fields",
            &[
                "license: MIT",
                "compatibility: Needs git and network access",
                "allowed-tools: Bash(git:*) Read",
                "metadata:",
                "  author: ann",
                "  version: \"1.0\"",
            ],
        ),
        named("digits_in_name", "pdf2docx", &[]),
        named(
            "comments",
            "commented",
            &["# a comment", "license: MIT # trailing"],
        ),
        case(
            "quoted_values",
            "quoted",
            &[
                "name: \"quoted\"",
                "description: 'Use when: the user asks.'",
            ],
        ),
        case(
            "quoted_name_with_spaces",
            "spaced",
            &["name: \" spaced \"", "description: d"],
        ),
        case(
            "upper_case_name",
            "Upper-Case",
            &["name: Upper-Case", "description: d"],
        ),
        case(
            "name_folder_mismatch",
            "folder",
            &["name: other", "description: d"],
        ),
        named("extra_field", "extra", &["version: 1.0.0"]),
        named(
            "manual_only_field",
            "manual",
            &["disable-model-invocation: true"],
        ),
        raw(
            "no_front_matter",
            "plain",
            "# plain\n\nDoes plain things.\n",
        ),
        raw(
            "unclosed_front_matter",
            "open",
            "---\nname: open\ndescription: d\n# Body\n",
        ),
        raw("empty_front_matter", "empty", "---\n---\n# Body\n"),
        raw(
            "front_matter_list",
            "listed",
            "---\n- name\n- description\n---\n",
        ),
        case(
            "unquoted_colon",
            "colon",
            &["name: colon", "description: Use when: the user asks"],
        ),
        case(
            "folded_description",
            "folded",
            &[
                "name: folded",
                "description: >",
                "  Folded text",
                "  on two lines.",
            ],
        ),
        case(
            "literal_description",
            "literal",
            &[
                "name: literal",
                "description: |",
                "  Line one.",
                "  Line two.",
            ],
        ),
        case(
            "empty_description",
            "empty-description",
            &["name: empty-description", "description: \"\""],
        ),
        case(
            "blank_description",
            "blank",
            &["name: blank", "description: \"   \""],
        ),
        case(
            "missing_description",
            "no-description",
            &["name: no-description"],
        ),
        case("missing_name", "no-name", &["description: d"]),
        case(
            "leading_hyphen",
            "-lead",
            &["name: -lead", "description: d"],
        ),
        case(
            "trailing_hyphen",
            "trail-",
            &["name: trail-", "description: d"],
        ),
        case(
            "double_hyphen",
            "dou--ble",
            &["name: dou--ble", "description: d"],
        ),
        case(
            "underscore",
            "under_score",
            &["name: under_score", "description: d"],
        ),
        case(
            "space_in_name",
            "two words",
            &["name: two words", "description: d"],
        ),
        named(
            "flow_map_metadata",
            "flow-map",
            &["metadata: {author: ann}"],
        ),
        named(
            "client_fields",
            "client-fields",
            &[
                "argument-hint: \"[issue-number]\"",
                "user-invocable: false",
                "model: haiku",
                "effort: low",
                "context: fork",
                "agent: Explore",
                "hooks:",
                "  Stop:",
                "    - command: echo done",
                "paths: \"src/**/*.rs\"",
                "shell: bash",
            ],
        ),
        named(
            "block_list_allowed_tools",
            "block-list",
            &["allowed-tools:", "  - Read", "  - Grep"],
        ),
        named(
            "flow_list_allowed_tools",
            "flow-list",
            &["allowed-tools: [Read, Grep]"],
        ),
        named("empty_metadata", "empty-metadata", &["metadata:"]),
        named(
            "nested_metadata",
            "nested",
            &["metadata:", "  author:", "    name: ann"],
        ),
        named(
            "list_metadata",
            "listed-metadata",
            &["metadata:", "  - ann", "  - bob"],
        ),
        named(
            "number_metadata_value",
            "numbered",
            &["metadata:", "  version: 1.0"],
        ),
        named(
            "empty_compatibility",
            "no-compatibility",
            &["compatibility: \"\""],
        ),
        case(
            "duplicate_keys",
            "twice",
            &["name: twice", "description: one", "description: two"],
        ),
        case(
            "anchors_and_aliases",
            "anchored",
            &["name: &name anchored", "description: *name"],
        ),
        case(
            "tab_indentation",
            "tabbed",
            &[
                "name: tabbed",
                "description: d",
                "metadata:",
                "\tauthor: ann",
            ],
        ),
        case(
            "tab_after_colon",
            "tab-colon",
            &["name:\ttab-colon", "description: d"],
        ),
        case(
            "dashes_inside_value",
            "dashes",
            &["name: dashes", "description: before --- after"],
        ),
        case(
            "dashes_inside_quoted_value",
            "quoted-dashes",
            &["name: quoted-dashes", "description: \"before --- after\""],
        ),
        raw(
            "crlf_line_ends",
            "windows",
            "---\r\nname: windows\r\ndescription: d\r\n---\r\n# Body\r\n",
        ),
        raw(
            "byte_order_mark",
            "bom",
            "\u{feff}---\nname: bom\ndescription: d\n---\n# Body\n",
        ),
        raw(
            "leading_blank_lines",
            "blank-first",
            "\n---\nname: blank-first\ndescription: d\n---\n",
        ),
        case("unicode_name", "café", &["name: café", "description: d"]),
        case(
            "decomposed_unicode_name",
            "café",
            &["name: cafe\u{301}", "description: d"],
        ),
        case(
            "unicode_upper_case_name",
            "Café",
            &["name: Café", "description: d"],
        ),
        case(
            "cjk_name",
            "数据分析",
            &["name: 数据分析", "description: d"],
        ),
        case("devanagari_name", "हिंदी", &["name: हिंदी", "description: d"]),
        case(
            "ligature_name",
            "file",
            &["name: \u{fb01}le", "description: d"],
        ),
    ];
    let mut skill_md = named("lowercase_skill_md", "lower-file", &[]);
    skill_md.file = "skill.md";
    cases.push(skill_md);
    cases.extend(length_cases());
    cases
}

/// Names, descriptions and compatibility notes at and just past their limits.
fn length_cases() -> Vec<Case> {
    let name_64 = "a".repeat(64);
    let name_65 = "a".repeat(65);
    let description = |length: usize| format!("description: {}", "d".repeat(length));
    let accented = format!("description: {}", "é".repeat(1024));
    let compatibility = |length: usize| format!("compatibility: {}", "c".repeat(length));
    vec![
        case(
            "name_64_characters",
            &name_64,
            &[&format!("name: {name_64}"), "description: d"],
        ),
        case(
            "name_65_characters",
            &name_65,
            &[&format!("name: {name_65}"), "description: d"],
        ),
        case(
            "description_1024_characters",
            "long",
            &["name: long", &description(1024)],
        ),
        case(
            "description_1025_characters",
            "longer",
            &["name: longer", &description(1025)],
        ),
        case(
            "description_1024_accented_characters",
            "accented",
            &["name: accented", &accented],
        ),
        named(
            "compatibility_500_characters",
            "compatible",
            &[&compatibility(500)],
        ),
        named(
            "compatibility_501_characters",
            "incompatible",
            &[&compatibility(501)],
        ),
    ]
}

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reference validator, or a failure that says how to install it.
fn reference_validator() -> PathBuf {
    if let Some(path) = std::env::var_os("SKILLS_REF_BIN").filter(|path| !path.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "SKILLS_REF_BIN={} does not exist",
            path.display()
        );
        return path;
    }
    let local = repository_root().join(".venv/bin/agentskills");
    assert!(
        local.is_file(),
        "the reference validator is missing: install it at the repository root with \
         `python3 -m venv .venv && .venv/bin/pip install skills-ref==0.1.1`, or set \
         SKILLS_REF_BIN to the path of `agentskills`"
    );
    local
}

/// Runs a validator and returns whether it judged the skill valid (exit 0) or not (exit 1).
fn verdict(command: &mut Command, label: &str) -> bool {
    let output = command.output().unwrap();
    match output.status.code() {
        Some(0) => true,
        Some(1) => false,
        other => panic!(
            "{label} exited with {other:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

fn valid(flag: bool) -> &'static str {
    if flag { "valid" } else { "invalid" }
}

#[test]
fn strict_mode_agrees_with_the_reference_validator_except_documented_deviations() {
    let reference = reference_validator();
    let ours = assert_cmd::cargo::cargo_bin("skillbook");
    let home = tempfile::tempdir().unwrap();
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let deviations: BTreeMap<&str, (bool, bool)> = DEVIATIONS
        .iter()
        .map(|(name, ours, reference)| (*name, (*ours, *reference)))
        .collect();
    let mut verdicts = BTreeMap::new();
    for case in &cases {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join(&case.folder);
        fs::create_dir(&folder).unwrap();
        fs::write(folder.join(case.file), &case.content).unwrap();
        let strict = verdict(
            Command::new(&ours)
                .env("HOME", home.path())
                .args(["check", "--strict", "--no-home"])
                .arg(&folder),
            "skillbook",
        );
        let reference_verdict = verdict(
            Command::new(&reference).arg("validate").arg(&folder),
            "agentskills",
        );
        verdicts.insert(case.name, (strict, reference_verdict));
    }
    let mut unexpected = Vec::new();
    for (name, (strict, reference_verdict)) in &verdicts {
        let expected = deviations
            .get(name)
            .copied()
            .unwrap_or((*reference_verdict, *reference_verdict));
        if (*strict, *reference_verdict) != expected {
            unexpected.push(format!(
                "{name}: skillbook --strict says {}, the reference says {} (expected {} / {})",
                valid(*strict),
                valid(*reference_verdict),
                valid(expected.0),
                valid(expected.1),
            ));
        }
    }
    let unknown: Vec<&&str> = deviations
        .keys()
        .filter(|name| !verdicts.contains_key(**name))
        .collect();
    assert!(unknown.is_empty(), "deviations without a case: {unknown:?}");
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}

#[test]
fn names_of_cases_are_unique() {
    let cases = cases();
    let mut names: Vec<&str> = cases.iter().map(|case| case.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len());
}

/// The table in `docs/check.md` and [`DEVIATIONS`] list the same cases with the same verdicts.
#[test]
fn the_documented_deviations_are_the_tested_ones() {
    let docs = fs::read_to_string(repository_root().join("docs/check.md")).unwrap();
    let mut documented: Vec<(String, bool, bool)> = docs
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let verdict = |cell: Option<&&str>| match cell.copied() {
                Some("valid") => Some(true),
                Some("invalid") => Some(false),
                _ => None,
            };
            Some((
                name.to_owned(),
                verdict(cells.get(2))?,
                verdict(cells.get(3))?,
            ))
        })
        .collect();
    documented.sort();
    let mut tested: Vec<(String, bool, bool)> = DEVIATIONS
        .iter()
        .map(|(name, ours, reference)| ((*name).to_owned(), *ours, *reference))
        .collect();
    tested.sort();
    assert_eq!(documented, tested);
}
