//! Writing results: JSON documents on stdout, diagnostics on stderr in text mode, and errors in
//! the one shape every command shares.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use skillbook::{Diagnostic, Severity};

use crate::cli::Format;

/// How a command ended, beyond "it worked".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1: the command ran and reports a failure.
    Failure,
    /// Exit 2: the command line cannot be carried out (it printed why).
    UsageError,
}

impl Outcome {
    pub(crate) fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Success => ExitCode::SUCCESS,
            Outcome::Failure => ExitCode::FAILURE,
            Outcome::UsageError => ExitCode::from(2),
        }
    }
}

/// Reports an error the way `format` asks, and returns `outcome` for the command to end with.
///
/// Text: `error: MESSAGE` on stderr (control characters escaped). JSON: the one error document
/// every command shares, `{"error": CODE, "message": MESSAGE}`, alone on stdout. `code` is
/// stable and snake_case; scripts match on it.
pub(crate) fn fail(
    format: Format,
    code: &str,
    message: &str,
    outcome: Outcome,
) -> anyhow::Result<Outcome> {
    error(format, code, message)?;
    Ok(outcome)
}

/// Writes an error as [`fail`] does.
pub(crate) fn error(format: Format, code: &str, message: &str) -> anyhow::Result<()> {
    match format {
        Format::Json => json(&ErrorDocument {
            error: code,
            message,
        }),
        Format::Text => Ok(writeln!(
            io::stderr().lock(),
            "error: {}",
            printable(message)
        )?),
    }
}

/// The error document of every command under `--format json` (SPEC §9).
#[derive(Serialize)]
pub(crate) struct ErrorDocument<'a> {
    /// A stable, snake_case code.
    pub(crate) error: &'a str,
    /// What happened and what to do, for a person.
    pub(crate) message: &'a str,
}

/// Standard output, locked, whose write errors say where they happened (`could not write to
/// standard output: No space left on device`), keeping their kind (a reader gone away is still
/// a broken pipe).
pub(crate) fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

/// See [`stdout`].
pub(crate) struct Stdout(io::StdoutLock<'static>);

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(on_stdout)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(on_stdout)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(on_stdout)
    }
}

/// A failed write to standard output.
#[derive(Debug)]
struct StdoutError(io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "could not write to standard output: {}; check where it is redirected (a full disk, \
             a closed file)",
            self.0
        )
    }
}

impl std::error::Error for StdoutError {}

fn on_stdout(error: io::Error) -> io::Error {
    io::Error::new(error.kind(), StdoutError(error))
}

/// Prints `value` as pretty JSON on stdout.
pub(crate) fn json(value: &impl Serialize) -> anyhow::Result<()> {
    // Buffered: stdout alone is line-buffered, and pretty JSON is many short lines.
    let mut stdout = io::BufWriter::with_capacity(64 * 1024, stdout());
    serde_json::to_writer_pretty(&mut stdout, value)?;
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(())
}

/// Writes a JSON object exactly as the pretty printer writes it, a field at a time, so a large
/// field can be written as it is made instead of being built whole first. The object stands at
/// the top of the document (its fields two spaces in).
pub(crate) struct PrettyObject<W> {
    out: W,
    fields: usize,
}

impl<W: Write> PrettyObject<W> {
    pub(crate) fn new(out: W) -> Self {
        PrettyObject { out, fields: 0 }
    }

    /// Writes the field `name` with `value`, pretty-printed.
    pub(crate) fn field(&mut self, name: &str, value: &impl Serialize) -> io::Result<()> {
        self.field_with(name, |out| {
            to_writer_pretty_at(out, 1, value).map_err(io::Error::from)
        })
    }

    /// Writes the field `name`, whose value `write` writes (pretty, two spaces in after each
    /// line break it writes), and returns what `write` returned.
    pub(crate) fn field_with<T>(
        &mut self,
        name: &str,
        write: impl FnOnce(&mut W) -> io::Result<T>,
    ) -> io::Result<T> {
        let separator: &[u8] = if self.fields == 0 { b"{\n  " } else { b",\n  " };
        self.out.write_all(separator)?;
        serde_json::to_writer(&mut self.out, name)?;
        self.out.write_all(b": ")?;
        self.fields += 1;
        write(&mut self.out)
    }

