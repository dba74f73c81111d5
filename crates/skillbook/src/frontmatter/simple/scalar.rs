//! One-line scalars — plain, single-quoted and double-quoted — and one-line flow lists of
//! them, read as YAML's core schema reads them (or not at all).

use serde_json::Value;

use super::{printable, typed_word};

/// The characters that may not start a plain scalar (YAML's indicators).
const INDICATORS: &str = "-?:,[]{}#&*!|>'\"%@`";

/// A one-line scalar. A quoted one is always text. `as_text` keeps a plain scalar as written
/// (the format's text fields and metadata values); otherwise only plain text that YAML cannot
/// type is accepted, besides `true` and `false`.
pub(super) fn scalar(value: &str, as_text: bool) -> Option<Value> {
    if !printable(value) {
        return None;
    }
    if value.starts_with(['"', '\'']) {
        let (text, rest) = quoted(value)?;
        return rest.is_empty().then_some(Value::String(text));
    }
    plain(value, as_text)
}

/// A plain scalar, as [`scalar`] reads it.
fn plain(value: &str, as_text: bool) -> Option<Value> {
    let first = value.chars().next()?;
    if INDICATORS.contains(first)
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

/// The quoted scalar `value` starts with, and the text after its closing quote; `None` when it
/// is not closed on this line or uses an escape this reader does not know.
pub(super) fn quoted(value: &str) -> Option<(String, &str)> {
    let mut characters = value.char_indices();
    let (_, quote) = characters.next()?;
    let mut text = String::with_capacity(value.len());
    while let Some((offset, character)) = characters.next() {
        match (quote, character) {
            ('\'', '\'') => {
                if characters.clone().next().map(|(_, next)| next) != Some('\'') {
                    return Some((text, &value[offset + 1..]));
                }
                characters.next();
                text.push('\'');
            }
            ('"', '"') => return Some((text, &value[offset + 1..])),
            ('"', '\\') => text.push(escape(&mut characters)?),
            (_, other) => text.push(other),
        }
    }
    None
}

/// The character of the escape after a `\` in a double-quoted scalar (YAML 1.2's list, but
/// for the escaped tab and line break, which this reader never sees in printable text).
fn escape(characters: &mut std::str::CharIndices<'_>) -> Option<char> {
    let (_, letter) = characters.next()?;
    let character = match letter {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        'e' => '\u{1b}',
        ' ' => ' ',
        '"' => '"',
        '/' => '/',
        '\\' => '\\',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        'x' => return hexadecimal(characters, 2),
        'u' => return hexadecimal(characters, 4),
        'U' => return hexadecimal(characters, 8),
        _ => return None,
    };
    Some(character)
}

/// The character whose code point is the next `digits` hexadecimal digits; `None` for a
/// surrogate or a number beyond Unicode.
fn hexadecimal(characters: &mut std::str::CharIndices<'_>, digits: usize) -> Option<char> {
    let mut code = 0u32;
    for _ in 0..digits {
        let (_, digit) = characters.next()?;
        code = code * 16 + digit.to_digit(16)?;
    }
    char::from_u32(code)
}

/// A one-line flow list, `[a, "b", 'c']`, of scalars typed as [`scalar`] types them outside
/// the text fields. `None` for a nested collection, a `key: value` pair, a trailing comma or
/// anything after the closing bracket.
pub(super) fn flow_list(value: &str) -> Option<Value> {
    if !printable(value) {
        return None;
    }
    let mut rest = value.strip_prefix('[')?.trim_start_matches(' ');
    let mut items = Vec::new();
    if let Some(after) = rest.strip_prefix(']') {
        return after.is_empty().then_some(Value::Array(items));
    }
    loop {
        let (item, after) = flow_item(rest)?;
        items.push(item);
        let after = after.trim_start_matches(' ');
        if let Some(after) = after.strip_prefix(',') {
            rest = after.trim_start_matches(' ');
            continue;
        }
        let after = after.strip_prefix(']')?;
        // Kept with the skill: no room to spare.
        return after
            .is_empty()
            .then(|| Value::Array(items.into_iter().collect()));
    }
}

/// The flow list item `text` starts with, and the text after it.
fn flow_item(text: &str) -> Option<(Value, &str)> {
    if text.starts_with(['"', '\'']) {
        let (item, rest) = quoted(text)?;
        return Some((Value::String(item), rest));
    }
    let end = text.find([',', ']', '[', '{', '}'])?;
    if !text[end..].starts_with([',', ']']) {
        return None;
    }
    // A `:` here is never one of a `key: value` pair: [`plain`] refuses `: ` and a final `:`,
    // and the item ends before any flow indicator.
    let item = text[..end].trim_end_matches(' ');
    Some((plain(item, false)?, &text[end..]))
}
