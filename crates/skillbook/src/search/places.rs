//! Places and peoples: a request that names a country, one of its cities or regions, or its
//! people (`I just moved to Osaka`, `Vivo en Alemania`, `在首尔找房子`) is likely about that
//! country's affairs, and a skill written in the country's language is likely the one meant.
//!
//! The names live in `translations/places.txt`, by language. A skill's language is read from
//! its text: Korean by its Hangul, Japanese by its kana, Chinese by Han characters alone, and
//! Spanish, German or French by their little words, as a query's are.

use std::collections::HashMap;
use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;

use super::text::{self, is_cjk};
use super::translate::{self, Language};

/// Words before which a people's name is a language's (`into French`, `en español`, `cours
/// d'espagnol`, `clase de francés`, `le français`).
const LANGUAGE_PREPOSITIONS: &[&str] = &[
    "aus", "auf", "d", "de", "del", "el", "en", "from", "in", "ins", "into", "l", "le", "to",
    "vers",
];

/// Characters that, after a place written without spaces, make it a language's name (`日本語`,
/// `중국어`, `法语`, `中文`).
const LANGUAGE_SUFFIXES: &[char] = &['語', '语', '文', '어', '말'];

/// The fewest characters of a name written without spaces.
const MIN_RUN_NAME_CHARS: usize = 2;

/// Endings a people's adjective takes (German declension, plurals: `chinesischer`, `koreanisches`,
/// `mexicanas`), tried when a word is not listed as written.
const ENDINGS: &[&str] = &["en", "er", "es", "em", "e", "s"];

/// The fewest letters left once an ending is taken off.
const MIN_STEM_CHARS: usize = 5;

/// A name read as words: its words, the language it points to, and whether it also names a
/// language.
#[derive(Debug)]
struct Phrase {
    rest: Vec<String>,
    language: Language,
    also_a_language: bool,
}

/// The names of places and peoples, by the language they point to.
#[derive(Debug, Default)]
pub(crate) struct Places {
    /// Names read as words, by their first word.
    phrases: HashMap<String, Vec<Phrase>>,
    /// Names written without spaces, and the language of each.
    runs: Vec<(String, Language)>,
    /// Words that are no place even though a name is in them (`hamburger`).
    not_places: Vec<String>,
}

impl Places {
    /// The names shipped with skillbook, parsed on first use.
    pub(crate) fn shipped() -> &'static Places {
        static PLACES: OnceLock<Places> = OnceLock::new();
        PLACES.get_or_init(|| Places::parse(include_str!("translations/places.txt")))
    }

    /// Lines `code: name, name, =name` (`#` starts a comment line); unknown codes are skipped.
    fn parse(source: &str) -> Places {
        let mut places = Places::default();
        for (code, names) in translate::listed_lines(source) {
            if code == "none" {
                // One word each.
                let words = names.map(|name| latin_words(name).concat());
                places.not_places.extend(words);
                continue;
            }
            let Some(language) = Language::of_code(code) else {
                continue;
            };
            for name in names {
                let (also_a_language, name) = match name.strip_prefix('=') {
                    Some(name) => (true, name),
                    None => (false, name),
                };
                let name: String = name.nfkc().collect();
                if name.chars().any(is_cjk) {
                    if name.chars().count() >= MIN_RUN_NAME_CHARS {
                        places.runs.push((name, language));
                    }
                    continue;
                }
                let mut words = latin_words(&name);
                if words.is_empty() {
                    continue;
                }
                let first = words.remove(0);
                places.phrases.entry(first).or_default().push(Phrase {
                    rest: words,
                    language,
                    also_a_language,
                });
            }
        }
        places
    }

    /// The languages of the places and peoples `query` names, each once, in the order named
    /// (in its first [`translate::MAX_QUERY_CHARS`] characters, as a query is translated).
    pub(crate) fn named(&self, query: &str) -> Vec<Language> {
        let query: String = query.nfkc().take(translate::MAX_QUERY_CHARS).collect();
        let mut named = Vec::new();
        let mut add = |language: Language| {
            if !named.contains(&language) {
                named.push(language);
            }
        };
        let words = latin_words(&query);
        for (at, word) in words.iter().enumerate() {
            let Some(phrases) = self.phrases_of(word) else {
                continue;
            };
            let after_preposition = at
                .checked_sub(1)
                .is_some_and(|before| LANGUAGE_PREPOSITIONS.contains(&words[before].as_str()));
            for phrase in phrases {
                let follows = words[at + 1..].starts_with(&phrase.rest);
                if follows && !(phrase.also_a_language && after_preposition) {
                    add(phrase.language);
                }
            }
        }
        if query.chars().any(is_cjk) {
            for (name, language) in &self.runs {
                if names_place(&query, name) {
                    add(*language);
                }
            }
        }
        named
    }

    /// The names beginning with `word`, as written or less one of the [`ENDINGS`].
    fn phrases_of(&self, word: &str) -> Option<&Vec<Phrase>> {
        if self.not_places.iter().any(|not| not == word) {
            return None;
        }
        self.phrases.get(word).or_else(|| {
            ENDINGS.iter().find_map(|ending| {
                let stem = word.strip_suffix(ending)?;
                if stem.chars().count() < MIN_STEM_CHARS {
                    return None;
                }
                self.phrases.get(stem)
            })
        })
    }
}

