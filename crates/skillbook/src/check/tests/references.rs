//! `broken_reference` and `reference_outside_skill`, checked on skills written to disk.

use super::*;
use tempfile::TempDir;

/// Writes `<root>/<relative>` (and its folders).
fn write(root: &Path, relative: &str, text: &str) {
    let file = root.join(relative);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, text).unwrap();
}

/// A skill `name` under `root` whose body is `body` (the body starts on line 5), with `files`
/// (paths relative to the skill's folder) beside its `SKILL.md`.
fn skill(root: &Path, name: &str, body: &str, files: &[&str]) -> PathBuf {
    let folder = root.join(name);
    write(
        &folder,
        "SKILL.md",
        &format!("---\nname: {name}\ndescription: d\n---\n{body}"),
    );
    for file in files {
        write(&folder, file, "x\n");
    }
    folder
}

fn check(path: &Path, mode: Mode) -> Report {
    Checker::new(mode).check_path(path).unwrap()
}

/// `(severity, code, line, column, hint)` of each finding.
fn findings(report: &Report) -> Vec<(&'static str, &'static str, u64, u64, String)> {
    report
        .diagnostics
        .iter()
        .map(|diagnostic| {
            (
                diagnostic.severity.as_str(),
                diagnostic.code.as_str(),
                diagnostic.line.unwrap(),
                diagnostic.column.unwrap(),
                diagnostic.hint.clone().unwrap_or_default(),
            )
        })
        .collect()
}

const FIX: &str = "fix the path, or add the file to the skill's folder";
const COPY: &str = "copy the file into the skill's folder and refer to it by a relative path";

#[test]
fn a_link_in_the_wrong_case_suggests_the_file() {
    let root = TempDir::new().unwrap();
    let body = "# PDF\n\nFor forms, read [the guide](FORMS.md) and [the API](REFERENCE.md#api).\n";
    let folder = skill(root.path(), "pdf", body, &["forms.md", "reference.md"]);
    let report = check(&folder, Mode::Standard);
    assert_eq!(
        findings(&report),
        [
            (
                "warning",
                "broken_reference",
                7,
                29,
                "did you mean `forms.md`?".to_owned()
            ),
            (
                "warning",
                "broken_reference",
                7,
                53,
                "did you mean `reference.md`?".to_owned()
            ),
        ]
    );
    let first = &report.diagnostics[0];
    assert_eq!(first.path, folder.join("SKILL.md"));
    assert_eq!(
        first.message,
        "`FORMS.md` is not in the skill's folder; a model that follows it finds nothing"
    );
    assert_eq!(
        report.source_line(first),
        Some("For forms, read [the guide](FORMS.md) and [the API](REFERENCE.md#api).")
    );
    assert!(report.is_valid(), "warnings only");
}

#[test]
fn a_missing_file_with_nothing_like_it_asks_for_a_fix() {
    let root = TempDir::new().unwrap();
    let body = "Fill `scripts/fill.py`, then see ![chart](assets/chart.png).\n";
    let folder = skill(root.path(), "charts", body, &["notes.md"]);
    assert_eq!(
        findings(&check(&folder, Mode::Standard)),
        [
            ("warning", "broken_reference", 5, 7, FIX.to_owned()),
            ("warning", "broken_reference", 5, 43, FIX.to_owned()),
        ]
    );
}

#[test]
fn references_leaving_the_folder_are_outside_whether_or_not_they_exist() {
    let root = TempDir::new().unwrap();
    write(root.path(), "shared/style.md", "x\n");
    let body = "See [style](../shared/style.md), [x](../x) and [pw](/etc/passwd).\n";
    let folder = skill(root.path(), "docs", body, &[]);
    assert_eq!(
        findings(&check(&folder, Mode::Standard)),
        [
            ("warning", "reference_outside_skill", 5, 13, COPY.to_owned()),
            ("warning", "reference_outside_skill", 5, 38, COPY.to_owned()),
            ("warning", "reference_outside_skill", 5, 53, COPY.to_owned()),
        ]
    );
}

