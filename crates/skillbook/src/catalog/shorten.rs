//! Tier 2's descriptions: each cut to the same share of the budget at a sentence or clause
//! boundary, keeping the sentence that says when to use the skill (SPEC §12).

use std::borrow::Cow;

/// How a sentence telling when to use a skill begins (compared without case).
const USE_CLAUSES: [&str; 6] = [
    "use when",
    "use for",
    "use this",
    "use it",
    "use to",
    "used when",
];

/// Abbreviations whose dot ends no sentence (compared without case).
const ABBREVIATIONS: [&str; 9] = [
    "e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "dr", "mr",
];

/// A description as tier 2 shows it, within `share` characters (the `…` included), white space
/// runs made one space: whole when it fits; else its sentences from the first on, as many as
/// fit, with a later sentence that says when to use the skill ("Use when …") kept in preference
/// to the ones before it. When the first sentence and that one do not fit whole, the use
/// sentence is cut at a clause boundary beside the first, or kept alone, in preference to the
/// first, when even that does not fit; a first sentence too long alone is cut at a word
/// boundary and ends with `…`.
pub(super) fn shorten(description: &str, share: usize) -> Cow<'_, str> {
    let text = one_spaced(description.trim());
    if text.chars().count() <= share {
        return text;
    }
    let sentences = sentences(&text);
    // The first sentence says when itself, or a later one does.
    let says_when_at = sentences
        .iter()
        .position(|sentence| says_when(sentence))
        .filter(|&at| at > 0);
    let reserved = says_when_at.map_or(0, |at| sentences[at].chars().count() + 1);
    // Sentences in order while they fit beside the use sentence, which joins in its place.
    let mut kept: Vec<&str> = Vec::new();
    let mut used = 0;
    let mut clause_kept = false;
    for (at, sentence) in sentences.iter().enumerate() {
        if Some(at) == says_when_at {
            kept.push(sentence);
            clause_kept = true;
            continue;
        }
        let cost = sentence.chars().count() + usize::from(!kept.is_empty());
        if used + cost + reserved > share {
            break;
        }
        kept.push(sentence);
        used += cost;
    }
    match says_when_at {
        // Not even the first sentence fits beside the use sentence.
        Some(at) if kept.is_empty() => first_and_clause(sentences[0], sentences[at], share).into(),
        None if kept.is_empty() => first_sentence(sentences[0], share).into_owned().into(),
        Some(at) if !clause_kept => {
            kept.push(sentences[at]);
            Cow::Owned(kept.join(" "))
        }
        _ => Cow::Owned(kept.join(" ")),
    }
}

/// The first sentence and the use sentence `clause` within `share` characters, when both do
/// not fit whole: the clause up to its last `,`, `;`, `:` or dash that leaves room for the `…`
/// beside the first sentence, or else the clause alone (cut at a word boundary if need be).
fn first_and_clause(first: &str, clause: &str, share: usize) -> String {
    let room = share.saturating_sub(first.chars().count() + 1);
    let mut cut = None;
    for (count, (index, c)) in clause.char_indices().enumerate() {
        if count >= room {
            break;
        }
        if matches!(c, ',' | ';' | ':' | '—') && clause[index + c.len_utf8()..].starts_with(' ') {
            cut = Some(index);
        }
    }
    match cut {
        Some(cut) if cut > 0 => format!("{first} {}…", clause[..cut].trim_end()),
        _ => first_sentence(clause, share).into_owned(),
    }
}

/// Whether `sentence` says when to use the skill.
fn says_when(sentence: &str) -> bool {
    let lower = sentence.trim_start().to_lowercase();
    USE_CLAUSES.iter().any(|clause| lower.starts_with(clause))
}

/// `text` with each run of white space made one space.
fn one_spaced(text: &str) -> Cow<'_, str> {
    if text.contains(|c: char| c.is_whitespace() && c != ' ') || text.contains("  ") {
        Cow::Owned(text.split_whitespace().collect::<Vec<_>>().join(" "))
    } else {
        Cow::Borrowed(text)
    }
}

/// The sentences of one-spaced `text`, in order.
fn sentences(text: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = sentence_end(rest);
        sentences.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    sentences
}

/// A description's first sentence (up to a `.`, `!` or `?` followed by white space), white space
/// runs made one space; longer than `limit` characters, it is cut at a word boundary and ends
/// with `…` (within the limit).
pub(super) fn first_sentence(description: &str, limit: usize) -> Cow<'_, str> {
    let text = description.trim();
    let sentence = one_spaced(&text[..sentence_end(text)]);
    if sentence.chars().count() <= limit {
        return sentence;
    }
    // Room for the `…`: cut before the limit's last character, at the last space if any.
    let end = sentence
        .char_indices()
        .nth(limit.saturating_sub(1))
        .map_or(sentence.len(), |(index, _)| index);
    let cut = sentence[..end]
        .rfind(' ')
        .filter(|&space| space > 0)
        .unwrap_or(end);
    let kept = sentence[..cut].trim_end_matches([' ', ',', ';', ':']);
    // Nothing but punctuation before the cut: cut at the limit instead, never to a bare `…`.
    let kept = if kept.is_empty() {
        &sentence[..end]
    } else {
        kept
    };
    Cow::Owned(format!("{kept}…"))
}

/// Where the first sentence of `text` ends (after its `.`, `!` or `?`; a dot after an
/// abbreviation or initials ends none), or its length.
fn sentence_end(text: &str) -> usize {
    text.char_indices()
        .find(|&(index, c)| {
            matches!(c, '.' | '!' | '?')
                && text[index + c.len_utf8()..].starts_with(char::is_whitespace)
                && !(c == '.' && ends_with_abbreviation(&text[..index]))
        })
        .map_or(text.len(), |(index, c)| index + c.len_utf8())
}

/// Whether the word before a dot is an abbreviation rather than a sentence's last word: a known
/// one (`e.g.`, `etc.`), or initials, a single letter after a space or another initial (`U.S.`).
fn ends_with_abbreviation(before_dot: &str) -> bool {
    let word = before_dot
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or(before_dot)
        .trim_start_matches(['(', '"', '\'']);
    if ABBREVIATIONS
        .iter()
        .any(|abbreviation| word.eq_ignore_ascii_case(abbreviation))
    {
        return true;
    }
    // Initials: `U.S`, `A.I`, or one capital letter.
    !word.is_empty()
        && word
            .split('.')
            .all(|part| part.chars().count() == 1 && part.chars().all(char::is_uppercase))
}
