//! Meaning: a text as a point in a space where texts about the same thing lie close, so that
//! "nebula" finds a skill for planning a night of stargazing that never says "nebula".
//!
//! The model is a table of static vectors, one per word piece of BERT's 30,000-piece uncased
//! English vocabulary (256 signed bytes a piece), shipped in the data-only crate
//! `skillbook-vectors` (feature `meaning`): no network, no download, no runtime beyond a sum. A text is cut into
//! lower-case words, each word into its longest known pieces (`unhandled` → `un`, `##hand`,
//! `##led`); its vector is the sum of its pieces' vectors, normalized, less the direction all
//! texts share. Two texts are as close as the cosine of their vectors.
//!
//! The vectors were distilled from the sentence model all-MiniLM-L6-v2 (Apache-2.0), then fitted
//! so that the sum of a text's pieces lands where the full model puts the text, over WordNet
//! glosses and Debian package summaries: general English and software, nothing of skillbook's
//! evaluation set. `tools/meaning-model/README.md` in the repository tells how to make them
//! again.

use std::collections::HashMap;

use super::text::{fold_accents, is_cjk};

/// Words longer than this (in characters) have no meaning here (as in the vocabulary's own
/// tokenizer).
const MAX_WORD_CHARS: usize = 100;
/// Words beyond this many in one text are not read, known or not: a pasted document is not a
/// query.
const MAX_WORDS: usize = 4_096;

/// The shipped vectors, parsed on first use.
#[derive(Debug)]
pub(crate) struct Model {
    /// A piece that starts a word → its row.
    starts: HashMap<&'static str, u32>,
    /// A piece that continues a word (`##led` without its `##`) → its row.
    continuations: HashMap<&'static str, u32>,
    dimensions: usize,
    /// The direction every text shares, taken away from each text's before comparing.
    shared: Vec<f32>,
    /// Row → the factor turning its bytes into the vector.
    scales: Vec<f32>,
    /// Rows of `dimensions` signed bytes.
    rows: &'static [u8],
    /// The longest piece, in bytes: no longer prefix is looked up.
    longest: usize,
}

/// A text's direction in the model's space: unit length, or empty when no word was known.
pub(crate) type Direction = Vec<f32>;

impl Model {
    /// The model shipped with skillbook; `None` only if its files do not agree (a build defect,
    /// caught by the crate's tests).
    #[cfg(feature = "meaning")]
    pub(crate) fn shipped() -> Option<&'static Model> {
        static MODEL: std::sync::OnceLock<Option<Model>> = std::sync::OnceLock::new();
        MODEL
            .get_or_init(|| Model::parse(skillbook_vectors::PIECES, skillbook_vectors::VECTORS))
            .as_ref()
    }

    /// Without the `meaning` feature no model is built in: search ranks by words alone.
    #[cfg(not(feature = "meaning"))]
    pub(crate) fn shipped() -> Option<&'static Model> {
        None
    }

    /// A model from its piece list (one a line, continuations written `##piece`) and its vector
    /// file: `SKMV`, the row count and the dimensions as little-endian `u32`, the shared
    /// direction as `f32`s, each row's `f32` scale, then the rows as signed bytes.
    #[cfg_attr(not(feature = "meaning"), allow(dead_code))]
    fn parse(pieces: &'static str, vectors: &'static [u8]) -> Option<Model> {
        let header = vectors.get(..12)?;
        if &header[..4] != b"SKMV" {
            return None;
        }
        let word = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
        };
        let (count, dimensions) = (word(4) as usize, word(8) as usize);
        let shared_end = 12 + dimensions.checked_mul(4)?;
        let scales_end = shared_end.checked_add(count.checked_mul(4)?)?;
        let rows = vectors.get(scales_end..)?;
        if dimensions == 0 || rows.len() != count.checked_mul(dimensions)? {
            return None;
        }
        let floats = |bytes: &[u8]| -> Vec<f32> {
            bytes
                .chunks_exact(4)
                .map(|four| f32::from_le_bytes([four[0], four[1], four[2], four[3]]))
                .collect()
        };
        let shared = floats(&vectors[12..shared_end]);
        let scales = floats(&vectors[shared_end..scales_end]);
        let mut starts = HashMap::new();
        let mut continuations = HashMap::new();
        let mut lines = 0;
        let mut longest = 0;
        for (row, piece) in pieces.lines().enumerate() {
            let row = u32::try_from(row).ok()?;
            let key = match piece.strip_prefix("##") {
                Some(rest) if !rest.is_empty() => {
                    continuations.insert(rest, row);
                    rest
                }
                _ => {
                    starts.insert(piece, row);
                    piece
                }
            };
            longest = longest.max(key.len());
            lines += 1;
        }
        (lines == count).then_some(Model {
            starts,
            continuations,
            dimensions,
            shared,
            scales,
            rows,
            longest,
        })
    }

    /// The number of dimensions of a direction.
    pub(crate) fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The direction of `text`, less the direction every text shares; empty when none of its
    /// words (runs of letters or digits) is known.
    pub(crate) fn direction(&self, text: &str) -> Direction {
        let mut sum = vec![0.0_f32; self.dimensions];
        let mut known_word = false;
        let mut row_pieces: Vec<u32> = Vec::new();
        for word in words(text).take(MAX_WORDS) {
            row_pieces.clear();
            if !self.cut(&word, &mut row_pieces) {
                continue;
            }
            known_word |= word.chars().any(char::is_alphanumeric);
            for &row in &row_pieces {
                self.add_row(row, &mut sum);
            }
        }
        if !known_word || !normalize(&mut sum) {
            return Vec::new();
        }
        for (value, shared) in sum.iter_mut().zip(&self.shared) {
            *value -= shared;
        }
        if !normalize(&mut sum) {
            return Vec::new();
        }
        sum
    }

    /// Cuts `word` into its longest known pieces, left to right; false (and nothing kept) when
    /// some part of it is no piece.
    fn cut(&self, word: &str, out: &mut Vec<u32>) -> bool {
        if word.chars().count() > MAX_WORD_CHARS {
            return false;
        }
        let mut rest = word;
        let mut first = true;
        while !rest.is_empty() {
            let table = if first {
                &self.starts
            } else {
                &self.continuations
            };
            let found = (1..=rest.len().min(self.longest))
                .rev()
                .filter(|&end| rest.is_char_boundary(end))
                .find_map(|end| table.get(&rest[..end]).map(|&row| (end, row)));
            let Some((end, row)) = found else {
                out.clear();
                return false;
            };
            out.push(row);
            rest = &rest[end..];
            first = false;
        }
        true
    }

    fn add_row(&self, row: u32, sum: &mut [f32]) {
        let start = row as usize * self.dimensions;
        let Some(bytes) = self.rows.get(start..start + self.dimensions) else {
            return;
        };
        let scale = self.scales.get(row as usize).copied().unwrap_or(0.0);
        for (value, &byte) in sum.iter_mut().zip(bytes) {
            *value += f32::from(byte as i8) * scale;
        }
    }
}

