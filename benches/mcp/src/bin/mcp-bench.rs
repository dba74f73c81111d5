//! Times an MCP server that serves the Skills extension, over its stdin and stdout.
//!
//! ```text
//! mcp-bench [--label L] [--expect N] [--reads 200] [--seed 1] [--timeout 600] [--stderr FILE]
//!           -- COMMAND [ARGS...]
//! ```
//!
//! The client is hand-written newline-delimited JSON-RPC (what MCP's stdio transport is), so
//! nothing but the server's own work and the pipe is measured. One run:
//!
//! 1. start the clock, spawn `COMMAND`;
//! 2. `initialize` (protocol `2025-11-25`, no capabilities) → `init_ms` from spawn;
//!    then `notifications/initialized`;
//! 3. `skills/list` without a cursor → `first_page_ms` from spawn;
//! 4. `skills/list` with each `nextCursor` until there is none → `all_pages_ms` from spawn (the
//!    last page's arrival) and `list_ms` (first `skills/list` sent → last page received);
//! 5. `--reads` sequential `resources/read` of the `uri` (the `SKILL.md`) of skills picked at
//!    random (seeded, so both servers read the same positions of their sorted lists) →
//!    `read_p50_us`, `read_p95_us`, `read_max_us`, `read_mean_us` (request written → response
//!    read);
//! 6. the child's `VmHWM` (peak resident set) and `VmRSS` from `/proc/<pid>/status`, in KiB;
//! 7. close stdin and wait (killing the child after 10 s).
//!
//! Arrival times are taken when the whole response line has been read, before it is parsed.
//! The run fails (exit 1, message on stderr, child killed) if the server answers any request
//! with a JSON-RPC error, a response is malformed or late (`--timeout` seconds per response),
//! the server exits early, a page repeats a skill, or — with `--expect N` — the skills listed
//! plus those a page reports under `_meta["skillbook/omitted"]` are not exactly `N`.
//! On success it prints one JSON line.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const OMITTED_META_KEY: &str = "skillbook/omitted";

struct Options {
    label: String,
    expect: Option<usize>,
    reads: usize,
    seed: u64,
    timeout: Duration,
    stderr: Option<String>,
    command: Vec<String>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        label: String::new(),
        expect: None,
        reads: 200,
        seed: 1,
        timeout: Duration::from_secs(600),
        stderr: None,
        command: Vec::new(),
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        if argument == "--" {
            options.command = arguments.by_ref().collect();
            break;
        }
        let mut value = || {
            arguments
                .next()
                .ok_or_else(|| format!("{argument} needs a value"))
        };
        let number = |text: String| {
            text.parse::<u64>()
                .map_err(|_| format!("{argument}: `{text}` is not a number"))
        };
        match argument.as_str() {
            "--label" => options.label = value()?,
            "--expect" => options.expect = Some(number(value()?)? as usize),
            "--reads" => options.reads = number(value()?)? as usize,
            "--seed" => options.seed = number(value()?)?,
            "--timeout" => options.timeout = Duration::from_secs(number(value()?)?),
            "--stderr" => options.stderr = Some(value()?),
            _ => return Err(format!("unknown option {argument}")),
        }
    }
    if options.command.is_empty() {
        return Err(
            "usage: mcp-bench [--label L] [--expect N] [--reads 200] [--seed 1] \
                    [--timeout 600] [--stderr FILE] -- COMMAND [ARGS...]"
                .into(),
        );
    }
    if options.label.is_empty() {
        options.label = options.command[0].clone();
    }
    Ok(options)
}

/// SplitMix64, for the read positions.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// One line from the server and when it had been read completely.
type Line = (Instant, Vec<u8>);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    next_id: u64,
    timeout: Duration,
    notifications: usize,
}

struct Response {
    result: Value,
    sent: Instant,
    received: Instant,
    bytes: usize,
}

