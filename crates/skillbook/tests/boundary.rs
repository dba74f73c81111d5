//! Security and behaviour tests of the read boundary and the `read_file` tool of a reader over
//! a boundary (`SkillReader::over_boundary`), on small trees made in temporary directories.
#![allow(clippy::disallowed_methods, reason = "tests read what they wrote")]
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    reason = "a failing unwrap is a failing test, also in the tree helpers"
)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use skillbook::ReadBoundary;
use skillbook::{KnownSkill, ReadOptions, ReadRequest, SkillReader};
use tempfile::TempDir;

/// Planted in every file outside the roots; it must never come back from a read.
const MARKER: &str = "OUTSIDE-SECRET-7f3a9c";

/// A workspace, a skill root and an outside directory side by side:
///
/// ```text
/// top/ws/notes.md, top/ws/docs/guide.md
/// top/skills/pdf/SKILL.md, reference.md, inside-link -> reference.md, dir-link -> ../docx,
///            out-file -> ../../outside/secret.md, out-dir -> ../../outside,
///            abs-out -> <top>/outside/secret.md, zero -> /dev/zero, dangling -> ../../outside/none
/// top/skills/docx/SKILL.md
/// top/outside/secret.md (holds MARKER)
/// ```
struct Tree {
    _temporary: TempDir,
    top: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let temporary = tempfile::tempdir().unwrap();
        let top = temporary.path().to_path_buf();
        let tree = Self {
            _temporary: temporary,
            top,
        };
        tree.file("ws/notes.md", "workspace notes\n");
        tree.file("ws/docs/guide.md", "guide\n");
        tree.file(
            "skills/pdf/SKILL.md",
            "# PDF\n\nFill forms.\nSee reference.md.\n",
        );
        tree.file(
            "skills/pdf/reference.md",
            "reference line 1\nreference line 2\n",
        );
        tree.file("skills/docx/SKILL.md", "# DOCX\n");
        tree.file("outside/secret.md", &format!("{MARKER}\n"));
        let pdf = tree.skills().join("pdf");
        symlink("reference.md", pdf.join("inside-link")).unwrap();
        symlink("../docx", pdf.join("dir-link")).unwrap();
        symlink("../../outside/secret.md", pdf.join("out-file")).unwrap();
        symlink("../../outside", pdf.join("out-dir")).unwrap();
        symlink(tree.outside().join("secret.md"), pdf.join("abs-out")).unwrap();
        symlink("/dev/zero", pdf.join("zero")).unwrap();
        symlink("../../outside/none", pdf.join("dangling")).unwrap();
        tree
    }

    fn file(&self, relative: &str, content: &str) {
        let path = self.top.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn workspace(&self) -> PathBuf {
        self.top.join("ws")
    }

    fn skills(&self) -> PathBuf {
        self.top.join("skills")
    }

    fn outside(&self) -> PathBuf {
        self.top.join("outside")
    }

    /// A reader over the workspace and the skill root.
    fn normal(&self) -> SkillReader {
        over(ReadBoundary::new(self.workspace(), [self.skills()]).unwrap())
    }

    /// A reader over the skill root alone.
    fn restricted(&self) -> SkillReader {
        over(ReadBoundary::restricted([self.skills()]).unwrap())
    }
}

/// A reader over `boundary` that knows no skills.
fn over(boundary: ReadBoundary) -> SkillReader {
    SkillReader::over_boundary(boundary, [])
}

fn read(reader: &SkillReader, arguments: Value) -> Value {
    reader.call_json(&arguments)
}

fn error_code(reader: &SkillReader, path: &str) -> String {
    let reply = read(reader, json!({ "path": path }));
    assert!(!reply.to_string().contains(MARKER), "{path}: {reply}");
    reply["error"].as_str().unwrap_or("<success>").to_owned()
}

