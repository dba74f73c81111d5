//! The loop against a scripted model server on loopback, for both APIs: the model searches,
//! reads a skill, reads a file the skill names, and answers; a busy server is tried again; an
//! API error shows the provider's message.

#![allow(
    clippy::disallowed_methods,
    reason = "tests write the skills they read"
)]
#![allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]

use std::fs;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use skillbook::Home;
use skillbook::runtime::{PreparedRun, Resolver, RunRequest, Scope, SkillRuntime};
use skillbook_agent::{Agent, AgentError, Endpoint, Event, ModelApi, Retry, Stop};

mod support;

use support::model_server::{
    ModelServer, Reply, anthropic_answer, anthropic_call, openai_answer, openai_call,
};

/// A workspace with a `pdf` skill whose SKILL.md names `forms.md`, and a second skill.
fn workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    let pdf = workspace.path().join(".agents/skills/pdf");
    fs::create_dir_all(&pdf).unwrap();
    fs::write(
        pdf.join("SKILL.md"),
        "---\nname: pdf\ndescription: Fill in PDF forms. Use when the user has a PDF form.\n---\n\
         # PDF forms\n\nRead forms.md for the field rules.\n",
    )
    .unwrap();
    fs::write(pdf.join("forms.md"), "Every date field takes YYYY-MM-DD.\n").unwrap();
    let other = workspace.path().join(".agents/skills/haiku");
    fs::create_dir_all(&other).unwrap();
    fs::write(
        other.join("SKILL.md"),
        "---\nname: haiku\ndescription: Answer in a haiku.\n---\n5-7-5.\n",
    )
    .unwrap();
    workspace
}

/// A run whose catalog is too small to list the skills, so the model searches first.
fn prepared(workspace: &Path) -> PreparedRun {
    let scope = Scope::workspace(workspace).with_home(Home::Off);
    SkillRuntime::new(Resolver::fixed(scope))
        .catalog_budget(10)
        .prepare(RunRequest::new("You are a helpful assistant."))
        .unwrap()
}

fn quick() -> Retry {
    Retry::new(3, Duration::from_millis(10))
}

/// The text of the tool result the model got last, in either API's shape.
fn last_result(body: &Value) -> String {
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    match last["content"].as_array() {
        Some(blocks) => blocks[0]["content"].as_str().unwrap().to_owned(),
        None => last["content"].as_str().unwrap().to_owned(),
    }
}

/// Checks what the model read at each turn of the search → read → read → answer conversation.
fn check_conversation(bodies: &[Value]) {
    assert_eq!(bodies.len(), 4, "{bodies:#?}");
    assert!(last_result(&bodies[1]).contains("\"name\":\"pdf\""));
    assert!(last_result(&bodies[2]).contains("Read forms.md for the field rules."));
    assert!(last_result(&bodies[3]).contains("Every date field takes YYYY-MM-DD."));
}