/// Scales `vector` to unit length; false when it has none.
fn normalize(vector: &mut [f32]) -> bool {
    let length = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
    if !(length > f32::EPSILON && length.is_finite()) {
        return false;
    }
    vector.iter_mut().for_each(|value| *value /= length);
    true
}

/// The lower-case words of `text` (runs of letters and digits) without their accents, and each
/// other character that is not a space, on its own: `Don't!` → `don`, `'`, `t`, `!`;
/// `Résumé` → `resume`. Chinese, Japanese and Korean characters are left out: the model's
/// vocabulary is English, and their few pieces in it would pull every text in one script
/// together, so such text is found by its words alone ([`super::text::words`]).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut characters = text
        .chars()
        .map(|character| if is_cjk(character) { ' ' } else { character })
        .flat_map(char::to_lowercase)
        .peekable();
    std::iter::from_fn(move || {
        loop {
            let character = characters.next()?;
            if character.is_alphanumeric() {
                let mut word = String::from(character);
                while let Some(&next) = characters.peek() {
                    if !next.is_alphanumeric() {
                        break;
                    }
                    word.push(next);
                    characters.next();
                }
                // The vocabulary has no accents.
                return Some(fold_accents(word));
            }
            if !character.is_whitespace() {
                return Some(String::from(character));
            }
        }
    })
}

/// The skills' directions, one row of signed bytes per skill with its scale, for a scan that
/// reads `dimensions` bytes a skill.
#[derive(Debug, Clone, Default)]
pub(crate) struct Directions {
    dimensions: usize,
    scales: Vec<f32>,
    rows: Vec<i8>,
}

impl Directions {
    /// The directions of `texts`, in order; a text of no known word gets a zero row.
    pub(crate) fn build(model: &Model, texts: impl Iterator<Item = impl AsRef<str>>) -> Directions {
        let dimensions = model.dimensions();
        let mut directions = Directions {
            dimensions,
            ..Directions::default()
        };
        for text in texts {
            let (bytes, scale) = to_bytes(&model.direction(text.as_ref()));
            directions.scales.push(scale);
            if bytes.is_empty() {
                directions.rows.extend(std::iter::repeat_n(0, dimensions));
            } else {
                directions.rows.extend(bytes);
            }
        }
        directions
    }

