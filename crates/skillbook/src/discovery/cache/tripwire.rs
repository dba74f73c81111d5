//! A tripwire for [`DiscoveryCache::watching`](super::DiscoveryCache::watching): watches on
//! every directory a discovery searched, which trip on the first change. While it has not
//! tripped, the remembered result is reused without a single `stat`.
//!
//! A watching cache's first discovery is a cold walk, recording nothing, so it costs what a cold
//! discovery does. The watches go up afterwards on another thread, which walks the tree again,
//! putting each directory's watch in place just before searching it and recording the stamps:
//! a change before a watch is seen by that second walk, a change after it trips the wire. That
//! walk's result is the one the cache serves from then on (it is the first one whenever nothing
//! changed), with its stamps for when the wire has tripped. A call made before the second walk
//! has ended waits for it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use crate::discovery::cache::{Stamp, is_racy};
use crate::discovery::watches::{DEFAULT_MAX_WATCHES, DirectoryWatches, Seen};
use crate::discovery::{Discovered, Discovery};

/// What the walk beneath the watches found.
#[derive(Debug, Clone)]
pub(super) struct Checked {
    /// Its result: the first walk's (the same `Arc`) when equal to it.
    pub(super) found: Arc<Discovered>,
    /// The state of every path that result depends on.
    pub(super) stamps: Arc<[Stamp]>,
    /// Something changed too close to that walk for the stamps' times to tell.
    pub(super) racy: bool,
}

/// Trips on any change in a directory a discovery searched (or on the way to a root not
/// created yet).
pub(super) struct Tripwire {
    /// How many times the wire tripped (events seen since the watches went up).
    trips: Arc<AtomicU64>,
    /// Trips up to this count were checked: the stamps held after them.
    checked_through: AtomicU64,
    /// Every watch is in place: events now tell everything.
    armed: Arc<AtomicBool>,
    /// Whether arming has ended (armed or given up), for callers that wait for it.
    done: Arc<(Mutex<bool>, Condvar)>,
    /// The walk beneath the watches, once it has ended.
    checked: Arc<Mutex<Option<Checked>>>,
    /// The watches, kept while the tripwire lives, once the arming thread has made them.
    watches: Arc<OnceLock<Arc<DirectoryWatches>>>,
}

impl std::fmt::Debug for Tripwire {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Tripwire")
            .field("trips", &self.trips)
            .finish_non_exhaustive()
    }
}

impl Tripwire {
    /// A tripwire watching nothing yet.
    pub(super) fn new() -> Self {
        Tripwire {
            trips: Arc::new(AtomicU64::new(0)),
            checked_through: AtomicU64::new(0),
            armed: Arc::new(AtomicBool::new(false)),
            done: Arc::new((Mutex::new(false), Condvar::new())),
            checked: Arc::new(Mutex::new(None)),
            watches: Arc::new(OnceLock::new()),
        }
    }

