//! Agent Skills for [rig](https://docs.rs/rig-core) agents: a skillbook run's catalog becomes the
//! agent's preamble, its host-named skills become context documents, and its skill tools
//! (`read_file`, `search_skills`, `activate_skill`) become rig tools answered by the run.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use rig_agent::AgentBuilder;
//! use rig_core::providers::openai::OpenAIConfig;
//! use skillbook::runtime::{Resolver, RunRequest, Scope, SkillRuntime};
//! use skillbook_rig::SkillsExt;
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = SkillRuntime::new(Resolver::fixed(Scope::workspace(".")));
//! let run = Arc::new(runtime.prepare(RunRequest::new("You are a helpful assistant."))?);
//! let openai = OpenAIConfig::from_env()?.connect(skillbook_rig::http_client()?);
//! let agent = AgentBuilder::new(openai.completion("gpt-5.2")).skills(&run).build();
//! let answer = agent.prompt("Fill in the date fields of form.pdf").max_turns(8).await?;
//! println!("{}", answer.output());
//! # Ok(())
//! # }
//! ```
//!
//! rig 0.44 splits what earlier releases had in one crate: the tool API and the provider
//! clients are in `rig-core`, the agent and its builder in `rig-agent`. This crate needs both;
//! give the agent a turn budget ([`AgentRunner::max_turns`](rig_agent::AgentRunner::max_turns)
//! or [`AgentBuilder::default_max_turns`]) of a few turns, since reading a skill takes at least
//! one tool call before the answer (rig's default budget is one model call).
//!
//! A tool call the run refuses (a path outside every skill, a malformed argument) comes back
//! as a failed rig tool result whose model-visible output is the run's error text, the same
//! JSON error a model gets from skillbook anywhere else: the model reads it and can try again,
//! and rig's hooks and telemetry see the failure as a failure.

use std::sync::Arc;

use rig_agent::AgentBuilder;
use rig_agent::agent::{NoToolConfig, WithBuilderTools};
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};
use skillbook::runtime::{PreparedRun, ToolCall, ToolDefinition};

mod http;

pub use http::{HttpError, http_client};

/// The run's skill tools as rig tools, one for each of
/// [`PreparedRun::tool_definitions`]: the reader, the search tool when the catalog offers it
/// (from tier 3 on), and `activate_skill` when the runtime enables it. None when no skill is
/// exposed.
///
/// Each tool answers with [`PreparedRun::execute`]: its result's `content` as the tool's text
/// output, or, when the run reports an error, a failed result that shows the model that same
/// text. The run reads files synchronously; skill files are small, so a call does not yield.
///
/// The definition's `strict` flag has no place in rig's tool definition: whether a provider is
/// asked for strict schemas is the wire's setting (for OpenAI's Responses API,
/// `Responses::with_strict_tools`).
pub fn tools(run: &Arc<PreparedRun>) -> Vec<DynamicTool> {
    run.tool_definitions()
        .iter()
        .filter_map(|definition| tool(run, definition))
        .collect()
}

/// One rig tool for `definition`, calling the run; `None` for an empty name, which the run
/// never gives.
fn tool(run: &Arc<PreparedRun>, definition: &ToolDefinition) -> Option<DynamicTool> {
    let name = ToolName::new(definition.name.clone()).ok()?;
    let tool_name = definition.name.clone();
    let run = Arc::clone(run);
    Some(DynamicTool::new(
        name,
        definition.description.clone(),
        definition.parameters.clone(),
        move |arguments| {
            let outcome = execute(&run, &tool_name, arguments);
            Box::pin(async move { outcome })
        },
    ))
}

/// Runs one call of the tool `name` through the run. rig does not hand a context-free tool its
/// call id, so the call is named by its tool; the run only echoes the id back.
fn execute(
    run: &PreparedRun,
    name: &str,
    arguments: serde_json::Value,
) -> Result<ToolOutput, ToolExecutionError> {
    let result = run.execute(&ToolCall::new(name, name, arguments));
    if result.is_error {
        Err(ToolExecutionError::new(
            ToolErrorKind::Other,
            result.content,
        ))
    } else {
        Ok(ToolOutput::text(result.content))
    }
}

/// Gives a rig [`AgentBuilder`] a prepared run's skills in one call.
pub trait SkillsExt {
    /// The builder with tools added.
    type Output;

    /// Sets the agent's preamble to the run's [`system_prompt`](PreparedRun::system_prompt)
    /// (the host's prompt with the catalog appended, at the tier the budget allows), adds each
    /// of the run's [`items`](PreparedRun::items) (the host-named skills' content) as a static
    /// context document, and adds the run's [`tools`].
    ///
    /// A preamble set before this call is replaced: give the host's prompt to
    /// [`RunRequest::new`](skillbook::runtime::RunRequest::new) instead, so the catalog follows
    /// it.
    fn skills(self, run: &Arc<PreparedRun>) -> Self::Output;
}

impl SkillsExt for AgentBuilder<NoToolConfig> {
    type Output = AgentBuilder<WithBuilderTools>;

    fn skills(self, run: &Arc<PreparedRun>) -> Self::Output {
        with_context(self, run).dynamic_tools(tools(run))
    }
}

impl SkillsExt for AgentBuilder<WithBuilderTools> {
    type Output = Self;

    fn skills(self, run: &Arc<PreparedRun>) -> Self::Output {
        with_context(self, run).dynamic_tools(tools(run))
    }
}

/// `builder` with the run's system prompt as its preamble and its items as context documents.
fn with_context<State>(builder: AgentBuilder<State>, run: &PreparedRun) -> AgentBuilder<State> {
    run.items.iter().fold(
        builder.preamble(run.system_prompt.clone()),
        |builder, item| builder.context(item.content.clone()),
    )
}
