//! Prints the retrieval table of skill search over the frozen evaluation set
//! (`crates/skillbook/tests/search_eval`): recall@1, recall@5 and MRR of skillbook's ranking, of
//! words alone and of plain BM25.
//!
//! `cargo run -p skillbook --example search-eval`; with `--misses`, also every query whose
//! expected skills are not in skillbook's first five results, with the five it returned (with
//! `--first-misses`, every query whose expected skill does not come first). With
//! `--multilingual`, the same over the multilingual set: its queries over the English skills and
//! the skills described in other languages together, one row group per kind of query. With
//! `--set FOLDER`, the same over a multilingual set kept outside the repository (a folder
//! holding `multilingual_skills.jsonl` and `multilingual_queries.jsonl`), searched together
//! with the English skills. With `--query TEXT` (after the set's options), only the ten skills
//! skillbook returns for `TEXT` over that set, with their scores (`--words` or `--bm25` for
//! those rankings). With `--scores` (after the set's options), one JSON array a query, in the
//! set's order: the first twenty skills skillbook returns, each as `[name, score]` (what
//! `tools/search-eval/transformer.py` blends with a sentence model's scores).

#[path = "../tests/search_eval/eval.rs"]
mod eval;

use skillbook::search::{DEFAULT_LIMIT, Ranking};

use std::fmt::Write as _;
use std::io::Write as _;

fn main() {
    let multilingual = std::env::args().any(|argument| argument == "--multilingual");
    let arguments: Vec<String> = std::env::args().collect();
    let set = arguments
        .iter()
        .position(|argument| argument == "--set")
        .and_then(|at| arguments.get(at + 1));
    let (skills, queries) = if let Some(folder) = set {
        match eval::multilingual_set_in(std::path::Path::new(folder)) {
            Ok(set) => set,
            Err(error) => {
                eprintln!("cannot read the set in {folder}: {error}");
                std::process::exit(2);
            }
        }
    } else if multilingual {
        (eval::union_skills(), eval::multilingual_queries())
    } else {
        (eval::skills(), eval::queries())
    };
    let mut out = String::new();
    if arguments.iter().any(|argument| argument == "--scores") {
        let index = eval::index(&skills, Ranking::Default);
        for query in &queries {
            let hits: Vec<(String, f64)> = index
                .search(&query.query, skillbook::search::MAX_LIMIT)
                .into_iter()
                .map(|hit| (hit.name, hit.score))
                .collect();
            let _ = writeln!(out, "{}", serde_json::json!(hits));
        }
    } else if let Some(query) = arguments
        .iter()
        .position(|argument| argument == "--query")
        .and_then(|at| arguments.get(at + 1))
    {
        let ranking = if arguments.iter().any(|argument| argument == "--bm25") {
            Ranking::Bm25
        } else if arguments.iter().any(|argument| argument == "--words") {
            Ranking::Words
        } else {
            Ranking::Default
        };
        let index = eval::index(&skills, ranking);
        for hit in index.search(query, 10) {
            let _ = writeln!(out, "{:.4}  {}", hit.score, hit.name);
        }
    } else {
        let table = if set.is_some() || multilingual {
            eval::multilingual_table(&skills, &queries).0
        } else {
            eval::table(&skills, &queries).0
        };
        let _ = writeln!(out, "{table}");
        if arguments.iter().any(|argument| argument == "--misses") {
            write_misses(&mut out, &skills, &queries, DEFAULT_LIMIT);
        }
        if arguments
            .iter()
            .any(|argument| argument == "--first-misses")
        {
            write_misses(&mut out, &skills, &queries, 1);
        }
    }
    // A reader that stops early (`| head`) is no error.
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
}

/// Writes every query whose expected skills are not in skillbook's first `within` results, with
/// the five it returned.
fn write_misses(out: &mut String, skills: &[eval::Skill], queries: &[eval::Query], within: usize) {
    let index = eval::index(skills, Ranking::Default);
    for (line, query) in queries.iter().enumerate() {
        let rank = eval::first_rank(&index, query);
        if rank.is_some_and(|rank| rank <= within) {
            continue;
        }
        let returned: Vec<String> = index
            .search(&query.query, DEFAULT_LIMIT)
            .into_iter()
            .map(|hit| hit.name)
            .collect();
        let _ = writeln!(
            out,
            "line {} ({}): {:?}\n  expected {:?} (first at {})\n  returned {:?}",
            line + 1,
            query.kind,
            query.query,
            query.expected,
            rank.map_or("none".to_owned(), |rank| rank.to_string()),
            returned
        );
    }
}
