//! The CLI contract of SPEC §9: output shapes, streams and exit codes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

use std::fs;
use std::path::{Path, PathBuf};

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

    fn root(&self) -> PathBuf {
        self.workspace.path().join(".agents/skills")
    }

    /// Writes `<dir>/<relative>/SKILL.md`.
    fn skill(&self, directory: &Path, relative: &str, text: &str) -> PathBuf {
        let folder = directory.join(relative);
        fs::create_dir_all(&folder).unwrap();
        let file = folder.join("SKILL.md");
        fs::write(&file, text).unwrap();
        file
    }

    /// `skillbook` with the workspace and an empty home set.
    fn command(&self) -> Command {
        let mut command = Command::cargo_bin("skillbook").unwrap();
        command
            .env("HOME", self.home.path())
            .env_remove("RUST_LOG")
            .arg("--workspace")
            .arg(self.workspace.path());
        command
    }

    /// Replaces the temporary directories in `text` so assertions can be exact.
    fn redact(&self, text: &str) -> String {
        text.replace(&self.workspace.path().display().to_string(), "[WS]")
            .replace(&self.home.path().display().to_string(), "[HOME]")
    }
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn list_json_has_the_documented_shape() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: MIT\n---\n# PDF\n",
    );
    fixture.skill(
        &fixture.root(),
        "broken",
        "---\nname: broken\ndescription: [oops\n---\n",
    );
    let output = fixture
        .command()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stderr(&output), "");
    let listing: Value = serde_json::from_str(&fixture.redact(&stdout(&output))).unwrap();
    assert_eq!(
        listing,
        json!({
            "skills": [
                {
                    "name": "broken",
                    "description": "[oops",
                    "location": "[WS]/.agents/skills/broken/SKILL.md",
                    "directory": "[WS]/.agents/skills/broken",
                    "source": "workspace",
                    "disable_model_invocation": false,
                    "front_matter": {"name": "broken", "description": "[oops"},
                    "raw_front_matter": "name: broken\ndescription: [oops\n"
                },
                {
                    "name": "pdf",
                    "description": "Fill PDF forms.",
                    "location": "[WS]/.agents/skills/pdf/SKILL.md",
                    "directory": "[WS]/.agents/skills/pdf",
                    "source": "workspace",
                    "disable_model_invocation": false,
                    "front_matter": {"name": "pdf", "description": "Fill PDF forms.", "license": "MIT"},
                    "raw_front_matter": "name: pdf\ndescription: Fill PDF forms.\nlicense: MIT\n"
                }
            ],
            "read_roots": ["[WS]/.agents/skills"],
            "diagnostics": [listing["diagnostics"][0].clone()]
        })
    );
    let diagnostic = &listing["diagnostics"][0];
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["code"], "invalid_yaml");
    assert_eq!(diagnostic["path"], "[WS]/.agents/skills/broken/SKILL.md");
    assert_eq!(diagnostic["line"], 3);
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .contains("not valid YAML")
    );
}

/// Many skills are rendered a chunk at a time on several threads: the document is still the
/// pretty printer's, byte for byte, in order, with every skill and every front matter field.
#[test]
fn a_long_list_is_printed_exactly_as_the_pretty_printer_prints_it() {
    let fixture = Fixture::new();
    let shapes = [
        "name: {n}\ndescription: Plain {n}.\nlicense: MIT\nmetadata:\n  owner: team\n  version: \"1.0\"\n",
        "name: {n}\ndescription: \"Quoted: with a colon, and \\\"escapes\\\"\"\ntags: [a, b]\nempty: {}\nnone: []\n",
        "name: {n}\ndescription: |\n  Two lines\n  of text\nallowed-tools: Read Grep\nversion: 007\nflag: yes\n",
    ];
    for number in 0..700 {
        let name = format!("skill-{number:04}");
        let front_matter = shapes[number % shapes.len()].replace("{n}", &name);
        let text = match number % 50 {
            // An unclosed front matter is read line by line.
            7 => format!("---\n{front_matter}"),
            _ => format!("---\n{front_matter}---\n# Body\n"),
        };
        fixture.skill(
            &fixture.root(),
            &format!("group-{}/{name}", number % 9),
            &text,
        );
    }
    let output = fixture
        .command()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let printed = stdout(&output);
    let parsed: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        serde_json::to_string_pretty(&parsed).unwrap() + "\n",
        printed
    );
    let skills = parsed["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 700);
    // In discovery's order: by folder.
    let locations: Vec<&str> = skills
        .iter()
        .map(|skill| skill["location"].as_str().unwrap())
        .collect();
    assert!(locations.is_sorted(), "{locations:?}");
    for skill in skills {
        let name = skill["name"].as_str().unwrap();
        let number: usize = name.trim_start_matches("skill-").parse().unwrap();
        let front_matter = &skill["front_matter"];
        assert_eq!(front_matter["name"], name, "{skill}");
        if number % 50 == 7 {
            // Unclosed: read line by line, `key: value` only.
            continue;
        }
        match number % shapes.len() {
            0 => assert_eq!(
                front_matter["metadata"],
                json!({"owner": "team", "version": "1.0"})
            ),
            1 => assert_eq!(
                (
                    &front_matter["tags"],
                    &front_matter["empty"],
                    &front_matter["none"]
                ),
                (&json!(["a", "b"]), &json!({}), &json!([]))
            ),
            _ => {
                assert_eq!(front_matter["description"], "Two lines\nof text\n");
                assert_eq!(front_matter["version"], "007");
            }
        }
    }
}

