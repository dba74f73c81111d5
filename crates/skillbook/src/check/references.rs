//! Broken references: the files a skill's body points at that are not in the skill's folder.
//!
//! A model that follows `[the form guide](FORMS.md)` asks for `FORMS.md`; when the file is
//! `forms.md`, it gets nothing. This lint reads the body of a `SKILL.md` for the relative paths
//! it refers to and looks each one up beneath a handle on the skill's folder.
//!
//! What counts as a reference, line by line from the start of the body:
//!
//! 1. Nothing inside a fenced code block (```` ``` ```` or `~~~`, at any indentation). Indented
//!    code blocks are read: without a full Markdown parser they cannot be told from the
//!    continuation lines of a list.
//! 2. A link reference definition, `[label]: path` (a footnote, `[^1]: …`, is not one).
//! 3. An inline link or image, `[text](path)` or `![alt](path)`, its destination bare or in
//!    `<…>`, with backslash escapes applied.
//! 4. An inline code span that reads as a relative path: no spaces, no shell or code
//!    punctuation (`( ) { } < > * ? | ; & $ = : @ #`, quotes, …), not a flag (`--x`), not
//!    absolute, and either holding a `/` or ending in a file extension (`references/words.md`,
//!    `scripts/fill.py`).
//!
//! A link is skipped when it is empty, an anchor (`#…`) or a URL (`scheme:…`, `mailto:`,
//! `//host`); otherwise its `?query` and `#fragment` are cut and it is percent-decoded. An
//! absolute link (`/etc/x`, `C:\x`, `\\server\x`, `~/x`) and any reference that climbs out
//! with `..` are `reference_outside_skill`, whether or not they exist. An absolute path in
//! inline code names a file of the machine (`/etc/hosts`, `~/.bashrc`), not of the skill, and is
//! skipped.
//!
//! Inline code may name a file of the user's project rather than the skill's (`src/lib.rs`,
//! `package.json`), so a missing one is reported only when it is clearly meant as the skill's:
//! its first folder is one the format names (`scripts`, `references`, `assets`) or is, give or
//! take a typo, a folder of the skill, or a file of the skill matches it closely enough to be
//! suggested. A link is always meant as the skill's.
//!
//! Each reference is looked up beneath a handle on the skill's folder, never by path: symbolic
//! links inside the folder are followed only while they stay inside it, and one that leads out
//! (or into `.git` or `node_modules`, which are never served) makes the reference
//! `reference_outside_skill`, whether or not its target exists. Nothing is opened or read; a
//! directory that exists is a good reference too. Only when a reference is missing is the
//! folder listed (at most [`MAX_LISTED_ENTRIES`] entries, [`MAX_LISTED_DEPTH`] folders deep,
//! links not followed) to suggest the file meant: the same path in another case, the same file
//! name in another folder, or a near miss.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::path::Path;

use cap_std::fs::Dir;

use crate::boundary::open::{self, EntryKind, Resolve};
use crate::diagnostic::{Diagnostic, DiagnosticCode};

/// The most references looked up in one skill file; the rest are not checked.
const MAX_REFERENCES: usize = 1000;
/// The most entries of a skill's folder listed to suggest a file.
const MAX_LISTED_ENTRIES: usize = 1000;
/// How deep a skill's folder is listed to suggest a file (1: its own entries only).
const MAX_LISTED_DEPTH: usize = 4;
/// The longest inline code span read as a path, in characters.
const MAX_CODE_PATH_CHARACTERS: usize = 255;
/// The folders the format names for a skill's files.
const SKILL_FOLDERS: [&str; 3] = ["scripts", "references", "assets"];
/// Characters that make inline code something other than a path: code, shell, placeholders,
/// globs, URLs and Windows paths.
const NOT_IN_CODE_PATHS: &[char] = &[
    '(', ')', '[', ']', '{', '}', '<', '>', '*', '?', '|', ';', '&', '$', '!', '=', ',', '"', '\'',
    '@', '^', '%', '#', ':', '\\', '+', '~', '`',
];

/// How a reference is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// A link, an image or a link reference definition: always a path of the skill.
    Link,
    /// Inline code that reads as a path, which may be the user's rather than the skill's.
    Code,
    /// A word of prose that reads as a file name ([`words`]): checked only for case.
    Word,
}

