//! Writes a deterministic benchmark tree of skills.
//!
//! ```text
//! cargo run --release -p skillbook --example generate-tree -- OUT_DIR [SKILLS] [SEED] [SHAPE]
//! cargo run --release -p skillbook --example generate-tree -- OUT_DIR --skills N --seed N --shape S
//! ```
//!
//! SHAPE is `small`, `large` (the default) or `deep`, fixed shapes described in
//! `benches/support/tree.rs`, or `mixed`: a shape nobody tuned to, whose front matter features
//! and collection layout are all drawn at random from the seed (see [`Mix`]). The same
//! arguments always write the same bytes.

#[path = "../benches/support/tree.rs"]
mod tree;

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: generate-tree OUT_DIR [SKILLS=1000] [SEED=1] \
                     [SHAPE=large|small|deep|mixed]\n       \
                     (or --skills N, --seed N, --shape NAME anywhere after OUT_DIR)";

/// The kind of tree to write.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// One of the fixed shapes of `benches/support/tree.rs`.
    Fixed(tree::Shape),
    /// Every feature and the layout drawn from the seed.
    Mixed,
}

impl Shape {
    fn named(name: &str) -> Option<Shape> {
        match name {
            "mixed" => Some(Shape::Mixed),
            other => tree::Shape::named(other).map(Shape::Fixed),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Shape::Fixed(shape) => shape.name(),
            Shape::Mixed => "mixed",
        }
    }
}

/// What the command line asks for.
struct Arguments {
    root: PathBuf,
    skills: usize,
    seed: u64,
    shape: Shape,
}

