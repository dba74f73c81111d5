//! The reader of the common shape ([`super::simple`]) against the YAML parser, on generated
//! front matter: made only of the common shape, it must be read without the parser, and
//! whenever it is read without the parser (near misses included), the document — fields, their
//! order and the diagnostics — must be the one the parser gives.

use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use super::{SkillDocument, simple, yaml};

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

/// The document's fields as JSON text, which keeps their order (map equality does not).
fn in_order(document: &SkillDocument) -> String {
    Value::Object(document.fields.clone()).to_string()
}

/// Fails unless both readings of `raw` give the same document, in the same order.
fn assert_same(raw: &str) -> Result<(), TestCaseError> {
    let fast = front_matter(raw, true);
    let parsed = front_matter(raw, false);
    prop_assert_eq!(&fast, &parsed, "{:?}", raw);
    prop_assert_eq!(in_order(&fast), in_order(&parsed), "{:?}", raw);
    Ok(())
}

/// Keys the format defines, one clients add, and (`near`) keys YAML reads otherwise.
fn key(near: bool) -> BoxedStrategy<String> {
    let plain = prop_oneof![
        Just("name"),
        Just("description"),
        Just("license"),
        Just("compatibility"),
        Just("allowed-tools"),
        Just("disable-model-invocation"),
        Just("version"),
        Just("argument-hint"),
        Just("x_custom.key"),
    ];
    if !near {
        return plain.prop_map(str::to_owned).boxed();
    }
    prop_oneof![
        8 => plain,
        1 => prop_oneof![Just("Yes"), Just("null"), Just("1a"), Just("a b"), Just("\"k\""),
                         Just("? k"), Just("&a k"), Just("!!str k"), Just("k\t")],
    ]
    .prop_map(str::to_owned)
    .boxed()
}

/// Plain text YAML cannot type.
fn words() -> impl Strategy<Value = String> {
    "[a-zA-Z]{2,6}-[a-zA-Z0-9 ,.()/é—✨漢_-]{0,12}[a-zA-Z0-9.)]"
}

/// Text for inside quotes, with the characters that matter to YAML.
fn quotable() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 :#,.\\[\\]{}|>&*!%@`~?=é—✨-]{0,14}"
}

/// A double-quoted scalar, with the escapes YAML knows (and, when `near`, some it does not).
fn double_quoted(near: bool) -> BoxedStrategy<String> {
    let known = prop_oneof![
        Just("\\\""),
        Just("\\\\"),
        Just("\\/"),
        Just("\\n"),
        Just("\\t"),
        Just("\\r"),
        Just("\\0"),
        Just("\\a"),
        Just("\\b"),
        Just("\\v"),
        Just("\\f"),
        Just("\\e"),
        Just("\\ "),
        Just("\\N"),
        Just("\\_"),
        Just("\\L"),
        Just("\\P"),
        Just("\\x41"),
        Just("\\u00e9"),
        Just("\\u263A"),
        Just("\\U0001F600"),
    ];
    let escape = if near {
        prop_oneof![
            6 => known,
            1 => prop_oneof![Just("\\q"), Just("\\x4"), Just("\\uD800"), Just("\\U00110000"),
                             Just("\\'"), Just("\\"), Just("\t"), Just("\"")],
        ]
        .boxed()
    } else {
        known.boxed()
    };
    proptest::collection::vec(
        prop_oneof![quotable(), escape.prop_map(str::to_owned)],
        0..4,
    )
    .prop_map(|parts| format!("\"{}\"", parts.concat()))
    .boxed()
}

/// A single-quoted scalar, `''` standing for a quote.
fn single_quoted() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![quotable(), Just("''".to_owned()), Just("\\".to_owned())],
        0..4,
    )
    .prop_map(|parts| format!("'{}'", parts.concat()))
}

