//! A real rig agent with skills against a scripted model server on loopback. rig 0.44's OpenAI
//! client sends completions to the Responses API (`POST /responses`: the OpenAI dialect's
//! completion route), so the server speaks that API. The model searches the catalog, reads a
//! skill's SKILL.md, reads a file the skill names, and answers.

#![allow(
    clippy::disallowed_methods,
    reason = "tests write the skills they read"
)]
#![allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]

use std::fs;
use std::path::Path;
use std::sync::Arc;

use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use serde_json::json;
use skillbook::Home;
use skillbook::runtime::{PreparedRun, Resolver, RunRequest, Scope, SkillRuntime};
use skillbook_rig::SkillsExt;

mod support;

use support::model_server::{
    ModelServer, Reply, responses_answer as answer, responses_call as call,
    responses_output_for as output_for,
};

/// The scripted replies, each a 200.
fn script(responses: Vec<serde_json::Value>) -> Vec<Reply> {
    responses.into_iter().map(Reply::ok).collect()
}

/// A workspace with a `pdf` skill whose SKILL.md names `forms.md`, and a `haiku` skill.
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
    let haiku = workspace.path().join(".agents/skills/haiku");
    fs::create_dir_all(&haiku).unwrap();
    fs::write(
        haiku.join("SKILL.md"),
        "---\nname: haiku\ndescription: Answer in a haiku.\n---\nCount the syllables 5-7-5.\n",
    )
    .unwrap();
    workspace
}

/// A run whose catalog is too small to list the skills, so the model searches first; the host
/// names `haiku`, whose content goes along as a context document.
fn prepared(workspace: &Path) -> Arc<PreparedRun> {
    let scope = Scope::workspace(workspace).with_home(Home::Off);
    let request = RunRequest::new("You are a helpful assistant.").with_selected(["haiku"]);
    let run = SkillRuntime::new(Resolver::fixed(scope))
        .catalog_budget(10)
        .prepare(request)
        .unwrap();
    Arc::new(run)
}

#[tokio::test]
async fn a_rig_agent_searches_reads_a_skill_and_its_file_and_answers() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    assert_eq!(run.search_name(), Some("search_skills"));
    assert_eq!(skillbook_rig::tools(&run).len(), 2);
    let server = ModelServer::start(script(vec![
        call(
            "call_1",
            "search_skills",
            json!({"query": "fill a pdf form"}),
        ),
        call(
            "call_2",
            "read_file",
            json!({"path": "skill://pdf/SKILL.md"}),
        ),
        call(
            "call_3",
            "read_file",
            json!({"path": "skill://pdf/forms.md"}),
        ),
        answer("Dates go in as YYYY-MM-DD."),
    ]));
    let openai = OpenAIConfig::new("sk-test")
        .with_base_url(format!("{}/v1", server.base_url))
        .connect(skillbook_rig::http_client().unwrap());
    let agent = AgentBuilder::new(openai.completion("scripted"))
        .skills(&run)
        .build();

    let response = agent
        .prompt("Fill in my tax form PDF.")
        .max_turns(8)
        .await
        .unwrap();

    assert_eq!(response.output(), "Dates go in as YYYY-MM-DD.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4, "{bodies:#?}");
    assert!(output_for(&bodies[1], "call_1").contains("\"name\":\"pdf\""));
    assert!(output_for(&bodies[2], "call_2").contains("Read forms.md for the field rules."));
    assert!(output_for(&bodies[3], "call_3").contains("Every date field takes YYYY-MM-DD."));
    check_first_request(&server, &run);
}

/// The first request: to `/v1/responses` with the key as a bearer, the run's system prompt (with
/// the catalog) as the instructions, the host-named skill's content in the input, and the run's
/// two tools.
fn check_first_request(server: &ModelServer, run: &PreparedRun) {
    let received = server.received.lock().unwrap();
    let first = &received[0];
    assert_eq!(first.path, "/v1/responses");
    assert_eq!(first.header("authorization"), Some("Bearer sk-test"));
    let body = first.body.to_string();
    let instructions = first.body["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("search_skills"), "{body}");
    assert!(instructions.contains(run.system_prompt.as_str()), "{body}");
    let input = first.body["input"].to_string();
    assert!(input.contains("Count the syllables 5-7-5."), "{body}");
    let tools: Vec<&str> = (first.body["tools"].as_array().unwrap().iter())
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(tools, ["read_file", "search_skills"], "{body}");
}

#[tokio::test]
async fn a_refused_read_reaches_the_model_as_the_runs_error() {
    let workspace = workspace();
    let run = prepared(workspace.path());
    let server = ModelServer::start(script(vec![
        call(
            "call_1",
            "read_file",
            json!({"path": "skill://nope/SKILL.md"}),
        ),
        answer("There is no such skill."),
    ]));
    let openai = OpenAIConfig::new("sk-test")
        .with_base_url(format!("{}/v1", server.base_url))
        .connect(skillbook_rig::http_client().unwrap());
    let agent = AgentBuilder::new(openai.completion("scripted"))
        .skills(&run)
        .build();

    let response = agent.prompt("Read it.").max_turns(4).await.unwrap();

    assert_eq!(response.output(), "There is no such skill.");
    let bodies = server.bodies();
    let output = output_for(&bodies[1], "call_1");
    assert!(output.contains("\"error\":\"not_found\""), "{output}");
    assert!(output.contains("skill://nope/SKILL.md"), "{output}");
}
