//! The rules of the Agent Skills format, applied to one parsed `SKILL.md`.
//!
//! Every rule yields a [`Diagnostic`] with its own code, a position when it has one, and a
//! hint. Severities are set afterwards, by mode, in one place ([`super::grade`]).

use std::borrow::Cow;
use std::path::Path;

use serde_json::{Map, Value};

use super::name;
use super::position::{FrontMatterText, KeyLine, Spot};
use crate::diagnostic::{Diagnostic, DiagnosticCode, Severity};
use crate::frontmatter::SkillDocument;

/// The fields the Agent Skills format defines.
pub const FORMAT_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Fields outside the format that skillbook or a major client reads, accepted by `check` as if
/// the format defined them: `disable-model-invocation` (skillbook reads it: the skill is
/// manual-only) and the fields Claude Code documents for a `SKILL.md`.
pub const CLIENT_FIELDS: [&str; 10] = [
    "disable-model-invocation",
    "argument-hint",
    "user-invocable",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
];

/// The most characters a description may have.
pub const MAX_DESCRIPTION_CHARACTERS: usize = 1024;

/// The most characters a compatibility note may have.
pub const MAX_COMPATIBILITY_CHARACTERS: usize = 500;

/// Findings for one file, in the order the rules found them.
pub(super) struct Findings<'a> {
    path: &'a Path,
    fallback: Option<Spot>,
    found: Vec<Diagnostic>,
}

impl<'a> Findings<'a> {
    /// Records a finding about the file as a whole, with no position.
    fn push_file(&mut self, code: DiagnosticCode, message: &str, hint: &str) {
        self.found
            .push(Diagnostic::new(Severity::Error, code, self.path, message).with_hint(hint));
    }

    /// Records a finding at `spot`, or at the opening `---` when it has none.
    pub(super) fn push(
        &mut self,
        code: DiagnosticCode,
        spot: Option<Spot>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) {
        let mut diagnostic =
            Diagnostic::new(Severity::Error, code, self.path, message).with_hint(hint);
        if let Some(spot) = spot.or(self.fallback) {
            diagnostic = diagnostic.at(spot.line, spot.column);
        }
        self.found.push(diagnostic);
    }
}

/// Applies every rule to `document`, read from the skill file `path`.
pub(super) fn check(
    path: &Path,
    document: &SkillDocument,
    allowed_fields: &[String],
) -> Vec<Diagnostic> {
    let text = FrontMatterText::new(document);
    let mut findings = Findings {
        path,
        fallback: text.as_ref().map(FrontMatterText::opening),
        found: Vec::new(),
    };
    check_file_layout(&mut findings, path, document);
    let Some(text) = text else {
        let directory = directory_name(path).unwrap_or_default();
        findings.push(
            DiagnosticCode::MissingFrontMatter,
            Some(Spot { line: 1, column: 1 }),
            "the file has no front matter: a skill file opens with a `---` line, the `name` and \
             `description` fields, and a closing `---` line",
            format!(
                "start the file with the lines `---`, `name: {}`, `description: <what the skill \
                 does and when to use it>` and `---`",
                name::suggestion(&directory)
            ),
        );
        return findings.found;
    };
    check_front_matter_layout(&mut findings, &text);
    let as_yaml = read_as_yaml(document);
    if as_yaml {
        check_unknown_fields(&mut findings, &text, &document.fields, allowed_fields);
    }
    check_name(&mut findings, path, &text, document, as_yaml);
    check_description(&mut findings, &text, document, as_yaml);
    for key in ["license", "allowed-tools", "compatibility"] {
        check_optional_text(&mut findings, &text, &document.fields, key);
    }
    check_metadata(&mut findings, &text, &document.fields);
    findings.found
}

/// The front matter was parsed as YAML, not read line by line after a failure.
fn read_as_yaml(document: &SkillDocument) -> bool {
    !document.diagnostics.iter().any(|diagnostic| {
        matches!(
            diagnostic.code,
            DiagnosticCode::InvalidYaml
                | DiagnosticCode::FrontMatterNotMapping
                | DiagnosticCode::UnclosedFrontMatter
        )
    })
}

fn directory_name(path: &Path) -> Option<Cow<'_, str>> {
    let directory = path.parent()?.file_name()?;
    Some(directory.to_string_lossy())
}

