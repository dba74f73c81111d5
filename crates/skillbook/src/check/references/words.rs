//! File names in prose: a word of the body such as `FORMS.md` that names a file of the skill
//! only in another case. A model asks for the file as written and gets nothing, yet no link or
//! inline code marks the word, so [`super::scan`] does not see it. Such a word is reported only
//! when the skill's folder holds the file in another case: prose may name files of the user's
//! project, which are no concern of the skill.

use super::{Form, Reference, Target, path_target};

/// The longest file extension read (`.md`, `.py`, `.json`, `.xlsx`).
const MAX_EXTENSION: usize = 5;

/// The words of `line` (number `number`) that read as file names: letters, digits, `_`, `-`
/// and `/`, with a dot and an extension of one to five letters or digits at the end, outside
/// inline code and links (which [`super::scan_inline`] reads). A sentence's closing dot is
/// not part of the word.
pub(super) fn scan_words(line: &str, number: u64, found: &mut Vec<Reference>) {
    let written: Vec<String> = found
        .iter()
        .map(|reference| reference.written.clone())
        .collect();
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    let mut start: Option<(usize, u64)> = None;
    let positions = line.char_indices().chain([(line.len(), ' ')]);
    for (characters, (at, character)) in (0_u64..).zip(positions) {
        if is_word(character) && at < line.len() {
            start.get_or_insert((at, characters));
        } else if let Some((from, column)) = start.take() {
            let word = line[from..at].trim_end_matches('.');
            if reads_as_file_name(word)
                && !written.iter().any(|path| path == word)
                && !inside_code_or_link(line, from)
                && let Some(target @ Target::Inside(_)) = path_target(word)
            {
                found.push(Reference {
                    written: word.to_owned(),
                    target,
                    form: Form::Word,
                    line: number,
                    column: column + 1,
                });
            }
        }
    }
}

/// A name with at least one letter before a dot and an extension of letters or digits.
fn reads_as_file_name(word: &str) -> bool {
    let Some((stem, extension)) = word.rsplit_once('.') else {
        return false;
    };
    let stem = stem.rsplit('/').next().unwrap_or(stem);
    !extension.is_empty()
        && extension.len() <= MAX_EXTENSION
        && extension.chars().all(|c| c.is_ascii_alphanumeric())
        && extension.chars().any(|c| c.is_ascii_alphabetic())
        && stem.chars().any(char::is_alphabetic)
        && !word.starts_with(['/', '.'])
}

/// Whether byte `at` of `line` lies in an inline code span or a link's brackets or
/// destination: counted by the backticks and brackets before it.
fn inside_code_or_link(line: &str, at: usize) -> bool {
    let before = &line[..at];
    let backticks = before.matches('`').count();
    let brackets = before.matches('[').count() > before.matches(']').count();
    let destination = before
        .rfind("](")
        .is_some_and(|open| !before[open..].contains(')'));
    backticks % 2 == 1 || brackets || destination
}
