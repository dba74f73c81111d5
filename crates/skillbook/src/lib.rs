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
//! The modules follow the specification's nouns, in the order a skill flows through them:
//!
//! - [`format`](mod@format) — the Agent Skills format's rules and the [`SkillName`] type (pure: no disk);
//! - [`frontmatter`] — reading a `SKILL.md`;
//! - [`discovery`] — walking roots (by handles, never by paths), with [`DiscoveryCache`] making
//!   repeated discovery nearly free and `watch` (feature `watch`, on by default) re-discovering
//!   on change;
//! - [`boundary`] — the one module that opens anything on disk, and [`ReadBoundary`] for hosts
//!   that read a workspace as well;
//! - [`reader`] — the [`SkillReader`] every surface reads skills through: one handle per root,
//!   each skill folder verified to be the one discovery found, links kept inside their skill;
//! - [`read`] — the `read_file` tool's arguments, segments and results;
//! - [`catalog`] — what the model sees; [`uri`] — the `skill://` addresses;
//! - [`runtime`] — each agent run (the three ways a skill reaches a model), on a resolved
//!   [`runtime::Scope`], in the shapes of every major LLM API ([`runtime::Provider`]);
//! - [`sources`] — skills in memory, an embedded directory or a zip archive;
//! - [`validate`] — `skillbook check`; [`diagnostic`] and [`error`] — every problem met on the
//!   way, typed, with stable codes.
//!
//! Features (all on by default): `embed` ([`sources::from_embedded`]), `zip`
//! ([`sources::from_zip`]) and `watch` (hot reload and [`DiscoveryCache::watching`]).

#![deny(missing_docs)]

pub mod boundary;
pub mod catalog;
pub mod diagnostic;
pub mod discovery;
pub mod error;
pub mod format;
pub mod frontmatter;
mod paths;
pub mod read;
pub mod reader;
#[cfg(feature = "runtime")]
pub mod runtime;
#[cfg(feature = "search")]
pub mod search;
mod skill;
pub mod sources;
pub mod uri;
#[cfg(feature = "check")]
pub mod validate;
#[cfg(feature = "watch")]
pub mod watch;

pub use boundary::{BoundaryError, ReadBoundary};
pub use catalog::{Catalog, CatalogEntry, Fingerprint, RenderedCatalog, Tier, append_to_prompt};
pub use diagnostic::{Diagnostic, DiagnosticCode, Severity};
pub use discovery::{
    Discovered, Discovery, DiscoveryCache, DuplicatePolicy, Home, Limits, Root, RootKind,
    SymlinkPolicy, discover_default,
};
pub use error::ErrorCode;
pub use format::SkillName;
pub use read::{KnownSkill, ReadError, ReadFile, ReadRequest, ReadResult};
pub use reader::SkillReader;
pub use skill::{DEFAULT_DESCRIPTION, Skill, Source};
