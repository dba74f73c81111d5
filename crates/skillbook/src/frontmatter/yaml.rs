//! The front matter's YAML: safe parsing, the colon repair, and the line-based fallback.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};
use serde_saphyr::{Budget, DuplicateKeyPolicy, NonFiniteFloatPolicy, Options};

use super::SkillDocument;
use super::lines;
use crate::diagnostic::{Diagnostic, DiagnosticCode};

/// At most this many alias uses in one front matter (real skills use none).
const MAX_ALIASES: usize = 64;
/// At most this many YAML events replayed through aliases (defeats "billion laughs").
const MAX_REPLAYED_EVENTS: usize = 10_000;
/// Maximum nesting depth of the front matter.
const MAX_DEPTH: usize = 32;
/// Maximum number of YAML nodes.
const MAX_NODES: usize = 50_000;

/// The keys the line-based fallback understands.
const FALLBACK_KEYS: [&str; 3] = ["name", "description", "disable-model-invocation"];

fn options() -> Options {
    let mut budget = Budget::default();
    budget.max_aliases = MAX_ALIASES;
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    let mut options = Options::default();
    options.budget = Some(budget);
    options.duplicate_keys = DuplicateKeyPolicy::LastWins;
    options.alias_limits.max_total_replayed_events = MAX_REPLAYED_EVENTS;
    options.alias_limits.max_replay_stack_depth = 8;
    // YAML 1.2's core schema, not 1.1's: `yes`, `on`, `007`, `1_000` and `.inf` are text.
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    options.non_finite_float_policy = NonFiniteFloatPolicy::AsString;
    options
}

/// The fields the format defines as text: they keep the scalar as written (`name: 1.10` is
/// the name `1.10`, not the number 1.1), as metadata values do.
pub(crate) const TEXT_FIELDS: [&str; 5] = [
    "name",
    "description",
    "license",
    "compatibility",
    "allowed-tools",
];

/// A YAML failure, positioned in the front matter text (1-based).
struct YamlFailure {
    message: String,
    line: u64,
    column: u64,
}

fn parse_value(raw: &str) -> Result<Value, YamlFailure> {
    serde_saphyr::from_str_with_options::<Value>(raw, options()).map_err(|error| {
        let (line, column) = error
            .location()
            .map_or((1, 1), |location| (location.line(), location.column()));
        let (line, column) = file_position(raw, line.max(1), column.max(1));
        YamlFailure {
            message: for_authors(&error.without_snippet().to_string()),
            line,
            column,
        }
    })
}

/// The parser's message, said to a skill's author: its limits and the documents it counts in
/// the words of the front matter, not of the parser's API, and without positions (the
/// diagnostic has its own).
fn for_authors(message: &str) -> String {
    if message.contains("alias") && message.contains("limit") {
        return format!(
            "its aliases (`*name`) repeat what they stand for more than {MAX_REPLAYED_EVENTS} \
             times in all; write the values out, or use fewer aliases"
        );
    }
    if message.contains("multiple YAML documents") {
        return "it holds more than one YAML document (a `...` or `---` line inside it); keep \
                one block of `key: value` lines"
            .to_owned();
    }
    let message = match message.find(" at line ") {
        Some(position) => &message[..position],
        None => message,
    };
    message.trim_end_matches([':', ' ']).to_owned()
}

/// The 1-based line and column, counting lines as the file does (ended by `\n`), of what
/// the parser places at `line` and `column` counting a lone `\r` as a line end too; never
/// past the end of the text or of its line.
fn file_position(raw: &str, line: u64, column: u64) -> (u64, u64) {
    let (mut yaml_line, mut file_line, mut file_column) = (1, 1, 1);
    let mut characters = raw.chars().peekable();
    while yaml_line < line {
        match characters.next() {
            None => return (file_line, file_column),
            Some('\n') => (file_line, file_column) = (file_line + 1, 1),
            Some('\r') if characters.peek() == Some(&'\n') => {
                characters.next();
                (file_line, file_column) = (file_line + 1, 1);
            }
            Some('\r') => file_column += 1,
            Some(_) => {
                file_column += 1;
                continue;
            }
        }
        yaml_line += 1;
    }
    for _ in 1..column {
        match characters.next() {
            None | Some('\n' | '\r') => break,
            Some(_) => file_column += 1,
        }
    }
    (file_line, file_column)
}

