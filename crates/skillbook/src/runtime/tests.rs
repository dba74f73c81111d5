#![allow(clippy::disallowed_methods, reason = "tests read what they wrote")]

use super::*;
use crate::discovery::Home;
use crate::sources::ProvidedSkill;
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

mod addressing;
mod limits;
mod provided;

/// Writes `<root>/<name>/SKILL.md`.
fn skill(root: &Path, name: &str, extra: &str) -> PathBuf {
    let directory = root.join(name);
    fs::create_dir_all(&directory).unwrap();
    let file = directory.join("SKILL.md");
    fs::write(
        &file,
        format!("---\nname: {name}\ndescription: The {name} skill.\n{extra}---\n# {name}\nStep one for {name}.\n"),
    )
    .unwrap();
    file
}

struct Fixture {
    workspace: TempDir,
}

impl Fixture {
    fn new() -> Self {
        Fixture {
            workspace: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    fn runtime(&self) -> SkillRuntime {
        SkillRuntime::new(Resolver::workspace(self.workspace.path()))
    }
}

fn host_tool(name: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "parameters": {"type": "object"}}})
}

fn tool_names(run: &PreparedRun) -> Vec<&str> {
    run.tools.iter().flat_map(provider::tool_names).collect()
}

fn read(run: &PreparedRun, name: &str, arguments: Value) -> (Value, ToolResult) {
    let result = run.execute(&ToolCall::new("call", name, arguments));
    let value = serde_json::from_str(&result.content).unwrap_or(Value::Null);
    (value, result)
}

#[test]
fn model_selected_path_appends_catalog_and_reader() {
    let fixture = Fixture::new();
    let pdf = skill(&fixture.root(), "pdf", "");
    let run = fixture
        .runtime()
        .prepare(RunRequest::new("Host prompt.").with_tools([host_tool("search")]))
        .unwrap();
    let catalog = run.catalog.as_ref().unwrap();
    assert_eq!(
        run.system_prompt,
        format!("Host prompt.\n\n{}", catalog.text)
    );
    assert!(
        catalog
            .text
            .contains(&format!("<location>{}</location>", pdf.display()))
    );
    assert_eq!(tool_names(&run), ["search", "read_file"]);
    assert_eq!(run.reader_name(), Some("read_file"));
    assert!(run.items.is_empty());
}

#[test]
fn a_scripted_model_reads_the_skill_and_its_second_request_carries_the_body() {
    let fixture = Fixture::new();
    let pdf = skill(&fixture.root(), "pdf", "");
    let run = fixture.runtime().prepare(RunRequest::new("Host.")).unwrap();
    // Turn 1: the model sees the catalog and asks for the SKILL.md it lists.
    let mut history = vec![
        json!({"role": "system", "content": run.system_prompt}),
        json!({"role": "user", "content": "Fill this PDF form."}),
    ];
    let location = run.catalog.as_ref().unwrap().text.clone();
    assert!(location.contains(&pdf.display().to_string()));
    let call = json!({"id": "call_1", "type": "function", "function": {
        "name": "read_file",
        "arguments": json!({"path": pdf.display().to_string()}).to_string(),
    }});
    let call = ToolCall::from_openai(&call).unwrap();
    assert!(run.handles(&call.name));
    let result = run.execute(&call);
    assert!(!result.is_error, "{}", result.content);
    assert_eq!(result.skill.as_deref(), Some("pdf"));
    history.push(result.to_message());
    // Turn 2: the request now carries the body, wrapped for compaction.
    let last = history.last().unwrap();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["tool_call_id"], "call_1");
    let content: Value = serde_json::from_str(last["content"].as_str().unwrap()).unwrap();
    let text = content["content"].as_str().unwrap();
    assert!(text.starts_with("<skill_instructions name=\"pdf\""));
    assert!(text.contains("Step one for pdf."));
    assert_eq!(content["skill"], "pdf");
}