impl Client {
    fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut line = serde_json::to_vec(message).map_err(|error| error.to_string())?;
        line.push(b'\n');
        let stdin = self.stdin.as_mut().ok_or("stdin already closed")?;
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .map_err(|error| format!("cannot write to the server: {error}"))
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Response, String> {
        self.next_id += 1;
        let id = self.next_id;
        let sent = Instant::now();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let (received, line) = match self.lines.recv_timeout(self.timeout) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "no answer to {method} (id {id}) within {} s",
                        self.timeout.as_secs()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let mut status = None;
                    for _ in 0..100 {
                        status = self.child.try_wait().ok().flatten();
                        if status.is_some() {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    return Err(format!(
                        "the server closed stdout before answering {method} (id {id}); \
                         exit status {status:?}"
                    ));
                }
            };
            let bytes = line.len();
            let message: Value = serde_json::from_slice(&line).map_err(|error| {
                let shown = String::from_utf8_lossy(&line[..line.len().min(300)]).into_owned();
                format!("the server wrote something that is not JSON ({error}): {shown}")
            })?;
            if let Some(method) = message.get("method").and_then(Value::as_str) {
                match message.get("id") {
                    // A request from the server: ping gets its empty answer, the rest "not found".
                    Some(request_id) => {
                        let answer = if method == "ping" {
                            json!({"jsonrpc": "2.0", "id": request_id, "result": {}})
                        } else {
                            json!({"jsonrpc": "2.0", "id": request_id,
                                   "error": {"code": -32601, "message": "not supported"}})
                        };
                        self.send(&answer)?;
                    }
                    None => self.notifications += 1,
                }
                continue;
            }
            if message.get("id") != Some(&json!(id)) {
                return Err(format!(
                    "answer to an unexpected id while waiting for {method} (id {id}): {}",
                    short(&message)
                ));
            }
            if let Some(error) = message.get("error") {
                return Err(format!("{method} (id {id}) failed: {error}"));
            }
            let Some(result) = message.get("result") else {
                return Err(format!(
                    "{method} (id {id}): no result: {}",
                    short(&message)
                ));
            };
            return Ok(Response {
                result: result.clone(),
                sent,
                received,
                bytes,
            });
        }
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 300 {
        format!("{}…", &text[..text.floor_char_boundary(300)])
    } else {
        text
    }
}