    /// The cosine between `direction` and each skill's direction, in skill order; empty when
    /// `direction` is. The query is rounded to signed bytes like the skills, so that the pass
    /// over the skills is integer arithmetic the compiler turns into vector instructions.
    pub(crate) fn cosines(&self, direction: &[f32]) -> Vec<f32> {
        if direction.len() != self.dimensions || self.dimensions == 0 {
            return Vec::new();
        }
        let (query, query_scale) = to_bytes(direction);
        self.rows
            .chunks_exact(self.dimensions)
            .zip(&self.scales)
            .map(|(row, scale)| {
                let dot: i32 = row
                    .iter()
                    .zip(&query)
                    .map(|(&left, &right)| i32::from(left) * i32::from(right))
                    .sum();
                dot as f32 * scale * query_scale
            })
            .collect()
    }
}

/// `vector` as signed bytes and the factor turning them back: each byte is the value divided by
/// `largest / 127`, rounded; a zero vector is all zeros with factor 0.
fn to_bytes(vector: &[f32]) -> (Vec<i8>, f32) {
    let largest = vector
        .iter()
        .fold(0.0_f32, |most, value| most.max(value.abs()));
    if !(largest > 0.0 && largest.is_finite()) {
        return (vec![0; vector.len()], 0.0);
    }
    let scale = largest / 127.0;
    let bytes = vector
        .iter()
        // In range by construction: |value| ≤ largest = 127 · scale.
        .map(|value| (value / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (bytes, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_loads_and_knows_everyday_words() {
        let model = Model::shipped().expect("the shipped vectors match their pieces");
        for word in ["vacation", "holiday", "the", "a"] {
            let mut rows = Vec::new();
            assert!(model.cut(word, &mut rows), "{word}");
            assert_eq!(rows.len(), 1, "{word}");
        }
        assert_eq!(model.direction("vacation").len(), model.dimensions());
    }

    #[test]
    fn words_are_cut_into_their_longest_pieces() {
        let model = Model::shipped().expect("shipped");
        let mut rows = Vec::new();
        assert!(model.cut("unhandled", &mut rows));
        assert!(rows.len() > 1, "{rows:?}");
        rows.clear();
        let long = "a".repeat(MAX_WORD_CHARS + 1);
        assert!(!model.cut(&long, &mut rows) && rows.is_empty());
        assert!(model.direction(&long).is_empty());
        // No prefix longer than the longest piece is looked up.
        assert!(model.longest < 40, "{}", model.longest);
        assert!(model.direction("").is_empty());
        assert!(model.direction(" \t\n").is_empty());
        // Marks alone are no text.
        assert!(model.direction("?!…—()[]").is_empty());
        // Accents are taken off: an accented word means what it means without them.
        assert!(!model.direction("café").is_empty());
        assert_eq!(model.direction("Résumé"), model.direction("resume"));
    }

    #[test]
    fn words_are_lower_case_runs_and_marks_stand_alone() {
        let cut: Vec<String> = words("Don't  STOP-me, 2024!").collect();
        assert_eq!(cut, ["don", "'", "t", "stop", "-", "me", ",", "2024", "!"]);
        let cut: Vec<String> = words("Résumé für Zoë").collect();
        assert_eq!(cut, ["resume", "fur", "zoe"]);
    }

    #[test]
    fn texts_about_the_same_thing_are_closer_than_unrelated_ones() {
        let model = Model::shipped().expect("shipped");
        let cosine = |left: &str, right: &str| -> f32 {
            let (left, right) = (model.direction(left), model.direction(right));
            left.iter().zip(&right).map(|(a, b)| a * b).sum()
        };
        let holiday = "how many vacation days do I have left";
        let leave = "track employee time off and leave balances";
        let pipes = "lay a new water pipe under the garden";
        assert!(cosine(holiday, leave) > cosine(holiday, pipes));
        let rust = "the borrow checker complains about a moved value";
        let rust_skill = "write idiomatic Rust: ownership, lifetimes, cargo and crates";
        let cooking = "plan meals for the week and a shopping list";
        assert!(cosine(rust, rust_skill) > cosine(rust, cooking));
    }

    #[test]
    fn directions_keep_the_cosine_within_a_byte_of_rounding() {
        let model = Model::shipped().expect("shipped");
        let texts = ["send an invoice", "book a flight", ""];
        let directions = Directions::build(model, texts.iter().copied());
        let query = model.direction("bill a client");
        let cosines = directions.cosines(&query);
        assert_eq!(cosines.len(), 3);
        for (text, cosine) in texts.iter().zip(&cosines) {
            let exact: f32 = model
                .direction(text)
                .iter()
                .zip(&query)
                .map(|(a, b)| a * b)
                .sum();
            assert!((exact - cosine).abs() < 0.02, "{text}: {exact} {cosine}");
        }
        assert_eq!(cosines[2], 0.0);
        assert!(cosines[0] > cosines[1]);
        assert!(directions.cosines(&[]).is_empty());
    }
}
