use super::*;
use crate::frontmatter::parse;
use crate::skill::{Place, Source};
use std::path::PathBuf;

fn skill(name: &str, description: &str) -> Skill {
    skill_at(
        name,
        description,
        &format!("/skills/{name}/SKILL.md"),
        false,
    )
}

fn skill_at(name: &str, description: &str, location: &str, manual: bool) -> Skill {
    let text = format!(
        "---\nname: {name}\ndescription: {description}\ndisable-model-invocation: {manual}\n---\n"
    );
    let path = PathBuf::from(location);
    let directory = path.parent().unwrap().to_path_buf();
    Skill::from_document(
        parse(&path, &text),
        path,
        directory,
        Place::nowhere(),
        Source::Workspace,
        &mut Vec::new(),
    )
}

#[test]
fn renders_the_documented_shape() {
    let skills = [skill("pdf", "Fill PDF forms.")];
    let catalog = Catalog::new(&skills).render().unwrap();
    let expected = format!(
        "{}\n\n<available_skills>\n  <skill>\n    <name>pdf</name>\n    \
         <description>Fill PDF forms.</description>\n    \
         <location>/skills/pdf/SKILL.md</location>\n  </skill>\n</available_skills>\n\n{}",
        INTRODUCTION.replace("{reader}", "read_file").trim_end(),
        CLOSING.replace("{reader}", "read_file").trim_end()
    );
    assert_eq!(catalog.text, expected);
    assert_eq!((catalog.listed, catalog.left_out), (1, 0));
}

#[test]
fn instructions_name_the_reader_tool() {
    let skills = [skill("pdf", "Fill PDF forms.")];
    let catalog = Catalog::new(&skills)
        .reader("read_skill_file")
        .render()
        .unwrap();
    assert!(!catalog.text.contains("read_file`"));
    assert_eq!(catalog.text.matches("`read_skill_file`").count(), 3);
    for phrase in [
        "Do not read the skills up front",
        "first read that skill's SKILL.md",
        "Resolve relative paths",
        "smallest set of skills",
        "no separate skill tool",
    ] {
        assert!(catalog.text.contains(phrase), "{phrase}");
    }
}

#[test]
fn all_five_special_characters_are_escaped_in_every_value() {
    let skills = [skill_at(
        "x",
        "'Use <API> & \"tags\"'",
        "/s/a&b<c>/SKILL.md",
        false,
    )];
    let text = Catalog::new(&skills).render().unwrap().text;
    assert!(text.contains("<description>Use &lt;API&gt; &amp; &quot;tags&quot;</description>"));
    assert!(text.contains("<location>/s/a&amp;b&lt;c&gt;/SKILL.md</location>"));
    assert_eq!(escape_xml("it's"), "it&apos;s");
}

#[test]
fn manual_only_skills_are_left_out_and_only_manual_gives_no_catalog() {
    let manual = skill_at("secret", "manual", "/s/secret/SKILL.md", true);
    let visible = skill("open", "visible");
    let catalog = Catalog::new([&manual, &visible]).render().unwrap();
    assert!(!catalog.text.contains("secret"));
    assert_eq!(catalog.listed, 1);
    assert_eq!(Catalog::new([&manual]).render(), None);
    assert_eq!(Catalog::new([]).render(), None);
}

#[test]
fn sorted_by_name_description_location_whatever_the_input_order() {
    let a = skill_at("b", "same", "/2/SKILL.md", false);
    let b = skill_at("b", "same", "/1/SKILL.md", false);
    let c = skill_at("a", "z", "/3/SKILL.md", false);
    let d = skill_at("b", "earlier", "/4/SKILL.md", false);
    let forward = Catalog::new([&a, &b, &c, &d]).render().unwrap();
    let backward = Catalog::new([&d, &c, &b, &a]).render().unwrap();
    assert_eq!(forward, backward);
    let locations: Vec<&str> = forward
        .text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("<location>"))
        .collect();
    assert_eq!(
        locations,
        [
            "/3/SKILL.md</location>",
            "/4/SKILL.md</location>",
            "/1/SKILL.md</location>",
            "/2/SKILL.md</location>"
        ]
    );
}

#[test]
fn fingerprint_is_stable_and_tracks_content() {
    let skills = [skill("pdf", "Fill PDF forms.")];
    let first = Catalog::new(&skills).render().unwrap();
    let again = Catalog::new(&skills).render().unwrap();
    assert_eq!(first.fingerprint, again.fingerprint);
    let changed = [skill("pdf", "Fill PDF forms!")];
    assert_ne!(
        first.fingerprint,
        Catalog::new(&changed).render().unwrap().fingerprint
    );
    assert_eq!(Fingerprint::of("").to_string(), "cbf29ce484222325");
    assert_eq!(Fingerprint::of("a").to_string(), "af63dc4c8601ec8c");
}

#[test]
fn budget_leaves_out_whole_entries_and_says_how_many() {
    let skills: Vec<Skill> = (0..5)
        .map(|index| skill(&format!("skill-{index}"), "A description."))
        .collect();
    let full = Catalog::new(&skills).render().unwrap();
    let budget = full.text.chars().count() - 10;
    let cut = Catalog::new(&skills).budget(budget).render().unwrap();
    assert!(cut.text.chars().count() <= budget);
    assert_eq!((cut.listed, cut.left_out), (4, 1));
    assert!(cut.text.contains("<name>skill-3</name>"));
    assert!(!cut.text.contains("<name>skill-4</name>"));
    assert!(cut.text.contains("(1 more skill is not listed"));
    let tiny = Catalog::new(&skills).budget(10).render().unwrap();
    assert_eq!((tiny.listed, tiny.left_out), (0, 5));
    assert!(tiny.text.contains("(5 more skills are not listed"));
}

#[test]
fn appending_to_a_host_prompt() {
    let skills = [skill("pdf", "Fill PDF forms.")];
    let catalog = Catalog::new(&skills).render().unwrap();
    assert_eq!(append_to_prompt("  \n", Some(&catalog)), catalog.text);
    assert_eq!(append_to_prompt("Host.", None), "Host.");
    assert_eq!(
        append_to_prompt("Host.\n\n", Some(&catalog)),
        format!("Host.\n\n{}", catalog.text)
    );
    assert_eq!(
        catalog.append_to("Host."),
        format!("Host.\n\n{}", catalog.text)
    );
}

#[test]
fn thousands_of_skills_are_all_listed_in_order() {
    let skills: Vec<Skill> = (0..2000)
        .map(|index| skill(&format!("s{index:05}"), "d"))
        .collect();
    let catalog = Catalog::new(&skills).render().unwrap();
    assert_eq!(catalog.listed, 2000);
    assert_eq!(catalog.text.matches("<skill>").count(), 2000);
    let first = catalog.text.find("<name>s00000</name>").unwrap();
    let last = catalog.text.find("<name>s01999</name>").unwrap();
    assert!(first < last);
}

#[test]
fn control_characters_never_reach_the_catalog() {
    let description = "Sets the title\u{1b}]0;pwned\u{7} then\r rings \u{9b}31m and\ttabs";
    let entry = CatalogEntry::new("pdf", description, "/s/pdf/SKILL.md", true);
    let text = Catalog::from_entries([entry]).render().unwrap().text;
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{text:?}"
    );
    assert!(text.contains(
        "Sets the title\u{fffd}]0;pwned\u{fffd} then\u{fffd} rings \u{fffd}31m and\ttabs"
    ));
}
