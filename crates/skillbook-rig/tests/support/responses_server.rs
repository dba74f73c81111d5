//! A scripted model server on loopback that speaks OpenAI's Responses API (`POST /responses`),
//! the API rig 0.44's default OpenAI client sends completions to. Each request is checked
//! against the API's rules (a `model`, an `input` list, function tools with names, and every
//! `function_call` in the input answered by a `function_call_output` with the same `call_id`),
//! recorded, and answered with the script's next reply.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

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
pub struct ResponsesServer {
    pub base_url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

type Script = Mutex<std::vec::IntoIter<Value>>;

impl ResponsesServer {
    /// Serves `script`'s response objects in order, each with status 200 (a request past its
    /// end gets a 500 naming it; a request breaking the API's rules a 400 naming the rule).
    pub fn start(script: Vec<Value>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(Mutex::new(script.into_iter()));
        let log = Arc::clone(&received);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (log, script) = (Arc::clone(&log), Arc::clone(&script));
                thread::spawn(move || serve(stream, &log, &script));
            }
        });
        ResponsesServer { base_url, received }
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

/// Answers the requests of one connection (kept alive) until it closes.
fn serve(stream: TcpStream, log: &Mutex<Vec<Received>>, script: &Script) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let (status, body) = match check(&request) {
            Ok(()) => match script.lock().unwrap().next() {
                Some(reply) => (200, reply),
                None => (500, error("the script has ended")),
            },
            Err(problem) => (
                400,
                error(&format!("request breaks the API's rules: {problem}")),
            ),
        };
        log.lock().unwrap().push(request);
        let body = body.to_string();
        let head = format!(
            "HTTP/1.1 {status} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(body.as_bytes()).is_err()
        {
            return;
        }
    }
}

fn error(message: &str) -> Value {
    json!({"error": {"message": message, "type": "invalid_request_error"}})
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

/// The Responses API's rules for a request.
fn check(request: &Received) -> Result<(), String> {
    if !request.path.ends_with("/responses") {
        return Err(format!("unknown path {}", request.path));
    }
    if request.body["model"].as_str().is_none() {
        return Err("no `model`".into());
    }
    let input = request.body["input"].as_array().ok_or("no `input` list")?;
    for tool in request.body["tools"].as_array().into_iter().flatten() {
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

/// A response calling one function tool.
pub fn call(call_id: &str, name: &str, arguments: Value) -> Value {
    json!({
        "id": format!("resp_{call_id}"), "object": "response", "status": "completed",
        "model": "scripted",
        "output": [{"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
            "name": name, "arguments": arguments.to_string(), "status": "completed"}],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    })
}

/// A response answering with `text`.
pub fn answer(text: &str) -> Value {
    json!({
        "id": "resp_answer", "object": "response", "status": "completed", "model": "scripted",
        "output": [{"type": "message", "id": "msg_answer", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    })
}

/// The output the last request sent for the call `call_id`, as text.
pub fn output_for(body: &Value, call_id: &str) -> String {
    let item = (body["input"].as_array().unwrap().iter())
        .find(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .unwrap_or_else(|| panic!("no output for {call_id} in {body:#}"));
    match &item["output"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
