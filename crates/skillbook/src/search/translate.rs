//! Queries in other languages: word lists from Chinese, Japanese, Korean, Spanish, German and
//! French to English, so that a request in one of those languages finds a skill described in
//! English (`帮我看看这份合同` → `contract`; `Revisa este contrato de alquiler` → `review`,
//! `contract`, `rent`).
//!
//! The lists live in `translations/<language>.txt`, a line an English meaning followed by the
//! words of the language that say it. They were written as general vocabulary of the tasks
//! people bring to an assistant, from the concept lexicon's words and each field's everyday
//! words, not from the evaluation queries (`tests/search_eval`, frozen by hash).
//!
//! How a query is read:
//! - Chinese, Japanese and Korean are written without spaces between words (Korean attaches its
//!   particles), so each run of such characters is scanned left to right for the longest listed
//!   word (two characters or more) starting at each place.
//!   The script picks the list tried first: Hangul Korean, kana Japanese, Han alone Chinese.
//! - Other words are read only in a query written in Spanish, German or French, which its little
//!   words tell (`el`, `und`, `les`, …; a query of English words has none of them) or its
//!   letters (`ñ`, `ß`, `ç`, …), and then with that language's list: compared lower-case with
//!   accents folded, as the search reads them, a listed word whole, a listed phrase of
//!   consecutive words (`mot de passe`), or the longest listed stem ending in `*` that begins the
//!   word (`revis*` finds `revisa`). A long word listed in no form is tried as two listed words
//!   run together, with a linking `s`, `es`, `n` or `en` between them as German compounds have
//!   (`Bedienungsanleitung` → `Bedienung`, `Anleitung`). A word English readers know (a stop
//!   word, or a word of the concept lexicon) is not translated: it is already a word of the
//!   query.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;

use super::lexicon::Lexicon;
use super::text;

/// A language with a word list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Chinese,
    Japanese,
    Korean,
    Spanish,
    German,
    French,
}

impl Language {
    const WRITTEN_WITHOUT_SPACES: [Language; 3] =
        [Language::Chinese, Language::Japanese, Language::Korean];
    const WRITTEN_IN_WORDS: [Language; 3] = [Language::Spanish, Language::German, Language::French];

    /// The language of an ISO 639-1 code (`zh`, `ja`, `ko`, `es`, `de`, `fr`).
    pub(crate) fn of_code(code: &str) -> Option<Language> {
        Some(match code {
            "zh" => Language::Chinese,
            "ja" => Language::Japanese,
            "ko" => Language::Korean,
            "es" => Language::Spanish,
            "de" => Language::German,
            "fr" => Language::French,
            _ => return None,
        })
    }

    /// Its word list, as shipped.
    fn list(self) -> &'static str {
        match self {
            Language::Chinese => include_str!("translations/zh.txt"),
            Language::Japanese => include_str!("translations/ja.txt"),
            Language::Korean => include_str!("translations/ko.txt"),
            Language::Spanish => include_str!("translations/es.txt"),
            Language::German => include_str!("translations/de.txt"),
            Language::French => include_str!("translations/fr.txt"),
        }
    }

    /// Words of the language (accents folded) that English text does not use, such as its
    /// articles and prepositions: one of them in a query says the query is in the language.
    fn little_words(self) -> &'static [&'static str] {
        match self {
            Language::Spanish => &[
                "al", "como", "con", "cual", "cuanto", "de", "del", "el", "en", "es", "esta",
                "estas", "este", "esto", "estos", "hay", "la", "las", "lo", "los", "mi", "mis",
                "necesito", "para", "por", "puedes", "que", "quiero", "su", "sus", "tengo", "tu",
                "tus", "un", "una", "unas", "unos", "y",
            ],
            Language::German => &[
                "aber", "auch", "auf", "aus", "bei", "bitte", "brauche", "das", "dem", "den",
                "der", "des", "die", "ein", "eine", "einem", "einen", "einer", "es", "fur", "ich",
                "im", "ist", "kann", "kannst", "machen", "mein", "meine", "meinen", "mich", "mir",
                "mochte", "nicht", "noch", "oder", "sie", "sind", "uber", "und", "unser", "unsere",
                "unseren", "vom", "wie", "wir", "zu", "zum", "zur",
            ],
            Language::French => &[
                "au", "aux", "avec", "ce", "ces", "cette", "d", "dans", "de", "des", "du", "elle",
                "en", "est", "et", "il", "j", "je", "l", "la", "le", "les", "ma", "mais", "mes",
                "moi", "mon", "nos", "notre", "nous", "ou", "pour", "qu", "que", "qui", "sont",
                "sur", "ta", "tes", "ton", "un", "une", "veux", "vos", "votre", "vous",
            ],
            _ => &[],
        }
    }

    /// Whether `word` (lower case, accents folded) is one of [`Language::little_words`].
    fn is_little_word(self, word: &str) -> bool {
        self.little_words().binary_search(&word).is_ok()
    }

    /// Letters of the language (lower case) that English text does not use.
    fn letters(self) -> &'static str {
        match self {
            Language::Spanish => "ñ¿¡áíóú",
            Language::German => "äöüß",
            Language::French => "çœàâèêëîïôùûÿ",
            _ => "",
        }
    }
}

