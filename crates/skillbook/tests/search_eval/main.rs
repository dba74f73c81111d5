//! Retrieval quality of skill search on a frozen evaluation set: 557 skills and 263 queries
//! written for this project, and a multilingual set of 24 skills described in other languages
//! and 81 queries over both corpora (see `README.md` beside this file).
//!
//! `cargo test -p skillbook --test search_eval -- --nocapture` prints recall@1, recall@5 and MRR
//! of skillbook's ranking, of words alone and of plain BM25, on each set. The assertions hold
//! only what cannot be tuned away: the query and skill files are the frozen ones, every expected
//! skill exists, every skill is found by its own name, at recall@5 skillbook's ranking is not
//! worse than words alone, nor words alone than BM25 (a broken meaning model or lexicon fails
//! here), and on multilingual queries in one language, or naming a Latin-script thing in Chinese,
//! Japanese or Korean, skillbook's ranking is not worse than BM25 at recall@5 (stemming, lexicon
//! or meaning that push down what words in those languages find fail here).

use std::collections::HashSet;

use sha2::{Digest, Sha256};
use skillbook::search::Ranking;

mod eval;

/// SHA-256 of `queries.jsonl` when it was frozen, before any ranking was tuned on it.
const QUERIES_SHA256: &str = "83295467008f84f5472ea60c6019c04f041a6ee931769a5d13e9d3569ab09541";
/// SHA-256 of `skills.jsonl` when it was frozen, with the queries.
const SKILLS_SHA256: &str = "a648c7a0f9a6ff404e60a19a95e07b9fdf56aca6985d7670942f84dc05fdbe9a";
/// SHA-256 of `multilingual_skills.jsonl` when it was frozen, before any ranking ran on it.
const MULTILINGUAL_SKILLS_SHA256: &str =
    "0a27ff805e294f7a021472012c4c3b54b93354b2dcb3c5977141e55217e11788";
/// SHA-256 of `multilingual_queries.jsonl` when it was frozen, with the multilingual skills.
const MULTILINGUAL_QUERIES_SHA256: &str =
    "17578fb7b5654f3be899169da2b1494c4f387c9ef563ef5a3dda8a7b7df9f8bd";

/// The SHA-256 of `text`, in lower-case hexadecimal.
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

#[test]
fn the_multilingual_files_are_the_frozen_ones() {
    assert_eq!(
        sha256(eval::MULTILINGUAL_SKILLS),
        MULTILINGUAL_SKILLS_SHA256,
        "multilingual_skills.jsonl changed"
    );
    assert_eq!(
        sha256(eval::MULTILINGUAL_QUERIES),
        MULTILINGUAL_QUERIES_SHA256,
        "multilingual_queries.jsonl changed"
    );
}

#[test]
fn every_multilingual_expected_skill_exists_and_names_are_unique() {
    let skills = eval::union_skills();
    let names: HashSet<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
    assert_eq!(names.len(), skills.len(), "duplicate skill names");
    assert!(eval::multilingual_skills().len() >= 20);
    let queries = eval::multilingual_queries();
    assert!(queries.len() >= 60);
    for query in &queries {
        assert!(
            eval::MULTILINGUAL_KINDS.contains(&query.kind.as_str()),
            "{} ({})",
            query.kind,
            query.query
        );
        assert!(!query.expected.is_empty(), "{}", query.query);
        for name in &query.expected {
            assert!(names.contains(name.as_str()), "{name} ({})", query.query);
        }
    }
}

#[test]
fn every_multilingual_skill_is_found_first_by_its_own_name() {
    let index = eval::index(&eval::union_skills(), Ranking::Default);
    for skill in eval::multilingual_skills() {
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
fn multilingual_ranking_is_not_worse_than_bm25_within_a_language() {
    let (table, rows) =
        eval::multilingual_table(&eval::union_skills(), &eval::multilingual_queries());
    println!("{table}");
    for (kind, [default, _, bm25]) in rows {
        if !matches!(kind, "same_language" | "mixed") {
            continue;
        }
        assert!(
            default.recall_at_5 >= bm25.recall_at_5,
            "{kind} recall@5: skillbook {:.3} < BM25 {:.3}",
            default.recall_at_5,
            bm25.recall_at_5
        );
    }
}