#[test]
fn the_catalog_is_fixed_within_a_run_and_fresh_on_the_next() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "first", "");
    let runtime = fixture.runtime();
    let run = runtime.prepare(RunRequest::new("Host.")).unwrap();
    let before = run.system_prompt.clone();
    let second = skill(&fixture.root(), "second", "");
    // The run in progress neither lists nor reads the new skill: its scope is fixed.
    assert!(!run.system_prompt.contains("<name>second</name>"));
    let (value, _) = read(&run, "read_file", json!({"path": second}));
    assert_eq!(value["error"], "outside_boundary");
    let next = runtime.prepare(RunRequest::new("Host.")).unwrap();
    let (value, _) = read(&next, "read_file", json!({"path": second}));
    assert_eq!(value["skill"], "second");
    assert_ne!(next.system_prompt, before);
    assert!(next.system_prompt.contains("<name>second</name>"));
    assert_ne!(
        next.catalog.unwrap().fingerprint,
        run.catalog.unwrap().fingerprint
    );
}

#[test]
fn a_tenant_resolver_never_lists_the_default_or_home_roots() {
    let fixture = Fixture::new();
    skill(
        &fixture.workspace.path().join(".skillbook/skills"),
        "server-wide",
        "",
    );
    skill(&fixture.root(), "also-server-wide", "");
    skill(
        &fixture.workspace.path().join("tenants/acme"),
        "acme-only",
        "",
    );
    let runtime = SkillRuntime::new(Resolver::tenant(fixture.workspace.path(), ["tenants/acme"]));
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    let text = &run.catalog.as_ref().unwrap().text;
    assert!(text.contains("<name>acme-only</name>"));
    assert!(!text.contains("server-wide"));
    assert!(!text.contains(".skillbook/skills"));
}

#[test]
fn home_skills_are_opt_in_and_custom_resolvers_see_the_tenant() {
    let fixture = Fixture::new();
    let home = tempfile::tempdir().unwrap();
    skill(&home.path().join(".agents/skills"), "personal", "");
    let default = fixture.runtime().prepare(RunRequest::new("")).unwrap();
    assert!(default.catalog.is_none());
    let workspace = fixture.workspace.path().to_path_buf();
    let home_path = home.path().to_path_buf();
    let runtime = SkillRuntime::new(Resolver::custom(move |request: &RunRequest| {
        let mut scope =
            Scope::workspace_and_home(&workspace).with_home(Home::Path(home_path.clone()));
        if request.tenant.as_deref() == Some("restricted") {
            scope = scope.with_enabled(["nothing"]);
        }
        scope
    }));
    let with_home = runtime.prepare(RunRequest::new("")).unwrap();
    assert!(with_home.system_prompt.contains("<name>personal</name>"));
    let filtered = runtime
        .prepare(RunRequest::new("").with_tenant("restricted"))
        .unwrap();
    assert!(filtered.catalog.is_none());
}

#[test]
fn enabled_names_filter_the_scope() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "keep", "");
    skill(&fixture.root(), "drop", "");
    let runtime = SkillRuntime::new(Resolver::fixed(
        Scope::workspace(fixture.workspace.path()).with_enabled(["KEEP"]),
    ));
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    assert_eq!(run.catalog.as_ref().unwrap().listed, 1);
    assert!(run.system_prompt.contains("<name>keep</name>"));
    let error = runtime
        .prepare(RunRequest::new("").with_selected(["drop"]))
        .unwrap_err();
    assert!(matches!(error, RuntimeError::UnknownSkill { ref name, .. } if name == "drop"));
}

#[test]
fn the_reader_is_aliased_when_the_host_owns_read_file() {
    let fixture = Fixture::new();
    let pdf = skill(&fixture.root(), "pdf", "");
    let run = fixture
        .runtime()
        .prepare(RunRequest::new("Host.").with_tools([host_tool("read_file")]))
        .unwrap();
    assert_eq!(tool_names(&run), ["read_file", "read_skill_file"]);
    assert!(run.system_prompt.contains("`read_skill_file`"));
    assert!(!run.handles("read_file"));
    let (value, result) = read(&run, "read_skill_file", json!({"path": pdf}));
    assert!(!result.is_error, "{value}");
    let (value, result) = read(&run, "read_file", json!({"path": pdf}));
    assert!(result.is_error);
    assert_eq!(value["error"], "unsupported_tool");
}

#[test]
fn owning_both_reader_names_fails_naming_both() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "pdf", "");
    let request = RunRequest::new("")
        .with_tools([host_tool("read_file"), json!({"name": "read_skill_file"})]);
    let error = fixture.runtime().prepare(request).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`read_file`") && message.contains("`read_skill_file`"),
        "{message}"
    );
}

