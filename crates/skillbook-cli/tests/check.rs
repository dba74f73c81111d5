//! `skillbook check`: compiler-style output, JSON shape, exit codes and what can be checked.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;

struct Fixture {
    workspace: TempDir,
    home: TempDir,
}

impl Fixture {
    fn new() -> Self {
        Fixture {
            workspace: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes `<workspace>/<relative>` and returns its path.
    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let file = self.workspace.path().join(relative);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, text).unwrap();
        file
    }

    /// `skillbook check` run from the workspace, with an empty home.
    fn check(&self, arguments: &[&str]) -> Output {
        Command::cargo_bin("skillbook")
            .unwrap()
            .current_dir(self.workspace.path())
            .env("HOME", self.home.path())
            .env_remove("RUST_LOG")
            .env_remove("NO_COLOR")
            .arg("check")
            .args(arguments)
            .output()
            .unwrap()
    }

    fn redact(&self, text: &str) -> String {
        text.replace(&self.workspace.path().display().to_string(), "[WS]")
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn valid_skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n")
}

#[test]
fn text_output_points_at_the_spot_with_a_caret_and_a_hint() {
    let fixture = Fixture::new();
    fixture.write(
        "skills/pdf-tools/SKILL.md",
        "---\nname: pdf-tools\ndescription: Fill forms. Use when: the user has a PDF\n---\n",
    );
    let output = fixture.check(&["skills"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stderr(&output), "");
    assert_eq!(
        stdout(&output),
        "\
warning[repaired_yaml]: a value contains `: ` without quotes, which is invalid YAML (many clients drop this skill); it was read as if quoted
 --> skills/pdf-tools/SKILL.md:3:34
  |
3 | description: Fill forms. Use when: the user has a PDF
  |                                  ^
  |
  = help: write it as: description: \"Fill forms. Use when: the user has a PDF\"

checked 1 skill: 0 errors, 1 warning
"
    );
}

#[test]
fn errors_exit_with_1_and_every_problem_is_listed() {
    let fixture = Fixture::new();
    fixture.write(
        "skills/pdf-tools/SKILL.md",
        "---\nname: PDF Tools\ndescription: d\n---\n",
    );
    let output = fixture.check(&["skills/pdf-tools"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "\
error[name_not_lowercase]: the name `PDF Tools` has upper-case letters; names are lower case
 --> skills/pdf-tools/SKILL.md:2:7
  |
2 | name: PDF Tools
  |       ^
  |
  = help: write it as: name: pdf-tools

error[name_invalid_character]: the name `PDF Tools` holds a space; only letters, digits and hyphens are allowed
 --> skills/pdf-tools/SKILL.md:2:10
  |
2 | name: PDF Tools
  |          ^
  |
  = help: write it as: name: pdf-tools

error[name_directory_mismatch]: the name `PDF Tools` differs from the skill's directory `pdf-tools`; clients expect them to be equal
 --> skills/pdf-tools/SKILL.md:2:7
  |
2 | name: PDF Tools
  |       ^
  |
  = help: write it as: name: pdf-tools

checked 1 skill: 3 errors, 0 warnings
"
    );
}

#[test]
fn warnings_pass_unless_strict() {
    let fixture = Fixture::new();
    fixture.write(
        "skills/versioned/SKILL.md",
        "---\nname: versioned\ndescription: d\nversion: 2\n---\n",
    );
    let lenient = fixture.check(&["skills"]);
    assert_eq!(lenient.status.code(), Some(0));
    assert!(stdout(&lenient).starts_with("warning[unknown_field]: "));
    let strict = fixture.check(&["--strict", "skills"]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(stdout(&strict).starts_with("error[unknown_field]: "));
    assert!(stdout(&strict).ends_with("checked 1 skill: 1 error, 0 warnings\n"));
}

#[test]
fn a_valid_tree_exits_0_and_says_so() {
    let fixture = Fixture::new();
    fixture.write("skills/a/SKILL.md", &valid_skill("a"));
    fixture.write("skills/nested/b/SKILL.md", &valid_skill("b"));
    let output = fixture.check(&["--strict", "skills"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "checked 2 skills: no problems\n");
}

#[test]
fn json_has_the_documented_shape() {
    let fixture = Fixture::new();
    fixture.write("skills/good/SKILL.md", &valid_skill("good"));
    fixture.write("skills/lower/skill.md", &valid_skill("lower"));
    fixture.write(
        "skills/long/SKILL.md",
        &format!("---\nname: long\ndescription: {}\n---\n", "d".repeat(1025)),
    );
    let output = fixture.check(&["skills", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report,
        json!({
            "valid": false,
            "skills_checked": 3,
            "problems": [
                {
                    "severity": "error",
                    "code": "description_too_long",
                    "path": "skills/long/SKILL.md",
                    "line": 3,
                    "column": 14,
                    "message": "the description is 1025 characters long; the limit is 1024",
                    "hint": "shorten it to what the skill does and when to use it; move details \
                             into the body"
                },
                {
                    "severity": "warning",
                    "code": "lowercase_file_name",
                    "path": "skills/lower/skill.md",
                    "line": null,
                    "column": null,
                    "message": "the skill file is named `skill.md`; the format names it \
                                `SKILL.md`, and some clients look only for that name",
                    "hint": "rename the file to SKILL.md"
                }
            ]
        })
    );
}

#[test]
fn a_skill_file_a_folder_and_a_root_can_be_checked_together() {
    let fixture = Fixture::new();
    let file = fixture.write("one/SKILL.md", &valid_skill("one"));
    fixture.write("two/SKILL.md", &valid_skill("two"));
    fixture.write("many/x/SKILL.md", &valid_skill("x"));
    fixture.write("many/y/z/SKILL.md", &valid_skill("z"));
    let output = fixture.check(&[file.to_str().unwrap(), "two", "many", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report,
        json!({"valid": true, "skills_checked": 4, "problems": []})
    );
}

#[test]
fn without_paths_the_discovered_roots_are_checked() {
    let fixture = Fixture::new();
    fixture.write(".agents/skills/mine/SKILL.md", &valid_skill("Mine"));
    let output = fixture.check(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(&fixture.redact(&stdout(&output))).unwrap();
    assert_eq!(report["skills_checked"], 1);
    assert_eq!(
        report["problems"][0]["path"],
        "[WS]/.agents/skills/mine/SKILL.md"
    );
    assert_eq!(report["problems"][0]["code"], "name_not_lowercase");

    let empty = Fixture::new();
    let output = empty.check(&[]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        empty.redact(&stdout(&output)),
        "\
error[no_skill_found]: no skill found in the searched roots
--> [WS]
 = help: put skills under .agents/skills in the workspace, or give the paths to check

checked 0 skills: 1 error, 0 warnings
"
    );
}

#[test]
fn usage_errors_exit_with_2() {
    let fixture = Fixture::new();
    fixture.write("README.md", "# readme\n");
    let missing = fixture.check(&["nowhere"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(stdout(&missing), "");
    assert_eq!(
        stderr(&missing),
        "error: nowhere: no such file or directory; give a skill directory, a SKILL.md, or a \
         directory of skills\n"
    );
    let not_a_skill = fixture.check(&["README.md"]);
    assert_eq!(not_a_skill.status.code(), Some(2));
    assert_eq!(
        stderr(&not_a_skill),
        "error: README.md: not a skill file: give a skill directory, a SKILL.md, or a \
         directory of skills\n"
    );
    let unknown_flag = fixture.check(&["--pedantic"]);
    assert_eq!(unknown_flag.status.code(), Some(2));
}

#[test]
fn an_empty_folder_is_a_problem_not_a_usage_error() {
    let fixture = Fixture::new();
    fs::create_dir_all(fixture.workspace.path().join("empty")).unwrap();
    let output = fixture.check(&["empty", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report,
        json!({
            "valid": false,
            "skills_checked": 0,
            "problems": [{
                "severity": "error",
                "code": "no_skill_found",
                "path": "empty",
                "line": null,
                "column": null,
                "message": "no skill found here: a skill is a directory holding a SKILL.md",
                "hint": "give a skill directory, a SKILL.md, or a directory that holds skills"
            }]
        })
    );
}

#[test]
fn the_example_skills_pass_strict() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills");
    let output = Fixture::new().check(&["--strict", examples.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output).ends_with("no problems\n"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn client_fields_are_accepted_and_others_can_be_allowed() {
    let fixture = Fixture::new();
    fixture.write(
        "skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploy the app.\ndisable-model-invocation: true\n\
         argument-hint: \"[environment]\"\nuser-invocable: true\nmodel: haiku\neffort: low\n\
         context: fork\nagent: Explore\nhooks:\n  Stop:\n    - command: echo done\n\
         paths: \"deploy/**\"\nshell: bash\n---\nDeploy.\n",
    );
    let output = fixture.check(&["--strict", "skills"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    fixture.write(
        "skills/notes/SKILL.md",
        "---\nname: notes\ndescription: Take notes.\nversion: \"2\"\nowner: ann\n---\nNotes.\n",
    );
    let codes = |output: &Output| -> Vec<(String, String)> {
        let report: Value = serde_json::from_str(&stdout(output)).unwrap();
        report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|problem| {
                let field = problem["message"].as_str().unwrap().split('`').nth(1);
                (
                    problem["code"].as_str().unwrap().to_owned(),
                    field.unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    let output = fixture.check(&["--strict", "skills", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let found = codes(&output);
    assert_eq!(
        found,
        [
            ("unknown_field".to_owned(), "version".to_owned()),
            ("unknown_field".to_owned(), "owner".to_owned())
        ]
    );
    let text = stdout(&fixture.check(&["skills"]));
    assert!(
        text.contains("allow it with --allow-field version"),
        "{text}"
    );
    let output = fixture.check(&[
        "--strict",
        "skills",
        "--allow-field",
        "version",
        "--format",
        "json",
    ]);
    assert_eq!(
        codes(&output),
        [("unknown_field".to_owned(), "owner".to_owned())]
    );
    let output = fixture.check(&[
        "--strict",
        "skills",
        "--allow-field",
        "version",
        "--allow-field",
        "owner",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn a_list_of_allowed_tools_is_a_warning_with_the_string_to_write() {
    let fixture = Fixture::new();
    fixture.write(
        "skills/tools/SKILL.md",
        "---\nname: tools\ndescription: Use tools.\nallowed-tools:\n  - Read\n  - Bash(git:*)\n---\n",
    );
    let output = fixture.check(&["skills", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let problem = &report["problems"][0];
    assert_eq!(problem["severity"], "warning");
    assert_eq!(problem["code"], "non_string_value");
    assert_eq!(
        problem["hint"],
        "write it as one string: allowed-tools: Read Bash(git:*)"
    );
    assert_eq!(
        (problem["line"].clone(), problem["column"].clone()),
        (json!(4), json!(15))
    );
    assert_eq!(
        fixture.check(&["--strict", "skills"]).status.code(),
        Some(1)
    );
    // A list of something else is still the wrong type.
    fixture.write(
        "skills/tools/SKILL.md",
        "---\nname: tools\ndescription: Use tools.\nallowed-tools:\n  - name: Read\n---\n",
    );
    let output = fixture.check(&["skills", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["problems"][0]["code"], "invalid_field_type");
}
