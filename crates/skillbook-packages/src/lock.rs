//! `skills-lock.json`: the lock file, in the shape the `skills` npm tool (1.7.x) reads and
//! writes, plus skillbook's own fields under `skillbook`, which that tool ignores.
//!
//! ```json
//! {
//!   "version": 1,
//!   "skills": {
//!     "review": {
//!       "source": "./vendor/skills",
//!       "sourceType": "local",
//!       "skillPath": "review/SKILL.md",
//!       "computedHash": "…",
//!       "skillbook": {
//!         "digest": "sha256:…",
//!         "files": { "SKILL.md": "sha256:…" },
//!         "agents": { "claude-code": "link" }
//!       }
//!     }
//!   }
//! }
//! ```

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::LockError;

/// The lock's file name, in the workspace (or, for `--global`, in the home's `.agents`).
pub const LOCK_FILE_NAME: &str = "skills-lock.json";

/// The only lock version: the one the `skills` tool writes.
pub const LOCK_VERSION: u64 = 1;

/// The key of skillbook's own fields in an entry.
const SKILLBOOK: &str = "skillbook";

/// A lock: each installed skill by name, with where it came from and its hashes.
///
/// Fields neither tool knows, at the top or in an entry, are kept when the lock is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Lock {
    skills: Map<String, Value>,
    /// Top-level fields other than `version` and `skills`, in their order.
    other: Map<String, Value>,
}

impl Default for Lock {
    fn default() -> Self {
        Lock::new()
    }
}

impl Lock {
    /// An empty lock.
    pub fn new() -> Lock {
        Lock {
            skills: Map::new(),
            other: Map::new(),
        }
    }

