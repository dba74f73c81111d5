//! [`Ranking::Words`](super::Ranking::Words): skillbook's ranking by words, alone or blended with
//! meaning in [`Ranking::Default`](super::Ranking::Default).
//!
//! 1. **Terms.** Name and description are cut into words, accents folded, stop words dropped,
//!    each word stemmed (Porter); a name's hyphens separate words (`zoom-automation` → `zoom`,
//!    `autom`).
//! 2. **Concepts.** Each distinct query term is a concept, found through the term itself
//!    (weight 1), the stems of its groups in the concept lexicon (weight [`RELATED_WEIGHT`]) and,
//!    for a word neither the skills nor the lexicon know, the skills' words one edit away (a
//!    typo: weight [`TYPO_WEIGHT`]). Two query words the skills or the lexicon know as one are
//!    joined (`time out` → `timeout`), and an unknown word that is two known words run together
//!    is split (`homepage` → `home`, `page`). Each word of another language the word lists know
//!    is a concept of its English meanings (weight [`TRANSLATED_WEIGHT`]); in a query of such a
//!    language, its little words (`de`, `la`, `und`) are stop words and unknown words are not
//!    read as typos.
//! 3. **BM25F.** A term found in a skill scores BM25 (`k1` [`K1`]) over a weighted count: a name
//!    occurrence counts [`NAME_WEIGHT`] times a description one, each normalized by its field's
//!    length (`b` [`NAME_B`] and [`DESCRIPTION_B`]) in words: a description's CJK pairs count
//!    one word for [`CJK_PAIRS_PER_WORD`], and the English of a description in another language,
//!    searched with it, adds nothing (else a skill described in Chinese would weigh a third of
//!    an English one for the same word). A concept scores its best term, so a skill
//!    matching five synonyms of one query word does not beat one matching two query words.
//! 4. **Names.** A skill whose name's words all appear among the query's own terms gains
//!    [`WHOLE_NAME_BONUS`]; a query that is a skill's name (`pdf`, `Zoom automation`) ranks that
//!    skill first.
//!
//! Building is linear in the skills' text; a search reads only the postings of its terms.
//!
//! The weights were chosen on the odd lines of the evaluation queries (`tests/search_eval`), the
//! even lines held out. Tried and left out: pseudo-relevance feedback (terms of the first one to
//! five skills added back to the query), which lowered recall@1 and MRR at every setting tried;
//! weighting a lexicon group down by its size; a name weight for lexicon terms below the one for
//! the query's own.

use std::collections::{HashMap, HashSet};

use super::lexicon::Lexicon;
use super::text;
use super::translate::{Translation, Translations};

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// How many description occurrences one name occurrence is worth.
const NAME_WEIGHT: f64 = 3.0;
/// Length normalization of the name field.
const NAME_B: f64 = 0.5;
/// Length normalization of the description field.
const DESCRIPTION_B: f64 = 0.75;
/// The weight of a term reached through the concept lexicon.
const RELATED_WEIGHT: f64 = 0.6;
/// The weight of a skill word one edit away from an unknown query word.
const TYPO_WEIGHT: f64 = 0.7;
/// The weight of the English of a query word of another language: like a typo's correction, a
/// reading of the word, not the word itself (which a skill in that language may hold).
pub(crate) const TRANSLATED_WEIGHT: f64 = 0.7;
/// The share added to the score of a skill whose whole name the query holds.
const WHOLE_NAME_BONUS: f64 = 0.5;
/// The CJK pairs ([`text::terms`]) a word of Chinese, Japanese or Korean gives, about: what a
/// description's pairs count toward its length.
const CJK_PAIRS_PER_WORD: usize = 2;
/// Query terms beyond this many distinct ones are ignored (a pasted document is not a query).
const MAX_QUERY_TERMS: usize = 64;
/// Words shorter than this are not corrected as typos.
const MIN_TYPO_LENGTH: usize = 5;
/// Words longer than this are neither corrected as typos nor split in two.
const MAX_WORD_LENGTH: usize = 32;
/// A query longer than this (in bytes) cannot be a skill's name.
const MAX_NAME_QUERY_BYTES: usize = 256;

/// One skill holding one term: occurrences in its name and in its description.
#[derive(Debug, Clone, Copy)]
struct Posting {
    skill: u32,
    in_name: u16,
    in_description: u16,
}

/// Per-skill figures the score needs.
#[derive(Debug, Clone, Copy, Default)]
struct SkillStats {
    /// `1 − b + b · length / average length` of the name field.
    name_norm: f64,
    /// The same for the description.
    description_norm: f64,
    /// Distinct terms of the name.
    name_terms: u16,
}

