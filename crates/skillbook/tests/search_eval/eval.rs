//! The retrieval evaluation of skill search, shared by the `search_eval` test and the
//! `search-eval` example: the frozen corpus and queries, and recall@1, recall@5 and MRR of a
//! ranking over them.
#![expect(
    clippy::expect_used,
    reason = "the files are fixed and checked by the test; a bad line is a broken checkout"
)]

use std::collections::HashSet;

use serde::Deserialize;
use skillbook::CatalogEntry;
use skillbook::search::{MAX_LIMIT, Ranking, SearchIndex};

/// The skills searched: one JSON object a line, `{"name", "description"}`.
pub const SKILLS: &str = include_str!("skills.jsonl");
/// The queries: one JSON object a line, `{"query", "expected", "kind"}`.
pub const QUERIES: &str = include_str!("queries.jsonl");

/// One skill of the corpus.
#[derive(Debug, Deserialize)]
pub struct Skill {
    pub name: String,
    pub description: String,
}

/// One query and the skills that answer it.
#[derive(Debug, Deserialize)]
pub struct Query {
    pub query: String,
    /// Every skill that does what the query asks.
    pub expected: Vec<String>,
    /// `task` (a request in a user's words), `name` (a skill's name) or `typo`.
    pub kind: String,
}

/// The corpus.
pub fn skills() -> Vec<Skill> {
    SKILLS
        .lines()
        .map(|line| serde_json::from_str(line).expect("a skill line"))
        .collect()
}

/// The queries.
pub fn queries() -> Vec<Query> {
    QUERIES
        .lines()
        .map(|line| serde_json::from_str(line).expect("a query line"))
        .collect()
}

/// An index of the corpus ranked by `ranking`.
pub fn index(skills: &[Skill], ranking: Ranking) -> SearchIndex {
    SearchIndex::with_ranking(
        skills.iter().map(|skill| {
            CatalogEntry::new(
                skill.name.as_str(),
                skill.description.as_str(),
                format!("skill://{}/SKILL.md", skill.name),
                true,
            )
        }),
        ranking,
    )
}

/// The 1-based rank of the first expected skill among the first [`MAX_LIMIT`] results.
pub fn first_rank(index: &SearchIndex, query: &Query) -> Option<usize> {
    let expected: HashSet<&str> = query.expected.iter().map(String::as_str).collect();
    index
        .search(&query.query, MAX_LIMIT)
        .iter()
        .position(|hit| expected.contains(hit.name.as_str()))
        .map(|position| position + 1)
}

/// Figures of one ranking over some queries.
#[derive(Debug, Clone, Copy, Default)]
pub struct Figures {
    pub queries: usize,
    /// Share of queries whose first result is an expected skill.
    pub recall_at_1: f64,
    /// Share of queries with an expected skill among the first five results.
    pub recall_at_5: f64,
    /// Mean of 1 / rank of the first expected skill (0 when not among the first 20).
    pub mrr: f64,
}

/// The figures of `ranks` (one first rank per query).
pub fn figures(ranks: &[Option<usize>]) -> Figures {
    let count = ranks.len().max(1) as f64;
    let within = |k: usize| {
        ranks
            .iter()
            .filter(|rank| rank.is_some_and(|r| r <= k))
            .count()
    };
    Figures {
        queries: ranks.len(),
        recall_at_1: within(1) as f64 / count,
        recall_at_5: within(5) as f64 / count,
        mrr: ranks
            .iter()
            .map(|rank| rank.map_or(0.0, |r| 1.0 / r as f64))
            .sum::<f64>()
            / count,
    }
}

/// The evaluation of one ranking: the first rank of every query, in file order.
pub fn ranks(skills: &[Skill], queries: &[Query], ranking: Ranking) -> Vec<Option<usize>> {
    let index = index(skills, ranking);
    queries
        .iter()
        .map(|query| first_rank(&index, query))
        .collect()
}

/// Which queries (by line number from 0) a row of the table counts.
type Keep<'a> = &'a dyn Fn(usize, &Query) -> bool;

/// The table printed by the test and the example: each ranking over all queries, over the
/// task queries only, and over the two halves (odd and even lines); and the figures over all
/// queries of skillbook's ranking, words alone and plain BM25.
pub fn table(skills: &[Skill], queries: &[Query]) -> (String, [Figures; 3]) {
    let default = ranks(skills, queries, Ranking::Default);
    let words = ranks(skills, queries, Ranking::Words);
    let bm25 = ranks(skills, queries, Ranking::Bm25);
    let subset = |ranks: &[Option<usize>], keep: &dyn Fn(usize, &Query) -> bool| {
        let kept: Vec<Option<usize>> = ranks
            .iter()
            .zip(queries)
            .enumerate()
            .filter(|(line, (_, query))| keep(*line, query))
            .map(|(_, (rank, _))| *rank)
            .collect();
        figures(&kept)
    };
    let mut out = format!(
        "{} skills, {} queries\n\n| queries | ranking | recall@1 | recall@5 | MRR |\n|---|---|---:|---:|---:|\n",
        skills.len(),
        queries.len()
    );
    let subsets: [(&str, Keep<'_>); 4] = [
        ("all", &|_, _| true),
        ("task only", &|_, query| query.kind == "task"),
        ("odd lines", &|line, _| line % 2 == 0),
        ("even lines", &|line, _| line % 2 == 1),
    ];
    for (label, keep) in subsets {
        let rankings = [
            ("skillbook (`Default`)", &default),
            ("words alone (`Words`)", &words),
            ("plain BM25 (`Bm25`)", &bm25),
        ];
        for (name, ranks) in rankings {
            let f = subset(ranks, keep);
            out.push_str(&format!(
                "| {label} ({}) | {name} | {:.3} | {:.3} | {:.3} |\n",
                f.queries, f.recall_at_1, f.recall_at_5, f.mrr
            ));
        }
    }
    (out, [figures(&default), figures(&words), figures(&bm25)])
}
