//! `skillbook catalog`.
//!
//! The catalog is written as it is rendered, never held whole: a hundred thousand skills make
//! a catalog of tens of megabytes, which would otherwise sit in memory next to the skills. Nor
//! are the skills held: discovery hands each one over as it is settled, and only what the
//! catalog shows of it (name, description, location) is kept. In text, each diagnostic is
//! printed on stderr as discovery meets it.

use std::io::{self, Write};
use std::sync::mpsc;

use skillbook::{Catalog, CatalogEntry, Diagnostic, Finding, Skill, Tier};

use crate::cli::{CatalogArgs, CommonArgs, Format};
use crate::output::{self, JsonString, Outcome, PrettyObject};
use crate::settings;

pub(crate) fn run(common: &CommonArgs, args: &CatalogArgs) -> anyhow::Result<Outcome> {
    let text = common.format == Format::Text;
    let mut shown = Shown::default();
    let mut diagnostics = Vec::new();
    let discovery = settings::discovery(common);
    if text {
        // In text, each diagnostic is printed as discovery meets it, by a thread of its own (in
        // batches): the walk's thread has the skills to keep up with.
        std::thread::scope(|scope| {
            let (batches, printer) = mpsc::sync_channel::<Vec<Diagnostic>>(PRINTED_BATCHES);
            scope.spawn(move || print_diagnostics(&printer));
            let mut batch = Vec::new();
            discovery.discover_each(|finding| match finding {
                Finding::Skill(skill) => shown.add(&skill),
                Finding::Diagnostic(diagnostic) => {
                    batch.push(diagnostic);
                    if batch.len() == PRINTED_BATCH {
                        let _ = batches.send(std::mem::take(&mut batch));
                    }
                }
                _ => {}
            });
            let _ = batches.send(batch);
        });
    } else {
        discovery.discover_each(|finding| match finding {
            Finding::Skill(skill) => shown.add(&skill),
            Finding::Diagnostic(diagnostic) => diagnostics.push(diagnostic),
            _ => {}
        });
    }
    let mut catalog = Catalog::from_entries(shown.entries());
    catalog = catalog.reader(&args.tool_name);
    let budget = (!args.no_budget).then_some(args.budget);
    if let Some(budget) = budget {
        catalog = catalog.budget(budget);
    }
    match common.format {
        Format::Json => print_json(&catalog, &diagnostics)?,
        Format::Text => {
            let mut stdout = io::BufWriter::with_capacity(64 * 1024, crate::output::stdout());
            let written = catalog.write_to(&mut stdout)?;
            if written.is_some() {
                stdout.write_all(b"\n")?;
            }
            stdout.flush()?;
            drop(stdout);
            if let Some(written) = written
                && written.tier != Tier::Full
            {
                eprintln!(
                    "{}",
                    tier_note(written.tier, written.over_budget, budget.unwrap_or(0))
                );
            }
        }
    }
    output::leave((catalog, diagnostics));
    output::leave(shown);
    Ok(Outcome::Success)
}

/// Diagnostics handed to the printing thread at a time.
const PRINTED_BATCH: usize = 64;
/// Batches waiting for it.
const PRINTED_BATCHES: usize = 16;

/// Prints the diagnostics of each batch on stderr, until the batches end.
fn print_diagnostics(batches: &mpsc::Receiver<Vec<Diagnostic>>) {
    // Not locked: a thread of discovery may log meanwhile.
    let mut stderr = io::BufWriter::new(io::stderr());
    for batch in batches {
        for diagnostic in &batch {
            output::diagnostic_to(&mut stderr, diagnostic);
        }
    }
    let _ = stderr.flush();
}

/// The bytes of text kept together.
const BLOCK: usize = 1 << 20;

/// What the catalog shows of each skill, kept compactly: the text of many entries in one block
/// of about a megabyte (no spare capacity to speak of, and one allocation for many skills), and
/// where each entry's parts lie.
#[derive(Default)]
struct Shown {
    blocks: Vec<String>,
    entries: Vec<Parts>,
}