/// The postings and statistics of skillbook's ranking.
#[derive(Clone, Default)]
pub(crate) struct FieldIndex {
    /// Stem → term number.
    terms: HashMap<String, u32>,
    /// Term number → the skills holding it, in skill order.
    postings: Vec<Vec<Posting>>,
    skills: Vec<SkillStats>,
    /// A name's words joined by `-` → the skills of that name.
    names: HashMap<String, Vec<u32>>,
    /// A term, or a term less one character → the terms it stands for (typo correction).
    near: HashMap<String, Vec<u32>>,
    /// Term number → its stem.
    stems: Vec<String>,
}

/// The terms that find one concept of the query, with their weights.
type Concept = Vec<(u32, f64)>;

impl FieldIndex {
    /// An index of `(name, description, more)` triples; the n-th is skill n. `more` (a
    /// description's English, read from another language) is searched as part of the
    /// description but does not lengthen it.
    pub(crate) fn build<'a>(
        skills: impl Iterator<Item = (&'a str, &'a str, &'a str)>,
    ) -> FieldIndex {
        let mut index = FieldIndex::default();
        let mut lengths: Vec<(usize, usize)> = Vec::new();
        for (position, (name, description, more)) in skills.enumerate() {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            let mut counts: HashMap<String, (u16, u16)> = HashMap::new();
            let mut name_length = 0;
            for term in text::terms(name) {
                counts.entry(term).or_default().0 += 1;
                name_length += 1;
            }
            // The description's length in words, as the length normalization compares it with
            // others: a run of CJK characters gives a pair at almost every character, about
            // two pairs a word.
            let (mut words, mut pairs) = (0_usize, 0_usize);
            for term in text::terms(description) {
                if term.chars().next().is_some_and(text::is_cjk) {
                    pairs += 1;
                } else {
                    words += 1;
                }
                let count = &mut counts.entry(term).or_default().1;
                *count = count.saturating_add(1);
            }
            let description_length = words + pairs.div_ceil(CJK_PAIRS_PER_WORD);
            for term in text::terms(more) {
                let count = &mut counts.entry(term).or_default().1;
                *count = count.saturating_add(1);
            }
            let name_terms = counts.values().filter(|(in_name, _)| *in_name > 0).count();
            lengths.push((name_length, description_length));
            index.skills.push(SkillStats {
                name_terms: u16::try_from(name_terms).unwrap_or(u16::MAX),
                ..SkillStats::default()
            });
            index
                .names
                .entry(name_key(name))
                .or_default()
                .push(position);
            let mut counts: Vec<(String, (u16, u16))> = counts.into_iter().collect();
            counts.sort_unstable();
            for (term, (in_name, in_description)) in counts {
                let number = index.term_number(term);
                index.postings[number as usize].push(Posting {
                    skill: position,
                    in_name,
                    in_description,
                });
            }
        }
        index.set_norms(&lengths);
        index.index_near_terms();
        index
    }

    fn term_number(&mut self, term: String) -> u32 {
        if let Some(&number) = self.terms.get(&term) {
            return number;
        }
        let number = u32::try_from(self.postings.len()).unwrap_or(u32::MAX);
        self.postings.push(Vec::new());
        self.stems.push(term.clone());
        self.terms.insert(term, number);
        number
    }

    fn set_norms(&mut self, lengths: &[(usize, usize)]) {
        let count = lengths.len().max(1) as f64;
        let average_name = lengths.iter().map(|l| l.0).sum::<usize>() as f64 / count;
        let average_description = lengths.iter().map(|l| l.1).sum::<usize>() as f64 / count;
        for (stats, &(name, description)) in self.skills.iter_mut().zip(lengths) {
            stats.name_norm = 1.0 - NAME_B + NAME_B * name as f64 / average_name.max(1.0);
            stats.description_norm = 1.0 - DESCRIPTION_B
                + DESCRIPTION_B * description as f64 / average_description.max(1.0);
        }
    }

    /// Keys every term long enough under itself and under each form with one character left out,
    /// so that a query word one edit away from it (left out, added, changed or two swapped)
    /// shares a key with it.
    fn index_near_terms(&mut self) {
        for (number, stem) in self.stems.iter().enumerate() {
            if stem.chars().count() + 1 < MIN_TYPO_LENGTH {
                continue;
            }
            let number = u32::try_from(number).unwrap_or(u32::MAX);
            for key in with_one_left_out(stem).chain([stem.clone()]) {
                let list = self.near.entry(key).or_default();
                if list.last() != Some(&number) {
                    list.push(number);
                }
            }
        }
    }

    /// The distinct terms of the index.
    pub(crate) fn term_count(&self) -> usize {
        self.postings.len()
    }