#[test]
fn list_text_prints_skills_on_stdout_and_diagnostics_on_stderr() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "a",
        "---\nname: review\ndescription: Reviews.\n---\n",
    );
    fixture.skill(
        &fixture.workspace.path().join(".skillbook/skills"),
        "b",
        "---\nname: Review\ndescription: Also reviews.\ndisable-model-invocation: true\n---\n",
    );
    let output = fixture.command().arg("list").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        fixture.redact(&stdout(&output)),
        "Review  workspace  [WS]/.skillbook/skills/b/SKILL.md  (manual only)\n        Also reviews.\n"
    );
    // The folders `a` and `b` do not match the names, and `Review` is not lower case.
    assert_eq!(
        fixture.redact(&stderr(&output)),
        "warning[name_not_lowercase]: [WS]/.skillbook/skills/b/SKILL.md:2:7: the name `Review` \
         has upper-case letters; names are lower case; write it as: name: review\n\
         warning[name_directory_mismatch]: [WS]/.skillbook/skills/b/SKILL.md:2:7: the name \
         `Review` differs from the skill's directory `b`; clients expect them to be equal; write \
         it as: name: b\n\
         warning[name_directory_mismatch]: [WS]/.agents/skills/a/SKILL.md:2:7: the name \
         `review` differs from the skill's directory `a`; clients expect them to be equal; \
         rename the directory to `review`, or write: name: a\n\
         warning[shadowed]: [WS]/.agents/skills/a/SKILL.md: skill `review` is ignored: \
         [WS]/.skillbook/skills/b/SKILL.md has the same name and comes first. Rename one of \
         them (names are compared ignoring case)\n"
    );
}

#[test]
fn home_skills_follow_home_and_no_home() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.home.path().join(".agents/skills"),
        "personal",
        "---\nname: personal\ndescription: Mine.\n---\n",
    );
    let names = |output: std::process::Output| -> Vec<String> {
        let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
        listing["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|skill| format!("{}:{}", skill["name"], skill["source"]))
            .collect()
    };
    let from_env = fixture
        .command()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(names(from_env), ["\"personal\":\"global\""]);
    let off = fixture
        .command()
        .args(["list", "--format", "json", "--no-home"])
        .output()
        .unwrap();
    assert!(names(off).is_empty());
    let other_home = tempfile::tempdir().unwrap();
    let explicit = fixture
        .command()
        .args(["list", "--format", "json", "--home"])
        .arg(other_home.path())
        .output()
        .unwrap();
    assert!(names(explicit).is_empty());
}

#[test]
fn namespace_and_extra_options_choose_the_roots() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.workspace.path().join(".codex/skills"),
        "c",
        "---\nname: codex-skill\ndescription: C.\n---\n",
    );
    fixture.skill(
        &fixture.root(),
        "a",
        "---\nname: agents-skill\ndescription: A.\n---\n",
    );
    fixture.skill(
        &fixture.workspace.path().join("vendor/skills"),
        "v",
        "---\nname: vendored\ndescription: V.\n---\n",
    );
    let output = fixture
        .command()
        .args([
            "--namespace",
            ".codex",
            "list",
            "--format",
            "json",
            "--extra",
            "vendor/skills",
        ])
        .current_dir(fixture.home.path())
        .output()
        .unwrap();
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["codex-skill", "vendored"]);
}

