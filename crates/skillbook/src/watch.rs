//! Hot reload: re-discover when skill folders change, and say what changed.
//!
//! A [`SkillWatcher`] discovers once and, during that very walk, puts a non-recursive watch on
//! each directory discovery searches (and on the nearest existing parent of each root that
//! does not exist yet, so a root created later is noticed) — start-up walks the tree once.
//! File-system events are debounced; after each burst discovery runs again, watching any new
//! directory as it goes. Subscribers get the new result and the [`Changes`]: skills added,
//! removed, and changed (their front matter or a file directly in their folder).
//!
//! Opens and reads are not changes: the watcher ignores them (on Linux it does not even
//! subscribe to them), so serving skills never wakes it.
//!
//! Watches are kernel entries, not descriptors, but the kernel caps them per user. Past
//! [`WatchLimits::max_watches`] directories (default [`DEFAULT_MAX_WATCHES`], and never more than
//! half of `fs.inotify.max_user_watches`), or when the kernel refuses one, the watcher says so in
//! a warning and checks the recorded state of every path discovery depends on instead, every
//! [`WatchLimits::poll_interval`] (one `stat` per path, no listing, no reading).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::discovery::cache::{Stamp, all_hold};
use crate::discovery::watches::{DirectoryWatches, Seen};
use crate::discovery::{Discovered, Discovery};
use crate::format::SkillName;

pub use crate::discovery::watches::DEFAULT_MAX_WATCHES;

/// How long the watcher waits for a burst of events to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// The longest a steady stream of events can hold discovery back.
const MAX_DEBOUNCE: Duration = Duration::from_secs(2);

/// Past this many paths in one burst, the watcher stops listing them: anything may have changed.
const MAX_TOUCHED: usize = 4096;

/// How often the watcher checks its stamps when it cannot watch every directory.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);

/// How much a [`SkillWatcher`] may watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WatchLimits {
    /// The most directories watched; past it the watcher checks stamps instead. Default
    /// [`DEFAULT_MAX_WATCHES`].
    pub max_watches: usize,
    /// How often stamps are checked when not every directory is watched. Default
    /// [`DEFAULT_POLL_INTERVAL`].
    pub poll_interval: Duration,
}

impl Default for WatchLimits {
    fn default() -> Self {
        WatchLimits {
            max_watches: DEFAULT_MAX_WATCHES,
            poll_interval: DEFAULT_POLL_INTERVAL,
        }
    }
}

/// What changed between two discoveries, by skill name (each list sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Changes {
    /// Skills that are new.
    pub added: Vec<SkillName>,
    /// Skills that are gone.
    pub removed: Vec<SkillName>,
    /// Skills whose front matter or files changed.
    pub changed: Vec<SkillName>,
}

impl Changes {
    /// Compares two discoveries; `touched` are paths known to have changed (their skill counts
    /// as changed even when its front matter did not).
    pub fn between(before: &Discovered, after: &Discovered, touched: &[PathBuf]) -> Changes {
        let index = |found: &Discovered| -> BTreeMap<String, usize> {
            (0..found.skills().len())
                .map(|position| (found.skills()[position].key(), position))
                .collect()
        };
        let (old, new) = (index(before), index(after));
        // The skill folders a touched path lies in (one lookup per component of each path).
        let folders: std::collections::HashMap<&Path, usize> = (0..after.skills().len())
            .map(|position| (after.skills()[position].directory(), position))
            .collect();
        let touched_skills: std::collections::HashSet<usize> = touched
            .iter()
            .filter_map(|path| path.ancestors().find_map(|folder| folders.get(folder)))
            .copied()
            .collect();
        let mut changes = Changes::default();
        for (key, &position) in &new {
            let skill = &after.skills()[position];
            match old.get(key) {
                None => changes.added.push(skill.name.clone()),
                Some(&previous) => {
                    let touched_inside = touched_skills.contains(&position);
                    if before.skills()[previous] != *skill || touched_inside {
                        changes.changed.push(skill.name.clone());
                    }
                }
            }
        }
        for (key, &position) in &old {
            if !new.contains_key(key) {
                changes.removed.push(before.skills()[position].name.clone());
            }
        }
        changes.added.sort();
        changes.removed.sort();
        changes.changed.sort();
        changes
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// The operating system's file watcher could not be created.
    #[error(
        "cannot watch the skill folders: {source}; check the inotify limits \
         (fs.inotify.max_user_instances) or the paths' permissions"
    )]
    Watch {
        /// What went wrong.
        source: std::io::Error,
    },
}

enum Message {
    Seen(Seen),
    Stop,
}

/// Watches what a discovery depends on and calls a subscriber after each change.
///
/// Dropping it stops the watching thread.
pub struct SkillWatcher {
    current: Arc<Mutex<Arc<Discovered>>>,
    sender: Sender<Message>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for SkillWatcher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SkillWatcher")
            .finish_non_exhaustive()
    }
}

impl SkillWatcher {
    /// Discovers once (watching as it walks) and calls `on_change` (from a background thread)
    /// with the new result and what changed, whenever something did. Uses
    /// [`WatchLimits::default`].
    ///
    /// # Errors
    ///
    /// [`WatchError::Watch`] when the operating system's file watcher cannot be created.
    pub fn start<F>(discovery: Discovery, on_change: F) -> Result<Self, WatchError>
    where
        F: FnMut(&Arc<Discovered>, &Changes) + Send + 'static,
    {
        Self::start_with(discovery, WatchLimits::default(), on_change)
    }

