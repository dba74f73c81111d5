//! `skillbook serve` under hostile clients (SPEC §13.1): no tenant can stall, starve or exhaust
//! the others. Every test is an order or progress check — "answered while the attack is still
//! under way" — with generous hang guards, never a timed assertion.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/serving.rs"]
mod serving;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use serving::{
    ALPHA, Answer, BETA, Fixture, Server, call, in_session, initialize, mcp, request,
    unread_request,
};
use skillbook_mcp::http::TokenDigest;

/// How long any single step may take before the test calls it a hang.
const GUARD: Duration = Duration::from_secs(30);

/// A connection to `address` that has sent the head of a `POST /mcp` with `token`, declaring
/// `length` bytes of body, and `sent` of them.
fn partial_post(address: &str, token: &str, length: usize, sent: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(address).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Authorization: Bearer {token}\r\nContent-Length: {length}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(sent).unwrap();
    stream
}

/// Whether `stream` has received nothing yet (and is still open): a read that would block.
fn nothing_received(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut byte = [0_u8; 1];
    let quiet = matches!(stream.peek(&mut byte), Err(error) if error.kind() == std::io::ErrorKind::WouldBlock);
    stream.set_nonblocking(false).unwrap();
    quiet
}

/// What `stream` receives until the server closes it (within the guard).
fn read_all(mut stream: &TcpStream) -> Vec<u8> {
    stream.set_read_timeout(Some(GUARD)).unwrap();
    let mut received = Vec::new();
    let _ = stream.read_to_end(&mut received);
    received
}

/// The HTTP status of a raw answer.
fn status_of(raw: &[u8]) -> Option<u16> {
    String::from_utf8_lossy(raw)
        .lines()
        .next()?
        .split(' ')
        .nth(1)?
        .parse()
        .ok()
}

/// A `GET` of `path` on `address` (no token), with the guard as its read timeout.
fn get(address: &str, path: &str) -> Answer {
    request(address, "GET", path, &[], b"").unwrap()
}

/// The value of the metric line `name{labels}` in `/metrics` of the admin listener.
fn metric(server: &Server, line: &str) -> Option<f64> {
    let admin = server.admin.as_deref().expect("an admin listener");
    let answer = get(admin, "/metrics");
    assert_eq!(answer.status, 200);
    String::from_utf8(answer.body)
        .unwrap()
        .lines()
        .find_map(|text| text.strip_prefix(line)?.trim().parse().ok())
}

/// The processor time a process has used so far (Linux; user and system).
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name (which may hold spaces) in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // Linux counts in clock ticks of 1/100 s on every common configuration.
    Duration::from_millis(ticks * 10)
}

/// The peak resident memory of a process so far, in bytes (Linux).
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib * 1024
}

#[test]
fn another_tenant_is_answered_while_slow_bodies_are_unfinished() {
    // Four slots in all, two a tenant, and bodies given all the time they want: the slow
    // bodies stay unfinished for the whole test.
    let fixture = Fixture::new(
        "max_answers = 4\nbody_timeout_seconds = 600\nrequest_timeout_seconds = 600\n\
         max_body_bytes = 1000",
    );
    let server = Server::start(&fixture.config(), &[]);
    let slow: Vec<TcpStream> = (0..8)
        .map(|_| partial_post(&server.address, ALPHA, 100, b"{"))
        .collect();
    // Alpha's own requests are not starved by its slow bodies either: they hold no slot.
    for token in [BETA, ALPHA] {
        let answer = mcp(&server.address, Some(token), &call(7, "ping", json!({}))).unwrap();
        assert_eq!(
            answer.status,
            200,
            "{}",
            String::from_utf8_lossy(&answer.body)
        );
        assert_eq!(answer.json()["id"], 7);
    }
    assert!(
        slow.iter().all(nothing_received),
        "the slow bodies are still unfinished, and unanswered"
    );
}

