//! The log on stderr: text lines (or, for `skillbook serve --log-format json`, one JSON object
//! a line) whose field values and messages never hold a raw control character.
//!
//! Folder, file, skill and object-key names reach log lines, and any of them may hold a line
//! break or a terminal escape: written raw, one name could forge a whole line. Every value and
//! every message of a text line therefore passes through [`EscapedFields`], which shows each
//! control character (and each Unicode line separator or bidirectional override) as Rust's
//! `escape_debug` does — `\n`, `\r`, `\u{1b}` — and leaves all other text, accents and scripts
//! included, as it is. It is the subscriber's field formatter, so no call site can forget it.
//! The colours the formatter adds itself (`--color always`) are not field values and stay.
//! JSON logs are escaped by JSON.

use std::fmt::{self, Write as _};
use std::io::IsTerminal;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

use crate::cli;

/// Italic, as the default formatter writes a field's name on a colour terminal.
const ITALIC: &str = "\x1b[3m";
/// Dimmed, as the default formatter writes the `=` after a field's name.
const DIMMED: &str = "\x1b[2m";
/// Back to plain text.
const PLAIN: &str = "\x1b[0m";

/// Logs go to stderr only (stdout carries results, and is the MCP channel). `RUST_LOG` tunes it.
///
/// By default rmcp logs only errors: it warns about every error response it sends, which is the
/// client's business, not the server operator's. `skillbook serve` also logs what an operator
/// follows (start, refusals, shutdown), as text or, with `--log-format json`, one JSON object a
/// line. Colours as `--color` says; by default only on a terminal (MCP clients often write a
/// server's stderr to a log file).
pub(crate) fn init(cli: &cli::Cli) {
    let (default, json) = match &cli.command {
        cli::Command::Serve(args) => ("info,rmcp=error", args.log_format == cli::LogFormat::Json),
        _ => ("warn,rmcp=error", false),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        logs.json().with_ansi(false).init();
    } else {
        logs.fmt_fields(EscapedFields)
            .with_ansi(cli.common.color.enabled(std::io::stderr().is_terminal()))
            .without_time()
            .init();
    }
}

/// The fields of a text log line as the default formatter writes them — the message first,
/// then `name=value` pairs, separated by spaces — with every control character escaped.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct EscapedFields;

impl<'writer> FormatFields<'writer> for EscapedFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = FieldWriter {
            writer,
            empty: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

/// Writes each field it visits, escaped.
struct FieldWriter<'writer> {
    /// Where the fields go; on a colour terminal, names are italic and `=` dimmed.
    writer: Writer<'writer>,
    /// Nothing written yet: no space before the next field.
    empty: bool,
    result: fmt::Result,
}

impl FieldWriter<'_> {
    /// Writes `value` (formatted by `Debug`) after the field's name, unless it is the message.
    fn write(&mut self, field: &Field, value: &dyn fmt::Debug) -> fmt::Result {
        if !self.empty {
            self.writer.write_char(' ')?;
        }
        self.empty = false;
        let name = field.name();
        if name != "message" {
            let name = name.strip_prefix("r#").unwrap_or(name);
            if self.writer.has_ansi_escapes() {
                write!(self.writer, "{ITALIC}{name}{PLAIN}{DIMMED}={PLAIN}")?;
            } else {
                write!(self.writer, "{name}=")?;
            }
        }
        write!(Escaping(&mut self.writer), "{value:?}")
    }
}

impl Visit for FieldWriter<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"));
        } else {
            self.record_debug(field, &value);
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let mut message = value.to_string();
        let mut cause = value.source();
        while let Some(inner) = cause {
            message.push_str(": ");
            message.push_str(&inner.to_string());
            cause = inner.source();
        }
        self.record_debug(field, &format_args!("{message}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.result.is_ok() {
            self.result = self.write(field, value);
        }
    }
}

/// A writer that shows each character [`must_be_escaped`] as an escape.
struct Escaping<'inner, W: fmt::Write>(&'inner mut W);

impl<W: fmt::Write> fmt::Write for Escaping<'_, W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut plain_from = 0;
        for (index, character) in text.char_indices() {
            if must_be_escaped(character) {
                self.0.write_str(&text[plain_from..index])?;
                write!(self.0, "{}", character.escape_debug())?;
                plain_from = index + character.len_utf8();
            }
        }
        self.0.write_str(&text[plain_from..])
    }
}

/// Whether a log line must show `character` as an escape: a control character (C0, DEL, C1),
/// a Unicode line or paragraph separator, or a bidirectional mark, embedding, override or
/// isolate (which would make the line read otherwise than it is written).
fn must_be_escaped(character: char) -> bool {
    character.is_control()
        || matches!(
            character,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex, PoisonError};

    use super::{EscapedFields, Escaping};
    use std::fmt::Write as _;

    /// `text` as a log line shows it.
    fn escaped(text: &str) -> String {
        let mut shown = String::new();
        Escaping(&mut shown).write_str(text).unwrap();
        shown
    }

    #[test]
    fn control_characters_are_escaped_and_other_text_kept() {
        for (text, shown) in [
            ("plain", "plain"),
            ("two\nlines", "two\\nlines"),
            ("carriage\rreturn", "carriage\\rreturn"),
            ("\x1b[31mred", "\\u{1b}[31mred"),
            (
                "tab\there, nul\0, del\x7f, c1\u{9b}",
                "tab\\there, nul\\0, del\\u{7f}, c1\\u{9b}",
            ),
            ("line\u{2028}separator", "line\\u{2028}separator"),
            ("over\u{202e}ride", "over\\u{202e}ride"),
            ("Ünïcödé, 日本語, emoji 🦀", "Ünïcödé, 日本語, emoji 🦀"),
            ("quotes \" ' and \\ stay", "quotes \" ' and \\ stay"),
        ] {
            assert_eq!(escaped(text), shown, "{text:?}");
        }
    }

    /// Everything written to it, for a subscriber's writer.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// What one warning with a forged name writes, with colours or without.
    fn logged(colours: bool) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .fmt_fields(EscapedFields)
            .with_writer(move || writer.clone())
            .with_ansi(colours)
            .without_time()
            .with_target(false)
            .finish();
        let name = "evil\n WARN forged line\r\x1b[2K";
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!("tenant", name = %name);
            let _entered = span.enter();
            tracing::warn!(path = %name, quoted = name, "skill `{name}` is left out");
        });
        let bytes = captured
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_name_with_control_characters_cannot_forge_a_line() {
        let shown = r"evil\n WARN forged line\r\u{1b}[2K";
        assert_eq!(
            logged(false),
            format!(
                " WARN tenant{{name={shown}}}: skill `{shown}` is left out path={shown} \
                 quoted=\"{shown}\"\n"
            )
        );
    }

    #[test]
    fn the_formatters_own_colours_stay() {
        let line = logged(true);
        assert!(line.contains("\x1b[33m WARN\x1b[0m"), "{line:?}");
        assert!(
            line.contains("\x1b[3mpath\x1b[0m\x1b[2m=\x1b[0m"),
            "{line:?}"
        );
        assert!(
            line.contains(r"skill `evil\n WARN forged line\r\u{1b}[2K`"),
            "{line:?}"
        );
        assert_eq!(line.matches('\n').count(), 1, "{line:?}");
        assert!(!line.contains('\r'), "{line:?}");
    }
}
