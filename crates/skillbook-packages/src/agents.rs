//! Exposing installed skills where other clients look (`--agent`): a relative symbolic link
//! from the client's skills folder to the installed skill (or, with [`ExposeMode::Copy`], a
//! copy of it), recorded in the lock under `skillbook.agents` so that `install` makes it again
//! and `remove` deletes it. Only what skillbook made is ever replaced or deleted: a link to the
//! installed skill, or a copy the lock records.
//!
//! Each client's documented skills folders, in a project and in the home:
//!
//! - Claude Code: `.claude/skills/`, `~/.claude/skills/`
//!   (<https://code.claude.com/docs/en/skills>). It does not read `.agents/skills`: linked.
//! - OpenAI Codex: `.agents/skills/` from the working directory up to the repository root,
//!   `~/.agents/skills/` (<https://developers.openai.com/codex/skills>): skillbook's own
//!   folders, nothing to link.
//! - Cursor: `.agents/skills/` and `.cursor/skills/` in a project, `~/.cursor/skills/` in the
//!   home (<https://cursor.com/docs/context/skills>): a project needs no link; the home's
//!   skills are linked into `~/.cursor/skills`.
//! - GitHub Copilot: `.github/skills/`, `.claude/skills/` or `.agents/skills/`;
//!   `~/.copilot/skills/` or `~/.agents/skills/`
//!   (<https://docs.github.com/en/copilot/concepts/agents/about-agent-skills>): nothing to
//!   link.
//! - Gemini CLI: `.gemini/skills/` or its `.agents/skills/` alias; `~/.gemini/skills/` or
//!   `~/.agents/skills/` (<https://geminicli.com/docs/cli/using-agent-skills/>): nothing to
//!   link.
//!
//! A client that reads `.agents/skills` itself gets no link: a second path to the same skill
//! would show it twice.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

use crate::error::PackageError;
use crate::install::{Target, stage};
use crate::lock::{Lock, LockEntry, normalize};
use crate::snapshot::{FolderLimits, Snapshot, below};

/// A client that reads Agent Skills, by the name the `skills` npm tool gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Agent {
    /// Claude Code (`claude-code`).
    ClaudeCode,
    /// OpenAI Codex (`codex`).
    Codex,
    /// Cursor (`cursor`).
    Cursor,
    /// GitHub Copilot (`github-copilot`).
    GithubCopilot,
    /// Gemini CLI (`gemini-cli`).
    GeminiCli,
}

impl Agent {
    /// Every client known, in this order.
    pub const ALL: [Agent; 5] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Cursor,
        Agent::GithubCopilot,
        Agent::GeminiCli,
    ];

    /// The client's name: `claude-code`, `codex`, `cursor`, `github-copilot` or `gemini-cli`.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::GithubCopilot => "github-copilot",
            Agent::GeminiCli => "gemini-cli",
        }
    }

    /// The folder, below the workspace (or the home when `global`), where the client looks
    /// for skills and which skillbook links into; `None` when the client reads
    /// `.agents/skills` itself (see the module's list of documented folders).
    pub fn folder(self, global: bool) -> Option<&'static str> {
        match (self, global) {
            (Agent::ClaudeCode, _) => Some(".claude/skills"),
            (Agent::Cursor, true) => Some(".cursor/skills"),
            _ => None,
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl FromStr for Agent {
    type Err = PackageError;

    fn from_str(name: &str) -> Result<Agent, PackageError> {
        Agent::ALL
            .into_iter()
            .find(|agent| agent.as_str() == name)
            .ok_or_else(|| PackageError::UnknownAgent {
                name: name.to_owned(),
                known: Agent::ALL.map(Agent::as_str).join(", "),
            })
    }
}

/// How a skill is exposed in a client's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ExposeMode {
    /// A relative symbolic link to the installed skill: it moves with the workspace.
    #[default]
    Link,
    /// A copy of the installed skill's files (`--copy`), for systems or clients without links.
    Copy,
}

impl ExposeMode {
    /// `link` or `copy`, as recorded in the lock.
    pub fn as_str(self) -> &'static str {
        match self {
            ExposeMode::Link => "link",
            ExposeMode::Copy => "copy",
        }
    }

    fn from_lock(text: &str) -> Option<ExposeMode> {
        match text {
            "link" => Some(ExposeMode::Link),
            "copy" => Some(ExposeMode::Copy),
            _ => None,
        }
    }
}

