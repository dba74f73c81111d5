//! A scope that names files by `skill://` URI only (a tenant's, by default): nothing a run shows
//! the model — catalog, injected skills, read results, markers, errors — holds a path of the
//! host.

use super::*;
use crate::read::Addressing;

/// A tenant folder with `pdf` (and `refs/guide.md`) and the manual-only `runbook`.
fn tenant_fixture() -> Fixture {
    let fixture = Fixture::new();
    let tenant = fixture.workspace.path().join("tenants/acme");
    let pdf = skill(&tenant, "pdf", "");
    fs::create_dir_all(pdf.with_file_name("refs")).unwrap();
    fs::write(pdf.with_file_name("refs/guide.md"), "Guide.\n").unwrap();
    skill(&tenant, "runbook", "disable-model-invocation: true\n");
    fixture
}

/// Every text of a run the model may see, tool results included.
fn shown(run: &PreparedRun, results: &[ToolResult]) -> String {
    let mut text = run.system_prompt.clone();
    for item in &run.items {
        text.push_str(&item.content);
    }
    for result in results {
        text.push_str(&result.content);
    }
    text
}

#[test]
fn a_tenant_run_names_every_file_by_uri_and_never_a_host_path() {
    let fixture = tenant_fixture();
    let runtime = SkillRuntime::new(Resolver::tenant(fixture.workspace.path(), ["tenants/acme"]))
        .activate_tool(true);
    let run = runtime
        .prepare(RunRequest::new("Host.").with_selected(["runbook"]))
        .unwrap();
    let catalog = &run.catalog.as_ref().unwrap().text;
    assert!(
        catalog.contains("<location>skill://pdf/SKILL.md</location>"),
        "{catalog}"
    );
    assert!(run.items[0].content.contains("dir=\"skill://runbook\""));

    let (skill_answer, skill_file) =
        read(&run, "read_file", json!({"path": "skill://pdf/SKILL.md"}));
    assert_eq!(skill_answer["path"], "skill://pdf/SKILL.md");
    let content = skill_answer["content"].as_str().unwrap();
    assert!(content.starts_with("<skill_instructions name=\"pdf\" dir=\"skill://pdf\">"));
    let (guide, guide_result) = read(
        &run,
        "read_file",
        json!({"path": "skill://pdf/refs/guide.md"}),
    );
    assert_eq!(guide["content"], "Guide.");
    let (missing, missing_result) = read(&run, "read_file", json!({"path": "skill://pdf/nope.md"}));
    assert_eq!(missing["error"], "not_found");
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("skill://pdf/nope.md")
    );
    let activated = run.execute(&ToolCall::new(
        "call",
        "activate_skill",
        json!({"name": "pdf"}),
    ));
    assert!(
        activated.content.contains("dir=\"skill://pdf\""),
        "{}",
        activated.content
    );

    let host = fixture.workspace.path().display().to_string();
    let everything = shown(&run, &[skill_file, guide_result, missing_result, activated]);
    assert!(
        !everything.contains(&host),
        "a host path reached the model: {everything}"
    );
}

#[test]
fn a_tenant_reader_refuses_paths_without_saying_whether_they_exist() {
    let fixture = tenant_fixture();
    let runtime = SkillRuntime::new(Resolver::tenant(fixture.workspace.path(), ["tenants/acme"]));
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    let existing = fixture.workspace.path().join("tenants/acme/pdf/SKILL.md");
    let absent = fixture.workspace.path().join("tenants/acme/pdf/absent.md");
    let mut answers = Vec::new();
    for path in [
        existing.display().to_string(),
        absent.display().to_string(),
        "pdf/SKILL.md".into(),
    ] {
        let (answer, _) = read(&run, "read_file", json!({ "path": path }));
        assert_eq!(answer["error"], "outside_boundary", "{path}: {answer}");
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .contains("skill://<name>/SKILL.md")
        );
        answers.push(answer);
    }
    assert_eq!(
        answers[0], answers[1],
        "an existing and an absent file answer alike"
    );
}

#[test]
fn a_scope_chooses_paths_or_uris() {
    let fixture = tenant_fixture();
    let paths = Scope::tenant(fixture.workspace.path(), ["tenants/acme"])
        .with_addressing(Addressing::Paths);
    let run = SkillRuntime::new(Resolver::fixed(paths))
        .prepare(RunRequest::new(""))
        .unwrap();
    let pdf = fixture.workspace.path().join("tenants/acme/pdf/SKILL.md");
    let catalog = &run.catalog.as_ref().unwrap().text;
    assert!(catalog.contains(&format!("<location>{}</location>", pdf.display())));
    let (answer, _) = read(
        &run,
        "read_file",
        json!({ "path": pdf.display().to_string() }),
    );
    assert!(
        answer["content"]
            .as_str()
            .unwrap()
            .contains("Step one for pdf."),
        "{answer}"
    );

    let uris = Scope::workspace(fixture.workspace.path()).with_addressing(Addressing::SkillUris);
    skill(&fixture.root(), "local", "");
    let run = SkillRuntime::new(Resolver::fixed(uris))
        .prepare(RunRequest::new(""))
        .unwrap();
    let catalog = &run.catalog.as_ref().unwrap().text;
    assert!(
        catalog.contains("<location>skill://local/SKILL.md</location>"),
        "{catalog}"
    );
}
