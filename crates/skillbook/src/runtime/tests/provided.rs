//! Skills provided from memory in a runtime scope: served by URI, merged or refused beside
//! disk skills, their own diagnostics reported.

use super::*;

fn provided(name: &str, body: &str) -> ProvidedSkill {
    ProvidedSkill::parse(format!(
        "---\nname: {name}\ndescription: {name} from memory.\n---\n{body}\n"
    ))
    .unwrap()
}

/// A provided skill's own problems (here a name it cannot take) reach the run as a disk
/// skill's do, and only for skills the scope serves.
#[test]
fn a_provided_skills_diagnostics_are_the_runs() {
    let fixture = Fixture::new();
    let (skills, refused) = crate::sources::from_files(
        [
            (
                "broken/SKILL.md".to_owned(),
                std::sync::Arc::from(b"---\nname: a/b\ndescription: Broken.\n---\n".as_slice()),
            ),
            (
                "off/SKILL.md".to_owned(),
                std::sync::Arc::from(b"---\nname: c/d\ndescription: Off.\n---\n".as_slice()),
            ),
        ],
        crate::sources::Origin::Provided,
    );
    assert!(refused.is_empty(), "{refused:?}");
    let scope = Scope::workspace(fixture.workspace.path())
        .with_provided(skills)
        .with_enabled(["broken"]);
    let run = SkillRuntime::new(Resolver::fixed(scope))
        .prepare(RunRequest::new(""))
        .unwrap();
    let reported: Vec<String> = run
        .diagnostics
        .iter()
        .map(|diagnostic| format!("{} {}", diagnostic.code.as_str(), diagnostic.path.display()))
        .collect();
    assert_eq!(reported, ["unusable_name broken/SKILL.md"]);
}

#[test]
fn provided_skills_are_served_from_memory_by_uri() {
    let fixture = Fixture::new();
    let tenant = provided("tenant-style", "Use the house style.")
        .with_file("references/voice.md", b"Warm and brief.".as_slice())
        .unwrap();
    let runtime = SkillRuntime::new(Resolver::fixed(
        Scope::workspace(fixture.workspace.path()).with_provided([tenant]),
    ));
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    assert!(
        run.system_prompt
            .contains("<location>skill://tenant-style/SKILL.md</location>")
    );
    let (value, _) = read(
        &run,
        "read_file",
        json!({"path": "skill://tenant-style/SKILL.md"}),
    );
    assert_eq!(value["skill"], "tenant-style");
    assert!(
        value["content"]
            .as_str()
            .unwrap()
            .contains("Use the house style.")
    );
    assert!(
        value["content"]
            .as_str()
            .unwrap()
            .starts_with("<skill_instructions name=\"tenant-style\" dir=\"skill://tenant-style\">")
    );
    let (value, _) = read(
        &run,
        "read_file",
        json!({"path": "skill://tenant-style/references/voice.md"}),
    );
    assert_eq!(value["content"], "Warm and brief.");
    assert_eq!(value.get("skill"), None);
    for missing in [
        "skill://tenant-style/nope.md",
        "skill://other/SKILL.md",
        "skill://x",
    ] {
        let (value, _) = read(&run, "read_file", json!({"path": missing}));
        assert_eq!(value["error"], "not_found", "{missing}");
    }
}

#[test]
fn provided_duplicates_conflict_or_merge_and_order_does_not_matter() {
    let fixture = Fixture::new();
    let scope = |skills: Vec<ProvidedSkill>| {
        SkillRuntime::new(Resolver::fixed(
            Scope::workspace(fixture.workspace.path()).with_provided(skills),
        ))
    };
    let error = scope(vec![provided("a", "one"), provided("A", "two")])
        .prepare(RunRequest::new(""))
        .unwrap_err();
    assert!(
        matches!(error, RuntimeError::DuplicateSkill { .. }),
        "{error}"
    );
    let merged = scope(vec![provided("a", "same"), provided("a", "same")])
        .prepare(RunRequest::new(""))
        .unwrap();
    assert_eq!(merged.catalog.as_ref().unwrap().listed, 1);
    let forward = scope(vec![provided("a", "x"), provided("b", "y")])
        .prepare(RunRequest::new(""))
        .unwrap();
    let backward = scope(vec![provided("b", "y"), provided("a", "x")])
        .prepare(RunRequest::new(""))
        .unwrap();
    assert_eq!(forward.system_prompt, backward.system_prompt);
}

#[test]
fn a_provided_skill_colliding_with_a_disk_skill_must_match_it() {
    let fixture = Fixture::new();
    let file = skill(&fixture.root(), "pdf", "");
    let same = ProvidedSkill::parse(fs::read_to_string(&file).unwrap()).unwrap();
    let runtime = |skill: ProvidedSkill| {
        SkillRuntime::new(Resolver::fixed(
            Scope::workspace(fixture.workspace.path()).with_provided([skill]),
        ))
        .prepare(RunRequest::new(""))
    };
    assert_eq!(runtime(same).unwrap().catalog.unwrap().listed, 1);
    let error = runtime(provided("pdf", "different")).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("two different skills are named `pdf`"),
        "{error}"
    );
}

#[test]
fn a_provided_skill_pointing_at_a_file_must_lie_under_a_root() {
    let fixture = Fixture::new();
    fs::create_dir_all(fixture.root()).unwrap();
    let inside = provided("inside", "x").with_source_file(fixture.root().join("inside/SKILL.md"));
    let outside = provided("outside", "x").with_source_file("/etc/skills/outside/SKILL.md");
    let run = |skill: ProvidedSkill| {
        SkillRuntime::new(Resolver::fixed(
            Scope::workspace(fixture.workspace.path()).with_provided([skill]),
        ))
        .prepare(RunRequest::new(""))
    };
    assert!(run(inside).is_ok());
    assert!(matches!(
        run(outside),
        Err(RuntimeError::ProvidedOutsideRoots { ref name, .. }) if name == "outside"
    ));
}
