//! Cutting a window of lines out of a text stream, in memory that does not grow with the file.
//!
//! A line ends at `\n`, `\r\n` or a lone `\r`; a final line without an ending still counts. The
//! content of a window is its lines joined by `\n`, without line numbers and without a trailing
//! line end.

use std::io::{self, BufRead, Read};

/// How many bytes at the start of a file are checked for NUL bytes and UTF-8.
const HEAD_BYTES: u64 = 8 * 1024;

/// The buffer the file is read through.
const BUFFER_BYTES: usize = 64 * 1024;

/// The byte order mark some editors put at the start of UTF-8 files; it is not content.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// The lines wanted and the limits of one read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Window {
    /// The first line, 1-based.
    pub start_line: u64,
    /// The last line, inclusive; `None` for "to the end of the file".
    pub end_line: Option<u64>,
    /// The most characters of content to return.
    pub max_chars: usize,
    /// How many bytes past the window are scanned to learn the total line count.
    pub look_ahead_bytes: u64,
}

/// A window cut out of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Segment {
    pub content: String,
    pub start_line: u64,
    /// The last line returned (possibly cut short); `start_line - 1` when nothing was returned.
    pub end_line: u64,
    pub truncated: bool,
    pub total_lines: Option<u64>,
    pub next_start_line: Option<u64>,
}

