//! One size limit for every skill file a run reads whole: the scope's `Limits::max_file_bytes`,
//! which its discovery keeps to as well. The read tool reads a segment at a time and keeps its
//! own limit (`ReadOptions::max_file_bytes`, 64 MiB by default).

use super::*;
use crate::diagnostic::DiagnosticCode;
use crate::discovery::Limits;
use crate::read::ReadError;

/// A scope over the fixture's workspace whose skill files may be at most `bytes` long.
fn limited(fixture: &Fixture, bytes: u64) -> SkillRuntime {
    let scope = Scope::workspace(fixture.workspace.path()).with_limits(file_limit(bytes));
    SkillRuntime::new(Resolver::fixed(scope)).activate_tool(true)
}

/// Limits of `bytes` per skill file.
fn file_limit(bytes: u64) -> Limits {
    Limits {
        max_file_bytes: bytes,
        ..Limits::default()
    }
}

/// A skill whose body holds `padding` bytes of notes before its last line.
fn padded(fixture: &Fixture, name: &str, padding: usize) -> PathBuf {
    let file = fixture.root().join(name).join("SKILL.md");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let notes = "note\n".repeat(padding / 5 + 1);
    let text = format!(
        "---\nname: {name}\ndescription: The {name} skill.\n---\n# {name}\n{notes}Step one for {name}.\n"
    );
    fs::write(&file, text).unwrap();
    file
}

#[test]
fn a_small_limit_holds_for_selection_the_reader_activation_and_provided_skills() {
    let fixture = Fixture::new();
    let big = padded(&fixture, "big", 400);
    skill(&fixture.root(), "small", "");
    let runtime = limited(&fixture, 200);
    let too_large = |value: &Value| {
        assert_eq!(value["error"], "too_large", "{value}");
        assert!(
            value["message"]
                .as_str()
                .unwrap()
                .contains("200-byte limit")
        );
    };

    // Discovery kept to the same limit.
    let run = runtime.prepare(RunRequest::new("")).unwrap();
    assert!(
        run.diagnostics
            .iter()
            .any(|diagnostic| diagnostic.code == DiagnosticCode::FileTooLarge),
        "{:?}",
        run.diagnostics
    );
    // The read tool reads a segment at a time, within its own limit: it still serves the file.
    let (value, result) = read(&run, "read_file", json!({"path": big}));
    assert!(!result.is_error, "{value}");
    // `activate_skill` refuses it rather than cut it.
    let (value, result) = read(&run, ACTIVATE_SKILL, json!({"name": "big"}));
    assert!(result.is_error);
    too_large(&value);
    // A selected skill fails the run before any model call.
    let error = runtime
        .prepare(RunRequest::new("").with_selected(["big"]))
        .unwrap_err();
    assert!(
        matches!(
            &error,
            RuntimeError::SkillUnreadable { name, source: ReadError::TooLarge { limit: 200, .. }, .. }
                if name == "big"
        ),
        "{error}"
    );
    // A provided skill over the limit is refused with it.
    let provided = ProvidedSkill::parse(format!(
        "---\nname: memo\ndescription: A memo.\n---\n{}\n",
        "y".repeat(300)
    ))
    .unwrap();
    let scope = Scope::workspace(fixture.workspace.path())
        .with_limits(file_limit(200))
        .with_provided([provided]);
    let error = SkillRuntime::new(Resolver::fixed(scope))
        .prepare(RunRequest::new(""))
        .unwrap_err();
    assert!(
        matches!(error, RuntimeError::ProvidedTooLarge { limit: 200, .. }),
        "{error}"
    );

    // A skill within the limit goes every way.
    let run = runtime
        .prepare(RunRequest::new("").with_selected(["small"]))
        .unwrap();
    assert!(run.items[0].content.contains("Step one for small."));
    let (_, result) = read(&run, ACTIVATE_SKILL, json!({"name": "small"}));
    assert!(!result.is_error, "{}", result.content);
    assert!(
        result
            .content
            .starts_with("<skill_instructions name=\"small\"")
    );
    let small = fixture.root().join("small/SKILL.md");
    let (value, _) = read(&run, "read_file", json!({"path": small}));
    assert_eq!(value["skill"], "small", "{value}");
}

#[test]
fn a_raised_limit_serves_a_skill_file_past_the_default_whole() {
    let fixture = Fixture::new();
    let default = usize::try_from(Limits::default().max_file_bytes).unwrap();
    let big = padded(&fixture, "big", default + 1024);
    let size = fs::metadata(&big).unwrap().len();
    let run = limited(&fixture, 4 * size)
        .prepare(RunRequest::new(""))
        .unwrap();
    let (_, result) = read(&run, ACTIVATE_SKILL, json!({"name": "big"}));
    assert!(!result.is_error, "{}", result.content);
    assert!(result.content.contains("Step one for big."), "cut short");
    let (value, result) = read(&run, "read_file", json!({"path": big}));
    assert!(!result.is_error, "{value}");
}