#[test]
fn escape_table() {
    let tree = Tree::new();
    let secret = tree.outside().join("secret.md");
    let secret = secret.to_str().unwrap();
    #[rustfmt::skip]
    let attacks: &[(&str, &str)] = &[
        ("../etc/passwd",                    "outside_boundary"),
        ("..",                               "outside_boundary"),
        ("a/../../b",                        "outside_boundary"),
        ("/etc/passwd",                      "outside_boundary"),
        ("/proc/self/root/etc/passwd",       "outside_boundary"),
        (r"..\..\windows\system32",          "not_found"),
        ("%2e%2e%2fetc%2fpasswd",            "not_found"),
        ("..%2f..%2foutside%2fsecret.md",    "not_found"),
        ("ok\0.md",                          "invalid_argument"),
        ("../outside/secret.md",             "outside_boundary"),
        (secret,                             "outside_boundary"),
        ("../skills/pdf/out-file",           "outside_boundary"),
        ("../skills/pdf/out-dir/secret.md",  "outside_boundary"),
        ("../skills/pdf/abs-out",            "outside_boundary"),
        ("../skills/pdf/zero",               "outside_boundary"),
        ("../skills/pdf/dangling",           "outside_boundary"),
    ];
    let normal = tree.normal();
    for (attack, expected) in attacks {
        assert_eq!(error_code(&normal, attack), *expected, "normal: {attack:?}");
    }
    // The same attacks one level deeper, from the restricted base `skills/`.
    let restricted = tree.restricted();
    for (attack, expected) in attacks {
        let attack = attack.replacen("../skills/", "", 1);
        assert_eq!(
            error_code(&restricted, &attack),
            *expected,
            "restricted: {attack:?}"
        );
    }
}

#[test]
fn the_outside_message_does_not_reveal_whether_the_target_exists() {
    let tree = Tree::new();
    let reader = tree.normal();
    let replies: Vec<Value> = [
        "/etc/passwd",
        "/etc/no-such-file-8d1e",
        "../outside/secret.md",
        "../outside/none",
        "../skills/pdf/out-file",
        "../skills/pdf/dangling",
    ]
    .iter()
    .map(|path| read(&reader, json!({ "path": path })))
    .collect();
    for reply in &replies {
        assert_eq!(reply, &replies[0]);
    }
    assert_eq!(replies[0]["error"], "outside_boundary");
    assert!(!replies[0]["message"].as_str().unwrap().contains("etc"));
}

#[test]
fn inside_the_boundary_a_missing_file_says_it_is_missing() {
    let tree = Tree::new();
    let reply = read(&tree.normal(), json!({"path": "docs/missing.md"}));
    assert_eq!(reply["error"], "not_found");
    let message = reply["message"].as_str().unwrap();
    assert!(message.contains(&*tree.workspace().join("docs/missing.md").to_string_lossy()));
    assert!(message.contains("does not exist"));
}

#[test]
fn symlinks_that_stay_inside_the_root_are_followed() {
    let tree = Tree::new();
    let normal = tree.normal();
    let reply = read(&normal, json!({"path": "../skills/pdf/inside-link"}));
    assert_eq!(reply["content"], "reference line 1\nreference line 2");
    let restricted = tree.restricted();
    let reply = read(&restricted, json!({"path": "pdf/dir-link/SKILL.md"}));
    assert_eq!(reply["content"], "# DOCX");
    let absolute = tree.skills().join("pdf/inside-link");
    let reply = read(&restricted, json!({"path": absolute}));
    assert_eq!(reply["content"], "reference line 1\nreference line 2");
}

#[test]
fn restricted_mode_cannot_read_the_workspace_or_a_sibling_skill() {
    let tree = Tree::new();
    let pdf = tree.skills().join("pdf");
    let reader = over(ReadBoundary::restricted([&pdf]).unwrap());
    let notes = tree.workspace().join("notes.md");
    for path in [
        notes.to_str().unwrap(),
        "../docx/SKILL.md",
        "dir-link/SKILL.md",
        "../../ws/notes.md",
    ] {
        assert_eq!(error_code(&reader, path), "outside_boundary", "{path}");
    }
    let reply = read(&reader, json!({"path": "SKILL.md", "endLine": 1}));
    assert_eq!(reply["content"], "# PDF");
    assert_eq!(
        error_code(
            &over(ReadBoundary::restricted([tree.top.join("none")]).unwrap()),
            "SKILL.md"
        ),
        "outside_boundary"
    );
}

