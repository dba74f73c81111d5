//! [`SkillName`]: a skill's name, parsed once and carried everywhere as the same type.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use unicode_normalization::UnicodeNormalization;

/// A skill's name as skillbook accepts it: trimmed, not empty, and free of control characters
/// and `/`.
///
/// Every such name can be listed in a catalog, looked up, and addressed as
/// `skill://<name>/…` (the [`crate::uri`] module percent-encodes what needs it), so the name a
/// skill was discovered under is the name every surface uses. The only way to get one is to
/// parse it ([`SkillName::new`], [`FromStr`], or [`Deserialize`]), so holding a `SkillName`
/// means holding a checked name.
///
/// The Agent Skills format is stricter: 1 to 64 lower-case letters or digits with single inner
/// hyphens ([`SkillName::is_agent_skills_name`]). `skillbook check` reports names that break it,
/// and the MCP Skills extension serves only names that keep it; discovery and the runtime accept
/// the wider set, so `PDF Tools` is a skill with a warning rather than a lost skill.
///
/// ```
/// use skillbook::SkillName;
///
/// let name: SkillName = "  pdf-tools ".parse()?;
/// assert_eq!(name, "pdf-tools");
/// assert!(name.is_agent_skills_name());
/// assert!(!SkillName::new("PDF Tools")?.is_agent_skills_name());
/// assert!(SkillName::new("a/b").is_err());
/// # Ok::<(), skillbook::NameError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SkillName(Arc<str>);

/// Why a text is not a [`SkillName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// Nothing but white space.
    #[error("the name is empty; name the skill in its front matter (`name: my-skill`)")]
    Empty,
    /// The name holds a `/`.
    #[error(
        "the name `{name}` holds a `/`, which would split its `skill://` address; use a name \
         like `my-skill`"
    )]
    Slash {
        /// The name as given (trimmed).
        name: String,
    },
    /// The name holds a control character.
    #[error(
        "the name `{name}` holds the control character U+{code:04X}; remove it",
        name = name.escape_debug()
    )]
    ControlCharacter {
        /// The name as given (trimmed).
        name: String,
        /// The character's code point.
        code: u32,
    },
}

impl SkillName {
    /// Parses a name: surrounding white space is trimmed; an empty name, a `/` or a control
    /// character is refused.
    ///
    /// # Errors
    ///
    /// [`NameError`] saying which rule the text breaks.
    pub fn new(text: &str) -> Result<Self, NameError> {
        let name = text.trim();
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if let Some(control) = name.chars().find(|character| character.is_control()) {
            return Err(NameError::ControlCharacter {
                name: name.to_owned(),
                code: u32::from(control),
            });
        }
        if name.contains('/') {
            return Err(NameError::Slash {
                name: name.to_owned(),
            });
        }
        Ok(SkillName(Arc::from(name)))
    }

    /// Whether [`SkillName::new`] takes `text`, without making the name.
    pub(crate) fn accepts(text: &str) -> bool {
        let name = text.trim();
        !name.is_empty()
            && !name.contains(|character: char| character.is_control() || character == '/')
    }

    /// The name of a skill not read yet: empty, which [`SkillName::new`] never gives; one
    /// shared text, so holding it costs no allocation.
    pub(crate) fn unset() -> Self {
        static EMPTY: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| Arc::from(""));
        SkillName(Arc::clone(&EMPTY))
    }

    /// A name made from a directory's name, which cannot fail: control characters and `/` are
    /// replaced with U+FFFD, and an empty name becomes `skill`.
    pub(crate) fn sanitized(text: &str) -> Self {
        let cleaned: String = text
            .trim()
            .chars()
            .map(|character| {
                if character.is_control() || character == '/' {
                    '\u{fffd}'
                } else {
                    character
                }
            })
            .collect();
        if cleaned.is_empty() {
            SkillName(Arc::from("skill"))
        } else {
            SkillName(Arc::from(cleaned))
        }
    }

    /// The name as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key under which names collide: lower-cased (names are compared ignoring case).
    #[must_use]
    pub fn key(&self) -> String {
        name_key(&self.0)
    }

    /// Whether the name keeps the Agent Skills format's rule: compared in Unicode NFKC, 1 to 64
    /// characters, lower-case letters (of any script) and digits, hyphens only between them
    /// and never two in a row. The same rule `skillbook check` applies.
    #[must_use]
    pub fn is_agent_skills_name(&self) -> bool {
        super::name::is_valid(&self.0.nfkc().collect::<String>())
    }
}

/// The duplicate key of any name: trimmed and lower-cased.
pub(crate) fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

impl FromStr for SkillName {
    type Err = NameError;

    fn from_str(text: &str) -> Result<Self, NameError> {
        SkillName::new(text)
    }
}

impl TryFrom<&str> for SkillName {
    type Error = NameError;

    fn try_from(text: &str) -> Result<Self, NameError> {
        SkillName::new(text)
    }
}

impl TryFrom<String> for SkillName {
    type Error = NameError;

    fn try_from(text: String) -> Result<Self, NameError> {
        SkillName::new(&text)
    }
}

impl Deref for SkillName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SkillName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SkillName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SkillName {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl fmt::Debug for SkillName {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, formatter)
    }
}

impl PartialEq<str> for SkillName {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SkillName {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for SkillName {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<SkillName> for str {
    fn eq(&self, other: &SkillName) -> bool {
        self == &*other.0
    }
}

impl PartialEq<SkillName> for &str {
    fn eq(&self, other: &SkillName) -> bool {
        *self == &*other.0
    }
}

impl Serialize for SkillName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for SkillName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        SkillName::new(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_compared_as_text() {
        let name = SkillName::new("  Code Review\t").unwrap();
        assert_eq!(name, "Code Review");
        assert_eq!(name.key(), "code review");
        assert_eq!(name.to_string(), "Code Review");
        assert_eq!(format!("{name:?}"), "\"Code Review\"");
    }

    #[test]
    fn accepts_agrees_with_new() {
        for text in [
            "pdf",
            " Code Review ",
            "",
            " \t ",
            "a/b",
            "bell\u{7}",
            "é",
            "/",
            "x\u{85}y",
        ] {
            assert_eq!(
                SkillName::accepts(text),
                SkillName::new(text).is_ok(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn empty_slashes_and_control_characters_are_refused() {
        assert_eq!(SkillName::new(" \t "), Err(NameError::Empty));
        assert_eq!(
            SkillName::new("pdf/forms"),
            Err(NameError::Slash {
                name: "pdf/forms".to_owned()
            })
        );
        let error = SkillName::new("pdf\u{7}x").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the name `pdf\\u{7}x` holds the control character U+0007; remove it"
        );
    }

    #[test]
    fn wider_names_than_the_format_are_accepted_and_told_apart() {
        for (text, strict) in [
            ("pdf", true),
            ("pdf-forms-2", true),
            ("données", true),
            ("PDF", false),
            ("pdf forms", false),
            ("pdf--forms", false),
            ("-pdf", false),
            (r"a\b", false),
            ("a.b", false),
            (&"a".repeat(65), false),
        ] {
            assert_eq!(
                SkillName::new(text).unwrap().is_agent_skills_name(),
                strict,
                "{text}"
            );
        }
    }

    #[test]
    fn serde_goes_through_the_parser() {
        let name: SkillName = serde_json::from_str("\" pdf \"").unwrap();
        assert_eq!(serde_json::to_string(&name).unwrap(), "\"pdf\"");
        assert!(serde_json::from_str::<SkillName>("\"a/b\"").is_err());
    }
}
