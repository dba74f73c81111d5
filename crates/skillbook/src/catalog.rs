//! The catalog ([`Catalog`]): the small, cache-stable `<available_skills>` block a model sees.

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::sync::mpsc;

use serde::Serialize;

use crate::skill::Skill;
use crate::sources::ProvidedSkill;

mod output;
mod shorten;

/// The read tool's name: what the catalog tells the model to call, and what a policy sees
/// every read as.
pub const READ_FILE: &str = "read_file";
/// The search tool's name: what a shortened catalog tells the model to call, and what a policy
/// sees every search as.
pub const SEARCH_SKILLS: &str = "search_skills";
/// The fewest characters [`Tier::Shortened`] gives each description (the `…` included): with a
/// smaller share of the budget a description says too little, and the names alone, with search,
/// serve the model better.
pub const MIN_DESCRIPTION_SHARE: usize = 40;

/// The catalog budget (characters) hosts start from: the runtime's, `skillbook catalog`'s and
/// the MCP server's instructions' unless told otherwise. 500 typical names fit in it at
/// [`Tier::NamesOnly`].
pub const DEFAULT_CATALOG_BUDGET: usize = 16_000;

const INTRODUCTION: &str = include_str!("catalog/introduction.md");
/// Tier 3's introduction: it promises no descriptions, and sends the model to search.
const INTRODUCTION_NAMES: &str = include_str!("catalog/introduction_names.md");
const CLOSING: &str = include_str!("catalog/closing.md");
/// The closing of [`Tier::NamesOnly`], whose skills have no location written out.
const CLOSING_NAMES: &str = include_str!("catalog/closing_names.md");
const SHORTENED: &str = include_str!("catalog/shortened.md");
const SEARCH_ONLY: &str = include_str!("catalog/search_only.md");

/// How much of each skill a rendered catalog shows; each tier is smaller than the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Tier 1: name, description and location of every skill.
    Full,
    /// Tier 2: each description cut to the same number of characters, as many as the budget
    /// allows (an equal share; at least [`MIN_DESCRIPTION_SHARE`]), at a sentence or clause
    /// boundary: its sentences from the first on, as many as fit, with a later sentence that
    /// says when to use the skill ("Use when …") kept in preference to the ones before it.
    Shortened,
    /// Tier 3: the names alone, one a line with no markup around them, each read as
    /// `skill://<name>/SKILL.md`; the model searches for descriptions.
    NamesOnly,
    /// Tier 4: no list, only the instruction to search.
    SearchOnly,
}

impl Tier {
    /// Every tier, largest first.
    pub const ALL: [Tier; 4] = [
        Tier::Full,
        Tier::Shortened,
        Tier::NamesOnly,
        Tier::SearchOnly,
    ];

    /// The tier's number, 1 to 4.
    pub fn number(self) -> u8 {
        match self {
            Tier::Full => 1,
            Tier::Shortened => 2,
            Tier::NamesOnly => 3,
            Tier::SearchOnly => 4,
        }
    }

    /// Whether a catalog of this tier needs the search tool: names alone say too little.
    pub fn needs_search(self) -> bool {
        self >= Tier::NamesOnly
    }
}

/// Builds the catalog for a set of skills: the small, cache-stable `<available_skills>` block a
/// model sees.
///
/// The rules (SPEC §4):
///
/// 1. Only model-visible skills (not `disable-model-invocation`) are listed. With none left there
///    is no catalog at all: [`Catalog::render`] returns `None`.
/// 2. Entries are sorted by name, then description, then location, so the same skills always
///    give the same bytes and a provider's prompt cache survives; [`Fingerprint`] names them.
/// 3. `&`, `<`, `>`, `"` and `'` are escaped in every value.
/// 4. The surrounding instructions name the reader tool ([`Catalog::reader`]).
/// 5. With a budget, the catalog degrades for all skills alike, never by dropping some
///    (SPEC §12), in [`Tier`]s tried in order until it fits: full entries; each description cut
///    to an equal share of the budget at a sentence or clause boundary, keeping the sentence
///    that says when to use the skill; the names alone, with the instruction to search
///    (`search_skills`) for the rest; and no list at all, only the instruction to search. A budget below the last tier's size still gets it
///    (never nothing), and [`RenderedCatalog::over_budget`] says so.
///
/// ```
/// use skillbook::Catalog;
///
/// // No model-visible skills: no catalog at all.
/// assert!(Catalog::new([]).render().is_none());
/// ```
#[derive(Debug, Clone)]
pub struct Catalog<'a> {
    /// Discovered skills, read where they lie: no entry is made for each.
    skills: Vec<&'a Skill>,
    /// Entries given as such.
    entries: Vec<CatalogEntry<'a>>,
    reader: String,
    search: String,
    budget: Option<usize>,
}