    /// Each skill matching `query`, with its score (unordered); a skill the query names scores
    /// above every other.
    pub(crate) fn score(&self, query: &str) -> Vec<(u32, f64)> {
        let translation = Translations::shipped().translate(query, Lexicon::shipped());
        let mut scores = self.score_words(query, &translation);
        self.rank_named_first(query, &mut scores);
        scores.into_iter().collect()
    }

    /// Each skill matching the words of `query` or of its `translation`, with its score, names
    /// aside.
    pub(crate) fn score_words(&self, query: &str, translation: &Translation) -> HashMap<u32, f64> {
        let lexicon = Lexicon::shipped();
        let mut originals = self.query_terms(query, lexicon);
        // The little words of the query's language (`de`, `la`) are its stop words, and so are
        // the pairs of Chinese, Japanese or Korean characters that are grammar.
        originals.retain(|term| !translation.is_little(term) && !text::is_grammatical_pair(term));
        let mut scores: HashMap<u32, f64> = HashMap::new();
        let mut name_hits: HashMap<u32, u16> = HashMap::new();
        // In a query of another language, a word nobody knows is a word of that language, not a
        // typo of an English one.
        let typos = translation.found.is_empty() && translation.little.is_empty();
        for original in &originals {
            let concept = self.concept(original, lexicon, typos);
            self.add_concept(&concept, &mut scores);
            if let Some(&number) = self.terms.get(original) {
                for posting in &self.postings[number as usize] {
                    if posting.in_name > 0 {
                        *name_hits.entry(posting.skill).or_default() += 1;
                    }
                }
            }
        }
        for meanings in translation.found.iter().take(MAX_QUERY_TERMS) {
            let concept = self.translated(meanings, lexicon);
            self.add_concept(&concept, &mut scores);
        }
        for (skill, hits) in name_hits {
            let whole = self
                .skills
                .get(skill as usize)
                .is_some_and(|stats| stats.name_terms > 0 && hits >= stats.name_terms);
            if whole && let Some(score) = scores.get_mut(&skill) {
                *score *= 1.0 + WHOLE_NAME_BONUS;
            }
        }
        scores
    }

    /// Whether the stem `term` is a word of the name of a skill for which `keep` holds.
    pub(crate) fn names_a_skill(&self, term: &str, keep: impl Fn(u32) -> bool) -> bool {
        self.terms.get(term).is_some_and(|&number| {
            self.postings[number as usize]
                .iter()
                .any(|posting| posting.in_name > 0 && keep(posting.skill))
        })
    }

    /// The skills whose name `query` is (`pdf`, `Zoom automation`).
    pub(crate) fn named(&self, query: &str) -> &[u32] {
        if query.len() > MAX_NAME_QUERY_BYTES {
            return &[];
        }
        self.names.get(&name_key(query)).map_or(&[], Vec::as_slice)
    }

    /// The distinct terms of `query`, at most [`MAX_QUERY_TERMS`], with two words written apart
    /// that the skills or the lexicon know as one (`time out` → `timeout`), and a word nobody
    /// knows that is two known words run together (`homepage` → `home`, `page`).
    fn query_terms(&self, query: &str, lexicon: &Lexicon) -> Vec<String> {
        let known = |stem: &str| self.terms.contains_key(stem) || lexicon.knows(stem);
        let mut originals: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut previous: Option<String> = None;
        for word in text::words(query) {
            if originals.len() >= MAX_QUERY_TERMS {
                break;
            }
            let mut found: Vec<String> = text::terms(&word).collect();
            if let Some(previous) = previous.as_deref() {
                let joined = text::stem(&format!("{previous}{word}"));
                if known(&joined) {
                    found.push(joined);
                }
            }
            if let Some(stem) = found.first()
                && !known(stem)
            {
                found.extend(split_compound(&word, &known));
            }
            previous = Some(word);
            for term in found {
                if seen.insert(term.clone()) {
                    originals.push(term);
                }
            }
        }
        originals
    }

    /// The terms that find `original`: itself, its lexicon relatives, or (with `typos`) near
    /// terms for a typo.
    fn concept(&self, original: &str, lexicon: &Lexicon, typos: bool) -> Concept {
        let mut concept: Concept = Vec::new();
        self.add_term(&mut concept, original, 1.0, lexicon);
        let unknown = !self.terms.contains_key(original) && !lexicon.knows(original);
        let length = original.chars().count();
        if typos && unknown && (MIN_TYPO_LENGTH..=MAX_WORD_LENGTH).contains(&length) {
            for number in self.near_terms(original) {
                add_to(&mut concept, number, TYPO_WEIGHT);
            }
        }
        concept
    }

