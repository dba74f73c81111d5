//! A host's say over which skills discovery hands on: a lock, a policy, an allow list.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::skill::Skill;

/// Decides, for each skill discovery finds, whether it may be handed on. A refused skill is
/// not among the results (nor in a catalog, a reader or a tool made from them); the diagnostic
/// returned takes its place, so nothing is dropped silently.
///
/// The decision is made once per discovery, on the walking thread, in the order skills are
/// found, and before duplicate names are resolved (a refused skill shadows nothing). A
/// [`crate::DiscoveryCache`] reuses its result, decisions included, until the paths it stamped
/// change.
///
/// ```
/// use std::sync::Arc;
///
/// use skillbook::{Admission, Diagnostic, DiagnosticCode, Discovery, Home, Skill};
///
/// /// Only skills whose name starts with `team-`.
/// #[derive(Debug)]
/// struct TeamOnly;
///
/// impl Admission for TeamOnly {
///     fn admit(&self, skill: &Skill) -> Result<(), Diagnostic> {
///         if skill.name().as_str().starts_with("team-") {
///             return Ok(());
///         }
///         Err(Diagnostic::warning(
///             DiagnosticCode::NotLocked,
///             skill.location(),
///             "not a team skill; it is not shown",
///         ))
///     }
/// }
///
/// let workspace = tempfile::tempdir()?;
/// for name in ["team-review", "other"] {
///     let folder = workspace.path().join(".agents/skills").join(name);
///     std::fs::create_dir_all(&folder)?;
///     let text = format!("---\nname: {name}\ndescription: A skill.\n---\n");
///     std::fs::write(folder.join("SKILL.md"), text)?;
/// }
/// let found = Discovery::new(workspace.path())
///     .home(Home::Off)
///     .admission(Arc::new(TeamOnly))
///     .discover();
/// assert_eq!(found.skills().len(), 1);
/// assert_eq!(found.diagnostics()[0].code.as_str(), "not_locked");
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait Admission: fmt::Debug + Send + Sync {
    /// `Ok` hands the skill on; `Err` holds the diagnostic reported in its place.
    ///
    /// # Errors
    ///
    /// The diagnostic saying why the skill is not handed on.
    fn admit(&self, skill: &Skill) -> Result<(), Diagnostic>;

    /// Asked again each time a reader made from the results opens the folder of an admitted
    /// skill (`directory`) to read from it, so that a skill changed since discovery is refused
    /// then: `Err` holds why, and the read fails as [`crate::BoundaryError::Refused`] (a server
    /// may show it to a client: it should name no server path). Default: once admitted,
    /// always.
    ///
    /// # Errors
    ///
    /// Why the skill may no longer be read.
    fn recheck(&self, directory: &Path) -> Result<(), String> {
        let _ = directory;
        Ok(())
    }
}

/// An admission held by a [`crate::Discovery`]: two discoveries are equal when they hold the
/// same one (the same allocation).
#[derive(Debug, Clone)]
pub(crate) struct Admit(pub(crate) Arc<dyn Admission>);

impl PartialEq for Admit {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Admit {}

impl Hash for Admit {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(Arc::as_ptr(&self.0).cast::<()>(), state);
    }
}
