//! (rev 2) Provider formats (SPEC §14): what a run sends and receives, in the shapes of the
//! OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini APIs. The overview
//! and an example for each is on [`Provider`].

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::RuntimeError;
use super::messages::{ContextItem, ToolCall, ToolResult};

mod definition;
mod parse;

pub(crate) use definition::tool_names;
use definition::{Family, Shape, gemini_declarations};
pub use definition::{ToolDefinition, portable_tool_name};

/// An LLM API whose shapes a run can speak.
///
/// [`PreparedRun::tools`](super::PreparedRun::tools) and
/// [`ToolResult::to_message`](super::ToolResult::to_message) speak OpenAI Chat; each
/// [`Provider`] renders the same run for its API, and reads its responses back:
///
/// | | OpenAI Chat | OpenAI Responses | Anthropic | Gemini |
/// |---|---|---|---|---|
/// | system prompt | a `system` message | `instructions` | `system` | `systemInstruction` |
/// | [`tools_for`](super::PreparedRun::tools_for) | `tools` | `tools` (`strict: false`, but `true` for `activate_skill`) | `tools` | `tools`: one `Tool` with every `functionDeclarations` entry |
/// | [`items_for`](super::PreparedRun::items_for) | `messages`, before the history | `input` | `messages` | `contents` |
/// | [`parse_tool_calls`](Provider::parse_tool_calls) | `choices[0].message.tool_calls` | `output[]` of type `function_call` | `content[]` of type `tool_use` | `candidates[0].content.parts[].functionCall` |
/// | [`result_messages`](Provider::result_messages) | one `tool` message per call | one `function_call_output` item per call | **one** `user` message with every `tool_result` | **one** `user` content with every `functionResponse` |
///
/// The host's own tools may be given in any of these shapes: [`tools_for`](super::PreparedRun::tools_for)
/// converts its function tools (a Gemini declaration's OpenAPI-style `parameters` becomes JSON
/// Schema: `"OBJECT"` → `"object"`, `nullable` → a `"null"` type), passes a provider's built-in
/// tools (web search, code execution, …) through to that provider and refuses them for the
/// others ([`RuntimeError::ForeignTool`](super::RuntimeError::ForeignTool): no other API offers
/// them), and the reader is still aliased when the host owns a `read_file` in any shape. All the
/// results of one model turn go back together: the run answers its own calls and the host its
/// tools through [`PreparedRun::answer`](super::PreparedRun::answer).
///
/// Every tool name skillbook offers is [portable](portable_tool_name):
/// `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`.
///
/// # OpenAI Chat Completions
///
/// ```
/// # use serde_json::json;
/// # use skillbook::runtime::{Provider, Resolver, RunRequest, Scope, SkillRuntime, ToolCall, ToolResult};
/// # use skillbook::sources::ProvidedSkill;
/// # let workspace = tempfile::tempdir()?;
/// # let skill = ProvidedSkill::parse("---\nname: haiku\ndescription: Answer in a haiku.\n---\nWrite 5-7-5.\n")?;
/// # let runtime = SkillRuntime::new(Resolver::fixed(Scope::workspace(workspace.path()).with_provided([skill])));
/// # let host_tool = |call: &ToolCall| ToolResult::new(call, "sunny");
/// let chat = Provider::OpenAiChat;
/// let run = runtime.prepare(RunRequest::new("You are terse."))?;
/// let mut messages = vec![json!({"role": "system", "content": run.system_prompt})];
/// messages.extend(run.items_for(chat));
/// messages.push(json!({"role": "user", "content": "Describe autumn."}));
/// let body = json!({"model": "gpt-5", "messages": messages, "tools": run.tools_for(chat)?});
/// // POST body to /v1/chat/completions; then, with the reply:
/// # let reply = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
/// #     {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"skill://haiku/SKILL.md\"}"}}]}}]});
/// let calls = chat.parse_tool_calls(&reply)?;
/// let results = run.answer(&calls, host_tool); // the run's calls, then yours
/// messages.push(reply["choices"][0]["message"].clone());
/// messages.extend(chat.result_messages(&results)); // and POST again
/// # assert!(results[0].content.contains("Write 5-7-5."));
/// # assert_eq!(messages.last().unwrap()["tool_call_id"], "call_1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # OpenAI Responses
///
/// ```
/// # use serde_json::json;
/// # use skillbook::runtime::{Provider, Resolver, RunRequest, Scope, SkillRuntime, ToolCall, ToolResult};
/// # use skillbook::sources::ProvidedSkill;
/// # let workspace = tempfile::tempdir()?;
/// # let skill = ProvidedSkill::parse("---\nname: haiku\ndescription: Answer in a haiku.\n---\nWrite 5-7-5.\n")?;
/// # let runtime = SkillRuntime::new(Resolver::fixed(Scope::workspace(workspace.path()).with_provided([skill])));
/// # let host_tool = |call: &ToolCall| ToolResult::new(call, "sunny");
/// let responses = Provider::OpenAiResponses;
/// let run = runtime.prepare(RunRequest::new("You are terse."))?;
/// let mut input = run.items_for(responses);
/// input.push(json!({"role": "user", "content": "Describe autumn."}));
/// let body = json!({"model": "gpt-5", "instructions": run.system_prompt, "input": input,
///                   "tools": run.tools_for(responses)?});
/// // POST body to /v1/responses; then, with the reply:
/// # let reply = json!({"output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
/// #     "name": "read_file", "arguments": "{\"path\":\"skill://haiku/SKILL.md\"}"}]});
/// let calls = responses.parse_tool_calls(&reply)?;
/// let results = run.answer(&calls, host_tool);
/// input.extend(reply["output"].as_array().into_iter().flatten().cloned());
/// input.extend(responses.result_messages(&results)); // and POST again
/// # assert_eq!(input.last().unwrap()["type"], "function_call_output");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Anthropic Messages
///
/// ```
/// # use serde_json::json;
/// # use skillbook::runtime::{Provider, Resolver, RunRequest, Scope, SkillRuntime, ToolCall, ToolResult};
/// # use skillbook::sources::ProvidedSkill;
/// # let workspace = tempfile::tempdir()?;
/// # let skill = ProvidedSkill::parse("---\nname: haiku\ndescription: Answer in a haiku.\n---\nWrite 5-7-5.\n")?;
/// # let runtime = SkillRuntime::new(Resolver::fixed(Scope::workspace(workspace.path()).with_provided([skill])));
/// # let host_tool = |call: &ToolCall| ToolResult::new(call, "sunny");
/// let anthropic = Provider::Anthropic;
/// let run = runtime.prepare(RunRequest::new("You are terse."))?;
/// let mut messages = run.items_for(anthropic);
/// messages.push(json!({"role": "user", "content": "Describe autumn."}));
/// let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": run.system_prompt,
///                   "messages": messages, "tools": run.tools_for(anthropic)?});
/// // POST body to /v1/messages; then, with the reply:
/// # let reply = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
/// #     "name": "read_file", "input": {"path": "skill://haiku/SKILL.md"}}]});
/// let calls = anthropic.parse_tool_calls(&reply)?;
/// let results = run.answer(&calls, host_tool);
/// messages.push(json!({"role": "assistant", "content": reply["content"]}));
/// messages.extend(anthropic.result_messages(&results)); // one user message; POST again
/// # assert_eq!(messages.last().unwrap()["content"][0]["tool_use_id"], "toolu_1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Gemini
///
/// A Gemini call may carry no `id`: it is given `gemini-call-<n>` (`n` counting the response's
/// calls from 0), and its result goes back without one, paired by order and name as the API
/// does — so answer the calls in the order they came.
///
/// ```
/// # use serde_json::json;
/// # use skillbook::runtime::{Provider, Resolver, RunRequest, Scope, SkillRuntime, ToolCall, ToolResult};
/// # use skillbook::sources::ProvidedSkill;
/// # let workspace = tempfile::tempdir()?;
/// # let skill = ProvidedSkill::parse("---\nname: haiku\ndescription: Answer in a haiku.\n---\nWrite 5-7-5.\n")?;
/// # let runtime = SkillRuntime::new(Resolver::fixed(Scope::workspace(workspace.path()).with_provided([skill])));
/// # let host_tool = |call: &ToolCall| ToolResult::new(call, "sunny");
/// let gemini = Provider::Gemini;
/// let run = runtime.prepare(RunRequest::new("You are terse."))?;
/// let mut contents = run.items_for(gemini);
/// contents.push(json!({"role": "user", "parts": [{"text": "Describe autumn."}]}));
/// let body = json!({"systemInstruction": {"parts": [{"text": run.system_prompt}]},
///                   "contents": contents, "tools": run.tools_for(gemini)?});
/// // POST body to /v1beta/models/…:generateContent; then, with the reply:
/// # let reply = json!({"candidates": [{"content": {"role": "model", "parts": [
/// #     {"functionCall": {"name": "read_file", "args": {"path": "skill://haiku/SKILL.md"}}}]}}]});
/// let calls = gemini.parse_tool_calls(&reply)?;
/// let results = run.answer(&calls, host_tool);
/// contents.push(reply["candidates"][0]["content"].clone());
/// contents.extend(gemini.result_messages(&results)); // one user content; POST again
/// # assert_eq!(contents.last().unwrap()["parts"][0]["functionResponse"]["name"], "read_file");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`/v1/chat/completions`): the shape of
    /// [`PreparedRun::tools`](super::PreparedRun::tools). Serialized `openai_chat`.
    #[serde(rename = "openai_chat")]
    OpenAiChat,
    /// OpenAI Responses (`/v1/responses`). Serialized `openai_responses`.
    #[serde(rename = "openai_responses")]
    OpenAiResponses,
    /// Anthropic Messages (`/v1/messages`). Serialized `anthropic`.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Gemini (`generateContent`, Gemini API and Vertex AI). Serialized `gemini`.
    #[serde(rename = "gemini")]
    Gemini,
}