    /// Reads the lock at `path`. A missing file is an empty lock.
    ///
    /// # Errors
    ///
    /// The file cannot be read, holds merge-conflict markers ([`LockError::ConflictMarkers`]),
    /// is not JSON ([`LockError::Parse`], with the line), is not a lock
    /// ([`LockError::Shape`]), or has another version ([`LockError::UnsupportedVersion`]).
    pub fn read(path: &Path) -> Result<Lock, LockError> {
        match fs::read_to_string(path) {
            Ok(text) => Lock::parse(path, &text),
            Err(source) if source.kind() == io::ErrorKind::NotFound => Ok(Lock::new()),
            Err(source) => Err(LockError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses a lock's text; `path` names the file in errors.
    ///
    /// # Errors
    ///
    /// As [`Lock::read`], except for reading.
    pub fn parse(path: &Path, text: &str) -> Result<Lock, LockError> {
        if let Some(line) = conflict_marker_line(text) {
            return Err(LockError::ConflictMarkers {
                path: path.to_path_buf(),
                line,
            });
        }
        let value: Value = serde_json::from_str(text).map_err(|error| LockError::Parse {
            path: path.to_path_buf(),
            line: error.line(),
            column: error.column(),
            message: error.to_string(),
        })?;
        let shape = |message: String| LockError::Shape {
            path: path.to_path_buf(),
            message,
        };
        let Value::Object(mut root) = value else {
            return Err(shape("the lock is not a JSON object".to_owned()));
        };
        match root.remove("version") {
            Some(Value::Number(number)) if number.as_u64() == Some(LOCK_VERSION) => {}
            Some(Value::Number(number)) => {
                return Err(LockError::UnsupportedVersion {
                    path: path.to_path_buf(),
                    version: number.to_string(),
                });
            }
            _ => return Err(shape("\"version\" is missing or not a number".to_owned())),
        }
        let Some(Value::Object(skills)) = root.remove("skills") else {
            return Err(shape("\"skills\" is missing or not an object".to_owned()));
        };
        for (name, entry) in &skills {
            let Value::Object(entry) = entry else {
                return Err(shape(format!("the entry {name:?} is not an object")));
            };
            for field in TOOL_FIELDS {
                if entry.get(field).is_some_and(|value| !value.is_string()) {
                    return Err(shape(format!("{name:?}: \"{field}\" is not a string")));
                }
            }
            if entry.get(SKILLBOOK).is_some_and(|value| !value.is_object()) {
                return Err(shape(format!("{name:?}: \"skillbook\" is not an object")));
            }
        }
        Ok(Lock {
            skills,
            other: root,
        })
    }

    /// The lock as the `skills` tool writes it: two-space indents, skills in its key order
    /// (JavaScript's: names that are array indices first, by number; the others by UTF-16
    /// code units), a final line end. Unknown top-level fields follow `skills`.
    pub fn to_json(&self) -> String {
        let mut names: Vec<&String> = self.skills.keys().collect();
        names.sort_by(|a, b| javascript_key_order(a, b));
        let skills: Map<String, Value> = names
            .into_iter()
            .filter_map(|name| Some((name.clone(), self.skills.get(name)?.clone())))
            .collect();
        let mut root = Map::new();
        root.insert("version".to_owned(), Value::from(LOCK_VERSION));
        root.insert("skills".to_owned(), Value::Object(skills));
        root.extend(self.other.clone());
        let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the lock to `path` atomically: a temporary file in the same folder, renamed over
    /// the old one.
    ///
    /// # Errors
    ///
    /// [`LockError::Io`] when the file cannot be written; the old lock is then untouched.
    pub fn write(&self, path: &Path) -> Result<(), LockError> {
        let io_error = |source| LockError::Io {
            path: path.to_path_buf(),
            source,
        };
        let folder = match path.parent() {
            Some(folder) if !folder.as_os_str().is_empty() => folder,
            _ => Path::new("."),
        };
        fs::create_dir_all(folder).map_err(io_error)?;
        let mut file = tempfile::Builder::new()
            .prefix(".skills-lock.")
            .suffix(".tmp")
            .tempfile_in(folder)
            .map_err(io_error)?;
        file.write_all(self.to_json().as_bytes())
            .map_err(io_error)?;
        file.as_file().sync_all().map_err(io_error)?;
        file.persist(path).map_err(|error| io_error(error.error))?;
        Ok(())
    }

    /// The entry for `name`.
    pub fn get(&self, name: &str) -> Option<LockEntry<'_>> {
        match self.skills.get(name)? {
            Value::Object(fields) => Some(LockEntry { fields }),
            _ => None,
        }
    }

    /// Every entry, in the lock's written order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, LockEntry<'_>)> {
        let mut names: Vec<&String> = self.skills.keys().collect();
        names.sort_by(|a, b| javascript_key_order(a, b));
        names
            .into_iter()
            .filter_map(|name| Some((name.as_str(), self.get(name)?)))
    }

    /// How many skills the lock holds.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// The lock holds no skill.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// Records `entry` for `name`, replacing an entry of that name (its unknown fields are
    /// kept, after the new entry's).
    pub fn insert(&mut self, name: &str, entry: NewEntry) {
        let mut fields = entry.into_fields();
        if let Some(Value::Object(old)) = self.skills.get(name) {
            for (key, value) in old {
                if !TOOL_FIELDS.contains(&key.as_str()) && key != SKILLBOOK {
                    fields.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        }
        self.skills.insert(name.to_owned(), Value::Object(fields));
    }

    /// Sets the clients `name`'s entry records (skillbook's `agents`), keeping every other
    /// field; does nothing when there is no such entry.
    pub(crate) fn set_agents(&mut self, name: &str, agents: &BTreeMap<String, String>) {
        let Some(Value::Object(fields)) = self.skills.get_mut(name) else {
            return;
        };
        let own = fields
            .entry(SKILLBOOK.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(own) = own {
            let agents: Map<String, Value> = agents
                .iter()
                .map(|(agent, how)| (agent.clone(), Value::from(how.as_str())))
                .collect();
            own.insert("agents".to_owned(), Value::Object(agents));
        }
    }

    /// Removes `name`'s entry; says whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        self.skills.shift_remove(name).is_some()
    }
}

/// The entry fields the `skills` tool writes, in its order.
const TOOL_FIELDS: [&str; 6] = [
    "source",
    "sourceUrl",
    "ref",
    "sourceType",
    "skillPath",
    "computedHash",
];

/// One skill's entry in a [`Lock`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LockEntry<'a> {
    fields: &'a Map<String, Value>,
}

impl<'a> LockEntry<'a> {
    fn text(&self, key: &str) -> Option<&'a str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    fn own(&self, key: &str) -> Option<&'a Value> {
        self.fields.get(SKILLBOOK)?.get(key)
    }

    /// Where the skill came from: a local folder (relative to the lock's folder, `./…`), an
    /// `owner/repo` or a URL.
    pub fn source(&self) -> Option<&'a str> {
        self.text("source")
    }

    /// `local`, `github`, `git`, `gitlab`, …
    pub fn source_type(&self) -> Option<&'a str> {
        self.text("sourceType")
    }

    /// The branch, tag or commit named when the skill was added, if one was.
    pub fn git_ref(&self) -> Option<&'a str> {
        self.text("ref")
    }