    /// On another thread, makes the watcher, then walks `discovery` again beneath watches put
    /// in place just before each directory is searched (and on the way to each root: see
    /// `DirectoryWatches::observe_way_to`), recording the stamps, and keeps that walk's result
    /// ([`Tripwire::checked`]). The tripwire is armed when every watch could be put; when the
    /// watcher cannot be made or a watch cannot be put (the limit, an error), it never arms and
    /// the stamps decide every time.
    pub(super) fn arm_in_background(&self, discovery: Discovery, found: Arc<Discovered>) {
        let (trips, armed, done, checked, slot) = (
            Arc::clone(&self.trips),
            Arc::clone(&self.armed),
            Arc::clone(&self.done),
            Arc::clone(&self.checked),
            Arc::clone(&self.watches),
        );
        let arming = move || {
            // Arming ends however the walk does (a panic included): no caller waits forever.
            let _ended = Ended(Arc::clone(&done));
            // Where a change matters, known once the second walk has ended; until then every
            // event trips the wire.
            let relevant: Arc<OnceLock<Vec<PathBuf>>> = Arc::default();
            let watches = DirectoryWatches::start(
                DEFAULT_MAX_WATCHES,
                Box::new({
                    let relevant = Arc::clone(&relevant);
                    move |seen| {
                        if matters(&seen, relevant.get().map(Vec::as_slice)) {
                            trips.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                }),
            )
            .map_err(|error| tracing::debug!("not watching: {error}"))
            .ok();
            if let Some(watches) = &watches {
                for root in discovery.roots() {
                    watches.observe_way_to(&root);
                }
            }
            let started = SystemTime::now();
            let mut observe = |directory: &Path| {
                // Once the cache has forgotten this result (or was dropped), no one will look
                // at the watches: the walk goes on without putting them.
                if let Some(watches) = &watches
                    && Arc::strong_count(&armed) > 1
                {
                    watches.observe(directory);
                }
            };
            let (again, stamps) = discovery.run_watched(&mut observe);
            let racy = is_racy(&stamps, started);
            let found = if again == *found {
                found
            } else {
                Arc::new(again)
            };
            let mut places: Vec<PathBuf> = discovery
                .roots()
                .into_iter()
                .map(|root| root.path)
                .collect();
            places.extend(found.read_roots.iter().cloned());
            let _ = relevant.set(places);
            *checked.lock().unwrap_or_else(PoisonError::into_inner) = Some(Checked {
                found,
                stamps: stamps.into(),
                racy,
            });
            // An incomplete set of watches is of no use (the stamps decide every time): it is
            // dropped rather than held for the entry's life.
            if let Some(watches) = watches.filter(|watches| watches.is_complete()) {
                let _ = slot.set(watches);
                armed.store(true, Ordering::SeqCst);
            }
        };
        let spawned = std::thread::Builder::new()
            .name("skillbook-watches".to_owned())
            .spawn(arming);
        if let Err(error) = spawned {
            tracing::debug!("not watching: cannot start a thread: {error}");
            drop(Ended(Arc::clone(&self.done)));
        }
    }

    /// Watches again the nearest existing folder on the way to each root the stamps record as
    /// missing: after a trip, that folder may be a new one (`.agents` made, `skills` not yet).
    /// Called before the stamps are checked, so a root created after the check trips the wire.
    pub(super) fn observe_missing(&self, stamps: &[Stamp]) {
        if let Some(watches) = self.watches.get() {
            for stamp in stamps.iter().filter(|stamp| stamp.state.is_none()) {
                watches.observe_missing(&stamp.path);
            }
        }
    }

    /// Waits until the walk beneath the watches has ended; what it found (`None` when it could
    /// not run).
    pub(super) fn checked(&self) -> Option<Checked> {
        self.wait();
        self.checked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until arming has ended.
    fn wait(&self) {
        let (ended, signal) = &*self.done;
        let mut ended = ended.lock().unwrap_or_else(PoisonError::into_inner);
        while !*ended {
            ended = signal.wait(ended).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Whether the watches are all in place, so events tell every change.
    pub(super) fn is_armed(&self) -> bool {
        self.armed.load(Ordering::SeqCst)
    }

    /// Whether the watches are in place and every trip so far was checked.
    pub(super) fn is_quiet(&self) -> bool {
        self.is_armed()
            && self.checked_through.load(Ordering::SeqCst) == self.trips.load(Ordering::SeqCst)
    }

    /// Starts checking the stamps after a trip: the trips the check will answer for (those
    /// seen before it looks at a single stamp). Callers may check at once; a trip during a
    /// check is not answered for by it.
    pub(super) fn begin_check(&self) -> u64 {
        self.trips.load(Ordering::SeqCst)
    }

    /// Ends a check begun at `trips`: when the stamps held, those trips are answered for, and
    /// the wire is quiet unless it tripped since.
    pub(super) fn end_check(&self, trips: u64, held: bool) {
        if held {
            self.checked_through.fetch_max(trips, Ordering::SeqCst);
        }
    }
}

/// Whether what the watches saw can change a discovery's result: anything below a root or a
/// read root, or on the way to a root (`.agents` renamed). A file written directly in the
/// workspace or home, watched only as a folder on the way to a root, cannot. Everything matters
/// while `places` is not known yet, and so do lost events.
fn matters(seen: &Seen, places: Option<&[PathBuf]>) -> bool {
    let (Seen::Changed(paths), Some(places)) = (seen, places) else {
        return true;
    };
    paths.iter().any(|path| {
        path.as_os_str().is_empty()
            || places
                .iter()
                .any(|place| path.starts_with(place) || place.starts_with(path))
    })
}

/// Marks arming as ended, and wakes the callers waiting for it, when dropped.
struct Ended(Arc<(Mutex<bool>, Condvar)>);

impl Drop for Ended {
    fn drop(&mut self) {
        let (ended, signal) = &*self.0;
        *ended.lock().unwrap_or_else(PoisonError::into_inner) = true;
        signal.notify_all();
    }
}
