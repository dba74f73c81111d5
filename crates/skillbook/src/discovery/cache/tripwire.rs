//! A tripwire for [`DiscoveryCache::watching`](super::DiscoveryCache::watching): watches on
//! every directory a discovery searched, which trip on the first change. While it has not
//! tripped, the remembered result is reused without a single `stat`.
//!
//! The watches are put on another thread after the walk, from the paths the walk recorded, so a
//! watching cache's first discovery costs what a cold one does. Until they are all in place and
//! the recorded states have been checked once more (a change between the walk and its watch is
//! seen then), the cache checks its stamps as a plain cache does. A result with changes too
//! recent for the stamps' times to tell (racy) is checked by walking again once the watches are
//! in place, and the next call waits for that rather than walking itself.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::discovery::cache::{Stamp, all_hold};
use crate::discovery::walk::SKILL_FILE_NAMES;
use crate::discovery::watches::{DEFAULT_MAX_WATCHES, DirectoryWatches};
use crate::discovery::{Discovered, Discovery};

/// Trips on any change in a directory a discovery searched (or on the way to a root not
/// created yet).
pub(super) struct Tripwire {
    tripped: Arc<AtomicBool>,
    /// Every watch is in place and the stamps held after that: events now tell everything.
    armed: Arc<AtomicBool>,
    /// Whether arming has ended (armed or given up), for callers that wait for it.
    done: Arc<(Mutex<bool>, Condvar)>,
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
        Some(Tripwire {
            tripped,
            armed: Arc::new(AtomicBool::new(false)),
            done: Arc::new((Mutex::new(false), Condvar::new())),
            watches,
        })
    }

    /// Puts the watches for what a discovery recorded (`stamps`) in place on another thread:
    /// each directory searched, the folder of each skill file, the nearest existing ancestor of
    /// each missing root. Then checks once that nothing changed between the walk and its
    /// watch — by the stamps, or, for a racy result (`again`), by walking again and comparing —
    /// and trips the wire if something did. When a watch cannot be put (the limit, an error),
    /// the tripwire never arms and the stamps decide every time.
    pub(super) fn arm_in_background(
        &self,
        stamps: Arc<[Stamp]>,
        again: Option<(Discovery, Arc<Discovered>)>,
    ) {
        let (tripped, armed, done, watches) = (
            Arc::clone(&self.tripped),
            Arc::clone(&self.armed),
            Arc::clone(&self.done),
            Arc::clone(&self.watches),
        );
        let finish = move || {
            let (ended, signal) = &*done;
            *ended.lock().unwrap_or_else(PoisonError::into_inner) = true;
            signal.notify_all();
        };
        let arming = move || {
            for (index, stamp) in stamps.iter().enumerate() {
                // The cache forgot this result (or was dropped): no one will look at the watches.
                if index % 64 == 0 && Arc::strong_count(&armed) == 1 {
                    return;
                }
                match stamp.state {
                    None => watches.observe_missing(&stamp.path),
                    Some(_) if is_skill_file(&stamp.path) => {
                        if let Some(folder) = stamp.path.parent() {
                            watches.observe(folder);
                        }
                    }
                    Some(_) => watches.observe(&stamp.path),
                }
            }
            if watches.is_complete() {
                let unchanged = match again {
                    Some((discovery, found)) => discovery.run(false).0 == *found,
                    None => all_hold(&stamps),
                };
                if !unchanged {
                    tripped.store(true, Ordering::SeqCst);
                }
                armed.store(true, Ordering::SeqCst);
            }
            finish();
        };
        let spawned = std::thread::Builder::new()
            .name("skillbook-watches".to_owned())
            .spawn(arming);
        if let Err(error) = spawned {
            tracing::debug!("not watching: cannot start a thread: {error}");
            let (ended, signal) = &*self.done;
            *ended.lock().unwrap_or_else(PoisonError::into_inner) = true;
            signal.notify_all();
        }
    }

    /// Waits until arming has ended; whether the tripwire is armed.
    pub(super) fn wait_armed(&self) -> bool {
        let (ended, signal) = &*self.done;
        let mut ended = ended.lock().unwrap_or_else(PoisonError::into_inner);
        while !*ended {
            ended = signal.wait(ended).unwrap_or_else(PoisonError::into_inner);
        }
        self.is_armed()
    }

    /// Whether the watches are all in place and checked, so events tell every change.
    pub(super) fn is_armed(&self) -> bool {
        self.armed.load(Ordering::SeqCst)
    }

    /// Whether the watches are in place and nothing happened since (or since the last reset).
    pub(super) fn is_quiet(&self) -> bool {
        self.is_armed() && !self.tripped.load(Ordering::SeqCst)
    }

    /// Re-arms after the stamps showed that what happened did not matter.
    pub(super) fn reset(&self) {
        self.tripped.store(false, Ordering::SeqCst);
    }
}

/// Whether `path` names a skill file (its folder is what to watch).
fn is_skill_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| {
        SKILL_FILE_NAMES
            .iter()
            .any(|skill_file| name == *skill_file)
    })
}