fn status_kib(pid: u32, field: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|error| format!("cannot read /proc/{pid}/status: {error}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status"))
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (fraction * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

fn run(options: &Options, client: &mut Client, spawned: Instant) -> Result<Value, String> {
    let pid = client.child.id();

    let initialize = client.request(
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcp-bench", "version": "0"},
        }),
    )?;
    let init_ms = ms(initialize.received - spawned);
    let server_name = initialize.result["serverInfo"]["name"].clone();
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;

    // Every page of skills/list.
    let mut uris: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut omitted = 0usize;
    let mut pages = 0usize;
    let mut list_bytes = 0usize;
    let mut cursor: Option<String> = None;
    let mut first_page = None;
    let mut list_sent = None;
    let last_page = loop {
        let params = match &cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let page = client.request("skills/list", params)?;
        pages += 1;
        list_bytes += page.bytes;
        list_sent.get_or_insert(page.sent);
        first_page.get_or_insert(page.received);
        let skills = page.result["skills"]
            .as_array()
            .ok_or_else(|| format!("skills/list page {pages}: no `skills` array"))?;
        for skill in skills {
            let uri = skill["uri"]
                .as_str()
                .ok_or_else(|| format!("skills/list page {pages}: a skill without `uri`"))?;
            if !seen.insert(uri.to_owned()) {
                return Err(format!("skills/list lists {uri} twice"));
            }
            uris.push(uri.to_owned());
        }
        if let Some(list) = page.result["_meta"][OMITTED_META_KEY].as_array() {
            omitted += list.len();
        }
        match page.result.get("nextCursor") {
            None | Some(Value::Null) => break page.received,
            Some(Value::String(next)) => cursor = Some(next.clone()),
            Some(other) => return Err(format!("skills/list: nextCursor is not a string: {other}")),
        }
        if pages > 10_000_000 {
            return Err("skills/list never ends".into());
        }
    };
    let (first_page, list_sent) = (
        first_page.unwrap_or(last_page),
        list_sent.unwrap_or(last_page),
    );
    let served = uris.len();
    if let Some(expected) = options.expect
        && served + omitted != expected
    {
        return Err(format!(
            "skills/list: {served} skills served + {omitted} omitted = {}, expected {expected}",
            served + omitted
        ));
    }
    if omitted > 0 {
        eprintln!(
            "mcp-bench: warning: {} omits {omitted} skills",
            options.label
        );
    }

    // Random resources/read of listed SKILL.md files.
    let mut latencies = Vec::with_capacity(options.reads);
    let mut random = Seeded(options.seed);
    if options.reads > 0 && uris.is_empty() {
        return Err("no skill listed, nothing to read".into());
    }
    for _ in 0..options.reads {
        let uri = &uris[(random.next() % uris.len() as u64) as usize];
        let read = client.request("resources/read", json!({ "uri": uri }))?;
        let contents = &read.result["contents"][0];
        let body = contents["text"].as_str().or(contents["blob"].as_str());
        if contents["uri"].as_str() != Some(uri) || body.is_none_or(str::is_empty) {
            return Err(format!(
                "resources/read {uri}: unexpected answer {}",
                short(&read.result)
            ));
        }
        latencies.push((read.received - read.sent).as_secs_f64() * 1e6);
    }
    latencies.sort_by(f64::total_cmp);
    let mean = latencies.iter().sum::<f64>() / latencies.len().max(1) as f64;

    let peak_rss_kib = status_kib(pid, "VmHWM:")?;
    let rss_kib = status_kib(pid, "VmRSS:")?;

    Ok(json!({
        "label": options.label,
        "server": server_name,
        "expected": options.expect,
        "served": served,
        "omitted": omitted,
        "pages": pages,
        "list_bytes": list_bytes,
        "init_ms": init_ms,
        "first_page_ms": ms(first_page - spawned),
        "all_pages_ms": ms(last_page - spawned),
        "list_ms": ms(last_page - list_sent),
        "reads": latencies.len(),
        "read_p50_us": percentile(&latencies, 0.50),
        "read_p95_us": percentile(&latencies, 0.95),
        "read_max_us": latencies.last().copied().unwrap_or(f64::NAN),
        "read_mean_us": mean,
        "peak_rss_kib": peak_rss_kib,
        "rss_kib": rss_kib,
        "notifications": client.notifications,
    }))
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("mcp-bench: {message}");
            return ExitCode::from(2);
        }
    };
    let stderr = match &options.stderr {
        Some(path) => match File::create(path) {
            Ok(file) => Stdio::from(file),
            Err(error) => {
                eprintln!("mcp-bench: cannot create {path}: {error}");
                return ExitCode::from(2);
            }
        },
        None => Stdio::inherit(),
    };

    let spawned = Instant::now();
    let mut child = match Command::new(&options.command[0])
        .args(&options.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
    {
        Ok(child) => child,
        Err(error) => {
            eprintln!("mcp-bench: cannot start {}: {error}", options.command[0]);
            return ExitCode::FAILURE;
        }
    };
    let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
    let (sender, lines) = mpsc::channel::<Line>();
    if let Some(stdout) = stdout {
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 20, stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let received = Instant::now();
                        while line
                            .last()
                            .is_some_and(|byte| matches!(byte, b'\n' | b'\r'))
                        {
                            line.pop();
                        }
                        if line.is_empty() {
                            continue;
                        }
                        if sender.send((received, line)).is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }
    let mut client = Client {
        child,
        stdin,
        lines,
        next_id: 0,
        timeout: options.timeout,
        notifications: 0,
    };

    let outcome = run(&options, &mut client, spawned);

    // Close the session: EOF on stdin, then wait a little, then kill.
    drop(client.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        match client.child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline && outcome.is_ok() => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = client.child.kill();
                let _ = client.child.wait();
                break None;
            }
        }
    };

    match outcome {
        Ok(mut report) => {
            report["exit"] = match status {
                Some(status) => json!(status.code()),
                None => json!("killed"),
            };
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("mcp-bench: {}: FAILED: {message}", options.label);
            ExitCode::FAILURE
        }
    }
}
