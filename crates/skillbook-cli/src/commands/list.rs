//! `skillbook list`.

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;
use skillbook::{Diagnostic, Discovered, Skill};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

/// The JSON document of `skillbook list` (SPEC §9).
#[derive(Serialize)]
struct Listing<'a> {
    skills: &'a [Skill],
    read_roots: Vec<String>,
    diagnostics: &'a [Diagnostic],
}

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    match common.format {
        Format::Json => output::json(&Listing {
            skills: &found.skills,
            read_roots: found.read_roots.iter().map(|root| display(root)).collect(),
            diagnostics: &found.diagnostics,
        })?,
        Format::Text => {
            print_text(&found)?;
            output::diagnostics(&found.diagnostics);
        }
    }
    output::leave(found);
    Ok(Outcome::Success)
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn print_text(found: &Discovered) -> io::Result<()> {
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    if found.skills.is_empty() {
        writeln!(stdout, "No skills found.")?;
    }
    let width = found
        .skills
        .iter()
        .map(|skill| skill.name.chars().count())
        .max()
        .unwrap_or(0);
    for skill in &found.skills {
        let manual = if skill.disable_model_invocation {
            "  (manual only)"
        } else {
            ""
        };
        writeln!(
            stdout,
            "{:<width$}  {:<9}  {}{manual}",
            output::printable(&skill.name),
            skill.source.as_str(),
            output::printable(&skill.path.to_string_lossy())
        )?;
        writeln!(
            stdout,
            "{:<width$}  {}",
            "",
            output::printable(&skill.description)
        )?;
    }
    stdout.flush()
}