/// Why a window could not be cut.
#[derive(Debug, thiserror::Error)]
pub(super) enum SegmentError {
    /// The bytes are not UTF-8 text; the text says why.
    #[error("{0}")]
    NotText(&'static str),
    /// `start_line` lies past the last line.
    #[error("the file has only {total_lines} lines")]
    StartPastEnd { total_lines: u64 },
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Checks the head of `file` for binary content and returns a buffered reader over its text,
/// positioned after any byte order mark.
///
/// # Errors
///
/// [`SegmentError::NotText`] for a NUL byte or invalid UTF-8 in the head; I/O errors.
pub(super) fn text_reader<R: Read>(mut file: R) -> Result<impl BufRead, SegmentError> {
    let mut head = Vec::new();
    file.by_ref().take(HEAD_BYTES).read_to_end(&mut head)?;
    if head.contains(&0) {
        return Err(SegmentError::NotText("it contains NUL bytes (binary data)"));
    }
    if let Err(error) = std::str::from_utf8(&head)
        && error.error_len().is_some()
    {
        return Err(SegmentError::NotText("it is not valid UTF-8 text"));
    }
    let skip = if head.starts_with(BYTE_ORDER_MARK) {
        BYTE_ORDER_MARK.len()
    } else {
        0
    };
    head.drain(..skip);
    Ok(io::BufReader::with_capacity(
        BUFFER_BYTES,
        io::Cursor::new(head).chain(file),
    ))
}

/// Cuts `window` out of `reader`.
///
/// Lines before the window are scanned but not kept; at most `max_chars` characters (and four
/// bytes for each) are held. A line that does not fit after others ends the window before it;
/// a first line longer than `max_chars` is cut at a character boundary.
///
/// # Errors
///
/// [`SegmentError::StartPastEnd`], [`SegmentError::NotText`] for a returned line that is not
/// UTF-8 or holds a NUL, and I/O errors.
pub(super) fn read_segment<R: BufRead>(
    reader: R,
    window: &Window,
) -> Result<Segment, SegmentError> {
    let mut lines = LineScanner::new(reader);
    while lines.count + 1 < window.start_line {
        if lines.next_line(None, u64::MAX)? != Scan::Line {
            return Err(SegmentError::StartPastEnd {
                total_lines: lines.count,
            });
        }
    }
    let mut collector = Collector::new(window);
    let mut kept = Vec::new();
    while window.end_line.is_none_or(|end| collector.end_line < end) {
        let budget = collector.budget();
        kept.clear();
        let cap = budget.unwrap_or(0).saturating_mul(4).saturating_add(4);
        match lines.next_line(Some((&mut kept, cap)), u64::MAX)? {
            Scan::Line => {}
            _ if window.start_line > 1 && collector.is_empty() => {
                return Err(SegmentError::StartPastEnd {
                    total_lines: lines.count,
                });
            }
            _ => break,
        }
        let complete = kept.len() < cap;
        if !collector.push(&kept, complete, budget)? {
            break;
        }
    }
    let at_end = lines.scan_to_end(window.look_ahead_bytes)?;
    Ok(collector.finish(at_end.then_some(lines.count)))
}

/// Builds the content of a window line by line.
struct Collector {
    content: String,
    chars: usize,
    start_line: u64,
    end_line: u64,
    max_chars: usize,
    truncated: bool,
}

impl Collector {
    fn new(window: &Window) -> Self {
        Self {
            content: String::new(),
            chars: 0,
            start_line: window.start_line,
            end_line: window.start_line - 1,
            max_chars: window.max_chars,
            truncated: false,
        }
    }

    fn is_empty(&self) -> bool {
        self.end_line < self.start_line
    }

    /// The characters left for the next line's text, after its separator; `None` when not even
    /// the separator fits.
    fn budget(&self) -> Option<usize> {
        let separator = usize::from(!self.is_empty());
        self.max_chars.checked_sub(self.chars + separator)
    }

    /// Adds the next line. Returns whether to go on with the line after it.
    fn push(
        &mut self,
        bytes: &[u8],
        complete: bool,
        budget: Option<usize>,
    ) -> Result<bool, SegmentError> {
        let text = decode(bytes, complete)?;
        let length = text.chars().count();
        let fits = complete && budget.is_some_and(|budget| length <= budget);
        if !fits && !self.is_empty() {
            self.truncated = true;
            return Ok(false);
        }
        if !self.is_empty() {
            self.content.push('\n');
            self.chars += 1;
        }
        let budget = budget.unwrap_or(0);
        let taken = text
            .char_indices()
            .nth(budget)
            .map_or(text, |(at, _)| &text[..at]);
        self.content.push_str(taken);
        self.chars += length.min(budget);
        self.end_line += 1;
        self.truncated = !fits;
        Ok(fits)
    }

    /// Completes the segment; `total_lines` is known when the end of the file was reached.
    fn finish(self, total_lines: Option<u64>) -> Segment {
        let more = total_lines.is_none_or(|total| self.end_line < total);
        Segment {
            content: self.content,
            start_line: self.start_line,
            end_line: self.end_line,
            truncated: self.truncated,
            total_lines,
            next_start_line: more.then_some(self.end_line + 1),
        }
    }
}

/// Decodes a kept line; an incomplete character at the end of a capped line is dropped.
fn decode(bytes: &[u8], complete: bool) -> Result<&str, SegmentError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) if !complete && error.error_len().is_none() => {
            // The prefix up to `valid_up_to` is valid UTF-8 by definition.
            std::str::from_utf8(&bytes[..error.valid_up_to()])
                .map_err(|_| SegmentError::NotText("it is not valid UTF-8 text"))?
        }
        Err(_) => return Err(SegmentError::NotText("it is not valid UTF-8 text")),
    };
    if text.contains('\0') {
        return Err(SegmentError::NotText("it contains NUL bytes (binary data)"));
    }
    Ok(text)
}

/// What one scan step found.
#[derive(Debug, PartialEq, Eq)]
enum Scan {
    /// A line was consumed.
    Line,
    /// The end of the file; nothing was consumed.
    End,
    /// The byte limit was reached inside a line.
    Limit,
}

/// Splits a byte stream into lines, counting them.
struct LineScanner<R> {
    reader: R,
    /// Lines consumed so far.
    count: u64,
    /// Bytes consumed so far.
    consumed: u64,
}

impl<R: BufRead> LineScanner<R> {
    fn new(reader: R) -> Self {
        Self {
            reader,
            count: 0,
            consumed: 0,
        }
    }

