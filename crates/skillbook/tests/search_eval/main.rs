//! Retrieval quality of skill search on a frozen evaluation set: 557 skills and 263 queries
//! written for this project (see `README.md` beside this file).
//!
//! `cargo test -p skillbook --test search_eval -- --nocapture` prints recall@1, recall@5 and MRR
//! of skillbook's ranking, of words alone and of plain BM25. The assertions hold only what cannot
//! be tuned away: the query and skill files are the frozen ones, every expected skill exists,
//! every skill is found by its own name, and at recall@5 skillbook's ranking is not worse than
//! words alone, nor words alone than BM25 (a broken meaning model or lexicon fails here).

use std::collections::HashSet;

use sha2::{Digest, Sha256};
use skillbook::search::Ranking;

mod eval;

/// SHA-256 of `queries.jsonl` when it was frozen, before any ranking was tuned on it.
const QUERIES_SHA256: &str = "83295467008f84f5472ea60c6019c04f041a6ee931769a5d13e9d3569ab09541";
/// SHA-256 of `skills.jsonl` when it was frozen, with the queries.
const SKILLS_SHA256: &str = "a648c7a0f9a6ff404e60a19a95e07b9fdf56aca6985d7670942f84dc05fdbe9a";

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[test]
fn the_evaluation_files_are_the_frozen_ones() {
    assert_eq!(
        sha256(eval::QUERIES),
        QUERIES_SHA256,
        "queries.jsonl changed"
    );
    assert_eq!(sha256(eval::SKILLS), SKILLS_SHA256, "skills.jsonl changed");
}

#[test]
fn every_expected_skill_exists_and_names_are_unique() {
    let skills = eval::skills();
    let names: HashSet<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    assert_eq!(names.len(), skills.len(), "duplicate skill names");
    assert!(skills.len() >= 500);
    let queries = eval::queries();
    assert!(queries.len() >= 150);
    for query in &queries {
        assert!(!query.expected.is_empty(), "{}", query.query);
        for name in &query.expected {
            assert!(names.contains(name.as_str()), "{name} ({})", query.query);
        }
    }
}

#[test]
fn every_skill_is_found_first_by_its_own_name() {
    let skills = eval::skills();
    let index = eval::index(&skills, Ranking::Default);
    for skill in &skills {
        let hits = index.search(&skill.name, 5);
        assert_eq!(
            hits.first().map(|hit| hit.name.as_str()),
            Some(skill.name.as_str()),
            "{}",
            skill.name
        );
    }
}

#[test]
fn each_part_of_the_ranking_adds_recall_at_5() {
    let skills = eval::skills();
    let queries = eval::queries();
    let (table, [default, words, bm25]) = eval::table(&skills, &queries);
    println!("{table}");
    assert!(
        default.recall_at_5 >= words.recall_at_5,
        "recall@5: skillbook {:.3} < words alone {:.3}",
        default.recall_at_5,
        words.recall_at_5
    );
    assert!(
        words.recall_at_5 >= bm25.recall_at_5,
        "recall@5: words alone {:.3} < BM25 {:.3}",
        words.recall_at_5,
        bm25.recall_at_5
    );
}
