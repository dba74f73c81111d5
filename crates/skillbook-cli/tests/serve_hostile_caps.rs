//! `skillbook serve` under hostile clients (SPEC §13.1), the caps: a tenant over its request
//! rate, sessions capped per tenant and in all and closed when idle, event streams capped per
//! tenant, and connections that flood the listener or send nothing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/hostile.rs"]
mod hostile;
#[path = "support/serving.rs"]
mod serving;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use hostile::{GUARD, get, metric, open_session, read_all};
use serde_json::json;
use serving::{ALPHA, BETA, Fixture, Server, call, in_session, initialize, mcp};

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
