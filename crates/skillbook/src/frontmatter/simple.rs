//! The common front matter, read without a YAML parser.
//!
//! Nearly every `SKILL.md` holds a handful of `key: value` lines and perhaps one `metadata:`
//! block of the same. Building those through a general YAML parser costs more than everything
//! else discovery does, so this module reads exactly that shape and gives up — returning `None`,
//! so the full parser takes over — at the first line that is anything else: a comment after a
//! value, a block or flow collection, a multi-line or block scalar, an escape, a tab, a
//! duplicate key, a value YAML could read as a number or null, or any character outside
//! printable text. What it returns is what the full parser would have made of the same text
//! (a differential test holds the two together on generated front matter).

use serde_json::{Map, Value};

use super::yaml::TEXT_FIELDS;

/// The front matter as fields, when it is made only of the simple shape; `None` otherwise.
pub(super) fn parse(raw: &str) -> Option<Map<String, Value>> {
    // Sized for the top-level keys (kept with every skill: no room to spare).
    let keys = raw
        .split('\n')
        .filter(|line| line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .count();
    let mut fields = Map::with_capacity(keys);
    // The top-level key whose indented block is being read, and that block's indentation.
    let mut block: Option<(String, Map<String, Value>, usize)> = None;
    for line in raw.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            if content.starts_with('#') && !printable(content) {
                return None;
            }
            continue;
        }
        let indent = line.len() - content.len();
        if indent == 0 {
            if let Some(block) = block.take() {
                close(&mut fields, block)?;
            }
            let (key, value) = key_value(content)?;
            if value.is_empty() {
                block = Some((key.to_owned(), Map::new(), 0));
                continue;
            }
            let value = scalar(value, TEXT_FIELDS.contains(&key))?;
            insert(&mut fields, key.to_owned(), value)?;
            continue;
        }
        // An indented line belongs to the block of the key above it, at one indentation.
        let (parent, nested, expected) = block.as_mut()?;
        if *expected == 0 {
            *expected = indent;
        } else if indent != *expected {
            return None;
        }
        let (key, value) = key_value(content)?;
        if value.is_empty() {
            return None;
        }
        let value = scalar(value, parent == "metadata")?;
        insert(nested, key.to_owned(), value)?;
    }
    if let Some(block) = block.take() {
        close(&mut fields, block)?;
    }
    (!fields.is_empty()).then_some(fields)
}

/// Adds the field of a key with no value on its line: its indented block, or null.
fn close(
    fields: &mut Map<String, Value>,
    (key, nested, indent): (String, Map<String, Value>, usize),
) -> Option<()> {
    let value = if indent == 0 {
        Value::Null
    } else {
        // Kept with the skill: no room to spare.
        Value::Object(nested.into_iter().collect())
    };
    insert(fields, key, value)
}

/// Adds a field; `None` when the key is already there (duplicates go to the full parser).
fn insert(fields: &mut Map<String, Value>, key: String, value: Value) -> Option<()> {
    match fields.entry(key) {
        serde_json::map::Entry::Occupied(_) => None,
        serde_json::map::Entry::Vacant(entry) => {
            entry.insert(value);
            Some(())
        }
    }
}

/// `key: value` (the value trimmed, empty when the line ends after the colon), for a plain key
/// of letters, digits, `_`, `-` and `.` that YAML cannot read as anything but text.
fn key_value(content: &str) -> Option<(&str, &str)> {
    let (key, rest) = content.split_once(':')?;
    let mut characters = key.chars();
    let first = characters.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !characters.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        || typed_word(key)
    {
        return None;
    }
    if rest.is_empty() {
        return Some((key, ""));
    }
    let value = rest.strip_prefix(' ')?;
    Some((key, value.trim_matches(' ')))
}

/// A one-line scalar: quoted without escapes, or plain. `as_text` keeps a plain scalar as
/// written (the format's text fields and metadata values); otherwise only plain text that YAML
/// cannot type is accepted, besides `true` and `false`.
fn scalar(value: &str, as_text: bool) -> Option<Value> {
    if !printable(value) {
        return None;
    }
    for quote in ['"', '\''] {
        if let Some(rest) = value.strip_prefix(quote) {
            let inner = rest.strip_suffix(quote)?;
            if inner.contains(quote) || (quote == '"' && inner.contains('\\')) {
                return None;
            }
            return Some(Value::String(inner.to_owned()));
        }
    }
    let first = value.chars().next()?;
    if "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || value.ends_with(':')
        || value.contains(": ")
        || value.contains(" #")
    {
        return None;
    }
    if as_text {
        if typed_word(value) && !matches!(value, "true" | "false") {
            return None;
        }
        return Some(Value::String(value.to_owned()));
    }
    match value {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        _ => {}
    }
    if typed_word(value) || first.is_ascii_digit() || first == '.' || first == '+' {
        return None;
    }
    Some(Value::String(value.to_owned()))
}

/// Words some YAML schema reads as null, a boolean or a float.
fn typed_word(word: &str) -> bool {
    [
        "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", "inf", "nan", "infinity",
    ]
    .iter()
    .any(|typed| word.eq_ignore_ascii_case(typed))
}

/// Printable text with no tab, no line break of any kind, no byte-order mark and no
/// whitespace other than the ASCII space (which is all YAML trims).
fn printable(text: &str) -> bool {
    text.chars().all(|c| {
        if c.is_ascii() {
            (' '..='~').contains(&c)
        } else {
            !(c <= '\u{a0}'
                || c.is_whitespace()
                || c.is_control()
                || matches!(
                    c,
                    '\u{feff}' | '\u{fffe}' | '\u{ffff}' | '\u{2028}' | '\u{2029}'
                ))
        }
    })
}
