//! `skillbook install` and `update`: skills restored from `skills-lock.json`, and moved to their
//! sources' new versions.
//!
//! Exit codes: 0 when done, 1 when refused (a source that changed since it was locked, a name
//! not in the lock) or when `install --frozen` would change something.

use std::io::{self, Write};

use serde_json::json;
use skillbook_packages::{ExposeMode, Install, InstallMode, InstallReport, SkillUpdate};

use super::packages::{drift_json, parse_agents, refuse, show_drift, target};
use crate::cli::{CommonArgs, Format, InstallArgs, UpdateArgs};
use crate::output::{self, Outcome, printable};
use crate::progress;

/// `skillbook install [--frozen]`.
pub(crate) fn install(common: &CommonArgs, args: &InstallArgs) -> anyhow::Result<Outcome> {
    let format = common.format;
    let target = match target(common, args.global) {
        Ok(target) => target,
        Err(outcome) => return outcome,
    };
    let mode = if args.frozen {
        InstallMode::Frozen
    } else {
        InstallMode::Restore
    };
    let agents = match parse_agents(&args.agents) {
        Ok(agents) => agents,
        Err(error) => return refuse(format, &error),
    };
    let expose = if args.copy {
        ExposeMode::Copy
    } else {
        ExposeMode::Link
    };
    let install = Install::new().mode(mode).agents(agents).expose(expose);
    let report = match progress::while_working("reading the locked skills' sources", || {
        install.run(&target)
    }) {
        Ok(report) => report,
        Err(error) => return refuse(format, &error),
    };
    let lock = target.lock_path().display().to_string();
    match format {
        Format::Json => output::json(&json!({
            "lock": lock,
            "checked": report.checked,
            "frozen": args.frozen,
            "applied": report.applied,
            "restored": report.restored.iter().map(drift_json).collect::<Vec<_>>(),
            "recorded": report.recorded,
            "exposed": report.exposed.iter().map(|place| place.display().to_string()).collect::<Vec<_>>(),
        }))?,
        Format::Text => show_install(&report, &lock)?,
    }
    Ok(if report.is_unchanged() || report.applied {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}

/// `skillbook update [NAME…]`.
pub(crate) fn update(common: &CommonArgs, args: &UpdateArgs) -> anyhow::Result<Outcome> {
    let format = common.format;
    let target = match target(common, args.global) {
        Ok(target) => target,
        Err(outcome) => return outcome,
    };
    let report = match progress::while_working("reading the skills' sources", || {
        skillbook_packages::update(&target, &args.names)
    }) {
        Ok(report) => report,
        Err(error) => return refuse(format, &error),
    };
    match format {
        Format::Json => output::json(&json!({
            "lock": target.lock_path().display().to_string(),
            "updated": report.updated.iter().map(update_json).collect::<Vec<_>>(),
            "unchanged": report.unchanged,
        }))?,
        Format::Text => {
            let mut out = crate::output::stdout();
            for skill in &report.updated {
                writeln!(out, "{}: updated", printable(&skill.name))?;
                for (mark, paths) in [
                    ("+", &skill.added),
                    ("-", &skill.removed),
                    ("~", &skill.changed),
                ] {
                    for path in paths {
                        writeln!(out, "  {mark} {}", printable(path))?;
                    }
                }
            }
            for name in &report.unchanged {
                writeln!(out, "{}: unchanged", printable(name))?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// `install`'s report as text: each skill, link and record that differs, then a summary.
fn show_install(report: &InstallReport, lock: &str) -> io::Result<()> {
    let mut out = crate::output::stdout();
    for skill in &report.restored {
        show_drift(&mut out, skill)?;
    }
    for place in &report.exposed {
        let place = place.display().to_string();
        writeln!(out, "{}: missing or changed", printable(&place))?;
    }
    for name in &report.recorded {
        writeln!(out, "{}: new clients recorded", printable(name))?;
    }
    let count = report.restored.len();
    let exposed = match report.exposed.len() {
        0 => String::new(),
        links => format!(" and {links} link(s) or copies in clients' folders"),
    };
    if report.is_unchanged() {
        writeln!(
            out,
            "{} locked skill(s) match {}; nothing to install",
            report.checked,
            printable(lock)
        )?;
    } else if report.applied {
        writeln!(
            out,
            "installed {count} of {} locked skill(s){exposed} again from their sources",
            report.checked
        )?;
    } else {
        writeln!(
            out,
            "--frozen: {count} of {} locked skill(s){exposed} would be installed again; nothing changed",
            report.checked
        )?;
    }
    Ok(())
}

fn update_json(skill: &SkillUpdate) -> serde_json::Value {
    json!({
        "name": skill.name,
        "added": skill.added,
        "removed": skill.removed,
        "changed": skill.changed,
    })
}
