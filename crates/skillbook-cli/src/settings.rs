//! Turns command-line arguments into library settings.

use skillbook::{Discovery, Home, SymlinkPolicy};

use crate::cli::{CommonArgs, Symlinks};

/// The discovery the common options describe.
pub(crate) fn discovery(common: &CommonArgs) -> Discovery {
    let mut discovery = Discovery::new(&common.workspace);
    let home = match (&common.home, common.no_home) {
        (_, true) => Home::Off,
        // A path typed on the command line means the current directory's, like `--workspace`.
        (Some(home), false) => {
            Home::Path(std::path::absolute(home).unwrap_or_else(|_| home.clone()))
        }
        (None, false) => Home::FromEnv,
    };
    discovery
        .home(home)
        .extra_roots(&common.extra)
        .symlinks(symlink_policy(common.symlinks));
    if !common.namespaces.is_empty() {
        discovery.namespaces(common.namespaces.iter().cloned());
    }
    discovery
}

/// The library's symlink policy for `--symlinks`.
pub(crate) fn symlink_policy(symlinks: Symlinks) -> SymlinkPolicy {
    match symlinks {
        Symlinks::Skip => SymlinkPolicy::Skip,
        Symlinks::Follow => SymlinkPolicy::Follow,
    }
}
