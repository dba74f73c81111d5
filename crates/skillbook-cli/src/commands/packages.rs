//! `skillbook add`, `verify` and `remove`: skill packages pinned in `skills-lock.json`.
//!
//! Exit codes: 0 when done (verify: nothing drifted), 1 when refused or when skills drifted,
//! 2 for a source that is not supported yet or an `add` that needs `--yes`.

use std::io::{self, BufRead, IsTerminal, Write};

use serde::Serialize;
use serde_json::json;
use skillbook_packages::{
    Add, Agent, CheckPolicy, Drift, ExposeMode, PackageError, Plan, PlannedSkill, SkillDrift,
    Source, Target, VerifyReport,
};

use crate::cli::{AddArgs, CommonArgs, Format, RemoveArgs};
use crate::output::{self, Outcome, printable};
use crate::progress;
use crate::settings;

/// `skillbook add SOURCE`.
pub(crate) fn add(common: &CommonArgs, args: &AddArgs) -> anyhow::Result<Outcome> {
    let format = common.format;
    let target = match target(common, args.global) {
        Ok(target) => target,
        Err(outcome) => return outcome,
    };
    let current = std::env::current_dir()?;
    let source = match Source::parse(&args.source, &current) {
        Ok(source) => source,
        Err(error) => return refuse(format, &error),
    };
    let policy = if args.force {
        CheckPolicy::Force
    } else {
        CheckPolicy::RefuseErrors
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
    let add = Add::new(source)
        .skills(args.skills.iter().cloned())
        .check(policy)
        .agents(agents)
        .expose(expose);
    let plan = match progress::while_working(format!("reading {}", printable(&args.source)), || {
        add.plan(&target)
    }) {
        Ok(plan) => plan,
        Err(error) => return refuse(format, &error),
    };
    if format == Format::Text {
        show_plan(&plan)?;
    }
    if !args.yes {
        match confirm(plan.skills().len())? {
            Some(true) => {}
            Some(false) => {
                return output::fail(format, "cancelled", "nothing installed", Outcome::Failure);
            }
            None => {
                return output::fail(
                    format,
                    "confirmation_needed",
                    "stdin is not a terminal to confirm on; pass --yes to install without asking",
                    Outcome::UsageError,
                );
            }
        }
    }
    let installed = match plan.install(&target) {
        Ok(installed) => installed,
        Err(error) => return refuse(format, &error),
    };
    match format {
        Format::Json => output::json(&json!({
            "installed": plan.skills().iter().map(|skill| planned_json(&target, skill)).collect::<Vec<_>>(),
            "exposed": plan.exposed().map(|place| place.display().to_string()).collect::<Vec<_>>(),
            "lock": target.lock_path().display().to_string(),
            "diagnostics": plan.diagnostics(),
        }))?,
        Format::Text => {
            let mut out = crate::output::stdout();
            for name in installed.names() {
                let folder = target.skills_folder().join(name);
                writeln!(
                    out,
                    "installed {}",
                    printable(&folder.display().to_string())
                )?;
            }
            for place in plan.exposed() {
                let place = place.display().to_string();
                writeln!(out, "exposed {}", printable(&place))?;
            }
            writeln!(
                out,
                "locked in {}",
                printable(&target.lock_path().display().to_string())
            )?;
        }
    }
    Ok(Outcome::Success)
}

/// `skillbook verify`.
pub(crate) fn verify(common: &CommonArgs, global: bool) -> anyhow::Result<Outcome> {
    let format = common.format;
    let target = match target(common, global) {
        Ok(target) => target,
        Err(outcome) => return outcome,
    };
    let report = match skillbook_packages::verify(&target) {
        Ok(report) => report,
        Err(error) => return refuse(format, &error),
    };
    match format {
        Format::Json => output::json(&verify_json(&target, &report))?,
        Format::Text => show_verify(&target, &report)?,
    }
    Ok(if report.is_clean() {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}

/// `skillbook remove NAME…`.
pub(crate) fn remove(common: &CommonArgs, args: &RemoveArgs) -> anyhow::Result<Outcome> {
    let format = common.format;
    let target = match target(common, args.global) {
        Ok(target) => target,
        Err(outcome) => return outcome,
    };
    let removed = match skillbook_packages::remove(&target, &args.names) {
        Ok(removed) => removed,
        Err(error) => return refuse(format, &error),
    };
    match format {
        Format::Json => output::json(&json!({ "removed": removed }))?,
        Format::Text => {
            let mut out = crate::output::stdout();
            for name in &removed {
                writeln!(out, "removed {}", printable(name))?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// The clients named by `--agent`.
pub(super) fn parse_agents(names: &[String]) -> Result<Vec<Agent>, PackageError> {
    names.iter().map(|name| name.parse()).collect()
}

/// The workspace's skills, or with `--global` the home's (`--home`, else `$HOME`).
pub(super) fn target(common: &CommonArgs, global: bool) -> Result<Target, anyhow::Result<Outcome>> {
    if !global {
        return Ok(Target::workspace(
            std::path::absolute(&common.workspace).unwrap_or_else(|_| common.workspace.clone()),
        ));
    }
    settings::home_folder(common)
        .map(Target::global)
        .ok_or_else(|| {
            output::fail(
                common.format,
                "no_home",
                "--global needs a home directory: pass --home DIR (and not --no-home), or set HOME",
                Outcome::UsageError,
            )
        })
}

/// Reports a library error with its stable code; checker errors are listed too.
pub(super) fn refuse(format: Format, error: &PackageError) -> anyhow::Result<Outcome> {
    let (code, outcome) = match error {
        PackageError::UnsupportedSource { .. } => ("unsupported_source", Outcome::UsageError),
        PackageError::Lock(_) => ("invalid_lock", Outcome::Failure),
        PackageError::CheckFailed { .. } => ("check_failed", Outcome::Failure),
        PackageError::NameCollision { .. } => ("name_collision", Outcome::Failure),
        PackageError::NotInstalled { .. } => ("not_installed", Outcome::Failure),
        PackageError::NotLocked { .. } => ("not_locked", Outcome::Failure),
        PackageError::UnknownAgent { .. } => ("unknown_agent", Outcome::UsageError),
        PackageError::AgentPlaceTaken { .. } => ("agent_folder_taken", Outcome::Failure),
        PackageError::SourceChanged { .. } => ("source_changed", Outcome::Failure),
        PackageError::Git { .. } => ("fetch_failed", Outcome::Failure),
        PackageError::UnsupportedLockedSource { .. } => ("unsupported_source", Outcome::Failure),
        PackageError::NoSkills { .. } | PackageError::SkillNotInSource { .. } => {
            ("no_skill_found", Outcome::Failure)
        }
        PackageError::Io { .. } | PackageError::NotADirectory { .. } => ("io", Outcome::Failure),
        _ => ("refused", Outcome::Failure),
    };
    if let (Format::Text, PackageError::CheckFailed { diagnostics, .. }) = (format, error) {
        output::diagnostics(diagnostics);
    }
    if let (Format::Json, PackageError::CheckFailed { diagnostics, .. }) = (format, error) {
        output::json(&json!({
            "error": code,
            "message": error.to_string(),
            "diagnostics": diagnostics,
        }))?;
        return Ok(outcome);
    }
    output::fail(format, code, &error.to_string(), outcome)
}

/// What each skill brings, before it is installed: its scripts and `allowed-tools` (an agent
/// may run them), what is left out, and the checker's findings.
fn show_plan(plan: &Plan) -> io::Result<()> {
    output::diagnostics(plan.diagnostics());
    let mut out = io::stderr().lock();
    for skill in plan.skills() {
        let from = skill.origin().to_owned();
        writeln!(
            out,
            "{} (from {})",
            printable(skill.name()),
            printable(&from)
        )?;
        let scripts: Vec<&str> = skill.scripts().collect();
        if !scripts.is_empty() {
            writeln!(out, "  scripts: {}", printable(&scripts.join(", ")))?;
        }
        if let Some(tools) = skill.allowed_tools() {
            writeln!(out, "  allowed-tools: {}", printable(tools))?;
        }
        for entry in skill.left_out() {
            let reason = entry.reason.as_str();
            writeln!(out, "  left out ({reason}): {}", printable(&entry.path))?;
        }
        for diagnostic in skill.diagnostics() {
            writeln!(out, "  {}", printable(&diagnostic.to_string()))?;
        }
    }
    Ok(())
}

/// Asks on the terminal; `None` when stdin is not one.
fn confirm(count: usize) -> io::Result<Option<bool>> {
    let stdin = io::stdin();
    if !stdin.is_terminal() {
        return Ok(None);
    }
    let mut prompt = io::stderr().lock();
    write!(prompt, "Install {count} skill(s)? [y/N] ")?;
    prompt.flush()?;
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer)?;
    Ok(Some(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes")))
}

fn planned_json(target: &Target, skill: &PlannedSkill) -> serde_json::Value {
    json!({
        "name": skill.name(),
        "path": target.skills_folder().join(skill.name()).display().to_string(),
        "source_path": skill.origin(),
        "files": skill.files().collect::<Vec<_>>(),
        "scripts": skill.scripts().collect::<Vec<_>>(),
        "allowed_tools": skill.allowed_tools(),
        "left_out": skill.left_out().iter().map(|entry| json!({
            "path": entry.path,
            "reason": entry.reason.as_str(),
        })).collect::<Vec<_>>(),
        "diagnostics": skill.diagnostics(),
    })
}

/// One drifted skill in `skillbook verify` and `install --format json`.
#[derive(Serialize)]
pub(super) struct DriftJson<'a> {
    name: &'a str,
    state: &'static str,
    added: &'a [String],
    removed: &'a [String],
    changed: &'a [String],
    hash_only: bool,
    message: Option<&'a str>,
}

pub(super) fn drift_json(skill: &SkillDrift) -> DriftJson<'_> {
    let mut entry = DriftJson {
        name: &skill.name,
        state: "changed",
        added: &[],
        removed: &[],
        changed: &[],
        hash_only: false,
        message: None,
    };
    match &skill.drift {
        Drift::Missing => entry.state = "missing",
        Drift::Changed {
            added,
            removed,
            changed,
            hash_only,
        } => {
            entry.added = added;
            entry.removed = removed;
            entry.changed = changed;
            entry.hash_only = *hash_only;
        }
        Drift::Unreadable { message } => {
            entry.state = "unreadable";
            entry.message = Some(message);
        }
        _ => entry.state = "unknown",
    }
    entry
}

fn verify_json(target: &Target, report: &VerifyReport) -> serde_json::Value {
    let drifted: Vec<DriftJson<'_>> = report.drifted.iter().map(drift_json).collect();
    json!({
        "lock": target.lock_path().display().to_string(),
        "clean": report.is_clean(),
        "checked": report.checked,
        "drifted": drifted,
        "not_locked": report.not_locked,
    })
}

fn show_verify(target: &Target, report: &VerifyReport) -> io::Result<()> {
    let mut out = crate::output::stdout();
    let lock = target.lock_path().display().to_string();
    for skill in &report.drifted {
        show_drift(&mut out, skill)?;
    }
    if report.is_clean() {
        writeln!(
            out,
            "{} locked skill(s) match {}",
            report.checked,
            printable(&lock)
        )?;
    } else {
        writeln!(
            out,
            "{} of {} locked skill(s) differ from {}",
            report.drifted.len(),
            report.checked,
            printable(&lock)
        )?;
    }
    if !report.not_locked.is_empty() {
        let names = report.not_locked.join(", ");
        let mut err = io::stderr().lock();
        writeln!(err, "note: not in the lock: {}", printable(&names))?;
    }
    Ok(())
}

/// One drifted skill as `verify` and `install` print it: its state, then `+`, `-` and `~` lines.
pub(super) fn show_drift(out: &mut impl Write, skill: &SkillDrift) -> io::Result<()> {
    let name = printable(&skill.name);
    match &skill.drift {
        Drift::Missing => writeln!(out, "{name}: missing")?,
        Drift::Changed {
            added,
            removed,
            changed,
            hash_only,
        } => {
            if *hash_only {
                writeln!(
                    out,
                    "{name}: changed (the lock has only the folder's computedHash, so files are not named)"
                )?;
            } else {
                writeln!(out, "{name}: changed")?;
            }
            for (mark, paths) in [("+", added), ("-", removed), ("~", changed)] {
                for path in paths {
                    writeln!(out, "  {mark} {}", printable(path))?;
                }
            }
        }
        Drift::Unreadable { message } => {
            writeln!(out, "{name}: unreadable: {}", printable(message))?
        }
        _ => writeln!(out, "{name}: differs")?,
    }
    Ok(())
}
