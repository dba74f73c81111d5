//! What reaches the terminal (SPEC §9): control characters a skill holds shown as escapes by
//! `list`, `show`, the diagnostics and the log, and colours that follow `--color` and
//! `NO_COLOR`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test should fail loudly at the first broken step"
)]

#[path = "support/workspace.rs"]
mod workspace;

use serde_json::Value;
use workspace::{Fixture, stderr, stdout};

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
