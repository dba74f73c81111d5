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

#[cfg(feature = "watch")]
mod tripwire;

/// Paths modified this recently before a discovery make its result unsafe to reuse.
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

/// The default number of scopes remembered.
const DEFAULT_CAPACITY: usize = 256;

/// What a path looked like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FileState {
    device: u64,
    inode: u64,
    size: u64,
    /// Modification time: seconds and nanoseconds since the epoch.
    modified: (i64, i64),
    /// Change time (Unix), which no one can set back.
    changed: (i64, i64),
}

impl FileState {
    /// The state `metadata` (from a path's `stat` or `lstat`) describes.
    pub(crate) fn of(metadata: &Metadata) -> Self {
        FileState::of_cap(&cap_std::fs::Metadata::from_just_metadata(metadata.clone()))
    }

    /// The state of what an open handle's `fstat` describes.
    #[cfg(unix)]
    pub(crate) fn of_cap(metadata: &cap_std::fs::Metadata) -> Self {
        use cap_std::fs::MetadataExt;
        FileState {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// The state of what an open handle's metadata describes.
    #[cfg(not(unix))]
    pub(crate) fn of_cap(metadata: &cap_std::fs::Metadata) -> Self {
        let since_epoch = metadata
            .modified()
            .ok()
            .map(|time| time.into_std())
            .and_then(|time| time.duration_since(SystemTime::UNIX_EPOCH).ok())
            .unwrap_or_default();
        FileState {
            device: 0,
            inode: 0,
            size: metadata.len(),
            modified: (
                i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
                i64::from(since_epoch.subsec_nanos()),
            ),
            changed: (0, 0),
        }
    }

    /// The same state from a raw `stat` result (what [`FileState::of`] reads through `std`).
    #[cfg(target_os = "linux")]
    #[expect(
        clippy::useless_conversion,
        reason = "the field types of `struct stat` differ between architectures"
    )]
    fn of_stat(stat: &rustix::fs::Stat) -> Self {
        FileState {
            device: u64::from(stat.st_dev),
            inode: u64::from(stat.st_ino),
            size: u64::try_from(stat.st_size).unwrap_or(0),
            modified: (
                i64::from(stat.st_mtime),
                i64::try_from(stat.st_mtime_nsec).unwrap_or(0),
            ),
            changed: (
                i64::from(stat.st_ctime),
                i64::try_from(stat.st_ctime_nsec).unwrap_or(0),
            ),
        }
    }