/// German particles that close a clause when their verb comes first (`fass … zusammen`), accents
/// folded.
const SEPARABLE_PARTICLES: &[&str] = &[
    "ab", "an", "auf", "aus", "bei", "dar", "durch", "ein", "fehl", "fest", "fort", "frei", "her",
    "heraus", "herunter", "hin", "hinzu", "hoch", "los", "mit", "nach", "raus", "rein", "runter",
    "um", "vor", "vorbei", "weg", "weiter", "wieder", "zu", "zuruck", "zusammen",
];

/// Words that start a new clause in German: a particle before them closes the clause before.
const CLAUSE_JOINS: &[&str] = &[
    "aber", "als", "bevor", "damit", "dann", "dass", "denn", "nachdem", "ob", "oder", "sobald",
    "sondern", "und", "weil", "wenn",
];

/// The fewest characters of a listed stem that a particle and its verb are read by: the
/// shortest particle and a syllable (`ausl*` is no verb).
const MIN_SEPARATED_STEM_CHARS: usize = 6;

/// The fewest characters a listed word written without spaces has: one character matches inside
/// too many others.
const MIN_RUN_WORD_CHARS: usize = 2;
/// The fewest characters a listed katakana word has to be read inside a longer katakana word
/// the lists cannot wholly read: `クリーニング` in `ハウスクリーニング` is, `ブート` in `モノトリブート`
/// is not.
const MIN_KATAKANA_CHARS_INSIDE: usize = 4;
/// The fewest letters before a `*`.
const MIN_STEM_CHARS: usize = 4;
/// The fewest letters of each part of a word split in two.
const MIN_PART_CHARS: usize = 3;
/// Words shorter than this are not split in two.
const MIN_COMPOUND_CHARS: usize = 8;
/// Query characters beyond this many are not read for translation (a pasted document is not a
/// query).
pub(crate) const MAX_QUERY_CHARS: usize = 2_000;
/// A text in Spanish, German or French has at least one of its little words in this many words.
const WORDS_PER_LITTLE_WORD: usize = 10;
/// The most words a listed phrase has.
const MAX_PHRASE_WORDS: usize = 6;

/// The meanings of one listed word: indexes into [`Translations::meanings`].
type Meanings = Vec<u32>;

/// One language's list.
#[derive(Debug, Default)]
struct List {
    /// Words written without spaces (Chinese, Japanese, Korean), NFKC-folded.
    run_words: HashMap<String, Meanings>,
    /// The longest of them, in characters.
    longest_run_word: usize,
    /// Korean words listed with a space (`카드 내역`), by their first word: the words after it,
    /// and the meanings. Korean is written with spaces between words, and a query may keep or
    /// drop them: such a word is read either way.
    spaced: Phrases,
    /// Single words, folded as the search folds them.
    words: HashMap<String, Meanings>,
    /// Phrases by their first word: the words after it, and the meanings.
    phrases: Phrases,
    /// Stems listed with a `*`.
    stems: HashMap<String, Meanings>,
}

/// Every language's list.
#[derive(Debug, Default)]
pub(crate) struct Translations {
    /// The English meanings, as written (`meal plan`).
    meanings: Vec<String>,
    /// The lists, by language.
    lists: Vec<(Language, List)>,
}

/// What a query says in English: for each word of another language found in it, its meanings
/// (each meaning's text, such as `contract` or `meal plan`); and the stems of the query's little
/// words of its language (`de`, `la`, `und`), which say nothing of the task.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Translation {
    pub(crate) found: Vec<Vec<String>>,
    pub(crate) little: Vec<String>,
    /// Spanish, German or French, when the text is written in it: its little words show the
    /// language, and its words of that language (little or found in the list) outnumber its
    /// English ones (so `convert ES modules to CommonJS` stays English).
    pub(crate) language: Option<Language>,
    /// For a text in [`Translation::language`]: its English words that say something (known to
    /// the lexicon, no stop words, neither little words nor found in the list), in order. With
    /// the meanings found, they are all the meaning model can read of the text: its pieces of
    /// the language itself would make every text in it alike.
    pub(crate) english: Vec<String>,
}

impl Translation {
    /// Whether the stem `term` is a little word of the query's language.
    pub(crate) fn is_little(&self, term: &str) -> bool {
        self.little.iter().any(|little| little == term)
    }

