use super::shorten::{first_sentence, shorten};
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
    Skill::from_document(
        parse(&path, &text),
        path,
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
    assert_eq!((catalog.tier, catalog.over_budget), (Tier::Full, false));
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

/// Skills whose descriptions have several sentences, so every tier is smaller than the last.
fn varied_skills(count: usize) -> Vec<Skill> {
    (0..count)
        .map(|index| {
            skill(
                &format!("skill-{index:03}"),
                &format!(
                    "Handles task number {index} of the suite. Use it when the user asks for \
                     task {index}, or anything near it; it also explains the edge cases."
                ),
            )
        })
        .collect()
}

/// The size in characters of each tier's rendering of `skills`.
fn tier_sizes(skills: &[Skill]) -> Vec<usize> {
    tier_sizes_of(&Catalog::new(skills))
}

/// The size in characters of each tier's rendering of `catalog` (tier 2 at its smallest).
fn tier_sizes_of(catalog: &Catalog<'_>) -> Vec<usize> {
    let entries = catalog.visible_sorted().unwrap();
    Tier::ALL
        .iter()
        .map(|&tier| catalog.size(Fit::smallest(tier), &entries))
        .collect()
}

#[test]
fn each_tier_is_chosen_exactly_at_its_size() {
    let skills = varied_skills(12);
    let sizes = tier_sizes(&skills);
    assert!(sizes.windows(2).all(|pair| pair[0] > pair[1]), "{sizes:?}");
    let render = |budget: usize| Catalog::new(&skills).budget(budget).render().unwrap();
    for (position, &tier) in Tier::ALL.iter().enumerate() {
        let fitting = render(sizes[position]);
        assert_eq!(fitting.tier, tier, "budget {}", sizes[position]);
        assert_eq!(fitting.text.chars().count(), sizes[position]);
        assert!(!fitting.over_budget);
        let below = render(sizes[position] - 1);
        match Tier::ALL.get(position + 1) {
            Some(&next) => {
                assert_eq!(below.tier, next, "budget {}", sizes[position] - 1);
                assert!(!below.over_budget);
            }
            None => {
                // Below the smallest tier: still the smallest tier, never nothing.
                assert_eq!(below.tier, Tier::SearchOnly);
                assert!(below.over_budget);
                assert_eq!(below.text, fitting.text);
            }
        }
    }
    let tiny = render(0);
    assert_eq!(
        (tiny.tier, tiny.listed, tiny.left_out),
        (Tier::SearchOnly, 0, 12)
    );
    assert!(tiny.over_budget);
    let unlimited = Catalog::new(&skills).render().unwrap();
    assert_eq!(
        (unlimited.tier, unlimited.listed, unlimited.left_out),
        (Tier::Full, 12, 0)
    );
}

#[test]
fn tier_three_lists_500_typical_names_in_well_under_16000_characters() {
    let skills: Vec<Skill> = (0..500)
        .map(|number| {
            let name = format!("review-pull-request-{number:03}");
            skill(&name, "Reviews a pull request for bugs, style and tests.")
        })
        .collect();
    let catalog = Catalog::new(&skills).budget(16_000).render().unwrap();
    assert_eq!(catalog.tier, Tier::NamesOnly);
    assert_eq!(catalog.listed, 500);
    assert!(
        catalog.text.chars().count() < 14_000,
        "{}",
        catalog.text.len()
    );
    // Each name on a line of its own: nothing else is spent on a skill.
    assert!(catalog.text.contains("\nreview-pull-request-042\n"));
}

#[test]
fn tiers_degrade_every_entry_alike_and_never_drop_one() {
    let skills = varied_skills(30);
    let sizes = tier_sizes(&skills);
    for (position, &tier) in Tier::ALL.iter().enumerate().take(3) {
        let catalog = Catalog::new(&skills)
            .budget(sizes[position])
            .render()
            .unwrap();
        assert_eq!(catalog.tier, tier);
        assert_eq!(catalog.listed, 30);
        for skill in &skills {
            let shown = if tier == Tier::NamesOnly {
                format!("\n{}\n", skill.name)
            } else {
                format!("<name>{}</name>", skill.name)
            };
            assert!(catalog.text.contains(&shown), "{}", catalog.text);
        }
        let descriptions = catalog.text.matches("<description>").count();
        assert_eq!(descriptions, if tier == Tier::NamesOnly { 0 } else { 30 });
        let locations = catalog.text.matches("<location>").count();
        assert_eq!(locations, if tier == Tier::NamesOnly { 0 } else { 30 });
    }
    let second = Catalog::new(&skills).budget(sizes[1]).render().unwrap();
    // At its smallest share the use sentence is kept, in preference to the first one.
    assert!(
        second
            .text
            .contains("<description>Use it when the user asks for task 7…</description>"),
        "{}",
        second.text
    );
    assert!(
        second
            .text
            .contains("shortened to fit, keeping when to use each skill")
    );
    assert!(!second.text.contains("search_skills"));
}

#[test]
fn search_tiers_name_the_search_and_reader_tools() {
    let skills = varied_skills(3);
    let mut aliased = Catalog::new(&skills);
    aliased = aliased
        .reader("read_skill_file")
        .search_tool("search_skill_catalog");
    let sizes = tier_sizes_of(&aliased);
    for (budget, tier) in [(sizes[2], Tier::NamesOnly), (sizes[3], Tier::SearchOnly)] {
        let catalog = aliased.clone().budget(budget).render().unwrap();
        assert_eq!(catalog.tier, tier);
        assert!(tier.needs_search());
        assert!(
            catalog
                .text
                .contains("call `search_skill_catalog` with the task")
        );
        assert!(catalog.text.contains("`read_skill_file`"));
        assert!(!catalog.text.contains("search_skills`"));
    }
    // Names alone: the introduction promises no descriptions, and is no catalog "all you need".
    let names = aliased.clone().budget(sizes[2]).render().unwrap().text;
    assert!(names.contains("lists each skill's name alone, one a line"));
    assert!(names.contains("`read_skill_file` tool at `skill://<name>/SKILL.md`"));
    assert!(!names.contains("a description of when it helps"), "{names}");
    assert!(!names.contains("all you need"), "{names}");
    let full = aliased.clone().render().unwrap().text;
    assert!(full.contains("a description of when it helps"));
    let only = Catalog::new(&skills).budget(0).render().unwrap();
    assert!(only.text.contains("3 skills are available"));
    assert!(!only.text.contains("<available_skills>"));
    assert!(!Tier::Shortened.needs_search());
}

#[test]
fn the_same_skills_and_budget_give_the_same_bytes_in_any_order() {
    let skills = varied_skills(20);
    let mut reversed = skills.clone();
    reversed.reverse();
    let sizes = tier_sizes(&skills);
    for budget in [sizes[0], sizes[1], sizes[1] - 1, sizes[3], 0] {
        let first = Catalog::new(&skills).budget(budget).render().unwrap();
        let second = Catalog::new(&reversed).budget(budget).render().unwrap();
        assert_eq!(first, second);
    }
}

#[test]
fn tier_two_keeps_the_sentence_that_says_when_to_use_the_skill() {
    let text = "Fill PDF forms. It has many options. Use when asked for a form.";
    // Whole when it fits its share, white space made one space.
    assert_eq!(shorten(text, 200), text);
    assert_eq!(shorten(" Fill\n  PDF forms. ", 80), "Fill PDF forms.");
    // Else the use sentence is kept in preference to the ones before it.
    assert_eq!(
        shorten(text, 60),
        "Fill PDF forms. Use when asked for a form."
    );
    // Both do not fit whole: the use sentence is cut at a clause boundary.
    let text = "Handles task number 7 of the suite. Use it when the user asks for task 7, or \
                anything near it; it also explains the edge cases at some length.";
    assert_eq!(
        shorten(text, 120),
        "Handles task number 7 of the suite. Use it when the user asks for task 7, or anything \
         near it…"
    );
    // No room beside the first sentence: the use sentence is kept instead of it.
    let long_first = format!("{} end. Use when asked for help.", "word ".repeat(20));
    assert_eq!(shorten(&long_first, 80), "Use when asked for help.");
    // Without a use sentence, or with one first, the sentences from the first on that fit.
    assert_eq!(
        shorten("Fill forms. Then stop. And more.", 25),
        "Fill forms. Then stop."
    );
    assert_eq!(shorten("Fill forms. Then stop.", 15), "Fill forms.");
    assert_eq!(
        shorten("Use this for forms. Use when asked. Or not.", 40),
        "Use this for forms. Use when asked."
    );
    assert_eq!(
        shorten("Query the U.S. census data. Then more. Use when asked.", 45),
        "Query the U.S. census data. Use when asked."
    );
    // A longer share keeps more sentences, the use sentence in its place.
    let text = "One thing. Two things. Use when asked. Three things. Four things.";
    assert_eq!(shorten(text, 30), "One thing. Use when asked.");
    assert_eq!(shorten(text, 40), "One thing. Two things. Use when asked.");
    assert_eq!(
        shorten(text, 52),
        "One thing. Two things. Use when asked. Three things."
    );
    for share in [1, 2, 80, 120, 500] {
        for text in [
            "数".repeat(300),
            format!("A. {}", "Use when x, ".repeat(500)),
            format!("{}. Use when y.", "z".repeat(1000)),
        ] {
            let cut = shorten(&text, share);
            assert!(cut.chars().count() <= share.max(2), "{share}: {cut}");
        }
    }
}

#[test]
fn a_first_sentence_is_cut_at_a_word_boundary_within_the_limit() {
    let first = |text: &str| first_sentence(text, 120).into_owned();
    assert_eq!(first("Fill PDF forms. Use when asked."), "Fill PDF forms.");
    assert_eq!(first("Use v1.2 carefully"), "Use v1.2 carefully");
    // A dot after an abbreviation or initials ends no sentence.
    assert_eq!(
        first("Query the U.S. census data. Use when asked."),
        "Query the U.S. census data."
    );
    assert_eq!(
        first("Convert files, e.g. PDF or DOCX, to text. More."),
        "Convert files, e.g. PDF or DOCX, to text."
    );
    assert_eq!(first("Plan with J. Smith. Then go."), "Plan with J. Smith.");
    assert_eq!(first("  Two\n lines here.\nMore."), "Two lines here.");
    let long = format!("{} tail.", "word ".repeat(40));
    let cut = first(&long);
    assert!(cut.chars().count() <= 120, "{cut}");
    assert!(cut.ends_with("word…"), "{cut}");
    let unbroken = "x".repeat(300);
    let cut = first(&unbroken);
    assert_eq!(cut.chars().count(), 120);
    assert!(cut.ends_with('…'));
    assert_eq!(first(&"数".repeat(200)).chars().count(), 120);
    // Punctuation alone before the cut is cut at the limit, never left a bare `…`.
    let commas = format!("{} x", ",".repeat(200));
    assert_eq!(first(&commas), format!("{}…", ",".repeat(119)));
}

#[test]
fn tier_two_gives_each_description_an_equal_share_of_the_budget() {
    // Long descriptions of several sentences, the use sentence last.
    let skills: Vec<Skill> = (0..10)
        .map(|index| {
            let filler = "It explains one more edge case at some length. ".repeat(8);
            skill(
                &format!("skill-{index}"),
                &format!("Handles task {index}. {filler}Use when the user asks for task {index}."),
            )
        })
        .collect();
    let sizes = tier_sizes(&skills);
    let mut shown = Vec::new();
    for budget in [sizes[1], (sizes[0] + sizes[1]) / 2, sizes[0] - 1] {
        let catalog = Catalog::new(&skills).budget(budget).render().unwrap();
        assert_eq!(catalog.tier, Tier::Shortened, "budget {budget}");
        assert!(catalog.text.chars().count() <= budget);
        let descriptions: Vec<&str> = catalog
            .text
            .lines()
            .filter_map(|line| line.trim().strip_prefix("<description>"))
            .collect();
        assert_eq!(descriptions.len(), 10);
        // Every description keeps its use sentence, and all keep as much as each other.
        for (index, description) in descriptions.iter().enumerate() {
            assert!(
                description.contains(&format!("Use when the user asks for task {index}.")),
                "{description}"
            );
        }
        let lengths: Vec<usize> = descriptions
            .iter()
            .map(|text| text.chars().count())
            .collect();
        assert!(
            lengths.iter().max().unwrap() - lengths.iter().min().unwrap() <= 1,
            "{lengths:?}"
        );
        shown.push(lengths[0]);
    }
    // The more budget, the more of each description.
    assert!(shown.windows(2).all(|pair| pair[0] < pair[1]), "{shown:?}");
    // Near the full size nearly everything is kept: more than the least share by far.
    assert!(shown[2] > 3 * MIN_DESCRIPTION_SHARE, "{shown:?}");
}

#[test]
#[cfg(feature = "search")]
fn every_visible_skill_is_listed_or_found_by_its_name_at_any_budget() {
    let mut skills = varied_skills(40);
    skills.push(skill_at(
        "secret-deploy",
        "Deploy.",
        "/skills/secret-deploy/SKILL.md",
        true,
    ));
    let sizes = tier_sizes(&skills);
    let index = crate::search::SearchIndex::new(skills.iter().map(CatalogEntry::from));
    assert!(index.search("secret-deploy", 20).is_empty());
    let step = ((sizes[0] - sizes[3]) / 25).max(1);
    let mut budget = sizes[3];
    while budget <= sizes[0] {
        let catalog = Catalog::new(&skills).budget(budget).render().unwrap();
        assert!(!catalog.text.contains("secret-deploy"));
        for skill in skills.iter().filter(|skill| skill.is_model_visible()) {
            let listed = catalog
                .text
                .contains(&format!("<name>{}</name>", skill.name));
            let found = catalog.tier.needs_search()
                && index
                    .search(skill.name.as_str(), 5)
                    .iter()
                    .any(|hit| hit.name == skill.name.as_str());
            assert!(listed || found, "{} at budget {budget}", skill.name);
        }
        budget += step;
    }
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
fn the_text_is_made_in_one_allocation_at_every_tier() {
    let mut skills = varied_skills(200);
    skills.push(skill_at(
        "quoted",
        "Use \"<this>\" & 'that' & \"<those>\". Then \"<these>\" & 'more'.",
        "/s/q&a/SKILL.md",
        false,
    ));
    skills.push(skill("wide", &"数据 ".repeat(300)));
    let catalog = Catalog::new(&skills).reader("a_longer_reader_tool_name");
    let entries = catalog.visible_sorted().unwrap();
    let fits = Tier::ALL
        .map(Fit::smallest)
        .into_iter()
        .chain([80, 200, 1000, 100_000].map(|share| Fit {
            tier: Tier::Shortened,
            share,
        }));
    for fit in fits {
        let estimate = catalog.estimated_size(fit, &entries);
        let text = catalog.render_fit(fit, &entries);
        // Room that ran out would have doubled.
        assert_eq!(text.capacity(), estimate, "{fit:?}");
        assert!(
            text.len() <= estimate,
            "{fit:?}: {} > {estimate}",
            text.len()
        );
    }
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

/// What [`Catalog::write_to`] writes of `catalog`, and what it says it wrote.
fn written(catalog: &Catalog<'_>) -> (String, Option<WrittenCatalog>) {
    let mut bytes = Vec::new();
    let summary = catalog.write_to(&mut bytes).unwrap();
    (String::from_utf8(bytes).unwrap(), summary)
}

#[test]
fn writing_gives_the_rendered_bytes_and_summary_at_every_budget() {
    let mut skills = varied_skills(20);
    skills.push(skill_at(
        "quoted",
        "Use <it> & 'that'.",
        "/s/q&a/SKILL.md",
        false,
    ));
    skills.push(skill_at("manual", "Never listed.", "/s/m/SKILL.md", true));
    let sizes = tier_sizes(&skills);
    let budgets = [sizes[0], sizes[1], sizes[1] - 1, sizes[2], sizes[3], 0];
    let catalogs = budgets
        .iter()
        .map(|&budget| Catalog::new(&skills).budget(budget))
        .chain([Catalog::new(&skills), Catalog::new(&skills).reader("open")]);
    for catalog in catalogs {
        let rendered = catalog.render().unwrap();
        let (text, summary) = written(&catalog);
        assert_eq!(text, rendered.text);
        let expected = WrittenCatalog {
            fingerprint: rendered.fingerprint,
            tier: rendered.tier,
            listed: rendered.listed,
            left_out: rendered.left_out,
            over_budget: rendered.over_budget,
        };
        assert_eq!(summary, Some(expected));
        assert_eq!(summary.unwrap().fingerprint, Fingerprint::of(&text));
    }
    let manual = [skill_at("manual", "Never listed.", "/s/m/SKILL.md", true)];
    assert_eq!(written(&Catalog::new(&manual)), (String::new(), None));
}

/// Takes `room` bytes, then fails.
struct Full {
    room: usize,
}

impl io::Write for Full {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.room == 0 {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "full"));
        }
        let taken = bytes.len().min(self.room);
        self.room -= taken;
        Ok(taken)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn writing_stops_at_the_first_error_and_returns_it() {
    let skills = varied_skills(5);
    let error = Catalog::new(&skills)
        .write_to(Full { room: 1000 })
        .unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::StorageFull);
}

#[test]
fn fingerprinting_in_pieces_gives_the_fingerprint_of_the_whole() {
    let text = "<available_skills>\n  <skill>数</skill>\n";
    let mut hasher = FingerprintHasher::new();
    for piece in text.as_bytes().chunks(3) {
        hasher.update(piece);
    }
    assert_eq!(hasher.finish(), Fingerprint::of(text));
}

/// A catalog large enough to be rendered on several threads is the text one thread writes, in
/// every tier, with the same fingerprint whether rendered or written.
#[test]
fn a_large_catalog_rendered_on_threads_is_the_text_one_thread_writes() {
    let entries: Vec<CatalogEntry<'static>> = (0..5_000)
        .map(|number| {
            CatalogEntry::new(
                format!("skill-{:05}", (number * 7_919) % 5_000),
                format!("Does task {number} & more <quickly>. Use when asked for {number}."),
                format!("skill://skill-{number:05}/SKILL.md"),
                number % 13 != 0,
            )
        })
        .collect();
    let catalog = Catalog::from_entries(entries.iter().cloned());
    let listed = catalog.visible_sorted().unwrap();
    for tier in [Tier::Full, Tier::Shortened, Tier::NamesOnly] {
        let fit = Fit { tier, share: 60 };
        let mut threaded = String::new();
        write_entries(&listed, fit, &mut threaded).unwrap();
        let mut serial = String::new();
        for entry in &listed {
            write_listed(*entry, fit, &mut serial).unwrap();
        }
        assert!(threaded == serial, "{tier:?}");
    }
    let rendered = catalog.render().unwrap();
    let mut written = Vec::new();
    let summary = catalog.write_to(&mut written).unwrap().unwrap();
    assert_eq!(rendered.text.as_bytes(), written.as_slice());
    assert_eq!(rendered.fingerprint, summary.fingerprint);
}

/// The two steps `write_carried` takes in one pass, one after the other: the control
/// characters replaced, then the text escaped.
fn carried_in_two_steps(text: &str) -> String {
    let carriable: String = text
        .chars()
        .map(|c| {
            if crate::skill::is_unsafe_control(c) {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect();
    escape_xml(&carriable).into_owned()
}

fn carried(text: &str) -> String {
    let mut out = String::new();
    write_carried(&mut out, text).unwrap();
    out
}

#[test]
fn text_is_carried_into_xml_as_the_two_steps_make_it() {
    for text in [
        "",
        "plain",
        "it's <b>&\"quoted\"</b>",
        "tab\tand\nline",
        "bell\u{7}, escape\u{1b}[31m, delete\u{7f}, next line\u{85}, C1 \u{9f}",
        "é ü 中文 \u{a0} \u{100}",
        "\u{0}",
        "&",
    ] {
        assert_eq!(carried(text), carried_in_two_steps(text), "{text:?}");
    }
    assert_eq!(carried("a\u{1b}<b>"), "a\u{fffd}&lt;b&gt;");
}

proptest::proptest! {
    #[test]
    fn any_text_is_carried_into_xml_as_the_two_steps_make_it(text in "\\PC*|[\\x00-\\x{a0}<>&'\"]*") {
        proptest::prop_assert_eq!(carried(&text), carried_in_two_steps(&text));
    }
}