/// A one-line scalar: plain, quoted, or (`near`) one of the values YAML types or refuses.
fn scalar(near: bool) -> BoxedStrategy<String> {
    let common = prop_oneof![
        4 => words(),
        2 => double_quoted(near),
        2 => single_quoted(),
        1 => prop_oneof![Just("true"), Just("false"), Just("\"1.0\""), Just("'007'")]
            .prop_map(str::to_owned),
    ];
    if !near {
        return common.boxed();
    }
    prop_oneof![
        8 => common,
        2 => prop_oneof![
            Just("True"), Just("yes"), Just("~"), Just("null"), Just("007"), Just("0x1F"),
            Just("1.10"), Just("1_000"), Just("+1"), Just("-2"), Just("1e3"), Just(".inf"),
            Just(".nan"), Just("2024-01-01"), Just(""), Just("&a x"), Just("*a"), Just("!!str x"),
            Just("{a: b}"), Just("x # c"), Just("a: b"), Just("\"x\" # c"), Just("'x' y"),
            Just("\"open"), Just("|"), Just(">-"), Just("[a, b]"), Just("- a"), Just("x\ty"),
            Just("a\u{a0}b"), Just("a\u{85}b"), Just("'it''s'"), Just("''''"),
        ]
        .prop_map(str::to_owned),
        1 => "[a-z0-9 :#'\"\\\\.,\\-\\[\\]{}|>&*!%@`~?\t\u{a0}\u{2028}é]{0,12}",
    ]
    .boxed()
}

/// A flow-list item: plain text YAML cannot type, or quoted.
fn flow_item(near: bool) -> BoxedStrategy<String> {
    let common = prop_oneof![
        4 => "(Read|Grep|Glob|Edit|Write|Bash|WebFetch)(\\([a-z]+(:\\*| \\*)?\\))?",
        1 => double_quoted(false),
        1 => single_quoted(),
    ];
    if !near {
        return common.boxed();
    }
    prop_oneof![
        6 => common,
        1 => prop_oneof![Just("a:b"), Just("a :b"), Just("a:"), Just("http://x"), Just("a: b"), Just("[x]"), Just("{x}"), Just("1"),
                         Just("true"), Just("~"), Just(""), Just("x # c"), Just("&a x")]
            .prop_map(str::to_owned),
    ]
    .boxed()
}

/// A top-level list: a block list (indented or not) or a flow list.
fn list(near: bool) -> BoxedStrategy<String> {
    let block = (
        prop_oneof![Just(0usize), Just(2), Just(4)],
        proptest::collection::vec(flow_item(near), 1..4),
    )
        .prop_map(|(indent, items)| {
            items
                .iter()
                .map(|item| format!("\n{:indent$}- {item}", ""))
                .collect::<String>()
        });
    let flow = (
        proptest::collection::vec(flow_item(near), 0..4),
        prop_oneof![Just(", "), Just(","), Just(" , ")],
    )
        .prop_map(|(items, separator)| format!(" [{}]", items.join(separator)));
    prop_oneof![block, flow].boxed()
}

/// A block scalar: header, then lines of text at one indentation (and, when `near`, lines
/// indented more, blank lines with stray spaces, tabs and headers this reader leaves alone).
fn block_scalar(near: bool) -> BoxedStrategy<String> {
    let header = prop_oneof![
        Just("|"),
        Just(">"),
        Just("|-"),
        Just(">-"),
        Just("|+"),
        Just(">+")
    ];
    let header = if near {
        prop_oneof![
            6 => header,
            1 => prop_oneof![Just("|2"), Just(">1-"), Just("| # c"), Just("|-+"), Just("|x")],
        ]
        .boxed()
    } else {
        header.boxed()
    };
    let line = if near {
        prop_oneof![
            6 => words(),
            2 => Just(String::new()),
            1 => prop_oneof![Just("  more indented"), Just("# not a comment"), Just("a: b"),
                             Just("- item"), Just("x\ty"), Just("\"q\""), Just("<blank>"),
                             Just("<deeper>"), Just("<shallower>")]
                .prop_map(str::to_owned),
        ]
        .boxed()
    } else {
        prop_oneof![
            6 => words(),
            2 => Just(String::new()),
            1 => prop_oneof![Just("# not a comment"), Just("a: b"), Just("- item"), Just("---")]
                .prop_map(str::to_owned),
        ]
        .boxed()
    };
    (
        header,
        prop_oneof![Just(1usize), Just(2), Just(4)],
        words(),
        proptest::collection::vec(line, 0..5),
        0..3usize,
    )
        .prop_map(|(header, indent, first, lines, trailing)| {
            let mut text = format!(" {header}\n{:indent$}{first}", "");
            for line in lines {
                // Blank lines: empty, of the block's indentation, and of more or less.
                let line = match line.as_str() {
                    "" => String::new(),
                    "<blank>" => " ".repeat(indent),
                    "<deeper>" => " ".repeat(indent + 1),
                    "<shallower>" => " ".repeat(indent - 1),
                    text => format!("{:indent$}{text}", ""),
                };
                text.push('\n');
                text.push_str(&line);
            }
            text.push_str(&"\n".repeat(trailing));
            text
        })
        .boxed()
}

