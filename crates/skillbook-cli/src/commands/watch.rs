//! `skillbook watch`: print skill changes as they happen, until interrupted.
//!
//! Text: a `watching …` line, then `+ name`, `- name`, `~ name` per change on stdout, with the
//! diagnostics of each discovery on stderr. JSON: one document per line on stdout — `{"event":
//! "ready", "skills": N, "diagnostics": […]}` first, then `{"event": "changed", "added": […],
//! "removed": […], "changed": […], "diagnostics": […]}` — with the diagnostics of the skills as
//! they now are.

use std::collections::HashSet;
use std::io::Write;
use std::sync::mpsc;

use serde::Serialize;
use skillbook::Diagnostic;
use skillbook::watch::{Changes, SkillWatcher};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

/// One line of `watch --format json`.
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Event<'a> {
    Ready {
        skills: usize,
        diagnostics: &'a [Diagnostic],
    },
    Changed {
        #[serde(flatten)]
        changes: &'a Changes,
        diagnostics: &'a [Diagnostic],
    },
}

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let discovery = settings::discovery(common);
    let roots = discovery.roots().len();
    let (sender, receiver) = mpsc::channel::<(Changes, Vec<Diagnostic>)>();
    let watcher = SkillWatcher::start(discovery, move |found, changes| {
        let _ = sender.send((changes.clone(), found.diagnostics().to_vec()));
    })?;
    let current = watcher.current();
    let format = common.format;
    let mut printed = Printed::default();
    let mut stdout = crate::output::stdout();
    match format {
        Format::Json => line(
            &mut stdout,
            &Event::Ready {
                skills: current.skills().len(),
                diagnostics: current.diagnostics(),
            },
        )?,
        Format::Text => {
            output::diagnostics(&printed.news(current.diagnostics()));
            writeln!(
                stdout,
                "watching {roots} roots; {} skills (Ctrl-C to stop)",
                current.skills().len()
            )?;
        }
    }
    drop(current);
    stdout.flush()?;
    for (changes, diagnostics) in receiver {
        match format {
            Format::Json => line(
                &mut stdout,
                &Event::Changed {
                    changes: &changes,
                    diagnostics: &diagnostics,
                },
            )?,
            Format::Text => {
                // Each event's discovery reports every problem again: only new ones are said.
                output::diagnostics(&printed.news(&diagnostics));
                for (mark, names) in [
                    ('+', &changes.added),
                    ('-', &changes.removed),
                    ('~', &changes.changed),
                ] {
                    for name in names {
                        writeln!(stdout, "{mark} {}", output::printable(name))?;
                    }
                }
            }
        }
        stdout.flush()?;
    }
    Ok(Outcome::Success)
}

/// Writes `event` as one JSON line.
fn line(out: &mut impl Write, event: &Event<'_>) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, event)?;
    writeln!(out)?;
    Ok(())
}

/// The diagnostics of the last discovery (as printed), so that an event prints only the ones
/// that discovery did not report before. Only the current ones are kept: a watch that runs for
/// days over a changing tree holds no more than its latest report.
#[derive(Default)]
struct Printed {
    lines: HashSet<String>,
}

impl Printed {
    /// The diagnostics of `found` that the previous report did not hold; `found` becomes the
    /// previous report.
    fn news(&mut self, found: &[Diagnostic]) -> Vec<Diagnostic> {
        let current: HashSet<String> = found.iter().map(ToString::to_string).collect();
        let news = found
            .iter()
            .filter(|diagnostic| !self.lines.contains(&diagnostic.to_string()))
            .cloned()
            .collect();
        self.lines = current;
        news
    }
}
