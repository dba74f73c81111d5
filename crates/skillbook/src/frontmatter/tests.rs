use super::*;
use serde_json::json;

fn read(text: &str) -> SkillDocument {
    parse(Path::new("/s/x/SKILL.md"), text)
}

fn codes(document: &SkillDocument) -> Vec<(&'static str, Option<u64>, Option<u64>)> {
    document
        .diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.code.as_str(), diagnostic.line, diagnostic.column))
        .collect()
}

#[test]
fn reads_name_description_and_keeps_every_field_in_order() {
    let document = read(
        "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nargument-hint: \"[file]\"\n\
         metadata:\n  author: ann\n---\n# Body\n",
    );
    assert_eq!(document.name.as_deref(), Some("pdf"));
    assert_eq!(document.description.as_deref(), Some("Fill PDF forms."));
    assert_eq!(
        serde_json::Value::Object(document.fields.clone()),
        json!({"name": "pdf", "description": "Fill PDF forms.", "license": "MIT",
               "argument-hint": "[file]", "metadata": {"author": "ann"}})
    );
    let keys: Vec<&String> = document.fields.keys().collect();
    assert_eq!(
        keys,
        [
            "name",
            "description",
            "license",
            "argument-hint",
            "metadata"
        ]
    );
    assert_eq!(
        document.raw_front_matter.as_deref(),
        Some(
            "name: pdf\ndescription: Fill PDF forms.\nlicense: MIT\nargument-hint: \"[file]\"\n\
             metadata:\n  author: ann\n"
        )
    );
    assert_eq!(document.front_matter_line, Some(2));
    assert_eq!(document.body_line, 9);
    assert!(document.diagnostics.is_empty());
}

#[test]
fn bom_crlf_and_leading_blank_lines_are_accepted() {
    let document = read("\u{feff}\r\n\r\n---\r\nname: a\r\ndescription: b\r\n---  \r\nbody\r\n");
    assert_eq!(document.name.as_deref(), Some("a"));
    assert_eq!(document.description.as_deref(), Some("b"));
    assert_eq!(
        document.raw_front_matter.as_deref(),
        Some("name: a\r\ndescription: b\r\n")
    );
    assert!(document.byte_order_mark);
    assert_eq!(document.front_matter_line, Some(4));
    assert!(document.diagnostics.is_empty());
}

#[test]
fn dashes_inside_a_value_never_close_the_front_matter() {
    let document =
        read("---\nname: a\ndescription: |\n  before\n  ---\n  after\nnote: x --- y\n---\nbody\n");
    assert_eq!(document.description.as_deref(), Some("before\n---\nafter"));
    assert_eq!(document.fields.get("note"), Some(&json!("x --- y")));
}

