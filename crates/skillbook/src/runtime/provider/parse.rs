//! Reading the tool calls out of each provider's response.

use serde_json::{Map, Value};

use super::{Provider, ResponseError};
use crate::runtime::messages::ToolCall;

/// The id given to the `n`-th of a Gemini response's calls when it carries none; a result
/// whose id has this form is sent back without one, so Gemini pairs it by order and name.
pub(super) const SYNTHESIZED_ID: &str = "gemini-call-";

/// The calls of one model turn, in order.
pub(super) fn tool_calls(
    provider: Provider,
    response: &Value,
) -> Result<Vec<ToolCall>, ResponseError> {
    match provider {
        Provider::OpenAiChat => chat(response),
        Provider::OpenAiResponses => responses(response),
        Provider::Anthropic => anthropic(response),
        Provider::Gemini => gemini(response),
    }
}

/// The elements of `value[key]`: none when it is missing or `null`, an error when it is not an
/// array.
fn list<'a>(provider: Provider, value: &'a Value, key: &str) -> Result<&'a [Value], ResponseError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(elements)) => Ok(elements),
        Some(_) => Err(ResponseError::Unrecognized {
            provider,
            expected: provider.expected(),
        }),
    }
}

/// One call's text field, or an error naming what is missing.
fn text<'a>(
    provider: Provider,
    position: usize,
    fields: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, ResponseError> {
    fields
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ResponseError::MalformedCall {
            provider,
            position,
            problem: format!("it has no `{key}` string"),
        })
}

/// The object a call is, or an error.
fn object(
    provider: Provider,
    position: usize,
    value: &Value,
) -> Result<&Map<String, Value>, ResponseError> {
    value
        .as_object()
        .ok_or_else(|| ResponseError::MalformedCall {
            provider,
            position,
            problem: "it is not a JSON object".to_owned(),
        })
}

fn unrecognized(provider: Provider) -> ResponseError {
    ResponseError::Unrecognized {
        provider,
        expected: provider.expected(),
    }
}

/// A chat completion (the first choice), its assistant message, or its `tool_calls` array.
fn chat(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let provider = Provider::OpenAiChat;
    let calls = if let Some(array) = response.as_array() {
        array.as_slice()
    } else if response.get("choices").is_some() {
        let Some(choice) = list(provider, response, "choices")?.first() else {
            return Ok(Vec::new());
        };
        let message = choice
            .get("message")
            .ok_or_else(|| unrecognized(provider))?;
        list(provider, message, "tool_calls")?
    } else if response.get("tool_calls").is_some() || response.get("role").is_some() {
        list(provider, response, "tool_calls")?
    } else {
        return Err(unrecognized(provider));
    };
    let mut parsed = Vec::with_capacity(calls.len());
    for (position, call) in calls.iter().enumerate() {
        let fields = object(provider, position, call)?;
        // Custom (free-text) tools are the host's and answered the same way; skillbook's are
        // all functions.
        if fields.get("type").is_some_and(|kind| kind != "function") {
            continue;
        }
        let function = fields
            .get("function")
            .and_then(Value::as_object)
            .ok_or_else(|| ResponseError::MalformedCall {
                provider,
                position,
                problem: "it has no `function` object".to_owned(),
            })?;
        parsed.push(ToolCall::new(
            text(provider, position, fields, "id")?,
            text(provider, position, function, "name")?,
            arguments(function.get("arguments")),
        ));
    }
    Ok(parsed)
}

/// A response (its `output`), its output items, or one item: the `function_call` items.
fn responses(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let provider = Provider::OpenAiResponses;
    let items = if let Some(array) = response.as_array() {
        array.as_slice()
    } else if response.get("output").is_some() {
        list(provider, response, "output")?
    } else if response.get("type").is_some() {
        std::slice::from_ref(response)
    } else {
        return Err(unrecognized(provider));
    };
    let mut parsed = Vec::new();
    for (position, item) in items.iter().enumerate() {
        let fields = object(provider, position, item)?;
        if fields.get("type").and_then(Value::as_str) != Some("function_call") {
            continue;
        }
        parsed.push(ToolCall::new(
            text(provider, position, fields, "call_id")?,
            text(provider, position, fields, "name")?,
            arguments(fields.get("arguments")),
        ));
    }
    Ok(parsed)
}

/// A message (its `content`), or its content blocks: the `tool_use` blocks.
fn anthropic(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let provider = Provider::Anthropic;
    let blocks = if let Some(array) = response.as_array() {
        array.as_slice()
    } else if let Some(content) = response.get("content") {
        match content {
            // A message given as plain text holds no tool use.
            Value::String(_) => return Ok(Vec::new()),
            _ => list(provider, response, "content")?,
        }
    } else {
        return Err(unrecognized(provider));
    };
    let mut parsed = Vec::new();
    for (position, block) in blocks.iter().enumerate() {
        let fields = object(provider, position, block)?;
        if fields.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        parsed.push(ToolCall::new(
            text(provider, position, fields, "id")?,
            text(provider, position, fields, "name")?,
            arguments(fields.get("input")),
        ));
    }
    Ok(parsed)
}

/// A `GenerateContentResponse` (its first candidate), a `Content`, or its parts: the
/// `functionCall` parts. A call without an `id` gets `gemini-call-<n>`, `n` counting the calls
/// from 0.
fn gemini(response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let provider = Provider::Gemini;
    let parts = if let Some(array) = response.as_array() {
        array.as_slice()
    } else if response.get("candidates").is_some() {
        let Some(candidate) = list(provider, response, "candidates")?.first() else {
            return Ok(Vec::new());
        };
        // A candidate stopped for safety, say, has no content.
        match candidate.get("content") {
            Some(content) => list(provider, content, "parts")?,
            None => return Ok(Vec::new()),
        }
    } else if response.get("parts").is_some() {
        list(provider, response, "parts")?
    } else {
        return Err(unrecognized(provider));
    };
    let mut parsed = Vec::new();
    for (position, part) in parts.iter().enumerate() {
        let fields = object(provider, position, part)?;
        let Some(call) = fields
            .get("functionCall")
            .or_else(|| fields.get("function_call"))
        else {
            continue;
        };
        let call = object(provider, position, call)?;
        let id = match call.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => format!("{SYNTHESIZED_ID}{}", parsed.len()),
        };
        parsed.push(ToolCall::new(
            id,
            text(provider, position, call, "name")?,
            arguments(call.get("args")),
        ));
    }
    Ok(parsed)
}

/// A call's arguments as the provider sent them (an object, or OpenAI's JSON text); none given is
/// the empty object.
fn arguments(value: Option<&Value>) -> Value {
    match value {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(value) => value.clone(),
    }
}
