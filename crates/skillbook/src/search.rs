//! Skill search: ranks the model-visible skills for a task described in words, for the
//! `search_skills` tool (SPEC §12) and `skillbook search`.
//!
//! [`Ranking::Default`] blends two rankings. Words: BM25F over stemmed words with the name
//! weighted above the description, a concept lexicon of related words shipped in the crate
//! (`slides` finds `pptx`), typo correction ([`Ranking::Words`] alone), and word lists from
//! Chinese, Japanese, Korean, Spanish, German and French to English, so that a request in one
//! of those languages finds a skill described in another (a skill described in one of them is
//! indexed with its English too). Meaning: the cosine
//! between the query and each skill in a small embedding model shipped in the crate (7.7 MB,
//! distilled from all-MiniLM-L6-v2), so that "nebula" finds a stargazing skill that never says
//! "nebula". A text in Spanish, German or French is compared in meaning by its English (its
//! English words and the meanings the lists give), so that a request is matched by its topic
//! rather than by its language; a skill in the request's own language gains a little, and a
//! request that names a country, one of its cities or its people (`I just moved to Osaka`)
//! ranks the skills written in that country's language higher. A skill's exact name ranks it
//! first.
//! [`Ranking::Bm25`] is plain BM25, the baseline. Their recall on 263 task queries over 557
//! skills is measured by `cargo test -p skillbook --test search_eval -- --nocapture`
//! (BENCHMARKS.md, "Skill search").
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

use std::collections::HashSet;
use std::fmt;

use serde::Serialize;

use crate::catalog::CatalogEntry;
use translate::Language;

mod bm25;
mod fielded;
mod lexicon;
mod meaning;
mod places;
mod text;
mod translate;

/// How many results a search returns when the caller does not say.
pub const DEFAULT_LIMIT: usize = 5;
/// The most results one search returns.
pub const MAX_LIMIT: usize = 20;

/// How results are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Ranking {
    /// skillbook's ranking: [`Ranking::Words`] blended with meaning, the cosine between the
    /// query's and each skill's vector in a small embedding model shipped in the crate, so that
    /// a request in words no skill uses still finds its skill. A skill the query names ranks
    /// first.
    #[default]
    Default,
    /// Words alone: BM25F over stemmed name and description words with the name weighted above
    /// the description, a lexicon of related words, typo correction for words nobody uses, and a
    /// skill's own name ranking it first.
    Words,
    /// Plain BM25 (`k1` 1.2, `b` 0.75) over name and description as one text, lower-case words,
    /// no stemming, stop words or synonyms: the baseline the default ranking is measured
    /// against.
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
    /// How well it matches, to four decimals; higher is better. Comparable within one search
    /// only.
    pub score: f64,
}

/// An index of the model-visible skills of one scope, built once and searched many times.
///
/// Building is linear in the skills' text. A search reads the postings of the query's terms
/// (and of their related words); with the default ranking it also compares the query's vector
/// with each skill's, one pass over 256 bytes a skill (about 1 ms for 10,000 skills).
#[derive(Clone, Default)]
pub struct SearchIndex {
    entries: Vec<Indexed>,
    scorer: Scorer,
    ranking: Ranking,
}

#[derive(Debug, Clone)]
struct Indexed {
    name: String,
    description: String,
    location: String,
}

/// The share of the blended score that words give (meaning gives the rest).
const WORDS_SHARE: f64 = 0.3;
/// A skill that shares no word with the query is returned only when its meaning is at least
/// this close (cosine).
const MEANING_FLOOR: f32 = 0.25;
/// What a skill the query names gains in the blended score, which lies in `[0, 1]` otherwise:
/// enough to rank it above every other.
const NAMED_BONUS: f64 = 2.0;
/// What a skill written in the language of a place or people the query names gains
/// ([`places`]): enough to rank it above a skill of another language on the same topic, not
/// above one that fits the request far better.
const PLACE_BONUS: f64 = 0.25;
/// What such a skill gains when the query is written in another of the languages with a word
/// list (`Vivo en Busan`): [`PLACE_BONUS`], and what the query's own words give the skills of
/// its language by being theirs rather than translations (the words' share of the blend, times
/// what a translated word counts less than the word).
const PLACE_BONUS_ABROAD: f64 = PLACE_BONUS + WORDS_SHARE * (1.0 - fielded::TRANSLATED_WEIGHT);
/// What a skill written in English gains for an English query that names no place: a near tie
/// with a skill of another language on the same topic goes to the query's language (such a
/// skill's English, read from the word lists, holds every meaning of each of its words, so it
/// has more ways to match than a description written in English).
const ENGLISH_BONUS: f64 = 0.02;
/// What a skill written in the Spanish, German or French of the query gains: the meaning model
/// reads such texts by their English alone ([`translate::Translation::english`]), so that a
/// request is compared with every skill by its topic, not by its language; a request still more
/// often wants a skill of its own language, all else equal.
const SAME_LANGUAGE_BONUS: f64 = 0.2;

/// The postings of the ranking in use.
#[derive(Clone)]
enum Scorer {
    Default {
        words: fielded::FieldIndex,
        meaning: meaning::Directions,
        /// The skills described in another language (their positions), and the meanings of
        /// their names and English alone: what an English query is compared with.
        in_english: (Vec<u32>, meaning::Directions),
        /// The language each skill is described in, when it has a word list.
        languages: Vec<Option<Language>>,
    },
    Words(fielded::FieldIndex),
    Bm25(bm25::Bm25Index),
}