    /// The URL cloned, for `git` and `gitlab` sources.
    pub fn source_url(&self) -> Option<&'a str> {
        self.text("sourceUrl")
    }

    /// The skill's `SKILL.md`, relative to the source.
    pub fn skill_path(&self) -> Option<&'a str> {
        self.text("skillPath")
    }

    /// The `skills` tool's folder hash (lower-case hex).
    pub fn computed_hash(&self) -> Option<&'a str> {
        self.text("computedHash")
    }

    /// skillbook's resolved commit, for git sources.
    pub fn commit(&self) -> Option<&'a str> {
        self.own("commit").and_then(Value::as_str)
    }

    /// skillbook's digest of the whole skill (`sha256:…`), unambiguous where `computedHash` is
    /// not: each path and content is length-prefixed, paths in byte order.
    pub fn digest(&self) -> Option<&'a str> {
        self.own("digest").and_then(Value::as_str)
    }

    /// The clients skillbook exposed the skill to (`--agent`), each with how: `link` or
    /// `copy`. Empty when none.
    pub fn agents(&self) -> BTreeMap<&'a str, &'a str> {
        self.own("agents")
            .and_then(Value::as_object)
            .map(|agents| {
                agents
                    .iter()
                    .filter_map(|(agent, how)| Some((agent.as_str(), how.as_str()?)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// skillbook's per-file digests (`sha256:…`) by path, when it wrote the entry.
    pub fn files(&self) -> Option<BTreeMap<&'a str, &'a str>> {
        let files = self.own("files")?.as_object()?;
        files
            .iter()
            .map(|(path, digest)| Some((path.as_str(), digest.as_str()?)))
            .collect()
    }
}

/// A new entry for [`Lock::insert`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry {
    source: String,
    source_type: String,
    git_ref: Option<String>,
    source_url: Option<String>,
    skill_path: Option<String>,
    computed_hash: String,
    commit: Option<String>,
    digest: Option<String>,
    files: Option<BTreeMap<String, String>>,
    agents: BTreeMap<String, String>,
}

impl NewEntry {
    /// An entry with the fields every entry has.
    pub fn new(
        source: impl Into<String>,
        source_type: impl Into<String>,
        computed_hash: impl Into<String>,
    ) -> NewEntry {
        NewEntry {
            source: source.into(),
            source_type: source_type.into(),
            git_ref: None,
            source_url: None,
            skill_path: None,
            computed_hash: computed_hash.into(),
            commit: None,
            digest: None,
            files: None,
            agents: BTreeMap::new(),
        }
    }

    /// The ref named by the user. Default: none (then `ref` is not written).
    #[must_use]
    pub fn git_ref(mut self, git_ref: impl Into<String>) -> Self {
        self.git_ref = Some(git_ref.into());
        self
    }

    /// The URL cloned. Default: none.
    #[must_use]
    pub fn source_url(mut self, url: impl Into<String>) -> Self {
        self.source_url = Some(url.into());
        self
    }

    /// The skill's `SKILL.md` relative to the source. Default: none.
    #[must_use]
    pub fn skill_path(mut self, path: impl Into<String>) -> Self {
        self.skill_path = Some(path.into());
        self
    }

    /// The resolved commit. Default: none.
    #[must_use]
    pub fn commit(mut self, commit: impl Into<String>) -> Self {
        self.commit = Some(commit.into());
        self
    }

    /// skillbook's digest and per-file digests. Default: none.
    #[must_use]
    pub fn digests(mut self, digest: impl Into<String>, files: BTreeMap<String, String>) -> Self {
        self.digest = Some(digest.into());
        self.files = Some(files);
        self
    }

    /// The clients the skill is exposed to, each with `link` or `copy`. Default: none (then
    /// `agents` is not written).
    #[must_use]
    pub fn agents(mut self, agents: BTreeMap<String, String>) -> Self {
        self.agents = agents;
        self
    }

    fn into_fields(self) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("source".to_owned(), self.source.into());
        if let Some(url) = self.source_url {
            fields.insert("sourceUrl".to_owned(), url.into());
        }
        if let Some(git_ref) = self.git_ref {
            fields.insert("ref".to_owned(), git_ref.into());
        }
        fields.insert("sourceType".to_owned(), self.source_type.into());
        if let Some(path) = self.skill_path {
            fields.insert("skillPath".to_owned(), path.into());
        }
        fields.insert("computedHash".to_owned(), self.computed_hash.into());
        let mut own = Map::new();
        if let Some(commit) = self.commit {
            own.insert("commit".to_owned(), commit.into());
        }
        if let Some(digest) = self.digest {
            own.insert("digest".to_owned(), digest.into());
        }
        if let Some(files) = self.files {
            let files: Map<String, Value> = files
                .into_iter()
                .map(|(path, digest)| (path, Value::from(digest)))
                .collect();
            own.insert("files".to_owned(), Value::Object(files));
        }
        if !self.agents.is_empty() {
            let agents: Map<String, Value> = self
                .agents
                .into_iter()
                .map(|(agent, how)| (agent, Value::from(how)))
                .collect();
            own.insert("agents".to_owned(), Value::Object(agents));
        }
        if !own.is_empty() {
            fields.insert(SKILLBOOK.to_owned(), Value::Object(own));
        }
        fields
    }
}

/// The 1-based line of the first merge-conflict marker, if any.
fn conflict_marker_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            ["<<<<<<<", "|||||||", ">>>>>>>"]
                .iter()
                .any(|marker| line.starts_with(marker))
                || line.trim_end() == "======="
        })
        .map(|index| index + 1)
}

