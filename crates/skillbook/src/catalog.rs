//! The catalog: the small, cache-stable `<available_skills>` block a model sees.
//!
//! Rules (SPEC §4):
//!
//! 1. Only model-visible skills (not `disable-model-invocation`) are listed. With none left there
//!    is no catalog at all: [`Catalog::render`] returns `None`.
//! 2. Entries are sorted by name, then description, then location, so the same skills always
//!    give the same bytes and a provider's prompt cache survives; [`Fingerprint`] names them.
//! 3. `&`, `<`, `>`, `"` and `'` are escaped in every value.
//! 4. The surrounding instructions name the reader tool ([`Catalog::reader`]).
//! 5. With a budget, entries that do not fit are left out from the end of the sorted list and
//!    the catalog says how many.

use std::borrow::Cow;
use std::fmt;

use crate::skill::Skill;
use crate::sources::ProvidedSkill;

/// The reader tool's default name.
pub const DEFAULT_READER: &str = "read_file";

const INTRODUCTION: &str = include_str!("catalog/introduction.md");
const CLOSING: &str = include_str!("catalog/closing.md");

/// Builds the catalog for a set of skills.
///
/// ```
/// use skillbook::Catalog;
///
/// // No model-visible skills: no catalog at all.
/// assert!(Catalog::new([]).render().is_none());
/// ```
#[derive(Debug, Clone)]
pub struct Catalog<'a> {
    entries: Vec<CatalogEntry<'a>>,
    reader: String,
    budget: Option<usize>,
}

impl<'a> Catalog<'a> {
    /// A catalog of discovered `skills`; manual-only skills are left out when rendering.
    pub fn new(skills: impl IntoIterator<Item = &'a Skill>) -> Self {
        Catalog::from_entries(skills.into_iter().map(CatalogEntry::from))
    }

    /// A catalog of any entries (discovered skills, provided skills, or both).
    pub fn from_entries(entries: impl IntoIterator<Item = CatalogEntry<'a>>) -> Self {
        Catalog {
            entries: entries.into_iter().collect(),
            reader: DEFAULT_READER.to_owned(),
            budget: None,
        }
    }

    /// The reader tool the instructions name. Default: [`DEFAULT_READER`] (`read_file`).
    pub fn reader(&mut self, tool_name: impl Into<String>) -> &mut Self {
        self.reader = tool_name.into();
        self
    }

    /// The most characters the whole catalog may take. Default: no limit.
    pub fn budget(&mut self, characters: usize) -> &mut Self {
        self.budget = Some(characters);
        self
    }

    /// Renders the catalog, or `None` when no skill is model-visible.
    pub fn render(&self) -> Option<RenderedCatalog> {
        // Each entry with its sort key, trimmed once rather than at every comparison.
        let mut keyed: Vec<((&str, &str, &str), &CatalogEntry<'_>)> = self
            .entries
            .iter()
            .filter(|entry| entry.model_visible)
            .map(|entry| (entry.sort_key(), entry))
            .collect();
        if keyed.is_empty() {
            return None;
        }
        keyed.sort_unstable_by(|left, right| left.0.cmp(&right.0));
        let entries: Vec<&CatalogEntry<'_>> = keyed.into_iter().map(|(_, entry)| entry).collect();
        let introduction = INTRODUCTION.replace("{reader}", &self.reader);
        let closing = CLOSING.replace("{reader}", &self.reader);
        // Every entry rendered into the text itself, with where each ends; what the budget
        // leaves out is cut off again.
        let size: usize = entries
            .iter()
            .map(|entry| entry.name.len() + entry.description.len() + entry.location.len() + 96)
            .sum();
        let mut text = String::with_capacity(size + introduction.len() + closing.len() + 256);
        push_opening(&mut text, &introduction);
        let start = text.len();
        let mut ends = Vec::with_capacity(entries.len());
        for entry in &entries {
            entry.render_into(&mut text);
            ends.push(text.len());
        }
        let listed = self.fitting(&introduction, &text, start, &ends, &closing);
        text.truncate(listed.checked_sub(1).map_or(start, |last| ends[last]));
        push_closing(&mut text, ends.len() - listed, &closing);
        Some(RenderedCatalog {
            fingerprint: Fingerprint::of(&text),
            text,
            listed,
            left_out: ends.len() - listed,
        })
    }

    /// How many leading entries fit the budget; the entries are `text[start..]`, each ending
    /// at its position in `ends`.
    fn fitting(
        &self,
        introduction: &str,
        text: &str,
        start: usize,
        ends: &[usize],
        closing: &str,
    ) -> usize {
        let Some(budget) = self.budget else {
            return ends.len();
        };
        let mut bare = String::new();
        push_opening(&mut bare, introduction);
        push_closing(&mut bare, 0, closing);
        let bare = bare.chars().count();
        let frame = |left_out: usize| bare + left_out_note(left_out).chars().count();
        let mut used = 0;
        let mut from = start;
        for (index, &end) in ends.iter().enumerate() {
            used += text[from..end].chars().count();
            from = end;
            if frame(ends.len() - index - 1) + used > budget {
                return index;
            }
        }
        ends.len()
    }
}

/// What comes before the entries.
fn push_opening(text: &mut String, introduction: &str) {
    text.push_str(introduction.trim_end());
    text.push_str("\n\n<available_skills>\n");
}

/// What comes after the entries.
fn push_closing(text: &mut String, left_out: usize, closing: &str) {
    text.push_str("</available_skills>\n");
    text.push_str(&left_out_note(left_out));
    text.push('\n');
    text.push_str(closing.trim_end());
}

/// The line saying how many skills the budget left out (empty when none).
fn left_out_note(left_out: usize) -> String {
    match left_out {
        0 => String::new(),
        1 => "(1 more skill is not listed: the catalog size limit was reached.)\n".to_owned(),
        _ => format!(
            "({left_out} more skills are not listed: the catalog size limit was reached.)\n"
        ),
    }
}

/// What the model sees of one skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatalogEntry<'a> {
    /// The skill's name.
    pub name: Cow<'a, str>,
    /// When to use it.
    pub description: Cow<'a, str>,
    /// Where the reader finds its SKILL.md: an absolute path or a `skill://` URI.
    pub location: Cow<'a, str>,
    /// False for manual-only skills, which are never listed.
    pub model_visible: bool,
}