#[test]
fn an_openai_model_searches_reads_a_skill_and_its_file_and_answers() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    assert_eq!(run.search_name(), Some("search_skills"));
    let server = ModelServer::start(vec![
        Reply::ok(openai_call(
            "call_1",
            "search_skills",
            json!({"query": "fill a pdf form"}),
        )),
        Reply::ok(openai_call(
            "call_2",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::ok(openai_call(
            "call_3",
            "read_file",
            json!({"path": "skill://pdf/forms.md"}),
        )),
        Reply::ok(openai_answer("Dates go in as YYYY-MM-DD.")),
    ]);
    let endpoint = Endpoint::openai("scripted")
        .base_url(format!("{}/v1/", server.base_url))
        .api_key("sk-test");
    let mut events = Vec::new();
    let finished = Agent::new(endpoint)
        .retry(quick())
        .run(&run, "Fill in my tax form PDF.", |event| {
            events.push(format!("{event:?}"))
        })
        .unwrap();
    assert_eq!(
        finished.answer.as_deref(),
        Some("Dates go in as YYYY-MM-DD.")
    );
    assert_eq!((finished.turns, finished.stop), (4, Stop::Answered));
    assert_eq!(events.len(), 7, "{events:#?}");
    let bodies = server.bodies();
    check_conversation(&bodies);
    // The system prompt carries the catalog; the tools are the run's; the key is a bearer.
    assert_eq!(bodies[0]["messages"][0]["role"], "system");
    assert!(
        bodies[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("search_skills")
    );
    assert_eq!(bodies[0]["tools"].as_array().unwrap().len(), 2);
    let received = server.received.lock().unwrap();
    assert_eq!(received[0].path, "/v1/chat/completions");
    assert_eq!(received[0].header("authorization"), Some("Bearer sk-test"));
}

#[test]
fn an_anthropic_model_searches_reads_a_skill_and_its_file_and_answers() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let server = ModelServer::start(vec![
        Reply::ok(anthropic_call(
            "toolu_1",
            "search_skills",
            json!({"query": "fill a pdf form"}),
        )),
        Reply::ok(anthropic_call(
            "toolu_2",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::ok(anthropic_call(
            "toolu_3",
            "read_file",
            json!({"path": "skill://pdf/forms.md"}),
        )),
        Reply::ok(anthropic_answer("Dates go in as YYYY-MM-DD.")),
    ]);
    let endpoint = Endpoint::anthropic("scripted")
        .base_url(&server.base_url)
        .api_key("ak-test");
    let finished = Agent::new(endpoint)
        .retry(quick())
        .run(&run, "Fill in my tax form PDF.", |_| {})
        .unwrap();
    assert_eq!(
        finished.answer.as_deref(),
        Some("Dates go in as YYYY-MM-DD.")
    );
    assert_eq!(finished.api, ModelApi::Anthropic);
    let bodies = server.bodies();
    check_conversation(&bodies);
    assert!(
        bodies[0]["system"]
            .as_str()
            .unwrap()
            .contains("search_skills")
    );
    assert_eq!(bodies[0]["tools"][0]["name"], "read_file");
    assert!(bodies[0]["tools"][0]["input_schema"].is_object());
    let received = server.received.lock().unwrap();
    assert_eq!(received[0].path, "/v1/messages");
    assert_eq!(received[0].header("x-api-key"), Some("ak-test"));
    assert!(received[0].header("authorization").is_none());
}

#[test]
fn a_busy_server_is_tried_again_and_a_refusal_shows_the_provider_message() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let server = ModelServer::start(vec![
        Reply::status(429, json!({"error": {"message": "Rate limit reached"}}))
            .header("retry-after", "0"),
        Reply::status(503, json!({"error": {"message": "Overloaded"}})),
        Reply::ok(openai_answer("Fine.")),
        Reply::status(
            400,
            json!({"error": {"message": "Invalid model: nope", "type": "invalid_request_error"}}),
        ),
    ]);
    let agent = Agent::new(Endpoint::openai("scripted").base_url(&server.base_url)).retry(quick());
    let mut retries = Vec::new();
    let finished = agent
        .run(&run, "Hello.", |event| {
            if let Event::Retry { status, .. } = event {
                retries.push(*status);
            }
        })
        .unwrap();
    assert_eq!(finished.answer.as_deref(), Some("Fine."));
    assert_eq!(retries, [Some(429), Some(503)]);
    // A 400 is not tried again: its message is the provider's.
    let error = agent.run(&run, "Hello.", |_| {}).unwrap_err();
    assert!(
        matches!(&error, AgentError::Api { status: 400, message, .. } if message == "Invalid model: nope"),
        "{error:?}"
    );
    let shown = error.to_string();
    assert!(
        shown.contains("400") && shown.contains("Invalid model: nope"),
        "{shown}"
    );
    assert_eq!(server.bodies().len(), 4);
}

#[test]
fn retries_run_out_and_an_unreachable_server_is_named() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let server = ModelServer::start(
        (0..3)
            .map(|_| Reply::status(500, json!({"error": {"message": "Boom"}})))
            .collect(),
    );
    let agent = Agent::new(Endpoint::openai("scripted").base_url(&server.base_url)).retry(quick());
    let error = agent.run(&run, "Hello.", |_| {}).unwrap_err();
    assert!(
        matches!(error, AgentError::Api { status: 500, .. }),
        "{error:?}"
    );
    assert_eq!(server.bodies().len(), 3);
    // Nothing listens on a port just freed.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", free.local_addr().unwrap());
    drop(free);
    // No tries asked for is still one.
    let mut once = Retry::new(1, Duration::ZERO);
    once.attempts = 0;
    let error = Agent::new(Endpoint::openai("scripted").base_url(&url))
        .retry(once)
        .run(&run, "Hello.", |_| {})
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("could not reach the model API at http://127.0.0.1:")
    );
}

#[test]
fn a_stored_run_goes_on_and_the_turn_limit_stops_a_model_that_keeps_calling() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let server = ModelServer::start(vec![
        Reply::ok(openai_call(
            "call_1",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::ok(openai_answer("Second answer.")),
    ]);
    let endpoint = Endpoint::openai("scripted").base_url(&server.base_url);
    let stopped = Agent::new(endpoint.clone())
        .max_turns(1)
        .run(&run, "First task.", |_| {})
        .unwrap();
    assert_eq!(
        (stopped.stop, stopped.answer.as_deref()),
        (Stop::TurnLimit, None)
    );
    // Stored as JSON, read back, and continued: the model sees the whole conversation.
    let stored = serde_json::from_str(&serde_json::to_string(&stopped).unwrap()).unwrap();
    let finished = Agent::new(endpoint)
        .resume(&run, stored, None, |_| {})
        .unwrap();
    assert_eq!(finished.answer.as_deref(), Some("Second answer."));
    let bodies = server.bodies();
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages[1]["content"], "First task.");
    assert_eq!(messages.last().unwrap()["role"], "tool");
    // A conversation written for one API is not sent to the other.
    let anthropic = Agent::new(Endpoint::anthropic("scripted").base_url(&server.base_url));
    let error = anthropic
        .resume(&run, finished, Some("More."), |_| {})
        .unwrap_err();
    assert!(matches!(error, AgentError::OtherApi { .. }), "{error:?}");
}