impl Default for Scorer {
    fn default() -> Self {
        Scorer::Words(fielded::FieldIndex::default())
    }
}

impl Scorer {
    fn build(entries: &[Indexed], ranking: Ranking) -> Scorer {
        let skills = entries
            .iter()
            .map(|entry| (entry.name.as_str(), entry.description.as_str()));
        if ranking == Ranking::Bm25 {
            return Scorer::Bm25(bm25::Bm25Index::build(skills));
        }
        // A description in another language is indexed with its English words too, so that a
        // request in English (or a third language) finds it.
        let translations: Vec<translate::Translation> = entries.iter().map(translated).collect();
        let english: Vec<String> = translations
            .iter()
            .map(translate::Translation::text)
            .collect();
        let words =
            fielded::FieldIndex::build(entries.iter().zip(&english).map(|(entry, english)| {
                (
                    entry.name.as_str(),
                    entry.description.as_str(),
                    english.as_str(),
                )
            }));
        match meaning::Model::shipped() {
            Some(model) if ranking == Ranking::Default => Scorer::Default {
                words,
                meaning: meaning::Directions::build(
                    model,
                    entries
                        .iter()
                        .zip(&translations)
                        .map(|(entry, translation)| meaning_text(entry, translation)),
                ),
                in_english: in_english(model, entries, &english),
                // Only a skill with words of another language (its English found) can be
                // written in one.
                languages: entries
                    .iter()
                    .zip(&english)
                    .map(|(entry, english)| {
                        (!english.is_empty())
                            .then(|| places::language_of(&entry.description))
                            .flatten()
                    })
                    .collect(),
            },
            _ => Scorer::Words(words),
        }
    }

    fn score(&self, query: &str) -> Vec<(u32, f64)> {
        match self {
            Scorer::Default {
                words,
                meaning,
                in_english,
                languages,
            } => blend(words, meaning, in_english, languages, query),
            Scorer::Words(index) => index.score(query),
            Scorer::Bm25(index) => index.score(query),
        }
    }

    fn term_count(&self) -> usize {
        match self {
            Scorer::Default { words, .. } | Scorer::Words(words) => words.term_count(),
            Scorer::Bm25(index) => index.term_count(),
        }
    }
}

/// `score` to four decimals: enough to rank by, the same text on every platform, and scores
/// shown equal are ranked by name.
fn shown(score: f64) -> f64 {
    (score * 10_000.0).round() / 10_000.0
}

/// The words of another language in a skill's name and description, read in English (nothing
/// found for a skill described in English).
fn translated(entry: &Indexed) -> translate::Translation {
    let text = format!(
        "{} {}",
        entry.name.replace(['-', '_'], " "),
        entry.description
    );
    translate::Translations::shipped().translate(&text, lexicon::Lexicon::shipped())
}

/// The skills described in another language (those with `english` words), and the meanings of
/// their names and English words alone.
fn in_english(
    model: &meaning::Model,
    entries: &[Indexed],
    english: &[String],
) -> (Vec<u32>, meaning::Directions) {
    let described: Vec<(u32, String)> = entries
        .iter()
        .zip(english)
        .enumerate()
        .filter(|(_, (_, english))| !english.is_empty())
        .map(|(position, (entry, english))| {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            let text = format!("{}: {english}", entry.name.replace(['-', '_'], " "));
            (position, text)
        })
        .collect();
    let directions = meaning::Directions::build(model, described.iter().map(|(_, text)| text));
    (
        described
            .into_iter()
            .map(|(position, _)| position)
            .collect(),
        directions,
    )
}

/// The text a skill's meaning is taken from: its name's words, then its description, then the
/// English of its words of another language; for a skill written in Spanish, German or French,
/// the English alone (as a request in such a language is read, [`query_direction`]).
fn meaning_text(entry: &Indexed, translation: &translate::Translation) -> String {
    if translation.language.is_some() {
        return in_english_alone(translation);
    }
    format!(
        "{}: {} {}",
        entry.name.replace(['-', '_'], " "),
        entry.description,
        translation.text()
    )
}

/// The English words of a text in Spanish, German or French, then the meanings found in it.
fn in_english_alone(translation: &translate::Translation) -> String {
    format!("{} {}", translation.english.join(" "), translation.text())
}

