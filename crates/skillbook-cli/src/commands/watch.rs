//! `skillbook watch`: print skill changes as they happen, until interrupted.

use std::io::{self, Write};
use std::sync::mpsc;

use serde_json::json;
use skillbook::watch::{Changes, SkillWatcher};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let discovery = settings::discovery(common);
    let roots = discovery.roots().len();
    let (sender, receiver) = mpsc::channel::<Changes>();
    let watcher = SkillWatcher::start(discovery, move |found, changes| {
        output::diagnostics(&found.diagnostics);
        let _ = sender.send(changes.clone());
    })?;
    let skills = watcher.current().skills.len();
    let format = common.format;
    let mut stdout = io::stdout().lock();
    match format {
        Format::Json => writeln!(stdout, "{}", json!({"event": "ready", "skills": skills}))?,
        Format::Text => writeln!(
            stdout,
            "watching {roots} roots; {skills} skills (Ctrl-C to stop)"
        )?,
    }
    stdout.flush()?;
    for changes in receiver {
        match format {
            Format::Json => {
                let mut line = serde_json::to_value(&changes)?;
                line["event"] = json!("changed");
                writeln!(stdout, "{line}")?;
            }
            Format::Text => {
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