/// The clients a lock entry records, with how each was exposed; unknown names are skipped.
pub(crate) fn recorded(entry: Option<LockEntry<'_>>) -> Vec<(Agent, ExposeMode)> {
    let Some(entry) = entry else {
        return Vec::new();
    };
    entry
        .agents()
        .into_iter()
        .filter_map(|(agent, how)| Some((agent.parse().ok()?, ExposeMode::from_lock(how)?)))
        .collect()
}

/// The clients a skill is exposed to: `recorded` with `added` put over it.
pub(crate) fn merged(
    recorded: &[(Agent, ExposeMode)],
    added: &[(Agent, ExposeMode)],
) -> Vec<(Agent, ExposeMode)> {
    let map: BTreeMap<Agent, ExposeMode> = recorded.iter().chain(added).copied().collect();
    map.into_iter().collect()
}

/// The clients as the lock records them.
pub(crate) fn record(agents: &[(Agent, ExposeMode)]) -> BTreeMap<String, String> {
    agents
        .iter()
        .map(|(agent, mode)| (agent.as_str().to_owned(), mode.as_str().to_owned()))
        .collect()
}

/// One skill to expose to one client: a link or a copy to make at `place`.
#[derive(Debug, Clone)]
pub(crate) struct Exposure {
    place: PathBuf,
    link_target: PathBuf,
    /// The files to copy; `None` for a link.
    copy_of: Option<Snapshot>,
}

impl Exposure {
    /// Where the link or copy goes.
    pub(crate) fn place(&self) -> &Path {
        &self.place
    }

    /// Makes the link or copy under a temporary name beside its place, for
    /// [`crate::install::Swaps`] to rename into it.
    pub(crate) fn stage(&self) -> Result<Staged, PackageError> {
        let folder = self.place.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(folder).map_err(|error| PackageError::io(folder, error))?;
        if let Some(snapshot) = &self.copy_of {
            return Ok(Staged::Folder(stage(folder, snapshot)?));
        }
        let temporary = crate::install::aside_path(&self.place);
        make_link(&self.link_target, &temporary)
            .map_err(|error| PackageError::io(&temporary, error))?;
        Ok(Staged::Link(temporary))
    }
}

/// A link or copy made under a temporary name; dropped, whatever was not renamed is deleted.
pub(crate) enum Staged {
    Folder(tempfile::TempDir),
    Link(PathBuf),
}

impl Staged {
    pub(crate) fn path(&self) -> &Path {
        match self {
            Staged::Folder(folder) => folder.path(),
            Staged::Link(path) => path,
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Staged::Link(path) = self
            && fs::symlink_metadata(&*path).is_ok_and(|metadata| metadata.is_symlink())
        {
            let _ = fs::remove_file(&*path);
        }
    }
}

#[cfg(unix)]
fn make_link(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn make_link(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

#[cfg(not(any(unix, windows)))]
fn make_link(_target: &Path, _link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "symbolic links are not supported here; use --copy",
    ))
}

/// Decides what each client's folder needs for the skills of a [`Target`], refusing places
/// held by something skillbook did not make.
pub(crate) struct Exposer<'a> {
    target: &'a Target,
    lock: &'a Lock,
}

/// What a place in a client's folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Occupant {
    Free,
    /// A link skillbook makes: to the installed skill, by the same relative path.
    OurLink,
    /// A folder the lock records as skillbook's copy.
    OurCopy,
    /// Something else that is the installed skill (a link the user made).
    SameFolder,
    Foreign,
}

