//! `skillbook show NAME`.

use std::io::Write;

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
    let Some(skill) = found.get(&args.name) else {
        let message = not_found(&args.name, found.skills());
        return output::fail(common.format, "skill_not_found", &message, Outcome::Failure);
    };
    // Only what concerns this skill: its file's diagnostics.
    let diagnostics: Vec<&Diagnostic> = found
        .diagnostics()
        .iter()
        .filter(|diagnostic| diagnostic.path.starts_with(skill.directory()))
        .collect();
    if common.format == Format::Text {
        for diagnostic in &diagnostics {
            output::diagnostic(diagnostic);
        }
    }
    // Through the skill reader, as a model would read it: a file swapped since discovery is
    // refused, never followed.
    let (content, truncated) =
        match SkillReader::new(&found).skill_text(skill.name(), MAX_SHOWN_BYTES) {
            Ok(read) => read,
            Err(error) => {
                let message = format!("cannot read {}: {error}", skill.location().display());
                return output::fail(
                    common.format,
                    error.code().as_str(),
                    &message,
                    Outcome::Failure,
                );
            }
        };
    match common.format {
        Format::Json => output::json(&Shown {
            skill,
            content: &content,
            truncated,
            diagnostics,
        })?,
        Format::Text => {
            // Cut on what is printed too: a control character is shown as an escape several
            // bytes long, so a file of NUL bytes would print five times the limit.
            let printable = output::printable(&content);
            let mut end = printable.len().min(MAX_SHOWN_BYTES as usize);
            while !printable.is_char_boundary(end) {
                end -= 1;
            }
            let mut stdout = crate::output::stdout();
            stdout.write_all(&printable.as_bytes()[..end])?;
            if truncated || end < printable.len() {
                writeln!(stdout, "\n[cut at {MAX_SHOWN_BYTES} bytes]")?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// The most names suggested for a name that is not found.
const MAX_SUGGESTIONS: usize = 3;

/// Why `name` was not found, with the closest names when some are close.
fn not_found(name: &str, skills: &[Skill]) -> String {
    let name = name.trim();
    if skills.is_empty() {
        return format!(
            "no skill named `{name}`: no skills were found; run `skillbook list` to see where \
             skillbook looked and what it met"
        );
    }
    let suggestions = closest(name, skills.iter().map(|skill| skill.name().as_str()));
    let listing = match skills.len() {
        1 => "run `skillbook list` to see the one skill found".to_owned(),
        count => format!("run `skillbook list` to see all {count} skills"),
    };
    match suggestions.as_slice() {
        [] => format!("no skill named `{name}`; {listing}"),
        [only] => format!("no skill named `{name}`; did you mean `{only}`? ({listing})"),
        several => format!(
            "no skill named `{name}`; did you mean one of {}? ({listing})",
            several
                .iter()
                .map(|suggestion| format!("`{suggestion}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The names closest to `wanted` (compared ignoring case), best first, ties by name; only names
/// close enough to be a likely typo.
fn closest<'n>(wanted: &str, names: impl Iterator<Item = &'n str>) -> Vec<&'n str> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(f64, &str)> = names
        .filter_map(|name| {
            let score = strsim::jaro_winkler(&wanted, &name.to_lowercase());
            (score >= 0.85).then_some((score, name))
        })
        .collect();
    scored.sort_by(|left, right| right.0.total_cmp(&left.0).then_with(|| left.1.cmp(right.1)));
    scored.dedup_by(|left, right| left.1 == right.1);
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, name)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggestions_are_the_close_names_only_best_first() {
        let names = ["pdf", "pdf-forms", "docx", "xlsx", "web-search"];
        assert_eq!(closest("pdff", names.into_iter()), ["pdf", "pdf-forms"]);
        assert_eq!(closest("PDF", names.into_iter())[0], "pdf");
        assert_eq!(closest("web-serch", names.into_iter()), ["web-search"]);
        assert!(closest("kubernetes", names.into_iter()).is_empty());
    }
}
