//! `skillbook catalog`.
//!
//! The catalog is written as it is rendered, never held whole: a hundred thousand skills make
//! a catalog of tens of megabytes, which would otherwise sit in memory next to the skills.

use std::io::{self, Write};

use skillbook::{Catalog, Diagnostic, Tier};

use crate::cli::{CatalogArgs, CommonArgs, Format};
use crate::output::{self, JsonString, Outcome, PrettyObject};
use crate::settings;

pub(crate) fn run(common: &CommonArgs, args: &CatalogArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    let mut catalog = Catalog::new(found.skills());
    catalog = catalog.reader(&args.tool_name);
    if let Some(budget) = args.budget {
        catalog = catalog.budget(budget);
    }
    match common.format {
        Format::Json => print_json(&catalog, found.diagnostics())?,
        Format::Text => {
            let mut stdout = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
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
                    tier_note(written.tier, written.over_budget, args.budget.unwrap_or(0))
                );
            }
            output::diagnostics(found.diagnostics());
        }
    }
    output::leave(found);
    Ok(Outcome::Success)
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
    let stdout = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
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
        Tier::FirstSentence => "descriptions cut to their first sentence",
        Tier::NamesOnly => "names and locations only; the model searches for the rest",
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
