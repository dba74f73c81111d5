//! `skillbook serve --check-config` (the tenants it would serve, or what is wrong with the file)
//! and `skillbook token`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/command.rs"]
mod command;
#[path = "support/serving.rs"]
mod serving;

use command::{check_config_json, skillbook};
use serving::{ALPHA, Fixture};

use serde_json::{Value, json};
use skillbook_mcp::http::TokenDigest;

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
