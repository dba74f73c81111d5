//! `skillbook show NAME`.

use std::io::{self, Write};

use anyhow::Context;
use serde::Serialize;
use skillbook::{Diagnostic, Skill, SkillReader};

use crate::cli::{CommonArgs, Format, ShowArgs};
use crate::output::{self, Outcome};
use crate::settings;

/// The most of a SKILL.md that `show` prints.
const MAX_SHOWN_BYTES: u64 = 1024 * 1024;

#[derive(Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    skill: &'a Skill,
    content: &'a str,
    truncated: bool,
    /// Discovery's diagnostics about this skill's file.
    diagnostics: Vec<&'a Diagnostic>,
}

pub(crate) fn run(common: &CommonArgs, args: &ShowArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    if common.format == Format::Text {
        output::diagnostics(&found.diagnostics);
    }
    let Some(skill) = found.get(&args.name) else {
        let known: Vec<&str> = found
            .skills
            .iter()
            .map(|skill| skill.name.as_str())
            .collect();
        let known = if known.is_empty() {
            "no skills were found".to_owned()
        } else {
            format!("found: {}", known.join(", "))
        };
        anyhow::bail!(
            "no skill named `{}` ({known}); run `skillbook list` to see skills and diagnostics",
            args.name.trim()
        );
    };
    // Through the skill reader, as a model would read it: a file swapped since discovery is
    // refused, never followed.
    let (content, truncated) = SkillReader::new(&found)
        .skill_text(&skill.name, MAX_SHOWN_BYTES)
        .with_context(|| format!("cannot read {}", skill.path.display()))?;
    match common.format {
        Format::Json => output::json(&Shown {
            skill,
            content: &content,
            truncated,
            diagnostics: found
                .diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.path == skill.path)
                .collect(),
        })?,
        Format::Text => {
            let mut stdout = io::stdout().lock();
            stdout.write_all(content.as_bytes())?;
            if truncated {
                writeln!(stdout, "\n[cut at {MAX_SHOWN_BYTES} bytes]")?;
            }
        }
    }
    Ok(Outcome::Success)
}
