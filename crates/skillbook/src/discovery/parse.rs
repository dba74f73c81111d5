//! Parsing skill files on worker threads while the walk goes on.
//!
//! The walk stays on one thread and decides everything about order: it opens each skill file
//! (so the identity checks and the leaf rule are settled there), reads its beginning, closes it,
//! and hands the bytes to a worker — in batches, one hand-off for many files. No descriptor
//! waits for a worker, so a server under a low descriptor limit holds only the walk's own. Each
//! file takes a numbered slot, and when the walk ends the results are put back into their slots,
//! so the skills and diagnostics come out in exactly the order of a serial walk.

use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Mutex, PoisonError};

use super::skill_file::{self, Head};
use crate::diagnostic::Diagnostic;
use crate::frontmatter::{Needs, SkillDocument};

/// The most files in one hand-off.
const BATCH_FILES: usize = 64;

/// A batch is handed over once it holds this many bytes (whole files, when inspecting).
const BATCH_BYTES: usize = 256 * 1024;

/// Batches waiting for a worker.
const QUEUED_BATCHES: usize = 2;

/// The most worker threads.
const MAX_WORKERS: usize = 4;

/// What became of one skill file.
#[expect(
    clippy::large_enum_variant,
    reason = "nearly every file is read; boxing would add an allocation to each"
)]
pub(super) enum Parsed {
    /// The document, the format findings about it, and (when inspecting) its text.
    Read(SkillDocument, Vec<Diagnostic>, Option<String>),
    /// It could not be read.
    Failed(io::Error),
    /// The beginning read was not enough: the walk reads the whole file once it has finished.
    NeedsMore,
}

/// One skill file to parse.
pub(super) struct Job {
    pub(super) slot: usize,
    pub(super) head: Head,
    pub(super) path: PathBuf,
    pub(super) max_bytes: u64,
    /// All of the file was read, and its text is kept for a checker (which grades the format
    /// itself).
    pub(super) inspect: bool,
}

/// Parses one skill file and checks it against the format (leniently) — or, when inspecting,
/// keeps its text instead.
pub(super) fn parse(job: &Job) -> Parsed {
    let Job {
        head,
        path,
        max_bytes,
        inspect,
        ..
    } = job;
    let needs = if *inspect {
        Needs::Everything
    } else {
        Needs::Catalog
    };
    let Some((document, text)) = skill_file::scan(head, path, *max_bytes, needs, *inspect) else {
        return Parsed::NeedsMore;
    };
    if *inspect {
        return Parsed::Read(document, Vec::new(), text);
    }
    let findings = crate::format::lenient_findings(path, &document);
    Parsed::Read(document, findings, None)
}

/// How many workers to start: none on a single core.
pub(super) fn workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 { 0 } else { cores.min(MAX_WORKERS) }
}

/// Skill files on their way to the workers, a batch at a time.
pub(super) struct Jobs {
    sender: SyncSender<Vec<Job>>,
    batch: Vec<Job>,
    bytes: usize,
}

impl Jobs {
    /// Adds a file to the batch, handing the batch over when it is full. Returns the files that
    /// could not be handed over (the workers are gone), for the caller to parse itself.
    pub(super) fn push(&mut self, job: Job) -> Vec<Job> {
        self.bytes += job.head.bytes.len();
        self.batch.push(job);
        if self.batch.len() < BATCH_FILES && self.bytes < BATCH_BYTES {
            return Vec::new();
        }
        self.flush()
    }

    /// Hands over what the batch holds; returns it when the workers are gone.
    pub(super) fn flush(&mut self) -> Vec<Job> {
        if self.batch.is_empty() {
            return Vec::new();
        }
        self.bytes = 0;
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_FILES));
        match self.sender.send(batch) {
            Ok(()) => Vec::new(),
            Err(returned) => returned.0,
        }
    }
}

/// Runs `walk` with a pool of `workers` parse threads, and returns what it returned with every
/// parse result by slot. With no workers, `walk` gets no queue and parses inline.
pub(super) fn with_workers<T>(
    workers: usize,
    walk: impl FnOnce(Option<Jobs>) -> T,
) -> (T, Vec<(usize, Parsed)>) {
    if workers == 0 {
        return (walk(None), Vec::new());
    }
    let (sender, queue) = mpsc::sync_channel::<Vec<Job>>(QUEUED_BATCHES);
    let queue = Mutex::new(queue);
    let (results, finished) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let results = results.clone();
            let queue = &queue;
            scope.spawn(move || work(queue, &results));
        }
        drop(results);
        let jobs = Jobs {
            sender,
            batch: Vec::with_capacity(BATCH_FILES),
            bytes: 0,
        };
        let walked = walk(Some(jobs));
        (walked, finished.iter().flatten().collect())
    })
}

fn work(queue: &Mutex<Receiver<Vec<Job>>>, results: &mpsc::Sender<Vec<(usize, Parsed)>>) {
    loop {
        let batch = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(batch) = batch else {
            return;
        };
        let parsed = batch.iter().map(|job| (job.slot, parse(job))).collect();
        if results.send(parsed).is_err() {
            return;
        }
    }
}
