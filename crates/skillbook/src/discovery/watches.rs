//! Watches on exactly the directories discovery searches, registered by its own walk.
//!
//! A recursive watch would walk every root a second time (and, with inotify, add one watch per
//! directory by itself). Instead, the walk tells [`DirectoryWatches::observe`] about each
//! directory just before it lists it, and one non-recursive watch is added there — so a change
//! made after that moment is never missed, and start-up walks the tree once. Roots that do not
//! exist yet are watched through their nearest existing parent, and the folders on the way to
//! each root (from the workspace or home down) are watched too, so that one of them replaced is
//! seen.
//!
//! - Only changes count: creations, deletions, writes, renames and attribute changes. Opens and
//!   reads (including the server's own) are not even subscribed to on Linux, and are ignored
//!   elsewhere.
//! - At most `limit` directories are watched (default [`DEFAULT_MAX_WATCHES`], and never more
//!   than half of the kernel's `fs.inotify.max_user_watches`). Past it — or when the kernel
//!   refuses a watch — the set is marked incomplete, and the owner falls back to checking
//!   stamps, saying so.
//! - Changes inside a skill folder's own subfolders are not watched (discovery does not search
//!   them): a skill's reference files are seen afresh when the skill is read or indexed again.
//!
//! On Linux the watches are raw inotify watches (a few microseconds each, one descriptor for
//! all of them); elsewhere they go through the `notify` crate.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::Root;

/// The most directories watched by default (and never more than half of the kernel's
/// `fs.inotify.max_user_watches`, whose default is 8,192 on older kernels and scales with memory
/// on newer ones: a server may watch up to 65,536 folders, a desktop session keeps the rest).
pub const DEFAULT_MAX_WATCHES: usize = 65_536;

/// What the watches saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seen {
    /// These paths changed (a directory, or an entry in one).
    Changed(Vec<PathBuf>),
    /// Events were lost (the kernel's queue overflowed): anything may have changed.
    Lost,
}

/// A handler of what the watches saw; called on the watches' own thread.
pub(crate) type Handler = Box<dyn FnMut(Seen) + Send>;

/// Non-recursive watches on the directories discovery searched.
pub(crate) struct DirectoryWatches {
    backend: backend::Backend,
    /// Watched directories, by path (sorted, so a folder and everything below it are adjacent).
    /// Keyed by the path as a string, ordered by its bytes (cheaper than by components), so
    /// that everything below a folder is one range: from `folder/` up to `folder0` (the byte
    /// after the separator).
    watched: Mutex<BTreeMap<OsString, backend::Watch>>,
    /// Folders the backend saw removed or moved; forgotten by the next `observe`, on the
    /// caller's thread (never on the backend's own, which some backends cannot re-enter).
    gone: Arc<Mutex<Vec<PathBuf>>>,
    limit: usize,
    incomplete: AtomicBool,
}

impl std::fmt::Debug for DirectoryWatches {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DirectoryWatches")
            .field("watched", &self.count())
            .field("limit", &self.limit)
            .field("complete", &self.is_complete())
            .finish_non_exhaustive()
    }
}

impl DirectoryWatches {
    /// Starts watching nothing yet; `handler` hears about every change from now on.
    ///
    /// # Errors
    ///
    /// When the operating system's watcher cannot be created (for example, too many inotify
    /// instances).
    pub(crate) fn start(limit: usize, handler: Handler) -> io::Result<Arc<Self>> {
        let limit = limit.min(backend::system_limit() / 2).max(1);
        let gone: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
        let forget = {
            let gone = Arc::clone(&gone);
            Box::new(move |path: &Path| {
                gone.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(path.to_path_buf());
            })
        };
        Ok(Arc::new(DirectoryWatches {
            backend: backend::Backend::start(handler, forget)?,
            watched: Mutex::new(BTreeMap::new()),
            gone,
            limit,
            incomplete: AtomicBool::new(false),
        }))
    }

    /// Watches `directory` (not its subdirectories) unless it is watched already or the limit
    /// is reached (then the set becomes incomplete).
    pub(crate) fn observe(&self, directory: &Path) {
        self.watch(directory, true);
    }