/// Where a reference leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// A path inside the skill's folder: its normal components joined by `/` (`.` and `..`
    /// applied).
    Inside(String),
    /// Out of the skill's folder: absolute, or climbing out with `..`.
    Outside,
}

/// One path the body refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Reference {
    /// The path as written in the file (a link without its `?query` and `#fragment`).
    pub(super) written: String,
    /// Where it leads.
    pub(super) target: Target,
    /// How it is written.
    pub(super) form: Form,
    /// 1-based line in the file (front matter included).
    pub(super) line: u64,
    /// 1-based column, in characters, of the path's first character.
    pub(super) column: u64,
}

/// The problems with the references in the body of the skill file `skill_file` (whose text is
/// `text` and whose body starts on line `body_line`), each as a warning for the caller to grade.
/// A folder that cannot be opened is not checked.
pub(super) fn check(skill_file: &Path, text: &str, body_line: u64) -> Vec<Diagnostic> {
    let references = scan(text, body_line);
    if references.is_empty() {
        return Vec::new();
    }
    let folder = match skill_file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let Ok(directory) = open::open_ambient_dir(folder) else {
        return Vec::new();
    };
    let mut folder = Folder {
        directory,
        listing: None,
    };
    references
        .iter()
        .take(MAX_REFERENCES)
        .filter_map(|reference| folder.problem(reference))
        .map(|problem| problem.diagnostic(skill_file))
        .collect()
}

/// Every reference in the body of `text`, which starts on line `body_line`, in file order.
pub(super) fn scan(text: &str, body_line: u64) -> Vec<Reference> {
    let mut references = Vec::new();
    let mut fence: Option<Fence> = None;
    let first = usize::try_from(body_line.saturating_sub(1)).unwrap_or(usize::MAX);
    for (index, line) in text.lines().enumerate().skip(first) {
        let line = if index == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if let Some(open) = fence {
            if open.is_closed_by(line) {
                fence = None;
            }
            continue;
        }
        if let Some(opened) = Fence::opened_by(line) {
            fence = Some(opened);
            continue;
        }
        let number = u64::try_from(index).unwrap_or(u64::MAX).saturating_add(1);
        let mut found = Vec::new();
        if let Some((offset, raw)) = definition(line) {
            found.extend(reference(line, number, offset, raw, Form::Link));
        } else {
            scan_inline(line, number, &mut found);
            words::scan_words(line, number, &mut found);
        }
        // `[`forms.md`](forms.md)` is one reference, not two.
        let links: Vec<Target> = found
            .iter()
            .filter(|reference| reference.form == Form::Link)
            .map(|reference| reference.target.clone())
            .collect();
        found.retain(|reference| {
            reference.form == Form::Link
                || reference.target == Target::Outside
                || !links.contains(&reference.target)
        });
        references.extend(found);
    }
    references
}

/// An open fenced code block: its marker and how many of them opened it.
#[derive(Debug, Clone, Copy)]
struct Fence {
    marker: u8,
    length: usize,
}

impl Fence {
    /// The fence a line opens: three or more backticks (with no backtick after them) or tildes.
    fn opened_by(line: &str) -> Option<Fence> {
        let rest = line.trim_start_matches([' ', '\t']);
        let marker = *rest.as_bytes().first()?;
        if marker != b'`' && marker != b'~' {
            return None;
        }
        let length = rest.bytes().take_while(|byte| *byte == marker).count();
        let info = rest.get(length..).unwrap_or_default();
        if length < 3 || (marker == b'`' && info.contains('`')) {
            return None;
        }
        Some(Fence { marker, length })
    }

    /// Whether `line` closes the fence: at least as many of the same marker, and nothing else.
    fn is_closed_by(self, line: &str) -> bool {
        let rest = line.trim_start_matches([' ', '\t']);
        let length = rest.bytes().take_while(|byte| *byte == self.marker).count();
        length >= self.length && rest.get(length..).unwrap_or_default().trim().is_empty()
    }
}

