//! `skillbook serve` from start to stop: health and readiness probes, requests in flight
//! finished after SIGTERM and new ones served for the drain time, event streams ended at
//! shutdown, and logs as JSON lines.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/serving.rs"]
mod serving;
#[path = "support/sessions.rs"]
mod sessions;

use serving::{ALPHA, Fixture, Server, call, initialize, mcp, request};
use sessions::{event_stream, open_session};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[test]
fn sigterm_lets_requests_in_flight_finish_then_exits() {
    // Eight clients send as fast as they can: built with optimizations they pass the tenant's
    // default rate within the half second, and 429 answers are not what this test is about.
    let fixture = Fixture::new("[server.per_tenant]\nrate = 0");
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