#[test]
fn catalog_prints_exactly_what_the_model_sees() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "api",
        "---\nname: api\ndescription: Call the <API> & check 'quotes'.\n---\n",
    );
    let output = fixture
        .command()
        .args(["catalog", "--tool-name", "read_skill_file"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = fixture.redact(&stdout(&output));
    assert!(text.contains(
        "  <skill>\n    <name>api</name>\n    <description>Call the &lt;API&gt; &amp; check \
         &apos;quotes&apos;.</description>\n    <location>[WS]/.agents/skills/api/SKILL.md\
         </location>\n  </skill>\n"
    ));
    assert!(text.contains("`read_skill_file` tool"));
    assert!(text.ends_with("for any file it points to.\n"));

    let json_output = fixture
        .command()
        .args([
            "catalog",
            "--format",
            "json",
            "--tool-name",
            "read_skill_file",
        ])
        .output()
        .unwrap();
    let catalog: Value = serde_json::from_slice(&json_output.stdout).unwrap();
    assert_eq!(
        format!("{}\n", catalog["catalog"].as_str().unwrap()),
        stdout(&output)
    );
    assert_eq!(catalog["listed"], 1);
    assert_eq!(catalog["fingerprint"].as_str().unwrap().len(), 16);
}

#[test]
fn catalog_of_only_manual_skills_prints_nothing() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "manual",
        "---\nname: manual\ndescription: M.\ndisable-model-invocation: true\n---\n",
    );
    let output = fixture.command().arg("catalog").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "");
    let json_output = fixture
        .command()
        .args(["catalog", "--format", "json"])
        .output()
        .unwrap();
    let catalog: Value = serde_json::from_slice(&json_output.stdout).unwrap();
    assert_eq!(catalog["catalog"], Value::Null);
}

