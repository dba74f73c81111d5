//! Raw connections to a `skillbook serve` for the tests of hostile clients: bodies sent in part,
//! answers read to the end or not at all, the admin listener's metrics, and a hang guard.
#![allow(dead_code, reason = "each test file uses a part of it")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::serving::{Answer, Server, initialize, mcp, request};

/// How long any single step may take before the test calls it a hang.
pub const GUARD: Duration = Duration::from_secs(30);

/// A connection to `address` that has sent the head of a `POST /mcp` with `token`, declaring
/// `length` bytes of body, and `sent` of them.
pub fn partial_post(address: &str, token: &str, length: usize, sent: &[u8]) -> TcpStream {
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

/// What `stream` receives until the server closes it (within the guard).
pub fn read_all(mut stream: &TcpStream) -> Vec<u8> {
    stream.set_read_timeout(Some(GUARD)).unwrap();
    let mut received = Vec::new();
    let _ = stream.read_to_end(&mut received);
    received
}

/// The HTTP status of a raw answer.
pub fn status_of(raw: &[u8]) -> Option<u16> {
    String::from_utf8_lossy(raw)
        .lines()
        .next()?
        .split(' ')
        .nth(1)?
        .parse()
        .ok()
}

/// A `GET` of `path` on `address` (no token), with the guard as its read timeout.
pub fn get(address: &str, path: &str) -> Answer {
    request(address, "GET", path, &[], b"").unwrap()
}

/// The value of the metric line `name{labels}` in `/metrics` of the admin listener.
pub fn metric(server: &Server, line: &str) -> Option<f64> {
    let admin = server.admin.as_deref().expect("an admin listener");
    let answer = get(admin, "/metrics");
    assert_eq!(answer.status, 200);
    String::from_utf8(answer.body)
        .unwrap()
        .lines()
        .find_map(|text| text.strip_prefix(line)?.trim().parse().ok())
}

/// Opens a session with `token`: the answer (its `Mcp-Session-Id`, when one was made).
pub fn open_session(address: &str, token: &str) -> Answer {
    mcp(address, Some(token), &initialize()).unwrap()
}