    /// The meanings found, as one English text (for the meaning model).
    pub(crate) fn text(&self) -> String {
        let mut text = String::new();
        for meaning in self.found.iter().flatten() {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(meaning);
        }
        text
    }
}

impl Translations {
    /// The lists shipped with skillbook, parsed on first use.
    pub(crate) fn shipped() -> &'static Translations {
        static TRANSLATIONS: OnceLock<Translations> = OnceLock::new();
        TRANSLATIONS.get_or_init(|| {
            let languages = Language::WRITTEN_WITHOUT_SPACES
                .into_iter()
                .chain(Language::WRITTEN_IN_WORDS);
            Translations::parse(languages.map(|language| (language, language.list())))
        })
    }

    /// Lists of lines `english words: word, word, stem*, a phrase`; `#` starts a comment line.
    fn parse<'a>(sources: impl IntoIterator<Item = (Language, &'a str)>) -> Translations {
        let mut translations = Translations::default();
        let mut numbers: HashMap<String, u32> = HashMap::new();
        for (language, source) in sources {
            let mut list = List::default();
            for (meaning, listed) in listed_lines(source) {
                let number = *numbers.entry(meaning.to_owned()).or_insert_with(|| {
                    translations.meanings.push(meaning.to_owned());
                    u32::try_from(translations.meanings.len() - 1).unwrap_or(u32::MAX)
                });
                for entry in listed {
                    list.add(entry, number);
                }
            }
            translations.lists.push((language, list));
        }
        translations
    }

    fn list(&self, language: Language) -> Option<&List> {
        self.lists
            .iter()
            .find(|(listed, _)| *listed == language)
            .map(|(_, list)| list)
    }

    /// The English of every word of another language in `query` (a query, or a skill's name and
    /// description) that the lists hold.
    pub(crate) fn translate(&self, query: &str, lexicon: &Lexicon) -> Translation {
        let query = match query.char_indices().nth(MAX_QUERY_CHARS) {
            Some((end, _)) => &query[..end],
            None => query,
        };
        // ASCII text (most skills' descriptions) has no run to scan, no letter to fold and no
        // letter of the three languages.
        let ascii = query.is_ascii();
        let query: Cow<'_, str> = if ascii {
            Cow::Borrowed(query)
        } else {
            Cow::Owned(query.nfkc().collect())
        };
        let mut found: Vec<&Meanings> = Vec::new();
        if !ascii {
            // A run of Chinese characters alone is read first as the language the rest of the
            // text is written in (`展開` in a Japanese request is a deployment, not an expansion).
            let han_first = if query.chars().any(is_kana) {
                Language::Japanese
            } else if query.chars().any(is_hangul) {
                Language::Korean
            } else {
                Language::Chinese
            };
            for run in query.split(|c: char| !text::is_cjk(c)) {
                self.scan_run(run, han_first, &mut found);
            }
            if query.chars().any(is_hangul) {
                self.scan_spaced(&query, &mut found);
            }
        }
        let words: Vec<String> = folded_words(&query).collect();
        let lower = if ascii {
            String::new()
        } else {
            query.to_lowercase()
        };
        // A query of a few words says its language with one little word; a longer text (a
        // skill's description) with one word in ten, which English text never has.
        let needed = (words.len() / WORDS_PER_LITTLE_WORD).max(1);
        let mut translation = Translation::default();
        // Which words were read as words of a language the text is written in (little, or
        // found in its list), and the language with the most little words.
        let mut read = vec![false; words.len()];
        let mut most_little: Option<(usize, Language)> = None;
        for language in Language::WRITTEN_IN_WORDS {
            let little: Vec<&String> = words
                .iter()
                .filter(|word| language.is_little_word(word))
                .collect();
            let written_in =
                little.len() >= needed || lower.chars().any(|c| language.letters().contains(c));
            if !written_in {
                continue;
            }
            if most_little.is_none_or(|(most, _)| little.len() > most) {
                most_little = Some((little.len(), language));
            }
            for word in little {
                let stem = text::stem(word);
                if !translation.is_little(&stem) {
                    translation.little.push(stem);
                }
            }
            for (word, read) in words.iter().zip(&mut read) {
                *read |= language.is_little_word(word);
            }
            if let Some(list) = self.list(language) {
                let mut at = 0;
                while at < words.len() {
                    let before = found.len();
                    let used = list.match_words(&words[at..], lexicon, &mut found).max(1);
                    let end = (at + used).min(words.len());
                    if found.len() > before {
                        read[at..end].iter_mut().for_each(|read| *read = true);
                    }
                    at = end;
                }
                if language == Language::German {
                    list.separated_verbs(&query, &mut found);
                }
            }
        }
        if let Some((_, language)) = most_little {
            let english = |word: &String| is_english(word, lexicon);
            let unread = || words.iter().zip(&read).filter(|(_, read)| !**read);
            let of_language = read.iter().filter(|read| **read).count();
            if of_language > unread().filter(|(word, _)| english(word)).count() {
                translation.language = Some(language);
                translation.english = unread()
                    .map(|(word, _)| word)
                    .filter(|word| english(word) && !text::is_stop_word(word))
                    .cloned()
                    .collect();
            }
        }
        for meanings in found {
            let texts: Vec<String> = meanings
                .iter()
                .filter_map(|&number| self.meanings.get(number as usize).cloned())
                .collect();
            if !texts.is_empty() && !translation.found.contains(&texts) {
                translation.found.push(texts);
            }
        }
        translation
    }

    /// Finds the Korean words listed with a space (`카드 내역`) that `text` writes with one: the
    /// first word ending a word of the text, the last starting one (a particle may follow:
    /// `카드 내역을`), any between matching whole words.
    fn scan_spaced<'t>(&'t self, text: &str, found: &mut Vec<&'t Meanings>) {
        let Some(list) = self.list(Language::Korean) else {
            return;
        };
        if list.spaced.is_empty() {
            return;
        }
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace())
            .filter(|word| !word.is_empty())
            .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
            .collect();
        for (at, word) in words.iter().enumerate() {
            let after = &words[at + 1..];
            for (start, _) in word.char_indices() {
                let Some(phrases) = list.spaced.get(&word[start..]) else {
                    continue;
                };
                for (rest, meanings) in phrases {
                    let Some((last, middle)) = rest.split_last() else {
                        continue;
                    };
                    let follows = after.len() > middle.len()
                        && after
                            .iter()
                            .zip(middle)
                            .all(|(word, listed)| word == listed)
                        && ends_with_a_particle(after[middle.len()], last);
                    if follows {
                        found.push(meanings);
                    }
                }
            }
        }
    }

    /// Finds the longest listed word at each place of a run of CJK characters, in the list of
    /// the run's script first (`han_first`'s for a run of Chinese characters alone).
    fn scan_run<'t>(&'t self, run: &str, han_first: Language, found: &mut Vec<&'t Meanings>) {
        let characters: Vec<char> = run.chars().collect();
        let first = if characters.iter().any(|&c| is_hangul(c)) {
            Language::Korean
        } else if characters.iter().any(|&c| is_kana(c)) {
            Language::Japanese
        } else {
            han_first
        };
        let others = Language::WRITTEN_WITHOUT_SPACES
            .into_iter()
            .filter(|&language| language != first);
        let lists: Vec<&List> = [first]
            .into_iter()
            .chain(others)
            .filter_map(|language| self.list(language))
            .collect();
        let opaque = opaque_katakana(&characters, |at, end| {
            longest_listed(&lists, &characters[at..end]).map(|(length, _)| length)
        });
        let mut at = 0;
        while at < characters.len() {
            let best = longest_listed(&lists, &characters[at..]).filter(|&(length, _)| {
                !(opaque[at]
                    && length < MIN_KATAKANA_CHARS_INSIDE
                    && characters[at..at + length].iter().all(|&c| is_katakana(c)))
            });
            match best {
                Some((length, meanings)) => {
                    found.push(meanings);
                    at += length;
                }
                None => at += 1,
            }
        }
    }
}

