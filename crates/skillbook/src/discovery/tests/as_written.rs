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

#[test]
fn kept_front_matter_fields_are_the_ones_read_again_from_the_text() {
    let workspace = workspace();
    let root = workspace.path().join(".agents/skills");
    let front_matters = [
        "name: plain\ndescription: Plain.",
        "name: nested\ndescription: 'Quoted: yes'\nmetadata:\n  version: \"1.10\"\n  count: 0x1F",
        "name: listed\ndescription: >-\n  Folded\n  text.\nallowed-tools:\n  - Read\n  - Write",
        "name: anchored\ndescription: &text Anchored.\nsummary: *text\nflag: yes",
        "name: nulls\ndescription: ~\nversion: -.Inf",
        "name: [broken\ndescription: no",
    ];
    for (index, front_matter) in front_matters.iter().enumerate() {
        skill(&root, &format!("s{index}"), front_matter);
    }
    let unclosed = root.join("unclosed");
    fs::create_dir_all(&unclosed).unwrap();
    fs::write(
        unclosed.join("SKILL.md"),
        "---\nname: unclosed\nlicense: MIT\n",
    )
    .unwrap();
    let discovery = Discovery::new(workspace.path()).home(Home::Off);
    let read_again = discovery.discover();
    let kept = discovery.clone().keep_front_matter(true).discover();
    assert_eq!(kept, read_again);
    assert_eq!(kept.skills.len(), front_matters.len() + 1);
    for (kept, read_again) in kept.skills.iter().zip(&read_again.skills) {
        assert!(kept.fields.0.is_some() && read_again.fields.0.is_none());
        assert_eq!(kept.front_matter(), read_again.front_matter());
        assert_eq!(
            serde_json::to_string(kept).unwrap(),
            serde_json::to_string(read_again).unwrap()
        );
    }
    // Handed over one at a time, the same.
    let mut each = Vec::new();
    discovery.keep_front_matter(true).discover_each(|finding| {
        if let Finding::Skill(skill) = finding {
            each.push(serde_json::to_string(&skill).unwrap());
        }
    });
    let expected: Vec<String> = (read_again.skills.iter())
        .map(|skill| serde_json::to_string(skill).unwrap())
        .collect();
    assert_eq!(each, expected);
}