/// What comes before the front matter: the file's name, a byte-order mark, blank lines.
fn check_file_layout(findings: &mut Findings<'_>, path: &Path, document: &SkillDocument) {
    if path.file_name().is_some_and(|name| name == "skill.md") {
        findings.push_file(
            DiagnosticCode::LowercaseFileName,
            "the skill file is named `skill.md`; the format names it `SKILL.md`, and some \
             clients look only for that name",
            "rename the file to SKILL.md",
        );
    }
    if document.byte_order_mark {
        findings.push(
            DiagnosticCode::ByteOrderMark,
            Some(Spot { line: 1, column: 1 }),
            "the file starts with a UTF-8 byte-order mark; clients that expect `---` at the \
             very start do not see the front matter",
            "save the file as UTF-8 without a byte-order mark",
        );
    }
    if document.front_matter_line.is_some_and(|line| line > 2) {
        findings.push(
            DiagnosticCode::LeadingBlankLines,
            Some(Spot { line: 1, column: 1 }),
            "blank lines come before the opening `---`; most clients expect it on the first line",
            "remove the blank lines above `---`",
        );
    }
}

/// Line ends and tabs inside the front matter.
fn check_front_matter_layout(findings: &mut Findings<'_>, text: &FrontMatterText<'_>) {
    if let Some(spot) = text.first_crlf() {
        findings.push(
            DiagnosticCode::CrlfLineEnds,
            Some(spot),
            "the front matter has Windows line ends (`\\r\\n`); clients that look for \
             `\\n---\\n` do not find it",
            "save the file with `\\n` line ends (with git: `git config core.autocrlf input`)",
        );
    }
    if let Some(spot) = text.find_char('\t') {
        findings.push(
            DiagnosticCode::TabCharacter,
            Some(spot),
            "the front matter holds a tab; many YAML readers refuse tabs",
            "replace the tab with spaces",
        );
    }
}

fn check_unknown_fields(
    findings: &mut Findings<'_>,
    text: &FrontMatterText<'_>,
    fields: &Map<String, Value>,
    allowed_fields: &[String],
) {
    for key in fields.keys() {
        if FORMAT_FIELDS.contains(&key.as_str())
            || CLIENT_FIELDS.contains(&key.as_str())
            || allowed_fields.iter().any(|allowed| allowed == key)
        {
            continue;
        }
        findings.push(
            DiagnosticCode::UnknownField,
            text.key(key).map(|line| line.key),
            format!(
                "`{key}` is not a field of the Agent Skills format; clients that follow the \
                 format strictly refuse the skill"
            ),
            format!(
                "move `{key}` under `metadata:`, or remove it; if a client you target reads it, \
                 allow it with --allow-field {key}"
            ),
        );
    }
}

/// A field's value, sorted by what the rules make of it.
enum Field<'v> {
    /// The key is not there.
    Absent,
    /// `null`, or a string that is blank.
    Empty,
    /// A string.
    Text(&'v str),
    /// A number or boolean: read as its YAML spelling, but not a string.
    Scalar(String, &'static str),
    /// A list or mapping.
    Structured(&'static str),
}

fn field_of(value: Option<&Value>) -> Field<'_> {
    match value {
        None => Field::Absent,
        Some(Value::Null) => Field::Empty,
        Some(Value::String(text)) if text.trim().is_empty() => Field::Empty,
        Some(Value::String(text)) => Field::Text(text),
        Some(Value::Bool(flag)) => Field::Scalar(flag.to_string(), "boolean"),
        Some(Value::Number(number)) => Field::Scalar(number.to_string(), "number"),
        Some(Value::Array(_)) => Field::Structured("list"),
        Some(Value::Object(_)) => Field::Structured("mapping"),
    }
}

/// [`field_of`], where a text written as a plain scalar that YAML 1.1 readers (PyYAML, js-yaml,
/// many clients) read as a number, a boolean or null counts as that: skillbook keeps it as
/// written, other clients do not.
fn field_at<'v>(value: Option<&'v Value>, key_line: Option<KeyLine<'_>>) -> Field<'v> {
    match field_of(value) {
        Field::Text(text) if key_line.is_some_and(|line| !line.quoted) => {
            match yaml11_kind(text.trim()) {
                Some(kind) => Field::Scalar(text.trim().to_owned(), kind),
                None => Field::Text(text),
            }
        }
        other => other,
    }
}

/// What YAML 1.1 makes of a plain scalar that is not text: `boolean`, `null` or `number`.
fn yaml11_kind(text: &str) -> Option<&'static str> {
    const BOOLEANS: [&str; 22] = [
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
        "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
    ];
    if BOOLEANS.contains(&text) {
        return Some("boolean");
    }
    if matches!(text, "~" | "null" | "Null" | "NULL") {
        return Some("null");
    }
    is_yaml11_number(text).then_some("number")
}