impl Provider {
    /// Every provider, in the order above.
    pub const ALL: [Provider; 4] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
    ];

    /// The serialized name: `openai_chat`, `openai_responses`, `anthropic` or `gemini`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai_chat",
            Provider::OpenAiResponses => "openai_responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// A request's `tools` list holding these definitions: one tool each, except for Gemini,
    /// whose definitions all go in one `Tool` (`{"functionDeclarations": […]}`). No definitions,
    /// no tools.
    pub fn tools(self, definitions: &[ToolDefinition]) -> Vec<Value> {
        // Only the run's own definitions: nothing to refuse.
        self.tools_with_host(&[], definitions).unwrap_or_default()
    }

    /// The host's tools, then `definitions`, in this provider's shape.
    ///
    /// A host tool already in this shape is kept as it is; a function tool in another
    /// provider's shape is converted (a Gemini declaration's `parameters`, an OpenAPI-style
    /// `Schema`, made JSON Schema). A provider's built-in tool (no function tool) is kept for
    /// that provider and refused for the others, which do not offer it. For Gemini, every
    /// function declaration goes in one leading `Tool`, and the host's other Gemini tools
    /// (`googleSearch`, …) follow it.
    pub(crate) fn tools_with_host(
        self,
        host: &[Value],
        definitions: &[ToolDefinition],
    ) -> Result<Vec<Value>, RuntimeError> {
        let mut declarations = Vec::new();
        let mut tools = Vec::new();
        for tool in host {
            if let Some((key, entries)) = gemini_declarations(tool) {
                let entries = entries.iter();
                if self == Provider::Gemini {
                    declarations.extend(entries.cloned());
                } else {
                    tools.extend(
                        entries
                            .filter_map(ToolDefinition::from_tool)
                            .map(|tool| tool.render(self)),
                    );
                }
                // What else the Gemini tool holds (`googleSearch`, say) stays, without the
                // declarations already placed.
                let mut rest = tool.clone();
                if let Some(rest) = rest.as_object_mut() {
                    rest.remove(key);
                }
                if rest.as_object().is_some_and(|rest| !rest.is_empty()) {
                    self.accepts_built_in(&rest)?;
                    tools.push(rest);
                }
                continue;
            }
            let shape = Shape::of(tool);
            if shape == Shape::Other {
                self.accepts_built_in(tool)?;
            }
            let converted = match ToolDefinition::from_tool(tool) {
                Some(definition) if !shape.native(self) => definition.render(self),
                _ => tool.clone(),
            };
            if self == Provider::Gemini && shape != Shape::Other {
                declarations.push(converted);
            } else {
                tools.push(converted);
            }
        }
        let own = definitions.iter().map(|definition| definition.render(self));
        if self != Provider::Gemini {
            tools.extend(own);
            return Ok(tools);
        }
        declarations.extend(own);
        if !declarations.is_empty() {
            tools.insert(0, json!({ "functionDeclarations": declarations }));
        }
        Ok(tools)
    }

    /// Refuses a host's built-in tool of another provider: it cannot be converted.
    fn accepts_built_in(self, tool: &Value) -> Result<(), RuntimeError> {
        match definition::built_in_owner(tool) {
            Some((owner, name)) if Some(owner) != Family::of(self) => {
                Err(RuntimeError::ForeignTool {
                    tool: name,
                    owner: owner.name(),
                    provider: self.name(),
                })
            }
            _ => Ok(()),
        }
    }

    /// The API's name, for people.
    fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "OpenAI Chat Completions",
            Provider::OpenAiResponses => "OpenAI Responses",
            Provider::Anthropic => "Anthropic Messages",
            Provider::Gemini => "Gemini",
        }
    }

    /// A context item (a host-selected skill's content) as this provider's user message:
    ///
    /// - OpenAI Chat: `{"role": "user", "content"}`;
    /// - OpenAI Responses: `{"type": "message", "role": "user", "content"}`;
    /// - Anthropic: `{"role": "user", "content": [{"type": "text", "text"}]}`;
    /// - Gemini: `{"role": "user", "parts": [{"text"}]}`.
    pub fn context_message(self, item: &ContextItem) -> Value {
        match self {
            Provider::OpenAiChat => item.to_message(),
            Provider::OpenAiResponses => {
                json!({"type": "message", "role": item.role, "content": item.content})
            }
            Provider::Anthropic => {
                json!({"role": item.role, "content": [{"type": "text", "text": item.content}]})
            }
            Provider::Gemini => json!({"role": item.role, "parts": [{"text": item.content}]}),
        }
    }

    /// The function tool calls of one model turn, in order, from this provider's response.
    ///
    /// Takes the response body as the API returned it, or the part holding the calls:
    ///
    /// - OpenAI Chat: a chat completion (its first choice), its `message`, or the
    ///   `tool_calls` array; `arguments` stay the JSON text OpenAI sends;
    /// - OpenAI Responses: a response, its `output` array, or one output item; the id is the
    ///   item's `call_id`;
    /// - Anthropic: a message or its `content` array; the arguments are the block's `input`;
    /// - Gemini: a `GenerateContentResponse` (its first candidate), a `Content`, or its
    ///   `parts`; a call without an `id` gets `gemini-call-<n>`.
    ///
    /// A turn without calls (a text answer, an empty `choices`, a candidate stopped for safety)
    /// gives none. Other kinds of calls (OpenAI custom tools, Anthropic server tools) are left
    /// out: they are answered differently or not by the host.
    ///
    /// # Errors
    ///
    /// [`ResponseError::Unrecognized`] when `response` is none of the shapes above (another
    /// provider's response, say); [`ResponseError::MalformedCall`] when a call lacks its id or
    /// name, or is not an object.
    pub fn parse_tool_calls(self, response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
        parse::tool_calls(self, response)
    }

    /// The messages that answer one model turn's calls, to append to the history after the
    /// model's turn. Give every result of the turn — the run's and the host's — in the order of
    /// the calls.
    ///
    /// - OpenAI Chat: one `{"role": "tool", "tool_call_id", "content"}` per result;
    /// - OpenAI Responses: one `{"type": "function_call_output", "call_id", "output"}` per
    ///   result;
    /// - Anthropic: **one** `{"role": "user", "content": [{"type": "tool_result", "tool_use_id",
    ///   "content", "is_error"}, …]}` holding them all, as the API requires (`is_error` only
    ///   when true);
    /// - Gemini: **one** `{"role": "user", "parts": [{"functionResponse": {"id", "name",
    ///   "response"}}, …]}`. `response` is an object, as the API requires: `{"output": …}`, or
    ///   `{"error": …}` for a failed call, holding the result's JSON (or its text when it is not
    ///   JSON). A synthesized `gemini-call-<n>` id is left out.
    ///
    /// No results, no messages.
    pub fn result_messages(self, results: &[ToolResult]) -> Vec<Value> {
        match self {
            Provider::OpenAiChat => results.iter().map(ToolResult::to_message).collect(),
            Provider::OpenAiResponses => results
                .iter()
                .map(|result| {
                    json!({
                        "type": "function_call_output",
                        "call_id": result.tool_call_id,
                        "output": result.content,
                    })
                })
                .collect(),
            Provider::Anthropic if !results.is_empty() => {
                let blocks: Vec<Value> = results.iter().map(anthropic_result).collect();
                vec![json!({"role": "user", "content": blocks})]
            }
            Provider::Gemini if !results.is_empty() => {
                let parts: Vec<Value> = results.iter().map(gemini_result).collect();
                vec![json!({"role": "user", "parts": parts})]
            }
            Provider::Anthropic | Provider::Gemini => Vec::new(),
        }
    }

    /// What [`Provider::parse_tool_calls`] takes, for its errors.
    fn expected(self) -> &'static str {
        match self {
            Provider::OpenAiChat => {
                "a chat completion (`choices`), its message (`tool_calls`) or a `tool_calls` array"
            }
            Provider::OpenAiResponses => {
                "a response (`output`), an output item or an array of them"
            }
            Provider::Anthropic => "a message (`content`) or an array of content blocks",
            Provider::Gemini => {
                "a GenerateContentResponse (`candidates`), a Content (`parts`) or an array of parts"
            }
        }
    }
}

