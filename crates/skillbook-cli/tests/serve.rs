//! `skillbook serve` end to end, on loopback ports the tests pick and servers the tests start
//! and stop: the official MCP Python SDK as two tenants, replicas giving byte-identical
//! answers, a smoke load, graceful shutdown, limits, health probes, JSON logs, `--check-config`
//! and `skillbook token`.
//!
//! The Python interpreter is `$MCP_PYTHON`, else `.venv/bin/python` at the repository root
//! (`bash scripts/test.sh` installs it).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/serving.rs"]
mod serving;
#[path = "support/python.rs"]
mod support;

use serving::{
    ALPHA, Answer, BETA, Fixture, Server, call, initialize, mcp, request, unread_request,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::python;

use serde_json::{Value, json};
use skillbook_mcp::http::TokenDigest;

#[test]
fn the_python_sdk_sees_each_tenant_alone() {
    let python = python("mcp, httpx2");
    let fixture = Fixture::new("");
    let server = Server::start(&fixture.config(), &[]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve_client.py");
    let root = fixture.path().display().to_string();
    let mut child = Command::new(python)
        .arg(script)
        .args([&server.url(), ALPHA, BETA])
        .args([
            root.clone(),
            format!("{root}/alpha/pdf/SKILL.md"),
            format!("{root}/beta/memo/SKILL.md"),
            format!("{root}/beta.zip"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("the MCP client did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the MCP client failed:\n{stdout}\n{stderr}\nserver:\n{}",
        server.stderr()
    );
    assert_eq!(stdout.trim(), "77 passed, 0 failed", "{stderr}");
}

/// Everything a client asks in one visit, as tenant `alpha`.
fn visit(address: &str) -> Vec<(u16, String)> {
    let mut messages = vec![
        initialize(),
        call(2, "tools/list", json!({})),
        call(3, "skills/list", json!({})),
        call(4, "resources/list", json!({})),
        call(5, "skills/get", json!({"uri": "skill://pdf/SKILL.md"})),
        call(
            6,
            "resources/read",
            json!({"uri": "skill://pdf/refs/guide.md"}),
        ),
        call(7, "resources/directory/read", json!({"uri": "skill://pdf"})),
        call(
            8,
            "tools/call",
            json!({"name": "read_file", "arguments": {"path": "skill://pdf/SKILL.md"}}),
        ),
        call(
            9,
            "tools/call",
            json!({"name": "read_file", "arguments": {"path": "skill://memo/SKILL.md"}}),
        ),
        call(
            10,
            "resources/read",
            json!({"uri": "skill://memo/SKILL.md"}),
        ),
    ];
    let mut answers = Vec::new();
    let mut cursor: Option<Value> = None;
    while let Some(message) = messages.pop() {
        let answer = mcp(address, Some(ALPHA), &message).unwrap();
        if message["method"] == "skills/list" {
            cursor = answer.json()["result"].get("nextCursor").cloned();
        }
        answers.push((answer.status, String::from_utf8(answer.body).unwrap()));
        if let Some(next) = cursor.take() {
            messages.push(call(11, "skills/list", json!({ "cursor": next })));
        }
    }
    answers
}

#[test]
fn two_replicas_over_the_same_directories_answer_byte_for_byte_alike() {
    let fixture = Fixture::new("");
    let first = Server::start(&fixture.config(), &[]);
    let second = Server::start(&fixture.config(), &[]);
    assert_ne!(first.address, second.address);
    let answers = visit(&first.address);
    assert_eq!(answers.len(), 11, "{answers:#?}");
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:#?}"
    );
    assert_eq!(answers, visit(&second.address));
    // Pages follow each other through the cursor, which either replica understands.
    let listed: Vec<&str> = answers
        .iter()
        .filter(|(_, body)| body.contains("\"skills\":["))
        .map(|(_, body)| {
            if body.contains("skill://pdf/SKILL.md") {
                "pdf"
            } else {
                "xlsx"
            }
        })
        .collect();
    assert_eq!(listed, ["pdf", "xlsx"]);
}

/// Clients that each run initialize → skills/list → resources/read (of the `SKILL.md` that
/// `read(visit)` names) in a loop for `duration`; returns the latencies of the visits and the
/// number of failures.
fn load(
    address: &str,
    clients: usize,
    duration: Duration,
    read: fn(usize) -> String,
) -> (Vec<Duration>, usize) {
    let failures = Arc::new(AtomicUsize::new(0));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let deadline = Instant::now() + duration;
    let threads: Vec<_> = (0..clients)
        .map(|client| {
            let (address, failures, latencies) = (
                address.to_owned(),
                Arc::clone(&failures),
                Arc::clone(&latencies),
            );
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                while Instant::now() < deadline {
                    let started = Instant::now();
                    let uri = read(client * 7919 + mine.len() * 104_729);
                    let steps = [
                        initialize(),
                        call(2, "skills/list", json!({})),
                        call(3, "resources/read", json!({ "uri": uri })),
                    ];
                    for step in &steps {
                        let good = mcp(&address, Some(ALPHA), step).is_ok_and(|answer| {
                            answer.status == 200 && answer.json().get("result").is_some()
                        });
                        if !good {
                            failures.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    mine.push(started.elapsed());
                }
                latencies.lock().unwrap().extend(mine);
                client
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let latencies = latencies.lock().unwrap().clone();
    (latencies, failures.load(Ordering::Relaxed))
}

#[test]
fn sixteen_clients_for_five_seconds_see_no_error() {
    // As fast as they can: over the default request rate, which is not what this tests.
    let fixture = Fixture::new("[server.per_tenant]\nrate = 0");
    let server = Server::start(&fixture.config(), &[]);
    let pdf = |_| "skill://pdf/SKILL.md".to_owned();
    let (visits, failures) = load(&server.address, 16, Duration::from_secs(5), pdf);
    assert_eq!(failures, 0, "{}", server.stderr());
    assert!(visits.len() >= 16, "only {} visits", visits.len());
}

/// The full load of the benchmark (BENCHMARKS.md), run by `scripts/bench-serve.sh`:
/// `SKILLBOOK_SERVE_ADDRESS` names a running server whose tenant `alpha` (token `ALPHA`) has
/// the skills `skill-00000` to `skill-09999`; each visit reads one of them.
#[test]
#[ignore = "a benchmark: run by scripts/bench-serve.sh against a server it starts"]
fn load_benchmark() {
    let address = std::env::var("SKILLBOOK_SERVE_ADDRESS").expect("SKILLBOOK_SERVE_ADDRESS");
    let clients =
        std::env::var("SKILLBOOK_LOAD_CLIENTS").map_or(64, |value| value.parse().unwrap());
    let seconds =
        std::env::var("SKILLBOOK_LOAD_SECONDS").map_or(30, |value| value.parse().unwrap());
    let one_of_ten_thousand =
        |visit: usize| format!("skill://skill-{:05}/SKILL.md", visit % 10_000);
    let (mut visits, failures) = load(
        &address,
        clients,
        Duration::from_secs(seconds),
        one_of_ten_thousand,
    );
    visits.sort();
    let percentile = |share: f64| {
        let at = ((visits.len() as f64 * share).ceil() as usize).clamp(1, visits.len()) - 1;
        visits[at].as_secs_f64() * 1000.0
    };
    println!(
        "clients={clients} seconds={seconds} visits={} failures={failures} \
         visits_per_second={:.0} p50_ms={:.1} p99_ms={:.1}",
        visits.len(),
        visits.len() as f64 / seconds as f64,
        percentile(0.50),
        percentile(0.99)
    );
    assert_eq!(failures, 0);
}

#[test]
fn sigterm_lets_requests_in_flight_finish_then_exits() {
    let fixture = Fixture::new("");
    let mut server = Server::start(&fixture.config(), &[]);
    let running = Arc::new(AtomicBool::new(true));
    let completed = Arc::new(AtomicUsize::new(0));
    let broken = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (address, running, completed, broken) = (
                server.address.clone(),
                Arc::clone(&running),
                Arc::clone(&completed),
                Arc::clone(&broken),
            );
            std::thread::spawn(move || {
                while running.load(Ordering::Relaxed) {
                    let message = call(3, "skills/list", json!({}));
                    match mcp(&address, Some(ALPHA), &message) {
                        // Refused connections after the listener closed are expected.
                        Err(_) => {}
                        Ok(answer)
                            if answer.status == 200
                                && serde_json::from_slice::<Value>(&answer.body).is_ok() =>
                        {
                            completed.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(answer) => broken.lock().unwrap().push(answer),
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let status = server.terminate();
    running.store(false, Ordering::Relaxed);
    for thread in threads {
        thread.join().unwrap();
    }
    assert!(status.success(), "{status:?}\n{}", server.stderr());
    assert!(completed.load(Ordering::Relaxed) > 0);
    assert!(
        broken.lock().unwrap().is_empty(),
        "{:?}",
        broken.lock().unwrap()
    );
    let stderr = server.stderr();
    assert!(
        stderr.contains("shutting down") && stderr.contains("stopped"),
        "{stderr}"
    );
    assert!(
        TcpStream::connect(&server.address).is_err(),
        "still listening"
    );
}

#[test]
fn a_body_over_the_limit_is_413_and_refused_without_a_token() {
    let fixture = Fixture::new("max_body_bytes = 4096");
    let server = Server::start(&fixture.config(), &[]);
    let large = call(
        2,
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "x".repeat(8192)}}),
    );
    assert_eq!(
        mcp(&server.address, Some(ALPHA), &large).unwrap().status,
        413
    );
    assert_eq!(mcp(&server.address, None, &large).unwrap().status, 401);
    assert_eq!(
        mcp(&server.address, Some(ALPHA), &initialize())
            .unwrap()
            .status,
        200
    );
}

/// A refusal does not parse the request's body (it reads and drops a little of it), closes the
/// connection, and says so: a client that keeps connections alive must not send its next
/// request on it.
#[test]
fn refusals_say_the_connection_closes() {
    let fixture = Fixture::new("");
    let server = Server::start(&fixture.config(), &[]);
    let body = initialize().to_string();
    for (host, token) in [
        ("127.0.0.1", ""),
        ("127.0.0.1", "Authorization: Bearer wrong\r\n"),
        ("evil.example", ""),
    ] {
        let mut stream = TcpStream::connect(&server.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{token}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).to_lowercase();
        assert!(answer.starts_with("http/1.1 40"), "{answer}");
        assert!(answer.contains("\r\nconnection: close\r\n"), "{answer}");
    }
}

/// Clients that ask for a large file and never read the answer cannot make the server hold
/// answers without bound: only `max_answers` are in flight at once, a stalled write closes its
/// connection, and a well-behaved client is still answered.
#[test]
fn clients_that_do_not_read_their_answers_are_cut_off_and_others_answered() {
    let fixture =
        Fixture::new("max_answers = 2\nwrite_stall_seconds = 1\nrequest_timeout_seconds = 60");
    // Larger than the socket buffers of a client that reads nothing (loopback buffers take
    // several MiB), within the 16 MiB a skill may serve.
    let line = "x".repeat(1023) + "\n";
    fixture.write("alpha/pdf/refs/large.md", &line.repeat(15 * 1024));
    let server = Server::start(&fixture.config(), &[]);
    let read = call(
        2,
        "resources/read",
        json!({"uri": "skill://pdf/refs/large.md"}),
    )
    .to_string();
    let stalled: Vec<TcpStream> = (0..4)
        .map(|_| unread_request(&server.address, &read))
        .collect();
    // Answered although every answer slot was taken by a client that does not read: the
    // stalled writes are cut off (after a second without progress) and free their slots.
    let answer = mcp(&server.address, Some(ALPHA), &initialize()).unwrap();
    assert_eq!(answer.status, 200);
    // The answers that held the two slots were cut off: their connections were closed before
    // the whole answer was sent (the others may have been written while this test read).
    let cut = stalled
        .into_iter()
        .filter(|mut stream| {
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            let mut received = Vec::new();
            let _ = stream.read_to_end(&mut received);
            received.len() < 15 * 1024 * 1024
        })
        .count();
    assert!(cut >= 2, "only {cut} stalled answers were cut off");
}

#[test]
fn health_and_readiness_answer_without_a_token_and_other_paths_are_404() {
    let fixture = Fixture::new("");
    let server = Server::start(&fixture.config(), &[]);
    let get = |path: &str| request(&server.address, "GET", path, &[], b"").unwrap();
    let health = get("/healthz");
    assert_eq!(
        (health.status, health.json()),
        (200, json!({"status": "ok"}))
    );
    assert_eq!(health.header("content-type"), Some("application/json"));
    let ready = get("/readyz");
    assert_eq!(
        (ready.status, ready.json()),
        (200, json!({"status": "ready"}))
    );
    assert_eq!(get("/").status, 404);
    assert_eq!(get("/mcp/extra").status, 404);
    assert_eq!(
        request(&server.address, "POST", "/healthz", &[], b"")
            .unwrap()
            .status,
        405
    );
}

#[test]
fn after_sigterm_readiness_fails_while_requests_are_still_served_for_the_drain_time() {
    let fixture = Fixture::new("drain_seconds = 60");
    let server = Server::start(&fixture.config(), &[]);
    server.send_sigterm();
    let deadline = Instant::now() + Duration::from_secs(20);
    let ready = loop {
        let ready = request(&server.address, "GET", "/readyz", &[], b"").unwrap();
        if ready.status != 200 || Instant::now() > deadline {
            break ready;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(ready.status, 503, "{}", server.stderr());
    // New connections are still accepted and answered.
    let listed = mcp(
        &server.address,
        Some(ALPHA),
        &call(2, "skills/list", json!({})),
    )
    .unwrap();
    assert_eq!(listed.status, 200);
    assert_eq!(
        listed.json()["result"]["skills"][0]["uri"],
        "skill://pdf/SKILL.md"
    );
}

#[test]
fn an_anonymous_tenant_answers_requests_without_a_token_only() {
    let fixture = Fixture::new("");
    fixture.write(
        "skillbook.toml",
        &format!(
            "[[tenant]]\nname = \"local\"\nsources = [\"beta\"]\nanonymous = true\n\n\
             [[tenant]]\nname = \"alpha\"\nsources = [\"alpha\"]\ntokens = [\"{}\"]\n",
            TokenDigest::of(ALPHA)
        ),
    );
    let server = Server::start(&fixture.config(), &[]);
    let list = call(2, "skills/list", json!({}));
    let anonymous = mcp(&server.address, None, &list).unwrap().json();
    assert_eq!(
        anonymous["result"]["skills"][0]["uri"],
        "skill://memo/SKILL.md"
    );
    let alpha = mcp(&server.address, Some(ALPHA), &list).unwrap().json();
    assert_eq!(alpha["result"]["skills"].as_array().unwrap().len(), 2);
    assert_eq!(mcp(&server.address, Some(BETA), &list).unwrap().status, 401);
    // Without sessions no notification can reach a client, so none is announced.
    let initialized = mcp(&server.address, None, &initialize()).unwrap().json();
    let capabilities = &initialized["result"]["capabilities"];
    assert_eq!(capabilities["tools"], json!({}), "{initialized}");
    assert_eq!(capabilities["resources"], json!({}), "{initialized}");
}

#[test]
fn json_logs_are_one_object_a_line() {
    let fixture = Fixture::new("");
    let mut server = Server::start(&fixture.config(), &["--log-format", "json"]);
    assert_eq!(
        mcp(&server.address, Some("wrong"), &initialize())
            .unwrap()
            .status,
        401
    );
    assert!(server.terminate().success());
    let stderr = server.stderr();
    let lines: Vec<Value> = stderr
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    assert!(lines.len() >= 3, "{stderr}");
    assert!(
        lines
            .iter()
            .all(|line| line["level"].is_string() && line["fields"]["message"].is_string())
    );
    assert!(stderr.contains("no valid bearer token"), "{stderr}");
    assert!(
        !stderr.contains(ALPHA) && !stderr.contains("wrong"),
        "a token is logged: {stderr}"
    );
}

/// Opens the `GET` event stream of `session` and returns the data lines it carries, as they
/// come, through a channel.
fn event_stream(address: &str, session: &str) -> mpsc::Receiver<String> {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\
         Authorization: Bearer {ALPHA}\r\nMcp-Session-Id: {session}\r\n\
         MCP-Protocol-Version: 2025-06-18\r\n\r\n"
    )
    .unwrap();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Some(data) = line.strip_prefix("data:")
                && sender.send(data.trim().to_owned()).is_err()
            {
                break;
            }
        }
    });
    receiver
}

/// Whether `events` carries `notifications/resources/list_changed` within 30 seconds.
fn announced(events: &mpsc::Receiver<String>) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match events.recv_timeout(left) {
            Ok(data) if data.contains("notifications/resources/list_changed") => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

/// Opens a session as `ALPHA` (initialize, then initialized); its id.
fn open_session(address: &str) -> String {
    let initialized = mcp(address, Some(ALPHA), &initialize()).unwrap();
    assert_eq!(initialized.status, 200);
    let session = initialized.header("mcp-session-id").unwrap().to_owned();
    let announced = String::from_utf8_lossy(&initialized.body);
    assert!(
        announced.contains(r#""resources":{"listChanged":true}"#)
            && announced.contains(r#""tools":{"listChanged":true}"#),
        "{announced}"
    );
    let accepted = in_session(
        address,
        &session,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(accepted.status, 202);
    session
}

/// Sends `message` as `ALPHA` in `session`.
fn in_session(address: &str, session: &str, message: &Value) -> Answer {
    serving::in_session(address, ALPHA, session, "POST", message)
}

#[test]
fn with_sessions_and_watching_a_change_on_disk_is_announced_and_served() {
    let fixture = Fixture::new("sessions = true\nwatch = true");
    let server = Server::start(&fixture.config(), &[]);
    let session = open_session(&server.address);
    let notify = |message: &Value| in_session(&server.address, &session, message);
    let events = event_stream(&server.address, &session);
    // Let the stream open before the change.
    std::thread::sleep(Duration::from_millis(300));
    fixture.write(
        "alpha/zeta/SKILL.md",
        "---\nname: zeta\ndescription: Added while serving.\n---\nNew.\n",
    );
    let announced = announced(&events);
    assert!(
        announced,
        "no list_changed notification\n{}",
        server.stderr()
    );
    let got = notify(&call(
        5,
        "skills/get",
        json!({"uri": "skill://zeta/SKILL.md"}),
    ));
    let body = String::from_utf8(got.body).unwrap();
    assert!(
        body.contains(r#""result":{"skill":{"uri":"skill://zeta/SKILL.md""#),
        "{body}"
    );
}

#[test]
fn open_event_streams_end_at_shutdown_without_holding_it() {
    let fixture = Fixture::new("sessions = true\nshutdown_grace_seconds = 25");
    let mut server = Server::start(&fixture.config(), &[]);
    let session = open_session(&server.address);
    let events = event_stream(&server.address, &session);
    std::thread::sleep(Duration::from_millis(300));
    let status = server.terminate();
    assert!(status.success(), "{status:?}\n{}", server.stderr());
    let stderr = server.stderr();
    assert!(!stderr.contains("still running"), "{stderr}");
    // The stream was ended, not left for the operating system to cut.
    loop {
        match events.recv_timeout(Duration::from_secs(5)) {
            Ok(_) => {}
            Err(error) => break assert_eq!(error, mpsc::RecvTimeoutError::Disconnected),
        }
    }
}

fn skillbook(arguments: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_skillbook"))
        .args(arguments)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// `skillbook --format json serve --config CONFIG --check-config`.
fn check_config_json(config: &str) -> Output {
    skillbook(&[
        "--format",
        "json",
        "serve",
        "--config",
        config,
        "--check-config",
    ])
}

#[test]
fn check_config_reports_the_tenants_or_what_is_wrong() {
    let fixture = Fixture::new("");
    let config = fixture.config().display().to_string();
    let output = check_config_json(&config);
    assert!(output.status.success(), "{output:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let root = fixture.path().display().to_string();
    let source = |name: &str| json!({"source": format!("{root}/{name}"), "reachable": true});
    assert_eq!(
        report,
        json!({"config": config, "listen": "127.0.0.1:8931", "tenants": [
            {"name": "alpha", "skills": ["pdf", "xlsx"], "skill_count": 2, "tokens": 1,
             "anonymous": false, "sources": [source("alpha")]},
            {"name": "beta", "skills": ["memo", "zipped"], "skill_count": 2, "tokens": 1,
             "anonymous": false, "sources": [source("beta"), source("beta.zip")]},
        ]})
    );
    let text = skillbook(&[
        "serve",
        "--config",
        &config,
        "--check-config",
        "--listen",
        "0.0.0.0:9000",
    ]);
    assert_eq!(
        String::from_utf8(text.stdout).unwrap(),
        format!(
            "{config}: the configuration is valid\nlisten: 0.0.0.0:9000\n\
             tenant alpha: 2 skills (pdf, xlsx); 1 token\n  source {root}/alpha: reachable\n\
             tenant beta: 2 skills (memo, zipped); 1 token\n  source {root}/beta: reachable\n  \
             source {root}/beta.zip: reachable\n"
        )
    );

    for (file, expected) in [
        (
            "[[tenant]]\nname = \"a\"\nsources = [\"alpha\"]\n",
            "tenant `a` has no token and is not anonymous",
        ),
        (
            &format!(
                "[[tenant]]\nname = \"a\"\ntokens = [\"{0}\"]\n[[tenant]]\nname = \"b\"\ntokens = [\"{0}\"]\n",
                TokenDigest::of(ALPHA)
            ),
            "tenants `a` and `b` share a token",
        ),
        (
            "[server]\nallowed_hosts = [\"http://x\"]\n[[tenant]]\nname = \"a\"\nanonymous = true\n",
            "`http://x` is not a host",
        ),
        (
            "[[tenant]]\nname = \"a\"\nsources = [\"beta/memo/SKILL.md\"]\nanonymous = true\n",
            "the archive `",
        ),
    ] {
        fixture.write("bad.toml", file);
        let bad = fixture.path().join("bad.toml").display().to_string();
        let output = check_config_json(&bad);
        assert_eq!(output.status.code(), Some(1), "{file}");
        let error: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(error["error"], "invalid_config", "{file}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(expected), "{file}: {message}");
    }
}

#[test]
fn token_prints_a_new_token_and_the_line_with_its_digest() {
    let output = skillbook(&["token"]);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let [token, line] = lines[..] else {
        panic!("{stdout}");
    };
    assert!(token.starts_with("sbk_") && token.len() == 68, "{token}");
    assert_eq!(*line, format!("tokens = [\"{}\"]", TokenDigest::of(token)));
    let json: Value =
        serde_json::from_slice(&skillbook(&["--format", "json", "token"]).stdout).unwrap();
    let token = json["token"].as_str().unwrap();
    assert_ne!(token, lines[0]);
    assert_eq!(json["digest"], TokenDigest::of(token).to_string());
    assert_eq!(
        json["config_line"],
        format!("tokens = [\"{}\"]", TokenDigest::of(token))
    );
}

/// Tenants whose skills live in an S3 bucket: a real S3-compatible server (`moto_server`, from
/// the test virtual environment) on a loopback port, skills uploaded with boto3 and read with
/// the MCP Python SDK.
#[cfg(feature = "object-store")]
mod store {
    use super::*;

    use std::path::PathBuf;
    use std::process::Child;

    /// A `moto_server` on a free loopback port; killed when dropped.
    struct Moto {
        child: Child,
        endpoint: String,
    }

    impl Moto {
        fn start() -> Moto {
            let python = python("boto3, moto, mcp");
            let server = python.with_file_name("moto_server");
            assert!(server.exists(), "no {}", server.display());
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let child = Command::new(&server)
                .args(["-H", "127.0.0.1", "-p", &port.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let moto = Moto {
                child,
                endpoint: format!("http://127.0.0.1:{port}"),
            };
            let deadline = Instant::now() + Duration::from_secs(30);
            while TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < deadline, "moto_server did not start");
                std::thread::sleep(Duration::from_millis(50));
            }
            moto
        }

        /// Runs `store_client.py s3 ENDPOINT arguments…`.
        fn s3(&self, arguments: &[&str]) {
            let output = client(&["s3", &self.endpoint])
                .args(arguments)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "s3 {arguments:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }

        /// A configuration with one tenant, `alpha`, over `sources`, polled every second.
        fn config(&self, fixture: &Fixture, sources: &[&str], extra: &str) -> PathBuf {
            let sources: Vec<String> = sources
                .iter()
                .map(|source| format!("\"{source}\""))
                .collect();
            fixture.write(
                "store.toml",
                &format!(
                    "[server]\npoll_seconds = 1\npage_size = 1\n{extra}\n\n\
                     [[tenant]]\nname = \"alpha\"\nsources = [{}]\ntokens = [\"{}\"]\n\n\
                     [tenant.store_options]\naws_endpoint = \"{}\"\naws_allow_http = \"true\"\n\
                     aws_region = \"us-east-1\"\naws_access_key_id = \"test\"\n\
                     aws_secret_access_key = \"test-secret-never-shown\"\n",
                    sources.join(", "),
                    TokenDigest::of(ALPHA),
                    self.endpoint
                ),
            );
            fixture.path().join("store.toml")
        }
    }

    impl Drop for Moto {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// `store_client.py arguments…` under the test Python.
    fn client(arguments: &[&str]) -> Command {
        let python = python("boto3, mcp, httpx2");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/store_client.py");
        let mut command = Command::new(python);
        command.arg(script).args(arguments);
        command
    }

    /// What the MCP Python SDK reads from `server` as `alpha`: the catalog and every resource.
    fn read(server: &Server) -> Value {
        let output = client(&["read", &server.url(), ALPHA]).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "the MCP client failed: {stderr}\nserver:\n{}",
            server.stderr()
        );
        // Closing a session is answered as the SDK expects (it warns about anything else).
        assert!(!stderr.contains("Session termination failed"), "{stderr}");
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn skill_md(name: &str, description: &str) -> String {
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n")
    }

    /// A bucket `skills` with `pdf` (and a reference) and `xlsx` below `acme/skills`, and a
    /// skill outside the prefix.
    fn bucket(moto: &Moto) {
        moto.s3(&["create", "skills"]);
        let (pdf, xlsx) = (
            skill_md("pdf", "Fill PDF forms."),
            skill_md("xlsx", "Edit spreadsheets."),
        );
        let (secret, hostile) = (
            skill_md("secret", "Not acme's."),
            skill_md("hostile", "Never served."),
        );
        let mut put = vec!["put", "skills"];
        put.extend(["acme/skills/pdf/SKILL.md", &pdf]);
        put.extend(["acme/skills/pdf/refs/guide.md", "one\ntwo\n"]);
        // A folder marker, as consoles make them: not a file.
        put.extend(["acme/skills/pdf/refs/", ""]);
        put.extend(["acme/skills/xlsx/SKILL.md", &xlsx]);
        put.extend(["other/secret/SKILL.md", &secret]);
        // Keys no skill may serve: each is reported, and hides nothing else.
        for key in HOSTILE {
            put.extend([key, &hostile]);
        }
        moto.s3(&put);
    }

    const HOSTILE: [&str; 4] = [
        "acme/skills/pdf/../escape.md",
        "acme/skills/empty//SKILL.md",
        "acme/skills/bell\u{7}/SKILL.md",
        "acme/skills/./SKILL.md",
    ];

    #[test]
    fn skills_in_a_bucket_are_served_alike_by_replicas_and_changes_are_polled() {
        let moto = Moto::start();
        bucket(&moto);
        let fixture = Fixture::new("");
        let config = moto.config(&fixture, &["s3://skills/acme/skills"], "sessions = true");
        let first = Server::start(&config, &[]);
        let second = Server::start(&config, &[]);

        let seen = read(&first);
        let uris: Vec<&String> = seen["resources"].as_object().unwrap().keys().collect();
        assert_eq!(
            uris,
            [
                "skill://pdf/SKILL.md",
                "skill://pdf/refs/guide.md",
                "skill://xlsx/SKILL.md"
            ]
        );
        assert_eq!(seen["resources"]["skill://pdf/refs/guide.md"], "one\ntwo\n");
        let catalog = seen["catalog"].as_str().unwrap();
        assert!(catalog.contains("Fill PDF forms."), "{catalog}");
        assert!(!catalog.contains("secret"), "{catalog}");
        // Two replicas over the same prefix answer alike.
        assert_eq!(read(&second), seen);

        // An edit in the bucket is found by the next poll, and clients in a session are told.
        let session = open_session(&first.address);
        let events = event_stream(&first.address, &session);
        std::thread::sleep(Duration::from_millis(300));
        moto.s3(&[
            "put",
            "skills",
            "acme/skills/pdf/SKILL.md",
            &skill_md("pdf", "Fill and sign PDF forms."),
        ]);
        let announced = announced(&events);
        assert!(announced, "no list_changed\n{}", first.stderr());
        let edited = read(&first);
        assert!(
            edited["resources"]["skill://pdf/SKILL.md"]
                .as_str()
                .unwrap()
                .contains("Fill and sign PDF forms."),
            "{edited}"
        );
        // A skill removed from the bucket is no longer served.
        moto.s3(&["delete", "skills", "acme/skills/xlsx/SKILL.md"]);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let now = read(&second);
            if now["resources"].get("skill://xlsx/SKILL.md").is_none() {
                assert_eq!(now, read(&first));
                break;
            }
            assert!(
                Instant::now() < deadline,
                "xlsx still served\n{}",
                second.stderr()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
        for server in [&first, &second] {
            let logged = server.stderr();
            assert!(!logged.contains("test-secret-never-shown"), "{logged}");
            for hostile in HOSTILE {
                let said = format!("the object `{}` is refused", hostile.escape_debug());
                assert!(logged.contains(&said), "{said}\n{logged}");
            }
        }
    }

    #[test]
    fn check_config_says_whether_each_store_can_be_reached() {
        let moto = Moto::start();
        bucket(&moto);
        let fixture = Fixture::new("");
        let config = moto.config(
            &fixture,
            &["s3://skills/acme/skills", "s3://no-such-bucket/skills"],
            "",
        );
        let config = config.display().to_string();
        let output = check_config_json(&config);
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let sources = &report["tenants"][0]["sources"];
        assert_eq!(sources[0]["source"], "s3://skills/acme/skills");
        assert_eq!(sources[0]["reachable"], true);
        assert_eq!(sources[0]["skills"], 2);
        assert_eq!(sources[1]["source"], "s3://no-such-bucket/skills");
        assert_eq!(sources[1]["reachable"], false);
        // The tenant counts the skills its stores hold.
        assert_eq!(report["tenants"][0]["skill_count"], 2);
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(!said.contains("test-secret-never-shown"), "{said}");
        let text = skillbook(&["serve", "--config", &config, "--check-config"]);
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains("tenant alpha: 2 skills (2 in object stores)"),
            "{text}"
        );
    }

    /// First `skills/list` and warm `resources/read` latency over 1,000 skills in a bucket, next
    /// to the same skills in a directory: `scripts/bench-store.sh` runs it.
    #[test]
    #[ignore = "a benchmark: run by scripts/bench-store.sh"]
    fn store_benchmark() {
        let skills: usize =
            std::env::var("SKILLBOOK_STORE_SKILLS").map_or(1000, |value| value.parse().unwrap());
        let rounds: usize =
            std::env::var("SKILLBOOK_STORE_ROUNDS").map_or(3, |value| value.parse().unwrap());
        let moto = Moto::start();
        let fixture = Fixture::new("");
        for skill in 0..skills {
            let name = format!("skill-{skill:05}");
            let body = "Steps to follow, one per line.\n".repeat(40);
            fixture.write(
                &format!("bench/{name}/SKILL.md"),
                &format!("{}{body}", skill_md(&name, "A skill for the benchmark.")),
            );
            fixture.write(&format!("bench/{name}/refs/guide.md"), &body);
        }
        let tree = fixture.path().join("bench").display().to_string();
        moto.s3(&["create", "skills"]);
        moto.s3(&["putdir", "skills", "acme/skills/", &tree]);
        let store = moto.config(&fixture, &["s3://skills/acme/skills"], "");
        fixture.write(
            "dir.toml",
            &format!(
                "[server]\npage_size = 1\n[[tenant]]\nname = \"alpha\"\nsources = [\"bench\"]\n\
                 tokens = [\"{}\"]\n",
                TokenDigest::of(ALPHA)
            ),
        );
        let directory = fixture.path().join("dir.toml");
        for round in 0..rounds {
            let floor = client(&["s3", &moto.endpoint, "getall", "skills", "acme/skills/"])
                .output()
                .unwrap();
            assert!(floor.status.success());
            println!(
                "round={round} floor: boto3 lists and fetches every object in {} ms",
                String::from_utf8_lossy(&floor.stdout).trim()
            );
            for (source, config) in [("bucket", &store), ("directory", &directory)] {
                let started = Instant::now();
                let server = Server::start(config, &[]);
                let listed = mcp(
                    &server.address,
                    Some(ALPHA),
                    &call(2, "skills/list", json!({})),
                )
                .unwrap();
                assert_eq!(listed.status, 200);
                let first_list = started.elapsed();
                let mut reads = Vec::new();
                for visit in 0..500 {
                    let uri = format!("skill://skill-{:05}/SKILL.md", (visit * 7919) % skills);
                    let read = call(3, "resources/read", json!({ "uri": uri }));
                    let started = Instant::now();
                    let answer = mcp(&server.address, Some(ALPHA), &read).unwrap();
                    reads.push(started.elapsed());
                    assert!(answer.json().get("result").is_some());
                }
                reads.sort();
                let at = |share: f64| {
                    reads[((reads.len() as f64 * share) as usize).min(reads.len() - 1)]
                        .as_secs_f64()
                        * 1e6
                };
                println!(
                    "round={round} source={source} skills={skills} first_list_ms={:.0} read_p50_us={:.0} read_p95_us={:.0}",
                    first_list.as_secs_f64() * 1e3,
                    at(0.5),
                    at(0.95)
                );
            }
        }
    }
}
