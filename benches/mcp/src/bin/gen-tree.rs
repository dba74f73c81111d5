//! Writes a deterministic tree of Agent Skills for the MCP benchmark.
//!
//! ```text
//! gen-tree ROOT COUNT [SEED=1]
//! ```
//!
//! The same `COUNT` and `SEED` always write the same bytes. The tree is built so that both
//! `skillbook mcp` and rmcp's `SkillCatalog::from_dir` serve every skill:
//!
//! - skill `i` is named `<word>-<word>-<i:06>` (lowercase letters, digits and single hyphens, a
//!   valid Agent Skills name, unique), and its folder carries that name;
//! - the folder sits 0–3 collection folders deep below ROOT (10 % at the top, 40 % one deep
//!   (`team-NN/`), 40 % two deep (`team-NN/area-NN/`), 10 % three deep
//!   (`team-NN/area-NN/group-N/`)); collection folders never hold a SKILL.md, so no skill is
//!   nested inside another;
//! - every SKILL.md is 1–8 KiB (front matter with `name`, `description`, `license`, `metadata`,
//!   sometimes `allowed-tools`; a numbered Markdown body);
//! - a fifth of the skills have a `references/` folder with one or two Markdown files
//!   (2–12 KiB each); half of those also have `scripts/run.sh`.
//!
//! ROOT must not exist yet or be empty. Prints one JSON line with the totals.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// SplitMix64: small, seeded, stable across platforms and Rust versions.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.between(0, items.len() as u64 - 1) as usize]
    }
}

const WORDS: [&str; 32] = [
    "review",
    "deploy",
    "schema",
    "invoice",
    "report",
    "migrate",
    "audit",
    "render",
    "parse",
    "index",
    "cache",
    "policy",
    "release",
    "triage",
    "forecast",
    "translate",
    "summarise",
    "validate",
    "archive",
    "monitor",
    "budget",
    "onboard",
    "refactor",
    "benchmark",
    "ledger",
    "contract",
    "incident",
    "pipeline",
    "dataset",
    "support",
    "payroll",
    "catalog",
];

const MIN_SKILL_MD: usize = 1024;
const MAX_SKILL_MD: usize = 8192;

fn words(random: &mut Seeded, count: u64) -> String {
    let mut text = String::new();
    for index in 0..count {
        if index > 0 {
            text.push(' ');
        }
        text.push_str(random.pick(&WORDS));
    }
    text
}

/// Collection folders above skill `index`: 0–3 levels.
fn collections(random: &mut Seeded) -> String {
    match random.between(0, 9) {
        0 => String::new(),
        1..=4 => format!("team-{:02}/", random.between(0, 19)),
        5..=8 => format!(
            "team-{:02}/area-{:02}/",
            random.between(0, 19),
            random.between(0, 9)
        ),
        _ => format!(
            "team-{:02}/area-{:02}/group-{}/",
            random.between(0, 19),
            random.between(0, 9),
            random.between(0, 4)
        ),
    }
}

fn skill_md(random: &mut Seeded, name: &str) -> String {
    let description_words = random.between(12, 50);
    let mut text = String::new();
    let _ = write!(
        text,
        "---\nname: {name}\ndescription: Use when asked to {}. Covers {}.\nlicense: Apache-2.0\n\
         metadata:\n  owner: team-{:02}\n  version: \"1.{}\"\n",
        words(random, description_words / 2),
        words(random, description_words - description_words / 2),
        random.between(0, 19),
        random.between(0, 9),
    );
    if random.between(0, 3) == 0 {
        text.push_str("allowed-tools: Read Grep\n");
    }
    text.push_str("---\n# Instructions\n\n");
    // Numbered steps up to a target size in 1.25–8 KiB; a step is at most ~250 bytes, so the
    // file ends within 1–8 KiB.
    let target = random.between(1280, MAX_SKILL_MD as u64) as usize;
    let mut step = 1;
    loop {
        let length = random.between(6, 30);
        let line = format!("{step}. {}.\n", words(random, length));
        if text.len() + line.len() > target {
            break;
        }
        text.push_str(&line);
        step += 1;
    }
    while text.len() < MIN_SKILL_MD {
        text.push_str("Check the result.\n");
    }
    assert!(text.len() <= MAX_SKILL_MD, "SKILL.md of {name} too large");
    text
}

struct Totals {
    skills: usize,
    files: usize,
    bytes: u64,
    with_references: usize,
}

fn write(path: &Path, text: &str, totals: &mut Totals) -> io::Result<()> {
    fs::write(path, text)?;
    totals.files += 1;
    totals.bytes += text.len() as u64;
    Ok(())
}

fn generate(root: &Path, count: usize, seed: u64) -> io::Result<Totals> {
    let mut random = Seeded(seed);
    let mut totals = Totals {
        skills: 0,
        files: 0,
        bytes: 0,
        with_references: 0,
    };
    for index in 0..count {
        let name = format!("{}-{}-{index:06}", random.pick(&WORDS), random.pick(&WORDS));
        let directory = root.join(format!("{}{name}", collections(&mut random)));
        fs::create_dir_all(&directory)?;
        let text = skill_md(&mut random, &name);
        write(&directory.join("SKILL.md"), &text, &mut totals)?;
        totals.skills += 1;
        if random.between(0, 4) == 0 {
            totals.with_references += 1;
            fs::create_dir_all(directory.join("references"))?;
            let length = random.between(300, 1700);
            let guide = format!("# Guide\n\n{}\n", words(&mut random, length));
            write(&directory.join("references/guide.md"), &guide, &mut totals)?;
            if random.between(0, 1) == 0 {
                let length = random.between(300, 1700);
                let api = format!("# API\n\n{}\n", words(&mut random, length));
                write(&directory.join("references/api.md"), &api, &mut totals)?;
                fs::create_dir_all(directory.join("scripts"))?;
                write(
                    &directory.join("scripts/run.sh"),
                    "#!/bin/sh\necho run\n",
                    &mut totals,
                )?;
            }
        }
    }
    Ok(totals)
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let (root, count, seed) = match arguments.as_slice() {
        [root, count] => (root, count, "1"),
        [root, count, seed] => (root, count, seed.as_str()),
        _ => {
            eprintln!("usage: gen-tree ROOT COUNT [SEED=1]");
            return ExitCode::from(2);
        }
    };
    let root = PathBuf::from(root);
    let (Ok(count), Ok(seed)) = (count.parse::<usize>(), seed.parse::<u64>()) else {
        eprintln!("error: COUNT and SEED must be numbers");
        return ExitCode::from(2);
    };
    if fs::read_dir(&root).is_ok_and(|mut entries| entries.next().is_some()) {
        eprintln!("error: {} is not empty", root.display());
        return ExitCode::FAILURE;
    }
    match generate(&root, count, seed) {
        Ok(totals) => {
            println!(
                "{}",
                serde_json::json!({
                    "tool": "gen-tree",
                    "root": root.display().to_string(),
                    "seed": seed,
                    "skills": totals.skills,
                    "with_references": totals.with_references,
                    "files": totals.files,
                    "bytes": totals.bytes,
                })
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: cannot write {}: {error}", root.display());
            ExitCode::FAILURE
        }
    }
}
