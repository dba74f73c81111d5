//! Hot reload: re-discover when skill folders change, and say what changed.
//!
//! A [`SkillWatcher`] watches every existing root recursively, and for each root that does not
//! exist yet, its nearest existing parent (so a root created later is noticed). File-system
//! events are debounced; after each burst the watches are re-armed for the current roots first
//! and discovery runs second, so nothing created in between is missed. Subscribers get the new
//! result and the [`Changes`]: skills added, removed, and changed (their front matter or any
//! file in their folder).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use serde::Serialize;

use crate::discovery::{Discovered, Discovery};
use crate::format::SkillName;

/// How long the watcher waits for a burst of events to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

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
            (0..found.skills.len())
                .map(|position| (found.skills[position].key(), position))
                .collect()
        };
        let (old, new) = (index(before), index(after));
        let mut changes = Changes::default();
        for (key, &position) in &new {
            let skill = &after.skills[position];
            match old.get(key) {
                None => changes.added.push(skill.name.clone()),
                Some(&previous) => {
                    let touched_inside = touched
                        .iter()
                        .any(|path| path.starts_with(&skill.directory));
                    if before.skills[previous] != *skill || touched_inside {
                        changes.changed.push(skill.name.clone());
                    }
                }
            }
        }
        for (key, &position) in &old {
            if !new.contains_key(key) {
                changes.removed.push(before.skills[position].name.clone());
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
    /// The operating system's file watcher could not be created or refused a path.
    #[error(
        "cannot watch {path}: {source}; check the inotify limits (fs.inotify.max_user_watches) or the path's permissions"
    )]
    Watch {
        /// The path, or `(watcher)` when the watcher itself failed.
        path: String,
        /// What went wrong.
        source: notify::Error,
    },
}

enum Message {
    Events(Vec<PathBuf>),
    Stop,
}

type Watcher = Debouncer<notify::RecommendedWatcher, RecommendedCache>;

/// Watches a discovery's roots and calls a subscriber after each change.
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
    /// Discovers once, starts watching, and calls `on_change` (from a background thread) with
    /// the new result and what changed, whenever something did.
    ///
    /// # Errors
    ///
    /// [`WatchError::Watch`] when the file watcher cannot be created or a root cannot be
    /// watched.
    pub fn start<F>(discovery: Discovery, on_change: F) -> Result<Self, WatchError>
    where
        F: FnMut(&Arc<Discovered>, &Changes) + Send + 'static,
    {
        let (sender, receiver) = mpsc::channel();
        let events = sender.clone();
        let watcher = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
            let paths = match result {
                Ok(events) => events
                    .into_iter()
                    .filter(|event| !matches!(event.kind, EventKind::Access(_)))
                    .flat_map(|event| event.event.paths)
                    .collect(),
                // An error (for example a queue overflow) may hide changes: look again.
                Err(_) => vec![PathBuf::new()],
            };
            if !paths.is_empty() {
                let _ = events.send(Message::Events(paths));
            }
        })
        .map_err(|source| WatchError::Watch {
            path: "(watcher)".to_owned(),
            source,
        })?;
        let mut state = Worker {
            discovery,
            watcher,
            watched: BTreeSet::new(),
        };
        state.arm()?;
        let first = Arc::new(state.discovery.discover());
        let current = Arc::new(Mutex::new(Arc::clone(&first)));
        let shared = Arc::clone(&current);
        let worker = std::thread::Builder::new()
            .name("skillbook-watch".to_owned())
            .spawn(move || state.run(receiver, shared, on_change))
            .map_err(|error| WatchError::Watch {
                path: "(watcher thread)".to_owned(),
                source: notify::Error::io(error),
            })?;
        Ok(SkillWatcher {
            current,
            sender,
            worker: Some(worker),
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
    watcher: Watcher,
    watched: BTreeSet<(PathBuf, bool)>,
}

impl Worker {
    fn run<F>(
        mut self,
        receiver: Receiver<Message>,
        current: Arc<Mutex<Arc<Discovered>>>,
        mut on_change: F,
    ) where
        F: FnMut(&Arc<Discovered>, &Changes),
    {
        while let Ok(Message::Events(mut touched)) = receiver.recv() {
            // Take every burst already queued: one discovery covers them all.
            while let Ok(message) = receiver.try_recv() {
                match message {
                    Message::Events(paths) => touched.extend(paths),
                    Message::Stop => return,
                }
            }
            if !self.is_relevant(&touched) {
                continue;
            }
            if let Err(error) = self.arm() {
                tracing::warn!("{error}");
            }
            let found = Arc::new(self.discovery.discover());
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

    /// Events under a root, or on the way to one (a root's parent being created).
    fn is_relevant(&self, touched: &[PathBuf]) -> bool {
        let roots = self.discovery.roots();
        touched.iter().any(|path| {
            path.as_os_str().is_empty()
                || roots
                    .iter()
                    .any(|root| path.starts_with(&root.path) || root.path.starts_with(path))
                || self
                    .watched
                    .iter()
                    .any(|(watched, recursive)| *recursive && path.starts_with(watched))
        })
    }

    /// Watches each existing root recursively and the nearest existing parent of each missing
    /// one; drops watches no longer needed.
    fn arm(&mut self) -> Result<(), WatchError> {
        let mut wanted: BTreeSet<(PathBuf, bool)> = BTreeSet::new();
        for root in self.discovery.roots() {
            match nearest_existing(&root.path) {
                Some(path) if path == root.path => wanted.insert((path, true)),
                Some(parent) => wanted.insert((parent, false)),
                None => false,
            };
        }
        for (path, recursive) in self
            .watched
            .difference(&wanted.clone())
            .cloned()
            .collect::<Vec<_>>()
        {
            let _ = self.watcher.unwatch(&path);
            self.watched.remove(&(path, recursive));
        }
        for (path, recursive) in wanted {
            if self.watched.contains(&(path.clone(), recursive)) {
                continue;
            }
            let mode = if recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            self.watcher
                .watch(&path, mode)
                .map_err(|source| WatchError::Watch {
                    path: path.display().to_string(),
                    source,
                })?;
            self.watched.insert((path, recursive));
        }
        Ok(())
    }
}

/// `path` if it is a directory, else its nearest ancestor that is.
pub(crate) fn nearest_existing(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .find(|ancestor| ancestor.is_dir())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests;
