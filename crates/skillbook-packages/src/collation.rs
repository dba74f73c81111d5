//! The order JavaScript's `String.prototype.localeCompare` gives file paths, which the `skills`
//! npm tool sorts a skill's files by before hashing them.
//!
//! Node resolves `localeCompare` without arguments to ICU's collator for the process's locale:
//! `en-US` under `C`, `POSIX` and every English locale, which is the Unicode root collation
//! (CLDR) at tertiary strength with punctuation not ignored. Compared level by level:
//!
//! 1. Primary, letters without case or accent: whitespace (tab, line feed, …, space), then
//!    punctuation and symbols in CLDR's order (`_ - , ; : ! ? . ' " ( ) [ ] { } @ * / \ & # % `
//!    `` ` `` `^ + < = > | ~ $`), then digits, then letters `a`–`z`. Other control characters
//!    are ignored. So `scripts/x.sh` sorts before `SKILL.md` (`c` < `k`) and `a.md` before
//!    `B.md`, where a byte order says the opposite.
//! 2. Secondary, accents: a letter written with a combining accent (after canonical
//!    decomposition) sorts after the same letter without one.
//! 3. Tertiary, case: at the first place the strings differ in case only, lower case first.
//!
//! Exact for ASCII and for Latin letters with combining accents. Any other character is
//! placed after the letters, by code point (CLDR puts non-ASCII symbols among the punctuation
//! and orders scripts its own way); strings equal at all three levels keep their byte order,
//! where the tool's order depends on its file system listing.

use std::cmp::Ordering;

use unicode_normalization::UnicodeNormalization;

/// Printable ASCII in the primary order of the root collation, upper case left out (a capital
/// letter has its small letter's primary weight).
const ASCII_PRIMARY_ORDER: &str =
    " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";

/// Whitespace control characters, which sort before the space, in this order.
const WHITESPACE_CONTROLS: [char; 5] = ['\t', '\n', '\u{b}', '\u{c}', '\r'];

/// The primary weight of the first character that is not ASCII: after every ASCII weight.
const FIRST_OTHER_PRIMARY: u32 = 0x100;

/// One collation element: weights at three levels; `primary == 0` for an accent.
#[derive(Debug, Clone, Copy)]
struct Element {
    primary: u32,
    secondary: u32,
    tertiary: u8,
}

/// Compares two strings as `a.localeCompare(b)` does in Node under an English or `C` locale,
/// falling back to byte order when they are equal at every level (module docs).
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    let left = elements(a);
    let right = elements(b);
    let primaries = |elements: &[Element]| {
        elements
            .iter()
            .filter(|element| element.primary != 0)
            .map(|element| element.primary)
            .collect::<Vec<_>>()
    };
    primaries(&left)
        .cmp(&primaries(&right))
        .then_with(|| {
            let secondaries = |elements: &[Element]| {
                elements
                    .iter()
                    .map(|element| element.secondary)
                    .collect::<Vec<_>>()
            };
            secondaries(&left).cmp(&secondaries(&right))
        })
        .then_with(|| {
            let tertiaries = |elements: &[Element]| {
                elements
                    .iter()
                    .map(|element| element.tertiary)
                    .collect::<Vec<_>>()
            };
            tertiaries(&left).cmp(&tertiaries(&right))
        })
        .then_with(|| a.cmp(b))
}

/// The collation elements of `text` after canonical decomposition; ignorable characters give
/// none.
fn elements(text: &str) -> Vec<Element> {
    text.nfd().filter_map(element).collect()
}

fn element(character: char) -> Option<Element> {
    const COMMON: u32 = 1;
    let tertiary = u8::from(character.is_uppercase());
    if let Some(index) = WHITESPACE_CONTROLS.iter().position(|&c| c == character) {
        return Some(base(index, COMMON, 0));
    }
    if let Some(index) = ASCII_PRIMARY_ORDER.find(character.to_ascii_lowercase()) {
        return Some(base(WHITESPACE_CONTROLS.len() + index, COMMON, tertiary));
    }
    if character.is_ascii_control() || is_other_control(character) {
        return None;
    }
    if is_combining_mark(character) {
        return Some(Element {
            primary: 0,
            secondary: COMMON + 1 + u32::from(character),
            tertiary: 0,
        });
    }
    Some(Element {
        primary: FIRST_OTHER_PRIMARY + u32::from(character),
        secondary: COMMON,
        tertiary,
    })
}

fn base(index: usize, secondary: u32, tertiary: u8) -> Element {
    Element {
        primary: 1 + u32::try_from(index).unwrap_or(u32::MAX - 1),
        secondary,
        tertiary,
    }
}

/// C1 controls and the format characters the root collation ignores.
fn is_other_control(character: char) -> bool {
    matches!(character, '\u{80}'..='\u{9f}' | '\u{200b}'..='\u{200f}' | '\u{feff}')
}

/// The combining diacritical marks, which canonical decomposition splits off a letter.
fn is_combining_mark(character: char) -> bool {
    matches!(
        character,
        '\u{300}'..='\u{36f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}' | '\u{20d0}'..='\u{20ff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(items: &[&str]) -> Vec<String> {
        let mut items: Vec<String> = items.iter().map(|item| (*item).to_owned()).collect();
        items.sort_by(|a, b| locale_compare(a, b));
        items
    }

    #[test]
    fn letters_before_case_and_punctuation_before_digits() {
        assert_eq!(
            sorted(&[
                "SKILL.md",
                "scripts/x.sh",
                "B.md",
                "a.md",
                "_x",
                "0.md",
                "A.md"
            ]),
            [
                "_x",
                "0.md",
                "a.md",
                "A.md",
                "B.md",
                "scripts/x.sh",
                "SKILL.md"
            ]
        );
    }

    #[test]
    fn case_is_decided_at_the_first_place_it_differs_after_letters() {
        assert_eq!(
            sorted(&["AB", "Ab", "aB", "ab", "a-b", "a_b", "a b"]),
            ["a b", "a_b", "a-b", "ab", "aB", "Ab", "AB"]
        );
    }

    #[test]
    fn an_accent_weighs_less_than_a_letter() {
        assert_eq!(sorted(&["eb", "éa", "ea"]), ["ea", "éa", "eb"]);
        assert_eq!(sorted(&["é", "e\u{301}"]).len(), 2);
    }

    #[test]
    fn other_controls_are_ignored() {
        // Equal at every level (Node says 0): byte order decides.
        assert_eq!(locale_compare("a\u{1}b", "ab"), Ordering::Less);
        assert_eq!(locale_compare("a\u{1}c", "ab"), Ordering::Greater);
        assert_eq!(locale_compare("a\u{1}a", "ab"), Ordering::Less);
        assert_eq!(locale_compare("a\tb", "a b"), Ordering::Less);
    }
}