#[test]
fn standard_warns_strict_fails_and_lenient_never_looks() {
    let root = TempDir::new().unwrap();
    let folder = skill(root.path(), "s", "[a](a.md) [b](../b.md)\n", &[]);
    let severities = |mode| {
        check(&folder, mode)
            .diagnostics
            .iter()
            .map(|diagnostic| (diagnostic.severity.as_str(), diagnostic.code.as_str()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        severities(Mode::Standard),
        [
            ("warning", "broken_reference"),
            ("warning", "reference_outside_skill")
        ]
    );
    assert_eq!(
        severities(Mode::Strict),
        [
            ("error", "broken_reference"),
            ("error", "reference_outside_skill")
        ]
    );
    assert_eq!(severities(Mode::Lenient), []);
    assert!(!check(&folder, Mode::Strict).is_valid());
    // Discovery, which grades leniently, reports nothing about references either.
    let mut discovery = Discovery::new(root.path());
    discovery = discovery.home(Home::Off).extra_root(root.path());
    assert_eq!(discovery.discover().diagnostics(), []);
}

#[test]
fn what_exists_and_what_is_not_a_file_of_the_skill_is_no_problem() {
    let root = TempDir::new().unwrap();
    let body = "\
Read [words](references/words.md), [the folder](references/), [spaced](my%20notes.md),
[angled](<my notes.md>), [query](references/words.md?plain=1#top), [self](SKILL.md)
and `references/words.md`. The user's `src/lib.rs` and `package.json` are theirs.
Links: [site](https://example.com/x.md), [mail](mailto:a@example.com), [top](#top).

```markdown
[in a fence](missing.md) `scripts/missing.py`
```
";
    let folder = skill(
        root.path(),
        "clean",
        body,
        &["references/words.md", "my notes.md"],
    );
    for mode in [Mode::Standard, Mode::Strict] {
        assert_eq!(check(&folder, mode).diagnostics, [], "{mode:?}");
    }
}

#[test]
fn a_root_of_skills_reports_references_skill_by_skill() {
    let root = TempDir::new().unwrap();
    skill(root.path(), "good", "[a](a.md)\n", &["a.md"]);
    skill(root.path(), "bad", "[a](A.md)\n", &["a.md"]);
    let report = check(root.path(), Mode::Standard);
    assert_eq!(report.skills_checked, 2);
    assert_eq!(
        findings(&report),
        [(
            "warning",
            "broken_reference",
            5,
            5,
            "did you mean `a.md`?".to_owned()
        )]
    );
    assert_eq!(report.diagnostics[0].path, root.path().join("bad/SKILL.md"));
    assert_eq!(
        report.source_line(&report.diagnostics[0]),
        Some("[a](A.md)")
    );
}

/// A link inside the skill is followed only while it stays inside: one leading out makes the
/// reference `reference_outside_skill` even though its target exists, and it is never listed
/// as a suggestion.
#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_skill_is_not_followed() {
    use std::os::unix::fs::symlink;

    let root = TempDir::new().unwrap();
    write(root.path(), "outside/secret.md", "x\n");
    let body = "[secret](secret.md) [via](out/secret.md) [inside](guide.md) [other](Secret.md)\n";
    let folder = skill(root.path(), "linked", body, &["docs/guide.md"]);
    symlink(
        root.path().join("outside/secret.md"),
        folder.join("secret.md"),
    )
    .unwrap();
    symlink(root.path().join("outside"), folder.join("out")).unwrap();
    symlink("docs/guide.md", folder.join("guide.md")).unwrap();
    let report = check(&folder, Mode::Standard);
    let link = "put the file itself in the skill's folder instead of a link".to_owned();
    assert_eq!(
        findings(&report),
        [
            ("warning", "reference_outside_skill", 5, 10, link.clone()),
            ("warning", "reference_outside_skill", 5, 27, link),
            ("warning", "broken_reference", 5, 69, FIX.to_owned()),
        ]
    );
}

#[test]
fn the_example_skills_have_no_broken_references() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills");
    let report = check(&examples, Mode::Strict);
    assert!(report.skills_checked >= 3);
    let references: Vec<&Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|diagnostic| {
            matches!(
                diagnostic.code,
                DiagnosticCode::BrokenReference | DiagnosticCode::ReferenceOutsideSkill
            )
        })
        .collect();
    assert_eq!(references, Vec::<&Diagnostic>::new());
}

#[test]
fn files_in_git_and_node_modules_are_never_served_so_they_are_outside() {
    let root = TempDir::new().unwrap();
    let body = "[hook](.git/hooks/pre-commit) `node_modules/pkg/index.js`\n";
    let folder = skill(
        root.path(),
        "tools",
        body,
        &[".git/hooks/pre-commit", "node_modules/pkg/index.js"],
    );
    let hint = "move the file to another folder of the skill".to_owned();
    assert_eq!(
        findings(&check(&folder, Mode::Standard)),
        [
            ("warning", "reference_outside_skill", 5, 8, hint.clone()),
            ("warning", "reference_outside_skill", 5, 32, hint),
        ]
    );
}

/// A word of prose that names a file of the skill only in another case is reported
/// (`reference_case_mismatch`); a word naming a file that is there, or no file of the skill at
/// all, is not; a word already read as a link or inline code is reported once, as that.
#[test]
fn a_file_named_in_prose_in_another_case_is_reported() {
    let root = TempDir::new().unwrap();
    let body = "# PDF\n\nFill the form with FORMS.md. Read reference.md first.\n\
                Then scripts/Fill.py, package.json and example.com.\n\
                See `FORMS.md` too, and [the guide](Forms.md).\n";
    let folder = skill(
        root.path(),
        "pdf",
        body,
        &["forms.md", "reference.md", "scripts/fill.py"],
    );
    let report = check(&folder, Mode::Standard);
    let found: Vec<(&str, u64, u64, String)> = findings(&report)
        .into_iter()
        .map(|(_, code, line, column, hint)| (code, line, column, hint))
        .collect();
    assert_eq!(
        found,
        [
            (
                "reference_case_mismatch",
                7,
                20,
                "write it as `forms.md`".to_owned()
            ),
            (
                "reference_case_mismatch",
                8,
                6,
                "write it as `scripts/fill.py`".to_owned()
            ),
            (
                "broken_reference",
                9,
                6,
                "did you mean `forms.md`?".to_owned()
            ),
            (
                "broken_reference",
                9,
                37,
                "did you mean `forms.md`?".to_owned()
            ),
        ]
    );
    // Discovery's lenient check never lists a skill's folder.
    assert!(check(&folder, Mode::Lenient).diagnostics.is_empty());
}
