//! A tripwire for [`DiscoveryCache::watching`](super::DiscoveryCache::watching): a file-system
//! watcher armed on a scope's roots before it is discovered, which trips on the first change.
//! While it has not tripped, the remembered result is reused without a single `stat`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::discovery::Discovery;
use crate::watch::nearest_existing;

/// Trips on any change under a scope's roots (or on the way to a root not created yet).
pub(super) struct Tripwire {
    tripped: Arc<AtomicBool>,
    _watcher: notify::RecommendedWatcher,
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
    /// Arms a tripwire on `discovery`'s roots; `None` when the watcher cannot be created or a
    /// root cannot be watched (for example over the inotify watch limit), in which case the
    /// cache checks its stamps instead.
    pub(super) fn arm(discovery: &Discovery) -> Option<Self> {
        let tripped = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&tripped);
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let harmless =
                    matches!(&event, Ok(event) if matches!(event.kind, EventKind::Access(_)));
                if !harmless {
                    flag.store(true, Ordering::SeqCst);
                }
            })
            .ok()?;
        for root in discovery.roots() {
            let (path, mode) = match nearest_existing(&root.path)? {
                path if path == root.path => (path, RecursiveMode::Recursive),
                parent => (parent, RecursiveMode::NonRecursive),
            };
            if let Err(error) = watcher.watch(&path, mode) {
                tracing::debug!("not watching {}: {error}", path.display());
                return None;
            }
        }
        Some(Tripwire {
            tripped,
            _watcher: watcher,
        })
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
