//! Executing the reader's tool calls through the run's [`SkillReader`], the host policy, and the
//! optional `activate_skill` fallback.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::error::{ErrorCode, error_json};
use crate::format::SkillName;
use crate::read::SkillReader;
use crate::read::skill_instructions;
use crate::search::SearchIndex;

use super::messages::{ToolCall, ToolResult};
use super::provider::ToolDefinition;
use super::scope::whole_skill_text;
use super::search_tool::{search_call, search_schema};
use crate::catalog::{READ_FILE, SEARCH_SKILLS};

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

/// Executes the reader (and the fallback tool) for one run.
pub(crate) struct Executor {
    name: String,
    reader: SkillReader,
    /// The skills `activate_skill` offers, by name, with their directory as the marker shows it.
    activate: Option<Arc<BTreeMap<SkillName, String>>>,
    /// The search tool's name and index, when the run offers it.
    search: Option<(String, Arc<SearchIndex>)>,
    policy: Option<Arc<dyn ReadPolicy>>,
}

impl fmt::Debug for Executor {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Executor")
            .field("name", &self.name)
            .field("reader", &self.reader)
            .field("search", &self.search.as_ref().map(|(name, _)| name))
            .finish_non_exhaustive()
    }
}

impl Executor {
    /// An executor reading through `reader` (the exposed skills only); `activate` lists the
    /// model-visible skills the fallback tool offers, with their directories; `search` is the
    /// search tool's name and index when the run offers it.
    pub(crate) fn new(
        name: String,
        reader: SkillReader,
        activate: Option<Arc<BTreeMap<SkillName, String>>>,
        search: Option<(String, Arc<SearchIndex>)>,
        policy: Option<Arc<dyn ReadPolicy>>,
    ) -> Self {
        // The reader's schema offers it under the name this run gives it.
        let options = reader.options().clone().with_tool_name(name.as_str());
        Executor {
            name,
            reader: reader.with_options(options),
            activate,
            search,
            policy,
        }
    }

    /// The search tool's name, when the run offers it.
    pub(crate) fn search_name(&self) -> Option<&str> {
        self.search.as_ref().map(|(name, _)| name.as_str())
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn handles(&self, tool: &str) -> bool {
        tool == self.name
            || (self.activate.is_some() && tool == ACTIVATE_SKILL)
            || self.search_name() == Some(tool)
    }

    /// The reader's schema, and the fallback tool's when it is on.
    pub(crate) fn schemas(&self) -> Vec<Value> {
        let mut schemas = vec![self.reader.schema()];
        if let Some((name, _)) = &self.search {
            schemas.push(search_schema(name));
        }
        if let Some(skills) = &self.activate {
            schemas.push(activate_schema(skills.keys()));
        }
        schemas
    }

    /// The same tools as [`Executor::schemas`], in no provider's shape.
    pub(crate) fn definitions(&self) -> Vec<ToolDefinition> {
        self.schemas()
            .iter()
            .filter_map(ToolDefinition::from_tool)
            .collect()
    }

    pub(crate) fn execute(&self, call: &ToolCall) -> ToolResult {
        let canonical = if call.name == self.name {
            READ_FILE
        } else if self.search_name() == Some(call.name.as_str()) {
            SEARCH_SKILLS
        } else if self.handles(&call.name) {
            ACTIVATE_SKILL
        } else {
            let message = format!(
                "unsupported tool `{}`: this executor only runs `{}`; route other tools to the \
                 host",
                call.name, self.name
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
        if let (SEARCH_SKILLS, Some((_, index))) = (canonical, &self.search) {
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
        match whole_skill_text(&self.reader, name) {
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

fn activate_schema<'a>(names: impl Iterator<Item = &'a SkillName>) -> Value {
    let names: Vec<&str> = names.map(SkillName::as_str).collect();
    json!({
        "type": "function",
        "function": {
            "name": ACTIVATE_SKILL,
            "description": "Load a skill's instructions by name. Use it when a task matches a \
                            skill in the catalog; then follow the instructions it returns.",
            "parameters": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": names, "description": "The skill to load."}
                },
                "required": ["name"],
                "additionalProperties": false
            }
        }
    })
}
