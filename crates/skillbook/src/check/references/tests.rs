use super::*;

/// `(written, target, form, line, column)` of a reference; the target `None` is outside.
type Found = (String, Option<String>, Form, u64, u64);

fn summarize(references: &[Reference]) -> Vec<Found> {
    references
        .iter()
        .map(|reference| {
            let target = match &reference.target {
                Target::Inside(path) => Some(path.clone()),
                Target::Outside => None,
            };
            (
                reference.written.clone(),
                target,
                reference.form,
                reference.line,
                reference.column,
            )
        })
        .collect()
}

/// The links and inline code of a body alone (it starts on line 1); the words of prose that
/// read as file names are tested on their own.
fn body(text: &str) -> Vec<Found> {
    let mut references = scan(text, 1);
    references.retain(|reference| reference.form != Form::Word);
    summarize(&references)
}

fn link(written: &str, target: &str, line: u64, column: u64) -> Found {
    (
        written.to_owned(),
        Some(target.to_owned()),
        Form::Link,
        line,
        column,
    )
}

fn code(written: &str, target: &str, line: u64, column: u64) -> Found {
    (
        written.to_owned(),
        Some(target.to_owned()),
        Form::Code,
        line,
        column,
    )
}

fn outside(written: &str, form: Form, line: u64, column: u64) -> Found {
    (written.to_owned(), None, form, line, column)
}

#[test]
fn links_images_and_definitions_with_their_positions() {
    let text = "# Forms\n\
                Read [the guide](FORMS.md) and ![a chart](assets/chart.png).\n\
                [ref]: references/api.md \"The API\"\n  \
                [spaced]: <my file.md>\n";
    assert_eq!(
        body(text),
        [
            link("FORMS.md", "FORMS.md", 2, 18),
            link("assets/chart.png", "assets/chart.png", 2, 43),
            link("references/api.md", "references/api.md", 3, 8),
            link("my file.md", "my file.md", 4, 14),
        ]
    );
}

#[test]
fn lines_count_from_the_top_of_the_file_and_the_front_matter_is_not_read() {
    let text = "---\nname: pdf\ndescription: see [x](front.md)\n---\n\nSee [forms](forms.md).\n";
    assert_eq!(
        summarize(&scan(text, 5)),
        [link("forms.md", "forms.md", 6, 13)]
    );
}

#[test]
fn columns_count_characters_and_skip_a_byte_order_mark() {
    assert_eq!(
        body("\u{feff}Ünïcödé [ä](ä.md) `dïr/ö.txt`\n"),
        [
            link("ä.md", "ä.md", 1, 13),
            code("dïr/ö.txt", "dïr/ö.txt", 1, 20),
        ]
    );
}

#[test]
fn inline_code_that_reads_as_a_path() {
    let text = "Run `scripts/fill.py`, read `references/words.md`, `notes.txt`, `.env`, \
                `references/` and `./scripts/x.sh`.\n";
    assert_eq!(
        body(text),
        [
            code("scripts/fill.py", "scripts/fill.py", 1, 6),
            code("references/words.md", "references/words.md", 1, 30),
            code("notes.txt", "notes.txt", 1, 53),
            code(".env", ".env", 1, 66),
            code("references/", "references", 1, 74),
            code("./scripts/x.sh", "scripts/x.sh", 1, 92),
        ]
    );
}

#[test]
fn inline_code_that_is_not_a_path_is_ignored() {
    let spans = [
        "x > 0",
        "--flag",
        "-v",
        "npm install",
        "foo()",
        "{name}",
        "*.md",
        "src/**/*.rs",
        "<file>.md",
        "inc-<date>.md",
        "$HOME/x.md",
        "std::fs::read",
        "https://example.com/x.md",
        "C:\\x\\y.md",
        "/etc/hosts",
        "~/.bashrc",
        "1.0",
        "v1.2.3",
        "e.g.",
        "and or",
        "a=b.md",
        "@scope/pkg",
        "#anchor.md",
        "name",
        "../",
        "/",
    ];
    for span in spans {
        assert_eq!(body(&format!("Use `{span}` here.\n")), [], "{span}");
    }
}

#[test]
fn code_spans_follow_backtick_runs_and_escapes() {
    assert_eq!(
        body("``a `b` scripts/x.py`` and \\`not/code.md` and ``scripts/y.py``\n"),
        [
            code("scripts/y.py", "scripts/y.py", 1, 49),
            // After the escaped backtick, `not/code.md` is plain text, so the closing backtick
            // opens no span.
        ]
    );
    // An unclosed run is literal text, and what follows is still read.
    assert_eq!(body("a ` b [x](x.md)\n"), [link("x.md", "x.md", 1, 11)]);
}

#[test]
fn fenced_code_blocks_are_not_read() {
    let text = "```bash\ncat [x](a.md) `b/c.md`\n```\n\
                ~~~~\n[y](b.md)\n~~~\n~~~~\n\
                   ```\n    [z](c.md)\n   ```\n\
                after [w](d.md)\n";
    assert_eq!(body(text), [link("d.md", "d.md", 11, 11)]);
}

#[test]
fn a_fence_closes_only_with_as_many_markers_of_the_same_kind() {
    let text = "````\n```\n[a](a.md)\n~~~\n````\n[b](b.md)\n";
    assert_eq!(body(text), [link("b.md", "b.md", 6, 5)]);
}

#[test]
fn urls_mail_anchors_and_empty_links_are_ignored() {
    let text = "[a](https://example.com/x.md) [b](mailto:me@example.com) [c](#usage) \
                [d](//cdn.example.com/x.js) [e]() [f](<>) [g](data:text/plain,hi) [h](?x=1) \
                [i](file:///etc/passwd)\n";
    assert_eq!(body(text), []);
}