    /// The terms that find a word of another language: the stems of its English `meanings` (at
    /// [`TRANSLATED_WEIGHT`]) and their lexicon relatives.
    fn translated(&self, meanings: &[String], lexicon: &Lexicon) -> Concept {
        let mut concept: Concept = Vec::new();
        for stem in meanings.iter().flat_map(|meaning| text::terms(meaning)) {
            self.add_term(&mut concept, &stem, TRANSLATED_WEIGHT, lexicon);
        }
        concept
    }

    /// Adds `stem` at `weight` and its lexicon relatives at [`RELATED_WEIGHT`] of it.
    fn add_term(&self, concept: &mut Concept, stem: &str, weight: f64, lexicon: &Lexicon) {
        if let Some(&number) = self.terms.get(stem) {
            add_to(concept, number, weight);
        }
        for related in lexicon.related(stem) {
            if let Some(&number) = self.terms.get(related) {
                add_to(concept, number, weight * RELATED_WEIGHT);
            }
        }
    }

    /// Terms one edit (left out, added, changed, or two neighbours swapped) from `word`.
    fn near_terms(&self, word: &str) -> Vec<u32> {
        let mut found: Vec<u32> = with_one_left_out(word)
            .chain([word.to_owned()])
            .filter_map(|key| self.near.get(&key))
            .flatten()
            .copied()
            .filter(|&number| strsim::osa_distance(word, &self.stems[number as usize]) <= 1)
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// Adds each skill's best match among the concept's terms.
    fn add_concept(&self, concept: &Concept, scores: &mut HashMap<u32, f64>) {
        let total = self.skills.len() as f64;
        let mut best: HashMap<u32, f64> = HashMap::new();
        for &(number, weight) in concept {
            let postings = &self.postings[number as usize];
            let holding = postings.len() as f64;
            let idf = (1.0 + (total - holding + 0.5) / (holding + 0.5)).ln();
            for posting in postings {
                let Some(stats) = self.skills.get(posting.skill as usize) else {
                    continue;
                };
                let count = NAME_WEIGHT * f64::from(posting.in_name) / stats.name_norm
                    + f64::from(posting.in_description) / stats.description_norm;
                let score = weight * idf * count * (K1 + 1.0) / (K1 + count);
                let entry = best.entry(posting.skill).or_default();
                *entry = entry.max(score);
            }
        }
        for (skill, score) in best {
            *scores.entry(skill).or_default() += score;
        }
    }

    /// A query that is exactly a skill's name puts that skill above every other.
    fn rank_named_first(&self, query: &str, scores: &mut HashMap<u32, f64>) {
        let named = self.named(query);
        if named.is_empty() {
            return;
        }
        let top = scores.values().copied().fold(0.0, f64::max);
        for &skill in named {
            scores.insert(skill, top + 1.0);
        }
    }
}

/// Adds the term `number` to `concept` at `weight`, or raises its weight there to `weight`.
fn add_to(concept: &mut Concept, number: u32, weight: f64) {
    match concept.iter_mut().find(|(known, _)| *known == number) {
        Some(entry) => entry.1 = entry.1.max(weight),
        None => concept.push((number, weight)),
    }
}

/// A name or query as its lower-case words joined by `-`: `Zoom Automation` → `zoom-automation`.
fn name_key(text: &str) -> String {
    text::words(text).collect::<Vec<_>>().join("-")
}

/// The two stems of `word` if it is two known words of three letters or more run together
/// (`homepage` → `home`, `page`), splitting nearest the middle.
fn split_compound(word: &str, known: &dyn Fn(&str) -> bool) -> Vec<String> {
    if !word.bytes().all(|byte| byte.is_ascii_lowercase())
        || !(6..=MAX_WORD_LENGTH).contains(&word.len())
    {
        return Vec::new();
    }
    let middle = word.len() / 2;
    let mut splits: Vec<usize> = (3..=word.len() - 3).collect();
    splits.sort_by_key(|&at| at.abs_diff(middle));
    for at in splits {
        let (left, right) = word.split_at(at);
        if text::is_stop_word(left) || text::is_stop_word(right) {
            continue;
        }
        let (left, right) = (text::stem(left), text::stem(right));
        if known(&left) && known(&right) {
            return vec![left, right];
        }
    }
    Vec::new()
}

/// `word` with each one of its characters left out in turn.
fn with_one_left_out(word: &str) -> impl Iterator<Item = String> + '_ {
    word.char_indices().map(move |(at, character)| {
        let mut shorter = String::with_capacity(word.len());
        shorter.push_str(&word[..at]);
        shorter.push_str(&word[at + character.len_utf8()..]);
        shorter
    })
}