/// Where one entry's name, description and location lie: one after another in a block.
struct Parts {
    block: u32,
    start: u32,
    name: u32,
    description: u32,
    location: u32,
    model_visible: bool,
}

impl Shown {
    fn add(&mut self, skill: &Skill) {
        let name = skill.name().as_str();
        let description = skill.description();
        let location = skill.location().to_string_lossy();
        let length = name.len() + description.len() + location.len();
        let fits = self
            .blocks
            .last()
            .is_some_and(|block| block.capacity() - block.len() >= length);
        if !fits {
            self.blocks.push(String::with_capacity(BLOCK.max(length)));
        }
        let index = self.blocks.len() - 1;
        let block = &mut self.blocks[index];
        let start = block.len();
        block.push_str(name);
        block.push_str(description);
        block.push_str(&location);
        // A block holds at most max(BLOCK, one entry) bytes; an entry past 4 GiB is no skill.
        let small = |value: usize| u32::try_from(value).unwrap_or(u32::MAX);
        self.entries.push(Parts {
            block: small(index),
            start: small(start),
            name: small(name.len()),
            description: small(description.len()),
            location: small(location.len()),
            model_visible: skill.is_model_visible(),
        });
    }

    fn entries(&self) -> Vec<CatalogEntry<'_>> {
        let mut entries = Vec::with_capacity(self.entries.len());
        for parts in &self.entries {
            let block = &self.blocks[parts.block as usize];
            let start = parts.start as usize;
            let description = start + parts.name as usize;
            let location = description + parts.description as usize;
            let end = location + parts.location as usize;
            entries.push(CatalogEntry::new(
                &block[start..description],
                &block[description..location],
                &block[location..end],
                parts.model_visible,
            ));
        }
        entries
    }
}

/// Prints the JSON document of `skillbook catalog`, exactly as the pretty printer would print
/// it, with the catalog written into it as it is rendered:
///
/// - `catalog`: the catalog text, or null when no skill is model-visible;
/// - `fingerprint`: its fingerprint (null without a catalog);
/// - `tier`: 1 to 4, how much of each skill it shows (null without a catalog);
/// - `listed` and `left_out`: the model-visible skills listed and not listed;
/// - `over_budget`: even the smallest tier is larger than `--budget`;
/// - `diagnostics`.
fn print_json(catalog: &Catalog<'_>, diagnostics: &[Diagnostic]) -> anyhow::Result<()> {
    let stdout = io::BufWriter::with_capacity(64 * 1024, crate::output::stdout());
    let mut document = PrettyObject::new(stdout);
    let written = document.field_with("catalog", |out| {
        let mut text = JsonString::new(&mut *out);
        let written = catalog.write_to(&mut text)?;
        match written {
            Some(_) => text.end()?,
            None => out.write_all(b"null")?,
        }
        Ok(written)
    })?;
    let fingerprint = written.map(|written| written.fingerprint.to_string());
    document.field("fingerprint", &fingerprint)?;
    document.field("tier", &written.map(|written| written.tier.number()))?;
    document.field("listed", &written.map_or(0, |written| written.listed))?;
    document.field("left_out", &written.map_or(0, |written| written.left_out))?;
    let over_budget = written.is_some_and(|written| written.over_budget);
    document.field("over_budget", &over_budget)?;
    document.field("diagnostics", &diagnostics)?;
    document.end()?.flush()?;
    Ok(())
}

/// What the budget did to the catalog, for people (on stderr, so stdout stays the catalog).
fn tier_note(tier: Tier, over_budget: bool, budget: usize) -> String {
    let shown = match tier {
        Tier::Full => "full entries",
        Tier::Shortened => {
            "each description shortened to an equal share of the budget, keeping when to use \
             the skill"
        }
        Tier::NamesOnly => {
            "names only, each read as skill://<name>/SKILL.md; the model searches for the rest"
        }
        Tier::SearchOnly => "no list; the model searches for skills",
    };
    let over = if over_budget {
        format!(" (still over the budget of {budget} characters)")
    } else {
        String::new()
    };
    format!(
        "note: tier {} of 4 to fit --budget: {shown}{over}",
        tier.number()
    )
}
