//! Executing the reader's tool calls through the run's [`SkillReader`], the host policy, and the
//! optional `activate_skill` fallback.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::catalog::{READ_FILE, SEARCH_SKILLS};
use crate::error::{ErrorCode, error_json};
use crate::format::SkillName;
use crate::read::SkillReader;
use crate::read::skill_instructions;
use crate::search::SearchIndex;

use super::messages::{ToolCall, ToolResult};
use super::scope::whole_skill_text;
use super::search_tool::search_call;
use super::tools::ToolSet;

/// The reader's name when the host already owns `read_file`.
pub const READ_SKILL_FILE: &str = "read_skill_file";
/// The optional fallback tool's name.
pub const ACTIVATE_SKILL: &str = "activate_skill";

/// A read the host's policy is asked about.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PolicyCall<'a> {
    /// The canonical tool name: `read_file` for every reader call, `search_skills` for every
    /// search, `activate_skill` for the fallback tool.
    pub tool: &'a str,
    /// The name the model used (`read_skill_file` or `search_skill_catalog` when aliased).
    pub exposed_as: &'a str,
    /// The call's arguments as the model sent them.
    pub arguments: &'a Value,
}

/// A policy's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyDecision {
    /// Let the read happen.
    Allow,
    /// Refuse it; the reason becomes the tool result the model sees.
    Deny(String),
}

/// A host rule (permission check, guardrail, interceptor) consulted before every skill read
/// and every skill search.
pub trait ReadPolicy: Send + Sync {
    /// Decides one call.
    fn check(&self, call: &PolicyCall<'_>) -> PolicyDecision;
}

impl<F> ReadPolicy for F
where
    F: Fn(&PolicyCall<'_>) -> PolicyDecision + Send + Sync,
{
    fn check(&self, call: &PolicyCall<'_>) -> PolicyDecision {
        self(call)
    }
}

/// Executes the run's own tools — the reader, the search tool and the fallback tool, as its
/// [`ToolSet`] offers them — for one run.
pub(crate) struct Executor {
    /// Reads the exposed skills; its options name the reader as the run offers it.
    reader: SkillReader,
    /// The most bytes of a skill file `activate_skill` returns whole.
    skill_file_bytes: u64,
    /// The tools offered.
    tools: ToolSet,
    /// The skills `activate_skill` offers, by name, with their directory as the marker shows it.
    activate: Option<Arc<BTreeMap<SkillName, String>>>,
    /// The index the search tool searches, when the run offers it.
    search: Option<Arc<SearchIndex>>,
    policy: Option<Arc<dyn ReadPolicy>>,
}

impl fmt::Debug for Executor {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Executor")
            .field("reader", &self.reader)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl Executor {
    /// An executor reading through `reader` (the exposed skills only, named as the run offers
    /// the reader) the tools `tools` offers, with the search tool searching `search` when it is
    /// offered.
    pub(crate) fn new(
        reader: SkillReader,
        skill_file_bytes: u64,
        tools: ToolSet,
        search: Option<Arc<SearchIndex>>,
        policy: Option<Arc<dyn ReadPolicy>>,
    ) -> Self {
        Executor {
            reader,
            skill_file_bytes,
            search: tools.search().and(search),
            tools,
            activate: None,
            policy,
        }
    }

    /// Also offers `activate_skill` for `skills` (the model-visible skills, with their
    /// directories as the marker shows them).
    pub(crate) fn with_activate(mut self, skills: Arc<BTreeMap<SkillName, String>>) -> Self {
        self.tools = self.tools.with_activate(skills.keys());
        self.activate = Some(skills);
        self
    }

    /// The search tool's name, when the run offers it.
    pub(crate) fn search_name(&self) -> Option<&str> {
        self.tools.search().map(|search| search.name.as_str())
    }

    /// The reader's name.
    pub(crate) fn name(&self) -> &str {
        self.reader.options().tool_name()
    }

    /// The tools offered.
    pub(crate) fn tools(&self) -> &ToolSet {
        &self.tools
    }

    pub(crate) fn handles(&self, tool: &str) -> bool {
        tool == self.name()
            || (self.activate.is_some() && tool == ACTIVATE_SKILL)
            || self.search_name() == Some(tool)
    }

    pub(crate) fn execute(&self, call: &ToolCall) -> ToolResult {
        let canonical = if call.name == self.name() {
            READ_FILE
        } else if self.search_name() == Some(call.name.as_str()) {
            SEARCH_SKILLS
        } else if self.handles(&call.name) {
            ACTIVATE_SKILL
        } else {
            let message = format!(
                "unsupported tool `{}`: this executor only runs `{}`; route other tools to the \
                 host",
                call.name,
                self.name()
            );
            return error_result(call, ErrorCode::UnsupportedTool, &message);
        };
        let policy_call = PolicyCall {
            tool: canonical,
            exposed_as: &call.name,
            arguments: &call.arguments,
        };
        if let Some(PolicyDecision::Deny(reason)) = self
            .policy
            .as_ref()
            .map(|policy| policy.check(&policy_call))
        {
            return error_result(call, ErrorCode::Denied, &reason);
        }
        if canonical == ACTIVATE_SKILL {
            return self.activate(call);
        }
        if let (SEARCH_SKILLS, Some(index)) = (canonical, &self.search) {
            let (content, is_error) = match search_call(index, &call.arguments) {
                Ok(results) => (results, false),
                Err(error) => (error, true),
            };
            return ToolResult {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: content.to_string(),
                is_error,
                skill: None,
            };
        }
        match self.reader.call(&call.arguments) {
            Ok(result) => ToolResult {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: result.to_json().to_string(),
                is_error: false,
                skill: result.skill,
            },
            Err(error) => ToolResult {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: error.to_json().to_string(),
                is_error: true,
                skill: None,
            },
        }
    }

    fn activate(&self, call: &ToolCall) -> ToolResult {
        let arguments = match &call.arguments {
            Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            other => other.clone(),
        };
        let requested = arguments.get("name").and_then(Value::as_str).unwrap_or("");
        let skill = self
            .activate
            .as_ref()
            .and_then(|skills| skills.get_key_value(requested.trim()));
        let Some((name, directory)) = skill else {
            let message = format!(
                "no skill named `{requested}`; pass one of the names listed in the tool's `name` enum"
            );
            return error_result(call, ErrorCode::NotFound, &message);
        };
        // The whole SKILL.md, within the scope's size limit, as a selected skill is.
        match whole_skill_text(&self.reader, name, self.skill_file_bytes) {
            Ok(text) => ToolResult {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: skill_instructions(name, directory, text.trim_end()),
                is_error: false,
                skill: Some(name.to_string()),
            },
            Err(error) => error_result(call, error.code(), &error.to_string()),
        }
    }
}

fn error_result(call: &ToolCall, code: ErrorCode, message: &str) -> ToolResult {
    ToolResult {
        tool_call_id: call.id.clone(),
        name: call.name.clone(),
        content: error_json(code, message).to_string(),
        is_error: true,
        skill: None,
    }
}