    /// The modification time.
    fn modified_time(&self) -> Option<SystemTime> {
        let seconds = u64::try_from(self.modified.0).ok()?;
        let nanoseconds = u32::try_from(self.modified.1).ok()?;
        SystemTime::UNIX_EPOCH.checked_add(Duration::new(seconds, nanoseconds))
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
    /// Empty when the entry has a tripwire: its walk beneath the watches records them.
    stamps: Arc<[Stamp]>,
    /// Something changed too close to the discovery to trust the times.
    racy: bool,
    /// Watches on the searched directories, when the cache watches.
    #[cfg(feature = "watch")]
    tripwire: Option<Arc<tripwire::Tripwire>>,
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
/// let discovery = Discovery::new(workspace.path()).home(Home::Off);
/// let first = cache.discover(&discovery);
/// let again = cache.discover(&discovery); // one stat per recorded path, or a fresh walk
/// assert_eq!(first.skills(), again.skills());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct DiscoveryCache {
    state: Mutex<State>,
    capacity: usize,
    /// Arm a file-system watcher on each scope's roots.
    #[cfg_attr(not(feature = "watch"), allow(dead_code))]
    watch: bool,
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
            watch: false,
        }
    }

    /// A cache that also watches each remembered scope's roots (one file-system watcher per
    /// scope, up to 256 scopes). While nothing under them changed, a result is reused without
    /// touching the disk at all; after a change it falls back to checking its stamps.
    ///
    /// A scope's first discovery is a cold walk and costs what one does; the watches go up on
    /// another thread, which walks the tree once more beneath them (and records the stamps for
    /// when something changes). A call made before that walk has ended waits for it, and is
    /// given its result.
    ///
    /// Events arrive asynchronously: a change made a moment (typically well under a
    /// millisecond) before a call may not be seen by that call yet, only by the next one. Use
    /// [`DiscoveryCache::new`] when every call must see every change that happened before it.
    /// Without the `watch` feature, or when a root cannot be watched, this behaves like `new`.
    pub fn watching() -> Self {
        DiscoveryCache {
            watch: true,
            ..DiscoveryCache::new()
        }
    }

    /// The result of `discovery`: the remembered one when every path it depends on is
    /// unchanged, else a fresh discovery (which is then remembered).
    pub fn discover(&self, discovery: &Discovery) -> Arc<Discovered> {
        if let Some(found) = self.reusable(discovery) {
            return found;
        }
        // A cold walk; the watches go up on another thread, which walks again beneath them and
        // records the stamps, so this call costs what a cold discovery does.
        #[cfg(feature = "watch")]
        if self.watch {
            let tripwire = tripwire::Tripwire::new();
            let found = Arc::new(discovery.run(false).0);
            tripwire.arm_in_background(discovery.clone(), Arc::clone(&found));
            self.remember(
                discovery,
                Entry {
                    found: Arc::clone(&found),
                    stamps: Arc::new([]),
                    racy: false,
                    tripwire: Some(Arc::new(tripwire)),
                },
            );
            return found;
        }
        let started = SystemTime::now();
        let (found, stamps) = discovery.run(true);
        let racy = is_racy(&stamps, started);
        let found = Arc::new(found);
        self.remember(
            discovery,
            Entry {
                found: Arc::clone(&found),
                stamps: stamps.into(),
                racy,
                #[cfg(feature = "watch")]
                tripwire: None,
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
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = state.entries.get(discovery)?;
        let (found, stamps, racy) = (
            Arc::clone(&entry.found),
            Arc::clone(&entry.stamps),
            entry.racy,
        );
        #[cfg(feature = "watch")]
        let tripwire = entry.tripwire.clone();
        drop(state);
        #[cfg(feature = "watch")]
        if let Some(tripwire) = tripwire {
            // Wait for the walk beneath the watches (it records the stamps) rather than walking
            // here too.
            let checked = tripwire.checked()?;
            if tripwire.is_quiet() {
                return Some(checked.found);
            }
            // Something happened (or the watches are not all up): watch the way to missing
            // roots again, then let the stamps tell whether it mattered.
            let trips = tripwire.begin_check();
            tripwire.observe_missing(&checked.stamps);
            let held = !checked.racy && all_hold(&checked.stamps);
            tripwire.end_check(trips, held);
            return held.then_some(checked.found);
        }
        if racy {
            return None;
        }
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

/// Whether a path the stamps record was modified within [`RACY_WINDOW`] before `started` (or
/// after it): its times cannot tell a later change.
pub(crate) fn is_racy(stamps: &[Stamp], started: SystemTime) -> bool {
    stamps.iter().any(|stamp| {
        stamp
            .state
            .and_then(|state| state.modified_time())
            .is_some_and(|changed| changed + RACY_WINDOW > started)
    })
}

/// Checks stamps on up to four threads when there are many (each check is one `stat`).
pub(crate) fn all_hold(stamps: &[Stamp]) -> bool {
    const PER_THREAD: usize = 1024;
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4)
        .min(stamps.len().div_ceil(PER_THREAD));
    if threads <= 1 {
        return part_holds(stamps);
    }
    let chunk = stamps.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = stamps
            .chunks(chunk)
            .map(|part| scope.spawn(|| part_holds(part)))
            .collect();
        workers
            .into_iter()
            .all(|worker| worker.join().unwrap_or(false))
    })
}

/// Checks stamps in order, one `stat` each.
#[cfg(not(target_os = "linux"))]
fn part_holds(stamps: &[Stamp]) -> bool {
    stamps.iter().all(Stamp::still_holds)
}

/// Checks stamps in order, one `stat` each, relative to a handle on the grandparent directory
/// (reused while consecutive stamps share it), so the kernel resolves two components instead of
/// the whole path. A stamp whose directory cannot be opened is checked by its full path.
#[cfg(target_os = "linux")]
fn part_holds(stamps: &[Stamp]) -> bool {
    use rustix::fs::{AtFlags, CWD, Mode, OFlags, openat, statat};
    // The few directories used last: walk order alternates between a collection and its parent.
    const KEPT: usize = 4;
    let mut open: Vec<(&std::path::Path, rustix::fd::OwnedFd)> = Vec::with_capacity(KEPT);
    stamps.iter().all(|stamp| {
        let Some((directory, relative)) = split_base(&stamp.path) else {
            return stamp.still_holds();
        };
        let position = match open.iter().position(|(path, _)| *path == directory) {
            Some(position) => position,
            None => {
                let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
                let Ok(fd) = openat(CWD, directory, flags, Mode::empty()) else {
                    return stamp.still_holds();
                };
                if open.len() == KEPT {
                    open.remove(0);
                }
                open.push((directory, fd));
                open.len() - 1
            }
        };
        let fd = &open[position].1;
        let flags = if stamp.follow {
            AtFlags::empty()
        } else {
            AtFlags::SYMLINK_NOFOLLOW
        };
        statat(fd, relative, flags)
            .ok()
            .as_ref()
            .map(FileState::of_stat)
            == stamp.state
    })
}

/// `(grandparent, the last two components)` of an absolute path.
#[cfg(target_os = "linux")]
fn split_base(path: &std::path::Path) -> Option<(&std::path::Path, &std::path::Path)> {
    let base = path.parent()?.parent()?;
    Some((base, path.strip_prefix(base).ok()?))
}

#[cfg(test)]
mod tests;
