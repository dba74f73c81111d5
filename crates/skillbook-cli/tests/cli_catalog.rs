//! `skillbook catalog` and `skillbook search` (SPEC §9): the block a model is shown, what a
//! budget does to it, and the search that finds skills by task when the catalog lists none.
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
fn catalog_keeps_to_16000_characters_unless_told_otherwise() {
    let fixture = Fixture::new();
    let description = "Handles one chore of the back office, from intake to the final report.";
    for number in 0..300 {
        let name = format!("chore-{number:03}");
        let text = format!("---\nname: {name}\ndescription: {description}\n---\n");
        fixture.skill(&fixture.root(), &name, &text);
    }
    let run = |arguments: &[&str]| -> Value {
        let output = fixture.command().args(arguments).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let default = run(&["catalog", "--format", "json"]);
    assert!(default["catalog"].as_str().unwrap().chars().count() <= 16_000);
    assert_eq!(default["tier"], 3, "all 300 names fit, compactly");
    assert_eq!(default["listed"], 300);
    let whole = run(&["catalog", "--no-budget", "--format", "json"]);
    assert_eq!(whole["tier"], 1);
    assert!(whole["catalog"].as_str().unwrap().chars().count() > 16_000);
    let refused = fixture
        .command()
        .args(["catalog", "--no-budget", "--budget", "10"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "the two options conflict");
}
