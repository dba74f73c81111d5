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
        let (key, parameters) = parameters
            .iter()
            .find_map(|key| Some((*key, fields.get(*key).filter(|value| !value.is_null())?)))
            .map_or(("", Value::Null), |(key, value)| (key, value.clone()));
        // A declaration's `parameters` is Gemini's OpenAPI-style `Schema`: made JSON Schema.
        let parameters = match (Shape::of(tool), key) {
            (Shape::Declaration, "parameters") => json_schema_of(&parameters),
            _ => parameters,
        };
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

/// A Gemini `Schema` (the OpenAPI subset a declaration's `parameters` takes) as the JSON Schema
/// the other providers take: upper-case type names (`OBJECT`) lower-cased, `nullable: true` made
/// a `"null"` type (or a `null` choice of an `anyOf`), `propertyOrdering` and the `enum` format
/// dropped, nested schemas alike. A schema that is JSON Schema already passes unchanged.
pub(super) fn json_schema_of(schema: &Value) -> Value {
    let Some(fields) = schema.as_object() else {
        return schema.clone();
    };
    let mut converted = Map::new();
    for (key, value) in fields {
        let value = match key.as_str() {
            "type" => match value.as_str() {
                Some(name) => Value::from(name.to_ascii_lowercase()),
                None => value.clone(),
            },
            "properties" | "$defs" | "definitions" => match value.as_object() {
                Some(schemas) => (schemas.iter())
                    .map(|(name, schema)| (name.clone(), json_schema_of(schema)))
                    .collect::<Map<_, _>>()
                    .into(),
                None => value.clone(),
            },
            "items" | "additionalProperties" | "not" => json_schema_of(value),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match value.as_array() {
                Some(schemas) => schemas.iter().map(json_schema_of).collect(),
                None => value.clone(),
            },
            "nullable" | "propertyOrdering" => continue,
            "format" if value == "enum" => continue,
            _ => value.clone(),
        };
        converted.insert(key.clone(), value);
    }
    if fields.get("nullable") == Some(&Value::Bool(true)) {
        allow_null(&mut converted);
    }
    Value::Object(converted)
}

/// Makes a converted schema accept `null` too.
fn allow_null(schema: &mut Map<String, Value>) {
    match schema.get_mut("type") {
        Some(Value::String(name)) => {
            let name = std::mem::take(name);
            schema.insert("type".into(), json!([name, "null"]));
            // An enum lists every value allowed: `null` too.
            if let Some(Value::Array(values)) = schema.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(names)) if !names.iter().any(|name| name == "null") => {
            names.push("null".into());
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(choices)) = schema.get_mut("anyOf") {
                choices.push(json!({"type": "null"}));
            }
        }
    }
}

/// The providers whose built-in tools (the ones that are no function tool) a host may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    /// OpenAI's built-in tools are the Responses API's; Chat Completions offers none.
    OpenAiResponses,
    Anthropic,
    Gemini,
}

impl Family {
    /// The built-in tools `provider` offers; `None` for OpenAI Chat, which offers none.
    pub(super) fn of(provider: Provider) -> Option<Family> {
        match provider {
            Provider::OpenAiChat => None,
            Provider::OpenAiResponses => Some(Family::OpenAiResponses),
            Provider::Anthropic => Some(Family::Anthropic),
            Provider::Gemini => Some(Family::Gemini),
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Family::OpenAiResponses => "OpenAI Responses",
            Family::Anthropic => "Anthropic",
            Family::Gemini => "Gemini",
        }
    }
}

/// OpenAI's built-in tool types (Responses; Chat Completions offers none of them as a tool).
const OPENAI_BUILT_INS: [&str; 10] = [
    "web_search",
    "web_search_preview",
    "file_search",
    "code_interpreter",
    "computer_use_preview",
    "image_generation",
    "mcp",
    "local_shell",
    "shell",
    "apply_patch",
];

/// Anthropic's built-in tool types that carry no date (the others do: `web_search_20250305`).
const ANTHROPIC_UNDATED: [&str; 1] = ["mcp_toolset"];

/// Whose built-in tool `tool` is, and what names it, when that can be told: Gemini's are keys
/// with no `type` (`{"googleSearch": {}}`); Anthropic's have a dated `type`
/// (`web_search_20250305`) or are `mcp_toolset`; OpenAI's are the known Responses types
/// (`web_search`, `file_search`, …). A `type` none of these knows is left to the API.
pub(super) fn built_in_owner(tool: &Value) -> Option<(Family, String)> {
    let object = tool.as_object()?;
    let Some(kind) = object.get("type").and_then(Value::as_str) else {
        let key = object.keys().next()?;
        return Some((Family::Gemini, key.clone()));
    };
    let dated = kind
        .rsplit_once('_')
        .is_some_and(|(_, date)| date.len() == 8 && date.bytes().all(|byte| byte.is_ascii_digit()));
    let family = if dated || ANTHROPIC_UNDATED.contains(&kind) {
        Family::Anthropic
    } else if OPENAI_BUILT_INS.contains(&kind) {
        Family::OpenAiResponses
    } else {
        return None;
    };
    Some((family, kind.to_owned()))
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
