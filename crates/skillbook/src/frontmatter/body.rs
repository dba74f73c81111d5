//! The body fallbacks: the first Markdown heading and the first paragraph, outside code fences.

/// Finds the first ATX heading's text and the first paragraph of a Markdown body.
///
/// Headings and paragraphs inside fenced code blocks (```` ``` ```` or `~~~`) do not count. The
/// paragraph's lines are trimmed and joined with single spaces.
#[cfg(test)]
pub(super) fn first_heading_and_paragraph(body: &str) -> (Option<String>, Option<String>) {
    let mut scan = BodyScan::default();
    for line in body.lines() {
        scan.push(line);
    }
    scan.finish()
}

/// Incremental body reader.
#[derive(Debug, Default)]
pub(super) struct BodyScan {
    fence: Option<(char, usize)>,
    heading: Option<String>,
    paragraph: Vec<String>,
    first_paragraph: Option<String>,
}

impl BodyScan {
    pub(super) fn has_heading(&self) -> bool {
        self.heading.is_some()
    }

    pub(super) fn has_paragraph(&self) -> bool {
        self.first_paragraph.is_some()
    }

    /// Feeds one line without its line end.
    pub(super) fn push(&mut self, line: &str) {
        let trimmed = line.trim();
        if let Some(fence) = fence_marker(trimmed) {
            self.end_paragraph();
            match self.fence {
                None => self.fence = Some(fence),
                Some((marker, length)) if fence.0 == marker && fence.1 >= length => {
                    self.fence = None;
                }
                Some(_) => {}
            }
            return;
        }
        if self.fence.is_some() {
            return;
        }
        if let Some(text) = heading_text(trimmed) {
            self.end_paragraph();
            if self.heading.is_none() && !text.is_empty() {
                self.heading = Some(text.to_owned());
            }
        } else if trimmed.is_empty() || is_thematic_break(trimmed) {
            // A rule (`---`, `***`, `___`) is no text: it ends a paragraph as a blank line does.
            self.end_paragraph();
        } else if self.first_paragraph.is_none() {
            self.paragraph.push(trimmed.to_owned());
        }
    }

    fn end_paragraph(&mut self) {
        if self.first_paragraph.is_none() && !self.paragraph.is_empty() {
            self.first_paragraph = Some(self.paragraph.join(" "));
        }
        self.paragraph.clear();
    }

    pub(super) fn finish(mut self) -> (Option<String>, Option<String>) {
        self.end_paragraph();
        (self.heading, self.first_paragraph)
    }
}

/// A thematic break: three or more `-`, `*` or `_` alone on the line, spaces between allowed.
fn is_thematic_break(trimmed: &str) -> bool {
    let Some(marker) = trimmed
        .chars()
        .next()
        .filter(|c| matches!(c, '-' | '*' | '_'))
    else {
        return false;
    };
    let mut count = 0;
    for character in trimmed.chars() {
        match character {
            ' ' | '\t' => {}
            _ if character == marker => count += 1,
            _ => return false,
        }
    }
    count >= 3
}

/// ```` ``` ```` or `~~~` (three or more) opening a line.
fn fence_marker(trimmed: &str) -> Option<(char, usize)> {
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let length = trimmed.chars().take_while(|c| *c == marker).count();
    (length >= 3).then_some((marker, length))
}

/// The text of an ATX heading (`#` to `######`, then a space or the end of the line).
fn heading_text(trimmed: &str) -> Option<&str> {
    let hashes = trimmed.chars().take_while(|c| *c == '#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let rest = &trimmed[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let text = rest.trim();
    let without_closing = text.trim_end_matches('#');
    if without_closing.is_empty() || without_closing.ends_with([' ', '\t']) {
        Some(without_closing.trim_end())
    } else {
        Some(text)
    }
}
