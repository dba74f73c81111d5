//! `skillbook catalog`.

use std::io::{self, Write};

use serde::Serialize;
use skillbook::{Catalog, Diagnostic};

use crate::cli::{CatalogArgs, CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

#[derive(Serialize)]
struct CatalogJson<'a> {
    /// The catalog text, or null when no skill is model-visible.
    catalog: Option<&'a str>,
    fingerprint: Option<String>,
    listed: usize,
    left_out: usize,
    diagnostics: &'a [Diagnostic],
}

pub(crate) fn run(common: &CommonArgs, args: &CatalogArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    let mut catalog = Catalog::new(&found.skills);
    catalog.reader(&args.tool_name);
    if let Some(budget) = args.budget {
        catalog.budget(budget);
    }
    let rendered = catalog.render();
    match common.format {
        Format::Json => output::json(&CatalogJson {
            catalog: rendered.as_ref().map(|catalog| catalog.text.as_str()),
            fingerprint: rendered
                .as_ref()
                .map(|catalog| catalog.fingerprint.to_string()),
            listed: rendered.as_ref().map_or(0, |catalog| catalog.listed),
            left_out: rendered.as_ref().map_or(0, |catalog| catalog.left_out),
            diagnostics: &found.diagnostics,
        })?,
        Format::Text => {
            if let Some(rendered) = &rendered {
                writeln!(io::stdout().lock(), "{}", rendered.text)?;
            }
            output::diagnostics(&found.diagnostics);
        }
    }
    output::leave(found);
    Ok(Outcome::Success)
}