    /// Consumes lines until the end of the file or until `limit` more bytes were scanned.
    /// Returns whether the end of the file was reached.
    fn scan_to_end(&mut self, limit: u64) -> io::Result<bool> {
        let stop = self.consumed.saturating_add(limit);
        loop {
            match self.next_line(None, stop.saturating_sub(self.consumed))? {
                Scan::Line => {}
                Scan::End => return Ok(true),
                Scan::Limit => return Ok(false),
            }
        }
    }

    /// Consumes one line, scanning at most `limit` bytes of it. With `keep = Some((kept, cap))`,
    /// the first `cap` bytes of the line (without its line end) are appended to `kept`.
    fn next_line(
        &mut self,
        mut keep: Option<(&mut Vec<u8>, usize)>,
        limit: u64,
    ) -> io::Result<Scan> {
        let stop = self.consumed.saturating_add(limit);
        let mut started = false;
        loop {
            let available = fill(&mut self.reader)?;
            if available.is_empty() {
                if !started {
                    return Ok(Scan::End);
                }
                self.count += 1;
                return Ok(Scan::Line);
            }
            if self.consumed >= stop {
                return Ok(Scan::Limit);
            }
            started = true;
            let left = usize::try_from(stop - self.consumed).unwrap_or(usize::MAX);
            let window = &available[..available.len().min(left)];
            let line_end = window.iter().position(|byte| matches!(byte, b'\n' | b'\r'));
            let text_length = line_end.unwrap_or(window.len());
            if let Some((kept, cap)) = keep.as_mut() {
                let room = cap.saturating_sub(kept.len()).min(text_length);
                kept.extend_from_slice(&window[..room]);
            }
            let Some(line_end) = line_end else {
                self.advance(text_length);
                continue;
            };
            let carriage_return = window[line_end] == b'\r';
            self.advance(line_end + 1);
            if carriage_return && fill(&mut self.reader)?.first() == Some(&b'\n') {
                self.advance(1);
            }
            self.count += 1;
            return Ok(Scan::Line);
        }
    }

    fn advance(&mut self, bytes: usize) {
        self.reader.consume(bytes);
        self.consumed += bytes as u64;
    }
}

