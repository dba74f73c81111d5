//! Resolvers: which skills one run may see.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::discovery::admission::Admit;
use crate::discovery::{Admission, DEFAULT_NAMESPACES, Discovery, Home, Limits, SymlinkPolicy};
use crate::read::Addressing;
use crate::sources::ProvidedSkill;

use super::RunRequest;

/// What one run sees: the workspace, which roots are searched, which skill names are enabled,
/// skills handed in from memory, and the bounds every read of them keeps to.
///
/// Start from [`Scope::workspace`], [`Scope::workspace_and_home`] or [`Scope::tenant`] and
/// change what differs; each `with_*` method takes and returns the scope and documents its
/// default. Relative skill directories resolve against this scope's workspace.
///
/// ```
/// use skillbook::runtime::Scope;
/// use skillbook::{Home, Limits, SymlinkPolicy};
///
/// let mut limits = Limits::default();
/// limits.max_file_bytes = 256 * 1024;
/// let scope = Scope::workspace("/srv/project")
///     .with_home(Home::Off)
///     .with_symlinks(SymlinkPolicy::Follow)
///     .with_directories(["vendor/skills"])
///     .with_limits(limits);
/// assert_eq!(scope.skill_directories().len(), 1);
/// assert_eq!(scope.limits().max_file_bytes, 256 * 1024);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Scope {
    workspace: PathBuf,
    namespaces: Vec<String>,
    home: Home,
    skill_directories: Vec<PathBuf>,
    enabled: Option<Vec<String>>,
    provided: Vec<ProvidedSkill>,
    symlinks: SymlinkPolicy,
    addressing: Addressing,
    limits: Limits,
    admission: Option<Admit>,
}

impl Scope {
    /// The default scope: `<workspace>/.skillbook/skills` and `<workspace>/.agents/skills`, no
    /// home skills, links skipped, files named by path, [`Limits::default`].
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
            limits: Limits::default(),
            admission: None,
        }
    }

    /// The workspace roots plus the user's home roots (`$HOME`).
    pub fn workspace_and_home(workspace: impl Into<PathBuf>) -> Self {
        Scope::workspace(workspace).with_home(Home::FromEnv)
    }

    /// Only the given directories: no workspace namespace roots and no home roots, so a tenant
    /// never sees server-wide skills by accident; and every file named by `skill://` URI
    /// ([`Addressing::SkillUris`]), so a tenant's model never sees a path of the host.
    pub fn tenant<I, P>(workspace: impl Into<PathBuf>, directories: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        Scope::workspace(workspace)
            .with_namespaces(Vec::<String>::new())
            .with_addressing(Addressing::SkillUris)
            .with_directories(directories)
    }

    /// Replaces the namespaces searched under the workspace (and home, when included).
    /// Default: [`DEFAULT_NAMESPACES`]; none for [`Scope::tenant`].
    #[must_use]
    pub fn with_namespaces<I, S>(mut self, namespaces: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.namespaces = namespaces.into_iter().map(Into::into).collect();
        self
    }

    /// Which home directory's `<home>/<ns>/skills` is searched. Default: [`Home::Off`];
    /// [`Home::FromEnv`] for [`Scope::workspace_and_home`].
    #[must_use]
    pub fn with_home(mut self, home: Home) -> Self {
        self.home = home;
        self
    }

    /// Adds skill directories after the others, in priority order after the namespace roots.
    /// Default: none.
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

    /// Restricts the run to these skill names (compared ignoring case). Default: every skill.
    #[must_use]
    pub fn with_enabled<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.enabled = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Adds skills held in memory. Default: none.
    #[must_use]
    pub fn with_provided(mut self, skills: impl IntoIterator<Item = ProvidedSkill>) -> Self {
        self.provided.extend(skills);
        self
    }

    /// What discovery does with symbolic links. Default: [`SymlinkPolicy::Skip`].
    #[must_use]
    pub fn with_symlinks(mut self, policy: SymlinkPolicy) -> Self {
        self.symlinks = policy;
        self
    }

    /// How the catalog, the reader, markers and errors name the skills' files. Default:
    /// [`Addressing::Paths`]; [`Addressing::SkillUris`] for [`Scope::tenant`].
    #[must_use]
    pub fn with_addressing(mut self, addressing: Addressing) -> Self {
        self.addressing = addressing;
        self
    }

    /// The bounds of discovery, and the size limit of every skill file a run reads:
    /// [`Limits::max_file_bytes`] is where discovery stops reading a skill file, the largest
    /// file the run's read tool serves (a `SKILL.md` in its `<skill_instructions>` included),
    /// the largest SKILL.md a host may select or `activate_skill` returns, and the largest
    /// provided skill. Default: [`Limits::default`].
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Hands on only the skills `admission` admits (see [`crate::Admission`]). Default: every
    /// skill.
    #[must_use]
    pub fn with_admission(mut self, admission: Arc<dyn Admission>) -> Self {
        self.admission = Some(Admit(admission));
        self
    }

    /// The workspace the run works in ([`Scope::workspace`] builds a scope).
    #[must_use]
    pub fn workspace_path(&self) -> &Path {
        &self.workspace
    }

    /// The namespaces searched under the workspace (and home, when included).
    #[must_use]
    pub fn namespaces(&self) -> &[String] {
        &self.namespaces
    }

    /// Which home directory is searched.
    #[must_use]
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The extra skill directories, in priority order.
    #[must_use]
    pub fn skill_directories(&self) -> &[PathBuf] {
        &self.skill_directories
    }

    /// The enabled skill names, when the run is restricted to some.
    #[must_use]
    pub fn enabled(&self) -> Option<&[String]> {
        self.enabled.as_deref()
    }

    /// The skills held in memory.
    #[must_use]
    pub fn provided(&self) -> &[ProvidedSkill] {
        &self.provided
    }

    /// What discovery does with symbolic links.
    #[must_use]
    pub fn symlinks(&self) -> SymlinkPolicy {
        self.symlinks
    }

    /// How the catalog, the reader, markers and errors name the skills' files.
    #[must_use]
    pub fn addressing(&self) -> Addressing {
        self.addressing
    }

    /// The bounds of discovery and the size limit of every skill file read
    /// ([`Scope::with_limits`]).
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The discovery this scope runs (its roots, namespaces, home, symlink policy and limits).
    #[must_use]
    pub fn discovery(&self) -> Discovery {
        let discovery = Discovery::new(&self.workspace)
            .namespaces(self.namespaces.iter().cloned())
            .home(self.home.clone())
            .symlinks(self.symlinks)
            .limits(self.limits)
            .extra_roots(&self.skill_directories);
        match &self.admission {
            Some(admit) => discovery.admission(Arc::clone(&admit.0)),
            None => discovery,
        }
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