/// An integer (decimal, `0x`, `0o`, `0b`, leading zeros, `_` separators) or a float (`1.0`,
/// `.5`, `1e3`, `.inf`, `.nan`), with an optional sign.
fn is_yaml11_number(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let radix = [("0x", 16), ("0o", 8), ("0b", 2)]
        .into_iter()
        .find_map(|(prefix, radix)| unsigned.strip_prefix(prefix).map(|digits| (digits, radix)));
    if let Some((digits, radix)) = radix {
        return !digits.is_empty()
            && digits.chars().all(|c| c == '_' || c.is_digit(radix))
            && digits.chars().any(|c| c.is_digit(radix));
    }
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let digits = |part: &str| part.chars().all(|c| c.is_ascii_digit() || c == '_');
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            digits(whole)
                && digits(fraction)
                && (whole.chars().chain(fraction.chars())).any(|c| c.is_ascii_digit())
        }
        None => digits(mantissa) && mantissa.chars().any(|c| c.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|exponent| {
        let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        !exponent.is_empty() && exponent.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

/// Reports a number or boolean where a string belongs; returns its text.
fn scalar_as_text(
    findings: &mut Findings<'_>,
    key_line: Option<KeyLine<'_>>,
    label: &str,
    text: String,
    kind: &str,
) -> String {
    findings.push(
        DiagnosticCode::NonStringValue,
        key_line.map(|line| line.value),
        format!("`{label}` is `{text}`, which YAML reads as a {kind}, not as text"),
        format!(
            "quote it: {}: \"{text}\"",
            label.rsplit('.').next().unwrap_or(label)
        ),
    );
    text
}

fn check_name(
    findings: &mut Findings<'_>,
    path: &Path,
    text: &FrontMatterText<'_>,
    document: &SkillDocument,
    as_yaml: bool,
) {
    let key_line = text.key("name");
    let directory = directory_name(path);
    let name: Cow<'_, str> = match field_at(document.fields.get("name"), key_line) {
        Field::Text(name) => Cow::Borrowed(name.trim()),
        Field::Scalar(spelled, kind) => {
            Cow::Owned(scalar_as_text(findings, key_line, "name", spelled, kind))
        }
        // The reader already reported a list or mapping.
        Field::Structured(_) => return,
        Field::Absent | Field::Empty => {
            if as_yaml || key_line.is_some() {
                let suggestion = name::suggestion(directory.as_deref().unwrap_or_default());
                findings.push(
                    DiagnosticCode::MissingName,
                    key_line.map(|line| line.key),
                    "the front matter has no `name`; clients identify a skill by it",
                    format!("add the line: name: {suggestion}"),
                );
            }
            return;
        }
    };
    name::check(findings, &name, key_line, directory.as_deref());
}

fn check_description(
    findings: &mut Findings<'_>,
    text: &FrontMatterText<'_>,
    document: &SkillDocument,
    as_yaml: bool,
) {
    let key_line = text.key("description");
    let description: Cow<'_, str> = match field_at(document.fields.get("description"), key_line) {
        Field::Text(description) => Cow::Borrowed(description),
        Field::Scalar(spelled, kind) => Cow::Owned(scalar_as_text(
            findings,
            key_line,
            "description",
            spelled,
            kind,
        )),
        Field::Structured(_) => return,
        Field::Absent | Field::Empty => {
            if as_yaml || key_line.is_some() {
                findings.push(
                    DiagnosticCode::MissingDescription,
                    key_line.map(|line| line.key),
                    "the front matter has no `description`; clients show it to the model to \
                     decide when to use the skill",
                    "add the line: description: <what the skill does and when to use it>",
                );
            }
            return;
        }
    };
    let length = description.chars().count();
    if length > MAX_DESCRIPTION_CHARACTERS {
        findings.push(
            DiagnosticCode::DescriptionTooLong,
            key_line.map(|line| line.value),
            format!(
                "the description is {length} characters long; the limit is \
                 {MAX_DESCRIPTION_CHARACTERS}"
            ),
            "shorten it to what the skill does and when to use it; move details into the body",
        );
    }
}

