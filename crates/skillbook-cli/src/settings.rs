//! Turns command-line arguments into library settings.

use skillbook::runtime::Scope;
use skillbook::{Discovery, Home, SymlinkPolicy};

use crate::cli::{CommonArgs, Symlinks};

/// The discovery the common options describe.
pub(crate) fn discovery(common: &CommonArgs) -> Discovery {
    scope(common).discovery()
}

/// The scope the common options describe: the workspace's namespace roots, home (unless
/// `--no-home`), the `--extra` directories, and the symlink policy.
pub(crate) fn scope(common: &CommonArgs) -> Scope {
    let home = match (&common.home, common.no_home) {
        (_, true) => Home::Off,
        // A path typed on the command line means the current directory's, like `--workspace`.
        (Some(home), false) => {
            Home::Path(std::path::absolute(home).unwrap_or_else(|_| home.clone()))
        }
        (None, false) => Home::FromEnv,
    };
    let mut scope = Scope::workspace(&common.workspace)
        .with_home(home)
        .with_symlinks(symlink_policy(common.symlinks));
    if !common.namespaces.is_empty() {
        scope = scope.with_namespaces(common.namespaces.iter().cloned());
    }
    scope.with_directories(&common.extra)
}

/// The library's symlink policy for `--symlinks`.
pub(crate) fn symlink_policy(symlinks: Symlinks) -> SymlinkPolicy {
    match symlinks {
        Symlinks::Skip => SymlinkPolicy::Skip,
        Symlinks::Follow => SymlinkPolicy::Follow,
    }
}
