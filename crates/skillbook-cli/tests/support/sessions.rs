//! Sessions of tenant `alpha` on a `skillbook serve`, for the tests that open one: opening it,
//! sending in it, and its event stream.
#![allow(dead_code, reason = "each test file uses a part of it")]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serving::{self, ALPHA, Answer, initialize, mcp};

/// Opens the `GET` event stream of `session` and returns the data lines it carries, as they
/// come, through a channel.
pub fn event_stream(address: &str, session: &str) -> mpsc::Receiver<String> {
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
pub fn announced(events: &mpsc::Receiver<String>) -> bool {
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
pub fn open_session(address: &str) -> String {
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
pub fn in_session(address: &str, session: &str, message: &Value) -> Answer {
    serving::in_session(address, ALPHA, session, "POST", message)
}
