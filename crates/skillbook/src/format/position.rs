//! Where a finding is: the line and column of a front matter key or value.

use crate::frontmatter::SkillDocument;

/// A spot in the skill file: 1-based line and 1-based column, in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Spot {
    pub(super) line: u64,
    pub(super) column: u64,
}

/// A `key: value` line of the front matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct KeyLine<'a> {
    /// Where the key starts.
    pub(super) key: Spot,
    /// Where the value starts (inside its opening quote, if any).
    pub(super) value: Spot,
    /// The line from the value's start to its end (without the line end).
    pub(super) value_text: &'a str,
    /// The value opens with a quote (so no YAML reader types it).
    pub(super) quoted: bool,
}

impl KeyLine<'_> {
    /// The spot of the first character of `value` that matches `predicate`.
    pub(super) fn character(&self, value: &str, predicate: impl Fn(char) -> bool) -> Spot {
        match value.chars().position(predicate) {
            Some(index) => self.at(value, index),
            None => self.value,
        }
    }

    /// The spot of `value`'s character number `index` (0-based) in the source line; the value's
    /// start when the source spells the value differently (escapes, folding).
    pub(super) fn at(&self, value: &str, index: usize) -> Spot {
        if !self.value_text.starts_with(value) {
            return self.value;
        }
        Spot {
            line: self.value.line,
            column: self.value.column + index as u64,
        }
    }
}

/// The front matter's lines, as written, with the file line of the first one.
pub(super) struct FrontMatterText<'a> {
    raw: &'a str,
    lines: Vec<&'a str>,
    first_line: u64,
    /// `(line index, key, line)` of each top-level `key: value` line, in order.
    top_level: Vec<(usize, &'a str, KeyLine<'a>)>,
}

impl<'a> FrontMatterText<'a> {
    /// `None` when the document has no front matter.
    pub(super) fn new(document: &'a SkillDocument) -> Option<Self> {
        let raw = document.raw_front_matter.as_deref()?;
        let mut text = FrontMatterText {
            raw,
            lines: raw.split_inclusive('\n').collect(),
            first_line: document.front_matter_line.unwrap_or(2),
            top_level: Vec::new(),
        };
        text.top_level = (text.lines.iter().enumerate())
            .filter_map(|(index, line)| {
                let (key, key_line) = text.key_line(index, line, 0)?;
                Some((index, key, key_line))
            })
            .collect();
        Some(text)
    }

    /// The opening `---` line.
    pub(super) fn opening(&self) -> Spot {
        Spot {
            line: self.first_line.saturating_sub(1).max(1),
            column: 1,
        }
    }

    /// The last top-level line for `key` (the one whose value YAML keeps).
    pub(super) fn key(&self, key: &str) -> Option<KeyLine<'a>> {
        self.top_level
            .iter()
            .rfind(|(_, found, _)| *found == key)
            .map(|(_, _, key_line)| *key_line)
    }

    /// The `key: value` lines directly below the top-level `parent`, in order.
    pub(super) fn nested_keys(&self, parent: &str) -> Vec<(&'a str, KeyLine<'a>)> {
        let Some(parent_index) = self
            .top_level
            .iter()
            .rfind(|(_, found, _)| *found == parent)
            .map(|(index, _, _)| *index)
        else {
            return Vec::new();
        };
        let children = self.lines[parent_index + 1..]
            .iter()
            .enumerate()
            .map(|(offset, line)| (parent_index + 1 + offset, content(line)))
            .take_while(|(_, line)| line.trim().is_empty() || indentation(line) > 0)
            .filter(|(_, line)| !line.trim().is_empty());
        let mut child_indentation = None;
        let mut found = Vec::new();
        for (index, line) in children {
            let indent = *child_indentation.get_or_insert(indentation(line));
            if indentation(line) != indent {
                continue;
            }
            if let Some(key_line) = self.key_line(index, line, indent) {
                found.push(key_line);
            }
        }
        found
    }

    /// The first `wanted` character of the front matter.
    pub(super) fn find_char(&self, wanted: char) -> Option<Spot> {
        if !self.raw.contains(wanted) {
            return None;
        }
        self.lines.iter().enumerate().find_map(|(index, line)| {
            let position = content(line).chars().position(|c| c == wanted)?;
            Some(self.spot(index, position))
        })
    }

    /// The end of the first line that ends with `\r\n`.
    pub(super) fn first_crlf(&self) -> Option<Spot> {
        if !self.raw.contains("\r\n") {
            return None;
        }
        self.lines.iter().enumerate().find_map(|(index, line)| {
            line.ends_with("\r\n")
                .then(|| self.spot(index, content(line).chars().count()))
        })
    }

    fn spot(&self, index: usize, character: usize) -> Spot {
        Spot {
            line: self.first_line + index as u64,
            column: character as u64 + 1,
        }
    }

    /// `(key, line)` when `line` is `key: value` indented by exactly `indent` bytes.
    fn key_line(
        &self,
        index: usize,
        line: &'a str,
        indent: usize,
    ) -> Option<(&'a str, KeyLine<'a>)> {
        let line = content(line);
        if indentation(line) != indent {
            return None;
        }
        let rest = &line[indent..];
        if rest.starts_with(['#', '-', '[', '{', '?']) {
            return None;
        }
        let separator = separator(rest)?;
        let key = unquote(rest[..separator].trim_end());
        if key.is_empty() {
            return None;
        }
        let after = &rest[separator + 1..];
        let mut value_start = indent + separator + 1 + (after.len() - after.trim_start().len());
        let quoted = line[value_start..].starts_with(['"', '\'']);
        if quoted {
            value_start += 1;
        }
        let column_of = |byte: usize| line[..byte].chars().count();
        Some((
            key,
            KeyLine {
                key: self.spot(index, indent),
                value: self.spot(index, column_of(value_start)),
                value_text: &line[value_start..],
                quoted,
            },
        ))
    }
}

/// The byte index of the `:` that ends a key: followed by a space, a tab or the line's end.
fn separator(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let quoted = text.starts_with(['"', '\'']);
    let start = if quoted {
        let quote = bytes[0];
        1 + bytes[1..].iter().position(|byte| *byte == quote)? + 1
    } else {
        0
    };
    (start..bytes.len()).find(|&index| {
        bytes[index] == b':' && matches!(bytes.get(index + 1), None | Some(b' ' | b'\t'))
    })
}

fn unquote(key: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = key
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    key
}

/// The line without its line end.
fn content(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// Leading spaces and tabs, in bytes.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}