#[test]
fn the_normal_mode_reads_the_workspace_and_the_skill_roots() {
    let tree = Tree::new();
    let reader = tree.normal();
    assert_eq!(
        read(&reader, json!({"path": "notes.md"}))["content"],
        "workspace notes"
    );
    let skill = tree.skills().join("docx/SKILL.md");
    assert_eq!(read(&reader, json!({"path": skill}))["content"], "# DOCX");
    assert_eq!(
        read(&reader, json!({"path": "../skills/docx/SKILL.md"}))["content"],
        "# DOCX"
    );
}

#[test]
fn a_fifo_named_like_a_reference_file_is_refused_without_blocking() {
    let tree = Tree::new();
    let fifo = tree.skills().join("pdf/forms.md");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let (sender, receiver) = mpsc::channel();
    let skills = tree.skills();
    thread::spawn(move || {
        let reader = over(ReadBoundary::restricted([skills]).unwrap());
        sender
            .send(read(&reader, json!({"path": "pdf/forms.md"})))
            .unwrap();
    });
    let reply = receiver
        .recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("the read blocked on a FIFO"));
    assert_eq!(reply["error"], "not_regular_file");
    assert!(reply["message"].as_str().unwrap().contains("FIFO"));
}

#[test]
fn sockets_and_directories_are_refused() {
    let tree = Tree::new();
    let _listener =
        std::os::unix::net::UnixListener::bind(tree.skills().join("pdf/socket.md")).unwrap();
    let reader = tree.restricted();
    let reply = read(&reader, json!({"path": "pdf/socket.md"}));
    assert_eq!(reply["error"], "not_regular_file");
    assert!(reply["message"].as_str().unwrap().contains("socket"));
    assert_eq!(error_code(&reader, "pdf"), "is_directory");
    assert_eq!(error_code(&reader, "pdf/dir-link"), "is_directory");
}

