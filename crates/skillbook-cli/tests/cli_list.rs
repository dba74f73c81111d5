//! `skillbook list` and `skillbook watch` (SPEC §9): the JSON document's shape, the text on
//! stdout and the diagnostics on stderr, a long list printed exactly as the pretty printer
//! prints it, and changes printed as JSON lines.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/workspace.rs"]
mod workspace;

use serde_json::{Value, json};
use workspace::{Fixture, stderr, stdout};

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
/// pretty printer's, byte for byte, in order, with every skill and every front matter field, and
/// every diagnostic (rendered a chunk at a time too) in the order of the skills.
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
        let mut front_matter = shapes[number % shapes.len()].replace("{n}", &name);
        if number % 2 == 1 {
            // A warning: a number where the format asks for text.
            front_matter.push_str("compatibility: 3\n");
        }
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
    let warned: Vec<&str> = parsed["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|diagnostic| diagnostic["code"] == "non_string_value")
        .map(|diagnostic| diagnostic["path"].as_str().unwrap())
        .collect();
    let odd: Vec<&str> = skills
        .iter()
        .map(|skill| skill["location"].as_str().unwrap())
        .filter(|location| {
            let name = location.rsplit('/').nth(1).unwrap();
            let number: usize = name.trim_start_matches("skill-").parse().unwrap();
            // An unclosed front matter is read as text: no number in it.
            number % 2 == 1 && number % 50 != 7
        })
        .collect();
    assert!(warned.len() > 256, "more than one chunk: {}", warned.len());
    assert!(warned == odd, "warnings out of order");
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

/// `skillbook watch` on the fixture with `options`, and its stdout line by line. Lines are read
/// on a thread so that a silent watcher fails the test instead of hanging it.
fn watch(
    fixture: &Fixture,
    options: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command as Process, Stdio};
    let mut child = Process::new(assert_cmd::cargo::cargo_bin("skillbook"))
        .arg("--no-home")
        .args(options)
        .arg("--workspace")
        .arg(fixture.workspace.path())
        .arg("watch")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (sender, lines) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let _ = sender.send(line.unwrap());
        }
    });
    (child, lines)
}

#[test]
fn watch_prints_changes_as_json_lines() {
    let fixture = Fixture::new();
    let (mut child, lines) = watch(&fixture, &["--format", "json"]);
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

/// With nothing found, `list` says where it looked: every root, in priority order.
#[test]
fn list_with_nothing_found_names_every_root_it_searched() {
    let fixture = Fixture::new();
    let output = fixture
        .command()
        .args(["--no-home", "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        fixture.redact(&stdout(&output)),
        "No skills found. Searched:\n  [WS]/.skillbook/skills\n  [WS]/.agents/skills\n  \
         [WS]/.claude/skills\n"
    );
}

/// `--quiet` keeps warnings off stderr, never errors, and leaves the JSON document whole.
#[test]
fn quiet_hides_warnings_but_never_errors() {
    let fixture = Fixture::new();
    // A name that differs from its folder (a warning) and a front matter that is no YAML (an
    // error).
    fixture.skill(
        &fixture.root(),
        "a",
        "---\nname: review\ndescription: R.\n---\n",
    );
    fixture.skill(
        &fixture.root(),
        "broken",
        "---\nname: broken\ndescription: [oops\n---\n",
    );
    for arguments in [
        &["list"][..],
        &["catalog"],
        &["search", "review"],
        &["show", "review"],
    ] {
        let loud = fixture.command().args(arguments).output().unwrap();
        assert!(stderr(&loud).contains("warning["), "{arguments:?}");
        let quiet = fixture
            .command()
            .arg("-q")
            .args(arguments)
            .output()
            .unwrap();
        assert_eq!(quiet.status.code(), loud.status.code(), "{arguments:?}");
        assert_eq!(stdout(&quiet), stdout(&loud), "{arguments:?}");
        let said = stderr(&quiet);
        assert!(!said.contains("warning["), "{arguments:?}: {said}");
        if arguments[0] != "show" {
            assert!(
                said.contains("error[invalid_yaml]"),
                "{arguments:?}: {said}"
            );
        }
    }
    let json = fixture
        .command()
        .args(["--quiet", "list", "--format", "json"])
        .output()
        .unwrap();
    let document: Value = serde_json::from_slice(&json.stdout).unwrap();
    let codes: Vec<&str> = document["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| diagnostic["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"name_directory_mismatch"), "{codes:?}");
}

/// In text, `watch` prints each diagnostic once in a run: every event's discovery reports every
/// problem again, and only the new ones are said.
#[test]
fn watch_in_text_prints_each_diagnostic_once() {
    let fixture = Fixture::new();
    fixture.skill(
        &fixture.root(),
        "colon",
        "---\nname: colon\ndescription: Use when: asked\n---\n",
    );
    let (mut child, lines) = watch(&fixture, &[]);
    let next = || {
        lines
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("a line from `skillbook watch` within 30 s")
    };
    assert!(next().starts_with("watching "));
    for name in ["one", "two"] {
        fixture.skill(
            &fixture.root(),
            name,
            &format!("---\nname: {name}\ndescription: D.\n---\n"),
        );
        assert_eq!(next(), format!("+ {name}"));
    }
    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    let said = stderr(&output);
    assert_eq!(said.matches("repaired_yaml").count(), 1, "{said}");
}