/// Each skill matching `query` in words or close to it in meaning, scored
/// `WORDS_SHARE · words / best words + (1 − WORDS_SHARE) · max(cosine, 0)`, and a skill the
/// query names above all.
fn blend(
    words: &fielded::FieldIndex,
    meaning: &meaning::Directions,
    in_english: &(Vec<u32>, meaning::Directions),
    languages: &[Option<Language>],
    query: &str,
) -> Vec<(u32, f64)> {
    let translation =
        translate::Translations::shipped().translate(query, lexicon::Lexicon::shipped());
    let by_words = words.score_words(query, &translation);
    let best = by_words.values().copied().fold(0.0_f64, f64::max);
    // The words of a Spanish, German or French query that name an English skill (`Box`,
    // `Todoist`): no list reads them, and they are all the meaning model knows of such a skill.
    let naming: Vec<String> = if translation.language.is_some() {
        text::words(query)
            .filter(|word| {
                let term = text::stem(&text::fold_accents(word.clone()));
                !translation.is_little(&term)
                    && !translation.english.contains(word)
                    && words.names_a_skill(&term, |skill| {
                        languages.get(skill as usize).copied().flatten().is_none()
                    })
            })
            .collect()
    } else {
        Vec::new()
    };
    let direction = meaning::Model::shipped()
        .map(|model| query_direction(model, query, &translation, &naming))
        .unwrap_or_default();
    let mut cosines = meaning.cosines(&direction);
    // A query in English meets a skill described in another language in English: the words of
    // that language are no words of the model, and would only blur the skill's meaning.
    if translation.found.is_empty() && translation.little.is_empty() {
        let (skills, directions) = in_english;
        for (&skill, cosine) in skills.iter().zip(directions.cosines(&direction)) {
            if let Some(slot) = cosines.get_mut(skill as usize) {
                *slot = cosine;
            }
        }
    }
    let blended = |word_score: f64, cosine: f32| {
        let words = if best > 0.0 { word_score / best } else { 0.0 };
        WORDS_SHARE * words + (1.0 - WORDS_SHARE) * f64::from(cosine.max(0.0))
    };
    let mut scores: Vec<(u32, f64)> = Vec::with_capacity(by_words.len());
    let mut by_words_too = vec![false; cosines.len()];
    for (&skill, &word_score) in &by_words {
        if word_score > 0.0 {
            let cosine = cosines.get(skill as usize).copied().unwrap_or(0.0);
            scores.push((skill, blended(word_score, cosine)));
            if let Some(flag) = by_words_too.get_mut(skill as usize) {
                *flag = true;
            }
        }
    }
    for (skill, (&cosine, &counted)) in cosines.iter().zip(&by_words_too).enumerate() {
        if !counted && cosine >= MEANING_FLOOR {
            let skill = u32::try_from(skill).unwrap_or(u32::MAX);
            scores.push((skill, blended(0.0, cosine)));
        }
    }
    // What a skill gains by the language it is written in: that of a place the query names
    // (more when the query is written in another of the languages); the query's own Spanish,
    // German or French, unless the query names places of other languages only (`Vivo en
    // Osaka`: a request about life in Japan); English, for an English query naming no place.
    let places = places::Places::shipped().named(query);
    let written_without_spaces = places::written_without_spaces_in(query);
    let place_bonus = match translation.language.or(written_without_spaces) {
        Some(own) if !places.contains(&own) => PLACE_BONUS_ABROAD,
        _ => PLACE_BONUS,
    };
    let same_language = translation
        .language
        .filter(|language| places.is_empty() || places.contains(language));
    let english = translation.found.is_empty()
        && translation.little.is_empty()
        && places.is_empty()
        && written_without_spaces.is_none();
    let written_in = |skill: u32| languages.get(skill as usize).copied().flatten();
    let of_place =
        |skill: u32| written_in(skill).is_some_and(|language| places.contains(&language));
    let gain = |skill: u32| {
        let language = written_in(skill);
        let mut gain = 0.0;
        if of_place(skill) {
            gain += place_bonus;
        }
        if language.is_some() && language == same_language {
            gain += SAME_LANGUAGE_BONUS;
        }
        if language.is_none() && english {
            gain += ENGLISH_BONUS;
        }
        gain
    };
    // A skill of a named place that matched nothing enters by its meaning alone.
    if !places.is_empty() {
        for (skill, &counted) in by_words_too.iter().enumerate() {
            let cosine = cosines.get(skill).copied().unwrap_or(0.0);
            let skill = u32::try_from(skill).unwrap_or(u32::MAX);
            if !counted && cosine < MEANING_FLOOR && of_place(skill) {
                scores.push((skill, blended(0.0, cosine)));
            }
        }
    }
    for (skill, score) in &mut scores {
        *score += gain(*skill);
    }
    let named = words.named(query);
    if !named.is_empty() {
        let mut unscored: HashSet<u32> = named.iter().copied().collect();
        for (skill, score) in &mut scores {
            if unscored.remove(skill) {
                *score += NAMED_BONUS;
            }
        }
        scores.extend(unscored.into_iter().map(|skill| (skill, NAMED_BONUS)));
    }
    scores
}

/// The query's direction in the meaning model: of the query and the English of its words of
/// another language, as a skill's is of its text and that text's English; of its English alone
/// when it is written in Spanish, German or French, with its words `naming` English skills.
fn query_direction(
    model: &meaning::Model,
    query: &str,
    translation: &translate::Translation,
    naming: &[String],
) -> meaning::Direction {
    if translation.language.is_some() {
        model.direction(&format!(
            "{} {}",
            in_english_alone(translation),
            naming.join(" ")
        ))
    } else if translation.found.is_empty() {
        model.direction(query)
    } else {
        model.direction(&format!("{query} {}", translation.text()))
    }
}