#[test]
fn a_declared_length_over_the_limit_is_413_before_any_body_byte() {
    let fixture = Fixture::new("request_timeout_seconds = 600");
    let server = Server::start(&fixture.config(), &[]);
    // Headers only: the server must answer without waiting for two MiB that never come.
    let stream = partial_post(&server.address, ALPHA, 2 * 1024 * 1024, b"");
    let answer = read_all(&stream);
    assert_eq!(
        status_of(&answer),
        Some(413),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    let text = String::from_utf8_lossy(&answer).to_lowercase();
    assert!(text.contains("connection: close"), "{text}");
}

#[test]
fn a_body_sent_too_slowly_is_408_and_frees_nothing_it_did_not_take() {
    let fixture = Fixture::new("body_timeout_seconds = 1");
    let server = Server::start(&fixture.config(), &[]);
    let stream = partial_post(&server.address, ALPHA, 100, b"{");
    let answer = read_all(&stream);
    assert_eq!(
        status_of(&answer),
        Some(408),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    let answer = mcp(&server.address, Some(ALPHA), &initialize()).unwrap();
    assert_eq!(answer.status, 200);
}

#[test]
fn a_body_that_is_not_json_is_a_parse_error_and_a_message_that_is_not_json_rpc_is_400() {
    let fixture = Fixture::new("");
    let server = Server::start(&fixture.config(), &[]);
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Authorization", "Bearer sbk_alpha-token-for-tests"),
    ];
    let answer = request(&server.address, "POST", "/mcp", &headers, b"{not json").unwrap();
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["error"]["code"], -32700);
    let answer = request(&server.address, "POST", "/mcp", &headers, b"[1, 2]").unwrap();
    assert_eq!(answer.status, 400);
    assert_eq!(answer.json()["error"]["code"], -32600);
}

/// Writes `alpha/pdf/large.bin`: 15 MiB that are not UTF-8 (20 MiB in base64), within the
/// 16 MiB a skill file may have.
fn write_large_file(fixture: &Fixture) {
    let mut bytes = Vec::with_capacity(15 << 20);
    let mut state: u32 = 0x2545_f491;
    while bytes.len() < 15 << 20 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    std::fs::write(fixture.path().join("alpha/pdf/large.bin"), bytes).unwrap();
}