#[test]
fn a_symlink_swapped_in_during_reads_never_leaks_outside_content() {
    let tree = Tree::new();
    let race = tree.skills().join("race");
    tree.file("skills/race/current/secret.md", "inside\n");
    symlink("../../outside", race.join("link")).unwrap();
    // Through the link, plain path-based reads do reach the outside file.
    assert!(
        fs::read_to_string(race.join("link/secret.md"))
            .unwrap()
            .contains(MARKER)
    );
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let race = race.clone();
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                fs::rename(race.join("current"), race.join("real")).unwrap();
                fs::rename(race.join("link"), race.join("current")).unwrap();
                fs::rename(race.join("current"), race.join("link")).unwrap();
                fs::rename(race.join("real"), race.join("current")).unwrap();
            }
        })
    };
    let tool = tree.restricted();
    let (mut inside, mut refused) = (0, 0);
    // At least 5,000 reads, and on until both states of the swap were met (up to 50,000).
    for attempt in 0..50_000 {
        if attempt >= 5_000 && inside > 0 && refused > 0 {
            break;
        }
        match tool.call(&json!({"path": "race/current/secret.md"})) {
            Ok(result) => {
                assert_eq!(result.content, "inside");
                inside += 1;
            }
            Err(error) => {
                assert!(!error.to_string().contains(MARKER));
                assert!(
                    matches!(error.code().as_str(), "outside_boundary" | "not_found"),
                    "{error}"
                );
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    eprintln!("race: {inside} inside, {refused} refused");
    assert!(
        inside > 0 && refused > 0,
        "the race was not exercised: {inside} reads inside, {refused} refused"
    );
}

#[test]
fn line_ends_empty_lines_and_ranges() {
    let tree = Tree::new();
    tree.file("ws/lines.md", "one\r\ntwo\rthree\n\n\nsix\n");
    let reader = tree.normal();
    let reply = read(
        &reader,
        json!({"path": "lines.md", "startLine": 2, "endLine": 5}),
    );
    assert_eq!(
        reply,
        json!({
            "path": tree.workspace().join("lines.md"),
            "content": "two\nthree\n\n",
            "startLine": 2,
            "endLine": 5,
            "truncated": false,
            "totalLines": 6,
            "nextStartLine": 6,
        })
    );
    let reply = read(
        &reader,
        json!({"path": "lines.md", "startLine": "6", "endLine": "99"}),
    );
    assert_eq!(reply["content"], "six");
    assert_eq!(reply["endLine"], 6);
    assert!(reply.get("nextStartLine").is_none());
    let reply = read(&reader, json!({"path": "lines.md", "startLine": 7}));
    assert_eq!(reply["error"], "invalid_argument");
}

#[test]
fn max_chars_counts_characters_and_flags_truncation() {
    let tree = Tree::new();
    tree.file("ws/utf8.md", "ééé\nüü\nend\n");
    let reader = tree.normal();
    let reply = read(&reader, json!({"path": "utf8.md", "maxChars": "6"}));
    assert_eq!(reply["content"], "ééé\nüü");
    assert_eq!(reply["truncated"], true);
    assert_eq!(reply["nextStartLine"], 3);
    let reply = read(&reader, json!({"path": "utf8.md", "maxChars": 2}));
    assert_eq!(reply["content"], "éé");
    assert_eq!(reply["truncated"], true);
    assert_eq!(reply["nextStartLine"], 2);
}

#[test]
fn invalid_arguments_are_refused_clearly() {
    let tree = Tree::new();
    let reader = tree.normal();
    assert_eq!(read(&reader, json!({}))["error"], "missing_path");
    for arguments in [
        json!({"path": "notes.md", "startLine": -1}),
        json!({"path": "notes.md", "startLine": 0}),
        json!({"path": "notes.md", "maxChars": "lots"}),
        json!({"path": "notes.md", "endLine": {"line": 2}}),
    ] {
        assert_eq!(
            read(&reader, arguments.clone())["error"],
            "invalid_argument",
            "{arguments}"
        );
    }
}

#[test]
fn the_marker_wraps_every_segment_of_a_known_skill() {
    let tree = Tree::new();
    let boundary = ReadBoundary::restricted([tree.skills()]).unwrap();
    let pdf = tree.skills().join("pdf");
    let tool = SkillReader::over_boundary(
        boundary,
        [KnownSkill::new("pdf", pdf.join("SKILL.md"), &pdf)],
    );
    let opening = format!(
        "<skill_instructions name=\"pdf\" dir=\"{}\">\n",
        pdf.display()
    );
    let mut start_line = 1;
    let mut segments = Vec::new();
    loop {
        let result = tool
            .call(&json!({"path": "pdf/SKILL.md", "startLine": start_line, "endLine": start_line}))
            .unwrap();
        assert_eq!(result.skill.as_deref(), Some("pdf"));
        let inner = result
            .content
            .strip_prefix(&opening)
            .unwrap()
            .strip_suffix("\n</skill_instructions>")
            .unwrap();
        segments.push(inner.to_owned());
        match result.next_start_line {
            Some(next) => start_line = next,
            None => break,
        }
    }
    assert_eq!(segments, ["# PDF", "", "Fill forms.", "See reference.md."]);
    let other = tool.call(&json!({"path": "pdf/reference.md"})).unwrap();
    assert_eq!(other.skill, None);
    assert!(!other.content.contains("skill_instructions"));
    assert!(other.to_json().get("skill").is_none());
}

#[test]
fn marker_attributes_are_escaped() {
    let tree = Tree::new();
    let boundary = ReadBoundary::restricted([tree.skills()]).unwrap();
    let tool = SkillReader::over_boundary(
        boundary,
        [KnownSkill::new(
            "a&b<c>\"d'",
            tree.skills().join("docx/SKILL.md"),
            "x&y",
        )],
    );
    let reply = tool.call_json(&json!({"path": "docx/SKILL.md"}));
    assert_eq!(
        reply["content"],
        "<skill_instructions name=\"a&amp;b&lt;c&gt;&quot;d&apos;\" dir=\"x&amp;y\">\n# DOCX\n</skill_instructions>"
    );
    assert_eq!(reply["skill"], "a&b<c>\"d'");
}

#[test]
fn binary_and_oversized_files_are_refused() {
    let tree = Tree::new();
    fs::write(
        tree.workspace().join("image.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0",
    )
    .unwrap();
    fs::write(tree.workspace().join("latin1.md"), b"caf\xe9\n").unwrap();
    let reader = tree.normal();
    assert_eq!(error_code(&reader, "image.png"), "not_text");
    assert_eq!(error_code(&reader, "latin1.md"), "not_text");
    let tool = reader.with_options(ReadOptions::default().with_max_file_bytes(Some(4)));
    let reply = tool.call_json(&json!({"path": "notes.md"}));
    assert_eq!(reply["error"], "too_large");
    assert!(reply["message"].as_str().unwrap().contains("notes.md"));
    let tool = tool.with_options(ReadOptions::default().with_max_file_bytes(None));
    assert_eq!(
        tool.call_json(&json!({"path": "notes.md"}))["content"],
        "workspace notes"
    );
}

#[test]
fn the_schema_is_an_openai_function_tool_with_a_settable_name() {
    let tree = Tree::new();
    let tool = tree.normal();
    assert_eq!(tool.schema()["function"]["name"], "read_file");
    let tool = tool.with_options(ReadOptions::default().with_tool_name("read_skill_file"));
    let schema = tool.schema();
    assert_eq!(schema["type"], "function");
    assert_eq!(schema["function"]["name"], "read_skill_file");
    let parameters = &schema["function"]["parameters"];
    assert_eq!(parameters["required"], json!(["path"]));
    let properties: Vec<&String> = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(properties, ["path", "startLine", "endLine", "maxChars"]);
    assert!(
        schema["function"]["description"]
            .as_str()
            .unwrap()
            .contains("nextStartLine")
    );
}

/// Paths built from `..`, `.`, names of the tree and separators, relative or absolute.
fn attack_path(top: &Path) -> impl Strategy<Value = String> {
    let component = prop::sample::select(vec![
        "..",
        ".",
        "",
        "ws",
        "skills",
        "outside",
        "pdf",
        "docx",
        "secret.md",
        "SKILL.md",
        "out-file",
        "out-dir",
        "inside-link",
        "dir-link",
        "abs-out",
        "%2e%2e",
        "..\\..",
    ]);
    let separator = prop::sample::select(vec!["/", "//", "\\", "/./"]);
    let prefix = prop::sample::select(vec![
        String::new(),
        format!("{}/", top.display()),
        "/".to_owned(),
    ]);
    (prefix, prop::collection::vec((component, separator), 1..8)).prop_map(|(prefix, parts)| {
        let mut path = prefix;
        for (component, separator) in parts {
            path.push_str(component);
            path.push_str(separator);
        }
        path.pop();
        path
    })
}

#[test]
fn random_paths_only_ever_read_files_beneath_a_root() {
    let tree = Tree::new();
    let readers = [tree.normal(), tree.restricted()];
    let roots = [tree.workspace(), tree.skills()];
    let mut runner = TestRunner::new(Config::with_cases(512));
    runner
        .run(&attack_path(&tree.top), |path| {
            for reader in &readers {
                let reply = reader.call_json(&json!({ "path": path }));
                prop_assert!(!reply.to_string().contains(MARKER), "{path}: {reply}");
                if let Some(read) = reply["path"].as_str() {
                    prop_assert!(
                        roots.iter().any(|root| Path::new(read).starts_with(root)),
                        "{read}"
                    );
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn typed_requests_read_like_json_calls() {
    let tree = Tree::new();
    tree.file("ws/lines.md", "a\nb\nc\n");
    let tool = tree.normal();
    let mut request = ReadRequest::new("lines.md");
    request.start_line = 2;
    request.max_chars = Some(1);
    let typed = tool.read(&request).unwrap();
    let json = tool
        .call(&json!({"path": "lines.md", "startLine": 2, "maxChars": 1}))
        .unwrap();
    assert_eq!(typed, json);
    assert_eq!(
        (typed.content.as_str(), typed.next_start_line),
        ("b", Some(3))
    );
    request.end_line = Some(1);
    assert_eq!(tool.read(&request).unwrap_err().code(), "invalid_argument");
    assert_eq!(
        tool.read(&ReadRequest::new(" ")).unwrap_err().code(),
        "missing_path"
    );
}