    /// Watches `directory` (not its subdirectories) unless it is watched already; when it is
    /// `required`, the set becomes incomplete past the limit or when the watch cannot be put.
    fn watch(&self, directory: &Path, required: bool) {
        let gone = std::mem::take(&mut *self.gone.lock().unwrap_or_else(PoisonError::into_inner));
        for path in &gone {
            self.forget(path);
        }
        let key = directory.as_os_str();
        let mut watched = self.watched.lock().unwrap_or_else(PoisonError::into_inner);
        if watched.contains_key(key) {
            return;
        }
        if watched.len() >= self.limit {
            if required {
                self.incomplete.store(true, Ordering::Relaxed);
            }
            return;
        }
        match self.backend.add(directory) {
            Ok(watch) => {
                watched.insert(key.to_os_string(), watch);
            }
            Err(error) if is_gone(&error) => {}
            Err(error) => {
                tracing::debug!("cannot watch {}: {error}", directory.display());
                if required {
                    self.incomplete.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Watches the nearest existing ancestor of a root that does not exist yet, so that its
    /// creation is seen.
    pub(crate) fn observe_missing(&self, root: &Path) {
        if let Some(ancestor) = root.ancestors().skip(1).find(|ancestor| ancestor.is_dir()) {
            self.observe(ancestor);
        }
    }

    /// Watches the way to a root: the nearest existing ancestor when it does not exist yet (its
    /// creation is seen), else each folder from the directory it is anchored at (the workspace,
    /// home or the root itself) down to its parent, so that one of them renamed or replaced
    /// (`mv .agents old; mv new .agents`) is seen too. The root itself is watched by the walk.
    pub(crate) fn observe_way_to(&self, root: &Root) {
        if std::fs::symlink_metadata(&root.path).is_err() {
            self.observe_missing(&root.path);
            return;
        }
        // Best effort: a folder on the way that cannot be watched (unreadable, say) leaves the
        // rest watched, as before it was watched at all.
        let mut folder = root.anchor.base.clone();
        for component in &root.anchor.components {
            self.watch(&folder, false);
            folder.push(component);
        }
    }

    /// Forgets `path` and everything watched below it (it was removed or moved), so the next
    /// walk watches whatever stands there then.
    pub(crate) fn forget(&self, path: &Path) {
        let separator = std::path::MAIN_SEPARATOR;
        let after_separator = char::from(separator as u8 + 1);
        let mut watched = self.watched.lock().unwrap_or_else(PoisonError::into_inner);
        let mut gone: Vec<OsString> = Vec::new();
        if path.parent().is_some() {
            let (mut below, mut after) = (
                path.as_os_str().to_os_string(),
                path.as_os_str().to_os_string(),
            );
            below.push(separator.to_string());
            after.push(after_separator.to_string());
            gone.extend(
                watched
                    .range(below..after)
                    .map(|(watched, _)| watched.clone()),
            );
        } else {
            // The file system's root: everything.
            gone.extend(watched.keys().cloned());
        }
        gone.push(path.as_os_str().to_os_string());
        for directory in gone {
            if let Some(watch) = watched.remove(&directory) {
                self.backend.remove(Path::new(&directory), watch);
            }
        }
    }

    /// Whether every directory observed is watched.
    pub(crate) fn is_complete(&self) -> bool {
        !self.incomplete.load(Ordering::Relaxed)
    }

    /// How many directories are watched (folders seen removed since the last walk included).
    pub(crate) fn count(&self) -> usize {
        self.watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The most directories watched.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }
}

/// Whether a watch failed because the directory is gone (a race with a deletion).
fn is_gone(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

#[cfg(target_os = "linux")]
mod backend {
    //! Raw inotify: one descriptor, one thread, no open or access events.

    use std::collections::HashMap;
    use std::ffi::OsStr;
    use std::io;
    use std::mem::MaybeUninit;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex, PoisonError};
    use std::thread::JoinHandle;

    use rustix::event::{EventfdFlags, PollFd, PollFlags, eventfd, poll};
    use rustix::fd::OwnedFd;
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

    use super::{Handler, Seen};

    /// A watch descriptor.
    pub(super) type Watch = i32;

    /// Every change that matters, and nothing that only reads.
    const MASK: WatchFlags = WatchFlags::CREATE
        .union(WatchFlags::DELETE)
        .union(WatchFlags::MODIFY)
        .union(WatchFlags::ATTRIB)
        .union(WatchFlags::CLOSE_WRITE)
        .union(WatchFlags::MOVED_FROM)
        .union(WatchFlags::MOVED_TO)
        .union(WatchFlags::DELETE_SELF)
        .union(WatchFlags::MOVE_SELF)
        .union(WatchFlags::DONT_FOLLOW)
        .union(WatchFlags::ONLYDIR);

    pub(super) struct Backend {
        fd: Arc<OwnedFd>,
        paths: Arc<Mutex<HashMap<Watch, PathBuf>>>,
        stop: Arc<AtomicBool>,
        /// Written to on drop, so the event thread wakes and ends at once.
        wake: Arc<OwnedFd>,
        thread: Option<JoinHandle<()>>,
    }

    /// The kernel's per-user watch limit.
    #[expect(
        clippy::disallowed_methods,
        reason = "a kernel setting, not a skill file"
    )]
    pub(super) fn system_limit() -> usize {
        std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(8192)
    }

    impl Backend {
        pub(super) fn start(
            mut handler: Handler,
            forget: Box<dyn Fn(&Path) + Send>,
        ) -> io::Result<Self> {
            let fd = Arc::new(inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?);
            let wake = Arc::new(eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?);
            let paths: Arc<Mutex<HashMap<Watch, PathBuf>>> = Arc::default();
            let stop = Arc::new(AtomicBool::new(false));
            let thread = {
                let (fd, wake) = (Arc::clone(&fd), Arc::clone(&wake));
                let (paths, stop) = (Arc::clone(&paths), Arc::clone(&stop));
                std::thread::Builder::new()
                    .name("skillbook-watches".to_owned())
                    .spawn(move || run(&fd, &wake, &paths, &stop, &mut handler, &*forget))?
            };
            Ok(Backend {
                fd,
                paths,
                stop,
                wake,
                thread: Some(thread),
            })
        }

        pub(super) fn add(&self, directory: &Path) -> io::Result<Watch> {
            let watch = inotify::add_watch(&*self.fd, directory, MASK).map_err(|errno| {
                if errno == rustix::io::Errno::NOSPC {
                    io::Error::other("the kernel's inotify watch limit is reached")
                } else {
                    io::Error::from(errno)
                }
            })?;
            self.paths
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(watch, directory.to_path_buf());
            Ok(watch)
        }

        pub(super) fn remove(&self, directory: &Path, watch: Watch) {
            let mut paths = self.paths.lock().unwrap_or_else(PoisonError::into_inner);
            // The same inode reached by two paths shares one watch: keep it while one remains.
            if paths.get(&watch).is_some_and(|path| path == directory) {
                paths.remove(&watch);
                let _ = inotify::remove_watch(&*self.fd, watch);
            }
        }
    }

    impl Drop for Backend {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
            let _ = rustix::io::write(&*self.wake, &1_u64.to_ne_bytes());
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }

    /// Reads events until stopped, and hands each batch to `handler`.
    fn run(
        fd: &OwnedFd,
        wake: &OwnedFd,
        paths: &Mutex<HashMap<Watch, PathBuf>>,
        stop: &AtomicBool,
        handler: &mut Handler,
        forget: &dyn Fn(&Path),
    ) {
        let mut buffer = vec![MaybeUninit::<u8>::uninit(); 64 * 1024];
        while !stop.load(Ordering::Relaxed) {
            let mut ready = [
                PollFd::new(fd, PollFlags::IN),
                PollFd::new(wake, PollFlags::IN),
            ];
            match poll(&mut ready, None) {
                Ok(_) if stop.load(Ordering::Relaxed) => return,
                Ok(0) => continue,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return,
            }
            let mut changed = Vec::new();
            let mut lost = false;
            let mut gone = Vec::new();
            let mut reader = inotify::Reader::new(fd, &mut buffer);
            loop {
                let event = match reader.next() {
                    Ok(event) => event,
                    Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => break,
                    Err(_) => {
                        lost = true;
                        break;
                    }
                };
                let flags = event.events();
                if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                    lost = true;
                    continue;
                }
                let directory = paths
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(&event.wd())
                    .cloned();
                let Some(directory) = directory else {
                    continue;
                };
                if flags
                    .intersects(ReadFlags::IGNORED | ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF)
                {
                    gone.push(directory.clone());
                }
                let path = match event.file_name() {
                    Some(name) => directory.join(OsStr::from_bytes(name.to_bytes())),
                    None => directory,
                };
                if flags.contains(ReadFlags::ISDIR)
                    && flags.intersects(ReadFlags::DELETE | ReadFlags::MOVED_FROM)
                {
                    gone.push(path.clone());
                }
                changed.push(path);
            }
            for path in &gone {
                forget(path);
            }
            if lost {
                handler(Seen::Lost);
            } else if !changed.is_empty() {
                handler(Seen::Changed(changed));
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod backend {
    //! The `notify` crate's recommended watcher, one non-recursive watch per directory.

    use std::io;
    use std::path::Path;
    use std::sync::{Mutex, PoisonError};

    use notify::{EventKind, RecursiveMode, Watcher};

    use super::{Handler, Seen};

    /// Nothing to remember per watch: `notify` keys them by path.
    pub(super) type Watch = ();

    pub(super) struct Backend {
        watcher: Mutex<notify::RecommendedWatcher>,
    }

    /// No kernel-wide limit to respect.
    pub(super) fn system_limit() -> usize {
        usize::MAX
    }

    impl Backend {
        pub(super) fn start(
            mut handler: Handler,
            forget: Box<dyn Fn(&Path) + Send>,
        ) -> io::Result<Self> {
            let watcher = notify::recommended_watcher(
                move |event: notify::Result<notify::Event>| match event {
                    Ok(event) if matches!(event.kind, EventKind::Access(_)) => {}
                    Ok(event) => {
                        if matches!(
                            event.kind,
                            EventKind::Remove(_)
                                | EventKind::Modify(notify::event::ModifyKind::Name(_))
                        ) {
                            for path in &event.paths {
                                forget(path);
                            }
                        }
                        handler(Seen::Changed(event.paths));
                    }
                    Err(_) => handler(Seen::Lost),
                },
            )
            .map_err(io::Error::other)?;
            Ok(Backend {
                watcher: Mutex::new(watcher),
            })
        }

        pub(super) fn add(&self, directory: &Path) -> io::Result<Watch> {
            self.watcher
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .watch(directory, RecursiveMode::NonRecursive)
                .map_err(io::Error::other)
        }

        pub(super) fn remove(&self, directory: &Path, _watch: Watch) {
            let _ = self
                .watcher
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .unwatch(directory);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
#[allow(clippy::disallowed_methods, reason = "tests read what they wrote")]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// Watches counting every report.
    fn counting(limit: usize) -> (Arc<DirectoryWatches>, Arc<AtomicUsize>) {
        let count = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&count);
        let watches = DirectoryWatches::start(
            limit,
            Box::new(move |_| {
                seen.fetch_add(1, Ordering::SeqCst);
            }),
        )
        .unwrap();
        (watches, count)
    }

    fn settle() {
        std::thread::sleep(Duration::from_millis(400));
    }

    #[test]
    fn reads_are_not_changes_but_writes_are() {
        let temporary = tempfile::tempdir().unwrap();
        let file = temporary.path().join("SKILL.md");
        std::fs::write(&file, "x").unwrap();
        let (watches, count) = counting(16);
        watches.observe(temporary.path());
        for _ in 0..100 {
            assert_eq!(std::fs::read(&file).unwrap(), b"x");
        }
        settle();
        assert_eq!(count.load(Ordering::SeqCst), 0, "reading woke the watcher");
        std::fs::write(&file, "y").unwrap();
        settle();
        assert!(count.load(Ordering::SeqCst) > 0, "a write went unseen");
    }

    #[test]
    fn watches_are_not_recursive_and_stop_at_the_limit() {
        let temporary = tempfile::tempdir().unwrap();
        let directories: Vec<PathBuf> = (0..3)
            .map(|number| {
                let directory = temporary.path().join(format!("d{number}"));
                std::fs::create_dir_all(directory.join("deeper")).unwrap();
                directory
            })
            .collect();
        let (watches, count) = counting(2);
        for directory in &directories {
            watches.observe(directory);
            watches.observe(directory);
        }
        assert_eq!(watches.count(), 2);
        assert!(!watches.is_complete());
        std::fs::write(directories[0].join("deeper/x.md"), "x").unwrap();
        settle();
        assert_eq!(
            count.load(Ordering::SeqCst),
            0,
            "only the observed directory is watched"
        );
        std::fs::write(directories[0].join("x.md"), "x").unwrap();
        settle();
        assert!(count.load(Ordering::SeqCst) > 0);
    }

    #[test]
    fn a_removed_directory_is_forgotten_and_watched_again_when_it_returns() {
        let temporary = tempfile::tempdir().unwrap();
        let directory = temporary.path().join("skill");
        std::fs::create_dir(&directory).unwrap();
        let (watches, count) = counting(16);
        watches.observe(temporary.path());
        watches.observe(&directory);
        assert_eq!(watches.count(), 2);
        std::fs::remove_dir(&directory).unwrap();
        settle();
        // The next walk forgets it first (on its own thread, never the watcher's).
        watches.observe(temporary.path());
        assert_eq!(watches.count(), 1, "the removed folder is forgotten");
        std::fs::create_dir(&directory).unwrap();
        watches.observe(&directory);
        assert_eq!(watches.count(), 2);
        let before = count.load(Ordering::SeqCst);
        std::fs::write(directory.join("SKILL.md"), "x").unwrap();
        settle();
        assert!(count.load(Ordering::SeqCst) > before);
    }

    #[test]
    fn forgetting_a_folder_forgets_what_is_below_it_and_nothing_beside_it() {
        let temporary = tempfile::tempdir().unwrap();
        let top = temporary.path();
        let names = ["a", "a/b", "a/b/c", "a-b", "ab", "a0"];
        for name in names {
            std::fs::create_dir_all(top.join(name)).unwrap();
        }
        let (watches, _) = counting(16);
        for name in names {
            watches.observe(&top.join(name));
        }
        assert_eq!(watches.count(), 6);
        watches.forget(&top.join("a"));
        let left: Vec<OsString> = watches
            .watched
            .lock()
            .unwrap()
            .keys()
            .map(|key| {
                Path::new(key)
                    .strip_prefix(top)
                    .unwrap()
                    .as_os_str()
                    .to_os_string()
            })
            .collect();
        assert_eq!(left, ["a-b", "a0", "ab"]);
    }
}
