//! `skillbook serve`'s sessions and what a server announces: a change on disk announced in a
//! session and served, and an anonymous tenant, whose server has no sessions, announcing no
//! change.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/serving.rs"]
mod serving;
#[path = "support/sessions.rs"]
mod sessions;

use serving::{ALPHA, BETA, Fixture, Server, call, initialize, mcp};
use sessions::{announced, event_stream, in_session, open_session};
use std::time::Duration;

use serde_json::{Value, json};
use skillbook_mcp::http::TokenDigest;

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
