//! The messages a run exchanges with the host's model loop. Each serializes both ways, so a run's
//! calls, results and items can be stored and logged; the `to_message` methods give the OpenAI
//! Chat Completions shapes, and [`super::Provider`] every provider's.

use serde::{Deserialize, Deserializer, Serialize};
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
    ///
    /// To read every call of a response, in any provider's shape, use
    /// [`super::Provider::parse_tool_calls`].
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
///
/// The run's own calls get theirs from [`super::PreparedRun::execute`]; the host answers its own
/// tools with [`ToolResult::new`] or [`ToolResult::error`], so that all the results of one model
/// turn go back together ([`super::Provider::result_messages`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolResult {
    /// The id of the call this answers.
    pub tool_call_id: String,
    /// The name of the tool that was called (Gemini's results carry it). Empty when a stored
    /// result did not record it.
    #[serde(default)]
    pub name: String,
    /// The content the model reads: the read result or error as JSON text, or a skill's text.
    pub content: String,
    /// Whether the call failed (refused, denied, unsupported, not found, …).
    pub is_error: bool,
    /// The skill whose instructions this holds, so compaction can keep it.
    #[serde(default)]
    pub skill: Option<String>,
}

impl ToolResult {
    /// A successful answer to `call` (a host tool's, say) with this content.
    pub fn new(call: &ToolCall, content: impl Into<String>) -> Self {
        ToolResult {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: content.into(),
            is_error: false,
            skill: None,
        }
    }

    /// A failed answer to `call`: `content` says what went wrong.
    pub fn error(call: &ToolCall, content: impl Into<String>) -> Self {
        ToolResult {
            is_error: true,
            ..ToolResult::new(call, content)
        }
    }

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

/// A context item as stored: its role is text, which must be `user`.
#[derive(Deserialize)]
struct StoredItem {
    role: String,
    content: String,
    skill_content: bool,
    skills: Vec<String>,
}

impl<'de> Deserialize<'de> for ContextItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let item = StoredItem::deserialize(deserializer)?;
        if item.role != "user" {
            return Err(serde::de::Error::invalid_value(
                serde::de::Unexpected::Str(&item.role),
                &"`user`: a context item is always a user message",
            ));
        }
        Ok(ContextItem {
            role: "user",
            content: item.content,
            skill_content: item.skill_content,
            skills: item.skills,
        })
    }
}