#[test]
fn without_skills_even_a_host_owning_both_names_is_untouched() {
    let fixture = Fixture::new();
    let tools = vec![
        host_tool("read_file"),
        host_tool("read_skill_file"),
        host_tool("activate_skill"),
    ];
    let mut runtime = fixture.runtime();
    runtime = runtime.activate_tool(true);
    let run = runtime
        .prepare(RunRequest::new("Host.").with_tools(tools.clone()))
        .unwrap();
    assert_eq!((run.system_prompt.as_str(), &run.tools), ("Host.", &tools));
}

#[test]
fn a_host_owning_activate_skill_gets_its_own_error() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "pdf", "");
    let mut runtime = fixture.runtime();
    runtime = runtime.activate_tool(true);
    let error = runtime
        .prepare(RunRequest::new("").with_tools([host_tool("activate_skill")]))
        .unwrap_err();
    assert!(matches!(error, RuntimeError::ToolNameTaken { ref name } if name == "activate_skill"));
    assert!(
        error
            .to_string()
            .contains("turn the skillbook fallback tool off"),
        "{error}"
    );
}

#[test]
fn relative_paths_are_refused_when_several_skills_are_readable() {
    let fixture = Fixture::new();
    let alpha = skill(&fixture.root(), "alpha", "");
    skill(&fixture.root(), "beta", "");
    fs::write(alpha.parent().unwrap().join("guide.md"), "ALPHA").unwrap();
    let run = fixture.runtime().prepare(RunRequest::new("")).unwrap();
    let (value, result) = read(&run, "read_file", json!({"path": "guide.md"}));
    assert_eq!(value["error"], "invalid_argument");
    assert!(!result.content.contains("ALPHA"));
    assert!(
        value["message"]
            .as_str()
            .unwrap()
            .contains("pass the absolute path")
    );
    // The error names the URI form that works.
    assert!(
        value["message"]
            .as_str()
            .unwrap()
            .contains("`skill://<skill>/guide.md`")
    );
    let absolute = alpha.parent().unwrap().join("guide.md");
    let (value, _) = read(&run, "read_file", json!({"path": absolute}));
    assert_eq!(value["content"], "ALPHA");
    // With a single skill, a relative path means that skill's folder.
    let only = Fixture::new();
    let solo = skill(&only.root(), "solo", "");
    fs::write(solo.parent().unwrap().join("guide.md"), "SOLO").unwrap();
    let run = only.runtime().prepare(RunRequest::new("")).unwrap();
    let (value, _) = read(&run, "read_file", json!({"path": "guide.md"}));
    assert_eq!(value["content"], "SOLO");
}

#[test]
fn the_reader_only_reads_the_exposed_skills() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "visible", "");
    let manual = skill(
        &fixture.root(),
        "manual",
        "disable-model-invocation: true\n",
    );
    fs::write(
        fixture.workspace.path().join("secret.md"),
        "workspace secret",
    )
    .unwrap();
    let run = fixture.runtime().prepare(RunRequest::new("")).unwrap();
    for path in [
        manual.display().to_string(),
        fixture
            .workspace
            .path()
            .join("secret.md")
            .display()
            .to_string(),
        "../../secret.md".to_owned(),
    ] {
        let (value, result) = read(&run, "read_file", json!({"path": path}));
        assert!(result.is_error, "{path} was readable");
        assert_eq!(value["error"], "outside_boundary", "{path}: {value}");
        assert!(!result.content.contains("workspace secret"));
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_escape_through_the_reader_is_the_boundary_error() {
    let fixture = Fixture::new();
    let pdf = skill(&fixture.root(), "pdf", "");
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("loot.md"), "OUTSIDE").unwrap();
    std::os::unix::fs::symlink(outside.path(), pdf.parent().unwrap().join("refs")).unwrap();
    let run = fixture.runtime().prepare(RunRequest::new("")).unwrap();
    let path = pdf.parent().unwrap().join("refs/loot.md");
    let (value, result) = read(&run, "read_file", json!({"path": path}));
    assert_eq!(value["error"], "outside_boundary");
    assert!(!result.content.contains("OUTSIDE"));
}

