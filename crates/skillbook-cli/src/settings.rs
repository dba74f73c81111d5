//! Turns command-line arguments into library settings.

use std::path::PathBuf;

use skillbook::runtime::Scope;
use skillbook::{Discovery, Home, SymlinkPolicy};
use skillbook_packages::{RequireLock, Target};

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
    if common.locked {
        scope = scope.with_admission(RequireLock::new(locked_targets(common)).shared());
    }
    scope.with_directories(&common.extra)
}

/// The skills folders `--locked` requires the lock of: the workspace's always (with no lock,
/// none of its skills is locked), the home's when home skills are searched and its lock exists.
fn locked_targets(common: &CommonArgs) -> Vec<Target> {
    let workspace =
        std::path::absolute(&common.workspace).unwrap_or_else(|_| common.workspace.clone());
    let mut targets = vec![Target::workspace(workspace)];
    if let Some(home) = home_folder(common) {
        let global = Target::global(home);
        if global.lock_path().exists() {
            targets.push(global);
        }
    }
    targets
}

/// The library's symlink policy for `--symlinks`.
pub(crate) fn symlink_policy(symlinks: Symlinks) -> SymlinkPolicy {
    match symlinks {
        Symlinks::Skip => SymlinkPolicy::Skip,
        Symlinks::Follow => SymlinkPolicy::Follow,
    }
}

/// The home directory: `--home` (made absolute), else `$HOME` (or `%USERPROFILE%`); `None`
/// with `--no-home` or when neither is set.
pub(crate) fn home_folder(common: &CommonArgs) -> Option<PathBuf> {
    match (&common.home, common.no_home) {
        (_, true) => None,
        (Some(home), false) => Some(std::path::absolute(home).unwrap_or_else(|_| home.clone())),
        (None, false) => std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|home| !home.is_empty())
            .map(PathBuf::from),
    }
}