impl<'a> Catalog<'a> {
    /// A catalog of discovered `skills`; manual-only skills are left out when rendering.
    pub fn new(skills: impl IntoIterator<Item = &'a Skill>) -> Self {
        Catalog::of(skills.into_iter().collect(), Vec::new())
    }

    /// A catalog of any entries (discovered skills, provided skills, or both).
    pub fn from_entries(entries: impl IntoIterator<Item = CatalogEntry<'a>>) -> Self {
        Catalog::of(Vec::new(), entries.into_iter().collect())
    }

    fn of(skills: Vec<&'a Skill>, entries: Vec<CatalogEntry<'a>>) -> Self {
        Catalog {
            skills,
            entries,
            reader: READ_FILE.to_owned(),
            search: SEARCH_SKILLS.to_owned(),
            budget: None,
        }
    }

    /// The reader tool the instructions name. Default: [`READ_FILE`] (`read_file`).
    #[must_use]
    pub fn reader(mut self, tool_name: impl Into<String>) -> Self {
        self.reader = tool_name.into();
        self
    }

    /// The search tool the instructions name from [`Tier::NamesOnly`] on. Default:
    /// [`SEARCH_SKILLS`] (`search_skills`).
    #[must_use]
    pub fn search_tool(mut self, tool_name: impl Into<String>) -> Self {
        self.search = tool_name.into();
        self
    }

    /// The most characters the whole catalog may take: the first [`Tier`] that fits is
    /// rendered. Default: no limit (always [`Tier::Full`]).
    #[must_use]
    pub fn budget(mut self, characters: usize) -> Self {
        self.budget = Some(characters);
        self
    }

    /// Renders the catalog, or `None` when no skill is model-visible.
    pub fn render(&self) -> Option<RenderedCatalog> {
        let entries = self.visible_sorted()?;
        let (fit, over_budget) = self.fitting(&entries);
        let text = self.render_fit(fit, &entries);
        let summary =
            WrittenCatalog::new(Fingerprint::of(&text), fit.tier, entries.len(), over_budget);
        Some(RenderedCatalog::from_summary(text, summary))
    }

    /// Writes the catalog to `out` as it is rendered, never holding its whole text, and says
    /// what it wrote; `None`, with nothing written, when no skill is model-visible.
    ///
    /// The bytes are those of [`Catalog::render`]'s text, and the tier, counts and fingerprint
    /// those it reports. With a budget, each tier is first measured (rendered and counted, not
    /// kept) until one fits. `out` is not flushed; give it a buffer, as the catalog is written
    /// in many small pieces.
    ///
    /// # Errors
    ///
    /// The first error writing to `out` returned; what was written before it stays written.
    pub fn write_to(&self, out: impl io::Write) -> io::Result<Option<WrittenCatalog>> {
        let Some(entries) = self.visible_sorted() else {
            return Ok(None);
        };
        let (fit, over_budget) = self.fitting(&entries);
        let mut writer = output::Writer::new(out);
        let written = self.write_fit(fit, &entries, &mut writer);
        let fingerprint = writer.finish(written)?;
        Ok(Some(WrittenCatalog::new(
            fingerprint,
            fit.tier,
            entries.len(),
            over_budget,
        )))
    }

