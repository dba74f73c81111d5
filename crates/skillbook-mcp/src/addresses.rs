//! How a server names the skills it serves: by path on the server's disk (a local server, for
//! the one user whose disk it is), or by `skill://` URI only (a server that many users reach,
//! which must not tell them how its disk is laid out).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skillbook::BoundaryError;
use skillbook::ReadError;
use skillbook::runtime::{ResolvedScope, ScopedSkill};
use skillbook::uri::{self, SkillUri};
use skillbook::{ErrorCode, error_json};

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

/// Keeps the server's paths out of what it tells a client that must see `skill://` URIs only.
///
/// Only text the server wrote is rewritten, never what a client sent: an error about a file
/// is rebuilt from the error's own path (the skill folder at its start becomes the skill's
/// URI), and a message about one skill has that skill's folder and the read roots replaced. A
/// client that sends a path of the server gets it back as sent, so it cannot learn from the
/// answer whether that path is a skill folder.
#[derive(Debug, Clone, Default)]
pub(crate) struct Redactor {
    /// Each disk skill's folder, by its name's key; empty on a server that names paths.
    directories: HashMap<String, PathBuf>,
    /// The read roots and the workspace, longest first.
    roots: Vec<String>,
}

/// What a read root or the workspace is called once redacted.
const ROOT_WORD: &str = "(skill root)";

/// What a path is called when the skill it belongs to is not known.
const FILE_WORD: &str = "(a skill file)";

impl Redactor {
    /// Nothing to rewrite: a server that names paths.
    pub(crate) fn none() -> Self {
        Redactor::default()
    }