/// Parses the front matter text into `document`, repairing or falling back as SPEC §3 says.
pub(super) fn read_front_matter(
    path: &Path,
    raw: &str,
    first_line: u64,
    document: &mut SkillDocument,
) {
    read_front_matter_with(path, raw, first_line, document, true);
}

/// [`read_front_matter`], with or without the reader of the common shape ([`super::simple`]).
pub(super) fn read_front_matter_with(
    path: &Path,
    raw: &str,
    first_line: u64,
    document: &mut SkillDocument,
    simple_first: bool,
) {
    if raw.trim().is_empty() {
        return;
    }
    if simple_first && let Some(fields) = super::simple::parse(raw) {
        apply_fields(path, raw, first_line, fields, document);
        return;
    }
    let failure = match parse_value(raw) {
        Ok(Value::Object(fields)) => {
            report_duplicate_keys(path, raw, first_line, document);
            apply_fields(path, raw, first_line, fields, document);
            return;
        }
        Ok(Value::Null) => return,
        Ok(other) => {
            document.diagnostics.push(
                Diagnostic::error(
                    DiagnosticCode::FrontMatterNotMapping,
                    path,
                    format!(
                        "the front matter is a YAML {} instead of `key: value` lines; write it \
                         as a mapping such as `name: my-skill`",
                        value_kind(&other)
                    ),
                )
                .at(first_line, 1),
            );
            read_lines_into(raw, document);
            return;
        }
        Err(failure) => failure,
    };
    if let Some(repair) = repair_colons(raw)
        && let Ok(Value::Object(fields)) = parse_value(&repair.text)
    {
        document.diagnostics.push(
            Diagnostic::warning(
                DiagnosticCode::RepairedYaml,
                path,
                "a value contains `: ` without quotes, which is invalid YAML (many clients drop \
                 this skill); it was read as if quoted",
            )
            .at(first_line + repair.line_index as u64, repair.column)
            .with_hint(format!("write it as: {}", repair.quoted_line)),
        );
        report_duplicate_keys(path, raw, first_line, document);
        apply_fields(path, raw, first_line, fields, document);
        return;
    }
    document.diagnostics.push(
        Diagnostic::error(
            DiagnosticCode::InvalidYaml,
            path,
            format!(
                "the front matter is not valid YAML ({}); name, description and \
                 disable-model-invocation were read line by line. Fix the YAML (quote values \
                 that contain special characters)",
                failure.message
            ),
        )
        .at(first_line + failure.line - 1, failure.column),
    );
    read_lines_into(raw, document);
}

/// The YAML name of a value's kind: `null`, `boolean`, `number`, `string`, `list`, `mapping`.
pub(crate) fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

/// Takes the typed fields out of a parsed mapping and keeps the whole mapping.
fn apply_fields(
    path: &Path,
    raw: &str,
    first_line: u64,
    mut fields: Map<String, Value>,
    document: &mut SkillDocument,
) {
    keep_spellings(raw, &mut fields);
    for key in ["name", "description"] {
        let text = match fields.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.trim().to_owned()),
            Some(other) => {
                let line = key_line(raw, key).map_or(first_line, |index| first_line + index);
                document.diagnostics.push(
                    Diagnostic::warning(
                        DiagnosticCode::InvalidFieldType,
                        path,
                        format!(
                            "`{key}` is a YAML {} but must be a string; it was ignored. Write \
                             it as `{key}: text`",
                            value_kind(other)
                        ),
                    )
                    .at(line, 1),
                );
                None
            }
        };
        let text = text.filter(|text| !text.is_empty());
        match key {
            "name" => document.name = text,
            _ => document.description = text,
        }
    }
    document.disable_model_invocation = fields.get("disable-model-invocation").is_some_and(is_true);
    document.fields = fields;
}

/// `fields` in maps of exactly their size, nested ones too: for front matter kept long (a
/// skill held in memory), since a map grown one insert at a time has room for twice what it
/// holds.
pub(crate) fn compact(fields: Map<String, Value>) -> Map<String, Value> {
    fields
        .into_iter()
        .map(|(key, value)| match value {
            Value::Object(nested) => (key, Value::Object(compact(nested))),
            Value::Array(items) => (key, Value::Array(items.into_iter().collect())),
            other => (key, other),
        })
        .collect()
}