    /// The model-visible entries in catalog order, or `None` when there are none.
    fn visible_sorted(&self) -> Option<Vec<Listed<'_>>> {
        // Each entry with its trimmed name, trimmed once rather than at every comparison; the
        // rest of the key is made only when two names are equal, which is rare (so the sort
        // holds one string slice per entry, not three).
        let skills = self
            .skills
            .iter()
            .filter(|skill| skill.is_model_visible())
            .map(|skill| (skill.name.as_str().trim(), Listed::Skill(skill)));
        let entries = self
            .entries
            .iter()
            .filter(|entry| entry.model_visible)
            .map(|entry| (entry.name.trim(), Listed::Entry(entry)));
        let mut named: Vec<(&str, Listed<'_>)> = skills.chain(entries).collect();
        if named.is_empty() {
            return None;
        }
        named.sort_unstable_by(|(left_name, left), (right_name, right)| {
            left_name
                .cmp(right_name)
                .then_with(|| left.entry().sort_key().cmp(&right.entry().sort_key()))
        });
        Some(named.into_iter().map(|(_, listed)| listed).collect())
    }

    /// The first tier of `entries` (sorted, model-visible) that fits the budget, each measured
    /// without being kept (tier 2 with the widest share that fits), and whether even the last
    /// is over it.
    fn fitting(&self, entries: &[Listed<'_>]) -> (Fit, bool) {
        let Some(budget) = self.budget else {
            return (Fit::smallest(Tier::Full), false);
        };
        for tier in Tier::ALL {
            let smallest = Fit::smallest(tier);
            if self.size(smallest, entries) > budget {
                continue;
            }
            if tier == Tier::Shortened {
                return (self.widest_share(entries, budget), false);
            }
            return (smallest, false);
        }
        (Fit::smallest(Tier::SearchOnly), true)
    }

    /// Tier 2 with the most characters a description can have and the catalog still fit
    /// `budget` (it fits with [`MIN_DESCRIPTION_SHARE`]): every description is cut to the same
    /// share, so what the short ones leave goes to the long ones. Found by halving, each step
    /// measuring the catalog; a share that fits is never given up for one that was not measured.
    fn widest_share(&self, entries: &[Listed<'_>], budget: usize) -> Fit {
        let longest = entries
            .iter()
            .map(|listed| listed.entry().description.chars().count())
            .max()
            .unwrap_or(0);
        let (mut fitting, mut too_wide) = (
            MIN_DESCRIPTION_SHARE,
            longest.max(MIN_DESCRIPTION_SHARE) + 1,
        );
        while too_wide - fitting > 1 {
            let middle = fitting + (too_wide - fitting) / 2;
            let fit = Fit {
                tier: Tier::Shortened,
                share: middle,
            };
            if self.size(fit, entries) <= budget {
                fitting = middle;
            } else {
                too_wide = middle;
            }
        }
        Fit {
            tier: Tier::Shortened,
            share: fitting,
        }
    }

    /// The characters of the catalog of `entries` as `fit` renders it, counted, not kept.
    fn size(&self, fit: Fit, entries: &[Listed<'_>]) -> usize {
        let mut counter = output::Counter::default();
        // Counting never fails.
        let _ = self.write_fit(fit, entries, &mut counter);
        counter.characters()
    }

    /// The catalog of `entries` (sorted, model-visible) as `fit` renders it, as text, made in
    /// one allocation (room that ran out would double).
    fn render_fit(&self, fit: Fit, entries: &[Listed<'_>]) -> String {
        let mut text = String::with_capacity(self.estimated_size(fit, entries));
        // Writing to a string never fails.
        let _ = self.write_fit(fit, entries, &mut text);
        text
    }

    /// About how many bytes the catalog of `entries` as `fit` renders it takes, rather more
    /// than fewer.
    fn estimated_size(&self, fit: Fit, entries: &[Listed<'_>]) -> usize {
        let listed: usize = if fit.tier == Tier::SearchOnly {
            0
        } else {
            entries
                .iter()
                .map(|listed| listed.entry().estimated_size(fit))
                .sum()
        };
        let templates = [
            INTRODUCTION,
            INTRODUCTION_NAMES,
            SHORTENED,
            SEARCH_ONLY,
            CLOSING,
            CLOSING_NAMES,
        ]
        .iter()
        .map(|template| template.len())
        .sum::<usize>();
        // The tool names go in the templates a few times each.
        listed + templates + 8 * (self.reader.len() + self.search.len()) + 256
    }

    /// Writes the catalog of `entries` (sorted, model-visible) as `fit` renders it to `out`.
    fn write_fit(
        &self,
        fit: Fit,
        entries: &[Listed<'_>],
        out: &mut impl fmt::Write,
    ) -> fmt::Result {
        let tier = fit.tier;
        let fill = |template: &str| {
            template
                .trim_end()
                .replace("{reader}", &self.reader)
                .replace("{search}", &self.search)
        };
        if tier == Tier::SearchOnly {
            let count = match entries.len() {
                1 => "1 skill is".to_owned(),
                count => format!("{count} skills are"),
            };
            return out.write_str(&fill(SEARCH_ONLY).replace("{count} are", &count));
        }
        let introduction = match tier {
            Tier::NamesOnly => INTRODUCTION_NAMES,
            _ => INTRODUCTION,
        };
        out.write_str(&fill(introduction))?;
        out.write_str("\n\n<available_skills>\n")?;
        write_entries(entries, fit, out)?;
        out.write_str("</available_skills>\n")?;
        let note = match tier {
            Tier::Shortened => Some(SHORTENED),
            Tier::Full | Tier::NamesOnly | Tier::SearchOnly => None,
        };
        if let Some(note) = note {
            out.write_str(&fill(note))?;
            out.write_str("\n")?;
        }
        out.write_str("\n")?;
        let closing = if tier == Tier::NamesOnly {
            CLOSING_NAMES
        } else {
            CLOSING
        };
        out.write_str(&fill(closing))
    }
}

/// Entries one thread renders at a time, when a catalog is large enough to share out.
const RENDERED_TOGETHER: usize = 1024;

/// The most threads rendering a catalog's entries.
const MAX_RENDERING_THREADS: usize = 4;

/// Writes each entry as `fit` shows it, in order. A large catalog's entries are rendered a
/// chunk at a time by a thread per core (thread `t` of `n` renders chunks `t`, `t + n`, …), each
/// at most one chunk ahead of the one being written (so the text is never held whole), and
/// written in order: the same text as one thread writes.
fn write_entries(entries: &[Listed<'_>], fit: Fit, out: &mut impl fmt::Write) -> fmt::Result {
    let chunks: Vec<&[Listed<'_>]> = entries.chunks(RENDERED_TOGETHER).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_RENDERING_THREADS)
        .min(chunks.len());
    if threads < 2 {
        return entries
            .iter()
            .try_for_each(|listed| write_listed(*listed, fit, out));
    }
    let render = move |chunk: &[Listed<'_>]| -> Result<String, fmt::Error> {
        let mut text = String::with_capacity(chunk.len() * 256);
        for listed in chunk {
            write_listed(*listed, fit, &mut text)?;
        }
        Ok(text)
    };
    std::thread::scope(|scope| {
        let (receivers, handles): (Vec<_>, Vec<_>) = (0..threads)
            .map(|thread| {
                let (sender, receiver) = mpsc::sync_channel(1);
                let mine: Vec<&[Listed<'_>]> = chunks
                    .iter()
                    .skip(thread)
                    .step_by(threads)
                    .copied()
                    .collect();
                let handle = scope.spawn(move || {
                    for chunk in mine {
                        // The writer stopped: nothing more is wanted.
                        if sender.send(render(chunk)).is_err() {
                            return;
                        }
                    }
                });
                (receiver, handle)
            })
            .unzip();
        let written = (0..chunks.len()).try_for_each(|number| {
            // A thread that panicked sends nothing more: the catalog is not written.
            let text = receivers[number % threads]
                .recv()
                .unwrap_or(Err(fmt::Error))?;
            out.write_str(&text)
        });
        // The threads still rendering stop at their next chunk; a panic is an error here, not a
        // second panic at the scope's end.
        drop(receivers);
        for handle in handles {
            let _ = handle.join();
        }
        written
    })
}

/// Writes one entry as `fit` shows it.
fn write_listed(listed: Listed<'_>, fit: Fit, out: &mut impl fmt::Write) -> fmt::Result {
    let entry = listed.entry();
    if fit.tier == Tier::NamesOnly {
        // Compact: the name alone, one a line (read as `skill://<name>/SKILL.md`).
        write_carried(out, entry.name.trim())?;
        out.write_str("\n")
    } else {
        entry.write_to(out, fit)
    }
}

/// A tier as it is rendered: for [`Tier::Shortened`], with the most characters each
/// description keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fit {
    tier: Tier,
    share: usize,
}

impl Fit {
    /// `tier` at its smallest (tier 2 with [`MIN_DESCRIPTION_SHARE`]).
    fn smallest(tier: Tier) -> Self {
        Fit {
            tier,
            share: MIN_DESCRIPTION_SHARE,
        }
    }
}

/// One entry of a catalog, where it lies: a discovered skill or an entry given as such.
#[derive(Debug, Clone, Copy)]
enum Listed<'c> {
    Skill(&'c Skill),
    Entry(&'c CatalogEntry<'c>),
}

impl<'c> Listed<'c> {
    /// The entry, borrowing its text from where it lies.
    fn entry(self) -> CatalogEntry<'c> {
        match self {
            Listed::Skill(skill) => CatalogEntry::from(skill),
            Listed::Entry(entry) => CatalogEntry::new(
                &*entry.name,
                &*entry.description,
                &*entry.location,
                entry.model_visible,
            ),
        }
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

    /// About how many bytes the entry takes as `fit` renders it, rather more than fewer: its
    /// values, an eighth more for escapes (`&amp;` stands for one character), and the markup
    /// around them.
    fn estimated_size(&self, fit: Fit) -> usize {
        /// The tags, indentation and line breaks around a name and a location.
        const MARKUP: usize = 65;
        /// Those around a description.
        const DESCRIPTION_MARKUP: usize = 32;
        let description = match fit.tier {
            Tier::Full => DESCRIPTION_MARKUP + self.description.len(),
            // Up to four bytes a character.
            Tier::Shortened => DESCRIPTION_MARKUP + self.description.len().min(4 * fit.share),
            // The name alone and its line break.
            Tier::NamesOnly => return 1 + self.name.len() + self.name.len() / 8,
            Tier::SearchOnly => 0,
        };
        let values = self.name.len() + description + self.location.len();
        MARKUP + values + values / 8
    }

    fn write_to(&self, out: &mut impl fmt::Write, fit: Fit) -> fmt::Result {
        out.write_str("  <skill>\n    <name>")?;
        write_carried(out, self.name.trim())?;
        out.write_str("</name>\n")?;
        let description = match fit.tier {
            Tier::Full => Some(Cow::Borrowed(self.description.trim())),
            Tier::Shortened => Some(shorten::shorten(&self.description, fit.share)),
            Tier::NamesOnly | Tier::SearchOnly => None,
        };
        if let Some(description) = description {
            out.write_str("    <description>")?;
            write_carried(out, &description)?;
            out.write_str("</description>\n")?;
        }
        out.write_str("    <location>")?;
        write_carried(out, &self.location)?;
        out.write_str("</location>\n  </skill>\n")
    }
}

impl<'a> From<&'a Skill> for CatalogEntry<'a> {
    fn from(skill: &'a Skill) -> Self {
        CatalogEntry::new(
            skill.name.as_str(),
            skill.description.as_str(),
            skill.location.to_string_lossy(),
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
    /// How much of each skill it shows: the first tier that fits the budget.
    pub tier: Tier,
    /// How many skills are listed: every model-visible skill, or none in
    /// [`Tier::SearchOnly`].
    pub listed: usize,
    /// How many model-visible skills are not listed (all of them in [`Tier::SearchOnly`], else
    /// none): the search tool finds them.
    pub left_out: usize,
    /// Even [`Tier::SearchOnly`] is larger than the budget; it is rendered anyway.
    pub over_budget: bool,
}

impl RenderedCatalog {
    /// The catalog `text`, and what [`Catalog::render`] found of it.
    fn from_summary(text: String, summary: WrittenCatalog) -> Self {
        let WrittenCatalog {
            fingerprint,
            tier,
            listed,
            left_out,
            over_budget,
        } = summary;
        RenderedCatalog {
            text,
            fingerprint,
            tier,
            listed,
            left_out,
            over_budget,
        }
    }

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

/// What [`Catalog::write_to`] wrote: all a [`RenderedCatalog`] says but its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WrittenCatalog {
    /// A stable fingerprint of the text written: equal to the [`RenderedCatalog`]'s.
    pub fingerprint: Fingerprint,
    /// How much of each skill it shows: the first tier that fits the budget.
    pub tier: Tier,
    /// How many skills are listed: every model-visible skill, or none in
    /// [`Tier::SearchOnly`].
    pub listed: usize,
    /// How many model-visible skills are not listed (all of them in [`Tier::SearchOnly`], else
    /// none): the search tool finds them.
    pub left_out: usize,
    /// Even [`Tier::SearchOnly`] is larger than the budget; it is written anyway.
    pub over_budget: bool,
}

impl WrittenCatalog {
    /// A catalog of `visible` model-visible skills in `tier`.
    fn new(fingerprint: Fingerprint, tier: Tier, visible: usize, over_budget: bool) -> Self {
        let listed = if tier == Tier::SearchOnly { 0 } else { visible };
        WrittenCatalog {
            fingerprint,
            tier,
            listed,
            left_out: visible - listed,
            over_budget,
        }
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
/// Equal texts give equal fingerprints on every platform and version of this crate. It
/// serializes as its 16 hex digits (a JSON number would lose bits in JavaScript).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(u64);

impl Fingerprint {
    /// The fingerprint of `text`.
    pub fn of(text: &str) -> Self {
        let mut hasher = FingerprintHasher::new();
        hasher.update(text.as_bytes());
        hasher.finish()
    }

    /// The 64 bits, for a host that stores fingerprints as numbers.
    #[must_use]
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

/// A [`Fingerprint`] made a piece at a time: the pieces of a text, in order, give the text's.
#[derive(Debug, Clone, Copy)]
struct FingerprintHasher(u64);

impl FingerprintHasher {
    /// FNV-1a's offset basis.
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    /// FNV-1a's 64-bit prime.
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Self {
        FingerprintHasher(Self::OFFSET)
    }

    /// Takes in the next piece of the text.
    fn update(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(Self::PRIME)
        });
    }

    fn finish(self) -> Fingerprint {
        Fingerprint(self.0)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{:016x}", self.0)
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Fingerprint {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(deserializer)?;
        let digits = text.len() == 16 && text.bytes().all(|byte| byte.is_ascii_hexdigit());
        digits
            .then(|| u64::from_str_radix(&text, 16).ok())
            .flatten()
            .map(Fingerprint)
            .ok_or_else(|| {
                serde::de::Error::invalid_value(
                    serde::de::Unexpected::Str(&text),
                    &"a catalog fingerprint: 16 hex digits",
                )
            })
    }
}

/// Writes `text` for XML: the control characters XML cannot carry (and that would drive a
/// terminal) as U+FFFD, tab and line feed kept, and `&`, `<`, `>`, `"` and `'` escaped; in one
/// pass, the runs between the characters that change written as they are.
fn write_carried(out: &mut impl fmt::Write, text: &str) -> fmt::Result {
    let bytes = text.as_bytes();
    // Most text has none of them: one scan says so.
    let plain = !bytes.iter().any(|&byte| {
        byte < 0x20 || matches!(byte, b'&' | b'<' | b'>' | b'"' | b'\'' | 0x7F | 0xC2)
    });
    if plain {
        return out.write_str(text);
    }
    let (mut written, mut at) = (0, 0);
    while at < bytes.len() {
        let (replacement, width) = match bytes[at] {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&apos;", 1),
            b'\t' | b'\n' => ("", 0),
            0x00..=0x1F | 0x7F => ("\u{fffd}", 1),
            // A C1 control (U+0080 to U+009F) is 0xC2 and a byte of 0x80 to 0x9F.
            0xC2 if bytes
                .get(at + 1)
                .is_some_and(|next| (0x80..=0x9F).contains(next)) =>
            {
                ("\u{fffd}", 2)
            }
            _ => ("", 0),
        };
        if width == 0 {
            at += 1;
            continue;
        }
        // Both ends lie on character boundaries: each is an ASCII byte or a C1 control's start.
        out.write_str(&text[written..at])?;
        out.write_str(replacement)?;
        at += width;
        written = at;
    }
    out.write_str(&text[written..])
}

/// Escapes `&`, `<`, `>`, `"` and `'` for XML text and attribute values.
pub(crate) fn escape_xml(text: &str) -> Cow<'_, str> {
    // The five are ASCII: no byte of another character's UTF-8 can be one of them.
    if !text
        .bytes()
        .any(|byte| matches!(byte, b'&' | b'<' | b'>' | b'"' | b'\''))
    {
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
