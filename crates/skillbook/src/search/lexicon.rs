//! The concept lexicon: groups of words a person may use for the same task or thing
//! (`slides, deck, presentation, pptx, powerpoint, …`), so that a request in everyday words finds
//! a skill described in trade words and the other way round.
//!
//! The groups live in `lexicon.txt`, one group a line. They were written once as general
//! knowledge of each field the skills cover (documents, software, data, science, security,
//! design, writing, money, operations, law, teaching, people at work, media, everyday life):
//! everyday words, trade words, file formats and the best-known products of the field. They are
//! not derived from the evaluation queries' misses (`tests/search_eval`), whose file is frozen
//! by hash.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::text;

/// The groups, stemmed: a stem → the other stems of every group holding it.
#[derive(Debug, Default)]
pub(crate) struct Lexicon {
    related: HashMap<String, Vec<String>>,
}

impl Lexicon {
    /// The lexicon shipped with skillbook, parsed on first use.
    pub(crate) fn shipped() -> &'static Lexicon {
        static LEXICON: OnceLock<Lexicon> = OnceLock::new();
        LEXICON.get_or_init(|| Lexicon::parse(include_str!("lexicon.txt")))
    }

    /// A lexicon from lines of comma-separated words; `#` starts a comment line.
    pub(crate) fn parse(source: &str) -> Lexicon {
        let mut related: HashMap<String, HashSet<String>> = HashMap::new();
        for line in source.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let group: HashSet<String> = line
                .split(',')
                .flat_map(|word| text::terms(word.trim()))
                .collect();
            for stem in &group {
                let others = related.entry(stem.clone()).or_default();
                others.extend(group.iter().filter(|other| *other != stem).cloned());
            }
        }
        let related = related
            .into_iter()
            .map(|(stem, others)| {
                let mut others: Vec<String> = others.into_iter().collect();
                others.sort_unstable();
                (stem, others)
            })
            .collect();
        Lexicon { related }
    }

    /// The stems related to `stem`, in a stable order; empty when the lexicon does not know it.
    pub(crate) fn related(&self, stem: &str) -> &[String] {
        self.related.get(stem).map_or(&[], Vec::as_slice)
    }

    /// Whether the lexicon knows `stem` (it is an English word of some field, not a typo).
    pub(crate) fn knows(&self, stem: &str) -> bool {
        self.related.contains_key(stem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_relate_every_word_to_the_others_by_stem() {
        let lexicon = Lexicon::parse("# comment\nslides, deck, presentation\n\ndeck, cards\n");
        assert_eq!(lexicon.related("deck"), ["card", "present", "slide"]);
        assert_eq!(lexicon.related("slide"), ["deck", "present"]);
        assert!(lexicon.related("comment").is_empty());
        assert!(lexicon.knows("card") && !lexicon.knows("cardz"));
    }

    #[test]
    fn the_shipped_lexicon_parses() {
        let lexicon = Lexicon::shipped();
        assert!(
            lexicon
                .related("spreadsheet")
                .iter()
                .any(|stem| stem == "xlsx")
        );
        assert!(lexicon.related("slide").iter().any(|stem| stem == "pptx"));
    }
}