    /// Closes the object and a line, and gives the writer back (not flushed).
    pub(crate) fn end(mut self) -> io::Result<W> {
        let end: &[u8] = if self.fields == 0 { b"{}\n" } else { b"\n}\n" };
        self.out.write_all(end)?;
        Ok(self.out)
    }
}

/// Writes `value` as the pretty printer does (two spaces a level), as if it stood `depth`
/// levels into a larger document: every line after the first starts `depth` levels further in.
pub(crate) fn to_writer_pretty_at(
    out: impl Write,
    depth: usize,
    value: &(impl Serialize + ?Sized),
) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, Nested::at(depth));
    value.serialize(&mut serializer)
}

/// serde_json's pretty formatter, starting `depth` levels in: the same bytes the pretty printer
/// writes for a value at that place in a document.
struct Nested {
    depth: usize,
    has_value: bool,
}

impl Nested {
    fn at(depth: usize) -> Self {
        Nested {
            depth,
            has_value: false,
        }
    }

    fn line(&self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        const SPACES: &[u8] = b"\n                                ";
        let wanted = 1 + 2 * self.depth;
        if wanted <= SPACES.len() {
            return out.write_all(&SPACES[..wanted]);
        }
        out.write_all(b"\n")?;
        (0..self.depth).try_for_each(|_| out.write_all(b"  "))
    }
}

impl Nested {
    /// Opens an array or object: one level in, nothing in it yet.
    fn open(&mut self, out: &mut (impl Write + ?Sized), bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    /// Closes it, on a line of its own when it held anything.
    fn close(&mut self, out: &mut (impl Write + ?Sized), bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(out)?;
        }
        out.write_all(bracket)
    }

