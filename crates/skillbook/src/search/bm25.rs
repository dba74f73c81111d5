//! [`Ranking::Bm25`](super::Ranking::Bm25): textbook Okapi BM25 over each skill's name and
//! description as one text, the baseline skillbook's ranking is measured against.
//!
//! Words are lower-case runs of letters and digits ([`text::words`]); no stemming, no stop words,
//! no synonyms. Each distinct query word `t` adds
//! `idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · length / average length))` with
//! `idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))`, `k1 = 1.2`, `b = 0.75`.

use std::collections::HashMap;

use super::text;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Word → (skill, occurrences) postings and the length of each skill's text.
#[derive(Clone, Default)]
pub(crate) struct Bm25Index {
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<u32>,
    average_length: f64,
}

impl Bm25Index {
    /// An index of `(name, description)` pairs; the n-th pair is skill n.
    pub(crate) fn build<'a>(skills: impl Iterator<Item = (&'a str, &'a str)>) -> Bm25Index {
        let mut index = Bm25Index::default();
        let mut total_length = 0_u64;
        for (position, (name, description)) in skills.enumerate() {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            let mut counts: HashMap<String, u32> = HashMap::new();
            for word in text::words(name).chain(text::words(description)) {
                *counts.entry(word).or_default() += 1;
            }
            let length: u32 = counts.values().sum();
            total_length += u64::from(length);
            index.lengths.push(length);
            for (word, count) in counts {
                index
                    .postings
                    .entry(word)
                    .or_default()
                    .push((position, count));
            }
        }
        index.average_length = total_length as f64 / index.lengths.len().max(1) as f64;
        index
    }

    /// The distinct terms of the index.
    pub(crate) fn term_count(&self) -> usize {
        self.postings.len()
    }

    /// Each skill holding a word of `query`, with its score (unordered).
    pub(crate) fn score(&self, query: &str) -> Vec<(u32, f64)> {
        let total = self.lengths.len() as f64;
        let mut query_words: Vec<String> = text::words(query).collect();
        query_words.sort_unstable();
        query_words.dedup();
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for word in &query_words {
            let Some(postings) = self.postings.get(word) else {
                continue;
            };
            let holding = postings.len() as f64;
            let idf = (1.0 + (total - holding + 0.5) / (holding + 0.5)).ln();
            for &(position, count) in postings {
                let length = self
                    .lengths
                    .get(position as usize)
                    .copied()
                    .unwrap_or_default();
                let count = f64::from(count);
                let norm = K1 * (1.0 - B + B * f64::from(length) / self.average_length);
                *scores.entry(position).or_default() += idf * count * (K1 + 1.0) / (count + norm);
            }
        }
        scores.into_iter().collect()
    }
}