/// Korean particles that follow a word written with one syllable (`주에`, `달은`): such a word
/// is only read before one of them, not at the start of a longer word (`주문`, `달력`).
const KOREAN_PARTICLES: &[&str] = &[
    "", "가", "과", "까지", "는", "도", "로", "를", "마다", "만", "부터", "에", "에는", "에도",
    "에서", "엔", "와", "은", "을", "의", "이", "쯤",
];

/// Whether `word` is `listed`, or `listed` followed by a particle: any ending after a listed
/// word of two syllables or more, one of [`KOREAN_PARTICLES`] after a listed word of one.
fn ends_with_a_particle(word: &str, listed: &str) -> bool {
    let Some(rest) = word.strip_prefix(listed) else {
        return false;
    };
    listed.chars().nth(1).is_some() || KOREAN_PARTICLES.contains(&rest)
}

/// The longest word of `lists` that `characters` start with (in the first list that has one of
/// that length), and its length in characters.
fn longest_listed<'t>(lists: &[&'t List], characters: &[char]) -> Option<(usize, &'t Meanings)> {
    let mut best: Option<(usize, &Meanings)> = None;
    let mut key = String::new();
    for list in lists {
        let longest = list.longest_run_word.min(characters.len());
        let shortest = best.map_or(MIN_RUN_WORD_CHARS, |(length, _)| length + 1);
        for length in (shortest..=longest).rev() {
            key.clear();
            key.extend(&characters[..length]);
            if let Some(meanings) = list.run_words.get(&key) {
                best = Some((length, meanings));
                break;
            }
        }
    }
    best
}

