//! `skillbook demo`: the three activation paths, end to end, with a scripted model.
//!
//! The example skills of `examples/skills/` are compiled into the binary. A scripted model (no
//! network, no key) plays each path, and the demo prints everything the model sees: the system
//! prompt, the tools, the context items, each tool call and each result. The output is
//! deterministic. The paths are played once into a [`Demo`], which is then written as text or,
//! under `--format json`, as one document of the same content.

use std::io::{self, Write};

use anyhow::Context;
use include_dir::{Dir, include_dir};
use serde::Serialize;
use serde_json::{Value, json};
use skillbook::runtime::{PreparedRun, Resolver, RunRequest, Scope, SkillRuntime, ToolCall};
use skillbook::sources::{self, ProvidedSkill};

use crate::cli::Format;
use crate::output::{self, Outcome};

static EXAMPLES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../examples/skills");

const HOST_PROMPT: &str = "You are a helpful engineering assistant.";

const TITLE: &str =
    "skillbook demo: three ways a skill reaches a model (scripted model, no network)";

/// What the scripted model does next.
enum Turn {
    Call(&'static str, Value),
    Answer(&'static str),
}

/// Everything the demo shows: the JSON document of `demo --format json`.
#[derive(Serialize)]
struct Demo {
    title: &'static str,
    skills: Vec<EmbeddedSkill>,
    paths: Vec<PathShown>,
}

/// A skill built into the binary.
#[derive(Serialize)]
struct EmbeddedSkill {
    name: String,
    uri: String,
    description: String,
    manual_only: bool,
}

/// One activation path as the model saw it.
#[derive(Serialize)]
struct PathShown {
    title: &'static str,
    explanation: String,
    system_prompt: String,
    /// Text output only: print a note instead of the prompt (it is the same as path 1's).
    #[serde(skip)]
    prompt_note: Option<&'static str>,
    tools: Vec<ToolShown>,
    /// Messages placed before the history (host-selected skills).
    context_items: Vec<String>,
    user: &'static str,
    steps: Vec<Step>,
}

#[derive(Serialize)]
struct ToolShown {
    name: String,
    owner: &'static str,
}

/// A model turn: a tool call and its result, or the final answer.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Step {
    Call {
        tool: &'static str,
        arguments: Value,
        is_error: bool,
        /// The skill whose instructions the result holds.
        skill: Option<String>,
        /// The tool's result: its JSON document, or its text when it is not JSON.
        result: Value,
    },
    Answer {
        text: &'static str,
    },
}

pub(crate) fn run(format: Format) -> anyhow::Result<Outcome> {
    let demo = play_all()?;
    match format {
        Format::Json => output::json(&demo)?,
        Format::Text => write_text(&mut crate::output::stdout(), &demo)?,
    }
    Ok(Outcome::Success)
}

fn play_all() -> anyhow::Result<Demo> {
    let embedded = sources::from_embedded(&EXAMPLES).context("the embedded example skills")?;
    let skills = embedded
        .iter()
        .map(|skill| EmbeddedSkill {
            name: skill.name().to_string(),
            uri: skill.uri().to_string(),
            description: skill.description().to_owned(),
            manual_only: skill.disable_model_invocation(),
        })
        .collect();
    let host_tools = vec![json!({"type": "function", "function": {
        "name": "read_file",
        "description": "The host's own tool for reading workspace files.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}
    }})];
    Ok(Demo {
        title: TITLE,
        skills,
        paths: vec![
            model_selected(&embedded, &host_tools)?,
            host_named(&embedded, &host_tools)?,
            host_provided(&embedded, &host_tools)?,
        ],
    })
}

fn runtime(skills: Vec<ProvidedSkill>) -> SkillRuntime {
    // No directories: every skill of the demo comes from memory.
    let workspace = std::env::temp_dir();
    SkillRuntime::new(Resolver::fixed(
        Scope::tenant(workspace, Vec::<&str>::new()).with_provided(skills),
    ))
}

fn model_selected(embedded: &[ProvidedSkill], host_tools: &[Value]) -> anyhow::Result<PathShown> {
    let run = runtime(embedded.to_vec())
        .prepare(RunRequest::new(HOST_PROMPT).with_tools(host_tools.to_vec()))?;
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
    Ok(shown(
        "Path 1: the model picks a skill from the catalog",
        "The host already owns `read_file`, so the skill reader is added as `read_skill_file`\n\
         and the catalog names that. The reader only reaches the exposed skills."
            .to_owned(),
        &run,
        "Review this diff: `- if x > 0 {` / `+ if x >= 0 {`",
        script,
    ))
}

fn host_named(embedded: &[ProvidedSkill], host_tools: &[Value]) -> anyhow::Result<PathShown> {
    let runtime = runtime(embedded.to_vec());
    let plain = runtime.prepare(RunRequest::new(HOST_PROMPT).with_tools(host_tools.to_vec()))?;
    let run = runtime.prepare(
        RunRequest::new(HOST_PROMPT)
            .with_tools(host_tools.to_vec())
            .with_selected(["incident-runbook"]),
    )?;
    let explanation = format!(
        "The selected skill goes into a user message before the history, flagged as skill\n\
         content. System prompt byte-identical to a run without selection: {}",
        if run.system_prompt == plain.system_prompt {
            "yes (the prompt cache survives)"
        } else {
            "NO"
        }
    );
    let mut path = shown(
        "Path 2: the host names a skill (manual-only `incident-runbook`)",
        explanation,
        &run,
        "Checkout is returning 500s since the last deploy.",
        [Turn::Answer(
            "Acknowledged; opening #inc-checkout-500. The deploy is 20 minutes old, so I am \
             rolling it back first, then posting a status update.",
        )],
    );
    path.prompt_note = Some("(the same bytes as in path 1)");
    Ok(path)
}

fn host_provided(embedded: &[ProvidedSkill], host_tools: &[Value]) -> anyhow::Result<PathShown> {
    let tenant = ProvidedSkill::parse(
        "---\nname: acme-voice\ndescription: Acme's writing voice. Use for any text Acme's \
         customers will read.\n---\n# Acme voice\n\nShort sentences. No jargon. Read \
         `references/words.md` for the words Acme avoids.\n",
    )?
    .with_file(
        "references/words.md",
        b"Avoid: leverage, synergy, utilize.\n".as_slice(),
    )?;
    let mut skills = embedded.to_vec();
    skills.push(tenant);
    let run =
        runtime(skills).prepare(RunRequest::new(HOST_PROMPT).with_tools(host_tools.to_vec()))?;
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
    Ok(shown(
        "Path 3: skills handed in from memory (a tenant's store)",
        "`acme-voice` lives in memory: it is listed as skill://acme-voice/SKILL.md and served\n\
         without touching the disk."
            .to_owned(),
        &run,
        "Draft release notes for Acme's 2.0 launch.",
        script,
    ))
}

/// Plays the scripted model's turns on `run`, executing the reader's calls, and keeps what the
/// model saw.
fn shown<const N: usize>(
    title: &'static str,
    explanation: String,
    run: &PreparedRun,
    user: &'static str,
    script: [Turn; N],
) -> PathShown {
    let tools = run
        .tools
        .iter()
        .map(|tool| {
            let name = tool
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("?");
            let owner = if run.handles(name) {
                "skillbook"
            } else {
                "host"
            };
            ToolShown {
                name: name.to_owned(),
                owner,
            }
        })
        .collect();
    let steps = script
        .into_iter()
        .enumerate()
        .map(|(index, turn)| match turn {
            Turn::Call(tool, arguments) => {
                let call = ToolCall::new(format!("call_{}", index + 1), tool, arguments);
                let result = run.execute(&call);
                Step::Call {
                    tool,
                    arguments: call.arguments,
                    is_error: result.is_error,
                    skill: result.skill,
                    result: serde_json::from_str(&result.content)
                        .unwrap_or(Value::String(result.content)),
                }
            }
            Turn::Answer(text) => Step::Answer { text },
        })
        .collect();
    PathShown {
        title,
        explanation,
        system_prompt: run.system_prompt.clone(),
        prompt_note: None,
        tools,
        context_items: run.items.iter().map(|item| item.content.clone()).collect(),
        user,
        steps,
    }
}

/// The demo for people.
fn write_text(out: &mut impl Write, demo: &Demo) -> io::Result<()> {
    writeln!(out, "{}\n", demo.title)?;
    heading(out, "Skills embedded in this binary")?;
    for skill in &demo.skills {
        let manual = if skill.manual_only {
            " (manual only: never in the catalog)"
        } else {
            ""
        };
        writeln!(out, "  {}{manual}\n    {}", skill.uri, skill.description)?;
    }
    for path in &demo.paths {
        heading(out, path.title)?;
        writeln!(out, "{}\n", path.explanation)?;
        section(out, "system prompt")?;
        writeln!(out, "{}\n", path.prompt_note.unwrap_or(&path.system_prompt))?;
        section(out, "tools")?;
        for tool in &path.tools {
            writeln!(out, "  {} ({})", tool.name, tool.owner)?;
        }
        writeln!(out)?;
        for item in &path.context_items {
            section(
                out,
                "context item before the history (role: user, skill content)",
            )?;
            writeln!(out, "{item}\n")?;
        }
        section(out, "user")?;
        writeln!(out, "{}\n", path.user)?;
        for step in &path.steps {
            match step {
                Step::Call {
                    tool,
                    arguments,
                    is_error,
                    skill,
                    result,
                } => {
                    section(out, &format!("model calls {tool} {arguments}"))?;
                    let label = match (skill, is_error) {
                        (_, true) => "tool result (error)".to_owned(),
                        (Some(skill), false) => format!("tool result (skill content: {skill})"),
                        (None, false) => "tool result".to_owned(),
                    };
                    section(out, &label)?;
                    writeln!(out, "{}\n", pretty(result))?;
                }
                Step::Answer { text } => {
                    section(out, "model answers")?;
                    writeln!(out, "{text}\n")?;
                }
            }
        }
    }
    Ok(())
}

/// A read result shown with its content as text rather than one escaped line.
fn pretty(result: &Value) -> String {
    match result {
        Value::Object(fields) => {
            let mut fields = fields.clone();
            let text = fields.remove("content");
            let mut shown = serde_json::to_string(&fields).unwrap_or_default();
            if let Some(Value::String(text)) = text {
                shown.push('\n');
                shown.push_str(&text);
            }
            shown
        }
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn heading(out: &mut impl Write, title: &str) -> io::Result<()> {
    writeln!(out, "\n=== {title} ===\n")
}

fn section(out: &mut impl Write, title: &str) -> io::Result<()> {
    writeln!(out, "--- {title}")
}
