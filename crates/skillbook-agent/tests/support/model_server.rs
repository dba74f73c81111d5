//! A scripted model server on loopback that speaks OpenAI's Chat Completions and Responses
//! APIs and Anthropic's Messages: each request is checked against its API's rules (every tool
//! call answered; for Anthropic, the results in one user message with the `tool_result` blocks
//! first; for Responses, every `function_call` answered by one `function_call_output` with its
//! `call_id`), recorded, and answered with the script's next reply.

#![allow(dead_code, reason = "each test crate uses part of it")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

/// One scripted reply: a status, extra headers and a JSON body.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Reply {
    pub fn ok(body: Value) -> Self {
        Reply {
            status: 200,
            headers: Vec::new(),
            body,
        }
    }

    pub fn status(status: u16, body: Value) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(found, _)| found == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The server: its address, and what it received.
pub struct ModelServer {
    pub base_url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl ModelServer {
    /// Serves `script`'s replies in order (a request past its end gets a 500 naming it).
    pub fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script.into_iter()));
        let (log, replies) = (Arc::clone(&received), Arc::clone(&script));
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (log, replies) = (Arc::clone(&log), Arc::clone(&replies));
                thread::spawn(move || serve(stream, &log, &replies));
            }
        });
        ModelServer { base_url, received }
    }

    /// Every request body so far.
    pub fn bodies(&self) -> Vec<Value> {
        let received = self.received.lock().unwrap();
        received
            .iter()
            .map(|request| request.body.clone())
            .collect()
    }
}

type Script = Mutex<std::vec::IntoIter<Reply>>;

/// Answers the requests of one connection (kept alive) until it closes.
fn serve(stream: TcpStream, log: &Mutex<Vec<Received>>, script: &Script) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let reply = match check(&request) {
            Ok(()) => script.lock().unwrap().next().unwrap_or_else(|| {
                Reply::status(500, json!({"error": {"message": "the script has ended"}}))
            }),
            Err(problem) => Reply::status(
                400,
                json!({"error": {"message": format!("request breaks the API's rules: {problem}")}}),
            ),
        };
        log.lock().unwrap().push(request);
        let body = reply.body.to_string();
        let mut head = format!(
            "HTTP/1.1 {} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            reply.status,
            body.len()
        );
        for (name, value) in &reply.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(body.as_bytes()).is_err()
        {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Received {
        path,
        headers,
        body,
    })
}

/// The API's rules for a request, by its path.
fn check(request: &Received) -> Result<(), String> {
    if request.body["model"].as_str().is_none() {
        return Err("no `model`".into());
    }
    if request.path.ends_with("/responses") {
        return check_responses(&request.body);
    }
    let messages = request.body["messages"]
        .as_array()
        .ok_or("no `messages` list")?;
    if request.path.ends_with("/chat/completions") {
        check_openai(messages)
    } else if request.path.ends_with("/v1/messages") {
        if request.header("anthropic-version").is_none() {
            return Err("no `anthropic-version` header".into());
        }
        if request.body["max_tokens"].as_u64().is_none() {
            return Err("no `max_tokens`".into());
        }
        check_anthropic(messages)
    } else {
        Err(format!("unknown path {}", request.path))
    }
}

/// Every assistant message's tool calls answered, each by one `tool` message right after it;
/// an assistant message holds only the fields every compatible server takes, and no empty
/// `tool_calls`.
fn check_openai(messages: &[Value]) -> Result<(), String> {
    for message in messages
        .iter()
        .filter(|message| message["role"] == "assistant")
    {
        let fields = message.as_object().ok_or("a message that is no object")?;
        if let Some(key) = fields
            .keys()
            .find(|key| !["role", "content", "tool_calls"].contains(&key.as_str()))
        {
            return Err(format!("an assistant message holds `{key}`"));
        }
        if message["tool_calls"].as_array().is_some_and(Vec::is_empty) {
            return Err("an assistant message holds an empty `tool_calls`".into());
        }
    }
    for (at, message) in messages.iter().enumerate() {
        let Some(calls) = message["tool_calls"].as_array() else {
            continue;
        };
        let answered: Vec<&str> = messages[at + 1..]
            .iter()
            .take_while(|next| next["role"] == "tool")
            .filter_map(|next| next["tool_call_id"].as_str())
            .collect();
        let asked: Vec<&str> = calls
            .iter()
            .filter_map(|call| call["id"].as_str())
            .collect();
        if answered != asked {
            return Err(format!("calls {asked:?} answered by {answered:?}"));
        }
    }
    Ok(())
}

