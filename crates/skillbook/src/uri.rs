//! The `skill://` URIs of skills and their files: one encoding rule for the runtime, the
//! sources and the MCP server.
//!
//! A skill named `pdf` is served at `skill://pdf/SKILL.md`; each of its files at
//! `skill://pdf/<path relative to the skill directory>`, with `/` between segments; its
//! directories at `skill://pdf/<path>` without a trailing slash (`skill://pdf` for the skill
//! directory itself). Every segment is percent-encoded except the unreserved characters
//! `A–Z a–z 0–9 - . _ ~`, so a file name holding a space, `%`, `?`, `#` or a backslash stays one
//! segment.
//!
//! ```
//! use skillbook::uri::{self, SkillUri};
//!
//! assert_eq!(uri::skill_file("pdf"), "skill://pdf/SKILL.md");
//! assert_eq!(uri::resource("my notes", "refs/a b.md"), "skill://my%20notes/refs/a%20b.md");
//! let parsed = SkillUri::parse("skill://my%20notes/refs/a%20b.md")?;
//! assert_eq!((parsed.name.as_str(), parsed.relative.as_str()), ("my notes", "refs/a b.md"));
//! # Ok::<(), skillbook::uri::UriError>(())
//! ```
//!
//! Incoming URIs are parsed strictly: the scheme must be `skill://`; a query, a fragment, an empty
//! segment inside the path, a malformed escape, a segment that decodes to `.`, `..` or holds `/`
//! or a NUL byte are refused. Nothing is resolved: a parsed URI only names a file when it equals
//! a file of the skill's index.

use std::fmt;

/// The scheme every served URI starts with.
pub const SCHEME: &str = "skill://";

/// The segment of every skill's instructions, whatever the file is called on disk.
pub const SKILL_FILE: &str = "SKILL.md";

/// `skill://<name>`, a skill's directory.
#[must_use]
pub fn directory(name: &str) -> String {
    resource(name, "")
}

/// `skill://<name>/SKILL.md`.
#[must_use]
pub fn skill_file(name: &str) -> String {
    resource(name, SKILL_FILE)
}

/// `skill://<name>/<relative>`, or `skill://<name>` for the skill directory itself.
///
/// `relative` is a `/`-separated path of file names.
#[must_use]
pub fn resource(name: &str, relative: &str) -> String {
    let mut uri = String::from(SCHEME);
    encode_into(&mut uri, name);
    for segment in relative.split('/').filter(|segment| !segment.is_empty()) {
        uri.push('/');
        encode_into(&mut uri, segment);
    }
    uri
}

/// Appends `segment` with every byte but the unreserved characters of RFC 3986 (letters, digits,
/// `-`, `.`, `_`, `~`) written as `%XX`.
fn encode_into(uri: &mut String, segment: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in segment.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            uri.push(char::from(byte));
        } else {
            uri.push('%');
            uri.push(char::from(HEX[usize::from(byte >> 4)]));
            uri.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
    }
}

/// `text` with each `%XX` escape decoded (a `%` not followed by two hexadecimal digits is kept
/// as it is), or `None` when the result is not UTF-8.
pub(crate) fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let escaped = bytes
            .get(index + 1..index + 3)
            .filter(|_| byte == b'%')
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .filter(|hex| hex.bytes().all(|digit| digit.is_ascii_hexdigit()))
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(value) => {
                decoded.push(value);
                index += 3;
            }
            None => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

/// A parsed `skill://` URI: a skill name and a path inside the skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillUri {
    /// The decoded skill name.
    pub name: String,
    /// The decoded path segments below the skill directory, joined by `/` (empty for the
    /// directory itself).
    pub relative: String,
}

impl SkillUri {
    /// Parses `uri`; see the module docs for what is refused.
    ///
    /// # Errors
    ///
    /// [`UriError`] naming the first rule the URI breaks.
    pub fn parse(uri: &str) -> Result<Self, UriError> {
        let rest = uri
            .get(..SCHEME.len())
            .filter(|scheme| scheme.eq_ignore_ascii_case(SCHEME))
            .and_then(|_| uri.get(SCHEME.len()..))
            .ok_or(UriError::Scheme)?;
        if rest.contains(['?', '#']) {
            return Err(UriError::QueryOrFragment);
        }
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let mut segments = rest.split('/').map(decode);
        let name = segments.next().ok_or(UriError::EmptySegment)??;
        let relative = segments.collect::<Result<Vec<_>, _>>()?.join("/");
        Ok(Self { name, relative })
    }
}