/// For each character, whether it lies in a katakana word that is not made of listed words
/// alone (`モノトリブート`, a tax regime's name, holds `ブート` by chance): a loanword is
/// written as one run of katakana, and a short listed word found inside a longer one that the
/// lists cannot wholly read is most often part of another word. `listed(at, end)` is the length
/// of the longest listed word starting at `at` within the word that ends at `end`.
fn opaque_katakana(
    characters: &[char],
    listed: impl Fn(usize, usize) -> Option<usize>,
) -> Vec<bool> {
    let mut opaque = vec![false; characters.len()];
    let mut at = 0;
    while at < characters.len() {
        if !is_katakana(characters[at]) {
            at += 1;
            continue;
        }
        let end = characters[at..]
            .iter()
            .position(|&c| !is_katakana(c))
            .map_or(characters.len(), |length| at + length);
        let mut read = at;
        while read < end {
            match listed(read, end) {
                Some(length) if length > 0 => read += length,
                _ => break,
            }
        }
        if read < end {
            opaque[at..end].iter_mut().for_each(|flag| *flag = true);
        }
        at = end;
    }
    opaque
}

/// Phrases by their first word: the words after it, and the meanings.
type Phrases = HashMap<String, Vec<(Vec<String>, Meanings)>>;

/// Adds `meaning` to the phrase `first rest…` of `phrases`, once.
fn add_phrase(phrases: &mut Phrases, first: String, rest: Vec<String>, meaning: u32) {
    let listed = phrases.entry(first).or_default();
    match listed.iter_mut().find(|(words, _)| *words == rest) {
        Some((_, meanings)) if meanings.contains(&meaning) => {}
        Some((_, meanings)) => meanings.push(meaning),
        None => listed.push((rest, vec![meaning])),
    }
}

impl List {
    fn add(&mut self, entry: &str, meaning: u32) {
        let add_to = |list: &mut Meanings| {
            if !list.contains(&meaning) {
                list.push(meaning);
            }
        };
        if entry.chars().any(text::is_cjk) {
            let normalized: String = entry.nfkc().collect();
            let mut parts = normalized.split_whitespace().map(str::to_owned);
            if let Some(first) = parts.next() {
                let rest: Vec<String> = parts.collect();
                if !rest.is_empty() && rest.len() < MAX_PHRASE_WORDS {
                    add_phrase(&mut self.spaced, first, rest, meaning);
                }
            }
            let folded: String = normalized.chars().filter(|c| !c.is_whitespace()).collect();
            let length = folded.chars().count();
            if length >= MIN_RUN_WORD_CHARS {
                self.longest_run_word = self.longest_run_word.max(length);
                add_to(self.run_words.entry(folded).or_default());
            }
            return;
        }
        if let Some(stem) = entry.strip_suffix('*') {
            let mut words = folded_words(stem);
            if let (Some(stem), None) = (words.next(), words.next())
                && stem.chars().count() >= MIN_STEM_CHARS
            {
                add_to(self.stems.entry(stem).or_default());
            }
            return;
        }
        let mut words: Vec<String> = folded_words(entry).collect();
        match words.len() {
            0 => {}
            1 => add_to(self.words.entry(words.remove(0)).or_default()),
            count if count <= MAX_PHRASE_WORDS => {
                let first = words.remove(0);
                add_phrase(&mut self.phrases, first, words, meaning);
            }
            _ => {}
        }
    }