#[test]
fn the_policy_sees_read_file_even_when_aliased_and_can_deny() {
    let fixture = Fixture::new();
    let pdf = skill(&fixture.root(), "pdf", "");
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let mut runtime = fixture.runtime();
    runtime = runtime.policy(move |call: &PolicyCall<'_>| {
        log.lock()
            .unwrap()
            .push((call.tool.to_owned(), call.exposed_as.to_owned()));
        PolicyDecision::Deny("skills are off during the freeze".to_owned())
    });
    let run = runtime
        .prepare(RunRequest::new("").with_tools([host_tool("read_file")]))
        .unwrap();
    let (value, result) = read(&run, "read_skill_file", json!({"path": pdf}));
    assert!(result.is_error);
    assert_eq!(
        value,
        json!({"error": "denied", "message": "skills are off during the freeze"})
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [("read_file".to_owned(), "read_skill_file".to_owned())]
    );
}

#[test]
fn no_skills_leaves_prompt_and_tools_untouched() {
    let fixture = Fixture::new();
    let tools = vec![host_tool("search")];
    let run = fixture
        .runtime()
        .prepare(RunRequest::new("Host prompt.").with_tools(tools.clone()))
        .unwrap();
    assert_eq!(run.system_prompt, "Host prompt.");
    assert_eq!(run.tools, tools);
    assert_eq!(run.reader_name(), None);
    assert!(!run.handles("read_file"));
    let (value, _) = read(&run, "read_file", json!({"path": "x"}));
    assert_eq!(value["error"], "unsupported_tool");
}

#[test]
fn host_selected_skills_become_a_context_item_not_system_prompt() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "visible", "");
    let manual = skill(
        &fixture.root(),
        "runbook",
        "disable-model-invocation: true\n",
    );
    let runtime = fixture.runtime();
    let plain = runtime.prepare(RunRequest::new("Host.")).unwrap();
    let selected = runtime
        .prepare(RunRequest::new("Host.").with_selected(["runbook", " ", "RUNBOOK", "runbook"]))
        .unwrap();
    assert_eq!(selected.system_prompt, plain.system_prompt);
    assert_eq!(selected.items.len(), 1);
    let item = &selected.items[0];
    assert!(item.skill_content);
    assert_eq!(item.skills, ["runbook"]);
    let directory = manual.parent().unwrap().display().to_string();
    assert_eq!(
        item.content,
        format!(
            "<selected_skills>\n{}\n<selected_skill name=\"runbook\" dir=\"{directory}\">\n\
             # runbook\nStep one for runbook.\n</selected_skill>\n</selected_skills>",
            selected::NOTE.trim_end()
        )
    );
    assert_eq!(
        item.to_message(),
        json!({"role": "user", "content": item.content})
    );
    // The selected manual-only skill's directory is readable in this run only.
    let (value, _) = read(&selected, "read_file", json!({"path": manual}));
    assert_eq!(value["skill"], "runbook");
    let next = runtime.prepare(RunRequest::new("Host.")).unwrap();
    assert!(next.items.is_empty());
    let (value, _) = read(&next, "read_file", json!({"path": manual}));
    assert_eq!(value["error"], "outside_boundary");
}

#[test]
fn unknown_and_oversized_selections_fail_before_any_model_call() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "small", "");
    let big = fixture.root().join("big");
    fs::create_dir_all(&big).unwrap();
    fs::write(
        big.join("SKILL.md"),
        format!("# big\n{}\n", "é".repeat(12_001)),
    )
    .unwrap();
    let runtime = fixture.runtime();
    let error = runtime
        .prepare(RunRequest::new("").with_selected(["missing"]))
        .unwrap_err();
    assert!(
        error.to_string().contains("`missing`") && error.to_string().contains("small"),
        "{error}"
    );
    let error = runtime
        .prepare(RunRequest::new("").with_selected(["big"]))
        .unwrap_err();
    assert!(matches!(error, RuntimeError::SkillTooLarge { ref name, .. } if name == "big"));
    let mut generous = fixture.runtime();
    generous = generous.selected_limits(SelectedLimits {
        max_chars: 20_000,
        max_bytes: 100_000,
    });
    assert!(
        generous
            .prepare(RunRequest::new("").with_selected(["big"]))
            .is_ok()
    );
}

