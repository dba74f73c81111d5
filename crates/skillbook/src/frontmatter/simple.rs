//! The common front matter, read without a YAML parser.
//!
//! Nearly every `SKILL.md` holds a handful of `key: value` lines, perhaps one `metadata:` block
//! of the same, a list of allowed tools and a block scalar for a long description. Building
//! those through a general YAML parser costs more than everything else discovery does, so this
//! module reads exactly that shape and gives up — returning `None`, so the full parser takes
//! over — at the first line that is anything else.
//!
//! The shape it reads:
//!
//! - top-level `key: value` lines whose value is a one-line scalar: plain, single-quoted (`''`
//!   for a quote) or double-quoted (with YAML's escapes), see [`scalar`];
//! - a top-level key with nothing after its colon, followed by nothing (null), by an indented
//!   block of `key: scalar` lines (one level), or by a block list of `- scalar` items (indented
//!   or not);
//! - a top-level flow list `[a, "b", 'c']` on one line;
//! - a top-level block scalar (`|`, `>`, with `-` or `+` chomping), see [`block`];
//! - blank lines and comment lines (a `#` first on its line, outside a block scalar).
//!
//! It gives up on a comment after a value, a flow map, an anchor, alias or tag, a multi-line
//! plain or quoted scalar, a tab, a duplicate key, a value YAML could read as a number or null,
//! an escape or block-scalar header it does not know, or any character outside printable
//! text. What it returns is what the full parser would have made of the same text (a
//! differential property test holds the two together on generated front matter).

use serde_json::{Map, Value};

use super::yaml::TEXT_FIELDS;

mod block;
mod scalar;

use scalar::{flow_list, scalar};

/// One line of the front matter.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    /// The line without its line end.
    content: &'a str,
    /// The line without its leading spaces (tabs are kept: they are never indentation).
    text: &'a str,
    /// The number of leading spaces.
    indent: usize,
    /// A line break ends the line (only the last line of the text may have none).
    has_break: bool,
}

impl<'a> Line<'a> {
    fn new(line: &'a str) -> Self {
        let (content, has_break) = match line.strip_suffix('\n') {
            Some(content) => (content.strip_suffix('\r').unwrap_or(content), true),
            None => match line.strip_suffix('\r') {
                Some(content) => (content, true),
                None => (line, false),
            },
        };
        let text = content.trim_start_matches(' ');
        Line {
            content,
            text,
            indent: content.len() - text.len(),
            has_break,
        }
    }

    /// Nothing but spaces.
    fn is_blank(&self) -> bool {
        self.text.is_empty()
    }
}

/// A top-level key with nothing after its colon, and what has been read below it so far.
enum Pending {
    /// No key is open.
    Nothing,
    /// The key, with nothing below it yet.
    Key(String),
    /// The key, with a block of `key: scalar` lines at `indent` spaces.
    Map(String, Map<String, Value>, usize),
    /// The key, with a block list whose `-` are at `indent` spaces.
    List(String, Vec<Value>, usize),
}

/// The front matter as fields, when it is made only of the simple shape; `None` otherwise.
pub(super) fn parse(raw: &str) -> Option<Map<String, Value>> {
    // Sized for the top-level keys (kept with every skill: no room to spare).
    let keys = raw
        .split('\n')
        .filter(|line| line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .count();
    let mut fields = Map::with_capacity(keys);
    let mut pending = Pending::Nothing;
    let mut lines = raw.split_inclusive('\n').map(Line::new).peekable();
    while let Some(line) = lines.next() {
        if line.is_blank() {
            continue;
        }
        if line.text.starts_with('#') {
            if !printable(line.text) {
                return None;
            }
            continue;
        }
        if let Some(item) = list_item(line.text) {
            pending = push_item(pending, item, line.indent)?;
            continue;
        }
        if line.indent > 0 {
            pending = push_entry(pending, line)?;
            continue;
        }
        close(
            &mut fields,
            std::mem::replace(&mut pending, Pending::Nothing),
        )?;
        let (key, value) = key_value(line.text)?;
        let value = match value.chars().next() {
            None => {
                pending = Pending::Key(key.to_owned());
                continue;
            }
            Some('|' | '>') => Value::String(block::read(value, &mut lines)?),
            Some('[') => flow_list(value)?,
            Some(_) => scalar(value, TEXT_FIELDS.contains(&key))?,
        };
        insert(&mut fields, key.to_owned(), value)?;
    }
    close(&mut fields, pending)?;
    (!fields.is_empty()).then_some(fields)
}

/// The value of a block list item line (`- value`, or `-` alone as an empty value).
fn list_item(text: &str) -> Option<&str> {
    match text.strip_prefix('-')? {
        "" => Some(""),
        rest => rest.strip_prefix(' ').map(|value| value.trim_matches(' ')),
    }
}

/// Adds a block list item at `indent` spaces to the open key.
fn push_item(pending: Pending, item: &str, indent: usize) -> Option<Pending> {
    let (key, mut items, expected) = match pending {
        Pending::Key(key) => (key, Vec::new(), indent),
        Pending::List(key, items, expected) => (key, items, expected),
        Pending::Nothing | Pending::Map(..) => return None,
    };
    if indent != expected || item.is_empty() {
        return None;
    }
    items.push(scalar(item, false)?);
    Some(Pending::List(key, items, expected))
}

/// Adds an indented `key: scalar` line to the open key's block.
fn push_entry(pending: Pending, line: Line<'_>) -> Option<Pending> {
    let (parent, mut nested, expected) = match pending {
        Pending::Key(key) => (key, Map::new(), line.indent),
        Pending::Map(key, nested, expected) => (key, nested, expected),
        Pending::Nothing | Pending::List(..) => return None,
    };
    if line.indent != expected {
        return None;
    }
    let (key, value) = key_value(line.text)?;
    if value.is_empty() {
        return None;
    }
    let value = scalar(value, parent == "metadata")?;
    insert(&mut nested, key.to_owned(), value)?;
    Some(Pending::Map(parent, nested, expected))
}

/// Adds the field of the open key: its block, its list, or null.
fn close(fields: &mut Map<String, Value>, pending: Pending) -> Option<()> {
    let (key, value) = match pending {
        Pending::Nothing => return Some(()),
        Pending::Key(key) => (key, Value::Null),
        // Kept with the skill: no room to spare.
        Pending::Map(key, nested, _) => (key, Value::Object(nested.into_iter().collect())),
        Pending::List(key, items, _) => (key, Value::Array(items.into_iter().collect())),
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