fn main() -> ExitCode {
    let arguments = match parse_arguments(std::env::args().skip(1)) {
        Ok(arguments) => arguments,
        Err(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(Some(message)) => {
            eprintln!("error: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let Arguments {
        root,
        skills,
        seed,
        shape,
    } = arguments;
    let written = match shape {
        Shape::Fixed(fixed) => tree::generate_shape(&root, skills, seed, fixed).map(|()| None),
        Shape::Mixed => generate_mixed(&root, skills, seed).map(Some),
    };
    match written {
        Ok(mix) => {
            println!(
                "wrote {skills} skills ({} shape, seed {seed}) under {}",
                shape.name(),
                root.display()
            );
            if let Some(mix) = mix {
                println!("{mix}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "error: cannot write the tree under {}: {error}",
                root.display()
            );
            ExitCode::FAILURE
        }
    }
}

/// Reads `OUT_DIR [SKILLS] [SEED] [SHAPE]`, where `--skills N`, `--seed N` and `--shape NAME`
/// may stand for any of the last three. `Err(None)` asks for the usage.
fn parse_arguments(arguments: impl Iterator<Item = String>) -> Result<Arguments, Option<String>> {
    read_arguments(arguments).map_err(|message| (message != "help").then_some(message))
}

fn read_arguments(arguments: impl Iterator<Item = String>) -> Result<Arguments, String> {
    let mut positional = Vec::new();
    let (mut skills, mut seed, mut shape) = (None, None, None);
    let mut arguments = arguments;
    while let Some(argument) = arguments.next() {
        let slot = match argument.as_str() {
            "--skills" => &mut skills,
            "--seed" => &mut seed,
            "--shape" => &mut shape,
            "-h" | "--help" => return Err("help".to_owned()),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => {
                positional.push(argument);
                continue;
            }
        };
        let value = arguments
            .next()
            .ok_or_else(|| format!("{argument} needs a value"))?;
        *slot = Some(value);
    }
    let mut positional = positional.into_iter();
    let root = positional.next().map(PathBuf::from).ok_or("no OUT_DIR")?;
    let skills = skills.or_else(|| positional.next());
    let seed = seed.or_else(|| positional.next());
    let shape = shape.or_else(|| positional.next());
    if let Some(extra) = positional.next() {
        return Err(format!("unexpected argument {extra:?}"));
    }
    let number = |value: Option<String>, default: u64, what: &str| match value {
        None => Ok(default),
        Some(text) => text
            .parse::<u64>()
            .map_err(|_| format!("{what} must be a number, not {text:?}")),
    };
    let shape = match shape {
        None => Shape::Fixed(tree::Shape::Large),
        Some(name) => Shape::named(&name)
            .ok_or_else(|| format!("unknown shape {name:?}: use small, large, deep or mixed"))?,
    };
    Ok(Arguments {
        root,
        skills: number(skills, 1000, "SKILLS")? as usize,
        seed: number(seed, 1, "SEED")?,
        shape,
    })
}

/// SplitMix64: small, fast, seeded, and the same on every platform.
struct Random(u64);

impl Random {
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

    /// True with probability `percent` / 100.
    fn percent(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.between(0, items.len() as u64 - 1) as usize]
    }

    /// An index drawn with the given relative weights.
    fn weighted(&mut self, weights: &[u64]) -> usize {
        let mut draw = self.between(0, weights.iter().sum::<u64>() - 1);
        for (index, weight) in weights.iter().enumerate() {
            if draw < *weight {
                return index;
            }
            draw -= weight;
        }
        weights.len() - 1
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
    "sketch",
    "query",
    "bundle",
    "notebook",
    "contract",
    "pipeline",
    "glossary",
];

const TOOLS: [&str; 9] = [
    "Read",
    "Grep",
    "Glob",
    "Edit",
    "Write",
    "WebFetch",
    "Bash(git:*)",
    "Bash(npm run *)",
    "Bash(python3 scripts/*.py)",
];

const LICENSES: [&str; 6] = [
    "MIT",
    "Apache-2.0",
    "\"Apache-2.0\"",
    "'MIT'",
    "Complete terms in LICENSE.txt",
    "\"Proprietary: see LICENSE.txt\"",
];

/// Folder-name stems for the collection levels.
const LEVELS: [&str; 4] = ["team", "area", "group", "set"];

/// The seed's mix: how often each front matter feature appears (in percent) and how deep and
/// wide the collections are. Drawn first, so each seed is a different shape, not only other
/// bytes of the same one.
struct Mix {
    license: u64,
    metadata: u64,
    /// Of the metadata values, how many are quoted (double or single).
    quoted_metadata: u64,
    allowed_tools: u64,
    compatibility: u64,
    /// Descriptions written as block scalars, then as quoted scalars; the rest plain.
    block_description: u64,
    quoted_description: u64,
    /// Relative weights of 0, 1, 2, 3 and 4 collection folders above a skill.
    depth: [u64; 5],
    /// Folders to choose from at each collection level.
    fan_out: [u64; 4],
    references: u64,
}

impl Mix {
    fn draw(random: &mut Random) -> Mix {
        let block_description = random.between(5, 60);
        Mix {
            license: random.between(30, 100),
            metadata: random.between(30, 100),
            quoted_metadata: random.between(20, 100),
            allowed_tools: random.between(10, 80),
            compatibility: random.between(0, 40),
            block_description,
            quoted_description: random.between(5, 100 - block_description),
            depth: std::array::from_fn(|_| random.between(1, 9)),
            fan_out: std::array::from_fn(|_| random.between(2, 24)),
            references: random.between(17, 23),
        }
    }
}

impl std::fmt::Display for Mix {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "mix: license {}%, metadata {}% (values quoted {}%), allowed-tools {}%, \
             compatibility {}%, description block scalar {}% / quoted {}%, depth 0-4 weights \
             {:?}, folders per level {:?}, references/ {}%",
            self.license,
            self.metadata,
            self.quoted_metadata,
            self.allowed_tools,
            self.compatibility,
            self.block_description,
            self.quoted_description,
            self.depth,
            self.fan_out,
            self.references
        )
    }
}

/// Writes `skills` skills of the mixed shape under `root`; returns the seed's [`Mix`].
fn generate_mixed(root: &Path, skills: usize, seed: u64) -> io::Result<Mix> {
    let mut random = Random(seed);
    let mix = Mix::draw(&mut random);
    for index in 0..skills {
        let name = format!("{}-{}-{index:06}", random.pick(&WORDS), random.pick(&WORDS));
        let directory = root.join(collection(&mut random, &mix)).join(&name);
        fs::create_dir_all(&directory)?;
        let mut text = front_matter(&mut random, &mix, &name);
        body(&mut random, &name, &mut text);
        fs::write(directory.join("SKILL.md"), text)?;
        if random.percent(mix.references) {
            fs::create_dir_all(directory.join("references"))?;
            let length = random.between(40, 600);
            let guide = format!("# {name}\n\n{}.\n", words(&mut random, length));
            let file = format!("{}.md", random.pick(&WORDS));
            fs::write(directory.join("references").join(file), guide)?;
        }
    }
    Ok(mix)
}

/// The collection folders above a skill: zero to four levels.
fn collection(random: &mut Random, mix: &Mix) -> PathBuf {
    let depth = random.weighted(&mix.depth);
    let mut path = PathBuf::new();
    for (level, stem) in LEVELS.iter().enumerate().take(depth) {
        path.push(format!(
            "{stem}-{:02}",
            random.between(0, mix.fan_out[level] - 1)
        ));
    }
    path
}

/// `count` words, separated by spaces.
fn words(random: &mut Random, count: u64) -> String {
    let mut text = String::new();
    for position in 0..count {
        if position > 0 {
            text.push(' ');
        }
        let word = *random.pick(&WORDS);
        text.push_str(word);
    }
    text
}

/// The front matter, `---` lines included.
fn front_matter(random: &mut Random, mix: &Mix, name: &str) -> String {
    let mut text = format!("---\nname: {name}\n");
    description(random, mix, &mut text);
    if random.percent(mix.license) {
        let _ = writeln!(text, "license: {}", random.pick(&LICENSES));
    }
    if random.percent(mix.compatibility) {
        let value = match random.between(0, 2) {
            0 => "Requires git and Python 3.11+",
            1 => "\"Needs network access: fetches the schema\"",
            _ => "'Claude Code, or any client that reads SKILL.md'",
        };
        let _ = writeln!(text, "compatibility: {value}");
    }
    if random.percent(mix.allowed_tools) {
        allowed_tools(random, &mut text);
    }
    if random.percent(mix.metadata) {
        metadata(random, mix, &mut text);
    }
    text.push_str("---\n");
    text
}

/// A `description:` line: plain, double-quoted (with escapes), single-quoted (with `''`) or a
/// block scalar of a few lines, each style with `: ` inside where it may have one.
fn description(random: &mut Random, mix: &Mix, text: &mut String) {
    let (task_words, cover_words) = (random.between(2, 6), random.between(4, 20));
    let task = words(random, task_words);
    let covers = words(random, cover_words);
    let style = random.between(0, 99);
    if style < mix.block_description {
        let header = random.pick(&["|", ">", "|-", ">-", "|+", ">+"]);
        let _ = writeln!(text, "description: {header}");
        let _ = writeln!(text, "  Use when asked to {task}.");
        for _ in 0..random.between(1, 4) {
            let count = random.between(4, 12);
            let line = words(random, count);
            let _ = writeln!(text, "  Covers: {line}.");
        }
    } else if style < mix.block_description + mix.quoted_description {
        if random.percent(50) {
            let _ = writeln!(
                text,
                "description: \"Use when asked to \\\"{task}\\\": covers {covers} \\u2014 fast.\""
            );
        } else {
            let _ = writeln!(
                text,
                "description: 'Use when it''s time to {task}: covers {covers}.'"
            );
        }
    } else {
        let _ = writeln!(
            text,
            "description: Use when asked to {task}. Covers {covers}."
        );
    }
}

/// `allowed-tools` as a space-separated line, a flow list or a block list.
fn allowed_tools(random: &mut Random, text: &mut String) {
    let count = random.between(1, 4);
    let tools: Vec<&str> = (0..count).map(|_| *random.pick(&TOOLS)).collect();
    match random.between(0, 2) {
        0 if !tools.iter().any(|tool| tool.contains(' ')) => {
            let _ = writeln!(text, "allowed-tools: {}", tools.join(" "));
        }
        0 | 1 => {
            let quoted: Vec<String> = tools
                .iter()
                .map(|tool| match tool.contains(' ') {
                    true => format!("\"{tool}\""),
                    false => (*tool).to_owned(),
                })
                .collect();
            let _ = writeln!(text, "allowed-tools: [{}]", quoted.join(", "));
        }
        _ => {
            text.push_str("allowed-tools:\n");
            for tool in tools {
                let _ = writeln!(text, "  - {tool}");
            }
        }
    }
}

/// A `metadata:` map of one to four entries, quoted or not.
fn metadata(random: &mut Random, mix: &Mix, text: &mut String) {
    text.push_str("metadata:\n");
    let keys = ["author", "version", "owner", "category", "updated"];
    let count = random.between(1, keys.len() as u64) as usize;
    for key in &keys[..count] {
        let value = match *key {
            "author" => format!("Team {}", random.pick(&WORDS)),
            "version" => format!("{}.{}", random.between(0, 3), random.between(0, 12)),
            "owner" => format!("{}@example.com", random.pick(&WORDS)),
            "category" => format!("{}: {}", random.pick(&WORDS), random.pick(&WORDS)),
            _ => format!(
                "2025-{:02}-{:02}",
                random.between(1, 12),
                random.between(1, 28)
            ),
        };
        // A value holding `: ` must be quoted.
        let quoted = value.contains(": ") || random.percent(mix.quoted_metadata);
        let value = match (quoted, random.percent(50)) {
            (false, _) => value,
            (true, true) => format!("\"{value}\""),
            (true, false) => format!("'{value}'"),
        };
        let _ = writeln!(text, "  {key}: {value}");
    }
}

/// A Markdown body of 1 to 10 KB: a heading, a paragraph and numbered steps.
fn body(random: &mut Random, name: &str, text: &mut String) {
    let size = text.len() + random.between(1024, 10 * 1024) as usize;
    let _ = write!(text, "# {name}\n\n");
    let paragraph_words = random.between(12, 40);
    let paragraph = words(random, paragraph_words);
    let _ = write!(text, "This skill helps to {paragraph}.\n\n## Steps\n\n");
    let mut step = 1;
    while text.len() < size {
        let length = random.between(6, 24);
        let _ = writeln!(text, "{step}. {}.", words(random, length));
        step += 1;
    }
}