/// A link reference definition's destination, `[label]: destination "title"`: its byte offset
/// and its text as written.
fn definition(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let label_start = indent + 1;
    if line.get(indent..label_start) != Some("[") || line.get(label_start..)?.starts_with('^') {
        return None;
    }
    let label_end = label_start + unescaped(line.get(label_start..)?, b']')?;
    if line.get(label_start..label_end)?.trim().is_empty() {
        return None;
    }
    let colon = label_end + 1;
    if line.get(colon..=colon) != Some(":") {
        return None;
    }
    let (offset, raw, after) = destination(line, colon + 1)?;
    // A title, or nothing, may follow; anything else makes the line a paragraph.
    match line.get(after..)?.trim_start().bytes().next() {
        None | Some(b'"' | b'\'' | b'(') if !raw.is_empty() => Some((offset, raw)),
        _ => None,
    }
}

/// Finds the inline links, images and code spans of a line.
fn scan_inline(line: &str, number: u64, found: &mut Vec<Reference>) {
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\\' => at += 2,
            b'`' => {
                let run = bytes[at..].iter().take_while(|byte| **byte == b'`').count();
                let content = at + run;
                match closing_run(bytes, content, run) {
                    Some(close) => {
                        if let Some((offset, raw)) = code_content(line, content, close) {
                            found.extend(reference(line, number, offset, raw, Form::Code));
                        }
                        at = close + run;
                    }
                    None => at = content,
                }
            }
            b']' if bytes.get(at + 1) == Some(&b'(') => match inline_destination(line, at + 2) {
                Some((offset, raw, end)) => {
                    found.extend(reference(line, number, offset, raw, Form::Link));
                    at = end;
                }
                None => at += 2,
            },
            _ => at += 1,
        }
    }
}

/// The byte offset of the first run of exactly `run` backticks at or after `from`.
fn closing_run(bytes: &[u8], from: usize, run: usize) -> Option<usize> {
    let mut at = from;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let length = bytes[at..].iter().take_while(|byte| **byte == b'`').count();
            if length == run {
                return Some(at);
            }
            at += length;
        } else {
            at += 1;
        }
    }
    None
}

/// A code span's content between `start` and `end`, trimmed: its byte offset and text.
fn code_content(line: &str, start: usize, end: usize) -> Option<(usize, &str)> {
    let content = line.get(start..end)?;
    let trimmed = content.trim_start();
    let offset = start + (content.len() - trimmed.len());
    Some((offset, trimmed.trim_end()))
}

/// An inline link's destination, after its `(` at `start`: the destination's byte offset, its
/// text as written, and the offset after the closing `)`.
fn inline_destination(line: &str, start: usize) -> Option<(usize, &str, usize)> {
    let (offset, raw, after) = destination(line, start)?;
    let rest = line.get(after..)?;
    let trimmed = rest.trim_start();
    let at = after + (rest.len() - trimmed.len());
    let closer = match trimmed.bytes().next()? {
        b')' => return Some((offset, raw, at + 1)),
        b'"' => b'"',
        b'\'' => b'\'',
        b'(' => b')',
        _ => return None,
    };
    // A title, then the closing parenthesis.
    let title_end = at + 1 + unescaped(line.get(at + 1..)?, closer)?;
    let rest = line.get(title_end + 1..)?;
    let trimmed = rest.trim_start();
    let close = title_end + 1 + (rest.len() - trimmed.len());
    (trimmed.bytes().next() == Some(b')')).then_some((offset, raw, close + 1))
}

/// A link destination starting at `start` after optional spaces: in `<…>`, or bare up to a space
/// or an unbalanced `)`. Its byte offset, its text as written, and the offset after it.
fn destination(line: &str, start: usize) -> Option<(usize, &str, usize)> {
    let rest = line.get(start..)?;
    let start = start + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
    let bytes = line.as_bytes();
    if bytes.get(start) == Some(&b'<') {
        let inner = start + 1;
        let end = inner + unescaped(line.get(inner..)?, b'>')?;
        let raw = line.get(inner..end)?;
        return (!raw.contains('<')).then_some((inner, raw, end + 1));
    }
    let mut depth = 0_usize;
    let mut at = start;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\\' if bytes.get(at + 1).is_some_and(u8::is_ascii_punctuation) => at += 2,
            b' ' | b'\t' => break,
            b'(' => {
                depth += 1;
                at += 1;
            }
            b')' if depth == 0 => break,
            b')' => {
                depth -= 1;
                at += 1;
            }
            byte if byte.is_ascii_control() => return None,
            _ => at += 1,
        }
    }
    Some((start, line.get(start..at)?, at))
}