impl fmt::Debug for SearchIndex {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SearchIndex")
            .field("skills", &self.entries.len())
            .field("terms", &self.scorer.term_count())
            .field("ranking", &self.ranking)
            .finish()
    }
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
        let entries: Vec<Indexed> = entries
            .into_iter()
            .filter(|entry| entry.model_visible)
            .map(|entry| Indexed {
                name: entry.name.trim().to_owned(),
                description: entry.description.trim().to_owned(),
                location: entry.location.into_owned(),
            })
            .collect();
        SearchIndex {
            scorer: Scorer::build(&entries, ranking),
            entries,
            ranking,
        }
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
    /// name; skills sharing no word with the query and not close to it in meaning are not
    /// returned.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let limit = limit.min(MAX_LIMIT);
        if limit == 0 {
            return Vec::new();
        }
        let mut ranked: Vec<(f64, &Indexed)> = self
            .scorer
            .score(query)
            .into_iter()
            .map(|(position, score)| (position, shown(score)))
            .filter(|(_, score)| *score > 0.0)
            .filter_map(|(position, score)| Some((score, self.entries.get(position as usize)?)))
            .collect();
        let order = |left: &(f64, &Indexed), right: &(f64, &Indexed)| {
            right
                .0
                .total_cmp(&left.0)
                .then_with(|| left.1.name.cmp(&right.1.name))
                .then_with(|| left.1.location.cmp(&right.1.location))
        };
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(order);
        ranked
            .into_iter()
            .map(|(score, entry)| SearchHit {
                name: entry.name.clone(),
                description: entry.description.clone(),
                location: entry.location.clone(),
                score,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, description: &str) -> CatalogEntry<'static> {
        CatalogEntry::new(
            name.to_owned(),
            description.to_owned(),
            format!("skill://{name}/SKILL.md"),
            true,
        )
    }

    fn names(index: &SearchIndex, query: &str, limit: usize) -> Vec<String> {
        index
            .search(query, limit)
            .into_iter()
            .map(|hit| hit.name)
            .collect()
    }

    fn every_ranking(entries: &[CatalogEntry<'static>]) -> [SearchIndex; 3] {
        [Ranking::Default, Ranking::Words, Ranking::Bm25]
            .map(|ranking| SearchIndex::with_ranking(entries.iter().cloned(), ranking))
    }

    /// Chinese, Japanese and Korean are written without spaces between words: a query in one
    /// finds the skill described in it with no Latin word in common, and a query mixing
    /// scripts (or written in full-width letters) finds the English skill it names.
    #[test]
    fn queries_in_chinese_japanese_and_korean_find_their_skills() {
        let entries = [
            entry(
                "pdf",
                "Extract text and tables from PDF files, and fill PDF forms.",
            ),
            entry("meeting-notes", "整理会议记录，生成会议纪要和待办事项。"),
            entry("invoice", "請求書を作成して、取引先にメールで送信します。"),
            entry(
                "minutes-ko",
                "회의록을 요약하고 결정 사항과 할 일을 정리합니다.",
            ),
            entry("slides", "Build a slide deck from an outline."),
            entry("translate", "Translate documents between languages."),
        ];
        for ranking in [Ranking::Default, Ranking::Words, Ranking::Bm25] {
            let index = SearchIndex::with_ranking(entries.iter().cloned(), ranking);
            for (query, expected) in [
                ("帮我整理一下今天的会议记录", "meeting-notes"),
                ("取引先への請求書を作って", "invoice"),
                ("어제 회의록 요약해줘", "minutes-ko"),
                ("이 PDF에서 표를 추출해줘", "pdf"),
                ("ＰＤＦの表を抽出して", "pdf"),
            ] {
                let found = names(&index, query, 3);
                assert_eq!(
                    found.first().map(String::as_str),
                    Some(expected),
                    "{ranking:?}: {query} found {found:?}"
                );
            }
        }
    }

    /// Pairs of characters that are grammar (`から`, `なる`, `해줘`, `怎么`) are shared by
    /// most texts of their language: a query sharing only those with a skill does not find it.
    #[test]
    fn grammar_shared_with_a_skill_does_not_find_it() {
        let entries = [
            entry(
                "furusato",
                "ふるさと納税の控除上限額を年収から試算し、確定申告が必要になるケースを案内する。",
            ),
            entry("yeonmal", "연말정산 서류를 챙기고 공제 항목을 계산해줘요."),
            entry("fapiao", "怎么整理增值税发票，帮我核对金额。"),
        ];
        for ranking in [Ranking::Default, Ranking::Words] {
            let index = SearchIndex::with_ranking(entries.iter().cloned(), ranking);
            for query in [
                "何から手をつければ速くなる",
                "사진 배경 지워줘요",
                "怎么把视频剪短？帮我",
            ] {
                assert_eq!(
                    names(&index, query, 3),
                    Vec::<String>::new(),
                    "{ranking:?}: {query}"
                );
            }
            assert_eq!(
                names(&index, "確定申告が必要", 1),
                ["furusato"],
                "{ranking:?}"
            );
        }
    }

    /// A request in Chinese, Japanese, Korean, Spanish, German or French finds the skill
    /// described in English with no word in common, and a request in English finds a skill
    /// described in another language.
    #[test]
    fn queries_find_skills_described_in_another_language() {
        let entries = [
            entry(
                "lease-review",
                "Review a rental lease: flag unusual clauses, deposits and notice periods.",
            ),
            entry(
                "trip-planner",
                "Plan a trip day by day: itinerary, transport and hotel bookings.",
            ),
            entry(
                "meal-planner",
                "Plan the week's meals and write the grocery shopping list.",
            ),
            entry(
                "manual-translator",
                "Translate a user manual into another language, keeping its layout.",
            ),
            entry(
                "proofreader",
                "Proofread an email or letter: spelling, grammar and punctuation mistakes.",
            ),
            entry(
                "recetas",
                "Sugiere recetas de cocina con los ingredientes que hay en la nevera.",
            ),
            entry("slides", "Build a slide deck from an outline."),
            entry("deploy", "Deploy the web app to the production server."),
        ];
        for ranking in [Ranking::Default, Ranking::Words] {
            let index = SearchIndex::with_ranking(entries.iter().cloned(), ranking);
            for (query, expected) in [
                ("请帮我检查一下这份租房合同", "lease-review"),
                ("京都への旅行の日程を考えてください", "trip-planner"),
                ("다음 주 식단을 짜 줘", "meal-planner"),
                ("¿Puedes revisar el contrato de alquiler?", "lease-review"),
                (
                    "Übersetze bitte die Bedienungsanleitung",
                    "manual-translator",
                ),
                (
                    "Corrige les fautes d'orthographe de mon courriel",
                    "proofreader",
                ),
                (
                    "which recipe can I cook with the ingredients in my fridge",
                    "recetas",
                ),
            ] {
                let found = names(&index, query, 3);
                assert_eq!(
                    found.first().map(String::as_str),
                    Some(expected),
                    "{ranking:?}: {query} found {found:?}"
                );
            }
        }
    }

    #[test]
    fn the_index_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync + Clone + fmt::Debug>() {}
        shareable::<SearchIndex>();
        let index = SearchIndex::new([entry("pdf", "Fill PDF forms.")]);
        assert_eq!(
            format!("{index:?}"),
            "SearchIndex { skills: 1, terms: 3, ranking: Default }"
        );
    }

    #[test]
    fn ties_are_broken_by_name_and_limits_hold() {
        // The same words and the same meaning (`-` and `_` both part words): a true tie.
        let entries = [
            entry("x_y", "Convert units."),
            entry("x-y", "Convert units."),
        ];
        for index in every_ranking(&entries) {
            assert_eq!(names(&index, "convert units", 5), ["x-y", "x_y"]);
            assert_eq!(names(&index, "units", 1), ["x-y"]);
            assert!(index.search("units", 0).is_empty());
            assert!(index.search("nothing", 5).is_empty());
        }
    }

    #[test]
    fn no_search_returns_more_than_the_most() {
        let entries: Vec<CatalogEntry<'static>> = (0..30)
            .map(|number| entry(&format!("skill-{number:02}"), "Convert units."))
            .collect();
        for index in every_ranking(&entries) {
            assert_eq!(index.search("convert", 100).len(), MAX_LIMIT);
            assert_eq!(index.search("convert", DEFAULT_LIMIT).len(), DEFAULT_LIMIT);
        }
    }

    #[test]
    fn manual_only_skills_are_never_indexed_or_returned() {
        let entries = [
            entry("deploy-docs", "Publish the documentation site."),
            CatalogEntry::new(
                "deploy",
                "Deploy the app.",
                "skill://deploy/SKILL.md",
                false,
            ),
        ];
        for index in every_ranking(&entries) {
            assert_eq!(index.len(), 1);
            assert_eq!(names(&index, "deploy", 5), ["deploy-docs"]);
            assert_eq!(names(&index, "deploy the app", 5), ["deploy-docs"]);
        }
    }

    #[test]
    fn queries_without_words_find_nothing() {
        let entries = [
            entry("pdf", "Fill PDF forms."),
            entry("docx", "Edit Word files."),
        ];
        for index in every_ranking(&entries) {
            for query in ["", "   ", "\t\n", "?!…—()[]", "-", "--"] {
                assert!(index.search(query, 5).is_empty(), "{query:?}");
            }
        }
        let empty = SearchIndex::new([]);
        assert!(empty.is_empty() && empty.search("pdf", 5).is_empty());
    }

    #[test]
    fn a_huge_query_is_answered() {
        let entries = [
            entry("pdf", "Fill PDF forms."),
            entry("docx", "Edit Word files."),
        ];
        let huge = "fill the pdf form with care ".repeat(4_000);
        assert!(huge.len() > 100_000);
        let words: String = (0..20_000).map(|number| format!("w{number} ")).collect();
        let one_word = "pdfy".repeat(30_000);
        // Runs of listed words in other languages, and their little words.
        let translated = format!(
            "{} {}",
            "合同翻译表格".repeat(20_000),
            "el contrato de la factura ".repeat(4_000)
        );
        for index in every_ranking(&entries) {
            assert_eq!(names(&index, &huge, 5), ["pdf"]);
            assert!(index.search(&translated, 5).len() <= 2);
            assert!(index.search(&words, 5).is_empty());
            assert!(index.search(&one_word, 5).is_empty());
            assert!(
                index
                    .search(&format!("{one_word} {one_word}x"), 5)
                    .is_empty()
            );
        }
    }

    #[test]
    fn a_word_in_the_name_outweighs_the_same_word_in_a_description() {
        let index = SearchIndex::new([
            entry(
                "invoice-generator",
                "Generate documents for clients as PDF.",
            ),
            entry(
                "bookkeeping",
                "Keep the books: match each invoice to a payment.",
            ),
        ]);
        assert_eq!(
            names(&index, "invoice", 5),
            ["invoice-generator", "bookkeeping"]
        );
    }

    #[test]
    fn hyphenated_names_are_found_by_each_word_and_whole() {
        let index = SearchIndex::new([
            entry("zoom-automation", "Create meetings and list recordings."),
            entry("zoom-lens", "Pick a camera lens."),
            entry("slack-automation", "Post messages to channels."),
        ]);
        let mut automations = names(&index, "automation", 5)[..2].to_vec();
        automations.sort();
        assert_eq!(automations, ["slack-automation", "zoom-automation"]);
        let mut zooms = names(&index, "zoom", 5);
        zooms.sort();
        assert_eq!(zooms, ["zoom-automation", "zoom-lens"]);
        // By words alone the two automations and the two zooms tie, and are ranked by name.
        let words = SearchIndex::with_ranking(index_entries(&index), Ranking::Words);
        assert_eq!(
            names(&words, "automation", 5)[..2],
            ["slack-automation", "zoom-automation"]
        );
        assert_eq!(names(&words, "zoom", 5), ["zoom-automation", "zoom-lens"]);
        for query in ["zoom-automation", "Zoom Automation", "  zoom_automation "] {
            assert_eq!(names(&index, query, 5)[0], "zoom-automation", "{query}");
        }
    }

    #[test]
    fn an_exact_name_ranks_first_even_when_others_repeat_it() {
        let index = SearchIndex::new([
            entry("pdf", "Work with documents."),
            entry(
                "pdf-redaction",
                "Redact a PDF: PDF text, PDF images, PDF forms.",
            ),
            entry(
                "pdf-table-extraction",
                "Pull tables out of PDF and pdf reports.",
            ),
        ]);
        assert_eq!(names(&index, "pdf", 1), ["pdf"]);
        assert_eq!(names(&index, "PDF", 1), ["pdf"]);
        let index = SearchIndex::new([entry("it-helpdesk", "Reset passwords."), entry("a", "b")]);
        assert_eq!(names(&index, "it-helpdesk", 5), ["it-helpdesk"]);
        assert_eq!(names(&index, "a", 5), ["a"]);
    }

    #[test]
    fn other_forms_of_a_word_match_by_stem() {
        let index = SearchIndex::new([
            entry("calendar", "Schedule meetings and invite attendees."),
            entry("notes", "Take notes."),
        ]);
        assert_eq!(names(&index, "scheduling a meeting", 5), ["calendar"]);
        let plain = SearchIndex::with_ranking(index_entries(&index), Ranking::Bm25);
        assert!(plain.search("scheduling a meeting", 5).is_empty());
    }

    fn index_entries(index: &SearchIndex) -> Vec<CatalogEntry<'_>> {
        index
            .entries
            .iter()
            .map(|entry| {
                CatalogEntry::new(
                    entry.name.as_str(),
                    entry.description.as_str(),
                    entry.location.as_str(),
                    true,
                )
            })
            .collect()
    }

    #[test]
    fn related_words_find_skills_described_in_other_words() {
        let index = SearchIndex::new([
            entry(
                "pptx",
                "Create PowerPoint files with layouts and speaker notes.",
            ),
            entry("docx", "Create Word documents with headings and tables."),
        ]);
        assert_eq!(names(&index, "build me a slide deck", 5), ["pptx"]);
        let plain = SearchIndex::with_ranking(index_entries(&index), Ranking::Bm25);
        assert!(plain.search("build me a slide deck", 5).is_empty());
    }

    #[test]
    fn meaning_finds_a_skill_that_shares_no_word_with_the_request() {
        let entries = [
            entry(
                "bird-identification",
                "Identify birds from photos or recordings of their calls.",
            ),
            entry(
                "stargazing",
                "Plan a night of observing planets, constellations and comets.",
            ),
            entry("meal-planner", "Plan weekly meals and a shopping list."),
            entry("pdf", "Fill PDF forms."),
        ];
        let index = SearchIndex::new(entries.iter().cloned());
        let words = SearchIndex::with_ranking(entries.iter().cloned(), Ranking::Words);
        for (request, skill) in [("nebula", "stargazing"), ("sparrow", "bird-identification")] {
            assert!(words.search(request, 5).is_empty(), "{request}");
            assert_eq!(names(&index, request, 1), [skill], "{request}");
            // Unrelated skills stay out: meaning alone must come close enough.
            assert!(!names(&index, request, 5).contains(&"pdf".to_owned()));
        }
        assert!(index.search("qzxv wplk", 5).is_empty());
    }

    #[test]
    fn a_skill_named_by_the_query_stays_first_whatever_the_meaning() {
        let index = SearchIndex::new([
            entry(
                "notes",
                "Fill PDF forms, sign PDF files, merge PDF documents.",
            ),
            entry("pdf", "Take notes in meetings."),
        ]);
        assert_eq!(names(&index, "pdf", 1), ["pdf"]);
        assert_eq!(names(&index, "notes", 1), ["notes"]);
    }

    #[test]
    fn a_query_word_outweighs_a_related_one() {
        let index = SearchIndex::new([
            entry("slides", "Design a presentation."),
            entry("deck", "Design a deck."),
        ]);
        assert_eq!(names(&index, "deck", 5), ["deck", "slides"]);
    }

    #[test]
    fn typos_and_words_written_apart_or_together_are_found() {
        let index = SearchIndex::new([
            entry("pptx", "Edit PowerPoint presentations."),
            entry("spreadsheet-formulas", "Fix spreadsheet formulas."),
            entry("network", "Find the cause of timeouts between hosts."),
            entry("web-pages", "Make a page load faster."),
        ]);
        assert_eq!(names(&index, "powerpiont", 5), ["pptx"]);
        assert_eq!(names(&index, "spreadhseet", 5), ["spreadsheet-formulas"]);
        assert_eq!(names(&index, "calls time out", 1), ["network"]);
        assert_eq!(names(&index, "our homepage", 1), ["web-pages"]);
    }

    #[test]
    fn plain_bm25_scores_as_the_textbook_formula() {
        let index = SearchIndex::with_ranking(
            [
                entry("a", "red red"),
                entry("b", "blue"),
                entry("c", "blue green"),
            ],
            Ranking::Bm25,
        );
        // Skill a: "a red red", 3 words; average length (3 + 2 + 3) / 3.
        let (k1, b, average) = (1.2_f64, 0.75_f64, 8.0 / 3.0);
        let idf = (1.0_f64 + (3.0 - 1.0 + 0.5) / (1.0 + 0.5)).ln();
        let expected = idf * 2.0 * (k1 + 1.0) / (2.0 + k1 * (1.0 - b + b * 3.0 / average));
        let hits = index.search("red", 5);
        assert_eq!(hits.len(), 1);
        // Scores are given to four decimals.
        assert!(
            (hits[0].score - expected).abs() <= 0.5e-4 + 1e-12,
            "{} {expected}",
            hits[0].score
        );
    }

    #[test]
    fn a_medicine_s_name_is_a_medication() {
        let index = SearchIndex::new([
            entry(
                "drug-interactions",
                "Check medications for interactions, contraindications and dosing \
                 considerations, citing references.",
            ),
            entry(
                "cold-outreach",
                "Write cold sales emails and LinkedIn messages: personalization, short \
                 sequences and follow-ups.",
            ),
            entry(
                "fitness-coach",
                "Create workout programs: strength, running and mobility plans with \
                 progression and rest days.",
            ),
        ]);
        for query in [
            "Can I take ibuprofen together with my blood pressure meds?",
            "is paracetamol ok after an antibiotic",
        ] {
            assert_eq!(names(&index, query, 1), ["drug-interactions"], "{query}");
        }
    }

    #[test]
    fn a_spanish_query_naming_an_english_skill_s_product_finds_it_by_meaning_too() {
        if meaning::Model::shipped().is_none() {
            return;
        }
        let index = SearchIndex::new([
            entry(
                "todoist-automation",
                "Automate Todoist: add tasks with natural due dates, manage projects, labels \
                 and sections, complete tasks.",
            ),
            entry(
                "personal-finance-coach",
                "Coach personal finances: emergency funds, paying down debt, credit scores and \
                 saving habits.",
            ),
            entry(
                "financial-model",
                "Build three-statement financial models and revenue projections in \
                 spreadsheets with scenarios and assumptions.",
            ),
            entry(
                "insurance-claims",
                "Prepare insurance claims: policy coverage, documents, photos and deadlines \
                 for car, home and health insurance.",
            ),
        ]);
        // `Todoist` is read by no list; it still says which skill the request is about.
        let query = "Añade en Todoist 'pagar el seguro del coche el primer lunes de cada mes' \
                     en el proyecto Casa con la etiqueta finanzas";
        assert_eq!(names(&index, query, 1), ["todoist-automation"]);
    }

    #[test]
    fn an_english_query_meets_a_skill_of_another_language_in_its_english() {
        if meaning::Model::shipped().is_none() {
            return;
        }
        let description = "Calcula presupuestos de reformas y obras: mediciones, materiales y \
                           mano de obra, plazos e IVA. Entrega el presupuesto al cliente.";
        let english = translated(&Indexed {
            name: "budget-builder".to_owned(),
            description: description.to_owned(),
            location: String::new(),
        })
        .text();
        assert!(
            !english.is_empty(),
            "the Spanish words have English meanings"
        );
        let spanish = SearchIndex::new([entry("budget-builder", description)]);
        // The same skill as its English alone: the meaning an English query is compared with.
        let twin = SearchIndex::new([entry("budget-builder", &english)]);
        let query = "estimate what a renovation costs in materials and labour";
        let score = |index: &SearchIndex| index.search(query, 5).first().map(|hit| hit.score);
        assert!(score(&spanish).is_some());
        // As close, but for the little an English skill gains with an English query.
        assert_eq!(
            score(&spanish).map(|score| shown(score + ENGLISH_BONUS)),
            score(&twin)
        );
        // A query in Spanish still meets the skill in its own words.
        let spanish_query = "cuánto cuesta reformar la cocina, materiales y mano de obra";
        assert_eq!(spanish.search(spanish_query, 5).len(), 1);
    }

    #[test]
    fn a_request_in_spanish_is_compared_by_its_topic_and_prefers_its_language_on_a_tie() {
        if meaning::Model::shipped().is_none() {
            return;
        }
        let spanish_skills = [
            entry(
                "asesor-liga-fantasy",
                "Recomienda alineaciones y fichajes para la liga fantasy de fútbol según el \
                 calendario de la jornada y las lesiones de los jugadores.",
            ),
            entry(
                "cita-previa",
                "Ayuda a pedir cita previa en la oficina de extranjería para la huella y la \
                 tarjeta de residencia, con los papeles que hay que llevar.",
            ),
        ];
        let recycling = entry(
            "recycling-schedule",
            "Explain how to sort household waste and which day each kind of trash, bottles \
             and cans is collected.",
        );
        let query = "¿Qué día tengo que sacar la basura y las botellas?";
        let index = SearchIndex::new(spanish_skills.iter().cloned().chain([recycling.clone()]));
        // The English skill on the request's topic comes before Spanish skills on others.
        assert_eq!(names(&index, query, 1), ["recycling-schedule"]);
        // A Spanish skill on the same topic comes before the English one (which it would not
        // without the bonus: the English skill names the bottles and the day).
        let reciclaje = entry(
            "reciclaje",
            "Ayuda a separar la basura de casa: envases, vidrio y papel, y dice cuándo se \
             recoge.",
        );
        let index = SearchIndex::new(spanish_skills.into_iter().chain([recycling, reciclaje]));
        assert_eq!(names(&index, query, 2), ["reciclaje", "recycling-schedule"]);
    }

    #[test]
    fn a_skill_described_in_chinese_weighs_as_much_as_an_english_one_for_the_same_word() {
        let score = |entries: [CatalogEntry<'static>; 3], name: &str| {
            SearchIndex::with_ranking(entries, Ranking::Words)
                .search("penalty", 5)
                .into_iter()
                .find(|hit| hit.name == name)
                .map(|hit| hit.score)
        };
        let meals = entry(
            "meal-planner",
            "Plan the week's meals and write the shopping list.",
        );
        // The Chinese skill holds the word in its English (违约金).
        let chinese = score(
            [
                entry(
                    "zufang-hetong",
                    "帮你逐条审查租房合同里的条款，指出押金、违约金和续租等风险，并给出修改建议。",
                ),
                entry(
                    "lease-check",
                    "Review a rental agreement clause by clause and point out the risks in the \
                     deposit and the renewal, with suggested changes.",
                ),
                meals.clone(),
            ],
            "zufang-hetong",
        )
        .expect("the Chinese skill is found");
        // The same, the English skill holding the word itself.
        let english = score(
            [
                entry(
                    "zufang-hetong",
                    "帮你逐条审查租房合同里的条款，指出押金和续租等风险，并给出修改建议。",
                ),
                entry(
                    "lease-check",
                    "Review a rental agreement clause by clause and point out the risks in the \
                     deposit, the penalties and the renewal, with suggested changes.",
                ),
                meals,
            ],
            "lease-check",
        )
        .expect("the English skill is found");
        // Were the Chinese skill's CJK pairs counted as words, or its English as more
        // description, it would weigh about half.
        assert!(chinese >= 0.8 * english, "{chinese} against {english}");
    }

    #[test]
    fn a_request_naming_a_place_abroad_prefers_the_place_s_skill_to_its_own_language_s() {
        if meaning::Model::shipped().is_none() {
            return;
        }
        let index = SearchIndex::new([
            entry(
                "fianza-alquiler",
                "Ayuda a recuperar la fianza del alquiler al dejar el piso y a reclamar al \
                 casero los descuentos injustos.",
            ),
            entry(
                "traffic-fine-kr",
                "교통 위반 과태료와 범칙금의 납부 방법, 이의 신청 절차를 안내합니다.",
            ),
        ]);
        let query = "Vivo en Busan y me llegó una multa por aparcar mal con un coche de \
                     alquiler, ¿dónde la pago?";
        assert_eq!(names(&index, query, 1), ["traffic-fine-kr"]);
        // Without the place, the Spanish skill that shares its words comes first.
        let nowhere =
            "Me llegó una multa por aparcar mal con un coche de alquiler, ¿dónde la pago?";
        assert_eq!(names(&index, nowhere, 1), ["fianza-alquiler"]);
    }

    #[test]
    fn a_request_naming_a_country_prefers_the_skill_written_in_its_language() {
        if meaning::Model::shipped().is_none() {
            return;
        }
        let index = SearchIndex::new([
            entry(
                "housing-benefit",
                "Check eligibility for housing benefit and estimate the monthly rent support.",
            ),
            entry(
                "aide-logement",
                "Vérifie le droit à l'aide au logement (APL) et estime le montant mensuel de \
                 l'aide pour le loyer.",
            ),
            entry(
                "traductor",
                "Translate letters and forms between languages, keeping their tone.",
            ),
        ]);
        // Without a place, the skill in the request's language comes first.
        assert_eq!(
            names(&index, "can I get help paying my rent", 1),
            ["housing-benefit"]
        );
        // Naming the country, or one of its cities, brings its own skill first.
        for query in [
            "can I get help paying my rent in Lyon",
            "I live in France: can I get help paying my rent",
        ] {
            assert_eq!(names(&index, query, 1), ["aide-logement"], "{query}");
        }
        // A language named as a language is no place.
        assert_eq!(
            names(&index, "translate my rent help letter into French", 1),
            ["traductor"]
        );
    }
}