/// The order JavaScript gives an object's keys after `Object.keys(…).sort()`: keys that are
/// array indices (canonical decimal below 2³² − 1) first, by value; then the others by UTF-16
/// code units.
fn javascript_key_order(a: &str, b: &str) -> Ordering {
    match (array_index(a), array_index(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.encode_utf16().cmp(b.encode_utf16()),
    }
}

fn array_index(key: &str) -> Option<u32> {
    let value: u32 = key.parse().ok()?;
    (value != u32::MAX && value.to_string() == key).then_some(value)
}

/// A local source as the `skills` tool writes it: relative to the lock's folder (`./x`,
/// `../x`, `.`), or absolute with `/` separators when it cannot be made relative.
pub(crate) fn portable_local_source(source: &Path, lock_folder: &Path) -> String {
    let source = normalize(source);
    let base = normalize(lock_folder);
    let source_parts: Vec<Component<'_>> = source.components().collect();
    let base_parts: Vec<Component<'_>> = base.components().collect();
    if source_parts.first() != base_parts.first() {
        return slashes(&source);
    }
    let common = source_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".to_owned(); base_parts.len() - common];
    parts.extend(
        source_parts[common..]
            .iter()
            .map(|part| part.as_os_str().to_string_lossy().into_owned()),
    );
    let relative = parts.join("/");
    if relative.is_empty() {
        ".".to_owned()
    } else if relative == ".." || relative.starts_with("../") {
        relative
    } else {
        format!("./{relative}")
    }
}

/// A local source from the lock, made absolute against the lock's folder.
pub(crate) fn resolve_local_source(source: &str, lock_folder: &Path) -> PathBuf {
    normalize(&lock_folder.join(source))
}

/// `path` without `.` components and with `..` applied, lexically.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other.as_os_str()),
        }
    }
    normal
}

fn slashes(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests;