    /// Before an element or key: a comma after the one before, then its line.
    fn element(&self, out: &mut (impl Write + ?Sized), first: bool) -> io::Result<()> {
        if !first {
            out.write_all(b",")?;
        }
        self.line(out)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.element(out, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.element(out, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Writes what is written to it as the contents of one JSON string, escaped as serde_json
/// escapes strings, so a long text can be put in a document as it is made. The opening quote
/// goes out with the first bytes, the closing one with [`JsonString::end`].
///
/// Escaping works byte by byte: only ASCII bytes are ever escaped, and no byte of a multi-byte
/// UTF-8 character is ASCII, so a character split between two writes comes out whole.
pub(crate) struct JsonString<W> {
    out: W,
    opened: bool,
}

impl<W: Write> JsonString<W> {
    pub(crate) fn new(out: W) -> Self {
        JsonString { out, opened: false }
    }

    /// Closes the string (`""` when nothing was written).
    pub(crate) fn end(mut self) -> io::Result<()> {
        self.open()?;
        self.out.write_all(b"\"")
    }

    fn open(&mut self) -> io::Result<()> {
        if !self.opened {
            self.out.write_all(b"\"")?;
            self.opened = true;
        }
        Ok(())
    }
}

impl<W: Write> Write for JsonString<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        use serde_json::ser::{CharEscape, CompactFormatter, Formatter};
        self.open()?;
        let mut plain = 0;
        for (at, &byte) in bytes.iter().enumerate() {
            let escape = match byte {
                b'"' => CharEscape::Quote,
                b'\\' => CharEscape::ReverseSolidus,
                b'\x08' => CharEscape::Backspace,
                b'\t' => CharEscape::Tab,
                b'\n' => CharEscape::LineFeed,
                b'\x0c' => CharEscape::FormFeed,
                b'\r' => CharEscape::CarriageReturn,
                0x00..=0x1f => CharEscape::AsciiControl(byte),
                _ => continue,
            };
            self.out.write_all(&bytes[plain..at])?;
            CompactFormatter.write_char_escape(&mut self.out, escape)?;
            plain = at + 1;
        }
        self.out.write_all(&bytes[plain..])?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Leaves a command's last big value to the end of the process instead of freeing it piece by
/// piece (a hundred thousand skills take a noticeable moment to free, and the process is about to
/// exit anyway).
pub(crate) fn leave<T>(value: T) {
    std::mem::forget(value);
}

/// `--quiet`: warnings are not printed on stderr.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Keeps warnings off stderr from now on (`--quiet`); errors are still printed.
pub(crate) fn be_quiet() {
    QUIET.store(true, Ordering::Relaxed);
}

/// Whether `diagnostic` is printed on stderr: errors always, warnings unless `--quiet`.
fn shown(diagnostic: &Diagnostic) -> bool {
    diagnostic.severity == Severity::Error || !QUIET.load(Ordering::Relaxed)
}

/// Prints diagnostics on stderr, one per line (control characters shown as escapes).
pub(crate) fn diagnostics(diagnostics: &[Diagnostic]) {
    let mut stderr = io::BufWriter::new(io::stderr().lock());
    for diagnostic in diagnostics.iter().filter(|diagnostic| shown(diagnostic)) {
        let _ = writeln!(stderr, "{}", printable(&diagnostic.to_string()));
    }
    let _ = stderr.flush();
}

/// Prints one diagnostic on stderr, as [`diagnostics`] does, in one write.
pub(crate) fn diagnostic(diagnostic: &Diagnostic) {
    diagnostic_to(&mut io::stderr().lock(), diagnostic);
}

/// [`diagnostic`], to `stderr` (a buffer in front of it, when many are printed at once).
pub(crate) fn diagnostic_to(stderr: &mut impl Write, diagnostic: &Diagnostic) {
    if !shown(diagnostic) {
        return;
    }
    let mut line = printable(&diagnostic.to_string()).into_owned();
    line.push('\n');
    let _ = stderr.write_all(line.as_bytes());
}

/// `text` for a terminal: every control character but line feed, tab and a carriage return
/// ending a line is shown as an escape (`\u{1b}`), so nothing a skill holds — a name, a
/// description, a folder's name — can move the cursor, retitle the window or ring the bell.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    let unsafe_at = |index: usize, c: char| {
        c.is_control()
            && c != '\n'
            && c != '\t'
            && !(c == '\r' && text[index + 1..].starts_with('\n'))
    };
    if !text.char_indices().any(|(index, c)| unsafe_at(index, c)) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for (index, c) in text.char_indices() {
        if unsafe_at(index, c) {
            shown.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_written_in_pieces_is_escaped_as_serde_json_escapes_it() {
        let mut text: String = (0u8..=0x7f).map(char::from).collect();
        text.push_str("é数\u{2028}\u{fffd}🦀 end");
        for piece in [1, 2, 3, 7, 64, text.len()] {
            let mut bytes = Vec::new();
            let mut string = JsonString::new(&mut bytes);
            for chunk in text.as_bytes().chunks(piece) {
                string.write_all(chunk).unwrap();
            }
            string.end().unwrap();
            assert_eq!(
                String::from_utf8(bytes).unwrap(),
                serde_json::to_string(&text).unwrap()
            );
        }
        let mut empty = Vec::new();
        JsonString::new(&mut empty).end().unwrap();
        assert_eq!(empty, b"\"\"");
    }

    #[test]
    fn an_object_written_a_field_at_a_time_matches_the_pretty_printer() {
        let value = serde_json::json!({
            "text": "a\nb",
            "nothing": null,
            "count": 3,
            "list": [{"x": [1, 2]}, {}],
            "empty": [],
            "flag": false,
        });
        let mut object = PrettyObject::new(Vec::new());
        for (name, field) in value.as_object().unwrap() {
            object.field(name, field).unwrap();
        }
        let written = object.end().unwrap();
        let mut expected = serde_json::to_string_pretty(&value).unwrap();
        expected.push('\n');
        assert_eq!(String::from_utf8(written).unwrap(), expected);
        let empty = PrettyObject::new(Vec::new()).end().unwrap();
        assert_eq!(empty, b"{}\n");
    }

    #[test]
    fn a_value_written_levels_in_matches_the_pretty_printer_there() {
        let value = serde_json::json!({
            "text": "a\nb",
            "list": [{"x": [1, [], {}]}, {}],
            "deeper": [[[[[[[[[[[[[[[[[[["bottom"]]]]]]]]]]]]]]]]]]],
        });
        for depth in [0, 1, 2, 17] {
            let document = (0..depth).fold(value.clone(), |inner, _| serde_json::json!([inner]));
            let expected = serde_json::to_string_pretty(&document).unwrap();
            let mut written: Vec<u8> = (1..=depth)
                .flat_map(|level| format!("[\n{}", "  ".repeat(level)).into_bytes())
                .collect();
            to_writer_pretty_at(&mut written, depth, &value).unwrap();
            for level in (0..depth).rev() {
                written.extend_from_slice(format!("\n{}]", "  ".repeat(level)).as_bytes());
            }
            assert_eq!(
                String::from_utf8(written).unwrap(),
                expected,
                "depth {depth}"
            );
        }
    }
}
