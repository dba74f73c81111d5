//! The two APIs' request bodies and model turns.

use serde_json::{Value, json};
use skillbook::runtime::{PreparedRun, Provider, ToolCall, ToolResult};

use crate::{AgentError, Endpoint, ModelApi};

/// One model turn: its message for the history, its tool calls, its text.
pub(crate) struct Turn {
    pub(crate) message: Value,
    pub(crate) calls: Vec<ToolCall>,
    pub(crate) text: String,
}

/// The runtime's name for the API's shapes.
fn provider(api: ModelApi) -> Provider {
    match api {
        ModelApi::OpenAiChat => Provider::OpenAiChat,
        ModelApi::Anthropic => Provider::Anthropic,
    }
}

/// The user's `task` as the API's message.
pub(crate) fn user_message(api: ModelApi, task: &str) -> Value {
    match api {
        ModelApi::OpenAiChat => json!({"role": "user", "content": task}),
        ModelApi::Anthropic => json!({"role": "user", "content": [{"type": "text", "text": task}]}),
    }
}

/// The request body: the run's system prompt, items and tools, then the conversation.
pub(crate) fn request(
    endpoint: &Endpoint,
    run: &PreparedRun,
    messages: &[Value],
) -> Result<Value, AgentError> {
    let provider = provider(endpoint.api);
    let mut all = Vec::with_capacity(messages.len() + run.items.len() + 1);
    if endpoint.api == ModelApi::OpenAiChat && !run.system_prompt.is_empty() {
        all.push(json!({"role": "system", "content": run.system_prompt}));
    }
    all.extend(run.items_for(provider));
    all.extend_from_slice(messages);
    let mut body = json!({"model": endpoint.model, "messages": all});
    let tools = run.tools_for(provider)?;
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    if endpoint.api == ModelApi::Anthropic {
        body["max_tokens"] = json!(endpoint.max_tokens);
        if !run.system_prompt.is_empty() {
            body["system"] = json!(run.system_prompt);
        }
    }
    Ok(body)
}

/// An OpenAI assistant message as it goes back in the history: its content and tool calls
/// alone. What else a server adds (`reasoning`, `refusal`, `annotations`, an empty
/// `tool_calls`) is left out, since compatible servers refuse fields they do not know.
fn assistant_message(message: &Value) -> Value {
    let mut kept = json!({"role": "assistant", "content": message.get("content").cloned().unwrap_or(Value::Null)});
    if let Some(calls) = message
        .get("tool_calls")
        .filter(|calls| calls.as_array().is_some_and(|calls| !calls.is_empty()))
    {
        kept["tool_calls"] = calls.clone();
    }
    kept
}

/// Whether `message` holds nothing: the APIs refuse an empty assistant turn in the history.
pub(crate) fn is_empty(message: &Value) -> bool {
    match &message["content"] {
        Value::Array(blocks) => blocks.is_empty() && message.get("tool_calls").is_none(),
        Value::String(text) => text.is_empty() && message.get("tool_calls").is_none(),
        Value::Null => message.get("tool_calls").is_none(),
        _ => false,
    }
}

/// The results of one turn's calls as the API's messages.
pub(crate) fn results(api: ModelApi, results: &[ToolResult]) -> Vec<Value> {
    provider(api).result_messages(results)
}

/// The model's turn in `response`.
pub(crate) fn turn(endpoint: &Endpoint, url: &str, response: &Value) -> Result<Turn, AgentError> {
    let problem = |problem: &str| AgentError::Response {
        url: url.to_owned(),
        api: endpoint.api,
        problem: problem.to_owned(),
    };
    let message = match endpoint.api {
        ModelApi::OpenAiChat => {
            let message = response
                .pointer("/choices/0/message")
                .ok_or_else(|| problem("it has no `choices[0].message`"))?;
            assistant_message(message)
        }
        ModelApi::Anthropic => {
            let content = response
                .get("content")
                .filter(|content| content.is_array())
                .ok_or_else(|| problem("it has no `content` list"))?;
            json!({"role": "assistant", "content": content})
        }
    };
    let calls = provider(endpoint.api)
        .parse_tool_calls(response)
        .map_err(|error| problem(&error.to_string()))?;
    let text = match endpoint.api {
        ModelApi::OpenAiChat => message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        ModelApi::Anthropic => (message["content"].as_array().into_iter().flatten())
            .filter(|block| block["type"] == "text")
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    Ok(Turn {
        message,
        calls,
        text,
    })
}