impl<'a> Exposer<'a> {
    pub(crate) fn new(target: &'a Target, lock: &'a Lock) -> Exposer<'a> {
        Exposer { target, lock }
    }

    /// What exposing `name` to `agent` needs, if anything. `files` are the skill's files when
    /// it is being installed now (a copy is then made again); otherwise a copy is made again
    /// only when it differs from the installed skill.
    pub(crate) fn plan(
        &self,
        name: &str,
        agent: Agent,
        mode: ExposeMode,
        files: Option<&Snapshot>,
    ) -> Result<Option<Exposure>, PackageError> {
        let Some(folder) = client_folder(self.target, agent)? else {
            return Ok(None);
        };
        let installed = self.target.skills_folder().join(name);
        let place = folder.join(name);
        let link_target = relative(&folder, &installed);
        let record = recorded(self.lock.get(name))
            .into_iter()
            .find(|(known, _)| *known == agent)
            .map(|(_, mode)| mode);
        let needed = match (occupant(&place, &link_target, record, &installed), mode) {
            (Occupant::Foreign, _) => {
                return Err(PackageError::AgentPlaceTaken {
                    agent: agent.as_str().to_owned(),
                    path: place,
                });
            }
            (Occupant::SameFolder, _) | (Occupant::OurLink, ExposeMode::Link) => false,
            (Occupant::OurCopy, ExposeMode::Copy) if files.is_none() => {
                let limits = FolderLimits::default();
                let copy = Snapshot::read(&place, &limits).map(|copy| copy.digest());
                let skill = Snapshot::read(&installed, &limits).map(|skill| skill.digest());
                !matches!((copy, skill), (Ok(copy), Ok(skill)) if copy == skill)
            }
            _ => true,
        };
        if !needed {
            return Ok(None);
        }
        let copy_of = match (mode, files) {
            (ExposeMode::Link, _) => None,
            (ExposeMode::Copy, Some(files)) => Some(files.clone()),
            (ExposeMode::Copy, None) => Some(Snapshot::read(&installed, &FolderLimits::default())?),
        };
        Ok(Some(Exposure {
            place,
            link_target,
            copy_of,
        }))
    }

    /// The links and copies skillbook made for `name` (by its lock entry) that are still in
    /// place, for `remove`.
    pub(crate) fn made(&self, name: &str) -> Vec<PathBuf> {
        let installed = self.target.skills_folder().join(name);
        recorded(self.lock.get(name))
            .into_iter()
            .filter_map(|(agent, mode)| {
                let folder = client_folder(self.target, agent).ok()??;
                let place = folder.join(name);
                let link_target = relative(&folder, &installed);
                match occupant(&place, &link_target, Some(mode), &installed) {
                    Occupant::OurLink | Occupant::OurCopy => Some(place),
                    _ => None,
                }
            })
            .collect()
    }
}

/// The client's folder for this target, or `None` when it needs no link: the client reads
/// `.agents/skills` itself, or its folder is a link to the skills folder.
///
/// # Errors
///
/// [`PackageError::TargetIsLink`] when the folder or the one holding it is another link:
/// skillbook never writes through one.
fn client_folder(target: &Target, agent: Agent) -> Result<Option<PathBuf>, PackageError> {
    let Some(relative) = agent.folder(target.is_global()) else {
        return Ok(None);
    };
    let folder = below(target.base(), relative);
    let skills = normalize(target.skills_folder());
    if let Ok(link) = fs::read_link(&folder) {
        let parent = folder.parent().unwrap_or(Path::new("."));
        if normalize(&parent.join(link)) == skills {
            return Ok(None);
        }
    }
    if let (Ok(real), Ok(skills)) = (
        fs::canonicalize(&folder),
        fs::canonicalize(target.skills_folder()),
    ) && real == skills
    {
        return Ok(None);
    }
    for path in [folder.parent(), Some(folder.as_path())]
        .into_iter()
        .flatten()
    {
        if fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_symlink()) {
            return Err(PackageError::TargetIsLink {
                path: path.to_path_buf(),
            });
        }
    }
    Ok(Some(folder))
}

fn occupant(
    place: &Path,
    link_target: &Path,
    record: Option<ExposeMode>,
    installed: &Path,
) -> Occupant {
    let Ok(metadata) = fs::symlink_metadata(place) else {
        return Occupant::Free;
    };
    if metadata.is_symlink() {
        if fs::read_link(place).is_ok_and(|target| target == link_target) {
            return Occupant::OurLink;
        }
    } else if metadata.is_dir() && record == Some(ExposeMode::Copy) {
        return Occupant::OurCopy;
    }
    match (fs::canonicalize(place), fs::canonicalize(installed)) {
        (Ok(place), Ok(installed)) if place == installed => Occupant::SameFolder,
        _ => Occupant::Foreign,
    }
}

/// `to` relative to the folder `from` (both absolute), lexically; `to` itself when they share
/// no root.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from = normalize(from);
    let to = normalize(to);
    let from_parts: Vec<Component<'_>> = from.components().collect();
    let to_parts: Vec<Component<'_>> = to.components().collect();
    if from_parts.first() != to_parts.first() {
        return to;
    }
    let common = from_parts
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut path = PathBuf::new();
    for _ in common..from_parts.len() {
        path.push("..");
    }
    for part in &to_parts[common..] {
        path.push(part.as_os_str());
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_target_is_relative_to_the_clients_folder() {
        assert_eq!(
            relative(
                Path::new("/w/.claude/skills"),
                Path::new("/w/.agents/skills/review")
            ),
            PathBuf::from("../../.agents/skills/review")
        );
    }

    #[test]
    fn agents_parse_by_the_skills_tools_names() {
        for agent in Agent::ALL {
            assert_eq!(agent.as_str().parse::<Agent>().ok(), Some(agent));
        }
        let message = "claude"
            .parse::<Agent>()
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(message.contains("claude-code, codex, cursor"), "{message}");
    }
}