/// `license`, `allowed-tools` and `compatibility`: optional, and a string when present.
fn check_optional_text(
    findings: &mut Findings<'_>,
    text: &FrontMatterText<'_>,
    fields: &Map<String, Value>,
    key: &str,
) {
    let key_line = text.key(key);
    let value: Cow<'_, str> = match field_at(fields.get(key), key_line) {
        Field::Absent => return,
        Field::Text(value) => Cow::Borrowed(value),
        Field::Scalar(spelled, kind) => {
            Cow::Owned(scalar_as_text(findings, key_line, key, spelled, kind))
        }
        Field::Empty => {
            findings.push(
                DiagnosticCode::EmptyField,
                key_line.map(|line| line.key),
                format!("`{key}` is present but has no value"),
                format!("give `{key}` a value, or remove the line"),
            );
            return;
        }
        Field::Structured(kind) => {
            if key == "allowed-tools" && is_list_of_text(fields.get(key)) {
                // Some clients read a list of tools; the format asks for one string.
                findings.push(
                    DiagnosticCode::NonStringValue,
                    key_line.map(|line| line.value),
                    "`allowed-tools` is a YAML list; the format asks for one space-separated \
                     string, and clients that follow it refuse a list",
                    text_hint(key, fields.get(key)),
                );
            } else {
                findings.push(
                    DiagnosticCode::InvalidFieldType,
                    key_line.map(|line| line.value),
                    format!("`{key}` is a YAML {kind} but must be a string"),
                    text_hint(key, fields.get(key)),
                );
            }
            return;
        }
    };
    let length = value.chars().count();
    if key == "compatibility" && length > MAX_COMPATIBILITY_CHARACTERS {
        findings.push(
            DiagnosticCode::CompatibilityTooLong,
            key_line.map(|line| line.value),
            format!(
                "the compatibility note is {length} characters long; the limit is \
                 {MAX_COMPATIBILITY_CHARACTERS}"
            ),
            "shorten it to the environments the skill needs",
        );
    }
}

/// How to write a list-valued field as one string.
/// A non-empty list whose items are all text.
fn is_list_of_text(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Array(items))
        if !items.is_empty() && items.iter().all(Value::is_string))
}

fn text_hint(key: &str, value: Option<&Value>) -> String {
    let items: Option<Vec<String>> = match value {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                Value::Bool(flag) => Some(flag.to_string()),
                _ => None,
            })
            .collect(),
        _ => None,
    };
    match items {
        Some(items) if !items.is_empty() => {
            format!("write it as one string: {key}: {}", items.join(" "))
        }
        _ => format!("write it as one string: {key}: <text>"),
    }
}

fn check_metadata(
    findings: &mut Findings<'_>,
    text: &FrontMatterText<'_>,
    fields: &Map<String, Value>,
) {
    let key_line = text.key("metadata");
    let entries = match fields.get("metadata") {
        None => return,
        Some(Value::Object(entries)) => entries,
        Some(Value::Null) => {
            findings.push(
                DiagnosticCode::EmptyField,
                key_line.map(|line| line.key),
                "`metadata` is present but has no value",
                "add indented `key: value` lines under `metadata:`, or remove the line",
            );
            return;
        }
        Some(other) => {
            findings.push(
                DiagnosticCode::InvalidFieldType,
                key_line.map(|line| line.value),
                format!(
                    "`metadata` is a YAML {} but must be a mapping of keys to strings",
                    crate::frontmatter::value_kind(other)
                ),
                "write it as indented `key: value` lines under `metadata:`",
            );
            return;
        }
    };
    // The lines of the keys below `metadata:`, found in one pass (a key's first line counts).
    let nested = text.nested_keys("metadata");
    for (key, value) in entries {
        let nested = nested
            .iter()
            .find(|(found, _)| *found == key.as_str())
            .map(|(_, line)| *line);
        check_metadata_value(findings, nested.or(key_line), nested, key, value);
    }
}

/// Checks one metadata value; `key_line` is its line (or the `metadata:` line), `nested` its
/// own line only.
fn check_metadata_value(
    findings: &mut Findings<'_>,
    key_line: Option<KeyLine<'_>>,
    nested: Option<KeyLine<'_>>,
    key: &str,
    value: &Value,
) {
    let label = || format!("metadata.{key}");
    match field_at(Some(value), nested) {
        Field::Text(_) | Field::Absent => {}
        Field::Empty => {
            if value.is_null() {
                findings.push(
                    DiagnosticCode::NonStringValue,
                    key_line.map(|line| line.value),
                    format!(
                        "`{}` has no value, which YAML reads as null, not as text",
                        label()
                    ),
                    format!("give it a value, or remove `{key}`"),
                );
            }
        }
        Field::Scalar(spelled, kind) => {
            scalar_as_text(findings, key_line, &label(), spelled, kind);
        }
        Field::Structured(kind) => findings.push(
            DiagnosticCode::MetadataValueNotString,
            key_line.map(|line| line.value),
            format!(
                "`{}` is a YAML {kind}; metadata maps keys to strings",
                label()
            ),
            format!("write `{key}` as one string, or split it into several `key: value` lines"),
        ),
    }
}