    /// The rewrites for the skills and roots of `resolved`, served from `workspace`.
    pub(crate) fn of(resolved: &ResolvedScope, workspace: &Path) -> Self {
        let directories = resolved
            .skills()
            .iter()
            .filter_map(|skill| match skill {
                ScopedSkill::Disk(disk) => {
                    Some((skill.name().key(), disk.skill().directory().to_path_buf()))
                }
                _ => None,
            })
            .collect();
        let workspace = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_owned());
        let mut roots: Vec<String> = resolved
            .found()
            .read_roots()
            .iter()
            .map(|root| root.as_path())
            .chain([workspace.as_path()])
            .map(|root| root.display().to_string())
            // `/` alone would turn every slash into the word.
            .filter(|shown| shown.len() > 1)
            .collect();
        roots.sort_by(|left, right| right.len().cmp(&left.len()).then(left.cmp(right)));
        roots.dedup();
        Redactor { directories, roots }
    }

    /// How a client is told `path`, a file of the skill `name` (when known): the skill folder
    /// at its start becomes `skill://<name>`; a `skill://` URI stays; anything else is named
    /// by the skill's URI alone.
    pub(crate) fn path(&self, name: Option<&str>, path: PathBuf) -> PathBuf {
        if path.to_str().is_some_and(names_a_uri) {
            return path;
        }
        let Some(name) = name else {
            return PathBuf::from(FILE_WORD);
        };
        let folder = uri::directory(name);
        let inside = self
            .directories
            .get(&key(name))
            .and_then(|directory| path.strip_prefix(directory).ok());
        match inside {
            Some(rest) if rest.as_os_str().is_empty() => PathBuf::from(folder),
            Some(rest) => PathBuf::from(format!("{folder}/{}", rest.display())),
            None => PathBuf::from(folder),
        }
    }

    /// `text`, which the server wrote about the skill `name` (no client input in it), with
    /// that skill's folder and the read roots replaced.
    pub(crate) fn skill_text(&self, name: &str, text: &str) -> String {
        let mut redacted = text.to_owned();
        if let Some(directory) = self.directories.get(&key(name)) {
            let shown = directory.display().to_string();
            redacted = redacted.replace(&shown, &uri::directory(name));
        }
        for root in &self.roots {
            if redacted.contains(root.as_str()) {
                redacted = redacted.replace(root.as_str(), ROOT_WORD);
            }
        }
        redacted
    }

    /// A boundary error about a file of the skill `name`, naming it by URI.
    pub(crate) fn boundary_error(&self, name: &str, error: BoundaryError) -> BoundaryError {
        error.map_path(|path| self.path(Some(name), path))
    }

    /// A read tool error answer that names no server path; `arguments` are the call's, which
    /// name the skill.
    pub(crate) fn read_error(&self, arguments: &Value, error: ReadError) -> Value {
        let name = arguments
            .get("path")
            .and_then(Value::as_str)
            .and_then(|path| SkillUri::parse(path).ok())
            .map(|target| target.name);
        error
            .map_path(|path| self.path(name.as_deref(), path))
            .to_json()
    }

    /// A read tool result that names no server path: the `dir` of a skill file's
    /// `<skill_instructions>` marker becomes the skill's `skill://` directory.
    pub(crate) fn read_result(&self, mut answer: Value) -> Value {
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

/// The key the reader finds a skill by, whatever the case a client wrote its name in
/// ([`skillbook::SkillName::key`]).
fn key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// `content`, which opens with `<skill_instructions name="…" dir="…">`, with that tag naming
/// `directory`. Escaped attribute values never hold `"` or `>` (a line end, in a folder's name,
/// they may), so the first `>` ends the tag and its last ` dir="` starts the value.
fn marker_directory(content: &str, directory: &str) -> String {
    let Some(end) = content
        .starts_with("<skill_instructions ")
        .then(|| content.find('>'))
        .flatten()
    else {
        return content.to_owned();
    };
    let tag = &content[..end];
    let Some(start) = tag.rfind(" dir=\"") else {
        return content.to_owned();
    };
    let directory = skillbook::escape_xml(directory);
    format!("{} dir=\"{directory}\"{}", &tag[..start], &content[end..])
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
            directories: HashMap::from([("pdf".to_owned(), PathBuf::from("/srv/skills/team/pdf"))]),
            roots: vec!["/srv/skills/team".to_owned()],
        }
    }

    #[test]
    fn a_path_in_a_skill_folder_becomes_its_uri() {
        let redactor = redactor();
        let path = |name, path: &str| redactor.path(name, PathBuf::from(path));
        assert_eq!(
            path(Some("pdf"), "/srv/skills/team/pdf/refs"),
            Path::new("skill://pdf/refs")
        );
        assert_eq!(
            path(Some("pdf"), "/srv/skills/team/pdf"),
            Path::new("skill://pdf")
        );
        assert_eq!(
            path(Some("pdf"), "skill://pdf/x"),
            Path::new("skill://pdf/x")
        );
        // Not inside the skill's folder: nothing of it is shown.
        assert_eq!(
            path(Some("pdf"), "/srv/skills/team/pdfx/a"),
            Path::new("skill://pdf")
        );
        assert_eq!(path(None, "/srv/skills/team/pdf"), Path::new(FILE_WORD));
        // The reader finds a skill whatever the case of its name; so does the rewrite.
        assert_eq!(
            path(Some("PDF"), "/srv/skills/team/pdf/refs"),
            Path::new("skill://PDF/refs")
        );
    }

    #[test]
    fn client_text_is_never_rewritten() {
        // The error of a call whose path holds a server path after the skill's URI: only the
        // folder the reader resolved is replaced, not the same text inside what was sent.
        let error = ReadError::Boundary(BoundaryError::NotFound {
            path: PathBuf::from("/srv/skills/team/pdf/x/srv/skills/team/pdf"),
        });
        let arguments = json!({"path": "skill://pdf/x/srv/skills/team/pdf"});
        let answer = redactor().read_error(&arguments, error);
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .starts_with("`skill://pdf/x/srv/skills/team/pdf` does not exist"),
            "{answer}"
        );
    }

    #[test]
    fn a_message_about_a_skill_names_its_folder_by_uri() {
        assert_eq!(
            redactor().skill_text(
                "pdf",
                "`/srv/skills/team/pdf/refs` failed; root `/srv/skills/team/x`"
            ),
            "`skill://pdf/refs` failed; root `(skill root)/x`"
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
            redactor().read_result(answer)["content"],
            "<skill_instructions name=\"pdf\" dir=\"skill://pdf\">\nBody dir=\"x\"\n</skill_instructions>"
        );
        // A line end in the folder's name does not cut the tag short.
        let answer = json!({
            "content": "<skill_instructions name=\"pdf\" dir=\"/srv/a\nb\">\nBody\n</skill_instructions>",
            "skill": "pdf",
        });
        assert_eq!(
            redactor().read_result(answer)["content"],
            "<skill_instructions name=\"pdf\" dir=\"skill://pdf\">\nBody\n</skill_instructions>"
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