    /// German verbs whose particle closes the clause, away from the verb (`Fass den Bericht
    /// zusammen`, `Rechne 3 Cups in Gramm um`): each read as the listed verb the particle makes
    /// with a word before it (`zusammenfassen`, `umrechnen`), the first such word of the clause.
    fn separated_verbs<'t>(&'t self, text: &str, found: &mut Vec<&'t Meanings>) {
        let clauses = text.split(|c: char| {
            matches!(
                c,
                ',' | '.' | ';' | ':' | '!' | '?' | '(' | ')' | '–' | '—' | '"' | '\n'
            )
        });
        for clause in clauses {
            let words: Vec<String> = folded_words(clause).collect();
            for part in words.split(|word| CLAUSE_JOINS.contains(&word.as_str())) {
                let Some((particle, before)) = part.split_last() else {
                    continue;
                };
                if before.is_empty() || !SEPARABLE_PARTICLES.contains(&particle.as_str()) {
                    continue;
                }
                let verb = before
                    .iter()
                    .filter(|word| word.chars().all(char::is_alphabetic))
                    .find_map(|word| self.separated_verb(particle, word));
                found.extend(verb);
            }
        }
    }

    /// The listed verb `particle` makes with `word` (a form of the verb: `rechne`, `fasst`):
    /// the two written together, or with an infinitive's ending for the form's.
    fn separated_verb(&self, particle: &str, word: &str) -> Option<&Meanings> {
        let joined = format!("{particle}{word}");
        let root = joined
            .strip_suffix("st")
            .or_else(|| joined.strip_suffix('t'))
            .or_else(|| joined.strip_suffix('e'))
            .unwrap_or(&joined);
        [
            joined.clone(),
            format!("{joined}n"),
            format!("{joined}en"),
            format!("{root}en"),
            format!("{root}n"),
        ]
        .iter()
        .find_map(|verb| self.word_or_stem_of(verb, MIN_SEPARATED_STEM_CHARS))
    }

    /// Matches the words at the start of `words`; returns how many it used (at least one).
    fn match_words<'t>(
        &'t self,
        words: &[String],
        lexicon: &Lexicon,
        found: &mut Vec<&'t Meanings>,
    ) -> usize {
        let Some(word) = words.first() else {
            return 1;
        };
        if let Some(phrases) = self.phrases.get(word) {
            let longest = phrases
                .iter()
                .filter(|(rest, _)| words.get(1..=rest.len()) == Some(rest.as_slice()))
                .max_by_key(|(rest, _)| rest.len());
            if let Some((rest, meanings)) = longest {
                found.push(meanings);
                return 1 + rest.len();
            }
        }
        if word.chars().next().is_some_and(text::is_cjk) || is_english(word, lexicon) {
            return 1;
        }
        if let Some(meanings) = self.word(word) {
            found.push(meanings);
        } else if let Some((left, right)) = self.compound(word) {
            found.extend([left, right]);
        }
        1
    }

    /// The meanings of `word` listed whole, or of the longest listed stem it starts with.
    fn word(&self, word: &str) -> Option<&Meanings> {
        self.word_or_stem_of(word, MIN_STEM_CHARS)
    }

    /// The meanings of `word` listed whole, or of the longest listed stem of at least
    /// `shortest` characters it starts with.
    fn word_or_stem_of(&self, word: &str, shortest: usize) -> Option<&Meanings> {
        if let Some(meanings) = self.words.get(word) {
            return Some(meanings);
        }
        let ends: Vec<usize> = word
            .char_indices()
            .map(|(at, _)| at)
            .skip(shortest)
            .chain([word.len()])
            .collect();
        ends.into_iter()
            .rev()
            .find_map(|end| self.stems.get(&word[..end]))
    }

    /// `word` as two listed words run together, perhaps with a linking `s`, `es`, `n` or `en`:
    /// the split with the longest first part.
    fn compound(&self, word: &str) -> Option<(&Meanings, &Meanings)> {
        let characters = word.chars().count();
        if characters < MIN_COMPOUND_CHARS {
            return None;
        }
        let splits: Vec<usize> = word
            .char_indices()
            .map(|(at, _)| at)
            .filter(|&at| {
                let before = word[..at].chars().count();
                before >= MIN_PART_CHARS && characters - before >= MIN_PART_CHARS
            })
            .collect();
        for &at in splits.iter().rev() {
            let Some(left) = self.word(&word[..at]) else {
                continue;
            };
            let rest = &word[at..];
            for link in ["", "s", "es", "n", "en"] {
                let Some(right) = rest.strip_prefix(link) else {
                    continue;
                };
                if right.chars().count() < MIN_PART_CHARS {
                    continue;
                }
                if let Some(right) = self.word(right) {
                    return Some((left, right));
                }
            }
        }
        None
    }
}

/// `text`'s words as the search reads them: lower case, accents folded.
fn folded_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text::words(text).map(text::fold_accents)
}

/// Whether English readers know `word`: a stop word, or a word of the concept lexicon.
fn is_english(word: &str, lexicon: &Lexicon) -> bool {
    word.is_ascii() && (text::is_stop_word(word) || lexicon.knows(&text::stem(word)))
}

/// The lines of a shipped list, `key: entry, entry, …`, as each key and its entries (trimmed);
/// blank lines, `#` comment lines and lines without a key are skipped.
pub(crate) fn listed_lines(
    source: &str,
) -> impl Iterator<Item = (&str, impl Iterator<Item = &str>)> {
    source.lines().filter_map(|line| {
        let line = line.trim();
        if line.starts_with('#') {
            return None;
        }
        let (key, entries) = line.split_once(':')?;
        let key = key.trim();
        (!key.is_empty()).then(|| (key, entries.split(',').map(str::trim)))
    })
}