/// The byte offset in `text` of the first `wanted` not escaped by a backslash.
fn unescaped(text: &str, wanted: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte == b'\\' {
            at += 2;
        } else if byte == wanted {
            return Some(at);
        } else {
            at += 1;
        }
    }
    None
}

/// The reference written as `raw` at byte `offset` of `line`, if it is one.
fn reference(line: &str, number: u64, offset: usize, raw: &str, form: Form) -> Option<Reference> {
    let target = match form {
        Form::Link => link_target(raw)?,
        Form::Code | Form::Word => code_target(raw)?,
    };
    let before = line.get(..offset).unwrap_or(line);
    // Messages name the file, without the link's `?query` or `#fragment`.
    let written = match form {
        Form::Link => raw.split(['?', '#']).next().unwrap_or(raw),
        Form::Code | Form::Word => raw,
    };
    Some(Reference {
        written: written.to_owned(),
        target,
        form,
        line: number,
        column: u64::try_from(before.chars().count()).unwrap_or(u64::MAX) + 1,
    })
}

/// Where a link destination leads, or `None` for one that is not a file of the skill's folder
/// (empty, an anchor, a URL).
fn link_target(raw: &str) -> Option<Target> {
    let text = unescape(raw);
    if text.is_empty() || text.starts_with('#') || text.starts_with("//") {
        return None;
    }
    if is_drive_path(&text) || text.starts_with("\\\\") {
        return Some(Target::Outside);
    }
    if has_scheme(&text) {
        return None;
    }
    let path = text.split(['?', '#']).next().unwrap_or_default();
    let decoded = crate::uri::percent_decode(path)?;
    path_target(&decoded)
}

/// Where inline code leads, or `None` when it does not read as a relative path.
fn code_target(raw: &str) -> Option<Target> {
    if raw.is_empty()
        || raw.chars().count() > MAX_CODE_PATH_CHARACTERS
        || raw.starts_with(['-', '/'])
        || raw
            .chars()
            .any(|character| character.is_whitespace() || NOT_IN_CODE_PATHS.contains(&character))
    {
        return None;
    }
    let named = raw
        .split('/')
        .any(|component| component.chars().any(char::is_alphanumeric));
    let path_like = (raw.contains('/') && named) || has_extension(raw);
    path_like.then(|| path_target(raw)).flatten()
}

/// Whether the last component of `path` ends in a file extension: a dot, then one to eight
/// ASCII letters and digits, at least one a letter (`notes.md`, `.env`; not `1.0` or `e.g.`).
fn has_extension(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((_, extension)) = name.rsplit_once('.') else {
        return false;
    };
    (1..=8).contains(&extension.len())
        && extension.bytes().all(|byte| byte.is_ascii_alphanumeric())
        && extension.bytes().any(|byte| byte.is_ascii_alphabetic())
}

/// Where a decoded relative or absolute path leads, `.` and `..` applied lexically; `None` for
/// the skill's folder itself or a path holding control characters.
fn path_target(path: &str) -> Option<Target> {
    if path.chars().any(char::is_control) {
        return None;
    }
    if path.starts_with(['/', '\\'])
        || path == "~"
        || path.starts_with("~/")
        || path.starts_with("~\\")
        || is_drive_path(path)
    {
        return Some(Target::Outside);
    }
    let mut components: Vec<&str> = Vec::new();
    for component in path.split(['/', '\\']) {
        match component {
            "" | "." => {}
            ".." => {
                if components.pop().is_none() {
                    return Some(Target::Outside);
                }
            }
            name => components.push(name),
        }
    }
    (!components.is_empty()).then(|| Target::Inside(components.join("/")))
}

/// `C:\…` or `C:/…`.
fn is_drive_path(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/')
}

/// Whether `text` starts with a URL scheme and a colon (`https:`, `mailto:`, `data:`).
fn has_scheme(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    scheme.starts_with(|character: char| character.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "+.-".contains(character))
}

/// A link destination with its backslash escapes applied (`\(` is `(`).
fn unescape(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut characters = raw.chars().peekable();
    while let Some(character) = characters.next() {
        if character == '\\'
            && let Some(&next) = characters.peek()
            && next.is_ascii_punctuation()
        {
            text.push(next);
            characters.next();
        } else {
            text.push(character);
        }
    }
    text
}

