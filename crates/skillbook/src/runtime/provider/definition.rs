//! The neutral tool definition, and reading a host's tools in any provider's shape.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Provider;

/// The longest tool name every provider accepts.
const MAX_TOOL_NAME: usize = 64;

/// A tool as every provider describes it: a name, what it does and a JSON Schema of its
/// arguments. [`ToolDefinition::render`] gives one provider's shape, [`Provider::tools`] a
/// request's whole `tools` list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The tool's name; see [`portable_tool_name`].
    pub name: String,
    /// What the tool does and when to use it. May be empty.
    #[serde(default)]
    pub description: String,
    /// A JSON Schema of the arguments: an object schema.
    pub parameters: Value,
    /// Whether the provider should hold the model to the schema exactly (OpenAI's and
    /// Anthropic's `strict`). Only a schema written for it may be strict: every property
    /// required, `additionalProperties: false`. Default `false`.
    #[serde(default)]
    pub strict: bool,
}

impl ToolDefinition {
    /// A definition that is not strict. An empty `parameters` (`null`) becomes the schema of
    /// no arguments.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters: if parameters.is_null() {
                json!({"type": "object", "properties": {}})
            } else {
                parameters
            },
            strict: false,
        }
    }

    /// Reads a function tool in any provider's shape: OpenAI Chat (`{"type": "function",
    /// "function": {…}}`), OpenAI Responses (`{"type": "function", "name", …}`, strict unless
    /// `strict: false`), Anthropic (`{"name", "input_schema", …}`), or a bare declaration
    /// (`{"name", "description", "parameters" | "parametersJsonSchema"}`: Gemini's, or OpenAI's
    /// older `functions`). `None` for anything else — a provider's built-in tool, a Gemini
    /// `Tool` holding several declarations (see [`Provider::tools`]), a value without a name.
    pub fn from_tool(tool: &Value) -> Option<Self> {
        let object = tool.as_object()?;
        let (fields, parameters, strict) = match Shape::of(tool) {
            Shape::Chat => (
                object.get("function")?.as_object()?,
                &["parameters"][..],
                false,
            ),
            Shape::Responses => (object, &["parameters"][..], true),
            Shape::Anthropic => (object, &["input_schema"][..], false),
            Shape::Declaration => (
                object,
                &[
                    "parametersJsonSchema",
                    "parameters_json_schema",
                    "parameters",
                ][..],
                false,
            ),
            Shape::GeminiTool | Shape::Other => return None,
        };
        let text = |key: &str| fields.get(key).and_then(Value::as_str);
        let parameters = parameters
            .iter()
            .find_map(|key| fields.get(*key).filter(|value| !value.is_null()))
            .cloned()
            .unwrap_or(Value::Null);
        Some(ToolDefinition {
            strict: fields
                .get("strict")
                .and_then(Value::as_bool)
                .unwrap_or(strict),
            ..ToolDefinition::new(text("name")?, text("description").unwrap_or(""), parameters)
        })
    }

    /// This tool in `provider`'s shape:
    ///
    /// | provider | shape |
    /// |---|---|
    /// | OpenAI Chat | `{"type": "function", "function": {"name", "description", "parameters"}}`, `"strict": true` when strict |
    /// | OpenAI Responses | `{"type": "function", "name", "description", "parameters", "strict"}` — `strict` always written, since the API takes a missing one as `true` |
    /// | Anthropic | `{"name", "description", "input_schema"}`, `"strict": true` when strict |
    /// | Gemini | a function declaration, `{"name", "description", "parametersJsonSchema"}`, to place in a `Tool`'s `functionDeclarations` (as [`Provider::tools`] does) |
    ///
    /// An empty description is left out.
    pub fn render(&self, provider: Provider) -> Value {
        let mut fields = Map::new();
        if provider == Provider::OpenAiResponses {
            fields.insert("type".into(), "function".into());
        }
        fields.insert("name".into(), self.name.clone().into());
        if !self.description.is_empty() {
            fields.insert("description".into(), self.description.clone().into());
        }
        let parameters = match provider {
            Provider::Anthropic => "input_schema",
            Provider::Gemini => "parametersJsonSchema",
            Provider::OpenAiChat | Provider::OpenAiResponses => "parameters",
        };
        fields.insert(parameters.into(), self.parameters.clone());
        match provider {
            Provider::OpenAiResponses => {
                fields.insert("strict".into(), self.strict.into());
            }
            Provider::OpenAiChat | Provider::Anthropic if self.strict => {
                fields.insert("strict".into(), true.into());
            }
            _ => {}
        }
        if provider == Provider::OpenAiChat {
            return json!({"type": "function", "function": fields});
        }
        Value::Object(fields)
    }
}

/// Whether every provider accepts `name` as a tool name: `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` (a
/// letter or `_` first, at most 64 characters).
pub fn portable_tool_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && name.len() <= MAX_TOOL_NAME
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The shape a host's tool is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `{"type": "function", "function": {"name", …}}`.
    Chat,
    /// `{"type": "function", "name", …}`.
    Responses,
    /// `{"name", "input_schema", …}` (`type` absent or `custom`).
    Anthropic,
    /// `{"name", …}` with no `type`: a Gemini function declaration (or OpenAI's older
    /// `functions` entry).
    Declaration,
    /// A Gemini `Tool`: `{"functionDeclarations": […], …}`.
    GeminiTool,
    /// Anything else: a provider's built-in tool, say.
    Other,
}

impl Shape {
    pub(super) fn of(tool: &Value) -> Shape {
        let Some(object) = tool.as_object() else {
            return Shape::Other;
        };
        if gemini_declarations(tool).is_some() {
            return Shape::GeminiTool;
        }
        if object.get("function").is_some_and(Value::is_object) {
            return Shape::Chat;
        }
        if !object.get("name").is_some_and(Value::is_string) {
            return Shape::Other;
        }
        match object.get("type").and_then(Value::as_str) {
            Some("function") => Shape::Responses,
            None | Some("custom") if object.contains_key("input_schema") => Shape::Anthropic,
            None if !object.contains_key("type") => Shape::Declaration,
            _ => Shape::Other,
        }
    }

    /// The shape `provider` takes its function tools in.
    pub(super) fn native(self, provider: Provider) -> bool {
        matches!(
            (provider, self),
            (Provider::OpenAiChat, Shape::Chat)
                | (Provider::OpenAiResponses, Shape::Responses)
                | (Provider::Anthropic, Shape::Anthropic)
                | (Provider::Gemini, Shape::GeminiTool | Shape::Declaration)
        )
    }
}

/// The function declarations of a Gemini `Tool` (`functionDeclarations`, or the
/// `function_declarations` the API accepts too), with the key they were under.
pub(super) fn gemini_declarations(tool: &Value) -> Option<(&'static str, &Vec<Value>)> {
    ["functionDeclarations", "function_declarations"]
        .into_iter()
        .find_map(|key| Some((key, tool.get(key)?.as_array()?)))
}

/// The names a host's tool defines, in any provider's shape: one, or a Gemini `Tool`'s
/// declarations.
pub(crate) fn tool_names(tool: &Value) -> Vec<&str> {
    if let Some((_, declarations)) = gemini_declarations(tool) {
        return declarations
            .iter()
            .filter_map(|declaration| declaration.get("name")?.as_str())
            .collect();
    }
    tool.pointer("/function/name")
        .or_else(|| tool.get("name"))
        .and_then(Value::as_str)
        .into_iter()
        .collect()
}
