//! Skill search: building the index (1,000 and 10,000 skills) and answering one query (1,000,
//! 10,000 and 100,000 skills), for skillbook's ranking, words alone and plain BM25.
//!
//! `cargo bench -p skillbook --bench search`. The skills are the evaluation corpus
//! (`tests/search_eval/skills.jsonl`, 557 skills) repeated with a numbered name
//! (`zoom-automation-2`, …) until there are enough, so a larger set has the same words in the
//! same proportions and every posting list grows with it. The queries are a request in a user's
//! words, a shorter one, and a skill's name.
#![allow(
    clippy::expect_used,
    reason = "a benchmark without its fixture has nothing to measure"
)]

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use divan::Bencher;
use divan::counter::ItemsCount;
use serde::Deserialize;
use skillbook::CatalogEntry;
use skillbook::search::{DEFAULT_LIMIT, Ranking, SearchIndex};

const SIZES: [usize; 2] = [1_000, 10_000];
const SEARCH_SIZES: [usize; 3] = [1_000, 10_000, 100_000];

const QUERIES: [&str; 3] = [
    "my spreadsheet totals are off, can you fix the formulas?",
    "schedule a video call with the design team",
    "zoom-automation",
];

fn main() {
    divan::main();
}

#[derive(Deserialize)]
struct Skill {
    name: String,
    description: String,
}

/// `count` skills: the corpus, then the corpus again with `-2`, `-3`, … after each name.
fn skills(count: usize) -> Vec<(String, String, String)> {
    let corpus: Vec<Skill> = include_str!("../tests/search_eval/skills.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a skill line"))
        .collect();
    (0..count)
        .map(|number| {
            let skill = &corpus[number % corpus.len()];
            let round = number / corpus.len();
            let name = match round {
                0 => skill.name.clone(),
                _ => format!("{}-{}", skill.name, round + 1),
            };
            let location = format!("skill://{name}/SKILL.md");
            (name, skill.description.clone(), location)
        })
        .collect()
}

fn entries(skills: &[(String, String, String)]) -> impl Iterator<Item = CatalogEntry<'_>> {
    skills.iter().map(|(name, description, location)| {
        CatalogEntry::new(name.as_str(), description.as_str(), location.as_str(), true)
    })
}

/// The index of `count` skills ranked by `ranking`, built once per process.
fn index(count: usize, ranking: Ranking) -> SearchIndex {
    type Indexes = HashMap<(usize, String), SearchIndex>;
    static INDEXES: OnceLock<Mutex<Indexes>> = OnceLock::new();
    let indexes = INDEXES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut indexes = indexes.lock().expect("the index cache");
    indexes
        .entry((count, format!("{ranking:?}")))
        .or_insert_with(|| SearchIndex::with_ranking(entries(&skills(count)), ranking))
        .clone()
}

/// Building skillbook's index (counts skills).
#[divan::bench(args = SIZES)]
fn build(bencher: Bencher, count: usize) {
    let skills = skills(count);
    bencher
        .counter(ItemsCount::new(count))
        .bench(|| SearchIndex::new(entries(&skills)));
}

/// Building the index of words alone (counts skills).
#[divan::bench(args = SIZES)]
fn build_words(bencher: Bencher, count: usize) {
    let skills = skills(count);
    bencher
        .counter(ItemsCount::new(count))
        .bench(|| SearchIndex::with_ranking(entries(&skills), Ranking::Words));
}

/// Building the plain BM25 index (counts skills).
#[divan::bench(args = SIZES)]
fn build_bm25(bencher: Bencher, count: usize) {
    let skills = skills(count);
    bencher
        .counter(ItemsCount::new(count))
        .bench(|| SearchIndex::with_ranking(entries(&skills), Ranking::Bm25));
}

/// One search with skillbook's ranking.
#[divan::bench(consts = SEARCH_SIZES, args = QUERIES)]
fn search<const COUNT: usize>(bencher: Bencher, query: &str) {
    let index = index(COUNT, Ranking::Default);
    bencher.bench(|| index.search(query, DEFAULT_LIMIT));
}

/// One search with words alone.
#[divan::bench(consts = SEARCH_SIZES, args = QUERIES)]
fn search_words<const COUNT: usize>(bencher: Bencher, query: &str) {
    let index = index(COUNT, Ranking::Words);
    bencher.bench(|| index.search(query, DEFAULT_LIMIT));
}

/// One search with plain BM25.
#[divan::bench(consts = SEARCH_SIZES, args = QUERIES)]
fn search_bm25<const COUNT: usize>(bencher: Bencher, query: &str) {
    let index = index(COUNT, Ranking::Bm25);
    bencher.bench(|| index.search(query, DEFAULT_LIMIT));
}
