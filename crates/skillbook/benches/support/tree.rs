//! A deterministic generator of skill trees for benchmarks: `skills` skills spread over nested
//! collection folders, with realistic front matter, bodies and reference files, in one of three
//! [`Shape`]s. The same shape and seed always write the same bytes.

use std::fs;
use std::io;
use std::path::Path;

/// A small, fast, seeded generator (SplitMix64); no dependency and stable across platforms.
pub struct Seeded(u64);

impl Seeded {
    pub fn new(seed: u64) -> Self {
        Seeded(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }
}

const WORDS: [&str; 24] = [
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
];

fn words(random: &mut Seeded, count: u64) -> String {
    (0..count)
        .map(|_| WORDS[random.between(0, WORDS.len() as u64 - 1) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// The folder (relative to the root) of skill number `index`: one to four levels deep.
fn folder(random: &mut Seeded, index: usize) -> String {
    let name = format!("skill-{index:05}");
    match random.between(0, 9) {
        0 => name,
        1..=4 => format!("team-{:02}/{name}", random.between(0, 19)),
        5..=8 => format!(
            "team-{:02}/area-{:02}/{name}",
            random.between(0, 19),
            random.between(0, 9)
        ),
        _ => format!(
            "team-{:02}/area-{:02}/group-{}/{name}",
            random.between(0, 19),
            random.between(0, 9),
            random.between(0, 4)
        ),
    }
}

/// The folder of skill number `index` in a deep, narrow tree: ten to twelve levels, two ways at
/// each, so each bottom folder holds a handful of skills.
fn deep_folder(random: &mut Seeded, index: usize) -> String {
    let levels = random.between(10, 12);
    let mut path = String::new();
    for level in 0..levels {
        let way = (index >> level) & 1;
        path.push_str(&format!("level-{level:02}-{way}/"));
    }
    path.push_str(&format!("skill-{index:05}"));
    path
}

/// The kind of tree to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// 1–8 KB skill files nested zero to three folders deep; a fifth with a `references/` folder
    /// (the common shape of public collections).
    Small,
    /// 4–30 KB skill files nested zero to three folders deep; three in ten with `references/` and
    /// `scripts/` folders.
    Large,
    /// Small files ten to twelve folders deep, two folders at each level.
    Deep,
}

impl Shape {
    /// Every shape, in the order benchmarks report them.
    const ALL: [Shape; 3] = [Shape::Small, Shape::Large, Shape::Deep];

    /// The shape's name on a command line.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Small => "small",
            Shape::Large => "large",
            Shape::Deep => "deep",
        }
    }

    /// The shape named `name`.
    pub fn named(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|shape| shape.name() == name)
    }
}

/// Writes `skills` skills under `root` from `seed`, in the large shape.
#[allow(
    dead_code,
    reason = "not every user of this module writes the default shape"
)]
pub fn generate(root: &Path, skills: usize, seed: u64) -> io::Result<()> {
    generate_shape(root, skills, seed, Shape::Large)
}

/// Writes `skills` skills of `shape` under `root` from `seed`.
pub fn generate_shape(root: &Path, skills: usize, seed: u64, shape: Shape) -> io::Result<()> {
    if shape != Shape::Large {
        return generate_small(root, skills, seed, shape);
    }
    let mut random = Seeded::new(seed);
    for index in 0..skills {
        let directory = root.join(folder(&mut random, index));
        fs::create_dir_all(&directory)?;
        let description_words = random.between(12, 60);
        let mut text = format!(
            "---\nname: skill-{index:05}\ndescription: Use when asked to {}. Covers {}.\n\
             license: Apache-2.0\nmetadata:\n  owner: team-{:02}\n  version: \"1.{}\"\n",
            words(&mut random, description_words / 2),
            words(&mut random, description_words / 2),
            random.between(0, 19),
            random.between(0, 9),
        );
        if random.between(0, 3) == 0 {
            text.push_str("allowed-tools: Read Grep\n");
        }
        text.push_str("---\n# Instructions\n\n");
        for step in 1..=random.between(10, 80) {
            let length = random.between(8, 30);
            text.push_str(&format!("{step}. {}.\n", words(&mut random, length)));
        }
        fs::write(directory.join("SKILL.md"), text)?;
        if random.between(0, 9) < 3 {
            fs::create_dir_all(directory.join("references"))?;
            let length = random.between(300, 1500);
            fs::write(
                directory.join("references/guide.md"),
                words(&mut random, length),
            )?;
            fs::create_dir_all(directory.join("scripts"))?;
            fs::write(directory.join("scripts/run.sh"), "#!/bin/sh\necho run\n")?;
        }
    }
    Ok(())
}

/// Small skill files (1–8 KB), in the small or the deep shape.
fn generate_small(root: &Path, skills: usize, seed: u64, shape: Shape) -> io::Result<()> {
    let mut random = Seeded::new(seed);
    for index in 0..skills {
        let relative = match shape {
            Shape::Deep => deep_folder(&mut random, index),
            _ => folder(&mut random, index),
        };
        let directory = root.join(relative);
        fs::create_dir_all(&directory)?;
        let description_words = random.between(8, 40);
        let mut text = format!(
            "---\nname: skill-{index:05}\ndescription: Use when asked to {}. Covers {}.\n",
            words(&mut random, description_words / 2),
            words(&mut random, description_words / 2),
        );
        if random.between(0, 1) == 0 {
            text.push_str("license: MIT\n");
        }
        if random.between(0, 2) == 0 {
            text.push_str(&format!(
                "metadata:\n  author: team-{:02}\n  version: \"0.{}\"\n",
                random.between(0, 19),
                random.between(1, 9)
            ));
        }
        text.push_str("---\n# Instructions\n\n");
        let size = random.between(1024, 8 * 1024) as usize;
        let mut step = 1;
        while text.len() < size {
            let length = random.between(6, 24);
            text.push_str(&format!("{step}. {}.\n", words(&mut random, length)));
            step += 1;
        }
        fs::write(directory.join("SKILL.md"), text)?;
        if random.between(0, 4) == 0 {
            fs::create_dir_all(directory.join("references"))?;
            let length = random.between(100, 600);
            fs::write(
                directory.join("references/guide.md"),
                words(&mut random, length),
            )?;
        }
    }
    Ok(())
}
