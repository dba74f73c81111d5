//! skillbook: Agent Skills for Rust.
//!
//! A skill is a folder holding a `SKILL.md`: YAML front matter (`name`, `description`, …) and
//! Markdown instructions. skillbook finds skills under a workspace, the user's home and extra
//! roots ([`Discovery`]), shows a model a small, cache-stable catalog of them ([`Catalog`]), and
//! lets the model read a skill's full text only when a task needs it, through a read tool that
//! cannot leave the skill folders ([`SkillReader`]).
//!
//! ```
//! use skillbook::{Catalog, Discovery, Home};
//!
//! // A workspace with one skill in the cross-client `.agents/skills` folder.
//! let workspace = tempfile::tempdir()?;
//! let review = workspace.path().join(".agents/skills/code-review");
//! std::fs::create_dir_all(&review)?;
//! std::fs::write(
//!     review.join("SKILL.md"),
//!     "---\nname: code-review\ndescription: Review a diff for bugs & style.\n---\n# Steps\n",
//! )?;
//!
//! // Discovery never fails as a whole: problems come back as diagnostics.
//! let found = Discovery::new(workspace.path()).home(Home::Off).discover();
//! assert_eq!(found.skills().len(), 1);
//! assert!(found.diagnostics().is_empty());
//!
//! // The catalog lists name, description and location, never the body.
//! let catalog = Catalog::new(found.skills()).render().expect("one visible skill");
//! assert!(catalog.text.contains("<name>code-review</name>"));
//! assert!(catalog.text.contains("bugs &amp; style"));
//! let system_prompt = catalog.append_to("You are a careful engineer.");
//! assert!(system_prompt.starts_with("You are a careful engineer.\n\n"));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! The crate root holds what every program needs — [`Discovery`] and its result, the
//! [`Catalog`], the [`SkillReader`] and the [`ReadBoundary`] — and each item has exactly one
//! path. Namespaces are public where they help:
//!
//! - [`runtime`] (feature `runtime`) — each agent run (the three ways a skill reaches a model),
//!   on a resolved [`runtime::Scope`], in the shapes of every major LLM API
//!   ([`runtime::Provider`]);
//! - [`search`] (feature `search`; `meaning` adds the embedded vector table) — ranking skills
//!   for a task;
//! - [`check`] (feature `check`) — `skillbook check`: every rule of the format, and the files a
//!   skill refers to;
//! - [`sources`] — skills in memory, an embedded directory (feature `embed`) or a zip archive
//!   (feature `zip`);
//! - [`uri`] — the `skill://` addresses;
//! - `watch` (feature `watch`) — re-discovering when skill folders change.
//!
//! Features by layer: `runtime`, `check`, `search` and `meaning` are on by default; `embed`,
//! `zip` and `watch` are asked for. With `default-features = false` a program builds discovery,
//! the catalog and the reader alone: no model, no runtime, no checker.
//!
//! Inside, the code reads bottom-up: the boundary (the one module that opens anything on disk),
//! the front matter, the format's rules, the skill, discovery, then the catalog, the reader,
//! search, the runtime and the checker.

#![deny(missing_docs)]

mod boundary;
mod catalog;
#[cfg(feature = "check")]
pub mod check;
mod diagnostic;
mod discovery;
mod error;
mod format;
mod frontmatter;
mod paths;
mod read;
#[cfg(feature = "runtime")]
pub mod runtime;
#[cfg(feature = "search")]
pub mod search;
mod skill;
pub mod sources;
pub mod uri;
#[cfg(feature = "watch")]
pub mod watch;

pub use boundary::{
    BoundaryError, BoundaryFile, DirectoryEntry, EntryKind, NEVER_SERVED, ReadBoundary,
    is_never_served,
};
pub use catalog::{
    Catalog, CatalogEntry, DEFAULT_CATALOG_BUDGET, Fingerprint, MIN_DESCRIPTION_SHARE, READ_FILE,
    RenderedCatalog, SEARCH_SKILLS, Tier, WrittenCatalog, append_to_prompt,
};
pub use diagnostic::{Diagnostic, DiagnosticCode, Severity};
pub use discovery::{
    Admission, DEFAULT_NAMESPACES, Discovered, Discovery, DiscoveryCache, DuplicatePolicy, Finding,
    Home, Limits, Root, RootKind, SymlinkPolicy, discover_default,
};
pub use error::{ErrorCode, error_json};
pub use format::{NameError, SkillName};
pub use read::{
    Addressing, DEFAULT_LOOK_AHEAD_BYTES, DEFAULT_MAX_CHARS, DEFAULT_MAX_FILE_BYTES, FileVersion,
    KnownSkill, MAX_CHARS_CEILING, ReadError, ReadOptions, ReadRequest, ReadResult,
    SkillFileReader, SkillFolder, SkillReader,
};
pub use skill::{DEFAULT_DESCRIPTION, Skill, Source};
