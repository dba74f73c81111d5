//! Front matter as written (SPEC §2.3, the reference's rules): a text field keeps the scalar
//! the author wrote, a name that cannot name the skill falls back to the first heading, and a
//! rule in the body is no paragraph.

use serde_json::json;

use super::*;

fn only_skill(workspace: &Path) -> Skill {
    let found = discover(workspace);
    assert_eq!(found.skills.len(), 1, "{:?}", found.diagnostics);
    found.skills[0].clone()
}

fn write_skill(workspace: &Path, text: &str) {
    let folder = workspace.join(".agents/skills/folder");
    fs::create_dir_all(&folder).unwrap();
    fs::write(folder.join("SKILL.md"), text).unwrap();
}

#[test]
fn null_words_as_name_or_description_are_the_text_written() {
    for (name, description) in [("null", "~"), ("NULL", "Null"), ("Null", "null")] {
        let workspace = workspace();
        write_skill(
            workspace.path(),
            &format!("---\nname: {name}\ndescription: {description}\n---\n# Heading\n\nBody.\n"),
        );
        let skill = only_skill(workspace.path());
        assert_eq!(skill.name.as_str(), name);
        assert_eq!(skill.description, description);
        assert_eq!(
            serde_json::Value::Object(skill.front_matter()),
            json!({"name": name, "description": description})
        );
    }
    // Nothing written is still nothing: the next fallback.
    let workspace = workspace();
    write_skill(
        workspace.path(),
        "---\nname:\ndescription:\n---\n# Heading\n\nBody.\n",
    );
    let skill = only_skill(workspace.path());
    assert_eq!(
        (skill.name.as_str(), skill.description.as_str()),
        ("Heading", "Body.")
    );
}

#[test]
fn non_finite_numbers_keep_their_case() {
    let workspace = workspace();
    write_skill(
        workspace.path(),
        "---\nname: folder\ndescription: -.Inf\nmetadata:\n  low: -.INF\n  high: .Inf\n  \
         odd: .NaN\n  plain: .inf\n---\n",
    );
    let skill = only_skill(workspace.path());
    assert_eq!(skill.description, "-.Inf");
    assert_eq!(
        skill.front_matter()["metadata"],
        json!({"low": "-.INF", "high": ".Inf", "odd": ".NaN", "plain": ".inf"})
    );
}

#[test]
fn a_name_that_cannot_name_the_skill_falls_back_to_the_first_heading() {
    let workspace = workspace();
    write_skill(
        workspace.path(),
        "---\nname: a/b\ndescription: Splits.\n---\n\n# Heading Name\n\nBody.\n",
    );
    let found = discover(workspace.path());
    assert_eq!(names(&found), ["Heading Name"]);
    assert!(
        codes(&found).contains(&"unusable_name"),
        "{:?}",
        found.diagnostics
    );
}

#[test]
fn a_rule_in_the_body_is_no_description() {
    for rule in ["---", "***", "___", "- - -", " * * * "] {
        let workspace = workspace();
        write_skill(
            workspace.path(),
            &format!("---\nname: folder\n---\n\n{rule}\n\nThe real paragraph.\n"),
        );
        assert_eq!(
            only_skill(workspace.path()).description,
            "The real paragraph.",
            "{rule}"
        );
    }
}
