//! Line helpers shared by the front matter and body readers.

/// The line without its line end (`\n`, `\r\n` or a stray trailing `\r`).
pub(super) fn content(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// `---` alone on a line; trailing spaces and tabs are allowed, leading ones are not.
pub(super) fn is_delimiter(content: &str) -> bool {
    content.trim_end_matches([' ', '\t']) == "---"
}

/// The number of leading spaces and tabs.
pub(super) fn indentation(content: &str) -> usize {
    content.len() - content.trim_start_matches([' ', '\t']).len()
}

/// 1-based column, in characters, of byte offset `offset` in `content`.
pub(super) fn column(content: &str, offset: usize) -> u64 {
    let prefix = content.get(..offset).unwrap_or(content);
    prefix.chars().count() as u64 + 1
}