/// YAML `true` in any case, or the string `"true"` — never `yes` or `on`.
fn is_true(value: &Value) -> bool {
    match value {
        Value::Bool(flag) => *flag,
        Value::String(text) => text.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// Puts back, for the text fields and the metadata values, the scalar as written where YAML
/// read a number or a boolean (`1.10`, `0x1F`, `+1`, `true`) or a non-finite number (`-.Inf`,
/// which the parser hands over as `-.inf`); and for the text fields, where YAML read a null
/// (`null`, `Null`, `~`): the reference keeps such a name or description as written.
fn keep_spellings(raw: &str, fields: &mut Map<String, Value>) {
    for key in TEXT_FIELDS {
        if let Some(value) = fields.get_mut(key)
            && let Some(spelled) = respelled(value, || spelling(raw, None, key), true)
        {
            *value = Value::String(spelled);
        }
    }
    if let Some(Value::Object(metadata)) = fields.get_mut("metadata") {
        for (key, value) in metadata.iter_mut() {
            let written = || spelling(raw, Some("metadata"), key);
            if let Some(spelled) = respelled(value, written, false) {
                *value = Value::String(spelled);
            }
        }
    }
}

/// The text `value` is to take instead, if it is not the scalar as written: `written` gives
/// that scalar (a plain one, as it stands after the colon); a null is respelled only for a text
/// field (`null_too`), and only when something was written.
fn respelled(
    value: &Value,
    written: impl FnOnce() -> Option<String>,
    null_too: bool,
) -> Option<String> {
    match value {
        Value::Bool(_) | Value::Number(_) => Some(written().unwrap_or_else(|| value.to_string())),
        Value::Null if null_too => written(),
        // Non-finite numbers arrive as lower-case text; the author's case is kept.
        Value::String(text) if matches!(text.as_str(), ".inf" | "-.inf" | "+.inf" | ".nan") => {
            written().filter(|spelled| spelled != text && spelled.eq_ignore_ascii_case(text))
        }
        _ => None,
    }
}

/// The plain scalar written after `key:` (below the top-level `parent`, if given) on its last
/// line, without a trailing comment.
fn spelling(raw: &str, parent: Option<&str>, key: &str) -> Option<String> {
    let lines: Vec<&str> = raw.lines().collect();
    let (range, indent) = match parent {
        None => (0..lines.len(), 0),
        Some(parent) => {
            let (start, _) = key_value_lines(&lines, 0..lines.len(), 0)
                .filter(|(_, found, _)| *found == parent)
                .map(|(index, found, _)| (index, found))
                .last()?;
            let end = lines[start + 1..]
                .iter()
                .position(|line| {
                    let content = line.trim();
                    !content.is_empty()
                        && !content.starts_with('#')
                        && lines::indentation(line) == 0
                })
                .map_or(lines.len(), |offset| start + 1 + offset);
            let indent = lines[start + 1..end]
                .iter()
                .find(|line| {
                    let content = line.trim();
                    !content.is_empty() && !content.starts_with('#')
                })
                .map(|line| lines::indentation(line))?;
            (start + 1..end, indent)
        }
    };
    let (_, _, value) = key_value_lines(&lines, range, indent)
        .filter(|(_, found, _)| *found == key)
        .last()?;
    let value = match value.find(" #") {
        Some(comment) => &value[..comment],
        None => value,
    };
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

/// `(index, key, value)` of the `key: value` lines indented by exactly `indent` in `range`.
fn key_value_lines<'a>(
    lines: &'a [&'a str],
    range: std::ops::Range<usize>,
    indent: usize,
) -> impl Iterator<Item = (usize, &'a str, &'a str)> + 'a {
    range.filter_map(move |index| {
        let line = lines.get(index)?;
        if lines::indentation(line) != indent {
            return None;
        }
        let rest = line.get(indent..)?;
        if rest.starts_with(['#', '-', '"', '\'', '[', '{']) {
            return None;
        }
        let (key, value) = rest.split_once(':')?;
        let key = key.trim_end();
        (!key.is_empty() && (value.is_empty() || value.starts_with([' ', '\t'])))
            .then_some((index, key, value))
    })
}

/// The 0-based line index of a top-level `key:` in the front matter.
fn key_line(raw: &str, key: &str) -> Option<u64> {
    top_level_keys(raw)
        .find(|(_, found)| *found == key)
        .map(|(index, _)| index as u64)
}

/// `(line index, key)` for each top-level `key:` line.
fn top_level_keys(raw: &str) -> impl Iterator<Item = (usize, &str)> {
    raw.lines().enumerate().filter_map(|(index, line)| {
        if line.starts_with([' ', '\t', '#', '-', '"', '\'', '[', '{']) {
            return None;
        }
        let (key, _) = line.split_once(':')?;
        let key = key.trim_end();
        (!key.is_empty()).then_some((index, key))
    })
}