/// Whether `name` (written without spaces) appears in `query` as a place: not followed by a
/// word for a language, and, written in katakana, not part of a longer katakana word.
fn names_place(query: &str, name: &str) -> bool {
    let katakana = name.chars().all(translate::is_katakana);
    query.match_indices(name).any(|(at, _)| {
        let before = query[..at].chars().next_back();
        let after = query[at + name.len()..].chars().next();
        if after.is_some_and(|next| LANGUAGE_SUFFIXES.contains(&next)) {
            return false;
        }
        !(katakana
            && (before.is_some_and(translate::is_katakana)
                || after.is_some_and(translate::is_katakana)))
    })
}

/// The words of `text` not written in CJK characters, lower case, accents folded.
fn latin_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() || is_cjk(c))
        .filter(|word| !word.is_empty())
        .map(|word| text::fold_accents(word.to_lowercase()))
        .collect()
}

/// The language `text` (a skill's name and description) is written in, when it is one of the
/// languages with a word list: by its script for Korean, Japanese and Chinese (the most of its
/// letters), else by its little words; `None` for English and the rest.
pub(crate) fn language_of(text: &str) -> Option<Language> {
    written_without_spaces_in(text).or_else(|| translate::written_in(text))
}

/// Chinese, Japanese or Korean, when `text` is written in one of them (by the most of its
/// letters, as [`language_of`] reads them).
pub(crate) fn written_without_spaces_in(text: &str) -> Option<Language> {
    let (mut hangul, mut kana, mut han, mut latin) = (0usize, 0usize, 0usize, 0usize);
    for character in text.chars() {
        if translate::is_hangul(character) {
            hangul += 1;
        } else if translate::is_kana(character) {
            kana += 1;
        } else if is_cjk(character) {
            han += 1;
        } else if character.is_alphabetic() {
            latin += 1;
        }
    }
    let cjk = hangul + kana + han;
    if cjk > 0 && cjk >= latin / 4 {
        return Some(if hangul >= kana && hangul * 2 >= han {
            Language::Korean
        } else if kana > 0 {
            Language::Japanese
        } else {
            Language::Chinese
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(query: &str) -> Vec<Language> {
        Places::shipped().named(query)
    }

    #[test]
    fn a_request_naming_a_place_or_people_points_to_its_language() {
        assert_eq!(
            named("I just moved to Osaka, where do I register?"),
            [Language::Japanese]
        );
        assert_eq!(named("Vivo en Alemania desde enero"), [Language::German]);
        assert_eq!(named("在首尔找房子"), [Language::Korean]);
        assert_eq!(named("독일 베를린에서 월세 사는데"), [Language::German]);
        assert_eq!(named("フランス人の友達"), [Language::French]);
        // A name in katakana followed by a particle in hiragana.
        assert_eq!(named("ブエノスアイレスで働いています"), [Language::Spanish]);
        assert_eq!(named("来月ドイツに引っ越す"), [Language::German]);
        assert_eq!(named("Our landlord in Köln"), [Language::German]);
        assert_eq!(named("Mein chinesischer Chef"), [Language::Chinese]);
        assert_eq!(named("ein koreanisches Restaurant"), [Language::Korean]);
        assert_eq!(named("the dealer quoted me 120k yen"), [Language::Japanese]);
        assert_eq!(named("工资是八千人民币"), [Language::Chinese]);
        assert_eq!(named("a trip from Buenos Aires"), [Language::Spanish]);
        // Switzerland speaks German and French, each of its places both; Brussels French.
        assert_eq!(
            named("刚搬到瑞士日内瓦"),
            [Language::German, Language::French]
        );
        assert_eq!(
            named("Umzug nach Zürich im Mai"),
            [Language::German, Language::French]
        );
        assert_eq!(
            named("Je travaille à Lausanne"),
            [Language::German, Language::French]
        );
        assert_eq!(named("I work in Brussels"), [Language::French]);
        assert_eq!(
            named("moving from Mexico City to Paris"),
            [Language::Spanish, Language::French]
        );
    }

    #[test]
    fn a_language_named_as_a_language_is_no_place() {
        assert!(named("translate this into French").is_empty());
        assert!(named("escríbelo en español").is_empty());
        assert!(named("des cartes pour mon vocabulaire d'espagnol").is_empty());
        assert!(named("busco una clase de francés").is_empty());
        assert!(named("j'apprends le japonais").is_empty());
        assert_eq!(named("mi casero español"), [Language::Spanish]);
        assert!(named("日本語に翻訳して").is_empty());
        assert!(named("중국어로 번역해 주세요").is_empty());
        assert!(named("翻译成法语").is_empty());
        assert_eq!(named("my French landlord"), [Language::French]);
        assert_eq!(named("vivo en Francia"), [Language::French]);
    }

    #[test]
    fn a_name_inside_another_word_is_no_place() {
        assert!(named("パリティチェックを追加して").is_empty());
        assert!(named("a chili recipe").is_empty());
        assert!(named("a hamburger for lunch").is_empty());
        assert!(named("nice weather in tours").is_empty());
        // Only the first characters of a huge query are read.
        let far = format!("{} Osaka", "word ".repeat(translate::MAX_QUERY_CHARS));
        assert!(named(&far).is_empty());
    }

    proptest::proptest! {
        /// Any text, in any script and with any marks, is read without failing.
        #[test]
        fn any_text_is_read(text in "\\PC{0,80}|[東京서울パリ語어\u{307}a-zé ]{0,40}") {
            let _ = named(&text);
            let _ = language_of(&text);
        }
    }

    #[test]
    fn a_skill_is_of_the_language_it_is_written_in() {
        assert_eq!(
            language_of("ふるさと納税の寄付上限を計算します"),
            Some(Language::Japanese)
        );
        assert_eq!(
            language_of("전세 계약서의 위험을 확인합니다"),
            Some(Language::Korean)
        );
        assert_eq!(
            language_of("计算住房公积金的提取额度"),
            Some(Language::Chinese)
        );
        assert_eq!(
            language_of("Prüft die Nebenkostenabrechnung und schreibt einen Widerspruch"),
            Some(Language::German)
        );
        assert_eq!(
            language_of("Explique la fiche de paie et les cotisations"),
            Some(Language::French)
        );
        assert_eq!(
            language_of("Redacta la reclamación y revisa los plazos"),
            Some(Language::Spanish)
        );
        assert_eq!(language_of("Review a lease and flag risky clauses"), None);
        assert_eq!(
            language_of("Summarize a PDF; use when the user mentions 要約"),
            None
        );
    }
}