#[test]
fn the_activate_skill_fallback_is_off_by_default_and_lists_an_enum() {
    let fixture = Fixture::new();
    skill(&fixture.root(), "pdf", "");
    skill(
        &fixture.root(),
        "manual",
        "disable-model-invocation: true\n",
    );
    let run = fixture.runtime().prepare(RunRequest::new("")).unwrap();
    assert_eq!(tool_names(&run), ["read_file"]);
    let mut runtime = fixture.runtime();
    runtime = runtime.activate_tool(true);
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    assert_eq!(tool_names(&run), ["read_file", "activate_skill"]);
    assert_eq!(
        run.tools[1]["function"]["parameters"]["properties"]["name"]["enum"],
        json!(["pdf"])
    );
    let result = run.execute(&ToolCall::new(
        "1",
        "activate_skill",
        json!({"name": "pdf"}),
    ));
    assert!(
        result
            .content
            .starts_with("<skill_instructions name=\"pdf\"")
    );
    assert!(result.content.contains("Step one for pdf."));
    assert_eq!(result.skill.as_deref(), Some("pdf"));
    let refused = run.execute(&ToolCall::new(
        "2",
        "activate_skill",
        json!({"name": "manual"}),
    ));
    assert!(refused.is_error);
}

#[cfg(unix)]
#[test]
fn a_link_into_a_manual_only_sibling_is_refused_unless_that_sibling_is_selected_and_named() {
    let fixture = Fixture::new();
    let pdf = skill(&fixture.root(), "pdf", "");
    skill(
        &fixture.root(),
        "runbook",
        "disable-model-invocation: true\n",
    );
    fs::write(fixture.root().join("runbook/notes.md"), "runbook notes\n").unwrap();
    let link = pdf.with_file_name("notes.md");
    std::os::unix::fs::symlink("../runbook/notes.md", &link).unwrap();
    let run = fixture.runtime().prepare(RunRequest::new("host")).unwrap();
    let (through_link, _) = read(&run, READ_FILE, json!({ "path": link }));
    assert_eq!(through_link["error"], "outside_boundary", "{through_link}");
    let direct = fixture.root().join("runbook/notes.md");
    let (directly, _) = read(&run, READ_FILE, json!({ "path": direct }));
    assert_eq!(directly["error"], "outside_boundary");
    // Selected, the runbook is readable by its own path — and still not through pdf's link.
    let selected = fixture
        .runtime()
        .prepare(RunRequest::new("host").with_selected(["runbook"]))
        .unwrap();
    let (directly, _) = read(&selected, READ_FILE, json!({ "path": direct }));
    assert_eq!(directly["content"], "runbook notes");
    let (through_link, _) = read(&selected, READ_FILE, json!({ "path": link }));
    assert_eq!(through_link["error"], "outside_boundary");
}

/// A workspace with `count` model-visible skills and one manual-only skill.
fn many_skills(fixture: &Fixture, count: usize) {
    for index in 0..count {
        skill(&fixture.root(), &format!("tool-{index:02}"), "");
    }
    skill(
        &fixture.root(),
        "secret-deploy",
        "disable-model-invocation: true\n",
    );
}

#[test]
fn the_catalog_keeps_to_the_default_budget_unless_told_otherwise() {
    let fixture = Fixture::new();
    many_skills(&fixture, 200);
    let run = fixture.runtime().prepare(RunRequest::new("")).unwrap();
    let catalog = run.catalog.as_ref().unwrap();
    assert!(catalog.text.chars().count() <= crate::DEFAULT_CATALOG_BUDGET);
    assert_eq!(
        (catalog.tier, catalog.listed),
        (crate::Tier::NamesOnly, 200)
    );
    assert_eq!(tool_names(&run), ["read_file", "search_skills"]);

    let run = fixture
        .runtime()
        .unbudgeted_catalog()
        .prepare(RunRequest::new(""))
        .unwrap();
    let catalog = run.catalog.as_ref().unwrap();
    assert_eq!((catalog.tier, catalog.listed), (crate::Tier::Full, 200));
    assert!(catalog.text.chars().count() > crate::DEFAULT_CATALOG_BUDGET);
}

