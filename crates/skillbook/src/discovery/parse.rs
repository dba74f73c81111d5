//! Reading and parsing skill files, on worker threads while the walk goes on.
//!
//! The walk stays on one thread and decides everything about order: it opens each skill file
//! (so the identity checks and the leaf rule are settled there) and hands the open file to a
//! worker. Each hand-off takes a numbered slot, and when the walk ends the results are put back
//! into their slots, so the skills and diagnostics come out in exactly the order of a serial
//! walk. At most [`IN_FLIGHT`] files wait for a worker, which bounds the open file descriptors
//! (a server may run under a limit of 64).

use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Mutex, PoisonError};

use super::skill_file::{self, OpenFile};
use crate::diagnostic::Diagnostic;
use crate::frontmatter::{Needs, SkillDocument};

/// The most opened skill files waiting for a worker.
const IN_FLIGHT: usize = 16;

/// The most worker threads.
const MAX_WORKERS: usize = 4;

/// A parsed skill file, the format findings about it, and (when inspecting) its text.
pub(super) type Parsed = io::Result<(SkillDocument, Vec<Diagnostic>, Option<String>)>;

/// One skill file to read.
pub(super) struct Job {
    pub(super) slot: usize,
    pub(super) opened: OpenFile,
    pub(super) path: PathBuf,
    pub(super) max_bytes: u64,
    /// Read the whole file and keep its text, for a checker (which grades the format itself).
    pub(super) inspect: bool,
}

/// Reads and parses one skill file, and checks it against the format (leniently) — or, when
/// inspecting, reads all of it and keeps its text instead.
pub(super) fn parse(job: Job) -> Parsed {
    let Job {
        opened,
        path,
        max_bytes,
        inspect,
        ..
    } = job;
    if inspect {
        let (document, text) = skill_file::read(opened, &path, max_bytes, Needs::Everything, true)?;
        return Ok((document, Vec::new(), text));
    }
    let (document, _) = skill_file::read(opened, &path, max_bytes, Needs::Catalog, false)?;
    let findings = crate::format::lenient_findings(&path, &document);
    Ok((document, findings, None))
}

/// How many workers to start: none on a single core.
pub(super) fn workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 { 0 } else { cores.min(MAX_WORKERS) }
}

/// Runs `walk` with a pool of `workers` parse threads, and returns what it returned with every
/// parse result by slot. With no workers, `walk` gets no sender and parses inline.
pub(super) fn with_workers<T>(
    workers: usize,
    walk: impl FnOnce(Option<SyncSender<Job>>) -> T,
) -> (T, Vec<(usize, Parsed)>) {
    if workers == 0 {
        return (walk(None), Vec::new());
    }
    let (jobs, queue) = mpsc::sync_channel::<Job>(IN_FLIGHT);
    let queue = Mutex::new(queue);
    let (results, finished) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let results = results.clone();
            let queue = &queue;
            scope.spawn(move || work(queue, &results));
        }
        drop(results);
        let walked = walk(Some(jobs));
        (walked, finished.iter().collect())
    })
}

fn work(queue: &Mutex<Receiver<Job>>, results: &mpsc::Sender<(usize, Parsed)>) {
    loop {
        let job = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else {
            return;
        };
        let slot = job.slot;
        let parsed = parse(job);
        if results.send((slot, parsed)).is_err() {
            return;
        }
    }
}