#[test]
fn unread_large_answers_keep_memory_within_the_budgets() {
    // 32 MiB of answers in all, 16 MiB a tenant; a 15 MiB binary file is 20 MiB in base64.
    let fixture = Fixture::new(
        "answer_bytes = 33554432\nmax_answers = 8\nwrite_stall_seconds = 600\n\
         request_timeout_seconds = 600",
    );
    write_large_file(&fixture);
    let server = Server::start(&fixture.config(), &[]);
    let before = peak_rss(server.child.id());
    let read = call(2, "resources/read", json!({"uri": "skill://pdf/large.bin"})).to_string();
    let unread: Vec<TcpStream> = (0..48)
        .map(|_| unread_request(&server.address, &read))
        .collect();
    // Wait until alpha's share is held (an answer is in flight and unread), then give the
    // others time to pile up if they could.
    let deadline = Instant::now() + GUARD;
    while metric(
        &server,
        "skillbook_answer_budget_bytes_held{tenant=\"alpha\"}",
    )
    .unwrap_or(0.0)
        < 1.0
    {
        assert!(Instant::now() < deadline, "no answer was ever in flight");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Beta is answered meanwhile, reads included.
    for _ in 0..20 {
        let answer = mcp(
            &server.address,
            Some(BETA),
            &call(3, "resources/read", json!({"uri": "skill://memo/SKILL.md"})),
        )
        .unwrap();
        assert_eq!(answer.status, 200);
        assert!(
            answer.json()["result"]["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains("Be brief.")
        );
    }
    let held = metric(
        &server,
        "skillbook_answer_budget_bytes_held{tenant=\"alpha\"}",
    )
    .unwrap();
    assert!(held <= 16.0 * 1024.0 * 1024.0, "alpha holds {held} bytes");
    let grown = peak_rss(server.child.id()).saturating_sub(before);
    // The budgets (32 MiB) and the copies one answer is built through, not 48 answers.
    assert!(
        grown < 32 * 1024 * 1024 + 64 * 1024 * 1024,
        "the server grew by {} MiB",
        grown >> 20
    );
    drop(unread);
}

#[test]
fn a_tenant_over_its_rate_is_told_when_to_come_back_and_others_are_not() {
    let fixture = Fixture::new("[server.per_tenant]\nrate = 0.5\nburst = 2");
    let server = Server::start(&fixture.config(), &[]);
    let ping = call(1, "ping", json!({}));
    let statuses: Vec<u16> = (0..3)
        .map(|_| mcp(&server.address, Some(ALPHA), &ping).unwrap().status)
        .collect();
    assert_eq!(statuses, [200, 200, 429]);
    let refused = mcp(&server.address, Some(ALPHA), &ping).unwrap();
    let retry: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "Retry-After: {retry}");
    assert_eq!(mcp(&server.address, Some(BETA), &ping).unwrap().status, 200);
}

/// Opens a session with `token`: the answer (its `Mcp-Session-Id`, when one was made).
fn open_session(address: &str, token: &str) -> Answer {
    mcp(address, Some(token), &initialize()).unwrap()
}

#[test]
fn sessions_are_capped_per_tenant_and_in_all_and_answer_only_their_token() {
    let fixture = Fixture::new("sessions = true\nmax_sessions = 4");
    let server = Server::start(&fixture.config(), &[]);
    let opened: Vec<String> = (0..2)
        .map(|_| {
            let answer = open_session(&server.address, ALPHA);
            assert_eq!(answer.status, 200);
            answer.header("mcp-session-id").unwrap().to_owned()
        })
        .collect();
    // Alpha holds its half; a third is refused, and beta still opens its own.
    let refused = open_session(&server.address, ALPHA);
    assert_eq!(refused.status, 503);
    assert!(refused.header("retry-after").is_some());
    assert_eq!(open_session(&server.address, BETA).status, 200);
    // Another tenant's token cannot use alpha's session: as if it did not exist.
    let ping = call(5, "ping", json!({}));
    let stolen = in_session(&server.address, BETA, &opened[0], "POST", &ping);
    assert_eq!(stolen.status, 404);
    // Closing one is answered as the SDKs expect, and gives its place back.
    let closed = in_session(&server.address, ALPHA, &opened[0], "DELETE", &json!({}));
    assert_eq!(closed.status, 200);
    assert_eq!(open_session(&server.address, ALPHA).status, 200);
}

#[test]
fn idle_sessions_are_closed_and_give_their_place_back() {
    let fixture = Fixture::new("sessions = true\nmax_sessions = 2\nsession_idle_seconds = 1");
    let server = Server::start(&fixture.config(), &[]);
    let first = open_session(&server.address, ALPHA);
    assert_eq!(first.status, 200);
    assert_eq!(open_session(&server.address, ALPHA).status, 503);
    // Once the first session has been idle for a second it is closed: a new one opens.
    let deadline = Instant::now() + GUARD;
    while open_session(&server.address, ALPHA).status != 200 {
        assert!(
            Instant::now() < deadline,
            "the idle session was never closed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn probes_answer_while_the_main_listener_is_flooded_and_idle_connections_make_room() {
    let fixture = Fixture::new("max_connections = 16\nfirst_byte_timeout_seconds = 600");
    let server = Server::start(&fixture.config(), &[]);
    let admin = server.admin.clone().unwrap();
    let idle: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(&server.address).unwrap())
        .collect();
    // The admin listener is not the main one: answered at once.
    let health = get(&admin, "/healthz");
    assert_eq!(health.status, 200);
    assert_eq!(get(&admin, "/readyz").status, 200);
    // On the main listener, the connections idle the longest are closed to make room.
    let answer = mcp(&server.address, Some(BETA), &initialize()).unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(get(&server.address, "/healthz").status, 200);
    assert!(
        read_all(&idle[0]).is_empty(),
        "the oldest idle connection was closed without an answer"
    );
    // `/metrics` names tenants: never on the main listener.
    assert_eq!(get(&server.address, "/metrics").status, 404);
    let closed = metric(
        &server,
        "skillbook_connections_closed_total{reason=\"idle_at_cap\"}",
    )
    .unwrap();
    assert!(closed >= 1.0, "{closed}");
}

#[test]
fn a_connection_that_sends_nothing_is_closed() {
    let fixture = Fixture::new("first_byte_timeout_seconds = 1");
    let server = Server::start(&fixture.config(), &[]);
    let silent = TcpStream::connect(&server.address).unwrap();
    assert!(read_all(&silent).is_empty());
    let closed = metric(
        &server,
        "skillbook_connections_closed_total{reason=\"first_byte_timeout\"}",
    )
    .unwrap();
    assert_eq!(closed, 1.0);
}

#[test]
fn metrics_count_requests_and_refusals_by_tenant_name_never_by_token() {
    let fixture = Fixture::new("");
    let server = Server::start(&fixture.config(), &[]);
    assert_eq!(
        mcp(&server.address, Some(ALPHA), &initialize())
            .unwrap()
            .status,
        200
    );
    assert_eq!(
        mcp(&server.address, Some("sbk_wrong"), &initialize())
            .unwrap()
            .status,
        401
    );
    let admin = server.admin.as_deref().unwrap();
    let text = String::from_utf8(get(admin, "/metrics").body).unwrap();
    assert!(
        text.contains("skillbook_requests_total{tenant=\"alpha\",status=\"200\"} 1"),
        "{text}"
    );
    assert!(text.contains("skillbook_refusals_total{tenant=\"\",reason=\"unauthorized\"} 1"));
    assert!(text.contains("skillbook_request_duration_seconds_count{tenant=\"alpha\"} 1"));
    assert!(!text.contains(ALPHA) && !text.contains("sbk_wrong"));
    // One access-log line per request, naming the tenant, the methods, status and size.
    let deadline = Instant::now() + GUARD;
    while !server.stderr().contains("status=401") {
        assert!(Instant::now() < deadline, "{}", server.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = server.stderr();
    let line = log
        .lines()
        .find(|line| line.contains("skillbook::access") && line.contains("tenant=alpha"))
        .unwrap();
    for field in [
        "method=POST",
        "call=\"initialize\"",
        "status=200",
        "bytes=",
        "ms=",
    ] {
        assert!(line.contains(field), "{field}: {line}");
    }
}

#[test]
fn a_method_with_control_characters_cannot_forge_a_log_line() {
    let fixture = Fixture::new("");
    let server = Server::start(&fixture.config(), &[]);
    let long = "y".repeat(10_000);
    let forged = json!({"jsonrpc": "2.0", "id": 1, "method": format!("x\n ERROR forged\r\u{1b}[31m status=200 {long}")});
    let _ = mcp(&server.address, Some(ALPHA), &forged).unwrap();
    let deadline = Instant::now() + GUARD;
    while !server.stderr().contains("skillbook::access") {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = server.stderr();
    assert!(
        !log.lines().any(|line| line.starts_with(" ERROR forged")),
        "{log}"
    );
    assert!(!log.contains('\u{1b}') && !log.contains('\r'), "{log:?}");
    assert!(
        log.contains("call=\"x\\n ERROR forged\\r\\u{1b}[31m status=200 yyy"),
        "{log}"
    );
    assert!(!log.contains(&"y".repeat(100)), "a method is logged whole");
}

/// Rewrites the fixture's configuration with `tokens` for alpha and `extra` tenants, and sends
/// the server SIGHUP.
fn reconfigure(fixture: &Fixture, server: &Server, alpha_tokens: &[&str], extra: &str) {
    let tokens: Vec<String> = alpha_tokens
        .iter()
        .map(|token| format!("\"{}\"", TokenDigest::of(token)))
        .collect();
    fixture.write(
        "skillbook.toml",
        &format!(
            "[server]\nsessions = true\n\n\
             [[tenant]]\nname = \"alpha\"\nsources = [\"alpha\"]\ntokens = [{}]\n\n\
             [[tenant]]\nname = \"beta\"\nsources = [\"beta\", \"beta.zip\"]\ntokens = [\"{}\"]\n{extra}",
            tokens.join(", "),
            TokenDigest::of(BETA)
        ),
    );
    let status = Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn sighup_rotates_tokens_adds_tenants_and_ends_the_sessions_of_removed_tokens() {
    const ROTATED: &str = "sbk_alpha-rotated";
    const GAMMA: &str = "sbk_gamma";
    let fixture = Fixture::new("sessions = true");
    fixture.write(
        "gamma/notes/SKILL.md",
        "---\nname: notes\ndescription: Take notes.\n---\nNotes.\n",
    );
    let server = Server::start(&fixture.config(), &[]);
    let session = open_session(&server.address, ALPHA);
    let session = session.header("mcp-session-id").unwrap().to_owned();
    // A request in flight across the reload: its body is not finished yet.
    let ping = initialize().to_string();
    let mut in_flight = partial_post(&server.address, ALPHA, ping.len(), &ping.as_bytes()[..1]);
    reconfigure(
        &fixture,
        &server,
        &[ROTATED],
        &format!(
            "\n[[tenant]]\nname = \"gamma\"\nsources = [\"gamma\"]\ntokens = [\"{}\"]\n",
            TokenDigest::of(GAMMA)
        ),
    );
    let deadline = Instant::now() + GUARD;
    while open_session(&server.address, GAMMA).status != 200 {
        assert!(Instant::now() < deadline, "{}", server.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(open_session(&server.address, ALPHA).status, 401);
    assert_eq!(open_session(&server.address, ROTATED).status, 200);
    // The session the removed token opened has ended.
    let ended = in_session(
        &server.address,
        ROTATED,
        &session,
        "POST",
        &call(4, "ping", json!({})),
    );
    assert_eq!(ended.status, 404);
    // The request in flight is answered, with the tenant it started with.
    in_flight.write_all(&ping.as_bytes()[1..]).unwrap();
    let answer = read_all(&in_flight);
    assert_eq!(
        status_of(&answer),
        Some(200),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    // A broken configuration keeps the one served.
    fixture.write("skillbook.toml", "[[tenant]\n");
    let status = Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + GUARD;
    while !server.stderr().contains("keeping the configuration served") {
        assert!(Instant::now() < deadline, "{}", server.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(open_session(&server.address, GAMMA).status, 200);
}

/// `skillbook serve --check-config` on `config`, which must end (within the guard).
fn check_config(config: &std::path::Path) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillbook"))
        .args(["serve", "--check-config", "--config"])
        .arg(config)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + GUARD;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("--check-config on {} hangs", config.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_fifo_a_device_or_a_huge_file_is_refused_as_a_configuration_without_hanging() {
    let fixture = Fixture::new("");
    let fifo = fixture.path().join("fifo.toml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let huge = fixture.path().join("huge.toml");
    std::fs::write(&huge, format!("# {}\n", "x".repeat(2 << 20))).unwrap();
    for (config, expected) in [
        (fifo.as_path(), "not a regular file"),
        (std::path::Path::new("/dev/zero"), "not a regular file"),
        (huge.as_path(), "larger than 1024 KiB"),
    ] {
        let output = check_config(config);
        assert_eq!(output.status.code(), Some(1), "{}", config.display());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{}: {stderr}", config.display());
    }
}

#[test]
fn a_secret_on_a_broken_configuration_line_is_never_printed() {
    let fixture = Fixture::new("");
    let secret = "sbk_5ecret-never-printed";
    for text in [
        format!("[[tenant]]\nname = \"a\"\ntokens = [{secret}]\n"),
        format!("[[tenant]]\nname = \"a\"\ntokens = \"{secret}\"\n"),
        format!(
            "[[tenant]]\nname = \"a\"\nanonymous = true\n[tenant.store_options]\n\
             aws_secret_access_key = \"{secret}\n"
        ),
        format!("[[tenant]]\nname = \"a\"\nanonymous = true\nsecret = \"{secret}\"\n"),
    ] {
        fixture.write("broken.toml", &text);
        let output = check_config(&fixture.path().join("broken.toml"));
        assert_eq!(output.status.code(), Some(1), "{text}");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!printed.contains("5ecret"), "{text}: {printed}");
        assert!(printed.contains("broken.toml: line "), "{text}: {printed}");
    }
}

/// What tenant B's well-behaved clients saw in one run.
struct Seen {
    latencies: Vec<Duration>,
    failures: usize,
    /// What the first few failures were.
    reasons: Vec<String>,
}

impl Seen {
    fn percentile(&self, share: f64) -> f64 {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let at = ((sorted.len() as f64 * share).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted[at].as_secs_f64() * 1000.0
    }
}

/// `clients` threads of tenant B, each asking `skills/list` and then `resources/read` every
/// `period` (a new connection a request, as a simple client does) until `until`; in a session
/// of its own when `sessions`.
fn well_behaved(
    address: &str,
    clients: usize,
    period: Duration,
    until: Instant,
    sessions: bool,
) -> Seen {
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let address = address.to_owned();
            std::thread::spawn(move || {
                let session = sessions.then(|| {
                    let opened = open_session(&address, BETA);
                    let id = opened.header("mcp-session-id").unwrap().to_owned();
                    let initialized =
                        json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                    in_session(&address, BETA, &id, "POST", &initialized);
                    id
                });
                let mut seen = Seen {
                    latencies: Vec::new(),
                    failures: 0,
                    reasons: Vec::new(),
                };
                let steps = [
                    call(2, "skills/list", json!({})),
                    call(3, "resources/read", json!({"uri": "skill://memo/SKILL.md"})),
                ];
                let mut next = Instant::now();
                while Instant::now() < until {
                    for step in &steps {
                        let started = Instant::now();
                        let answer = match &session {
                            Some(id) => Ok(in_session(&address, BETA, id, "POST", step)),
                            None => mcp(&address, Some(BETA), step),
                        };
                        let failure = match answer {
                            Err(error) => Some(error.to_string()),
                            Ok(answer)
                                if answer.status != 200
                                    || !String::from_utf8_lossy(&answer.body)
                                        .contains("\"result\"") =>
                            {
                                Some(format!(
                                    "{}: {}",
                                    answer.status,
                                    String::from_utf8_lossy(&answer.body)
                                ))
                            }
                            Ok(_) => None,
                        };
                        seen.latencies.push(started.elapsed());
                        if let Some(failure) = failure {
                            seen.failures += 1;
                            if seen.reasons.len() < 3 {
                                seen.reasons.push(failure);
                            }
                        }
                    }
                    next += period;
                    std::thread::sleep(next.saturating_duration_since(Instant::now()));
                }
                seen
            })
        })
        .collect();
    let mut all = Seen {
        latencies: Vec::new(),
        failures: 0,
        reasons: Vec::new(),
    };
    for thread in threads {
        let seen = thread.join().unwrap();
        all.latencies.extend(seen.latencies);
        all.failures += seen.failures;
        all.reasons.extend(seen.reasons);
    }
    all
}

/// An attack of tenant A, run by threads until `stop` is set.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Attack {
    None,
    /// 64 connections each sending 1 byte of a 100-byte body, opened again as they close.
    SlowBodies,
    /// 48 connections each asking for the 15 MiB file and reading nothing, opened again as
    /// they close.
    UnreadAnswers,
    /// 3,000 sessions opened as fast as A can, then more as places free.
    Sessions,
    /// 1,100 connections that send nothing, those closed opened again once a second.
    IdleConnections,
}

impl Attack {
    fn name(self) -> &'static str {
        match self {
            Attack::None => "alone",
            Attack::SlowBodies => "64 slow bodies",
            Attack::UnreadAnswers => "48 unread 15 MiB answers",
            Attack::Sessions => "3,000 sessions",
            Attack::IdleConnections => "1,100 idle connections",
        }
    }

    /// Starts the attack on `address`; it runs until `stop` is set.
    fn start(
        self,
        address: &str,
        stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> Vec<std::thread::JoinHandle<()>> {
        use std::sync::atomic::Ordering;
        let (count, work): (usize, fn(&str, &std::sync::atomic::AtomicBool)) = match self {
            Attack::None => (0, |_, _| {}),
            Attack::SlowBodies => (64, |address, stop| {
                while !stop.load(Ordering::Relaxed) {
                    let stream = partial_post(address, ALPHA, 100, b"{");
                    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
                    let mut byte = [0_u8; 1];
                    // Held until the server gives up on it.
                    while !stop.load(Ordering::Relaxed) {
                        match (&stream).read(&mut byte) {
                            Ok(0) => break,
                            Ok(_) => {}
                            Err(error)
                                if error.kind() == std::io::ErrorKind::WouldBlock
                                    || error.kind() == std::io::ErrorKind::TimedOut => {}
                            Err(_) => break,
                        }
                    }
                }
            }),
            Attack::UnreadAnswers => (48, |address, stop| {
                let read =
                    call(2, "resources/read", json!({"uri": "skill://pdf/large.bin"})).to_string();
                while !stop.load(Ordering::Relaxed) {
                    let stream = unread_request(address, &read);
                    // Never read; wait until the server closes it (a write stall).
                    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
                    let mut probe = [0_u8; 1];
                    while !stop.load(Ordering::Relaxed) {
                        match stream.peek(&mut probe) {
                            Ok(0) => break,
                            Ok(_) => std::thread::sleep(Duration::from_millis(200)),
                            Err(error)
                                if error.kind() == std::io::ErrorKind::WouldBlock
                                    || error.kind() == std::io::ErrorKind::TimedOut => {}
                            Err(_) => break,
                        }
                    }
                }
            }),
            Attack::Sessions => (8, |address, stop| {
                let mut opened = 0;
                while !stop.load(Ordering::Relaxed) {
                    let _ = mcp(address, Some(ALPHA), &initialize());
                    opened += 1;
                    if opened >= 3000 / 8 {
                        // The burst is over: keep asking, as places free.
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }),
            Attack::IdleConnections => (11, |address, stop| {
                // 100 a thread, those the server closed opened again once a second: at most
                // 1,100 new connections a second.
                let mut held: Vec<TcpStream> = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    held.retain(nothing_received);
                    while held.len() < 100 {
                        match TcpStream::connect(address) {
                            Ok(stream) => held.push(stream),
                            Err(_) => break,
                        }
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
            }),
        };
        (0..count)
            .map(|_| {
                let (address, stop) = (address.to_owned(), std::sync::Arc::clone(stop));
                std::thread::spawn(move || work(&address, &stop))
            })
            .collect()
    }
}

/// Tenant B's latency alone and under each attack of tenant A, against deliberately small
/// budgets: `scripts/bench-serve-hostile.sh` runs it on the release build and prints the table
/// BENCHMARKS.md records.
#[test]
#[ignore = "a benchmark: run by scripts/bench-serve-hostile.sh"]
fn hostile_benchmark() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let seconds: u64 =
        std::env::var("SKILLBOOK_HOSTILE_SECONDS").map_or(10, |value| value.parse().unwrap());
    let clients = 16;
    let period = Duration::from_millis(50);
    // 32 MiB of answers in all (16 a tenant), 4 MiB of bodies, 8 answer slots, 256 connections
    // and sessions.
    let limits = "max_answers = 8\nanswer_bytes = 33554432\nbody_bytes = 4194304\n\
                  max_connections = 256\nmax_sessions = 256\n";
    let budgets_mib = 32 + 4;
    println!(
        "| Tenant A's attack | mode | B requests | B failed | B p50 ms | B p99 ms | p99 vs alone | server CPU | server peak RSS |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut alone = std::collections::HashMap::new();
    for (attack, sessions) in [
        (Attack::None, false),
        (Attack::SlowBodies, false),
        (Attack::UnreadAnswers, false),
        (Attack::IdleConnections, false),
        (Attack::None, true),
        (Attack::Sessions, true),
    ] {
        let only = std::env::var("SKILLBOOK_HOSTILE_ONLY").unwrap_or_default();
        if !only.is_empty() && attack != Attack::None && !attack.name().contains(&only) {
            continue;
        }
        // B asks as often as it likes; A keeps the default request rate.
        let fixture = Fixture::new("");
        fixture.write(
            "skillbook.toml",
            &format!(
                "[server]\n{limits}sessions = {sessions}\n\n\
                 [[tenant]]\nname = \"alpha\"\nsources = [\"alpha\"]\ntokens = [\"{}\"]\n\n\
                 [[tenant]]\nname = \"beta\"\nsources = [\"beta\"]\ntokens = [\"{}\"]\n\
                 [tenant.limits]\nrate = 0\n",
                TokenDigest::of(ALPHA),
                TokenDigest::of(BETA)
            ),
        );
        write_large_file(&fixture);
        let server = Server::start(&fixture.config(), &[]);
        let stop = Arc::new(AtomicBool::new(false));
        let attackers = attack.start(&server.address, &stop);
        // The attack settles before B is measured.
        std::thread::sleep(Duration::from_secs(2));
        let until = Instant::now() + Duration::from_secs(seconds);
        let cpu_before = cpu_time(server.child.id());
        let seen = well_behaved(&server.address, clients, period, until, sessions);
        let cpu = (cpu_time(server.child.id()) - cpu_before).as_secs_f64() / seconds as f64;
        let rss_mib = peak_rss(server.child.id()) >> 20;
        stop.store(true, Ordering::Relaxed);
        for attacker in attackers {
            let _ = attacker.join();
        }
        let p99 = seen.percentile(0.99);
        if attack == Attack::None {
            alone.insert(sessions, p99);
        }
        let ratio = p99 / alone[&sessions];
        println!(
            "| {} | {} | {} | {} | {:.1} | {:.1} | {ratio:.2}× | {:.0} % | {rss_mib} MiB (budgets {budgets_mib} MiB + 64) |",
            attack.name(),
            if sessions { "sessions" } else { "stateless" },
            seen.latencies.len(),
            seen.failures,
            seen.percentile(0.5),
            p99,
            cpu * 100.0
        );
        assert_eq!(
            seen.failures,
            0,
            "{}: {:?}\n{}",
            attack.name(),
            seen.reasons,
            server
                .stderr()
                .lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn the_admin_listener_can_be_moved_or_turned_off() {
    let fixture = Fixture::new("admin_listen = \"none\"");
    let server = Server::start(&fixture.config(), &[]);
    assert_eq!(server.admin, None);
    // The command line wins over the file.
    let server = Server::start(&fixture.config(), &["--admin-listen", "127.0.0.1:0"]);
    let admin = server.admin.clone().expect("an admin listener");
    assert_eq!(get(&admin, "/healthz").status, 200);
    assert_eq!(get(&admin, "/mcp").status, 404, "MCP is not served there");
}

#[test]
fn an_unread_answer_is_cut_off_at_the_request_deadline_even_when_nothing_is_written() {
    // Writes never stall long enough to be cut off for that: only the deadline ends it.
    let fixture = Fixture::new("request_timeout_seconds = 3\nwrite_stall_seconds = 600");
    write_large_file(&fixture);
    let server = Server::start(&fixture.config(), &[]);
    let read = call(2, "resources/read", json!({"uri": "skill://pdf/large.bin"})).to_string();
    let unread = unread_request(&server.address, &read);
    let held = |server: &Server| {
        metric(
            server,
            "skillbook_answer_budget_bytes_held{tenant=\"alpha\"}",
        )
        .unwrap_or(0.0)
    };
    let deadline = Instant::now() + GUARD;
    while held(&server) < 1.0 {
        assert!(Instant::now() < deadline, "the answer was never in flight");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Never read: the deadline closes the connection, and the answer's share comes back.
    while held(&server) > 0.0 {
        assert!(
            Instant::now() < deadline,
            "the unread answer is held past its deadline"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(unread);
}

#[test]
fn requests_waiting_for_a_slot_do_not_hold_the_connections() {
    // One slot for alpha, four connections in all.
    let fixture = Fixture::new(
        "max_answers = 2\nmax_connections = 4\nwrite_stall_seconds = 600\n\
         request_timeout_seconds = 600\nfirst_byte_timeout_seconds = 600",
    );
    write_large_file(&fixture);
    let server = Server::start(&fixture.config(), &[]);
    let read = call(2, "resources/read", json!({"uri": "skill://pdf/large.bin"})).to_string();
    // The slot is held by an answer nobody reads; the others wait for it.
    let waiting: Vec<TcpStream> = (0..6)
        .map(|_| unread_request(&server.address, &read))
        .collect();
    let answer = mcp(&server.address, Some(BETA), &initialize()).unwrap();
    assert_eq!(answer.status, 200);
    drop(waiting);
}

#[test]
fn event_streams_are_capped_per_tenant() {
    let fixture = Fixture::new("sessions = true\nmax_streams = 2");
    let server = Server::start(&fixture.config(), &[]);
    let opened = open_session(&server.address, ALPHA);
    let id = opened.header("mcp-session-id").unwrap().to_owned();
    let stream = |token: &str, id: &str| {
        let mut stream = TcpStream::connect(&server.address).unwrap();
        let head = format!(
            "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\
             MCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: {id}\r\n\
             Authorization: Bearer {token}\r\n\r\n",
            server.address
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.set_read_timeout(Some(GUARD)).unwrap();
        let mut first = [0_u8; 12];
        stream.read_exact(&mut first).unwrap();
        (stream, String::from_utf8_lossy(&first).into_owned())
    };
    let (_open, head) = stream(ALPHA, &id);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let (_refused, head) = stream(ALPHA, &id);
    assert!(head.starts_with("HTTP/1.1 503"), "{head}");
    // Beta's share is its own.
    let beta = open_session(&server.address, BETA);
    let beta = beta.header("mcp-session-id").unwrap().to_owned();
    let (_beta, head) = stream(BETA, &beta);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
}

#[test]
fn a_body_larger_than_a_tenants_body_share_is_read_not_left_waiting_on_itself() {
    // Alpha may hold 64 KiB of bodies; a body of 200 KiB takes all of it and is read.
    let fixture = Fixture::new("[server.per_tenant]\nbody_bytes = 65536");
    let server = Server::start(&fixture.config(), &[]);
    let padding = "p".repeat(200 * 1024);
    let big = call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": padding, "version": "1"}}),
    );
    let answer = mcp(&server.address, Some(ALPHA), &big).unwrap();
    assert_eq!(
        answer.status,
        200,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );
}
