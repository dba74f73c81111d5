//! Why preparing (or resuming) a run failed. Every one of these happens before any model call.

use std::path::PathBuf;

use crate::catalog::Fingerprint;

/// A run could not be prepared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// A host's built-in tool (no function tool) belongs to another provider than the one the
    /// request goes to: only function tools can be converted, so it is refused, not sent.
    #[error(
        "the host tool `{tool}` is one of {owner}'s built-in tools, which {provider} does not \
         offer; send it only to {owner}, or give the run a function tool in its place"
    )]
    ForeignTool {
        /// Its `type`, or for Gemini its key (`googleSearch`).
        tool: String,
        /// The provider it belongs to.
        owner: &'static str,
        /// The API the request goes to.
        provider: &'static str,
    },
    /// The host owns both names the skill reader could take.
    #[error(
        "the host already has tools named `{first}` and `{second}`; rename one of them so the \
         skill reader can be added"
    )]
    ToolNameConflict {
        /// The reader's name.
        first: String,
        /// Its alias.
        second: String,
    },
    /// The host already owns the fallback tool's name.
    #[error(
        "the host already has a tool named `{name}`; turn the skillbook fallback tool off \
         (`SkillRuntime::activate_tool(false)`) or rename the host's tool"
    )]
    ToolNameTaken {
        /// The name both want.
        name: String,
    },
    /// A selected skill does not exist in this run's scope (or is not enabled).
    #[error(
        "selected skill `{name}` is not available in this run ({available}); check the name and the scope's enabled skills"
    )]
    UnknownSkill {
        /// The name as selected.
        name: String,
        /// The names that are available, comma-separated.
        available: String,
    },
    /// A selected skill is over the size limits for injection.
    #[error(
        "selected skill `{name}` is too large to inject ({chars} characters, {bytes} bytes; the \
         limits are {max_chars} characters and {max_bytes} bytes); shorten its SKILL.md or raise \
         the limits"
    )]
    SkillTooLarge {
        /// The skill.
        name: String,
        /// Its size in characters.
        chars: usize,
        /// Its size in bytes.
        bytes: usize,
        /// The character limit.
        max_chars: usize,
        /// The byte limit.
        max_bytes: usize,
    },
    /// A selected skill's file could not be read.
    #[error("cannot read skill `{name}` at {}: {source}", path.display())]
    SkillUnreadable {
        /// The skill.
        name: String,
        /// Its SKILL.md.
        path: PathBuf,
        /// What went wrong.
        source: crate::read::ReadError,
    },
    /// Two skills share a name but not their content.
    #[error(
        "two different skills are named `{name}` ({first} and {second}); rename one, or provide \
         identical content"
    )]
    DuplicateSkill {
        /// The shared name.
        name: String,
        /// Where the first one lives.
        first: String,
        /// Where the second one lives.
        second: String,
    },
    /// A provided skill points at a file outside every declared root.
    #[error(
        "provided skill `{name}` points at {}, which is outside the scope's skill roots; add its \
         directory as a skill directory or drop the file path", path.display()
    )]
    ProvidedOutsideRoots {
        /// The skill.
        name: String,
        /// The file it points at.
        path: PathBuf,
    },
    /// A provided skill is over the size limit.
    #[error(
        "provided skill `{name}` is {bytes} bytes, over the {limit}-byte limit; move material into its other files"
    )]
    ProvidedTooLarge {
        /// The skill.
        name: String,
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: u64,
    },
    /// [`super::SkillRuntime::resume`]: the catalog the run would show now is not the one the
    /// recorded run showed the model.
    #[error(
        "the skill catalog changed since this run was recorded (fingerprint {}, now {}): the \
         model's earlier turns chose from the old one, so the run cannot be resumed; prepare a new \
         run with `SkillRuntime::prepare` (carrying the history over if you like) and send its \
         system prompt and tools",
        fingerprint_text(.recorded),
        fingerprint_text(.current)
    )]
    CatalogChanged {
        /// The recorded run's catalog fingerprint (`None`: it had no catalog).
        recorded: Option<Fingerprint>,
        /// The catalog fingerprint now (`None`: no skill is model-visible now).
        current: Option<Fingerprint>,
    },
}

/// A fingerprint's hex digits, or `none` for no catalog.
fn fingerprint_text(fingerprint: &Option<Fingerprint>) -> String {
    fingerprint.map_or_else(|| "none".to_owned(), |fingerprint| fingerprint.to_string())
}