impl<'a> CatalogEntry<'a> {
    /// An entry from its parts.
    pub fn new(
        name: impl Into<Cow<'a, str>>,
        description: impl Into<Cow<'a, str>>,
        location: impl Into<Cow<'a, str>>,
        model_visible: bool,
    ) -> Self {
        CatalogEntry {
            name: name.into(),
            description: description.into(),
            location: location.into(),
            model_visible,
        }
    }

    fn sort_key(&self) -> (&str, &str, &str) {
        (self.name.trim(), self.description.trim(), &self.location)
    }

    fn render_into(&self, text: &mut String) {
        text.push_str("  <skill>\n    <name>");
        text.push_str(&escape_xml(&carriable(self.name.trim())));
        text.push_str("</name>\n    <description>");
        text.push_str(&escape_xml(&carriable(self.description.trim())));
        text.push_str("</description>\n    <location>");
        text.push_str(&escape_xml(&carriable(&self.location)));
        text.push_str("</location>\n  </skill>\n");
    }
}

impl<'a> From<&'a Skill> for CatalogEntry<'a> {
    fn from(skill: &'a Skill) -> Self {
        CatalogEntry::new(
            skill.name.as_str(),
            skill.description.as_str(),
            skill.path.to_string_lossy(),
            skill.is_model_visible(),
        )
    }
}

impl<'a> From<&'a ProvidedSkill> for CatalogEntry<'a> {
    fn from(skill: &'a ProvidedSkill) -> Self {
        CatalogEntry::new(
            skill.name().as_str(),
            skill.description(),
            skill.uri(),
            !skill.disable_model_invocation(),
        )
    }
}

/// A rendered catalog and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderedCatalog {
    /// The text exactly as the model sees it.
    pub text: String,
    /// A stable fingerprint of `text`.
    pub fingerprint: Fingerprint,
    /// How many skills are listed.
    pub listed: usize,
    /// How many model-visible skills were left out by the budget.
    pub left_out: usize,
}

impl RenderedCatalog {
    /// Appends the catalog to a host's system prompt (see [`append_to_prompt`]).
    pub fn append_to(&self, host_prompt: &str) -> String {
        append_to_prompt(host_prompt, Some(self))
    }
}

impl fmt::Display for RenderedCatalog {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.text)
    }
}

/// Puts a catalog after a host's system prompt.
///
/// A blank host prompt gives the catalog alone; no catalog leaves the host prompt unchanged;
/// otherwise the host prompt, one blank line, and the catalog.
pub fn append_to_prompt(host_prompt: &str, catalog: Option<&RenderedCatalog>) -> String {
    match catalog {
        None => host_prompt.to_owned(),
        Some(catalog) if host_prompt.trim().is_empty() => catalog.text.clone(),
        Some(catalog) => format!("{}\n\n{}", host_prompt.trim_end(), catalog.text),
    }
}

/// A stable 64-bit fingerprint (FNV-1a) of a catalog's text, shown as 16 hex digits.
///
/// Equal texts give equal fingerprints on every platform and version of this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// The fingerprint of `text`.
    pub fn of(text: &str) -> Self {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let hash = text.bytes().fold(OFFSET, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(PRIME)
        });
        Fingerprint(hash)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{:016x}", self.0)
    }
}

/// `text` with the control characters XML cannot carry (and that would drive a terminal)
/// replaced by U+FFFD; tab and line feed stay.
fn carriable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(crate::skill::is_unsafe_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if crate::skill::is_unsafe_control(c) {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect(),
    )
}

/// Escapes `&`, `<`, `>`, `"` and `'` for XML text and attribute values.
pub fn escape_xml(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            other => escaped.push(other),
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests;