#[test]
fn fragments_and_queries_are_cut_and_percent_encoding_is_decoded() {
    let text = "[a](forms.md#filling \"Filling\") [b](guide.md?raw=1) [c](my%20file.md) \
                [d](<odd name.md>) [e](a\\(1\\).md) [f](x_(y).md)\n";
    assert_eq!(
        body(text),
        [
            link("forms.md", "forms.md", 1, 5),
            link("guide.md", "guide.md", 1, 37),
            link("my%20file.md", "my file.md", 1, 57),
            link("odd name.md", "odd name.md", 1, 76),
            link("a\\(1\\).md", "a(1).md", 1, 94),
            link("x_(y).md", "x_(y).md", 1, 109),
        ]
    );
}

#[test]
fn paths_are_normalised_and_those_leaving_the_folder_are_outside() {
    let text = "[a](./scripts/../forms.md) [b](../x.md) [c](/etc/passwd) [d](C:\\Windows\\x) \
                [e](~/notes.md) [f](a/../../x) [g](%2e%2e/secret) [h](\\\\server\\share) \
                `../shared/style.md` [i](./)\n";
    assert_eq!(
        body(text),
        [
            link("./scripts/../forms.md", "forms.md", 1, 5),
            outside("../x.md", Form::Link, 1, 32),
            outside("/etc/passwd", Form::Link, 1, 45),
            outside("C:\\Windows\\x", Form::Link, 1, 62),
            outside("~/notes.md", Form::Link, 1, 80),
            outside("a/../../x", Form::Link, 1, 96),
            outside("%2e%2e/secret", Form::Link, 1, 111),
            outside("\\\\server\\share", Form::Link, 1, 130),
            outside("../shared/style.md", Form::Code, 1, 147),
        ]
    );
}

#[test]
fn not_links_are_not_read_as_links() {
    let text = "[a] (a.md) [b](has space.md) \\[c\\](c.md) [d](unclosed.md\n\
                [^1]: footnote.md is a footnote\n\
                [Note]: this line is prose\n    \
                [e]: indented.md\n";
    assert_eq!(body(text), []);
}

#[test]
fn a_link_around_its_own_path_in_code_is_one_reference() {
    assert_eq!(
        body("See [`forms.md`](forms.md).\n"),
        [link("forms.md", "forms.md", 1, 18)]
    );
}

#[test]
fn link_text_may_span_lines() {
    assert_eq!(
        body("See [the long\nguide](guide.md).\n"),
        [link("guide.md", "guide.md", 2, 8)]
    );
}

/// Entries of a skill's folder; a path ending in `/` is a folder.
fn entries(paths: &[&str]) -> Vec<Entry> {
    paths
        .iter()
        .map(|path| match path.strip_suffix('/') {
            Some(folder) => Entry::new(folder.to_owned(), true),
            None => Entry::new((*path).to_owned(), false),
        })
        .collect()
}

#[test]
fn suggestions_prefer_case_then_file_name_then_near_misses() {
    let files = entries(&[
        "forms.md",
        "reference.md",
        "references/",
        "references/words.md",
        "scripts/",
        "scripts/fill.py",
        "a.md",
    ]);
    let cases = [
        ("FORMS.md", Some("forms.md")),
        ("words.md", Some("references/words.md")),
        ("refrence.md", Some("reference.md")),
        ("scripts/fil.py", Some("scripts/fill.py")),
        ("scripts/fill.sh", Some("scripts/fill.py")),
        ("References/Words.md", Some("references/words.md")),
        ("b.md", Some("a.md")),
        ("ab.md", Some("a.md")),
        ("xyz.md", None),
        ("templates/report.md", None),
        ("x.py", None),
    ];
    for (target, expected) in cases {
        assert_eq!(suggestion(target, &files), expected, "{target}");
    }
}

#[test]
fn inline_code_is_the_skills_when_it_starts_in_a_skill_folder() {
    let files = entries(&["templates/", "templates/a.md", "notes.md"]);
    let cases = [
        ("scripts/x.py", true),
        ("references/x.md", true),
        ("assets/logo.png", true),
        ("templates/b.md", true),
        ("Templates/b.md", true),
        ("tempaltes/b.md", true),
        ("src/lib.rs", false),
        ("and/or", false),
        ("package.json", false),
        ("notes.md/x", false),
    ];
    for (target, expected) in cases {
        assert_eq!(
            starts_in_a_skill_folder(target, &files),
            expected,
            "{target}"
        );
    }
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of Markdown that the scanner treats specially, to be joined at random.
    fn markdownish() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "[a](", "](", ")", "![", "]: ", "`", "``", "```\n", "~~~\n", "\n", "<", ">", "../",
            "./", "/", "%", "%2", "%e9", "é", "数", "\\", "#", "?", "x.md", "scripts/", " ", "\t",
            "\r\n", "\u{feff}", "\u{1b}",
        ]);
        prop::collection::vec(pieces, 0..80).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        /// Any text, however it mixes links, code spans and fences, is scanned without a panic,
        /// and every reference points inside the text.
        #[test]
        fn scanning_never_panics_and_positions_stay_in_the_text(
            text in prop_oneof![markdownish(), "(?s).{0,300}"],
            body_line in 1u64..5,
        ) {
            let lines = u64::try_from(text.split('\n').count()).unwrap();
            for reference in scan(&text, body_line) {
                prop_assert!(reference.line >= body_line);
                prop_assert!(reference.line <= lines, "{reference:?}");
                prop_assert!(reference.column >= 1);
            }
        }
    }
}
