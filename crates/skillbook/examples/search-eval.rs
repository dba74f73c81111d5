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
//! those rankings).

#[path = "../tests/search_eval/eval.rs"]
mod eval;

use skillbook::search::{DEFAULT_LIMIT, Ranking};

fn main() {
    let multilingual = std::env::args().any(|argument| argument == "--multilingual");
    let arguments: Vec<String> = std::env::args().collect();
    let set = arguments
        .iter()
        .position(|argument| argument == "--set")
        .and_then(|at| arguments.get(at + 1));
    let (skills, queries, table) = if let Some(folder) = set {
        let (skills, queries) = match eval::multilingual_set_in(std::path::Path::new(folder)) {
            Ok(set) => set,
            Err(error) => {
                eprintln!("cannot read the set in {folder}: {error}");
                std::process::exit(2);
            }
        };
        let (table, _) = eval::multilingual_table(&skills, &queries);
        (skills, queries, table)
    } else if multilingual {
        let skills = eval::union_skills();
        let queries = eval::multilingual_queries();
        let (table, _) = eval::multilingual_table(&skills, &queries);
        (skills, queries, table)
    } else {
        let skills = eval::skills();
        let queries = eval::queries();
        let (table, _) = eval::table(&skills, &queries);
        (skills, queries, table)
    };
    if let Some(query) = arguments
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
            println!("{:.4}  {}", hit.score, hit.name);
        }
        return;
    }
    println!("{table}");
    if std::env::args().any(|argument| argument == "--misses") {
        print_misses(&skills, &queries, DEFAULT_LIMIT);
    }
    if std::env::args().any(|argument| argument == "--first-misses") {
        print_misses(&skills, &queries, 1);
    }
}

/// Prints every query whose expected skills are not in skillbook's first `within` results, with
/// the five it returned.
fn print_misses(skills: &[eval::Skill], queries: &[eval::Query], within: usize) {
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
        println!(
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
