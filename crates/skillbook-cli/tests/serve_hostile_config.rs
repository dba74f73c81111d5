//! `skillbook serve` under hostile clients (SPEC §13.1), the configuration: SIGHUP rotating
//! tokens while requests are in flight, configuration files that are not files or too large,
//! and secrets on a broken line never printed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/hostile.rs"]
mod hostile;
#[path = "support/serving.rs"]
mod serving;

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use hostile::{GUARD, open_session, partial_post, read_all, status_of};
use serde_json::json;
use serving::{ALPHA, BETA, Fixture, Server, call, in_session, initialize};
use skillbook_mcp::http::TokenDigest;

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