#[test]
fn catalog_budget_shortens_every_entry_and_reports_the_tier() {
    let fixture = Fixture::new();
    for name in ["alpha", "bravo", "charlie"] {
        fixture.skill(
            &fixture.root(),
            name,
            &format!(
                "---\nname: {name}\ndescription: Skill {name}. It does many things at length, \
                 with detail.\n---\n"
            ),
        );
    }
    let catalog = |budget: &str| -> (Value, String) {
        let output = fixture
            .command()
            .args(["catalog", "--budget", budget, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        (
            serde_json::from_slice(&output.stdout).unwrap(),
            stderr(&output),
        )
    };
    let (full, _) = catalog("100000");
    assert_eq!(
        (full["tier"].clone(), full["listed"].clone()),
        (json!(1), json!(3))
    );
    let size = full["catalog"].as_str().unwrap().chars().count();
    let (second, _) = catalog(&(size - 1).to_string());
    assert_eq!(second["tier"], 2, "{second}");
    assert_eq!(
        (second["listed"].clone(), second["left_out"].clone()),
        (json!(3), json!(0))
    );
    assert!(
        second["catalog"]
            .as_str()
            .unwrap()
            .contains("<description>Skill bravo.</description>")
    );
    let (tiny, _) = catalog("10");
    assert_eq!(tiny["tier"], 4);
    assert_eq!(
        (tiny["listed"].clone(), tiny["left_out"].clone()),
        (json!(0), json!(3))
    );
    assert_eq!(tiny["over_budget"], true);
    assert!(tiny["catalog"].as_str().unwrap().contains("search_skills"));
    // Text: the catalog alone on stdout, what the budget did on stderr.
    let output = fixture
        .command()
        .args(["catalog", "--budget", "10"])
        .output()
        .unwrap();
    assert!(stdout(&output).contains("3 skills are available"));
    assert_eq!(
        stderr(&output),
        "note: tier 4 of 4 to fit --budget: no list; the model searches for skills (still over \
         the budget of 10 characters)\n"
    );
}

#[test]
fn search_finds_skills_by_task_and_never_manual_ones() {
    let fixture = Fixture::new();
    for (name, description, extra) in [
        ("pdf", "Fill PDF forms and extract their fields.", ""),
        (
            "xlsx",
            "Edit spreadsheets: formulas, charts and pivot tables.",
            "",
        ),
        (
            "deploy",
            "Deploy the application to production.",
            "disable-model-invocation: true\n",
        ),
    ] {
        fixture.skill(
            &fixture.root(),
            name,
            &format!("---\nname: {name}\ndescription: {description}\n{extra}---\n"),
        );
    }
    let search = |arguments: &[&str]| -> Value {
        let output = fixture
            .command()
            .arg("search")
            .args(arguments)
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let found = search(&["fill", "the", "PDF", "form"]);
    assert_eq!(found["results"][0]["name"], "pdf");
    let keys: Vec<&String> = found["results"][0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "location", "score"]);
    assert!(
        search(&["deploy", "production", "--limit", "20"])["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|hit| hit["name"] != "deploy")
    );
    assert_eq!(
        search(&["pdf spreadsheets", "--limit", "1"])["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let output = fixture
        .command()
        .args(["search", "x", "--limit", "21"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = fixture
        .command()
        .args(["search", "zebra"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&output),
        "No skill matches `zebra` (2 model-visible skills searched).\n"
    );
}

#[test]
fn show_prints_the_skill_file_and_fails_clearly_for_unknown_names() {
    let fixture = Fixture::new();
    let text = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nSteps.\n";
    fixture.skill(&fixture.root(), "pdf", text);
    let output = fixture.command().args(["show", "PDF"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), text);

    let json_output = fixture
        .command()
        .args(["show", "pdf", "--format", "json"])
        .output()
        .unwrap();
    let shown: Value = serde_json::from_slice(&json_output.stdout).unwrap();
    assert_eq!(shown["name"], "pdf");
    assert_eq!(shown["content"], text);
    assert_eq!(shown["truncated"], false);

    let missing = fixture.command().args(["show", "nope"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(stdout(&missing), "");
    assert_eq!(
        stderr(&missing),
        "error: no skill named `nope`; run `skillbook list` to see the one skill found\n"
    );
}

#[test]
fn show_suggests_close_names_and_stays_quiet_about_other_skills() {
    let fixture = Fixture::new();
    for name in ["pdf", "pdf-forms", "docx"] {
        let text = format!("---\nname: {name}\ndescription: {name} skill\n---\n");
        fixture.skill(&fixture.root(), name, &text);
    }
    // Another skill with a problem: `show pdf` does not speak of it.
    fixture.skill(
        &fixture.root(),
        "noisy",
        "---\nname: noisy\ndescription: Use when: x\n---\n",
    );
    let output = fixture.command().args(["show", "pdff"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: no skill named `pdff`; did you mean one of `pdf`, `pdf-forms`? (run `skillbook \
         list` to see all 4 skills)\n"
    );
    let output = fixture
        .command()
        .args(["show", "kubernetes"])
        .output()
        .unwrap();
    assert_eq!(
        stderr(&output),
        "error: no skill named `kubernetes`; run `skillbook list` to see all 4 skills\n"
    );
    let output = fixture.command().args(["show", "pdf"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stderr(&output), "", "only the named skill's diagnostics");
    let output = fixture.command().args(["show", "noisy"]).output().unwrap();
    assert!(stderr(&output).starts_with("warning[repaired_yaml]: "));
}

#[test]
fn usage_errors_exit_with_2() {
    let fixture = Fixture::new();
    for arguments in [
        vec!["list", "--format", "yaml"],
        vec!["frobnicate"],
        vec!["show"],
        vec!["list", "--home", "/x", "--no-home"],
    ] {
        let output = fixture.command().args(&arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
    }
}

#[test]
fn a_workspace_that_is_missing_or_a_file_is_a_usage_error_in_every_command() {
    let fixture = Fixture::new();
    let file = fixture.workspace.path().join("a-file");
    fs::write(&file, "x").unwrap();
    let missing = fixture.workspace.path().join("no/such");
    // Under `--format json` the same error is a JSON document on stdout (tested below).
    let commands: [&[&str]; 7] = [
        &["list"],
        &["catalog"],
        &["show", "pdf"],
        &["read", "SKILL.md"],
        &["check"],
        &["watch"],
        &["mcp"],
    ];
    for (workspace, problem) in [(&missing, "no such directory"), (&file, "not a directory")] {
        for arguments in commands {
            let output = Command::cargo_bin("skillbook")
                .unwrap()
                .env("HOME", fixture.home.path())
                .arg("--workspace")
                .arg(workspace)
                .args(arguments)
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{arguments:?}");
            assert_eq!(stdout(&output), "", "{arguments:?}");
            let stderr = stderr(&output);
            assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
            assert!(
                stderr.starts_with(&format!(
                    "error: --workspace {}: {problem}",
                    workspace.display()
                )),
                "{arguments:?}: {stderr}"
            );
        }
    }
}

/// A deleted current directory is never taken for `/`: nothing outside is listed or read.
#[cfg(unix)]
#[test]
fn a_deleted_current_directory_is_an_error_not_the_root() {
    let fixture = Fixture::new();
    let doomed = fixture.workspace.path().join("doomed");
    for arguments in ["list", "read /etc/passwd"] {
        fs::create_dir_all(&doomed).unwrap();
        let skillbook = assert_cmd::cargo::cargo_bin("skillbook");
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "cd '{dir}' && rmdir '{dir}' && exec '{skillbook}' --no-home {arguments}",
                dir = doomed.display(),
                skillbook = skillbook.display()
            ))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{arguments}");
        assert_eq!(stdout(&output), "", "{arguments}");
        assert!(
            stderr(&output).contains("the current directory cannot be read"),
            "{arguments}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_missing_extra_directory_is_a_warning() {
    let fixture = Fixture::new();
    let output = fixture
        .command()
        .args(["--extra", "no-such-dir", "list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let listing: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(listing["diagnostics"][0]["code"], "extra_root_missing");
    assert_eq!(listing["diagnostics"][0]["severity"], "warning");
    let output = fixture
        .command()
        .args(["--extra", "no-such-dir", "list"])
        .output()
        .unwrap();
    assert!(
        fixture
            .redact(&stderr(&output))
            .contains("[WS]/no-such-dir"),
        "{}",
        stderr(&output)
    );
}

/// As root every directory is readable, so the check runs as an unprivileged user.
#[cfg(unix)]
#[test]
fn an_unreadable_directory_is_reported_and_siblings_still_listed() {
    use std::os::unix::fs::PermissionsExt;
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "locked/inner",
        "---\nname: hidden\ndescription: H.\n---\n",
    );
    fixture.skill(
        &fixture.root(),
        "open",
        "---\nname: visible\ndescription: V.\n---\n",
    );
    let locked = fixture.root().join("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(fixture.workspace.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("skillbook");
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|output| output.stdout == b"0\n")
        .unwrap_or(false);
    let mut command = if is_root {
        let mut command = std::process::Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        command.arg(&binary);
        command
    } else {
        std::process::Command::new(&binary)
    };
    let output = command
        .args(["--no-home", "--workspace"])
        .arg(fixture.workspace.path())
        .args(["list", "--format", "json"])
        .output();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    let output = output.expect("setpriv (util-linux) runs the check as an unprivileged user");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listing["skills"][0]["name"], "visible");
    assert_eq!(listing["skills"].as_array().unwrap().len(), 1);
    assert_eq!(listing["diagnostics"][0]["code"], "unreadable");
    assert_eq!(
        listing["diagnostics"][0]["path"],
        locked.display().to_string()
    );
}

#[test]
fn read_prints_the_tool_result_with_the_skill_marker() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nline 5\n\nline 7\n",
    );
    let output = fixture
        .command()
        .args([
            "read",
            ".agents/skills/pdf/SKILL.md",
            "--start-line",
            "5",
            "--end-line",
            "6",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let result: Value = serde_json::from_str(&fixture.redact(&stdout(&output))).unwrap();
    assert_eq!(
        result,
        json!({
            "path": "[WS]/.agents/skills/pdf/SKILL.md",
            "content": "<skill_instructions name=\"pdf\" dir=\"[WS]/.agents/skills/pdf\">\nline 5\n\n</skill_instructions>",
            "startLine": 5,
            "endLine": 6,
            "truncated": false,
            "totalLines": 7,
            "nextStartLine": 7,
            "skill": "pdf"
        })
    );
}

#[test]
fn read_errors_are_json_objects_with_a_stable_code_and_exit_1() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: P.\n---\n",
    );
    fs::write(
        fixture.workspace.path().join("notes.md"),
        "workspace notes\n",
    )
    .unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["read", "../../../../etc/passwd"], "outside_boundary"),
        (&["read", "missing.md"], "not_found"),
        (&["read", ".agents"], "is_directory"),
        (&["read", "notes.md", "--restricted"], "not_found"),
    ];
    for (arguments, code) in cases {
        let output = fixture.command().args(arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{arguments:?}");
        let error: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(error["error"], code, "{arguments:?}: {error}");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|message| !message.is_empty())
        );
    }
    let absolute = fixture.workspace.path().join("notes.md");
    let output = fixture
        .command()
        .args(["read", "--restricted"])
        .arg(&absolute)
        .output()
        .unwrap();
    let error: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(error["error"], "outside_boundary");
    assert!(!stdout(&output).contains("workspace notes"));
    let usage = fixture
        .command()
        .args(["read", "notes.md", "--start-line", "0"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn demo_runs_all_three_paths_deterministically_without_network() {
    let run = || {
        let fixture = Fixture::new();
        let output = fixture.command().arg("demo").output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        stdout(&output)
    };
    let first = run();
    assert_eq!(first, run());
    for expected in [
        "=== Path 1: the model picks a skill from the catalog ===",
        "=== Path 2: the host names a skill (manual-only `incident-runbook`) ===",
        "=== Path 3: skills handed in from memory (a tenant's store) ===",
        "  read_skill_file (skillbook)",
        "--- model calls read_skill_file {\"path\":\"skill://code-review/SKILL.md\"}\n\
         --- tool result (skill content: code-review)",
        "2. **Correctness first.**",
        "System prompt byte-identical to a run without selection: yes",
        "<selected_skill name=\"incident-runbook\" dir=\"skill://incident-runbook\">",
        "<location>skill://acme-voice/SKILL.md</location>",
        "Avoid: leverage, synergy, utilize.",
        "--- tool result (error)\n{\"error\":\"outside_boundary\"",
    ] {
        assert!(first.contains(expected), "missing: {expected}");
    }
    for catalog in first.split("<available_skills>").skip(1) {
        let catalog = catalog.split("</available_skills>").next().unwrap();
        assert!(!catalog.contains("incident-runbook"));
    }
}

#[test]
fn watch_prints_changes_as_json_lines() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command as Process, Stdio};
    let fixture = Fixture::new();
    let mut child = Process::new(assert_cmd::cargo::cargo_bin("skillbook"))
        .args(["--no-home", "--format", "json", "--workspace"])
        .arg(fixture.workspace.path())
        .arg("watch")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Lines are read on a thread so that a silent watcher fails the test instead of hanging it.
    let (sender, lines) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let _ = sender.send(line.unwrap());
        }
    });
    let next = || -> Value {
        let line = lines.recv_timeout(std::time::Duration::from_secs(30));
        serde_json::from_str(&line.expect("a line from `skillbook watch` within 30 s")).unwrap()
    };
    let ready = next();
    assert_eq!(
        ready,
        json!({"event": "ready", "skills": 0, "diagnostics": []})
    );
    fixture.skill(
        &fixture.root(),
        "fresh",
        "---\nname: fresh\ndescription: F.\n---\n",
    );
    let changed = next();
    assert_eq!(
        changed,
        json!({"event": "changed", "added": ["fresh"], "removed": [], "changed": [],
               "diagnostics": []})
    );
    // A change that brings a problem carries it in the same line, as JSON, not as text.
    fixture.skill(
        &fixture.root(),
        "colon",
        "---\nname: colon\ndescription: Use when: asked\n---\n",
    );
    let changed = next();
    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(changed["added"], json!(["colon"]));
    let codes: Vec<&Value> = changed["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| &diagnostic["code"])
        .collect();
    assert_eq!(codes, [&json!("repaired_yaml")], "{changed}");
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn show_reports_the_skill_files_diagnostics() {
    let fixture = Fixture::new();
    let text = "---\nname: colon\ndescription: Use when: needed\n---\nBody.\n";
    fixture.skill(&fixture.root(), "colon", text);
    let output = fixture.command().args(["show", "colon"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), text);
    assert!(
        stderr(&output).starts_with("warning[repaired_yaml]: "),
        "{}",
        stderr(&output)
    );
    let json_output = fixture
        .command()
        .args(["show", "colon", "--format", "json"])
        .output()
        .unwrap();
    let shown: Value = serde_json::from_slice(&json_output.stdout).unwrap();
    assert_eq!(shown["diagnostics"][0]["code"], "repaired_yaml");
    assert_eq!(stderr(&json_output), "");
}

#[test]
fn a_relative_home_means_the_current_directorys() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.home.path().join("me/.agents/skills"),
        "personal",
        "---\nname: personal\ndescription: Mine.\n---\n",
    );
    let output = fixture
        .command()
        .args(["--home", "me", "list", "--format", "json"])
        .current_dir(fixture.home.path())
        .output()
        .unwrap();
    let listing: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listing["skills"][0]["name"], "personal");
}

#[test]
fn restricted_read_matches_the_skill_reader_of_the_runtime_and_mcp() {
    let fixture = Fixture::new();
    fixture.skill(&fixture.root(), "a", "---\nname: a\ndescription: A.\n---\n");
    fixture.skill(&fixture.root(), "b", "---\nname: b\ndescription: B.\n---\n");
    let manual = fixture.skill(
        &fixture.root(),
        "m",
        "---\nname: m\ndescription: M.\ndisable-model-invocation: true\n---\n",
    );
    let code = |arguments: &[&str]| -> String {
        let output = fixture.command().args(arguments).output().unwrap();
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        value["error"].as_str().unwrap_or("ok").to_owned()
    };
    assert_eq!(
        code(&["read", "--restricted", "b/SKILL.md"]),
        "invalid_argument"
    );
    let b = fixture.root().join("b/SKILL.md");
    assert_eq!(code(&["read", "--restricted", b.to_str().unwrap()]), "ok");
    assert_eq!(
        code(&["read", "--restricted", manual.to_str().unwrap()]),
        "outside_boundary"
    );
    assert_eq!(code(&["read", manual.to_str().unwrap()]), "ok");
}

#[cfg(unix)]
#[test]
fn a_followed_skill_file_link_to_etc_passwd_opens_that_file_only() {
    if !Path::new("/etc/passwd").is_file() {
        return;
    }
    let fixture = Fixture::new();
    let folder = fixture.root().join("linked");
    fs::create_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", folder.join("SKILL.md")).unwrap();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: PDF.\n---\n",
    );
    let listed = fixture
        .command()
        .args(["--symlinks", "follow", "--format", "json", "list"])
        .output()
        .unwrap();
    let listing: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let skill = listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|skill| skill["name"] == "linked")
        .unwrap_or_else(|| panic!("the linked skill is listed: {listing}"));
    assert_eq!(
        skill["location"],
        folder.join("SKILL.md").display().to_string()
    );
    assert!(
        !listing["read_roots"].to_string().contains("\"/etc\""),
        "{}",
        listing["read_roots"]
    );
    let read = |path: &str, restricted: bool| -> Value {
        let mut command = fixture.command();
        command.args(["--symlinks", "follow", "read"]);
        if restricted {
            command.arg("--restricted");
        }
        let output = command.arg(path).output().unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let skill_file = folder.join("SKILL.md").display().to_string();
    assert!(
        read(&skill_file, true)["content"]
            .as_str()
            .unwrap()
            .contains("root:")
    );
    for restricted in [true, false] {
        for path in ["/etc/shadow", "/etc/hostname", "/etc/passwd"] {
            assert_eq!(
                read(path, restricted)["error"],
                "outside_boundary",
                "{path} (restricted: {restricted})"
            );
        }
        let through = folder.join("../../../../../../../etc/shadow");
        assert_eq!(
            read(through.to_str().unwrap(), restricted)["error"],
            "outside_boundary"
        );
    }
}

/// Nothing a skill holds reaches the terminal raw: control characters in a description or a
/// folder's name are shown as escapes by `list`, `show` and the diagnostics.
#[cfg(unix)]
#[test]
fn control_characters_are_shown_escaped_on_the_terminal() {
    let fixture = Fixture::new();
    let text = "---\nname: bell\ndescription: \"Rings \\a and \\e]0;pwned\\a\"\n---\nBody \u{1b}[2J\r\nend\n";
    fixture.skill(&fixture.root(), "bell", text);
    fixture.skill(
        &fixture.root(),
        "odd\u{1b}[31m",
        "---\ndescription: [broken\n---\n",
    );
    let raw = |bytes: &[u8]| bytes.iter().any(|byte| matches!(byte, 0x07 | 0x1b | 0x9b));
    let list = fixture.command().arg("list").output().unwrap();
    assert!(!raw(&list.stdout) && !raw(&list.stderr), "{list:?}");
    assert!(stdout(&list).contains("Rings \\u{7} and \\u{1b}]0;pwned\\u{7}"));
    assert!(
        stderr(&list).contains("odd\\u{1b}[31m"),
        "{}",
        stderr(&list)
    );
    let show = fixture.command().args(["show", "bell"]).output().unwrap();
    assert!(!raw(&show.stdout) && !raw(&show.stderr), "{show:?}");
    assert!(
        stdout(&show).contains("Body \\u{1b}[2J\r\nend"),
        "{}",
        stdout(&show)
    );
    assert!(stderr(&show).starts_with("warning[control_character]: "));
    // JSON keeps the text as it is (escaped by JSON itself).
    let json = fixture
        .command()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert!(!raw(&json.stdout));
    let listing: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        listing["skills"][0]["description"],
        "Rings \u{7} and \u{1b}]0;pwned\u{7}"
    );
}

#[test]
fn completion_scripts_cover_the_commands_and_parse() {
    let fixture = Fixture::new();
    for (shell, first) in [
        ("bash", "_skillbook() {"),
        ("zsh", "#compdef skillbook"),
        ("fish", "# Print an optspec"),
    ] {
        let output = Command::cargo_bin("skillbook")
            .unwrap()
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = stdout(&output);
        assert!(
            script.lines().next().unwrap_or_default().starts_with(first),
            "{shell}: {script}"
        );
        for command in ["list", "catalog", "check", "mcp", "workspace"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
        if shell == "bash" {
            let file = fixture.workspace.path().join("skillbook.bash");
            fs::write(&file, &script).unwrap();
            let status = std::process::Command::new("bash")
                .arg("-n")
                .arg(&file)
                .status()
                .unwrap();
            assert!(status.success(), "bash cannot parse the script");
        }
    }
}

#[test]
fn every_error_is_one_json_document_with_a_code_under_format_json() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "pdf",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n",
    );
    let cases: &[(&[&str], i32, &str)] = &[
        (&["--format", "json", "lsit"], 2, "usage"),
        (&["list", "--budget", "9", "--format=json"], 2, "usage"),
        (&["show", "--format", "json"], 2, "usage"),
        (&["--format", "json"], 2, "usage"),
        (&["show", "pdff", "--format", "json"], 1, "skill_not_found"),
        (&["check", "no/such", "--format", "json"], 2, "not_found"),
        (
            &["read", "../../etc/passwd", "--format", "json"],
            1,
            "outside_boundary",
        ),
    ];
    for (arguments, code, error) in cases {
        let output = fixture.command().args(*arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(*code), "{arguments:?}");
        let document: Value = serde_json::from_str(&stdout(&output))
            .unwrap_or_else(|_| panic!("{arguments:?}: {}", stdout(&output)));
        assert_eq!(document["error"], *error, "{arguments:?}");
        assert_eq!(
            document.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["error", "message"],
            "{arguments:?}"
        );
        assert!(!document["message"].as_str().unwrap().is_empty());
        assert!(
            output.stderr.is_empty(),
            "{arguments:?}: {}",
            stderr(&output)
        );
        // The same failure in text: the same exit code, a line on stderr, nothing on stdout.
        let text: Vec<&str> = arguments
            .iter()
            .copied()
            .filter(|argument| !argument.contains("json"))
            .map(|argument| {
                if argument == "--format" {
                    "--no-home"
                } else {
                    argument
                }
            })
            .collect();
        let output = fixture.command().args(&text).output().unwrap();
        assert_eq!(output.status.code(), Some(*code), "{text:?}");
        if *error != "outside_boundary" {
            assert!(output.stdout.is_empty(), "{text:?}");
            assert!(stderr(&output).starts_with("error: "), "{text:?}");
        }
    }
    // A workspace that is not there, in every command that reads one.
    for command in ["list", "catalog", "show", "read", "watch", "check", "mcp"] {
        let mut arguments = vec![command];
        if matches!(command, "show" | "read") {
            arguments.push("x");
        }
        let output = Command::cargo_bin("skillbook")
            .unwrap()
            .args(["--workspace", "/no/such/dir", "--format", "json"])
            .args(&arguments)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{command}");
        let document: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(document["error"], "invalid_workspace", "{command}");
    }
}

#[test]
fn help_version_demo_and_completions_are_json_under_format_json() {
    let fixture = Fixture::new();
    let json_of = |arguments: &[&str]| -> Value {
        let output = fixture.command().args(arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{arguments:?}");
        serde_json::from_str(&stdout(&output)).unwrap()
    };
    assert!(
        json_of(&["--format", "json", "--help"])["help"]
            .as_str()
            .unwrap()
            .contains("Usage: skillbook")
    );
    assert_eq!(
        json_of(&["--version", "--format", "json"])["version"],
        env!("CARGO_PKG_VERSION")
    );
    let completions = json_of(&["completions", "fish", "--format", "json"]);
    assert_eq!(completions["shell"], "fish");
    assert!(
        completions["script"]
            .as_str()
            .unwrap()
            .contains("complete -c skillbook")
    );
    let demo = json_of(&["demo", "--format", "json"]);
    let paths = demo["paths"].as_array().unwrap();
    assert_eq!(paths.len(), 3);
    // The refused `..` read of path 3 is an `outside_boundary` error, as the README says.
    let last_call = paths[2]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|step| step["kind"] == "call")
        .unwrap();
    assert_eq!(last_call["is_error"], true);
    assert_eq!(last_call["result"]["error"], "outside_boundary");
}

#[test]
fn colours_follow_the_color_option_and_no_color() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "notes",
        "---\nname: notes\ndescription: Use when: asked\n---\n",
    );
    let escape = |arguments: &[&str], no_color: Option<&str>| {
        let mut command = fixture.command();
        command.env_remove("NO_COLOR");
        if let Some(value) = no_color {
            command.env("NO_COLOR", value);
        }
        let output = command.args(arguments).output().unwrap();
        output.stdout.contains(&0x1b)
    };
    // Into a pipe: no colours unless asked for.
    assert!(!escape(&["check"], None));
    assert!(escape(&["check", "--color", "always"], None));
    assert!(
        escape(&["--color=always", "check"], Some("1")),
        "the option wins"
    );
    assert!(!escape(&["check", "--color", "never"], None));
    assert!(escape(&["--color", "always", "--help"], None));
    assert!(!escape(&["--color", "never", "--help"], None));
    let output = fixture
        .command()
        .args(["--color", "purple", "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// A log line (here `skillbook mcp` warning of a broken skill as it starts) shows the control
/// characters of a folder's name escaped: no name can forge a line of the log, nor send the
/// terminal an escape. The colours the log adds itself stay.
#[test]
fn log_lines_show_the_control_characters_of_names_escaped() {
    let fixture = Fixture::new();
    let folder = "evil\n WARN forged: all is well\r\u{1b}[2K";
    fixture.skill(
        &fixture.root(),
        folder,
        "---\nname: evil\ndescription: [broken\n---\n",
    );
    let escaped = r"evil\n WARN forged: all is well\r\u{1b}[2K";
    for colour in ["never", "always"] {
        let output = fixture
            .command()
            .args(["mcp", "--color", colour])
            .output()
            .unwrap();
        let stderr = stderr(&output);
        let warning = stderr
            .lines()
            .find(|line| line.contains("invalid_yaml"))
            .unwrap_or_else(|| panic!("no warning: {stderr}"));
        assert!(warning.contains(escaped), "{warning:?}");
        assert!(
            !stderr.lines().any(|line| line.starts_with(" WARN forged")),
            "{stderr:?}"
        );
        assert!(!stderr.contains('\r'), "{stderr:?}");
        let raw_escapes = stderr.matches('\u{1b}').count();
        match colour {
            "never" => assert_eq!(raw_escapes, 0, "{stderr:?}"),
            _ => {
                // Only the formatter's own colour codes: the level, field names and `=`.
                let own = [
                    "\u{1b}[0m",
                    "\u{1b}[2m",
                    "\u{1b}[3m",
                    "\u{1b}[31m",
                    "\u{1b}[33m",
                ];
                let counted: usize = own.iter().map(|code| stderr.matches(code).count()).sum();
                assert!(raw_escapes > 0, "{stderr:?}");
                assert_eq!(raw_escapes, counted, "{stderr:?}");
            }
        }
        assert!(
            !stderr
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\u{1b}')),
            "{stderr:?}"
        );
    }
}
