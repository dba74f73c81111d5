//! Skill packages: install Agent Skills from a source into a workspace, pin them in a
//! `skills-lock.json`, verify them against it, restore them from it, update and remove them.
//!
//! The lock has the shape the `skills` npm tool (1.7.x) reads and writes, with its
//! `computedHash` computed as it computes it, so either tool installs from a lock the other
//! wrote; skillbook adds an unambiguous digest and per-file digests, which that tool ignores.
//!
//! ```
//! use skillbook_packages::{Add, Source, Target, verify};
//!
//! // A folder holding one skill, and an empty workspace.
//! let source = tempfile::tempdir()?;
//! let review = source.path().join("review");
//! std::fs::create_dir(&review)?;
//! std::fs::write(
//!     review.join("SKILL.md"),
//!     "---\nname: review\ndescription: Review a diff for bugs.\n---\n# Steps\n",
//! )?;
//! let workspace = tempfile::tempdir()?;
//! let target = Target::workspace(workspace.path());
//!
//! // Plan (find, read and check the skills), then install and lock them.
//! let plan = Add::new(Source::local(source.path())).plan(&target)?;
//! let installed = plan.install(&target)?;
//! assert_eq!(installed.names(), ["review"]);
//! assert!(workspace.path().join(".agents/skills/review/SKILL.md").is_file());
//! assert!(workspace.path().join("skills-lock.json").is_file());
//!
//! // Nothing drifted yet.
//! assert!(verify(&target)?.is_clean());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Sources are local folders and git repositories ([`Source::parse`]: URLs of every transport
//! and GitHub's `owner/repo` shorthand), fetched through gitoxide — one commit, not its history —
//! and pinned in the lock by that commit. Installing is atomic: each skill is written into a
//! temporary folder beside its place, then renamed into it, and a failure leaves the skills and
//! the lock as they were.

#![deny(missing_docs)]

mod agents;
mod collation;
mod error;
mod git;
mod install;
mod lock;
mod remove;
mod require;
mod restore;
mod snapshot;
mod source;
mod verify;

pub use agents::{Agent, ExposeMode};
pub use collation::locale_compare;
pub use error::{LockError, PackageError};
pub use install::{Add, CheckPolicy, Installed, Plan, PlannedSkill, Target};
pub use lock::{LOCK_FILE_NAME, LOCK_VERSION, Lock, LockEntry, NewEntry};
pub use remove::remove;
pub use require::RequireLock;
pub use restore::{
    Install, InstallMode, InstallReport, SkillUpdate, UpdateReport, install, update,
};
pub use snapshot::{FolderLimits, LeftOut, LeftOutReason, computed_hash, digest};
pub use source::{GitSource, Source};
pub use verify::{Drift, SkillDrift, VerifyReport, verify};

/// Makes ring the process's rustls provider (for HTTPS fetches), unless one is installed.
pub(crate) fn install_tls_provider() {
    // An error means a provider is installed already, which serves as well.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
