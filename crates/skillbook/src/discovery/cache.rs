//! Cached discovery: reuse a result while nothing it depends on has changed.
//!
//! A cold discovery records the state (device, inode, size, modification and change times) of
//! every root, every directory it searched and every skill file it read. A later call checks
//! only those paths — one `stat` each, no listing, no reading — and reuses the result when all
//! are unchanged. That notices a skill added in a new nested folder (its parent directory
//! changes), a skill file edited in place even at the same size (its times change), a skill
//! deleted, and a root created after the first discovery (it was recorded as missing).
//!
//! Times have a granularity, so a change landing in the same tick as the recording could go
//! unseen (the "racy" problem known from version control). A result that depends on anything
//! modified within [`RACY_WINDOW`] of its discovery is therefore never reused: the next call
//! discovers afresh, and the cache becomes warm once the tree has been quiet for that long.
//! Change times (which no one can set back) are compared too, so an edit that restores the old
//! modification time is still seen.

use std::collections::{HashMap, VecDeque};
use std::fs::{self, Metadata};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use super::{Discovered, Discovery};

/// Paths modified this recently before a discovery make its result unsafe to reuse.
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

/// The default number of scopes remembered.
const DEFAULT_CAPACITY: usize = 256;

/// What a path looked like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileState {
    device: u64,
    inode: u64,
    size: u64,
    modified: Option<SystemTime>,
    changed: (i64, i64),
}

impl FileState {
    pub(crate) fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        let (device, inode, changed) = {
            use std::os::unix::fs::MetadataExt;
            (
                metadata.dev(),
                metadata.ino(),
                (metadata.ctime(), metadata.ctime_nsec()),
            )
        };
        #[cfg(not(unix))]
        let (device, inode, changed) = (0, 0, (0, 0));
        FileState {
            device,
            inode,
            size: metadata.len(),
            modified: metadata.modified().ok(),
            changed,
        }
    }
}

/// One path a result depends on, and its state then (`None`: it did not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) path: PathBuf,
    /// Whether the state was read through a final symlink.
    pub(crate) follow: bool,
    pub(crate) state: Option<FileState>,
}

impl Stamp {
    fn still_holds(&self) -> bool {
        let metadata = if self.follow {
            fs::metadata(&self.path)
        } else {
            fs::symlink_metadata(&self.path)
        };
        metadata.ok().as_ref().map(FileState::of) == self.state
    }
}

#[derive(Debug)]
struct Entry {
    found: Arc<Discovered>,
    stamps: Arc<[Stamp]>,
    /// Something changed too close to the discovery to trust the times.
    racy: bool,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<Discovery, Entry>,
    order: VecDeque<Discovery>,
}

/// Remembers discoveries per scope and reuses one while nothing it depends on has changed.
///
/// ```
/// use skillbook::{Discovery, DiscoveryCache, Home};
///
/// let workspace = tempfile::tempdir()?;
/// let cache = DiscoveryCache::new();
/// let mut discovery = Discovery::new(workspace.path());
/// discovery.home(Home::Off);
/// let first = cache.discover(&discovery);
/// let again = cache.discover(&discovery); // one stat per recorded path, or a fresh walk
/// assert_eq!(first.skills, again.skills);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct DiscoveryCache {
    state: Mutex<State>,
    capacity: usize,
}

impl Default for DiscoveryCache {
    fn default() -> Self {
        DiscoveryCache::new()
    }
}

impl DiscoveryCache {
    /// A cache remembering up to 256 scopes (the oldest is forgotten first).
    pub fn new() -> Self {
        DiscoveryCache::with_capacity(DEFAULT_CAPACITY)
    }

    /// A cache remembering up to `capacity` scopes (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        DiscoveryCache {
            state: Mutex::new(State::default()),
            capacity: capacity.max(1),
        }
    }

    /// The result of `discovery`: the remembered one when every path it depends on is
    /// unchanged, else a fresh discovery (which is then remembered).
    pub fn discover(&self, discovery: &Discovery) -> Arc<Discovered> {
        if let Some(found) = self.reusable(discovery) {
            return found;
        }
        let started = SystemTime::now();
        let (found, stamps) = discovery.run(true);
        let racy = stamps.iter().any(|stamp| {
            stamp
                .state
                .and_then(|state| state.modified)
                .is_some_and(|changed| changed + RACY_WINDOW > started)
        });
        let found = Arc::new(found);
        self.remember(
            discovery,
            Entry {
                found: Arc::clone(&found),
                stamps: stamps.into(),
                racy,
            },
        );
        found
    }

    /// Forgets every remembered result.
    pub fn clear(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.entries.clear();
        state.order.clear();
    }

    /// How many scopes are remembered.
    pub fn len(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entries
            .len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn reusable(&self, discovery: &Discovery) -> Option<Arc<Discovered>> {
        let (found, stamps) = {
            let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            let entry = state.entries.get(discovery).filter(|entry| !entry.racy)?;
            (Arc::clone(&entry.found), Arc::clone(&entry.stamps))
        };
        all_hold(&stamps).then_some(found)
    }

    fn remember(&self, discovery: &Discovery, entry: Entry) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.entries.insert(discovery.clone(), entry).is_none() {
            state.order.push_back(discovery.clone());
        }
        while state.entries.len() > self.capacity {
            let Some(oldest) = state.order.pop_front() else {
                break;
            };
            state.entries.remove(&oldest);
        }
    }
}

/// Checks stamps on up to four threads when there are many (each check is one `stat`).
fn all_hold(stamps: &[Stamp]) -> bool {
    const PER_THREAD: usize = 512;
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4)
        .min(stamps.len().div_ceil(PER_THREAD));
    if threads <= 1 {
        return stamps.iter().all(Stamp::still_holds);
    }
    let chunk = stamps.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = stamps
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().all(Stamp::still_holds)))
            .collect();
        workers
            .into_iter()
            .all(|worker| worker.join().unwrap_or(false))
    })
}

#[cfg(test)]
mod tests;
