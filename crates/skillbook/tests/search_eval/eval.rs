//! The retrieval evaluation of skill search, shared by the `search_eval` test and the
//! `search-eval` example: the frozen corpus and queries, the frozen multilingual skills and
//! queries, and recall@1, recall@5 and MRR of a ranking over them.
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
/// The skills described in other languages than English, searched together with [`SKILLS`].
pub const MULTILINGUAL_SKILLS: &str = include_str!("multilingual_skills.jsonl");
/// The multilingual queries, over [`SKILLS`] and [`MULTILINGUAL_SKILLS`] together.
pub const MULTILINGUAL_QUERIES: &str = include_str!("multilingual_queries.jsonl");
/// The kinds of multilingual query, in the order of the table.
pub const MULTILINGUAL_KINDS: [&str; 4] =
    ["same_language", "mixed", "cross_language", "paraphrase_en"];

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
    /// `task` (a request in a user's words), `name` (a skill's name) or `typo`; in the
    /// multilingual set, one of [`MULTILINGUAL_KINDS`].
    pub kind: String,
}

/// The skills of one file.
fn parse_skills(text: &str) -> Vec<Skill> {
    text.lines()
        .map(|line| serde_json::from_str(line).expect("a skill line"))
        .collect()
}

/// The queries of one file.
fn parse_queries(text: &str) -> Vec<Query> {
    text.lines()
        .map(|line| serde_json::from_str(line).expect("a query line"))
        .collect()
}

/// The corpus.
pub fn skills() -> Vec<Skill> {
    parse_skills(SKILLS)
}

/// The queries.
pub fn queries() -> Vec<Query> {
    parse_queries(QUERIES)
}

/// The skills described in other languages than English.
pub fn multilingual_skills() -> Vec<Skill> {
    parse_skills(MULTILINGUAL_SKILLS)
}

/// The corpus the multilingual queries search: the English skills, then the others.
pub fn union_skills() -> Vec<Skill> {
    let mut union = skills();
    union.extend(multilingual_skills());
    union
}

/// The multilingual queries.
pub fn multilingual_queries() -> Vec<Query> {
    parse_queries(MULTILINGUAL_QUERIES)
}

/// A multilingual set kept elsewhere (a folder holding `multilingual_skills.jsonl` and
/// `multilingual_queries.jsonl` of the same shapes): the English skills with its skills, and its
/// queries.
#[cfg_attr(test, expect(dead_code, reason = "the example's, not the test's"))]
#[expect(
    clippy::disallowed_methods,
    reason = "evaluation files named by the person running the example, not skill files"
)]
pub fn multilingual_set_in(folder: &std::path::Path) -> std::io::Result<(Vec<Skill>, Vec<Query>)> {
    let read = |name: &str| std::fs::read_to_string(folder.join(name));
    let mut union = skills();
    union.extend(parse_skills(&read("multilingual_skills.jsonl")?));
    Ok((union, parse_queries(&read("multilingual_queries.jsonl")?)))
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

/// The rankings compared, with their labels in the tables.
const RANKINGS: [(Ranking, &str); 3] = [
    (Ranking::Default, "skillbook (`Default`)"),
    (Ranking::Words, "words alone (`Words`)"),
    (Ranking::Bm25, "plain BM25 (`Bm25`)"),
];

/// The first ranks of every query under each ranking: skillbook's, words alone, plain BM25.
type RanksByRanking = [Vec<Option<usize>>; 3];

/// The first ranks of every query under each ranking of [`RANKINGS`].
fn ranks_by_ranking(skills: &[Skill], queries: &[Query]) -> RanksByRanking {
    RANKINGS.map(|(ranking, _)| ranks(skills, queries, ranking))
}

/// The figures of one ranking over the queries `keep` selects.
fn kept_figures(ranks: &[Option<usize>], queries: &[Query], keep: Keep<'_>) -> Figures {
    let kept: Vec<Option<usize>> = ranks
        .iter()
        .zip(queries)
        .enumerate()
        .filter(|(line, (_, query))| keep(*line, query))
        .map(|(_, (rank, _))| *rank)
        .collect();
    figures(&kept)
}

/// The figures of each ranking over the queries `keep` selects.
fn figures_by_ranking(ranks: &RanksByRanking, queries: &[Query], keep: Keep<'_>) -> [Figures; 3] {
    ranks
        .each_ref()
        .map(|ranks| kept_figures(ranks, queries, keep))
}

/// The head of a table: the corpus and query counts and the column names.
fn table_head(skills: &[Skill], queries: &[Query]) -> String {
    format!(
        "{} skills, {} queries\n\n| queries | ranking | recall@1 | recall@5 | MRR |\n|---|---|---:|---:|---:|\n",
        skills.len(),
        queries.len()
    )
}

/// The rows of a table for one set of queries: one per ranking.
fn table_rows(label: &str, figures: &[Figures; 3]) -> String {
    RANKINGS
        .iter()
        .zip(figures)
        .map(|((_, name), row)| {
            format!(
                "| {label} ({}) | {name} | {:.3} | {:.3} | {:.3} |\n",
                row.queries, row.recall_at_1, row.recall_at_5, row.mrr
            )
        })
        .collect()
}

/// The table printed by the test and the example: each ranking over all queries, over the
/// task queries only, and over the two halves (odd and even lines); and the figures over all
/// queries of skillbook's ranking, words alone and plain BM25.
pub fn table(skills: &[Skill], queries: &[Query]) -> (String, [Figures; 3]) {
    let ranks = ranks_by_ranking(skills, queries);
    let mut out = table_head(skills, queries);
    let subsets: [(&str, Keep<'_>); 4] = [
        ("all", &|_, _| true),
        ("task only", &|_, query| query.kind == "task"),
        ("odd lines", &|line, _| line % 2 == 0),
        ("even lines", &|line, _| line % 2 == 1),
    ];
    for (label, keep) in subsets {
        out.push_str(&table_rows(
            label,
            &figures_by_ranking(&ranks, queries, keep),
        ));
    }
    (out, ranks.each_ref().map(|ranks| figures(ranks)))
}

/// One row group of the multilingual table: a kind of [`MULTILINGUAL_KINDS`] (or `all`) and the
/// figures over its queries of skillbook's ranking, words alone and plain BM25.
pub type KindFigures = (&'static str, [Figures; 3]);

/// The multilingual table: each ranking over all multilingual queries and over the queries of
/// each kind; and the figures of its rows, all first.
pub fn multilingual_table(skills: &[Skill], queries: &[Query]) -> (String, Vec<KindFigures>) {
    let ranks = ranks_by_ranking(skills, queries);
    let mut out = table_head(skills, queries);
    let mut rows = Vec::new();
    for kind in std::iter::once("all").chain(MULTILINGUAL_KINDS) {
        let keep = |_: usize, query: &Query| kind == "all" || query.kind == kind;
        let kind_figures = figures_by_ranking(&ranks, queries, &keep);
        out.push_str(&table_rows(kind, &kind_figures));
        rows.push((kind, kind_figures));
    }
    (out, rows)
}
