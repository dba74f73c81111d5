//! `skillbook catalog`.

use std::io::{self, Write};

use serde::Serialize;
use skillbook::{Catalog, Diagnostic, Tier};

use crate::cli::{CatalogArgs, CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

#[derive(Serialize)]
struct CatalogJson<'a> {
    /// The catalog text, or null when no skill is model-visible.
    catalog: Option<&'a str>,
    fingerprint: Option<String>,
    /// 1 to 4: how much of each skill it shows (null without a catalog).
    tier: Option<u8>,
    listed: usize,
    left_out: usize,
    /// Even the smallest tier is larger than `--budget`.
    over_budget: bool,
    diagnostics: &'a [Diagnostic],
}

pub(crate) fn run(common: &CommonArgs, args: &CatalogArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    let mut catalog = Catalog::new(found.skills());
    catalog = catalog.reader(&args.tool_name);
    if let Some(budget) = args.budget {
        catalog = catalog.budget(budget);
    }
    let rendered = catalog.render();
    match common.format {
        Format::Json => output::json(&CatalogJson {
            catalog: rendered.as_ref().map(|catalog| catalog.text.as_str()),
            fingerprint: rendered
                .as_ref()
                .map(|catalog| catalog.fingerprint.to_string()),
            tier: rendered.as_ref().map(|catalog| catalog.tier.number()),
            listed: rendered.as_ref().map_or(0, |catalog| catalog.listed),
            left_out: rendered.as_ref().map_or(0, |catalog| catalog.left_out),
            over_budget: rendered.as_ref().is_some_and(|catalog| catalog.over_budget),
            diagnostics: found.diagnostics(),
        })?,
        Format::Text => {
            if let Some(rendered) = &rendered {
                writeln!(io::stdout().lock(), "{}", rendered.text)?;
                if rendered.tier != Tier::Full {
                    eprintln!("{}", tier_note(rendered, args.budget.unwrap_or(0)));
                }
            }
            output::diagnostics(found.diagnostics());
        }
    }
    output::leave(found);
    Ok(Outcome::Success)
}

/// What the budget did to the catalog, for people (on stderr, so stdout stays the catalog).
fn tier_note(rendered: &skillbook::RenderedCatalog, budget: usize) -> String {
    let shown = match rendered.tier {
        Tier::Full => "full entries",
        Tier::FirstSentence => "descriptions cut to their first sentence",
        Tier::NamesOnly => "names and locations only; the model searches for the rest",
        Tier::SearchOnly => "no list; the model searches for skills",
    };
    let over = if rendered.over_budget {
        format!(" (still over the budget of {budget} characters)")
    } else {
        String::new()
    };
    format!(
        "note: tier {} of 4 to fit --budget: {shown}{over}",
        rendered.tier.number()
    )
}
