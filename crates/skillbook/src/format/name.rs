//! The `name` rules: length, case, characters, hyphens, and the directory.
//!
//! A name is compared in Unicode normalisation form NFKC (so a name typed on one system matches
//! a folder written by another), counted in characters, and may hold letters and digits of any
//! script, lower case, and single inner hyphens.

use unicode_normalization::UnicodeNormalization;

use super::position::KeyLine;
use super::rules::Findings;
use crate::diagnostic::DiagnosticCode;

/// The most characters a name may have.
pub const MAX_NAME_CHARACTERS: usize = 64;

/// Checks a trimmed, non-empty name against the format and the directory's name.
pub(super) fn check(
    findings: &mut Findings<'_>,
    name: &str,
    key_line: Option<KeyLine<'_>>,
    directory: Option<&str>,
) {
    if is_plain(name) && directory.is_none_or(|directory| directory == name) {
        return;
    }
    let normalized: String = name.nfkc().collect();
    let value_spot = key_line.map(|line| line.value);
    let spot_of =
        |predicate: &dyn Fn(char) -> bool| key_line.map(|line| line.character(name, predicate));
    let suggestion = suggestion(&normalized);
    let length = normalized.chars().count();
    if length > MAX_NAME_CHARACTERS {
        findings.push(
            DiagnosticCode::NameTooLong,
            value_spot,
            format!("the name is {length} characters long; the limit is {MAX_NAME_CHARACTERS}"),
            "shorten it to 64 characters or fewer, and rename the directory to match",
        );
    }
    if normalized != normalized.to_lowercase() {
        findings.push(
            DiagnosticCode::NameNotLowercase,
            spot_of(&|character| !is_lowercase(character)),
            format!("the name `{name}` has upper-case letters; names are lower case"),
            write_as(&suggestion),
        );
    }
    if let Some(character) = normalized.chars().find(|character| !is_allowed(*character)) {
        findings.push(
            DiagnosticCode::NameInvalidCharacter,
            spot_of(&|character| !is_allowed(character)),
            format!(
                "the name `{name}` holds {}; only letters, digits and hyphens are allowed",
                describe(character)
            ),
            write_as(&suggestion),
        );
    }
    check_hyphens(findings, name, &normalized, key_line, &suggestion);
    if let Some(directory) = directory {
        let directory_normalized: String = directory.nfkc().collect();
        if directory_normalized != normalized {
            findings.push(
                DiagnosticCode::NameDirectoryMismatch,
                value_spot,
                format!(
                    "the name `{name}` differs from the skill's directory `{directory}`; clients \
                     expect them to be equal"
                ),
                mismatch_hint(&normalized, &directory_normalized, &suggestion),
            );
        }
    }
}

fn check_hyphens(
    findings: &mut Findings<'_>,
    name: &str,
    normalized: &str,
    key_line: Option<KeyLine<'_>>,
    suggestion: &str,
) {
    let problem = if normalized.starts_with('-') {
        Some(("starts with a hyphen", 0))
    } else if normalized.ends_with('-') {
        Some(("ends with a hyphen", name.chars().count().saturating_sub(1)))
    } else {
        name.find("--")
            .map(|byte| ("holds two hyphens in a row", name[..byte].chars().count()))
            .or_else(|| {
                normalized
                    .contains("--")
                    .then_some(("holds two hyphens in a row", 0))
            })
    };
    let Some((problem, index)) = problem else {
        return;
    };
    let spot = key_line.map(|line| line.at(name, index));
    findings.push(
        DiagnosticCode::NameHyphens,
        spot,
        format!("the name `{name}` {problem}; hyphens may only separate words"),
        write_as(suggestion),
    );
}

/// A valid name in lower-case ASCII (which normalisation leaves as it is): the common case,
/// settled without normalising.
fn is_plain(name: &str) -> bool {
    (1..=MAX_NAME_CHARACTERS).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// How to make the name and the directory agree, keeping whichever of them is a valid name.
fn mismatch_hint(name: &str, directory: &str, suggestion: &str) -> String {
    match (is_valid(name), is_valid(directory)) {
        (true, true) => format!("rename the directory to `{name}`, or write: name: {directory}"),
        (true, false) => format!("rename the directory to `{name}`"),
        (false, true) => format!("write it as: name: {directory}"),
        (false, false) if !suggestion.is_empty() => {
            format!("name both the directory and the skill `{suggestion}`")
        }
        (false, false) => "give the directory and the skill the same valid name".to_owned(),
    }
}

/// Whether an NFKC-normalised name passes every rule but the directory's.
pub(super) fn is_valid(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARACTERS
        && name
            .chars()
            .all(|character| is_allowed(character) && is_lowercase(character))
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// `write it as: name: x`, or a general rule when no usable name can be derived.
fn write_as(suggestion: &str) -> String {
    if suggestion.is_empty() {
        "use lower-case letters, digits and single hyphens".to_owned()
    } else {
        format!("write it as: name: {suggestion}")
    }
}

/// A letter (of any script) or digit, or a hyphen.
fn is_allowed(character: char) -> bool {
    character.is_alphanumeric() || character == '-'
}

fn is_lowercase(character: char) -> bool {
    character.to_lowercase().eq(std::iter::once(character))
}

/// The name made valid: lower case, other characters turned into single hyphens, no hyphen at
/// either end, at most [`MAX_NAME_CHARACTERS`].
pub(super) fn suggestion(name: &str) -> String {
    let lowered: String = name.nfkc().collect::<String>().to_lowercase();
    let mut suggestion = String::with_capacity(lowered.len());
    for character in lowered.chars() {
        if character.is_alphanumeric() {
            suggestion.push(character);
        } else if !suggestion.is_empty() && !suggestion.ends_with('-') {
            suggestion.push('-');
        }
    }
    let suggestion: String = suggestion
        .trim_end_matches('-')
        .chars()
        .take(MAX_NAME_CHARACTERS)
        .collect();
    suggestion.trim_end_matches('-').to_owned()
}

/// How a character is named in a message.
fn describe(character: char) -> String {
    match character {
        ' ' => "a space".to_owned(),
        '\t' => "a tab".to_owned(),
        _ if character.is_control() || character.is_whitespace() => {
            format!("the character U+{:04X}", u32::from(character))
        }
        _ => format!("`{character}`"),
    }
}