    /// [`SkillWatcher::start`] with other limits.
    ///
    /// # Errors
    ///
    /// As [`SkillWatcher::start`].
    pub fn start_with<F>(
        discovery: Discovery,
        limits: WatchLimits,
        on_change: F,
    ) -> Result<Self, WatchError>
    where
        F: FnMut(&Arc<Discovered>, &Changes) + Send + 'static,
    {
        let (sender, receiver) = mpsc::channel();
        let events = sender.clone();
        let watches = DirectoryWatches::start(
            limits.max_watches,
            Box::new(move |seen| {
                let _ = events.send(Message::Seen(seen));
            }),
        )
        .map_err(|source| WatchError::Watch { source })?;
        let mut worker = Worker {
            discovery,
            watches,
            limits,
            stamps: None,
            read_roots: Vec::new(),
        };
        let first = Arc::new(worker.discover());
        let current = Arc::new(Mutex::new(Arc::clone(&first)));
        let shared = Arc::clone(&current);
        let thread = std::thread::Builder::new()
            .name("skillbook-watch".to_owned())
            .spawn(move || worker.run(&receiver, &shared, on_change))
            .map_err(|source| WatchError::Watch { source })?;
        Ok(SkillWatcher {
            current,
            sender,
            worker: Some(thread),
        })
    }

    /// The latest discovery result.
    pub fn current(&self) -> Arc<Discovered> {
        Arc::clone(&self.current.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Drop for SkillWatcher {
    fn drop(&mut self) {
        let _ = self.sender.send(Message::Stop);
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

struct Worker {
    discovery: Discovery,
    watches: Arc<DirectoryWatches>,
    limits: WatchLimits,
    /// The recorded state of every path, while not every directory is watched.
    stamps: Option<Arc<[Stamp]>>,
    /// The read roots of the latest discovery (followed links' targets lie outside the roots).
    read_roots: Vec<PathBuf>,
}

impl Worker {
    /// Discovers, watching every directory searched; falls back to stamps (with a warning) when
    /// not every one could be watched.
    fn discover(&mut self) -> Discovered {
        for root in self.discovery.roots() {
            self.watches.observe_way_to(&root);
        }
        let watches = Arc::clone(&self.watches);
        let mut observe = |directory: &Path| watches.observe(directory);
        let (found, stamps) = self.discovery.run_watched(&mut observe);
        self.read_roots = found.read_roots().to_vec();
        if self.watches.is_complete() {
            self.stamps = None;
        } else {
            if self.stamps.is_none() {
                tracing::warn!(
                    "not every skill folder can be watched ({} watched, at most {}); checking \
                     for changes every {:?} instead",
                    self.watches.count(),
                    self.watches.limit(),
                    self.limits.poll_interval
                );
            }
            self.stamps = Some(stamps.into());
        }
        found
    }

    fn run<F>(
        mut self,
        receiver: &Receiver<Message>,
        current: &Mutex<Arc<Discovered>>,
        mut on_change: F,
    ) where
        F: FnMut(&Arc<Discovered>, &Changes),
    {
        loop {
            let touched = match self.wait(receiver) {
                Some(touched) => touched,
                None => return,
            };
            if !self.is_relevant(&touched) {
                continue;
            }
            let found = Arc::new(self.discover());
            let previous = {
                let mut current = current.lock().unwrap_or_else(PoisonError::into_inner);
                std::mem::replace(&mut *current, Arc::clone(&found))
            };
            let changes = Changes::between(&previous, &found, &touched);
            if !changes.is_empty() {
                on_change(&found, &changes);
            }
        }
    }

    /// Waits for the next change and returns the paths touched (an empty path when anything
    /// may have changed); `None` when stopped.
    fn wait(&self, receiver: &Receiver<Message>) -> Option<Vec<PathBuf>> {
        let first = match &self.stamps {
            None => receiver.recv().ok()?,
            Some(stamps) => loop {
                match receiver.recv_timeout(self.limits.poll_interval) {
                    Ok(message) => break message,
                    Err(RecvTimeoutError::Timeout) if !all_hold(stamps) => {
                        break Message::Seen(Seen::Lost);
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return None,
                }
            },
        };
        let mut touched = Vec::new();
        let mut lost = false;
        let mut message = first;
        // A burst ends after a quiet moment, or after MAX_DEBOUNCE however busy the tree is.
        let started = Instant::now();
        let deadline_from = |now: Instant| (now + DEBOUNCE).min(started + MAX_DEBOUNCE);
        let mut deadline = deadline_from(started);
        loop {
            match message {
                Message::Stop => return None,
                Message::Seen(Seen::Changed(paths)) if !lost => touched.extend(paths),
                Message::Seen(Seen::Changed(_)) => {}
                Message::Seen(Seen::Lost) => lost = true,
            }
            if touched.len() > MAX_TOUCHED {
                lost = true;
            }
            if lost {
                touched.clear();
                touched.push(PathBuf::new());
            }
            // Take the rest of the burst: one discovery covers it all.
            let now = Instant::now();
            match receiver.recv_timeout(deadline.saturating_duration_since(now)) {
                Ok(next) => {
                    message = next;
                    deadline = deadline_from(Instant::now());
                }
                Err(RecvTimeoutError::Timeout) => return Some(touched),
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Events under a root or a followed link's target, on the way to a root (a root's parent
    /// being created), or lost ones.
    fn is_relevant(&self, touched: &[PathBuf]) -> bool {
        let roots = self.discovery.roots();
        touched.iter().any(|path| {
            path.as_os_str().is_empty()
                || self.read_roots.iter().any(|root| path.starts_with(root))
                || roots
                    .iter()
                    .any(|root| path.starts_with(&root.path) || root.path.starts_with(path))
        }) || self.stamps.is_some()
    }
}

#[cfg(test)]
mod tests;
