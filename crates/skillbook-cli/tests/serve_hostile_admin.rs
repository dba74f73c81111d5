//! `skillbook serve` under hostile clients (SPEC §13.1), what operators see: the admin listener,
//! moved or turned off; metrics by tenant name, never by token; and an access log no method can
//! forge a line of.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/hostile.rs"]
mod hostile;
#[path = "support/serving.rs"]
mod serving;

use std::time::{Duration, Instant};

use hostile::{GUARD, get};
use serde_json::json;
use serving::{ALPHA, Fixture, Server, initialize, mcp};

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
