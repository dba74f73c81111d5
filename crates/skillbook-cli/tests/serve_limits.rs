//! `skillbook serve`'s limits on requests and answers: a body over the limit, refusals that
//! close the connection, and clients that never read their answers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/serving.rs"]
mod serving;

use serving::{ALPHA, Fixture, Server, call, initialize, mcp, unread_request};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::json;

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
