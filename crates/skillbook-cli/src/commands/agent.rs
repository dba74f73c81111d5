//! `skillbook agent TASK`: a real model finds and uses the skills, through `skillbook_agent`'s
//! loop, the transcript printed as the demo prints its scripted one.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, bail};
use skillbook::runtime::{Resolver, RunRequest, SkillRuntime};
use skillbook_agent::{Agent, AgentError, Endpoint, Event, Finished, ModelApi, Stop};

use crate::cli::{AgentArgs, CommonArgs, Format, ModelProvider};
use crate::output::{self, Outcome};
use crate::settings;

/// The system prompt the catalog is appended to.
const SYSTEM_PROMPT: &str = "You are a helpful assistant. Use the skills below when they fit \
                             the task.";

/// The default models, when neither `--model` nor the environment names one.
const OPENAI_MODEL: &str = "gpt-4.1-mini";
const ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";

pub(crate) fn run(common: &CommonArgs, args: &AgentArgs) -> anyhow::Result<Outcome> {
    let stored = args.resume.as_deref().map(read_stored).transpose()?;
    let api = match (args.provider, &stored) {
        (Some(ModelProvider::Openai), _) | (None, None) => ModelApi::OpenAiChat,
        (Some(ModelProvider::Anthropic), _) => ModelApi::Anthropic,
        (None, Some(stored)) => stored.api,
    };
    let model = args
        .model
        .clone()
        .or_else(|| stored.as_ref().map(|stored| stored.model.clone()));
    let endpoint = endpoint(api, model)?;
    let runtime =
        SkillRuntime::new(Resolver::fixed(settings::scope(common))).catalog_budget(args.budget);
    let run = match &stored {
        Some(stored) => runtime
            .resume(&stored.record)
            .context("the stored run cannot go on")?,
        None => runtime.prepare(RunRequest::new(SYSTEM_PROMPT))?,
    };
    output::diagnostics(&run.diagnostics);
    let task = (!args.task.is_empty()).then(|| args.task.join(" "));
    let agent = Agent::new(endpoint).max_turns(usize::try_from(args.max_turns).unwrap_or(10));
    let text = common.format == Format::Text;
    let mut stdout = io::BufWriter::new(crate::output::stdout());
    if text && let Some(task) = &task {
        writeln!(stdout, "--- user\n{task}\n")?;
    }
    let mut observe = |event: &Event<'_>| {
        // A transcript that cannot be written does not stop the run; the answer is kept.
        let _ = transcript(&mut stdout, event, text);
    };
    let outcome = match stored {
        Some(stored) => agent.resume(&run, stored, task.as_deref(), &mut observe),
        None => agent.run(&run, task.as_deref().unwrap_or_default(), &mut observe),
    };
    let finished = match outcome {
        Ok(finished) => finished,
        // With JSON, the turns taken are printed in the error document, so `--resume` can go
        // on from it once the cause has passed.
        Err(AgentError::Interrupted { source, partial }) if !text => {
            let mut document = serde_json::to_value(&*partial)?;
            document["error"] = "model_api".into();
            document["message"] = format!(
                "the run stopped after {} turns: {source}; this document holds the conversation \
                 so far, which --resume goes on with",
                partial.turns
            )
            .into();
            serde_json::to_writer_pretty(&mut stdout, &document)?;
            writeln!(stdout)?;
            stdout.flush()?;
            return Ok(Outcome::Failure);
        }
        Err(AgentError::Interrupted { source, partial }) => {
            return Err(anyhow::Error::new(*source).context(format!(
                "the run stopped after {} turns (with --format json the conversation so far is \
                 printed, for --resume)",
                partial.turns
            )));
        }
        Err(error) => return Err(error.into()),
    };
    if !text {
        serde_json::to_writer_pretty(&mut stdout, &finished)?;
        writeln!(stdout)?;
    }
    stdout.flush()?;
    if finished.stop == Stop::TurnLimit {
        eprintln!(
            "note: stopped after {} turns without an answer; raise --max-turns, or go on with \
             --format json and --resume",
            finished.turns
        );
        return Ok(Outcome::Failure);
    }
    Ok(Outcome::Success)
}

/// The endpoint for `api`: its base URL and key from the environment, the model as asked.
fn endpoint(api: ModelApi, model: Option<String>) -> anyhow::Result<Endpoint> {
    let (prefix, default_model) = match api {
        ModelApi::OpenAiChat => ("OPENAI", OPENAI_MODEL),
        ModelApi::Anthropic => ("ANTHROPIC", ANTHROPIC_MODEL),
        _ => bail!("this model API is not supported by `skillbook agent`"),
    };
    let variable = |name: &str| {
        std::env::var(format!("{prefix}_{name}"))
            .ok()
            .filter(|value| !value.trim().is_empty())
    };
    let model = model
        .or_else(|| variable("MODEL"))
        .unwrap_or_else(|| default_model.to_owned());
    let mut endpoint = Endpoint::new(api, model);
    let custom_url = variable("BASE_URL");
    if let Some(url) = &custom_url {
        endpoint = endpoint.base_url(url.trim());
    }
    match variable("API_KEY") {
        Some(key) => endpoint = endpoint.api_key(key.trim()),
        // A server of one's own may need no key; the public API does.
        None if custom_url.is_none() => bail!(
            "{prefix}_API_KEY is not set: export it (or set {prefix}_BASE_URL to a compatible \
             server that needs no key)"
        ),
        None => {}
    }
    Ok(endpoint)
}

/// A run that `--format json` printed.
fn read_stored(path: &Path) -> anyhow::Result<Finished> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the stored run {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a run that `skillbook agent --format json` printed",
            path.display()
        )
    })
}

/// One event of the run, as the demo shows its steps (retries go to stderr in either format).
fn transcript(out: &mut impl Write, event: &Event<'_>, text: bool) -> io::Result<()> {
    match event {
        Event::Retry { status, wait } => {
            let status = status.map_or("no answer".to_owned(), |status| status.to_string());
            eprintln!(
                "note: the model API answered {status}; trying again in {:.1} s",
                wait.as_secs_f64()
            );
        }
        _ if !text => {}
        Event::Call(call) => {
            // OpenAI's arguments are JSON text; Anthropic's a JSON object.
            let arguments = match &call.arguments {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let shown = format!("{} {arguments}", call.name);
            writeln!(out, "--- model calls {}", output::printable(&shown))?;
        }
        Event::Result(result) => {
            let label = match (&result.skill, result.is_error) {
                (_, true) => "tool result (error)".to_owned(),
                (Some(skill), false) => format!("tool result (skill content: {skill})"),
                (None, false) => "tool result".to_owned(),
            };
            writeln!(out, "--- {label}\n{}\n", output::printable(&result.content))?;
        }
        Event::Answer(answer) => {
            writeln!(out, "--- model answers\n{}\n", output::printable(answer))?;
        }
        _ => {}
    }
    Ok(())
}