/// Every `tool_use` answered in the next message, a user message whose `tool_result` blocks
/// come first.
fn check_anthropic(messages: &[Value]) -> Result<(), String> {
    if messages
        .first()
        .is_some_and(|first| first["role"] != "user")
    {
        return Err("the first message is not the user's".into());
    }
    for (at, message) in messages.iter().enumerate() {
        let empty = message["content"].as_array().is_some_and(Vec::is_empty)
            || message["content"].as_str().is_some_and(str::is_empty);
        if empty && at + 1 < messages.len() {
            return Err(format!("message {at} has empty content"));
        }
    }
    for (at, message) in messages.iter().enumerate() {
        let uses: Vec<&str> = (message["content"].as_array().into_iter().flatten())
            .filter(|block| block["type"] == "tool_use")
            .filter_map(|block| block["id"].as_str())
            .collect();
        if uses.is_empty() {
            continue;
        }
        let Some(next) = messages.get(at + 1) else {
            return Err("tool_use with no answer".into());
        };
        if next["role"] != "user" {
            return Err("tool results not in a user message".into());
        }
        let blocks = next["content"].as_array().ok_or("results not a list")?;
        let results: Vec<&str> = blocks
            .iter()
            .take_while(|block| block["type"] == "tool_result")
            .filter_map(|block| block["tool_use_id"].as_str())
            .collect();
        if results != uses {
            return Err(format!("tool_use {uses:?} answered by {results:?}"));
        }
    }
    Ok(())
}

/// The Responses API's rules: an `input` list, named function tools, every call answered.
fn check_responses(body: &Value) -> Result<(), String> {
    let input = body["input"].as_array().ok_or("no `input` list")?;
    for tool in body["tools"].as_array().into_iter().flatten() {
        if tool["type"] != "function" || tool["name"].as_str().is_none() {
            return Err(format!("not a named function tool: {tool}"));
        }
    }
    check_calls_answered(input)
}

/// Every `function_call` answered by one `function_call_output` after it with its `call_id`,
/// and no output answering a call the input does not make.
fn check_calls_answered(input: &[Value]) -> Result<(), String> {
    let ids_of = |kind: &str| -> Vec<(usize, String)> {
        (input.iter().enumerate())
            .filter(|(_, item)| item["type"] == kind)
            .filter_map(|(at, item)| Some((at, item["call_id"].as_str()?.to_owned())))
            .collect()
    };
    let (calls, outputs) = (ids_of("function_call"), ids_of("function_call_output"));
    for (at, id) in &calls {
        let answers = (outputs.iter())
            .filter(|(answered_at, answered)| answered == id && answered_at > at)
            .count();
        if answers != 1 {
            return Err(format!("call {id} answered {answers} times"));
        }
    }
    if let Some((_, id)) =
        (outputs.iter()).find(|(_, id)| !calls.iter().any(|(_, call)| call == id))
    {
        return Err(format!("output for {id}, which no call makes"));
    }
    Ok(())
}

/// An OpenAI chat completion calling one tool.
pub fn openai_call(id: &str, name: &str, arguments: Value) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]
        }}]
    })
}

/// An OpenAI chat completion answering with `text`.
pub fn openai_answer(text: &str) -> Value {
    json!({
        "id": "chatcmpl-2", "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}]
    })
}

/// An Anthropic message calling one tool.
pub fn anthropic_call(id: &str, name: &str, input: Value) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
        "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": id, "name": name, "input": input}
        ]
    })
}

/// An Anthropic message answering with `text`.
pub fn anthropic_answer(text: &str) -> Value {
    json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "scripted",
        "stop_reason": "end_turn", "content": [{"type": "text", "text": text}]
    })
}

/// A response calling one function tool.
pub fn responses_call(call_id: &str, name: &str, arguments: Value) -> Value {
    json!({
        "id": format!("resp_{call_id}"), "object": "response", "status": "completed",
        "model": "scripted",
        "output": [{"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
            "name": name, "arguments": arguments.to_string(), "status": "completed"}],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    })
}

/// A response answering with `text`.
pub fn responses_answer(text: &str) -> Value {
    json!({
        "id": "resp_answer", "object": "response", "status": "completed", "model": "scripted",
        "output": [{"type": "message", "id": "msg_answer", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    })
}

/// The output the last request sent for the call `call_id`, as text.
pub fn responses_output_for(body: &Value, call_id: &str) -> String {
    let item = (body["input"].as_array().unwrap().iter())
        .find(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .unwrap_or_else(|| panic!("no output for {call_id} in {body:#}"));
    match &item["output"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
