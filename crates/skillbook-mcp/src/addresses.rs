//! How a server names the skills it serves: by path on the server's disk (a local server, for
//! the one user whose disk it is), or by `skill://` URI only (a server that many users reach,
//! which must not tell them how its disk is laid out).

use serde_json::Value;
use skillbook::error::{ErrorCode, error_json};
use skillbook::runtime::{ResolvedScope, ScopedSkill};
use skillbook::uri;

/// How the catalog, the `read_file` tool and `search_skills` name a skill's files.
///
/// Resources, `skills/list` and `skills/get` always use `skill://` URIs; this decides the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Addresses {
    /// A skill found on disk is located by the absolute path of its `SKILL.md`, and the read
    /// tool takes paths as well as `skill://` URIs (skills held in memory are `skill://`
    /// URIs). The default: what `skillbook mcp` serves to the user whose disk it is.
    #[default]
    Paths,
    /// Every skill is located by its `skill://<name>/SKILL.md` URI; the read tool takes
    /// `skill://` URIs only; results and error messages name files by URI, never by a path
    /// of the server. For a server that others reach over the network (`skillbook serve`).
    SkillUris,
}

/// Rewrites what a server says to a client so that it names no path of the server: each skill
/// directory becomes its `skill://<name>` URI, and any read root or the workspace becomes a
/// neutral word.
#[derive(Debug, Clone, Default)]
pub(crate) struct Redactor {
    /// `(server path, replacement)`, longest path first, so a skill directory is replaced
    /// before the root that holds it.
    replacements: Vec<(String, String)>,
}

/// What a read root or the workspace is called once redacted.
const ROOT_WORD: &str = "(skill root)";

impl Redactor {
    /// Nothing to rewrite: a server that names paths.
    pub(crate) fn none() -> Self {
        Redactor::default()
    }

    /// The rewrites for the skills and roots of `resolved`, served from `workspace`.
    pub(crate) fn of(resolved: &ResolvedScope, workspace: &std::path::Path) -> Self {
        let mut replacements: Vec<(String, String)> = resolved
            .skills
            .iter()
            .filter_map(|skill| match skill {
                ScopedSkill::Disk(disk) => Some((
                    disk.directory.display().to_string(),
                    uri::directory(skill.name()),
                )),
                _ => None,
            })
            .collect();
        let roots = resolved.found.read_roots.iter().map(|root| root.as_path());
        let workspace = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_owned());
        for root in roots.chain([
            workspace.as_path(),
            std::path::Path::new(workspace.as_os_str()),
        ]) {
            let shown = root.display().to_string();
            // `/` alone would turn every slash into the word.
            if shown.len() > 1 {
                replacements.push((shown, ROOT_WORD.to_owned()));
            }
        }
        replacements.sort_by(|left, right| (right.0.len(), &left.0).cmp(&(left.0.len(), &right.0)));
        replacements.dedup_by(|left, right| left.0 == right.0);
        Redactor { replacements }
    }

    /// `text` with every server path replaced.
    pub(crate) fn text(&self, text: &str) -> String {
        let mut redacted = text.to_owned();
        for (path, replacement) in &self.replacements {
            if redacted.contains(path.as_str()) {
                redacted = redacted.replace(path.as_str(), replacement);
            }
        }
        redacted
    }

    /// A read tool answer (a result or `{"error", "message"}`) that names no server path: the
    /// error's message is redacted, and the `dir` of a skill file's `<skill_instructions>`
    /// marker becomes the skill's `skill://` directory.
    pub(crate) fn read_answer(&self, mut answer: Value) -> Value {
        if let Some(Value::String(message)) = answer.get_mut("message") {
            *message = self.text(message);
        }
        let skill = answer
            .get("skill")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let (Some(skill), Some(Value::String(content))) = (skill, answer.get_mut("content")) {
            *content = marker_directory(content, &uri::directory(&skill));
        }
        answer
    }
}