fn report_duplicate_keys(path: &Path, raw: &str, first_line: u64, document: &mut SkillDocument) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (index, key) in top_level_keys(raw) {
        if let Some(first) = seen.insert(key, index) {
            document.diagnostics.push(
                Diagnostic::warning(
                    DiagnosticCode::DuplicateKey,
                    path,
                    format!(
                        "`{key}` appears again (first on line {}); the last value is used. \
                         Remove one of them",
                        first_line + first as u64
                    ),
                )
                .at(first_line + index as u64, 1),
            );
        }
    }
}

/// The front matter with unquoted `: ` values quoted.
struct ColonRepair {
    text: String,
    line_index: usize,
    column: u64,
    quoted_line: String,
}

/// Quotes every plain `key: value` whose value contains `: `. `None` when nothing changed.
fn repair_colons(raw: &str) -> Option<ColonRepair> {
    let mut text = String::with_capacity(raw.len() + 16);
    let mut first: Option<(usize, u64, String)> = None;
    for (index, line) in raw.split_inclusive('\n').enumerate() {
        let content = lines::content(line);
        match quote_value(content) {
            Some((quoted, column)) => {
                text.push_str(&quoted);
                text.push_str(&line[content.len()..]);
                first.get_or_insert((index, column, quoted.trim().to_owned()));
            }
            None => text.push_str(line),
        }
    }
    let (line_index, column, quoted_line) = first?;
    Some(ColonRepair {
        text,
        line_index,
        column,
        quoted_line,
    })
}

/// `key: a: b` → (`key: "a: b"`, column of the inner `: `).
fn quote_value(content: &str) -> Option<(String, u64)> {
    let indent = lines::indentation(content);
    let rest = &content[indent..];
    if rest.starts_with(['#', '-', '"', '\'', '[', '{', '?']) {
        return None;
    }
    let separator = rest.find(": ")?;
    let key = &rest[..separator];
    if key.is_empty() || key.contains(['"', '\'', '#']) {
        return None;
    }
    let value = rest[separator + 1..].trim();
    if value.is_empty() || value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!', '#']) {
        return None;
    }
    let inner = value
        .find(": ")
        .or_else(|| value.ends_with(':').then(|| value.len() - 1))?;
    let value_offset = content.len() - content[indent + separator + 1..].trim_start().len();
    let column = lines::column(content, value_offset + inner);
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    Some((
        format!("{}{key}: \"{escaped}\"", &content[..indent]),
        column,
    ))
}

/// The line-based reading of the top-level `name`, `description` and
/// `disable-model-invocation` keys, for front matter that is not valid YAML.
pub(super) fn read_lines_into(raw: &str, document: &mut SkillDocument) {
    let all: Vec<&str> = raw.lines().collect();
    let mut fields = Map::new();
    for (index, line) in all.iter().enumerate() {
        if lines::indentation(line) > 0 {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim_end();
        if !FALLBACK_KEYS.contains(&key) {
            continue;
        }
        let value = scalar_with_continuation(value.trim(), &all[index + 1..]);
        fields.insert(key.to_owned(), Value::String(value));
    }
    let text = |key: &str| {
        fields
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    document.name = text("name");
    document.description = text("description");
    document.disable_model_invocation = fields.get("disable-model-invocation").is_some_and(is_true);
    document.fields = compact(fields);
}

/// A value, its quotes removed, with indented continuation lines or a block scalar folded in.
fn scalar_with_continuation(value: &str, following: &[&str]) -> String {
    let continuation = following
        .iter()
        .take_while(|line| line.trim().is_empty() || lines::indentation(line) > 0)
        .map(|line| line.trim());
    let block =
        value.trim_end_matches(['+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    if block == "|" {
        let text: Vec<&str> = continuation.collect();
        return text.join("\n").trim().to_owned();
    }
    let mut parts: Vec<&str> = Vec::new();
    if block != ">" && !value.is_empty() {
        parts.push(unquote(value));
    }
    let folded = block == ">";
    parts.extend(
        continuation
            .take_while(|line| folded || !looks_like_key(line))
            .filter(|line| !line.is_empty()),
    );
    parts.join(" ")
}

/// `word:` followed by a space or the end: a (mis-indented) key rather than a continuation.
fn looks_like_key(line: &str) -> bool {
    line.split_once(':').is_some_and(|(key, rest)| {
        !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
            && (rest.is_empty() || rest.starts_with([' ', '\t']))
    })
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}