#[test]
fn unquoted_colon_is_repaired_with_a_warning_at_the_colon() {
    let document = read("---\nname: a\ndescription: Use when: the user asks\n---\n");
    assert_eq!(
        document.description.as_deref(),
        Some("Use when: the user asks")
    );
    assert_eq!(codes(&document), [("repaired_yaml", Some(3), Some(22))]);
    assert_eq!(
        document.diagnostics[0].hint.as_deref(),
        Some(r#"write it as: description: "Use when: the user asks""#)
    );
}

#[test]
fn invalid_yaml_falls_back_to_lines_with_an_error_at_line_and_column() {
    let document = read("---\nname: broken\ndescription: [unclosed\nother: 1\n---\n");
    assert_eq!(document.name.as_deref(), Some("broken"));
    assert_eq!(document.description.as_deref(), Some("[unclosed"));
    let diagnostic = &document.diagnostics[0];
    assert_eq!(diagnostic.code, DiagnosticCode::InvalidYaml);
    assert_eq!(diagnostic.severity, crate::Severity::Error);
    // The parser notices the unclosed flow sequence on its line or the next one.
    assert!(matches!(diagnostic.line, Some(3 | 4)), "{diagnostic}");
    assert!(diagnostic.column.is_some());
    assert_eq!(document.diagnostics.len(), 1);
}

#[test]
fn line_based_fallback_reads_quotes_block_scalars_and_the_flag() {
    let document = read(
        "---\nname: \"quoted\"\ndescription: >\n  folded\n  text\ndisable-model-invocation: True\n\
         bad: [\n---\n",
    );
    assert_eq!(document.name.as_deref(), Some("quoted"));
    assert_eq!(document.description.as_deref(), Some("folded text"));
    assert!(document.disable_model_invocation);
}

#[test]
fn unclosed_front_matter_is_an_error_and_read_line_by_line() {
    let document = read("---\nname: open\ndescription: never closed\n# Heading\n");
    assert_eq!(document.name.as_deref(), Some("open"));
    assert_eq!(document.description.as_deref(), Some("never closed"));
    assert_eq!(
        codes(&document),
        [("unclosed_front_matter", Some(1), Some(1))]
    );
}

#[test]
fn disable_model_invocation_accepts_true_in_any_case_and_the_string() {
    for value in ["true", "True", "TRUE", "\"true\"", "'TRUE'"] {
        let document = read(&format!(
            "---\nname: a\ndescription: b\ndisable-model-invocation: {value}\n---\n"
        ));
        assert!(document.disable_model_invocation, "{value}");
    }
    for value in ["false", "\"yes\"", "1", "~"] {
        let document = read(&format!(
            "---\nname: a\ndescription: b\ndisable-model-invocation: {value}\n---\n"
        ));
        assert!(!document.disable_model_invocation, "{value}");
    }
}

#[test]
fn body_gives_heading_and_first_paragraph_outside_code_fences() {
    let document = read(
        "```\n# not a heading\nnot a paragraph\n```\n# reviewer\n\nReviews code\n  carefully.\n\n\
         Second paragraph.\n",
    );
    assert_eq!(document.name, None);
    assert_eq!(document.heading.as_deref(), Some("reviewer"));
    assert_eq!(
        document.first_paragraph.as_deref(),
        Some("Reviews code carefully.")
    );
    assert_eq!(document.raw_front_matter, None);
}

#[test]
fn headings_follow_markdown_rules() {
    let cases = [
        ("# Title #", Some("Title")),
        ("## C#", Some("C#")),
        ("#hashtag", None),
        ("####### seven", None),
    ];
    for (line, expected) in cases {
        let (heading, _) = first_heading_and_paragraph(line);
        assert_eq!(heading.as_deref(), expected, "{line}");
    }
}

#[test]
fn duplicate_keys_warn_and_the_last_wins() {
    let document = read("---\nname: first\ndescription: d\nname: second\n---\n");
    assert_eq!(document.name.as_deref(), Some("second"));
    assert_eq!(codes(&document), [("duplicate_key", Some(4), Some(1))]);
}

#[test]
fn alias_bombs_are_refused_not_expanded() {
    let mut text =
        String::from("---\nname: bomb\ndescription: d\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for level in 1..9 {
        let previous = format!("*a{}", level - 1);
        let items = [previous.as_str(); 9].join(", ");
        text.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    text.push_str("---\n");
    let document = read(&text);
    assert_eq!(document.name.as_deref(), Some("bomb"));
    assert_eq!(codes(&document)[0].0, "invalid_yaml");
}

#[test]
fn non_mapping_front_matter_is_reported() {
    let document = read("---\n- a\n- b\n---\nbody\n");
    assert_eq!(
        codes(&document),
        [("front_matter_not_mapping", Some(2), Some(1))]
    );
}

#[test]
fn list_valued_name_is_ignored_with_a_warning() {
    let document = read("---\nname: [a, b]\ndescription: d\n---\n");
    assert_eq!(document.name, None);
    assert_eq!(codes(&document), [("invalid_field_type", Some(2), Some(1))]);
}

#[test]
fn tabs_in_front_matter_are_reported_not_fatal() {
    let document = read("---\nname: tabbed\n\tdescription: x\n---\n");
    assert_eq!(document.name.as_deref(), Some("tabbed"));
    assert_eq!(codes(&document)[0].0, "invalid_yaml");
}

#[test]
fn empty_front_matter_has_no_fields() {
    let document = read("---\n---\n# title\n\ntext\n");
    assert!(document.fields.is_empty());
    assert_eq!(document.heading.as_deref(), Some("title"));
    assert!(document.diagnostics.is_empty());
}

#[test]
fn catalog_scanner_stops_after_the_front_matter_when_it_has_everything() {
    let mut scanner = Scanner::new(
        Path::new("/s/SKILL.md"),
        Needs::Catalog {
            usable_name: |name| !name.contains('/'),
        },
    );
    let lines = [
        "---\n",
        "name: a\n",
        "description: b\n",
        "---\n",
        "# body\n",
    ];
    let progress: Vec<Progress> = lines.iter().map(|line| scanner.push_line(line)).collect();
    assert_eq!(progress[3], Progress::Enough);
    let mut scanner = Scanner::new(
        Path::new("/s/SKILL.md"),
        Needs::Catalog {
            usable_name: |name| !name.contains('/'),
        },
    );
    let lines = [
        "---\n",
        "name: a\n",
        "---\n",
        "# heading\n",
        "\n",
        "para\n",
        "\n",
    ];
    let progress: Vec<Progress> = lines.iter().map(|line| scanner.push_line(line)).collect();
    assert_eq!(
        progress,
        [
            Progress::More,
            Progress::More,
            Progress::More,
            Progress::More,
            Progress::More,
            Progress::More,
            Progress::Enough
        ]
    );
    assert_eq!(scanner.finish().first_paragraph.as_deref(), Some("para"));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_text(text in "(?s).{0,400}") {
            let _ = read(&text);
        }

        #[test]
        fn never_panics_on_front_matter_shaped_text(
            lines in proptest::collection::vec(
                "(name|description|disable-model-invocation|metadata|  - x|---|&a|\\*a| )[:a-z\"' \\[\\]{}|>#\t-]{0,20}",
                0..12,
            )
        ) {
            let text = format!("---\n{}\n", lines.join("\n"));
            let document = read(&text);
            prop_assert!(document.diagnostics.iter().all(|d| d.line.is_none_or(|line| line >= 1)));
        }
    }
}

#[test]
fn text_fields_keep_the_scalar_as_written() {
    #[rustfmt::skip]
    let cases = [
        ("yes", "yes"), ("no", "no"), ("off", "off"), ("On", "On"), ("y", "y"),
        ("007", "007"), ("0x1F", "0x1F"), ("1.10", "1.10"), ("1_000", "1_000"),
        ("+1", "+1"), ("1e3", "1e3"), (".inf", ".inf"), ("-.inf", "-.inf"), (".nan", ".nan"),
        ("true", "true"), ("FALSE", "FALSE"), ("12 # a comment", "12"), ("\"1.10\"", "1.10"),
        ("'yes'", "yes"),
    ];
    for (written, kept) in cases {
        let document = read(&format!(
            "---\nname: {written}\ndescription: {written}\nlicense: {written}\n\
             compatibility: {written}\nallowed-tools: {written}\nmetadata:\n  version: {written}\n\
             ---\n"
        ));
        assert_eq!(codes(&document), [], "{written}");
        assert_eq!(document.name.as_deref(), Some(kept), "{written}");
        assert_eq!(document.description.as_deref(), Some(kept), "{written}");
        for key in [
            "name",
            "description",
            "license",
            "compatibility",
            "allowed-tools",
        ] {
            assert_eq!(document.fields[key], json!(kept), "{key}: {written}");
        }
        assert_eq!(
            document.fields["metadata"]["version"],
            json!(kept),
            "{written}"
        );
    }
}

#[test]
fn other_fields_carry_their_yaml_1_2_type() {
    let document = read(
        "---\nname: pdf\nuser-invocable: yes\nversion: 1.10\nretries: 007\nlimit: 1_000\n\
         enabled: true\nratio: .inf\n---\n",
    );
    assert_eq!(codes(&document), []);
    assert_eq!(
        serde_json::Value::Object(document.fields.clone()),
        json!({"name": "pdf", "user-invocable": "yes", "version": 1.1, "retries": "007",
               "limit": "1_000", "enabled": true, "ratio": ".inf"})
    );
}

#[test]
fn only_true_or_the_string_true_makes_a_skill_manual_only() {
    for (written, manual) in [
        ("true", true),
        ("True", true),
        ("TRUE", true),
        ("\"true\"", true),
        ("'TRUE'", true),
        ("yes", false),
        ("on", false),
        ("y", false),
        ("1", false),
        ("false", false),
        ("\"yes\"", false),
    ] {
        let document = read(&format!(
            "---\nname: pdf\ndisable-model-invocation: {written}\n---\n"
        ));
        assert_eq!(document.disable_model_invocation, manual, "{written}");
    }
}

/// Reads `raw` as front matter the way discovery does, with or without the reader of the
/// common shape.
fn front_matter(raw: &str, simple_first: bool) -> SkillDocument {
    let mut document = SkillDocument::default();
    yaml::read_front_matter_with(
        Path::new("/s/x/SKILL.md"),
        raw,
        2,
        &mut document,
        simple_first,
    );
    document
}

#[test]
fn the_common_shape_is_read_without_the_yaml_parser_and_as_the_parser_reads_it() {
    for raw in [
        "name: pdf\ndescription: Fill PDF forms, merge them; or not.\n",
        "name: pdf\r\ndescription: 'Quoted: with # inside'\r\nlicense: MIT\r\n",
        "name: 1.10\ndescription: \"x\"\nmetadata:\n  version: 1.0\n  author: ann\n  hex: 0x1F\n",
        "name: true\ndisable-model-invocation: true\nuser-invocable: false\n",
        "# a comment\nname: pdf\n\nmetadata:\n    owner: team-03\n# between\n    tier: \"gold\"\n",
        "name: café — naïve 漢字 ✨\ndescription: C# and F#, [draft] {x} a:b.\n",
        "license:\nname: pdf\n",
        "metadata:\n  # only a comment\nname: x\n",
        "metadata:\n  author: \"Ann \\\"the\\\" Lee\"\n  note: 'it''s \\ fine'\n",
        "name: \"esc\\\"aped \\u00e9 \\x41 \\\\ \\n\"\n",
        "allowed-tools: [Read, \"Bash(git *)\", 'Grep']\n",
        "allowed-tools: [Bash(git:*), \"Bash(npm *)\", 'Grep']\n",
        "allowed-tools:\n  - Read\n  - Grep\ntags:\n- a\n- 'b'\n",
        "description: >\n  folded\n  text\n\n  kept\nname: x\n",
        "description: |-\n  line one\n    indented\n  # not a comment\n\n# a comment\nname: x\n",
        "description: |+\n  kept\n\n",
    ] {
        assert!(
            simple::parse(raw).is_some(),
            "not the common shape: {raw:?}"
        );
        assert_eq!(front_matter(raw, true), front_matter(raw, false), "{raw:?}");
    }
    for raw in [
        "name: pdf # a comment\n",
        "description: first\n  continued\n",
        "description: |2\n    two\n",
        "description: >\n  folded\n    more indented\n",
        "description: |\n\n  after a blank line\n",
        "description: |\nname: x\n",
        "allowed-tools: [Read, Grep,]\n",
        "allowed-tools: [Read, [Grep]]\n",
        "allowed-tools: [a: b]\n",
        "allowed-tools: [Read] # c\n",
        "tags:\n  - a\n - b\n",
        "tags:\n  - a\n  b: c\n",
        "name: pdf\nname: again\n",
        "metadata:\n  a: x\n  a: y\n",
        "version: 1.0\n",
        "name: ~\n",
        "name: \"unknown \\q escape\"\n",
        "name: \"surrogate \\uD800\"\n",
        "name: \"open\n",
        "name: 'open\n",
        "name: \"x\" # c\n",
        "name: &anchor x\n",
        "name: !!str x\n",
        "name: *alias\n",
        "metadata: {a: b}\n",
        "name:\tpdf\n",
        "name: a\u{a0}\n",
        "description: a\u{85}b\n",
        "metadata:\n  a: b\n    c: d\n",
        "metadata:\n  nested:\n    deeper: x\n",
        "  name: indented\n",
        "null: x\n",
        "enabled: yes\n",
        "ratio: .inf\n",
    ] {
        assert!(
            simple::parse(raw).is_none(),
            "read as the common shape: {raw:?}"
        );
    }
}

#[test]
fn a_comment_line_does_not_end_the_metadata_block_whose_values_keep_their_spelling() {
    // A tab makes the YAML parser read this one, whatever the common-shape reader accepts.
    let raw = "metadata:\n# owner's note\n  version: 1.10\n  hex: 0x1F\nname:\tpdf\n";
    let document = front_matter(raw, true);
    assert_eq!(
        serde_json::Value::Object(document.fields),
        json!({"metadata": {"version": "1.10", "hex": "0x1F"}, "name": "pdf"})
    );
}

/// A YAML error's position is where the file has it: a lone `\r`, which YAML counts as a line
/// end and the file does not, never moves it past the file's last line or a line's end.
#[test]
fn a_yaml_error_lies_inside_the_file_whatever_its_line_ends() {
    for text in [
        "---\nna\r\r\r---\n---",
        "---\na: [\r\rb\n---\n",
        "---\r\nname: x\r\ndescription: [oops\r\n---\r\n",
        "---\nname: x\ndescription: [oops\n---\n",
    ] {
        let document = read(text);
        let lines: Vec<&str> = text.split('\n').collect();
        let invalid: Vec<_> = codes(&document)
            .into_iter()
            .filter(|(code, ..)| *code == "invalid_yaml")
            .collect();
        assert_eq!(invalid.len(), 1, "{text:?}: {:?}", document.diagnostics);
        let (_, line, column) = invalid[0];
        let (line, column) = (line.unwrap() as usize, column.unwrap() as usize);
        assert!(line >= 1 && line <= lines.len(), "{text:?}: line {line}");
        let length = lines[line - 1].chars().count();
        assert!(
            column >= 1 && column <= length + 1,
            "{text:?}: {line}:{column}"
        );
    }
}

/// The parser's limits and the documents it counts are said in the front matter's words.
#[test]
fn yaml_messages_speak_to_the_skills_author() {
    let mut aliases = String::from("---\nname: x\na: &a [x, x, x, x, x, x, x, x, x, x]\n");
    let mut previous = "a".to_owned();
    for level in 0..12 {
        let refs = vec![format!("*{previous}"); 10].join(", ");
        aliases.push_str(&format!("b{level}: &b{level} [{refs}]\n"));
        previous = format!("b{level}");
    }
    aliases.push_str("---\n");
    for (text, expected) in [
        (
            aliases.as_str(),
            "its aliases (`*name`) repeat what they stand for",
        ),
        (
            "---\nname: x\n...\nname: y\n---\n",
            "it holds more than one YAML document",
        ),
    ] {
        let document = read(text);
        let message = &document.diagnostics[0].message;
        assert!(message.contains(expected), "{message}");
        assert!(!message.contains("from_str"), "{message}");
        assert_eq!(
            message.matches('(').count(),
            message.matches(')').count(),
            "{message}"
        );
    }
}