/// The skill's folder, opened once, and its entries once they are needed.
struct Folder {
    directory: Dir,
    listing: Option<Vec<Entry>>,
}

/// What is wrong with one reference.
struct Problem<'r> {
    reference: &'r Reference,
    kind: ProblemKind,
}

enum ProblemKind {
    /// Nothing is there; the file perhaps meant.
    Missing(Option<String>),
    /// A word of prose names this file of the skill in another case.
    OtherCase(String),
    /// Absolute, or climbing out with `..`.
    Outside,
    /// A symbolic link on the way leads out of the folder.
    LinkOutside,
    /// Inside `.git` or `node_modules`.
    NeverServed,
    /// Too many symbolic links to follow.
    TooManyLinks,
}

impl Folder {
    /// What is wrong with `reference`, if anything.
    fn problem<'r>(&mut self, reference: &'r Reference) -> Option<Problem<'r>> {
        let path = match &reference.target {
            Target::Outside => {
                return Some(Problem {
                    reference,
                    kind: ProblemKind::Outside,
                });
            }
            Target::Inside(path) => path,
        };
        let kind = match open::exists_beneath(&self.directory, Path::new(path)) {
            Ok(true) => return None,
            Ok(false) if reference.form == Form::Word => {
                let lower = path.to_lowercase();
                let entry = self.entries().iter().find(|entry| entry.lower == lower)?;
                ProblemKind::OtherCase(entry.path.clone())
            }
            Err(_) if reference.form == Form::Word => return None,
            Ok(false) => {
                let entries = self.entries();
                let suggestion = suggestion(path, entries);
                if reference.form == Form::Code
                    && suggestion.is_none()
                    && !starts_in_a_skill_folder(path, entries)
                {
                    return None;
                }
                ProblemKind::Missing(suggestion.map(str::to_owned))
            }
            Err(Resolve::Escape)
                if path
                    .split('/')
                    .any(|name| open::is_never_served(OsStr::new(name))) =>
            {
                ProblemKind::NeverServed
            }
            Err(Resolve::Escape) => ProblemKind::LinkOutside,
            Err(Resolve::TooManyLinks) => ProblemKind::TooManyLinks,
        };
        Some(Problem { reference, kind })
    }

    /// The folder's entries, listed on first use.
    fn entries(&mut self) -> &[Entry] {
        self.listing.get_or_insert_with(|| list(&self.directory))
    }
}

impl Problem<'_> {
    fn diagnostic(self, skill_file: &Path) -> Diagnostic {
        let written = &self.reference.written;
        let (code, message, hint) = match self.kind {
            ProblemKind::Missing(suggestion) => (
                DiagnosticCode::BrokenReference,
                format!(
                    "`{written}` is not in the skill's folder; a model that follows it finds \
                     nothing"
                ),
                match suggestion {
                    Some(path) => format!("did you mean `{path}`?"),
                    None => "fix the path, or add the file to the skill's folder".to_owned(),
                },
            ),
            ProblemKind::OtherCase(path) => (
                DiagnosticCode::ReferenceCaseMismatch,
                format!(
                    "`{written}` names `{path}` in another case; a model that asks for \
                     `{written}` finds nothing where file names are case-sensitive"
                ),
                format!("write it as `{path}`"),
            ),
            ProblemKind::Outside => (
                DiagnosticCode::ReferenceOutsideSkill,
                format!(
                    "`{written}` leads outside the skill's folder; a skill is read from its own \
                     folder, so wherever it is installed this path is not part of it"
                ),
                "copy the file into the skill's folder and refer to it by a relative path"
                    .to_owned(),
            ),
            ProblemKind::LinkOutside => (
                DiagnosticCode::ReferenceOutsideSkill,
                format!(
                    "`{written}` goes through a symbolic link that leads outside the skill's \
                     folder; skill readers do not follow it"
                ),
                "put the file itself in the skill's folder instead of a link".to_owned(),
            ),
            ProblemKind::NeverServed => (
                DiagnosticCode::ReferenceOutsideSkill,
                format!(
                    "`{written}` is inside a `.git` or `node_modules` folder, which is never \
                     served from a skill"
                ),
                "move the file to another folder of the skill".to_owned(),
            ),
            ProblemKind::TooManyLinks => (
                DiagnosticCode::BrokenReference,
                format!("`{written}` goes through too many symbolic links to be read"),
                "replace the links with the file itself".to_owned(),
            ),
        };
        Diagnostic::warning(code, skill_file, message)
            .at(self.reference.line, self.reference.column)
            .with_hint(hint)
    }
}