#[test]
fn a_catalog_that_lists_names_only_comes_with_search() {
    let fixture = Fixture::new();
    many_skills(&fixture, 12);
    let full = fixture.runtime().prepare(RunRequest::new("")).unwrap();
    let catalog = full.catalog.as_ref().unwrap();
    assert_eq!((catalog.tier, catalog.listed), (crate::Tier::Full, 12));
    assert_eq!(tool_names(&full), ["read_file"]);
    assert_eq!(full.search_name(), None);
    assert!(!full.handles(SEARCH_SKILLS));

    let mut runtime = fixture.runtime();
    runtime = runtime.catalog_budget(1);
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    let catalog = run.catalog.as_ref().unwrap();
    assert_eq!(catalog.tier, crate::Tier::SearchOnly);
    assert_eq!((catalog.listed, catalog.left_out), (0, 12));
    assert!(catalog.over_budget);
    assert_eq!(tool_names(&run), ["read_file", "search_skills"]);
    assert!(
        run.system_prompt
            .contains("call `search_skills` with the task")
    );
    let (found, result) = read(&run, "search_skills", json!({"query": "tool-07"}));
    assert!(!result.is_error, "{found}");
    assert_eq!(found["results"][0]["name"], "tool-07");
    let location = found["results"][0]["location"].as_str().unwrap().to_owned();
    // What search finds, the reader reads.
    let (body, result) = read(&run, "read_file", json!({"path": location}));
    assert!(!result.is_error, "{body}");
    assert!(
        body["content"]
            .as_str()
            .unwrap()
            .contains("Step one for tool-07.")
    );
    // Manual-only skills are never found.
    let (found, _) = read(
        &run,
        "search_skills",
        json!({"query": "secret-deploy", "limit": 20}),
    );
    let names: Vec<&Value> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| &hit["name"])
        .collect();
    assert!(!names.contains(&&json!("secret-deploy")), "{names:?}");
    let (error, result) = read(&run, "search_skills", json!({"limit": 3}));
    assert!(result.is_error);
    assert_eq!(error["error"], "invalid_argument");
}

#[test]
fn search_is_aliased_seen_by_the_policy_and_conflicts_are_named() {
    let fixture = Fixture::new();
    many_skills(&fixture, 3);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut runtime = fixture.runtime();
    runtime = runtime.catalog_budget(1);
    let log = std::sync::Arc::clone(&seen);
    runtime = runtime.policy(move |call: &PolicyCall<'_>| {
        log.lock()
            .unwrap()
            .push((call.tool.to_owned(), call.exposed_as.to_owned()));
        if call.arguments["query"] == "forbidden" {
            PolicyDecision::Deny("searching that is not allowed here".to_owned())
        } else {
            PolicyDecision::Allow
        }
    });
    let run = runtime
        .prepare(RunRequest::new("").with_tools([host_tool(SEARCH_SKILLS)]))
        .unwrap();
    assert_eq!(
        tool_names(&run),
        ["search_skills", "read_file", "search_skill_catalog"]
    );
    assert_eq!(run.search_name(), Some(SEARCH_SKILL_CATALOG));
    assert!(
        !run.handles(SEARCH_SKILLS),
        "the host's own tool stays the host's"
    );
    assert!(run.system_prompt.contains("`search_skill_catalog`"));
    let (found, result) = read(&run, SEARCH_SKILL_CATALOG, json!({"query": "tool-01"}));
    assert!(!result.is_error, "{found}");
    let (denied, result) = read(&run, SEARCH_SKILL_CATALOG, json!({"query": "forbidden"}));
    assert!(result.is_error);
    assert_eq!(denied["error"], "denied");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (
                "search_skills".to_owned(),
                "search_skill_catalog".to_owned()
            ),
            (
                "search_skills".to_owned(),
                "search_skill_catalog".to_owned()
            )
        ]
    );
    let error = runtime
        .prepare(
            RunRequest::new("")
                .with_tools([host_tool(SEARCH_SKILLS), host_tool(SEARCH_SKILL_CATALOG)]),
        )
        .unwrap_err();
    assert!(
        matches!(&error, RuntimeError::ToolNameConflict { first, second }
            if first == SEARCH_SKILLS && second == SEARCH_SKILL_CATALOG),
        "{error}"
    );
    // Without the need for search, the host may own both names.
    let full = fixture
        .runtime()
        .prepare(
            RunRequest::new("")
                .with_tools([host_tool(SEARCH_SKILLS), host_tool(SEARCH_SKILL_CATALOG)]),
        )
        .unwrap();
    assert_eq!(full.search_name(), None);
}