/// The buffered bytes, reading more when the buffer is empty; retries interrupted reads.
fn fill<R: BufRead>(reader: &mut R) -> io::Result<&[u8]> {
    loop {
        match reader.fill_buf() {
            Ok(_) => break,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    reader.fill_buf()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    fn window(start_line: u64, end_line: Option<u64>, max_chars: usize) -> Window {
        Window {
            start_line,
            end_line,
            max_chars,
            look_ahead_bytes: 1024,
        }
    }

    fn cut(text: &str, window: Window) -> Segment {
        let reader = text_reader(text.as_bytes()).unwrap();
        read_segment(reader, &window).unwrap()
    }

    fn segment(content: &str, lines: (u64, u64), truncated: bool, total: Option<u64>) -> Segment {
        Segment {
            content: content.to_owned(),
            start_line: lines.0,
            end_line: lines.1,
            truncated,
            total_lines: total,
            next_start_line: total.map_or(Some(lines.1 + 1), |total| {
                (lines.1 < total).then_some(lines.1 + 1)
            }),
        }
    }

    #[test]
    fn every_line_end_splits_lines() {
        let text = "one\ntwo\r\nthree\rfour";
        assert_eq!(
            cut(text, window(1, None, 100)),
            segment("one\ntwo\nthree\nfour", (1, 4), false, Some(4))
        );
        assert_eq!(
            cut(text, window(2, Some(3), 100)),
            segment("two\nthree", (2, 3), false, Some(4))
        );
    }

    #[test]
    fn a_final_line_end_starts_no_new_line() {
        assert_eq!(
            cut("a\nb\n", window(1, None, 100)),
            segment("a\nb", (1, 2), false, Some(2))
        );
        assert_eq!(
            cut("", window(1, None, 100)),
            segment("", (1, 0), false, Some(0))
        );
        assert_eq!(
            cut("\n", window(1, None, 100)),
            segment("", (1, 1), false, Some(1))
        );
    }

    #[test]
    fn empty_lines_inside_the_range_are_kept() {
        assert_eq!(
            cut("a\n\n\r\n\rb\n", window(1, Some(5), 100)),
            segment("a\n\n\n\nb", (1, 5), false, Some(5))
        );
    }

    #[test]
    fn max_chars_counts_characters_and_stops_before_a_line_that_does_not_fit() {
        // "ééé" is 3 characters and 6 bytes; "ab\nééé" is 6 characters.
        let text = "ab\nééé\nxyz";
        assert_eq!(
            cut(text, window(1, None, 6)),
            segment("ab\nééé", (1, 2), true, Some(3))
        );
        assert_eq!(
            cut(text, window(1, None, 5)),
            segment("ab", (1, 1), true, Some(3))
        );
    }

    #[test]
    fn a_first_line_longer_than_max_chars_is_cut_at_a_character() {
        assert_eq!(
            cut("日本語テキスト\nnext", window(1, None, 3)),
            segment("日本語", (1, 1), true, Some(2))
        );
        assert_eq!(
            cut("🦀🦀🦀", window(1, None, 2)),
            segment("🦀🦀", (1, 1), true, Some(1))
        );
    }

    #[test]
    fn an_exact_fit_is_not_truncated() {
        assert_eq!(
            cut("abc\nde", window(1, None, 6)),
            segment("abc\nde", (1, 2), false, Some(2))
        );
        assert_eq!(
            cut("abc\nde", window(1, Some(1), 3)),
            segment("abc", (1, 1), false, Some(2))
        );
    }

    #[test]
    fn total_lines_is_left_out_beyond_the_look_ahead() {
        let text = format!("first\n{}\nlast", "x".repeat(5000));
        let mut short = window(1, Some(1), 100);
        short.look_ahead_bytes = 100;
        assert_eq!(cut(&text, short), segment("first", (1, 1), false, None));
        short.look_ahead_bytes = 0;
        assert_eq!(cut("a\nb", short), segment("a", (1, 1), false, None));
        assert_eq!(cut("a", short), segment("a", (1, 1), false, Some(1)));
    }

    #[test]
    fn a_start_past_the_end_is_refused() {
        let reader = text_reader(&b"a\nb\n"[..]).unwrap();
        let error = read_segment(reader, &window(3, None, 10)).unwrap_err();
        assert!(matches!(
            error,
            SegmentError::StartPastEnd { total_lines: 2 }
        ));
    }

    #[test]
    fn a_byte_order_mark_is_not_content() {
        assert_eq!(
            cut("\u{feff}a", window(1, None, 10)),
            segment("a", (1, 1), false, Some(1))
        );
    }

    #[test]
    fn binary_and_invalid_utf8_are_not_text() {
        assert!(matches!(
            text_reader(&b"ab\0cd"[..]),
            Err(SegmentError::NotText(_))
        ));
        assert!(matches!(
            text_reader(&b"ab\xffcd"[..]),
            Err(SegmentError::NotText(_))
        ));
        let mut late = vec![b'a'; HEAD_BYTES as usize];
        late.extend_from_slice(b"\nbad\xff\n");
        let reader = text_reader(&late[..]).unwrap();
        let error = read_segment(reader, &window(2, None, 10)).unwrap_err();
        assert!(matches!(error, SegmentError::NotText(_)));
    }

    #[test]
    fn a_character_split_by_the_head_is_still_text() {
        let mut text = vec![b'a'; HEAD_BYTES as usize - 1];
        text.extend_from_slice("é".as_bytes());
        let reader = text_reader(&text[..]).unwrap();
        let segment = read_segment(reader, &window(1, None, 10_000)).unwrap();
        assert!(segment.content.ends_with('é'));
    }
}