/// `content` whose first line — `<skill_instructions name="…" dir="…">` — names `directory`.
/// Escaped attribute values never hold `"`, so the last ` dir="` of that line starts the value.
fn marker_directory(content: &str, directory: &str) -> String {
    let (first, rest) = content.split_once('\n').unwrap_or((content, ""));
    let Some(start) = first
        .starts_with("<skill_instructions ")
        .then(|| first.rfind(" dir=\""))
        .flatten()
    else {
        return content.to_owned();
    };
    let directory = skillbook::catalog::escape_xml(directory);
    format!("{} dir=\"{directory}\">\n{rest}", &first[..start])
}

/// The read tool's answer to a path that is not a `skill://` URI, on a server that speaks
/// URIs only. It says nothing of whether anything is at that path.
pub(crate) fn uri_required() -> Value {
    error_json(
        ErrorCode::OutsideBoundary,
        "this server names skill files by `skill://` URI only: pass a skill's location from the \
         catalog (`skill://<name>/SKILL.md`), or `skill://<name>/<path>` for a file in its folder",
    )
}

/// The arguments of a read tool call on a server that speaks URIs only, as the reader will
/// see them (an object, also when the model sent it as a JSON string), or the answer refusing
/// them when they name a file by anything but a `skill://` URI.
pub(crate) fn uri_arguments(arguments: Value) -> Result<Value, Value> {
    let arguments = match arguments {
        Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        other => other,
    };
    match arguments.get("path") {
        // Not a path at all: the reader's own error says what is missing, naming no file.
        None | Some(Value::Null) => Ok(arguments),
        Some(Value::String(path)) if names_a_uri(path) => Ok(arguments),
        Some(Value::String(path)) if path.trim().is_empty() => Ok(arguments),
        Some(Value::String(_)) => Err(uri_required()),
        Some(_) => Ok(arguments),
    }
}

/// Whether `path` is a `skill://` URI, exactly as the reader tells one.
fn names_a_uri(path: &str) -> bool {
    path.get(..uri::SCHEME.len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(uri::SCHEME))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;
    use serde_json::json;

    fn redactor() -> Redactor {
        Redactor {
            replacements: vec![
                ("/srv/skills/team/pdf".to_owned(), "skill://pdf".to_owned()),
                ("/srv/skills/team".to_owned(), ROOT_WORD.to_owned()),
            ],
        }
    }

    #[test]
    fn paths_become_uris_and_roots_a_word() {
        assert_eq!(
            redactor().text("`/srv/skills/team/pdf/refs` is a directory; `/srv/skills/team/x`"),
            "`skill://pdf/refs` is a directory; `(skill root)/x`"
        );
    }

    #[test]
    fn the_marker_names_the_skill_directory_by_uri() {
        let answer = json!({
            "path": "skill://pdf/SKILL.md",
            "content": "<skill_instructions name=\"pdf\" dir=\"/srv/skills/team/pdf\">\nBody dir=\"x\"\n</skill_instructions>",
            "skill": "pdf",
        });
        assert_eq!(
            redactor().read_answer(answer)["content"],
            "<skill_instructions name=\"pdf\" dir=\"skill://pdf\">\nBody dir=\"x\"\n</skill_instructions>"
        );
    }

    #[test]
    fn only_skill_uris_are_read() {
        let uri = json!({"path": "skill://pdf/SKILL.md"});
        assert_eq!(uri_arguments(uri.clone()), Ok(uri.clone()));
        assert_eq!(uri_arguments(Value::String(uri.to_string())), Ok(uri));
        let upper = json!({"path": "SKILL://pdf/SKILL.md"});
        assert_eq!(uri_arguments(upper.clone()), Ok(upper));
        for path in [
            "/srv/skills/pdf/SKILL.md",
            "pdf/SKILL.md",
            " skill://pdf/SKILL.md",
            "skill:/pdf",
        ] {
            let arguments = json!({ "path": path });
            assert_eq!(
                uri_arguments(arguments.clone()),
                Err(uri_required()),
                "{path}"
            );
            assert_eq!(
                uri_arguments(Value::String(arguments.to_string())),
                Err(uri_required()),
                "{path} as a string"
            );
        }
        // What is not a path is the reader's to refuse.
        for arguments in [
            json!({}),
            json!({"path": 7}),
            json!({"path": " "}),
            json!([1]),
        ] {
            assert_eq!(uri_arguments(arguments.clone()), Ok(arguments));
        }
    }
}
