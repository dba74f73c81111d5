//! Fuzz-chosen file contents read through the skill reader (`SkillReader::read`), in segments.
//!
//! One skill folder `<tmp>/skills/s` is discovered once; each input rewrites either its
//! `data.md` (an ordinary file) or its own `SKILL.md` (the known-skill case) and reads it with a
//! fuzz-chosen `startLine`, `endLine` and `maxChars`. The reader opens the file again on every
//! read, and discovery recorded the folder's identity, not the file's content, so rewriting the
//! files in place is enough.
//!
//! Properties (each a panic when broken):
//! - no read panics;
//! - a successful read returns at most `maxChars` characters (default `DEFAULT_MAX_CHARS`,
//!   capped at `MAX_CHARS_CEILING`), counted inside the `<skill_instructions>` wrapper, which
//!   a skill's `SKILL.md` and only that gets, together with `skill == Some("s")`;
//! - for a file that is UTF-8 without NUL bytes and whose every line fits in `maxChars`,
//!   following `nextStartLine` from line 1 until it is `None` returns every line exactly once:
//!   the segments joined by `\n` are the file's lines (split at `\n`, `\r\n` or a lone `\r`,
//!   after a leading byte order mark) joined by `\n`, and `totalLines`, when given, is their
//!   number.
#![no_main]

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use skillbook::{DEFAULT_MAX_CHARS, MAX_CHARS_CEILING};
use skillbook::{Discovery, Home, ReadRequest, ReadResult, SkillReader};

const SKILL_MD: &str = "---\nname: s\ndescription: d\n---\n";

/// The most bytes a no-gap walk may scan in all (each segment re-reads the file).
const WALK_BUDGET_BYTES: usize = 8 << 20;

struct Tree {
    _directory: tempfile::TempDir,
    reader: SkillReader,
    skill_file: PathBuf,
    data_file: PathBuf,
    /// The wrapper's first line, when the directory needs no XML escaping.
    header: Option<String>,
}

fn build() -> Tree {
    let directory = tempfile::tempdir().expect("fuzz harness: no temporary directory");
    let top = directory.path().to_path_buf();
    let folder = top.join("skills/s");
    fs::create_dir_all(&folder).expect("fuzz harness: cannot create the skill folder");
    fs::write(folder.join("SKILL.md"), SKILL_MD).expect("fuzz harness: cannot write SKILL.md");
    fs::write(folder.join("data.md"), "").expect("fuzz harness: cannot write data.md");
    let found = Discovery::new(&top)
        .home(Home::Off)
        .namespaces(Vec::<String>::new())
        .extra_root(top.join("skills"))
        .discover();
    let reader = SkillReader::new(&found);
    assert!(
        reader.names().count() == 1 && reader.contains("s"),
        "fuzz harness: discovery found {found:?}"
    );
    let label = folder.display().to_string();
    let header = (!label.contains(['&', '<', '>', '"', '\'']))
        .then(|| format!("<skill_instructions name=\"s\" dir=\"{label}\">\n"));
    Tree {
        reader,
        skill_file: folder.join("SKILL.md"),
        data_file: folder.join("data.md"),
        header,
        _directory: directory,
    }
}

static TREE: OnceLock<Tree> = OnceLock::new();

/// A line number: mostly small, sometimes anything (0 and `u64::MAX` included).
#[derive(Debug, Arbitrary)]
enum Line {
    Small(u8),
    Any(u64),
}

impl Line {
    fn get(&self) -> u64 {
        match *self {
            Line::Small(line) => u64::from(line),
            Line::Any(line) => line,
        }
    }
}

/// A `maxChars`: mostly small, sometimes past the ceiling.
#[derive(Debug, Arbitrary)]
enum Chars {
    Small(u8),
    Medium(u16),
    Any(usize),
}

impl Chars {
    fn get(&self) -> usize {
        match *self {
            Chars::Small(chars) => usize::from(chars),
            Chars::Medium(chars) => usize::from(chars),
            Chars::Any(chars) => chars,
        }
    }
}

#[derive(Debug, Arbitrary)]
struct Input {
    /// Read the skill's own SKILL.md instead of data.md.
    skill_file: bool,
    /// Make the bytes text first (lossy UTF-8, NULs removed), so the no-gap walk runs often.
    as_text: bool,
    /// The bytes are written `1 + repeat % 16` times, to get past the 8 KiB text check and
    /// buffer boundaries.
    repeat: u8,
    start_line: Line,
    end_line: Option<Line>,
    max_chars: Option<Chars>,
    bytes: Vec<u8>,
}

/// The `maxChars` a read applies.
fn effective_max_chars(max_chars: Option<usize>) -> usize {
    max_chars
        .unwrap_or(DEFAULT_MAX_CHARS)
        .min(MAX_CHARS_CEILING)
}