/// A `metadata:` map (or another key's) of one level, its entries at one indentation (or, when
/// `near`, sometimes not).
fn map(near: bool) -> BoxedStrategy<String> {
    let indent = prop_oneof![Just(2usize), Just(4)];
    let shift = if near {
        prop_oneof![6 => Just(0isize), 1 => Just(-1), 1 => Just(1)].boxed()
    } else {
        Just(0isize).boxed()
    };
    let entry = (
        prop_oneof![
            Just("author"),
            Just("version"),
            Just("owner"),
            Just("tier"),
            Just("a.b")
        ],
        scalar(near),
        shift,
    );
    (
        prop_oneof![4 => Just("metadata"), 1 => Just("extra")],
        indent,
        proptest::collection::vec(entry, 1..5),
    )
        .prop_map(|(key, indent, entries)| {
            let body: String = entries
                .iter()
                .map(|(name, value, shift)| {
                    let indent = indent.saturating_add_signed(*shift);
                    format!("\n{:indent$}{name}: {value}", "")
                })
                .collect();
            format!("{key}:{body}")
        })
        .boxed()
}

/// One field (one or more lines, without the last line end), or a blank or comment line.
fn field(near: bool) -> BoxedStrategy<String> {
    let common = prop_oneof![
        6 => (key(near), scalar(near)).prop_map(|(key, value)| format!("{key}: {value}")),
        2 => map(near),
        2 => (prop_oneof![3 => Just("allowed-tools".to_owned()), 1 => key(near)], list(near))
            .prop_map(|(key, list)| format!("{key}:{list}")),
        2 => (prop_oneof![3 => Just("description".to_owned()), 1 => key(near)], block_scalar(near))
            .prop_map(|(key, block)| format!("{key}:{block}")),
        1 => prop_oneof![Just(""), Just("# a comment"), Just("license:")]
            .prop_map(str::to_owned),
    ];
    if !near {
        return common.boxed();
    }
    prop_oneof![
        12 => common,
        1 => prop_oneof![Just("  # indented comment"), Just("- stray"), Just("  stray: x"), Just("\tname: x"), Just("..."),
                         Just("--- x"), Just("%YAML 1.2"), Just("{a: b}"), Just("? a"),
                         Just("name: &anchor x"), Just("license: *anchor"), Just("k: !!int 1"),
                         Just("description: first\n  continued"), Just("name: a # c")]
            .prop_map(str::to_owned),
    ]
    .boxed()
}

/// A front matter of a few fields, with `\n` or `\r\n` line ends (and, when `near`, sometimes
/// none after the last line).
fn front_matter_text(near: bool) -> impl Strategy<Value = String> {
    let unended = if near {
        any::<bool>().boxed()
    } else {
        Just(false).boxed()
    };
    (
        proptest::collection::vec(field(near), 1..7),
        any::<bool>(),
        unended,
    )
        .prop_map(|(fields, crlf, unended)| {
            let end = if crlf { "\r\n" } else { "\n" };
            let mut text: String = fields.iter().map(|field| format!("{field}\n")).collect();
            if unended {
                text.pop();
            }
            text.replace('\n', end)
        })
}

/// Whether `raw` repeats a top-level key (or a key of one block), which this reader leaves to
/// the parser on purpose (so that it warns).
fn repeats_a_key(raw: &str) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut block = String::new();
    for line in raw.lines() {
        let Some((key, _)) = line.split_once(':') else {
            continue;
        };
        let name = key.trim_start();
        if name.is_empty() || name.starts_with(['-', '#']) || name.contains(' ') {
            continue;
        }
        if !key.starts_with(' ') {
            block = key.to_owned();
        }
        if !seen.insert(format!("{block}/{key}")) {
            return true;
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Front matter made only of the common shape is read without the YAML parser, and as the
    /// parser reads it (a repeated key aside: the parser warns about it).
    #[test]
    fn the_common_shape_stays_on_the_fast_path(raw in front_matter_text(false)) {
        // Blank lines and comments alone are no fields, which the parser is not asked about.
        let exempt = repeats_a_key(&raw) || front_matter(&raw, false).fields.is_empty();
        prop_assert!(simple::parse(&raw).is_some() || exempt, "left the fast path: {:?}", raw);
        assert_same(&raw)?;
    }

    /// Whenever the common-shape reader accepts a front matter, near misses included, the
    /// whole document it gives is the one the YAML parser gives.
    #[test]
    fn the_fast_path_declines_or_agrees(raw in front_matter_text(true)) {
        if simple::parse(&raw).is_some() {
            assert_same(&raw)?;
        }
    }
}
