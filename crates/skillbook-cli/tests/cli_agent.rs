//! `skillbook agent`: a whole conversation against a scripted model server on loopback, for both
//! APIs (the model searches, reads a skill, reads a file the skill names, and answers), the
//! stored run resumed, and the errors a user meets.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "../../skillbook-agent/tests/support/model_server.rs"]
mod model_server;
#[path = "support/workspace.rs"]
mod workspace;

use assert_cmd::Command;
use model_server::{
    ModelServer, Reply, anthropic_answer, anthropic_call, openai_answer, openai_call,
};
use serde_json::{Value, json};
use workspace::{Fixture, stderr, stdout};

/// A workspace with a `pdf` skill whose SKILL.md names `forms.md`.
fn fixture() -> Fixture {
    let fixture = Fixture::new();
    let folder = fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill in PDF forms.\n---\nRead forms.md for the field rules.\n",
    );
    std::fs::write(
        folder.parent().unwrap().join("forms.md"),
        "Every date field takes YYYY-MM-DD.\n",
    )
    .unwrap();
    fixture
}

/// `skillbook agent` with the model API's variables pointing at `server` (and no others).
fn agent(fixture: &Fixture, server: &ModelServer, args: &[&str]) -> Command {
    let mut command = fixture.command();
    for name in ["OPENAI", "ANTHROPIC"] {
        for variable in ["BASE_URL", "API_KEY", "MODEL"] {
            command.env_remove(format!("{name}_{variable}"));
        }
    }
    command
        .env("OPENAI_BASE_URL", format!("{}/v1", server.base_url))
        .env("ANTHROPIC_BASE_URL", &server.base_url)
        .env("OPENAI_API_KEY", "sk-test")
        .env("ANTHROPIC_API_KEY", "ak-test")
        .args(["agent", "--budget", "10"])
        .args(args);
    command
}

fn conversation(call: fn(&str, &str, Value) -> Value, answer: fn(&str) -> Value) -> Vec<Reply> {
    vec![
        Reply::ok(call("c1", "search_skills", json!({"query": "pdf form"}))),
        Reply::ok(call(
            "c2",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::ok(call(
            "c3",
            "read_file",
            json!({"path": "skill://pdf/forms.md"}),
        )),
        Reply::ok(answer("Dates go in as YYYY-MM-DD.")),
    ]
}

#[test]
fn agent_runs_a_whole_conversation_with_either_api() {
    for (provider, call, answer) in [
        (
            "openai",
            openai_call as fn(&str, &str, Value) -> Value,
            openai_answer as fn(&str) -> Value,
        ),
        ("anthropic", anthropic_call, anthropic_answer),
    ] {
        let fixture = fixture();
        let server = ModelServer::start(conversation(call, answer));
        let output = agent(
            &fixture,
            &server,
            &["--provider", provider, "Fill in my form."],
        )
        .output()
        .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let transcript = stdout(&output);
        for line in [
            "--- user\nFill in my form.",
            "--- model calls search_skills {\"query\":\"pdf form\"}",
            "--- tool result (skill content: pdf)",
            "Every date field takes YYYY-MM-DD.",
            "--- model answers\nDates go in as YYYY-MM-DD.",
        ] {
            assert!(
                transcript.contains(line),
                "{provider}: {line}\n{transcript}"
            );
        }
        let bodies = server.bodies();
        assert_eq!(bodies.len(), 4, "{provider}");
        assert_eq!(
            bodies[0]["model"],
            if provider == "openai" {
                "gpt-4.1-mini"
            } else {
                "claude-sonnet-4-5"
            }
        );
    }
}

#[test]
fn agent_prints_the_run_as_json_and_resumes_it() {
    let fixture = fixture();
    let server = ModelServer::start(vec![
        Reply::ok(openai_call(
            "c1",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::ok(openai_answer("Second answer.")),
    ]);
    let output = agent(
        &fixture,
        &server,
        &[
            "--format",
            "json",
            "--max-turns",
            "1",
            "--model",
            "m1",
            "First task.",
        ],
    )
    .output()
    .unwrap();
    // The turn limit is a failure with a note; the run is still printed whole.
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("stopped after 1 turns without an answer"));
    let stored: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (stored["stop"].as_str(), stored["model"].as_str()),
        (Some("turn_limit"), Some("m1"))
    );
    assert!(
        stored["record"]["system_prompt"]
            .as_str()
            .unwrap()
            .contains("search_skills")
    );
    let file = fixture.root().join("run.json");
    std::fs::write(&file, &output.stdout).unwrap();
    let output = agent(
        &fixture,
        &server,
        &["--format", "json", "--resume", file.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let finished: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(finished["answer"], "Second answer.");
    let bodies = server.bodies();
    assert_eq!(bodies[1]["model"], "m1");
    assert_eq!(bodies[1]["messages"][1]["content"], "First task.");
}

#[test]
fn agent_errors_say_what_happened_and_never_show_the_key() {
    let fixture = fixture();
    let server = ModelServer::start(vec![Reply::status(
        401,
        json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}),
    )]);
    let output = agent(&fixture, &server, &["Hello."]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let shown = stderr(&output);
    assert!(
        shown.contains("answered 401: Incorrect API key provided"),
        "{shown}"
    );
    assert!(!shown.contains("sk-test"), "{shown}");
    // No key for the public API: refused before anything is sent.
    let output = agent(&fixture, &server, &["Hello."])
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("OPENAI_API_KEY is not set"),
        "{}",
        stderr(&output)
    );
    // A stored run that is not one.
    let file = fixture.root().join("not-a-run.json");
    std::fs::write(&file, "{}").unwrap();
    let output = agent(&fixture, &server, &["--resume", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("is not a run that `skillbook agent --format json` printed"));
    assert_eq!(server.bodies().len(), 1);
}

#[test]
fn agent_prints_the_turns_taken_when_a_run_fails_midway() {
    let fixture = fixture();
    let server = ModelServer::start(vec![
        Reply::ok(openai_call(
            "c1",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::status(400, json!({"error": {"message": "Context too long"}})),
    ]);
    let output = agent(&fixture, &server, &["--format", "json", "Fill in my form."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    // One error document that is also the run so far.
    let partial: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(partial["error"], "model_api");
    let message = partial["message"].as_str().unwrap();
    assert!(message.contains("stopped after 1 turns") && message.contains("Context too long"));
    assert_eq!(partial["turns"], 1);
    assert_eq!(partial["messages"].as_array().unwrap().len(), 3);
    // Text: the error says how to keep the turns.
    let server = ModelServer::start(vec![
        Reply::ok(openai_call(
            "c1",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::status(400, json!({"error": {"message": "Context too long"}})),
    ]);
    let output = agent(&fixture, &server, &["Fill in my form."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("with --format json the conversation so far is printed"));
}