/// The content a read returned, checked for the compaction marker and unwrapped.
fn unwrap_content<'a>(tree: &Tree, result: &'a ReadResult, skill_file: bool) -> &'a str {
    if !skill_file {
        assert_eq!(
            result.skill, None,
            "data.md carries a skill marker: {result:?}"
        );
        return &result.content;
    }
    assert_eq!(
        result.skill.as_deref(),
        Some("s"),
        "SKILL.md without the marker: {result:?}"
    );
    let rest = result
        .content
        .strip_prefix("<skill_instructions name=\"s\" dir=\"")
        .unwrap_or_else(|| panic!("SKILL.md content not wrapped: {:?}", result.content));
    let (label, inner) = rest
        .split_once("\">\n")
        .unwrap_or_else(|| panic!("no end to the wrapper's first line: {:?}", result.content));
    if let Some(header) = &tree.header {
        assert!(
            result.content.starts_with(header.as_str()),
            "wrapper names the directory {label:?}, expected {header:?}"
        );
    }
    inner
        .strip_suffix("\n</skill_instructions>")
        .unwrap_or_else(|| panic!("SKILL.md content not closed: {:?}", result.content))
}

/// Checks what every successful read promises; returns the unwrapped content.
fn check_result<'a>(
    tree: &Tree,
    request: &ReadRequest,
    result: &'a ReadResult,
    skill_file: bool,
) -> &'a str {
    let content = unwrap_content(tree, result, skill_file);
    let limit = effective_max_chars(request.max_chars);
    let chars = content.chars().count();
    assert!(
        chars <= limit,
        "{chars} characters returned, over maxChars {limit}: {request:?} -> {result:?}"
    );
    content
}

/// The lines of a text file as the reader defines them: ended by `\n`, `\r\n` or a lone `\r`; a
/// final line without an ending counts, a final line ending starts no new line; a leading byte
/// order mark is not content.
fn split_lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\n' => {
                lines.push(&text[start..at]);
                at += 1;
                start = at;
            }
            b'\r' => {
                lines.push(&text[start..at]);
                at += 1;
                if bytes.get(at) == Some(&b'\n') {
                    at += 1;
                }
                start = at;
            }
            _ => at += 1,
        }
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Reads the whole file from line 1 by following `nextStartLine`, and compares with its lines.
fn walk(tree: &Tree, path: &PathBuf, skill_file: bool, max_chars: Option<usize>, lines: &[&str]) {
    let mut start = 1;
    let mut segments: Vec<String> = Vec::new();
    loop {
        let mut request = ReadRequest::new(path);
        request.start_line = start;
        request.max_chars = max_chars;
        let result = tree
            .reader
            .read(&request)
            .unwrap_or_else(|error| panic!("walk: {request:?} failed: {error}"));
        let content = check_result(tree, &request, &result, skill_file);
        assert_eq!(result.start_line, start, "walk: {request:?} -> {result:?}");
        if let Some(total) = result.total_lines {
            assert_eq!(
                total,
                lines.len() as u64,
                "walk: wrong totalLines: {request:?} -> {result:?}"
            );
        }
        segments.push(content.to_owned());
        match result.next_start_line {
            None => break,
            Some(next) => {
                assert!(
                    next > start,
                    "walk: nextStartLine does not move on: {request:?} -> {result:?}"
                );
                assert!(
                    segments.len() < lines.len(),
                    "walk: more segments than lines: {request:?} -> {result:?}"
                );
                start = next;
            }
        }
    }
    let read = segments.join("\n");
    let expected = lines.join("\n");
    assert!(
        read == expected,
        "walk with maxChars {max_chars:?} lost or changed text:\n read     {read:?}\n expected {expected:?}\n segments {segments:?}"
    );
}

fuzz_target!(|input: Input| {
    let tree = TREE.get_or_init(build);
    let bytes = if input.as_text {
        String::from_utf8_lossy(&input.bytes)
            .replace('\0', "")
            .into_bytes()
    } else {
        input.bytes
    };
    let file = bytes.repeat(1 + usize::from(input.repeat % 16));
    let path = if input.skill_file {
        &tree.skill_file
    } else {
        &tree.data_file
    };
    if let Err(error) = fs::write(path, &file) {
        panic!("fuzz harness: cannot rewrite {}: {error}", path.display());
    }

    let max_chars = input.max_chars.as_ref().map(Chars::get);
    let mut request = ReadRequest::new(path);
    request.start_line = input.start_line.get();
    request.end_line = input.end_line.as_ref().map(Line::get);
    request.max_chars = max_chars;
    if let Ok(result) = tree.reader.read(&request) {
        check_result(tree, &request, &result, input.skill_file);
    }

    // The no-gap walk, for text whose every line fits in maxChars.
    let Ok(text) = std::str::from_utf8(&file) else {
        return;
    };
    if text.contains('\0') {
        return;
    }
    let max_chars = max_chars.map(|chars| chars.max(1));
    let limit = effective_max_chars(max_chars);
    let lines = split_lines(text);
    if lines.iter().any(|line| line.chars().count() > limit) {
        return;
    }
    if (lines.len() + 1).saturating_mul(file.len() + 1) > WALK_BUDGET_BYTES {
        return;
    }
    walk(tree, path, input.skill_file, max_chars, &lines);
});
