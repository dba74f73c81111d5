//! Executing the reader's tool calls: restricted disk reads, virtual `skill://` reads, the host
//! policy, and the optional `activate_skill` fallback.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::boundary::{BoundaryError, ReadBoundary};
use crate::catalog::escape_xml;
use crate::read::{self, DEFAULT_LOOK_AHEAD_BYTES, KnownSkill, ReadError, ReadFile, ReadRequest};
use crate::sources::{ProvidedSkill, SCHEME};

use super::messages::{ToolCall, ToolResult};
use super::scope::ScopedSkill;

/// The reader's canonical name; policies always see this name, even when the tool is aliased.
pub const READ_FILE: &str = "read_file";
/// The reader's name when the host already owns `read_file`.
pub const READ_SKILL_FILE: &str = "read_skill_file";
/// The optional fallback tool's name.
pub const ACTIVATE_SKILL: &str = "activate_skill";

/// The most of a SKILL.md that `activate_skill` returns.
const ACTIVATE_MAX_BYTES: u64 = 1024 * 1024;

/// A read the host's policy is asked about.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PolicyCall<'a> {
    /// The canonical tool name: `read_file` for every reader call, `activate_skill` for the
    /// fallback tool.
    pub tool: &'a str,
    /// The name the model used (`read_skill_file` when aliased).
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

/// A host rule (permission check, guardrail, interceptor) consulted before every skill read.
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
pub(crate) struct SkillReader {
    name: String,
    boundary: ReadBoundary,
    known: Vec<KnownSkill>,
    provided: BTreeMap<String, ProvidedSkill>,
    activate: Option<BTreeMap<String, ScopedSkill>>,
    policy: Option<Arc<dyn ReadPolicy>>,
}

impl fmt::Debug for SkillReader {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SkillReader")
            .field("name", &self.name)
            .field("known", &self.known)
            .finish_non_exhaustive()
    }
}

impl SkillReader {
    /// A reader restricted to the directories of `exposed` (disk skills) and their memory
    /// contents (provided skills).
    pub(crate) fn new(
        name: String,
        exposed: &[&ScopedSkill],
        activate: bool,
        policy: Option<Arc<dyn ReadPolicy>>,
    ) -> Self {
        let directories: Vec<PathBuf> = exposed
            .iter()
            .filter_map(|skill| match skill {
                ScopedSkill::Disk(skill) => Some(skill.directory.clone()),
                ScopedSkill::Provided(_) => None,
            })
            .collect();
        let provided = exposed
            .iter()
            .filter_map(|skill| match skill {
                ScopedSkill::Provided(skill) => Some((skill.name().to_owned(), skill.clone())),
                ScopedSkill::Disk(_) => None,
            })
            .collect();
        let activate = activate.then(|| {
            exposed
                .iter()
                .filter(|skill| skill.is_model_visible())
                .map(|skill| (skill.name().to_owned(), (*skill).clone()))
                .collect()
        });
        SkillReader {
            name,
            boundary: ReadBoundary::skills(&directories),
            known: exposed.iter().map(|skill| skill.known()).collect(),
            provided,
            activate,
            policy,
        }
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn handles(&self, tool: &str) -> bool {
        tool == self.name || (self.activate.is_some() && tool == ACTIVATE_SKILL)
    }

    /// The reader's schema, and the fallback tool's when it is on.
    pub(crate) fn schemas(&self) -> Vec<Value> {
        let mut schemas = vec![self.read_file().schema()];
        if let Some(skills) = &self.activate {
            schemas.push(activate_schema(skills.keys()));
        }
        schemas
    }

    fn read_file(&self) -> ReadFile<'_> {
        let mut tool = ReadFile::new(&self.boundary);
        tool.name(&self.name).skills(self.known.iter().cloned());
        tool
    }

    pub(crate) fn execute(&self, call: &ToolCall) -> ToolResult {
        let canonical = if call.name == self.name {
            READ_FILE
        } else if self.handles(&call.name) {
            ACTIVATE_SKILL
        } else {
            let message = format!(
                "unsupported tool `{}`: this executor only runs `{}`; route other tools to the \
                 host",
                call.name, self.name
            );
            return error_result(call, "unsupported_tool", &message);
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
            return error_result(call, "denied", &reason);
        }
        if canonical == ACTIVATE_SKILL {
            return self.activate(call);
        }
        match self.read(&call.arguments) {
            Ok(result) => ToolResult {
                tool_call_id: call.id.clone(),
                content: result.to_json().to_string(),
                is_error: false,
                skill: result.skill,
            },
            Err(error) => ToolResult {
                tool_call_id: call.id.clone(),
                content: error.to_json().to_string(),
                is_error: true,
                skill: None,
            },
        }
    }

    fn read(&self, arguments: &Value) -> Result<read::ReadResult, ReadError> {
        let request = read::arguments::parse(arguments)?;
        request.validate()?;
        match request
            .path
            .to_str()
            .and_then(|path| path.strip_prefix(SCHEME))
        {
            Some(rest) => self.read_virtual(&request, rest),
            None => self.read_file().read(&request),
        }
    }

    /// Serves `skill://<name>/<file>` from memory; the disk is never touched.
    fn read_virtual(
        &self,
        request: &ReadRequest,
        rest: &str,
    ) -> Result<read::ReadResult, ReadError> {
        let not_found = || {
            ReadError::Boundary(BoundaryError::NotFound {
                path: request.path.clone(),
            })
        };
        let (name, file) = rest.split_once('/').ok_or_else(not_found)?;
        let skill = self.provided.get(name).ok_or_else(not_found)?;
        let bytes = skill.file(file).ok_or_else(not_found)?;
        let marker = (file == "SKILL.md")
            .then(|| KnownSkill::new(skill.name(), skill.uri(), skill.directory_uri()));
        read::segment(
            bytes,
            Path::new(&request.path),
            request,
            DEFAULT_LOOK_AHEAD_BYTES,
            marker.as_ref(),
        )
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
            .and_then(|skills| skills.get(requested.trim()));
        let Some(skill) = skill else {
            let message = format!(
                "no skill named `{requested}`; pass one of the names listed in the tool's `name` enum"
            );
            return error_result(call, "not_found", &message);
        };
        match skill.text(ACTIVATE_MAX_BYTES) {
            Ok(text) => ToolResult {
                tool_call_id: call.id.clone(),
                content: format!(
                    "<skill_instructions name=\"{}\" dir=\"{}\">\n{}\n</skill_instructions>",
                    escape_xml(skill.name()),
                    escape_xml(&skill.directory()),
                    text.trim_end()
                ),
                is_error: false,
                skill: Some(skill.name().to_owned()),
            },
            Err(error) => error_result(call, "io", &error.to_string()),
        }
    }
}

fn error_result(call: &ToolCall, code: &str, message: &str) -> ToolResult {
    ToolResult {
        tool_call_id: call.id.clone(),
        content: json!({"error": code, "message": message}).to_string(),
        is_error: true,
        skill: None,
    }
}

fn activate_schema<'a>(names: impl Iterator<Item = &'a String>) -> Value {
    let names: Vec<&String> = names.collect();
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