impl fmt::Display for Provider {
    /// The API's name: `OpenAI Chat Completions`, `OpenAI Responses`, `Anthropic Messages`,
    /// `Gemini`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Provider::OpenAiChat => "OpenAI Chat Completions",
            Provider::OpenAiResponses => "OpenAI Responses",
            Provider::Anthropic => "Anthropic Messages",
            Provider::Gemini => "Gemini",
        })
    }
}

/// An Anthropic `tool_result` block.
fn anthropic_result(result: &ToolResult) -> Value {
    let mut block = json!({
        "type": "tool_result",
        "tool_use_id": result.tool_call_id,
        "content": result.content,
    });
    if result.is_error {
        block["is_error"] = true.into();
    }
    block
}

/// A Gemini `functionResponse` part: the result's JSON (or text) under `output`, or `error`.
fn gemini_result(result: &ToolResult) -> Value {
    let value = serde_json::from_str::<Value>(&result.content)
        .unwrap_or_else(|_| Value::String(result.content.clone()));
    let key = if result.is_error { "error" } else { "output" };
    let mut response = serde_json::Map::new();
    if !result.tool_call_id.starts_with(parse::SYNTHESIZED_ID) {
        response.insert("id".into(), result.tool_call_id.clone().into());
    }
    response.insert("name".into(), result.name.clone().into());
    response.insert("response".into(), json!({ key: value }));
    json!({ "functionResponse": response })
}

/// A provider's response the run could not read tool calls from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// The value is not a response of this provider, nor a part of one that holds calls.
    #[error(
        "this is not {provider} output: expected {expected}; pass the response body as the API \
         returned it, to the `Provider` of that API"
    )]
    Unrecognized {
        /// The provider whose shape was expected.
        provider: Provider,
        /// What was expected.
        expected: &'static str,
    },
    /// One of the calls is malformed.
    #[error(
        "{provider} tool call {position} (counting from 0) is malformed: {problem}; pass the \
         response as the API returned it"
    )]
    MalformedCall {
        /// The provider.
        provider: Provider,
        /// Where the call is in its list.
        position: usize,
        /// What is wrong with it.
        problem: String,
    },
}

#[cfg(test)]
mod tests;
