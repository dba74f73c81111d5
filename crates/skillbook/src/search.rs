//! Skill search: ranks the model-visible skills for a task described in words, for the
//! `search_skills` tool (SPEC §12) and `skillbook search`.
//!
//! ```
//! use skillbook::CatalogEntry;
//! use skillbook::search::SearchIndex;
//!
//! let index = SearchIndex::new([
//!     CatalogEntry::new("pdf", "Fill PDF forms.", "skill://pdf/SKILL.md", true),
//!     CatalogEntry::new("deploy", "Deploy the app.", "skill://deploy/SKILL.md", false),
//! ]);
//! let hits = index.search("fill in a pdf form", 5);
//! assert_eq!(hits[0].name, "pdf");
//! // Manual-only skills are never returned.
//! assert!(index.search("deploy", 5).is_empty());
//! ```

use std::collections::HashMap;

use serde::Serialize;

use crate::catalog::CatalogEntry;

/// How many results a search returns when the caller does not say.
pub const DEFAULT_LIMIT: usize = 5;
/// The most results one search returns.
pub const MAX_LIMIT: usize = 20;

/// How results are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Ranking {
    /// skillbook's ranking.
    #[default]
    Default,
    /// Plain BM25 over name and description, as a baseline to compare with.
    Bm25,
}

/// One skill found by a search.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SearchHit {
    /// The skill's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Where the reader finds its SKILL.md (as in the catalog).
    pub location: String,
    /// How well it matches; higher is better. Comparable within one search only.
    pub score: f64,
}

/// An index of the model-visible skills of one scope, built once and searched many times.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    entries: Vec<Indexed>,
    /// Term → the entries holding it.
    postings: HashMap<String, Vec<u32>>,
    ranking: Ranking,
}

#[derive(Debug, Clone)]
struct Indexed {
    name: String,
    description: String,
    location: String,
    terms: Vec<String>,
}

impl SearchIndex {
    /// An index of `entries` with the default ranking; manual-only entries are left out.
    pub fn new<'a>(entries: impl IntoIterator<Item = CatalogEntry<'a>>) -> Self {
        SearchIndex::with_ranking(entries, Ranking::Default)
    }

    /// An index of `entries` ranked by `ranking`; manual-only entries are left out.
    pub fn with_ranking<'a>(
        entries: impl IntoIterator<Item = CatalogEntry<'a>>,
        ranking: Ranking,
    ) -> Self {
        let mut index = SearchIndex {
            ranking,
            ..SearchIndex::default()
        };
        for entry in entries.into_iter().filter(|entry| entry.model_visible) {
            let terms = terms(&format!("{} {}", entry.name, entry.description));
            let position = u32::try_from(index.entries.len()).unwrap_or(u32::MAX);
            for term in &terms {
                let list = index.postings.entry(term.clone()).or_default();
                if list.last() != Some(&position) {
                    list.push(position);
                }
            }
            index.entries.push(Indexed {
                name: entry.name.trim().to_owned(),
                description: entry.description.trim().to_owned(),
                location: entry.location.into_owned(),
                terms,
            });
        }
        index
    }

    /// How many skills the index holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the index holds no skill.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The ranking in use.
    pub fn ranking(&self) -> Ranking {
        self.ranking
    }

    /// The best `limit` matches for `query` (at most [`MAX_LIMIT`]), best first, ties broken by
    /// name; skills matching nothing of the query are not returned.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let limit = limit.min(MAX_LIMIT);
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for term in terms(query) {
            if let Some(list) = self.postings.get(&term) {
                let weight = (1.0 + self.entries.len() as f64 / list.len() as f64).ln();
                for &position in list {
                    *scores.entry(position).or_default() += weight;
                }
            }
        }
        let mut ranked: Vec<(f64, &Indexed)> = scores
            .into_iter()
            .filter_map(|(position, score)| {
                let entry = self.entries.get(usize::try_from(position).ok()?)?;
                Some((score / (entry.terms.len() as f64).sqrt().max(1.0), entry))
            })
            .collect();
        ranked.sort_by(|left, right| {
            right
                .0
                .total_cmp(&left.0)
                .then_with(|| left.1.name.cmp(&right.1.name))
        });
        ranked
            .into_iter()
            .take(limit)
            .map(|(score, entry)| SearchHit {
                name: entry.name.clone(),
                description: entry.description.clone(),
                location: entry.location.clone(),
                score,
            })
            .collect()
    }
}

/// Lower-case words of letters and digits.
fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_are_broken_by_name_and_limits_hold() {
        let index = SearchIndex::new([
            CatalogEntry::new("b", "Same words.", "b", true),
            CatalogEntry::new("a", "Same words.", "a", true),
        ]);
        let names: Vec<String> = index
            .search("same words", 5)
            .into_iter()
            .map(|hit| hit.name)
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(index.search("same", 1).len(), 1);
        assert!(index.search("nothing", 5).is_empty());
    }
}
