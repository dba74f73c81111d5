//! `skillbook search QUERY…`: the model's `search_skills` tool, run by hand over the discovered
//! skills (manual-only skills are never returned).

use std::io::{self, Write};

use serde::Serialize;
use skillbook::search::{SearchHit, SearchIndex};
use skillbook::{CatalogEntry, Diagnostic};

use crate::cli::{CommonArgs, Format, SearchArgs};
use crate::output::{self, Outcome};
use crate::settings;

/// The JSON document of `skillbook search`: the tool's `results`, and discovery's diagnostics.
#[derive(Serialize)]
struct Found<'a> {
    results: &'a [SearchHit],
    diagnostics: &'a [Diagnostic],
}

pub(crate) fn run(common: &CommonArgs, args: &SearchArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    let index = SearchIndex::new(found.skills().iter().map(CatalogEntry::from));
    let query = args.query.join(" ");
    let limit = usize::try_from(args.limit).unwrap_or(skillbook::search::MAX_LIMIT);
    let hits = index.search(&query, limit);
    match common.format {
        Format::Json => output::json(&Found {
            results: &hits,
            diagnostics: found.diagnostics(),
        })?,
        Format::Text => {
            let mut stdout = io::BufWriter::new(crate::output::stdout());
            if hits.is_empty() {
                writeln!(
                    stdout,
                    "No skill matches `{}` ({} model-visible skills searched).",
                    output::printable(&query),
                    index.len()
                )?;
            }
            for hit in &hits {
                writeln!(
                    stdout,
                    "{:>7.3}  {}  {}\n         {}",
                    hit.score,
                    output::printable(&hit.name),
                    output::printable(&hit.location),
                    output::printable(&hit.description)
                )?;
            }
            stdout.flush()?;
            output::diagnostics(found.diagnostics());
        }
    }
    output::leave(found);
    Ok(Outcome::Success)
}
