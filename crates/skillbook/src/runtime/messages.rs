//! The messages a run exchanges with the host's model loop, in OpenAI chat shapes.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A tool call from the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, echoed in the result.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments: a JSON object, or the JSON text of one (as OpenAI sends them).
    pub arguments: Value,
}

impl ToolCall {
    /// A call from its parts.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }

    /// Reads an OpenAI `tool_calls[]` element: `{"id", "function": {"name", "arguments"}}`.
    pub fn from_openai(call: &Value) -> Option<Self> {
        let function = call.get("function")?;
        Some(ToolCall {
            id: call.get("id")?.as_str()?.to_owned(),
            name: function.get("name")?.as_str()?.to_owned(),
            arguments: function.get("arguments").cloned().unwrap_or(Value::Null),
        })
    }
}

/// The answer to one tool call, to append to the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ToolResult {
    /// The id of the call this answers.
    pub tool_call_id: String,
    /// The content the model reads: the read result or error as JSON text, or a skill's text.
    pub content: String,
    /// Whether the call failed (refused, denied, unsupported, not found, …).
    pub is_error: bool,
    /// The skill whose instructions this holds, so compaction can keep it.
    pub skill: Option<String>,
}

impl ToolResult {
    /// The OpenAI chat message: `{"role": "tool", "tool_call_id", "content"}`.
    pub fn to_message(&self) -> Value {
        json!({"role": "tool", "tool_call_id": self.tool_call_id, "content": self.content})
    }
}

/// A message the run places before the history (a host-selected skill's content).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ContextItem {
    /// Always `user`: the system prompt stays byte-identical so it can be cached.
    pub role: &'static str,
    /// The text.
    pub content: String,
    /// The item holds skill instructions: compaction should keep it.
    pub skill_content: bool,
    /// The skills it holds.
    pub skills: Vec<String>,
}

impl ContextItem {
    /// The OpenAI chat message: `{"role": "user", "content"}`.
    pub fn to_message(&self) -> Value {
        json!({"role": self.role, "content": self.content})
    }
}
