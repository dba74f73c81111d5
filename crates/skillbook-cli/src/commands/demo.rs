//! `skillbook demo`: the three activation paths, end to end, with a scripted model.
//!
//! The example skills of `examples/skills/` are compiled into the binary. A scripted model (no
//! network, no key) plays each path, and the demo prints everything the model sees: the system
//! prompt, the tools, the context items, each tool call and each result. The output is
//! deterministic.

use std::io::{self, Write};

use anyhow::Context;
use include_dir::{Dir, include_dir};
use serde_json::{Value, json};
use skillbook::runtime::{PreparedRun, Resolver, RunRequest, Scope, SkillRuntime, ToolCall};
use skillbook::sources::{self, ProvidedSkill};

use crate::output::Outcome;

static EXAMPLES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../examples/skills");

const HOST_PROMPT: &str = "You are a helpful engineering assistant.";

/// What the scripted model does next.
enum Turn {
    Call(&'static str, Value),
    Answer(&'static str),
}

pub(crate) fn run() -> anyhow::Result<Outcome> {
    let embedded = sources::from_embedded(&EXAMPLES).context("the embedded example skills")?;
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "skillbook demo: three ways a skill reaches a model (scripted model, no network)\n"
    )?;
    heading(&mut out, "Skills embedded in this binary")?;
    for skill in &embedded {
        let manual = if skill.disable_model_invocation() {
            " (manual only: never in the catalog)"
        } else {
            ""
        };
        writeln!(
            out,
            "  {}{manual}\n    {}",
            skill.uri(),
            skill.description()
        )?;
    }
    let host_tools = vec![json!({"type": "function", "function": {
        "name": "read_file",
        "description": "The host's own tool for reading workspace files.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}
    }})];
    model_selected(&mut out, &embedded, &host_tools)?;
    host_named(&mut out, &embedded, &host_tools)?;
    host_provided(&mut out, &embedded, &host_tools)?;
    Ok(Outcome::Success)
}

fn runtime(skills: Vec<ProvidedSkill>) -> SkillRuntime {
    // No directories: every skill of the demo comes from memory.
    let workspace = std::env::temp_dir();
    SkillRuntime::new(Resolver::fixed(
        Scope::tenant(workspace, Vec::<&str>::new()).with_provided(skills),
    ))
}

fn model_selected(
    out: &mut impl Write,
    embedded: &[ProvidedSkill],
    host_tools: &[Value],
) -> anyhow::Result<()> {
    heading(out, "Path 1: the model picks a skill from the catalog")?;
    writeln!(
        out,
        "The host already owns `read_file`, so the skill reader is added as `read_skill_file`\n\
         and the catalog names that. The reader only reaches the exposed skills.\n"
    )?;
    let run = runtime(embedded.to_vec())
        .prepare(RunRequest::new(HOST_PROMPT).with_tools(host_tools.to_vec()))?;
    show_request(
        out,
        &run,
        "Review this diff: `- if x > 0 {` / `+ if x >= 0 {`",
    )?;
    let script = [
        Turn::Call(
            "read_skill_file",
            json!({"path": "skill://code-review/SKILL.md"}),
        ),
        Turn::Answer(
            "1. src/check.rs:12: `>=` now accepts zero; the old test for zero should fail. \
             Add a case for x = 0.\nVerdict: request changes.",
        ),
    ];
    play(out, &run, script)
}

fn host_named(
    out: &mut impl Write,
    embedded: &[ProvidedSkill],
    host_tools: &[Value],
) -> anyhow::Result<()> {
    heading(
        out,
        "Path 2: the host names a skill (manual-only `incident-runbook`)",
    )?;
    let runtime = runtime(embedded.to_vec());
    let plain = runtime.prepare(RunRequest::new(HOST_PROMPT).with_tools(host_tools.to_vec()))?;
    let run = runtime.prepare(
        RunRequest::new(HOST_PROMPT)
            .with_tools(host_tools.to_vec())
            .with_selected(["incident-runbook"]),
    )?;
    writeln!(
        out,
        "The selected skill goes into a user message before the history, flagged as skill\n\
         content. System prompt byte-identical to a run without selection: {}\n",
        if run.system_prompt == plain.system_prompt {
            "yes (the prompt cache survives)"
        } else {
            "NO"
        }
    )?;
    section(out, "system prompt")?;
    writeln!(out, "(the same bytes as in path 1)\n")?;
    show_rest(
        out,
        &run,
        "Checkout is returning 500s since the last deploy.",
    )?;
    play(
        out,
        &run,
        [Turn::Answer(
            "Acknowledged; opening #inc-checkout-500. The deploy is 20 minutes old, so I am \
             rolling it back first, then posting a status update.",
        )],
    )
}

fn host_provided(
    out: &mut impl Write,
    embedded: &[ProvidedSkill],
    host_tools: &[Value],
) -> anyhow::Result<()> {
    heading(
        out,
        "Path 3: skills handed in from memory (a tenant's store)",
    )?;
    let tenant = ProvidedSkill::parse(
        "---\nname: acme-voice\ndescription: Acme's writing voice. Use for any text Acme's \
         customers will read.\n---\n# Acme voice\n\nShort sentences. No jargon. Read \
         `references/words.md` for the words Acme avoids.\n",
    )?
    .with_file(
        "references/words.md",
        b"Avoid: leverage, synergy, utilize.\n".as_slice(),
    )?;
    writeln!(
        out,
        "`acme-voice` lives in memory: it is listed as skill://acme-voice/SKILL.md and served\n\
         without touching the disk.\n"
    )?;
    let mut skills = embedded.to_vec();
    skills.push(tenant);
    let run =
        runtime(skills).prepare(RunRequest::new(HOST_PROMPT).with_tools(host_tools.to_vec()))?;
    show_request(out, &run, "Draft release notes for Acme's 2.0 launch.")?;
    let script = [
        Turn::Call(
            "read_skill_file",
            json!({"path": "skill://acme-voice/SKILL.md"}),
        ),
        Turn::Call(
            "read_skill_file",
            json!({"path": "skill://acme-voice/references/words.md"}),
        ),
        Turn::Call(
            "read_skill_file",
            json!({"path": "skill://acme-voice/../../etc/passwd"}),
        ),
        Turn::Answer("Acme 2.0 is here. It is faster. It is simpler. Here is what changed: …"),
    ];
    play(out, &run, script)
}

/// Prints what the model receives at the start of a run.
fn show_request(out: &mut impl Write, run: &PreparedRun, user: &str) -> io::Result<()> {
    section(out, "system prompt")?;
    writeln!(out, "{}\n", run.system_prompt)?;
    show_rest(out, run, user)
}

/// Prints the tools, the context items and the user's message.
fn show_rest(out: &mut impl Write, run: &PreparedRun, user: &str) -> io::Result<()> {
    section(out, "tools")?;
    for tool in &run.tools {
        let name = tool
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let owner = if run.handles(name) {
            "skillbook"
        } else {
            "host"
        };
        writeln!(out, "  {name} ({owner})")?;
    }
    writeln!(out)?;
    for item in &run.items {
        section(
            out,
            "context item before the history (role: user, skill content)",
        )?;
        writeln!(out, "{}\n", item.content)?;
    }
    section(out, "user")?;
    writeln!(out, "{user}\n")
}

/// Plays the scripted model's turns, executing the reader's calls.
fn play<const N: usize>(
    out: &mut impl Write,
    run: &PreparedRun,
    script: [Turn; N],
) -> anyhow::Result<()> {
    for (index, turn) in script.into_iter().enumerate() {
        match turn {
            Turn::Call(tool, arguments) => {
                let call = ToolCall::new(format!("call_{}", index + 1), tool, arguments);
                section(out, &format!("model calls {tool} {}", call.arguments))?;
                let result = run.execute(&call);
                let label = match (&result.skill, result.is_error) {
                    (_, true) => "tool result (error)".to_owned(),
                    (Some(skill), false) => format!("tool result (skill content: {skill})"),
                    (None, false) => "tool result".to_owned(),
                };
                section(out, &label)?;
                writeln!(out, "{}\n", pretty(&result.content))?;
            }
            Turn::Answer(text) => {
                section(out, "model answers")?;
                writeln!(out, "{text}\n")?;
            }
        }
    }
    Ok(())
}

/// A read result shown with its content as text rather than one escaped line.
fn pretty(content: &str) -> String {
    match serde_json::from_str::<Value>(content) {
        Ok(Value::Object(mut fields)) => {
            let text = fields.remove("content");
            let mut shown = serde_json::to_string(&fields).unwrap_or_default();
            if let Some(Value::String(text)) = text {
                shown.push('\n');
                shown.push_str(&text);
            }
            shown
        }
        _ => content.to_owned(),
    }
}

fn heading(out: &mut impl Write, title: &str) -> io::Result<()> {
    writeln!(out, "\n=== {title} ===\n")
}

fn section(out: &mut impl Write, title: &str) -> io::Result<()> {
    writeln!(out, "--- {title}")
}