/// Decodes one segment and checks what it decodes to.
fn decode(segment: &str) -> Result<String, UriError> {
    let bytes = segment.as_bytes();
    for (index, byte) in bytes.iter().enumerate() {
        let valid_escape = bytes
            .get(index + 1..index + 3)
            .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit));
        if *byte == b'%' && !valid_escape {
            return Err(UriError::Escape);
        }
    }
    let decoded = percent_decode(segment).ok_or(UriError::Escape)?;
    match decoded.as_str() {
        "" => Err(UriError::EmptySegment),
        "." | ".." => Err(UriError::DotSegment),
        text if text.contains('/') => Err(UriError::EncodedSlash),
        text if text.contains('\0') => Err(UriError::NulByte),
        _ => Ok(decoded),
    }
}

/// Why a URI is not a `skill://` URI this server can parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UriError {
    /// The URI does not start with `skill://`.
    Scheme,
    /// The URI has a query or a fragment.
    QueryOrFragment,
    /// A segment is empty (`//`), or the skill name is missing.
    EmptySegment,
    /// A `%` is not followed by two hexadecimal digits, or the escapes are not UTF-8.
    Escape,
    /// A segment is `.` or `..`, literally or encoded.
    DotSegment,
    /// A segment decodes to a string holding `/`.
    EncodedSlash,
    /// A segment decodes to a string holding a NUL byte.
    NulByte,
}

impl std::error::Error for UriError {}

impl fmt::Display for UriError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            UriError::Scheme => "it does not start with skill://",
            UriError::QueryOrFragment => "it has a query or a fragment",
            UriError::EmptySegment => "it has an empty path segment",
            UriError::Escape => "it has a malformed percent escape",
            UriError::DotSegment => "it has a `.` or `..` segment",
            UriError::EncodedSlash => "a segment encodes a `/`",
            UriError::NulByte => "it holds a NUL byte",
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    fn parsed(name: &str, relative: &str) -> Result<SkillUri, UriError> {
        Ok(SkillUri {
            name: name.to_owned(),
            relative: relative.to_owned(),
        })
    }

    #[test]
    fn names_and_paths_are_encoded_segment_by_segment() {
        assert_eq!(skill_file("pdf"), "skill://pdf/SKILL.md");
        assert_eq!(resource("pdf", ""), "skill://pdf");
        assert_eq!(
            resource("résumé", "my notes/50%?#.md"),
            "skill://r%C3%A9sum%C3%A9/my%20notes/50%25%3F%23.md"
        );
        assert_eq!(resource("pdf", r"a\b.md"), "skill://pdf/a%5Cb.md");
    }

    #[test]
    fn encoded_uris_parse_back() {
        for (name, relative) in [("pdf", "refs/guide.md"), ("résumé", "my notes/50%?#.md")] {
            assert_eq!(
                SkillUri::parse(&resource(name, relative)),
                parsed(name, relative)
            );
        }
        assert_eq!(SkillUri::parse("skill://pdf/"), parsed("pdf", ""));
        assert_eq!(SkillUri::parse("SKILL://pdf/refs/"), parsed("pdf", "refs"));
        assert_eq!(SkillUri::parse("skill://pdf/%72efs"), parsed("pdf", "refs"));
    }

    #[test]
    fn tricks_are_refused() {
        for (uri, error) in [
            ("file:///etc/passwd", UriError::Scheme),
            ("skill:/pdf/SKILL.md", UriError::Scheme),
            ("skill://pdf/SKILL.md?x=1", UriError::QueryOrFragment),
            ("skill://pdf/SKILL.md#top", UriError::QueryOrFragment),
            ("skill://", UriError::EmptySegment),
            ("skill:///etc/passwd", UriError::EmptySegment),
            ("skill://pdf//etc/passwd", UriError::EmptySegment),
            ("skill://pdf/../etc/passwd", UriError::DotSegment),
            ("skill://pdf/a/../../b", UriError::DotSegment),
            ("skill://pdf/..", UriError::DotSegment),
            ("skill://pdf/%2e%2e/x", UriError::DotSegment),
            ("skill://pdf/%2e%2e%2fetc%2fpasswd", UriError::EncodedSlash),
            ("skill://pdf/ok%00.md", UriError::NulByte),
            ("skill://pdf/ok\0.md", UriError::NulByte),
            ("skill://pdf/%zz", UriError::Escape),
            ("skill://pdf/%ff", UriError::Escape),
            ("skill://pdf/50%", UriError::Escape),
        ] {
            assert_eq!(SkillUri::parse(uri), Err(error), "{uri}");
        }
    }

    #[test]
    fn backslashes_are_ordinary_characters() {
        assert_eq!(
            SkillUri::parse(r"skill://pdf/..\..\windows\system32"),
            parsed("pdf", r"..\..\windows\system32")
        );
    }
}
