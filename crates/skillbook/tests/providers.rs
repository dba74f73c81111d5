//! Provider formats (SPEC §14) against each API: one run rendered for OpenAI Chat Completions,
//! OpenAI Responses, Anthropic Messages and Gemini — its tools, its context item, the tool calls
//! of a response written from the API's reference, and the messages answering them.
//!
//! `tests/providers/<provider>.json` holds each: the `response` is the input, written by hand
//! from the API reference; everything else is what the library produces, compared as a whole.
//! Set `UPDATE_PROVIDER_FIXTURES=1` to rewrite them after a deliberate change.
//!
//! Then the providers' own SDKs (PyPI `openai`, `anthropic`, `google-genai`, pinned in
//! `scripts/test-requirements.txt`) validate what the library produced, with
//! `tests/providers/validate.py`, so a shape a real SDK rejects fails the suite. The Python is
//! `$MCP_PYTHON`, else `.venv/bin/python` at the repository root; without it (or without the
//! SDKs in it) the test fails and says how to install them: `bash scripts/test.sh`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    reason = "a test should fail loudly at the first broken step, and reads what it wrote"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use skillbook::runtime::{
    PreparedRun, Provider, Resolver, RunRequest, Scope, SkillRuntime, ToolCall, ToolDefinition,
    ToolResult,
};
use skillbook::sources::ProvidedSkill;

const INSTALL: &str = "install the provider SDKs with `bash scripts/test.sh` (or `python3 -m \
    venv .venv && .venv/bin/pip install -r scripts/test-requirements.txt`) at the repository \
    root, or point MCP_PYTHON at a Python that has them";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/providers")
}

