//! Top-level block scalars: literal (`|`) and folded (`>`), with clip, strip (`-`) or keep
//! (`+`) chomping, their indentation found from their first line.
//!
//! What this reader leaves to the YAML parser: an explicit indentation indicator, a comment
//! on the header line, blank lines before the first line of text, a blank line holding more
//! spaces than the indentation, a folded line that starts with a space (YAML keeps such lines
//! apart), a tab anywhere, an empty block scalar, and one that runs to the end of the text
//! with no line break after its last line.

use std::iter::Peekable;

use super::{Line, printable};

/// How a block scalar ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chomping {
    /// One line break kept (no indicator).
    Clip,
    /// No line break kept (`-`).
    Strip,
    /// Every trailing line break kept (`+`).
    Keep,
}

/// The text of the block scalar whose header is `header` (`|`, `>-`, …), read from the
/// following `lines`; the first line that is not part of it is left in `lines`.
pub(super) fn read<'a>(
    header: &str,
    lines: &mut Peekable<impl Iterator<Item = Line<'a>>>,
) -> Option<String> {
    let mut header = header.chars();
    let folded = match header.next()? {
        '|' => false,
        '>' => true,
        _ => return None,
    };
    let chomping = match header.as_str() {
        "" => Chomping::Clip,
        "-" => Chomping::Strip,
        "+" => Chomping::Keep,
        _ => return None,
    };
    let indent = lines.peek().map(|line| line.indent)?;
    if indent == 0 || lines.peek()?.is_blank() {
        return None;
    }
    let mut text = String::new();
    // Line breaks after the last line of text: blank lines and the last line's own.
    let mut breaks = 0usize;
    while let Some(line) = lines.peek() {
        if !line.is_blank() && line.indent < indent {
            break;
        }
        // The text's last line, with no line break after it (never in a closed front matter):
        // the parser ends the block as if it had one, which is left to the parser.
        if !line.has_break {
            return None;
        }
        if line.is_blank() {
            if line.indent > indent {
                return None;
            }
            breaks += 1;
            lines.next();
            continue;
        }
        let content = &line.content[indent..];
        if !printable(content) || (folded && content.starts_with(' ')) {
            return None;
        }
        if !text.is_empty() {
            join(&mut text, breaks, folded);
        }
        text.push_str(content);
        breaks = 1;
        lines.next();
    }
    chomp(&mut text, breaks, chomping);
    Some(text)
}

/// Adds what stands between two lines of text separated by `breaks` line breaks: as many line
/// breaks, or in a folded scalar a space for a single one and one fewer otherwise.
fn join(text: &mut String, breaks: usize, folded: bool) {
    match (folded, breaks) {
        (true, 1) => text.push(' '),
        (true, _) => text.extend(std::iter::repeat_n('\n', breaks - 1)),
        (false, _) => text.extend(std::iter::repeat_n('\n', breaks)),
    }
}

/// Ends the text with the line breaks its chomping keeps of the `breaks` after its last line.
fn chomp(text: &mut String, breaks: usize, chomping: Chomping) {
    let kept = match chomping {
        Chomping::Strip => 0,
        Chomping::Clip => breaks.min(1),
        Chomping::Keep => breaks,
    };
    text.extend(std::iter::repeat_n('\n', kept));
}
