//! Resolvers: which skills one run may see.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::discovery::{DEFAULT_NAMESPACES, Discovery, Home, SymlinkPolicy};
use crate::read::Addressing;
use crate::sources::ProvidedSkill;

use super::RunRequest;

/// What one run sees: the workspace, which roots are searched, which skill names are enabled,
/// and skills handed in from memory.
///
/// Relative skill directories resolve against this scope's workspace.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Scope {
    /// The workspace the run works in.
    pub workspace: PathBuf,
    /// Namespaces searched under the workspace (and home, when included). Empty for tenants.
    pub namespaces: Vec<String>,
    /// Whether `<home>/<ns>/skills` is searched.
    pub home: Home,
    /// Extra skill directories, in priority order after the namespace roots.
    pub skill_directories: Vec<PathBuf>,
    /// When set, only skills with these names (compared ignoring case) are visible.
    pub enabled: Option<Vec<String>>,
    /// Skills held in memory.
    pub provided: Vec<ProvidedSkill>,
    /// The symlink policy of discovery.
    pub symlinks: SymlinkPolicy,
    /// How the catalog, the reader, markers and errors name the skills' files: paths on this
    /// machine, or `skill://` URIs only (the default for [`Scope::tenant`]).
    pub addressing: Addressing,
}

impl Scope {
    /// The default scope: `<workspace>/.skillbook/skills` and `<workspace>/.agents/skills`, no
    /// home skills.
    pub fn workspace(workspace: impl Into<PathBuf>) -> Self {
        Scope {
            workspace: workspace.into(),
            namespaces: DEFAULT_NAMESPACES.map(str::to_owned).to_vec(),
            home: Home::Off,
            skill_directories: Vec::new(),
            enabled: None,
            provided: Vec::new(),
            symlinks: SymlinkPolicy::Skip,
            addressing: Addressing::Paths,
        }
    }

    /// The workspace roots plus the user's home roots (`$HOME`).
    pub fn workspace_and_home(workspace: impl Into<PathBuf>) -> Self {
        Scope {
            home: Home::FromEnv,
            ..Scope::workspace(workspace)
        }
    }

    /// Only the given directories: no workspace namespace roots and no home roots, so a tenant
    /// never sees server-wide skills by accident; and every file named by `skill://` URI
    /// ([`Addressing::SkillUris`]), so a tenant's model never sees a path of the host.
    pub fn tenant<I, P>(workspace: impl Into<PathBuf>, directories: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        Scope {
            namespaces: Vec::new(),
            addressing: Addressing::SkillUris,
            skill_directories: directories
                .into_iter()
                .map(|directory| directory.as_ref().to_path_buf())
                .collect(),
            ..Scope::workspace(workspace)
        }
    }

    /// Adds skill directories after the others.
    #[must_use]
    pub fn with_directories<I, P>(mut self, directories: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        self.skill_directories.extend(
            directories
                .into_iter()
                .map(|directory| directory.as_ref().to_path_buf()),
        );
        self
    }

    /// Restricts the run to these skill names.
    #[must_use]
    pub fn with_enabled<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.enabled = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Adds skills held in memory.
    #[must_use]
    pub fn with_provided(mut self, skills: impl IntoIterator<Item = ProvidedSkill>) -> Self {
        self.provided.extend(skills);
        self
    }

    /// The discovery this scope runs (its roots, namespaces, home and symlink policy).
    #[must_use]
    pub fn discovery(&self) -> Discovery {
        let mut discovery = Discovery::new(&self.workspace);
        discovery = discovery
            .namespaces(self.namespaces.iter().cloned())
            .home(self.home.clone())
            .symlinks(self.symlinks)
            .extra_roots(&self.skill_directories);
        discovery
    }
}

type ResolveFn = dyn Fn(&RunRequest) -> Scope + Send + Sync;

/// Decides each run's [`Scope`]. Every run resolves afresh, so a skill added on disk appears on
/// the next run, while the catalog of a run in progress never changes.
#[derive(Clone)]
pub struct Resolver {
    resolve: Arc<ResolveFn>,
}

impl Resolver {
    /// Workspace skills only (the default): no home skills.
    pub fn workspace(workspace: impl Into<PathBuf>) -> Self {
        Resolver::fixed(Scope::workspace(workspace))
    }

    /// Workspace skills plus the user's home skills.
    pub fn workspace_and_home(workspace: impl Into<PathBuf>) -> Self {
        Resolver::fixed(Scope::workspace_and_home(workspace))
    }

    /// Explicit directories only, for tenants: never the default or home roots.
    pub fn tenant<I, P>(workspace: impl Into<PathBuf>, directories: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        Resolver::fixed(Scope::tenant(workspace, directories))
    }

    /// The same scope for every run (still discovered afresh each time).
    pub fn fixed(scope: Scope) -> Self {
        Resolver {
            resolve: Arc::new(move |_| scope.clone()),
        }
    }

    /// A scope computed per request, e.g. from a tenant id the host keeps.
    pub fn custom(resolve: impl Fn(&RunRequest) -> Scope + Send + Sync + 'static) -> Self {
        Resolver {
            resolve: Arc::new(resolve),
        }
    }

    /// The scope of one request.
    pub fn resolve(&self, request: &RunRequest) -> Scope {
        (self.resolve)(request)
    }
}

impl fmt::Debug for Resolver {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_struct("Resolver").finish_non_exhaustive()
    }
}
