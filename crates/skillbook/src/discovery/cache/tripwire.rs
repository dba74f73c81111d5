//! A tripwire for [`DiscoveryCache::watching`](super::DiscoveryCache::watching): watches put by
//! the discovery's own walk on every directory it searches, which trip on the first change.
//! While it has not tripped, the remembered result is reused without a single `stat`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::discovery::Discovered;
use crate::discovery::Discovery;
use crate::discovery::cache::Stamp;
use crate::discovery::watches::{DEFAULT_MAX_WATCHES, DirectoryWatches};

/// Trips on any change in a directory a discovery searched (or on the way to a root not
/// created yet).
pub(super) struct Tripwire {
    tripped: Arc<AtomicBool>,
    watches: Arc<DirectoryWatches>,
}

impl std::fmt::Debug for Tripwire {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Tripwire")
            .field("tripped", &self.tripped)
            .finish_non_exhaustive()
    }
}

impl Tripwire {
    /// A tripwire watching nothing yet; `None` when the watcher cannot be created (the cache
    /// checks its stamps instead).
    pub(super) fn new() -> Option<Self> {
        let tripped = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&tripped);
        let watches = DirectoryWatches::start(
            DEFAULT_MAX_WATCHES,
            Box::new(move |_| flag.store(true, Ordering::SeqCst)),
        )
        .map_err(|error| tracing::debug!("not watching: {error}"))
        .ok()?;
        Some(Tripwire { tripped, watches })
    }

    /// Runs `discovery`, watching each directory as the walk reaches it.
    pub(super) fn discover(&self, discovery: &Discovery) -> (Discovered, Vec<Stamp>) {
        for root in discovery.roots() {
            if std::fs::symlink_metadata(&root.path).is_err() {
                self.watches.observe_missing(&root.path);
            }
        }
        let watches = Arc::clone(&self.watches);
        let mut observe = |directory: &Path| watches.observe(directory);
        discovery.run_watched(&mut observe)
    }

    /// Whether every directory the discovery depends on is watched (else the stamps decide).
    pub(super) fn is_armed(&self) -> bool {
        self.watches.is_complete()
    }

    /// Whether nothing happened since the tripwire was armed (or last reset).
    pub(super) fn is_quiet(&self) -> bool {
        !self.tripped.load(Ordering::SeqCst)
    }

    /// Re-arms after the stamps showed that what happened did not matter.
    pub(super) fn reset(&self) {
        self.tripped.store(false, Ordering::SeqCst);
    }
}