/// A run with one model-visible skill, one selected manual-only skill and one host tool.
fn run() -> (tempfile::TempDir, PreparedRun) {
    let workspace = tempfile::tempdir().unwrap();
    let haiku = ProvidedSkill::parse(
        "---\nname: haiku\ndescription: Answer in a haiku.\n---\nWrite 5-7-5 syllables.\n",
    )
    .unwrap();
    let style = ProvidedSkill::parse(
        "---\nname: house-style\ndescription: The house style.\ndisable-model-invocation: true\n\
         ---\nNo exclamation marks.\n",
    )
    .unwrap();
    let runtime = SkillRuntime::new(Resolver::fixed(
        Scope::workspace(workspace.path()).with_provided([haiku, style]),
    ));
    let weather = ToolDefinition::new(
        "get_weather",
        "The current weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    );
    let request = RunRequest::new("You are terse.")
        .with_tools(Provider::OpenAiChat.tools(&[weather]))
        .with_selected(["house-style"]);
    let run = runtime.prepare(request).unwrap();
    (workspace, run)
}

/// What the library makes of `response` for `provider`, next to it.
fn rendered(run: &PreparedRun, provider: Provider, response: &Value) -> Value {
    let calls = provider.parse_tool_calls(response).unwrap();
    assert_eq!(
        calls.len(),
        2,
        "{provider}: the reader's call and the host's"
    );
    let results = run.answer(&calls, |call| {
        assert_eq!(call.name, "get_weather");
        ToolResult::error(call, "no weather station in Atlantis")
    });
    assert!(!results[0].is_error, "{}", results[0].content);
    json!({
        "tools": run.tools_for(provider).unwrap(),
        "items": run.items_for(provider),
        "response": response,
        "calls": calls,
        "results": provider.result_messages(&results),
    })
}

fn fixture_path(provider: Provider) -> PathBuf {
    fixtures().join(format!("{}.json", provider.as_str()))
}

#[test]
fn each_provider_renders_and_reads_its_documented_shapes() {
    let (_workspace, run) = run();
    let update = std::env::var_os("UPDATE_PROVIDER_FIXTURES").is_some();
    for provider in Provider::ALL {
        let path = fixture_path(provider);
        let fixture: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let actual = rendered(&run, provider, &fixture["response"]);
        if update {
            let text = serde_json::to_string_pretty(&actual).unwrap();
            fs::write(&path, text + "\n").unwrap();
            continue;
        }
        assert_eq!(
            actual,
            fixture,
            "{provider}: the output differs from {}; check it against the API reference and \
             rewrite the fixture with UPDATE_PROVIDER_FIXTURES=1",
            path.display()
        );
        // The calls round-trip through their serialized form.
        let calls: Vec<ToolCall> = serde_json::from_value(fixture["calls"].clone()).unwrap();
        assert_eq!(
            calls,
            provider.parse_tool_calls(&fixture["response"]).unwrap()
        );
    }
}

/// The Python that has the three SDKs.
fn python() -> PathBuf {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = std::env::var_os("MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository.join(".venv/bin/python"));
    assert!(
        python.exists(),
        "no Python for the provider SDKs at {}: {INSTALL}",
        python.display()
    );
    let import = Command::new(&python)
        .args(["-c", "import openai, anthropic, google.genai"])
        .output()
        .unwrap();
    assert!(
        import.status.success(),
        "{} cannot import the provider SDKs ({}): {INSTALL}",
        python.display(),
        String::from_utf8_lossy(&import.stderr).trim()
    );
    python
}

/// Runs the validator on `files`: its exit status and output.
fn validate(files: &[PathBuf]) -> (bool, String) {
    let output = Command::new(python())
        .arg(fixtures().join("validate.py"))
        .args(files)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// `document` with `value` put at `pointer` (replacing what is there, or added at the end).
fn broken(document: &Value, pointer: &str, value: Value) -> Value {
    let mut document = document.clone();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match document.pointer_mut(parent).unwrap() {
        Value::Object(object) => {
            object.insert(key.to_owned(), value);
        }
        Value::Array(array) => {
            let index = key.parse::<usize>().unwrap();
            if index == array.len() {
                array.push(value);
            } else {
                array[index] = value;
            }
        }
        other => panic!("{pointer} is inside {other}"),
    }
    document
}

#[test]
fn the_providers_sdks_accept_what_the_library_sends() {
    let (_workspace, run) = run();
    let directory = tempfile::tempdir().unwrap();
    let mut documents = Vec::new();
    let mut files = Vec::new();
    for provider in Provider::ALL {
        let fixture: Value =
            serde_json::from_str(&fs::read_to_string(fixture_path(provider)).unwrap()).unwrap();
        let document = rendered(&run, provider, &fixture["response"]);
        let file = directory.path().join(format!("{}.json", provider.as_str()));
        fs::write(&file, document.to_string()).unwrap();
        documents.push(document);
        files.push(file);
    }
    // And shapes the APIs refuse, which the validator must reject.
    let [chat, responses, anthropic, gemini] = &documents[..] else {
        unreachable!()
    };
    let cases = [
        (
            "chat-tool-flat",
            broken(chat, "/tools/0", json!({"type": "function", "name": "x"})),
        ),
        (
            "chat-result-role",
            broken(chat, "/results/0/role", json!("function_result")),
        ),
        (
            "responses-strict-missing",
            broken(
                responses,
                "/tools/0",
                json!({"type": "function", "name": "x", "parameters": {}}),
            ),
        ),
        (
            "anthropic-tool-parameters",
            broken(
                anthropic,
                "/tools/0",
                json!({"name": "x", "parameters": {}}),
            ),
        ),
        (
            "anthropic-result-block",
            broken(
                anthropic,
                "/results/0/content/0/type",
                json!("function_result"),
            ),
        ),
        (
            "anthropic-two-messages",
            broken(anthropic, "/results/1", anthropic["results"][0].clone()),
        ),
        (
            "gemini-response-text",
            broken(
                gemini,
                "/results/0/parts/0/functionResponse/response",
                json!("text"),
            ),
        ),
        (
            "gemini-declaration-field",
            broken(
                gemini,
                "/tools/0/functionDeclarations/0/input_schema",
                json!({}),
            ),
        ),
        (
            "gemini-calls-differ",
            broken(gemini, "/calls/1/name", json!("get_forecast")),
        ),
    ];
    let mut bad = Vec::new();
    for (name, document) in &cases {
        let provider = name.split('-').next().unwrap();
        let provider = match provider {
            "chat" => "openai_chat",
            "responses" => "openai_responses",
            other => other,
        };
        let file = directory.path().join(format!("{name}.{provider}.json"));
        fs::write(&file, document.to_string()).unwrap();
        bad.push(file);
    }
    // One run (the SDKs take seconds to import): the library's output is accepted, each broken
    // shape rejected, and a rejection fails the run.
    let (accepted, output) = validate(&[files, bad].concat());
    for provider in Provider::ALL {
        assert!(
            output.contains(&format!("ok {}.json\n", provider.as_str())),
            "an SDK rejected the library's output for {provider}:\n{output}"
        );
    }
    for (name, _) in &cases {
        assert!(
            output.contains(&format!("rejected {name}.")),
            "{name} was not rejected:\n{output}"
        );
    }
    assert!(!accepted, "rejections must fail the validator:\n{output}");
}