/// A file or folder of a skill: its path from the skill's folder (`/`-separated), the same in
/// lower case, and whether it is a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: String,
    lower: String,
    folder: bool,
}

impl Entry {
    fn new(path: String, folder: bool) -> Self {
        let lower = path.to_lowercase();
        Entry {
            path,
            lower,
            folder,
        }
    }
}

/// The entries of the skill's folder, breadth first and sorted within each folder, without
/// symbolic links, `.git`, `node_modules`, or names that are not UTF-8; at most
/// [`MAX_LISTED_ENTRIES`], [`MAX_LISTED_DEPTH`] folders deep.
fn list(directory: &Dir) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut pending = VecDeque::from([(String::new(), 1)]);
    while let Some((folder, depth)) = pending.pop_front() {
        let handle = if folder.is_empty() {
            directory.try_clone()
        } else {
            open::open_dir_path(directory, Path::new(&folder))
        };
        let Ok((mut names, _)) = handle.and_then(|handle| open::list_entries(&handle)) else {
            continue;
        };
        names.sort_by(|left, right| left.name.cmp(&right.name));
        for open::Entry { name, kind, .. } in names {
            if entries.len() >= MAX_LISTED_ENTRIES {
                return entries;
            }
            if kind == EntryKind::Link || open::is_never_served(&name) {
                continue;
            }
            let Some(name) = name.to_str() else {
                continue;
            };
            let path = if folder.is_empty() {
                name.to_owned()
            } else {
                format!("{folder}/{name}")
            };
            let is_folder = kind == EntryKind::Directory;
            if is_folder && depth < MAX_LISTED_DEPTH {
                pending.push_back((path.clone(), depth + 1));
            }
            entries.push(Entry::new(path, is_folder));
        }
    }
    entries
}

/// The entry `target` most likely meant: the same path in another case, else the only entry
/// with the same file name in another folder, else the nearest near miss.
fn suggestion<'e>(target: &str, entries: &'e [Entry]) -> Option<&'e str> {
    let lower = target.to_lowercase();
    if let Some(entry) = entries.iter().find(|entry| entry.lower == lower) {
        return Some(&entry.path);
    }
    let name = file_name(&lower);
    let mut same_name = entries
        .iter()
        .filter(|entry| file_name(&entry.lower) == name);
    if let (Some(only), None) = (same_name.next(), same_name.next()) {
        return Some(&only.path);
    }
    entries
        .iter()
        .filter_map(|entry| Some((near_miss(&lower, &entry.lower)?, entry)))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, entry)| entry.path.as_str())
}

/// Whether `target` starts in a folder meant for the skill's files: one the format names, or
/// one of the skill's own top-level entries give or take a typo.
fn starts_in_a_skill_folder(target: &str, entries: &[Entry]) -> bool {
    let Some((first, _)) = target.split_once('/') else {
        return false;
    };
    let first = first.to_lowercase();
    SKILL_FOLDERS.contains(&first.as_str())
        || entries.iter().any(|entry| {
            entry.folder && !entry.lower.contains('/') && near_miss(&first, &entry.lower).is_some()
        })
}

/// The last component of a `/`-separated path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How many typos (edits or swaps of neighbours) `candidate` is from `wanted`, when few enough
/// for a name as long as `wanted` to be a near miss: none up to 3 characters, one up to 10, two
/// beyond.
fn near_miss(wanted: &str, candidate: &str) -> Option<usize> {
    let length = wanted.chars().count();
    let allowed = match length {
        0..=3 => 0,
        4..=10 => 1,
        _ => 2,
    };
    // Every character of difference in length is a typo: skip the comparison when too many.
    if candidate.chars().count().abs_diff(length) > allowed {
        return None;
    }
    let distance = strsim::osa_distance(wanted, candidate);
    (distance <= allowed).then_some(distance)
}

mod words;

#[cfg(test)]
mod tests;