#[test]
fn an_oversized_or_broken_response_is_refused_not_held() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let huge = json!({"choices": [{"message": {"role": "assistant",
                                               "content": "x".repeat(5 << 20)}}]});
    let server = ModelServer::start(vec![Reply::ok(huge), Reply::ok(json!("not a completion"))]);
    let agent = Agent::new(Endpoint::openai("scripted").base_url(&server.base_url)).retry(quick());
    let error = agent.run(&run, "Hello.", |_| {}).unwrap_err();
    assert!(error.to_string().contains("larger than 4 MiB"), "{error}");
    let error = agent.run(&run, "Hello.", |_| {}).unwrap_err();
    assert!(matches!(error, AgentError::Response { .. }), "{error:?}");
}

#[test]
fn a_redirect_is_not_followed_and_the_key_stays_where_it_was_sent() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let elsewhere = ModelServer::start(vec![Reply::ok(anthropic_answer("Caught."))]);
    let server = ModelServer::start(vec![
        Reply::status(302, json!({}))
            .header("location", &format!("{}/v1/messages", elsewhere.base_url)),
    ]);
    let endpoint = Endpoint::anthropic("scripted")
        .base_url(&server.base_url)
        .api_key("ak-secret");
    let error = Agent::new(endpoint)
        .retry(quick())
        .run(&run, "Hello.", |_| {})
        .unwrap_err();
    assert!(
        matches!(error, AgentError::Api { status: 302, .. }),
        "{error:?}"
    );
    assert!(elsewhere.bodies().is_empty());
    // An address's credentials and query never show in a message.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let endpoint = Endpoint::openai("scripted").base_url(format!(
        "http://user:hunter2@127.0.0.1:{port}/v1?key=hunter3"
    ));
    let error = Agent::new(endpoint)
        .retry(Retry::new(1, Duration::ZERO))
        .run(&run, "Hello.", |_| {})
        .unwrap_err()
        .to_string();
    assert!(!error.contains("hunter"), "{error}");
    assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
}

#[test]
fn what_a_server_adds_to_a_turn_is_not_sent_back_and_an_answered_run_needs_a_task() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let mut chatty = openai_call(
        "call_1",
        "read_file",
        json!({"path": "skill://pdf/SKILL.md"}),
    );
    let message = &mut chatty["choices"][0]["message"];
    message["reasoning"] = json!("I should read the skill.");
    message["refusal"] = Value::Null;
    message["annotations"] = json!([]);
    let mut plain = openai_answer("Done.");
    plain["choices"][0]["message"]["tool_calls"] = json!([]);
    let server = ModelServer::start(vec![
        Reply::ok(chatty),
        Reply::ok(plain),
        Reply::ok(openai_answer("Again.")),
    ]);
    let agent = Agent::new(Endpoint::openai("scripted").base_url(&server.base_url));
    let finished = agent.run(&run, "Fill in my form.", |_| {}).unwrap();
    assert_eq!(finished.answer.as_deref(), Some("Done."));
    // The server refuses any assistant message holding more than the API's fields.
    let error = agent
        .resume(&run, finished.clone(), None, |_| {})
        .unwrap_err();
    assert!(matches!(error, AgentError::NothingToResume), "{error:?}");
    let again = agent
        .resume(&run, finished, Some("And now?"), |_| {})
        .unwrap();
    assert_eq!(again.answer.as_deref(), Some("Again."));
    assert_eq!(server.bodies().len(), 3);
}

#[test]
fn a_run_that_fails_after_taking_turns_keeps_them() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let server = ModelServer::start(vec![
        Reply::ok(openai_call(
            "call_1",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        )),
        Reply::status(400, json!({"error": {"message": "Context too long"}})),
        Reply::ok(openai_answer("Resumed.")),
    ]);
    let agent = Agent::new(Endpoint::openai("scripted").base_url(&server.base_url)).retry(quick());
    let error = agent.run(&run, "Fill in my form.", |_| {}).unwrap_err();
    assert!(error.to_string().contains("Context too long"), "{error}");
    let AgentError::Interrupted { source, partial } = error else {
        panic!("not interrupted: {error:?}")
    };
    assert!(matches!(*source, AgentError::Api { status: 400, .. }));
    assert_eq!(partial.turns, 1);
    assert_eq!(partial.messages.last().unwrap()["role"], "tool");
    // Once the cause has passed, the run goes on from there.
    let finished = agent.resume(&run, *partial, None, |_| {}).unwrap();
    assert_eq!(finished.answer.as_deref(), Some("Resumed."));
}