/// The language of Spanish, German and French that `text` is written in, by its little words
/// (one in [`WORDS_PER_LITTLE_WORD`] words at least; the most of them decides); `None` when it
/// has too few of any.
pub(crate) fn written_in(text: &str) -> Option<Language> {
    let words: Vec<String> = folded_words(text).collect();
    let needed = (words.len() / WORDS_PER_LITTLE_WORD).max(1);
    Language::WRITTEN_IN_WORDS
        .into_iter()
        .map(|language| {
            let little = words
                .iter()
                .filter(|word| language.is_little_word(word))
                .count();
            (little, language)
        })
        .filter(|(little, _)| *little >= needed)
        .max_by_key(|(little, _)| *little)
        .map(|(_, language)| language)
}

pub(crate) fn is_hangul(character: char) -> bool {
    matches!(u32::from(character), 0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7FF)
}

pub(crate) fn is_kana(character: char) -> bool {
    matches!(u32::from(character), 0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F)
}

/// Whether `character` is katakana (with its long-vowel mark, not the middle dot `・` that
/// parts words).
pub(crate) fn is_katakana(character: char) -> bool {
    matches!(u32::from(character), 0x30A0..=0x30FA | 0x30FC..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> Translations {
        Translations::parse([
            (
                Language::Chinese,
                "# comment\ncontract: 合同, 契約\nletter: 手紙\nexpand: 展開\n",
            ),
            (
                Language::Japanese,
                "letter: 手紙\nboot: ブート\ncleaning: クリーニング\npassword: パスワード\n\
                 reset: リセット\ndeploy: 展開\n",
            ),
            (
                Language::Korean,
                "meal plan: 식단\nshopping: 장보기\ncard statement: 카드 내역\nnext week: 다음 주\n",
            ),
            (
                Language::Spanish,
                "contract: contrato, contrat*\nrent: alquiler\nreview: revis*\nplan: plan\n",
            ),
            (
                Language::German,
                "user manual: bedienungsanleitung\noperation: bedienung\n\
                 instructions: anleitung\nmanual: handbuch\nsummarize: zusammenfass*\n\
                 convert: umrechnen\n",
            ),
            (Language::French, "password: mot de passe\n"),
        ])
    }

    fn meanings(query: &str) -> Vec<Vec<String>> {
        lists().translate(query, &Lexicon::default()).found
    }

    #[test]
    fn words_written_without_spaces_are_found_inside_a_run() {
        assert_eq!(meanings("帮我看看这份合同里的条款"), [["contract"]]);
        // Particles attached: 식단을 holds 식단.
        assert_eq!(
            meanings("이번 주 식단을 짜고 장보기 목록도"),
            [["meal plan"], ["shopping"]]
        );
        // A single character is never a listed word.
        assert!(meanings("合").is_empty());
    }

    /// Korean is written with spaces between words, which a writer may keep or drop.
    #[test]
    fn chinese_characters_alone_are_read_in_the_language_of_the_text_around_them() {
        assert_eq!(meanings("展開"), [["expand"]]);
        assert_eq!(meanings("新しい版を本番へ。展開、よろしく"), [["deploy"]]);
    }

    #[test]
    fn a_korean_word_listed_with_a_space_is_read_with_or_without_it() {
        // Particles after it and words compounded before it as elsewhere: 내역을, 신용카드.
        for query in [
            "이번 달 카드 내역을 정리해줘",
            "카드내역 정리",
            "내 카드  내역",
            "신용카드 내역",
        ] {
            assert_eq!(meanings(query), [["card statement"]], "{query}");
        }
        // Not with another word between its words.
        assert!(meanings("카드 사용 내역").is_empty());
        // A last word of one syllable is read before a particle, not inside a longer word.
        assert_eq!(meanings("다음 주에 보내줘"), [["next week"]]);
        assert!(meanings("다음 주문을 확인해줘").is_empty());
    }

    #[test]
    fn a_short_loanword_inside_a_longer_unlisted_one_is_not_read() {
        // `ブート` (boot) ends the name of a tax regime by chance.
        assert!(meanings("モノトリブートの登録").is_empty());
        // A longer listed word is read inside an unlisted compound, and a compound of listed
        // words is read whole, word by word.
        assert_eq!(meanings("ハウスクリーニング代"), [["cleaning"]]);
        assert_eq!(meanings("パスワードリセット"), [["password"], ["reset"]]);
        // On its own, before a particle, or apart from its neighbour by `・`, it is read.
        assert_eq!(meanings("ブートが遅い"), [["boot"]]);
        assert_eq!(meanings("モノトリ・ブート"), [["boot"]]);
    }

    #[test]
    fn words_stems_and_phrases_are_matched_folded_in_the_query_s_language() {
        assert_eq!(
            meanings("Revisa este CONTRATO de alquiler"),
            [["review"], ["contract"], ["rent"]]
        );
        assert_eq!(meanings("los contratos"), [["contract"]]);
        assert_eq!(meanings("j'ai oublié mon mot de passe"), [["password"]]);
        // The same meaning twice is kept once.
        assert_eq!(meanings("el contrato y el contrato"), [["contract"]]);
        // Without a little word or a letter of the language, words are English.
        assert!(meanings("contrato alquiler").is_empty());
        assert_eq!(meanings("contrato alquiler ñ"), [["contract"], ["rent"]]);
    }

    #[test]
    fn a_compound_is_split_into_listed_words() {
        // Listed whole.
        assert_eq!(meanings("die Bedienungsanleitung"), [["user manual"]]);
        // Not listed: two listed words with a linking `s`.
        assert_eq!(
            meanings("das Bedienungshandbuch"),
            [["operation"], ["manual"]]
        );
    }

    #[test]
    fn a_german_verb_is_read_with_the_particle_that_closes_its_clause() {
        assert_eq!(
            meanings("Fass mir diesen Bericht auf einer Seite zusammen"),
            [["summarize"]]
        );
        // The first person, the imperative and the third person; the clause ends at `und`.
        for query in [
            "Ich rechne die Zutaten in Gramm um",
            "Rechne 3 Cups Mehl in Gramm um und zeig mir das Ergebnis",
            "Sie rechnet den Preis in Euro um, bitte",
        ] {
            assert_eq!(meanings(query), [["convert"]], "{query}");
        }
        assert_eq!(meanings("Rechne das um"), [["convert"]]);
        // A particle that makes no listed verb with a word before it, and one that does not
        // close its clause, are read as nothing.
        assert!(meanings("Ich komme am Abend mit dem Zug zurück").is_empty());
        assert!(meanings("Wir rechnen um 10 Uhr mit dem Ergebnis").is_empty());
    }

    #[test]
    fn the_little_words_of_the_query_s_language_are_told() {
        let translation = lists().translate("Revisa el contrato de alquiler", &Lexicon::default());
        assert!(translation.is_little("el") && translation.is_little("de"));
        assert!(!translation.is_little("contrato"));
        // English has none.
        let english = lists().translate("review the lease", &Lexicon::default());
        assert!(english.little.is_empty());
    }

    #[test]
    fn english_words_are_not_translated() {
        let lexicon = Lexicon::parse("plan, schedule\n");
        assert!(lists().translate("el plan", &lexicon).found.is_empty());
        assert_eq!(Translation::default().text(), "");
        let translation = lists().translate("식단 y contrato", &lexicon);
        assert_eq!(translation.text(), "meal plan contract");
    }

    #[test]
    fn a_text_in_a_language_is_told_with_its_english_words() {
        let lexicon = Lexicon::parse("dashboard, panel\nspreadsheet, sheet\nmodule, package\n");
        // Spanish words (little or listed) outnumber the English: Spanish, with the English
        // words that say something, in order.
        let translation = lists().translate(
            "Revisa el contrato de alquiler y el dashboard de la spreadsheet",
            &lexicon,
        );
        assert_eq!(translation.language, Some(Language::Spanish));
        assert_eq!(translation.english, ["dashboard", "spreadsheet"]);
        // A name the lexicon does not know is no English word.
        let translation = lists().translate("el contrato de Biwenger", &lexicon);
        assert_eq!(translation.language, Some(Language::Spanish));
        assert!(translation.english.is_empty());
        // One little word among more English ones leaves an English request English.
        for english in [
            "convert the ES module to a package",
            "the dashboard en the sheet",
        ] {
            let translation = lists().translate(english, &lexicon);
            assert_eq!(translation.language, None, "{english}");
            assert!(translation.english.is_empty(), "{english}");
        }
        // Text without spaces has no such language.
        assert_eq!(lists().translate("合同", &lexicon).language, None);
        // The language with the most little words is told.
        let translation = lists().translate("le contrat de la maison et des jardins", &lexicon);
        assert_eq!(translation.language, Some(Language::French));
    }

    #[test]
    fn little_words_are_sorted_and_not_english() {
        for language in Language::WRITTEN_IN_WORDS {
            let words = language.little_words();
            assert!(words.is_sorted(), "{language:?}");
            for word in words {
                assert_eq!(text::fold_accents((*word).to_owned()), *word);
                assert!(!text::is_stop_word(word), "{word} is an English word");
            }
        }
    }

    #[test]
    fn the_shipped_lists_parse_and_know_each_language() {
        let shipped = Translations::shipped();
        let lexicon = Lexicon::shipped();
        for query in [
            "合同",
            "契約書を",
            "계약서를",
            "el contrato",
            "der Vertrag",
            "le contrat",
        ] {
            let found = shipped.translate(query, lexicon).found;
            assert!(
                found
                    .iter()
                    .flatten()
                    .any(|meaning| meaning.contains("contract")),
                "{query}: {found:?}"
            );
        }
    }
}
