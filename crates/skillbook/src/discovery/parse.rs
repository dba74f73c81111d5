//! Parsing skill files on worker threads while the walk goes on.
//!
//! The walk stays on one thread and decides everything about order: it opens each skill file
//! (so the identity checks and the leaf rule are settled there), reads its beginning when the
//! page cache holds it, closes it, and hands the bytes to a worker — in batches, one hand-off for
//! many files. A file that would have to come from the disk is handed over open instead, and a
//! worker reads it, so several disk reads are under way at once; at most [`LENT_FILES`] files are
//! handed over open at a time, which bounds the descriptors (a server may run under a limit of
//! 64). Each file takes a numbered slot, and when the walk ends the results are put back into
//! their slots, so the skills and diagnostics come out in exactly the order of a serial walk.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};

use super::skill_file::{self, Head};
use crate::diagnostic::Diagnostic;
use crate::format::SkillName;
use crate::frontmatter::{Needs, SkillDocument};
use crate::skill::{SettledHead, SkillHead};

/// The most files in one hand-off.
const BATCH_FILES: usize = 64;

/// A batch is handed over once it holds this many bytes (whole files, when inspecting).
const BATCH_BYTES: usize = 256 * 1024;

/// Batches waiting for a worker.
const QUEUED_BATCHES: usize = 2;

/// The most files handed to workers open (to be read from the disk there) at a time.
const LENT_FILES: usize = 16;

/// A batch holding this many open files is handed over at once, so their reads start.
const LENT_PER_BATCH: usize = 4;

/// The most worker threads.
const MAX_WORKERS: usize = 4;

/// What became of one skill file.
pub(super) enum Parsed {
    /// What the skill is built from, its name and description settled; the file's diagnostics
    /// (the document's, the format findings, then the fallbacks'); and, when inspecting, the
    /// whole document and its text.
    Read(
        SettledHead,
        Vec<Diagnostic>,
        Option<Box<(SkillDocument, String)>>,
    ),
    /// It could not be read.
    Failed(io::Error),
    /// The beginning read was not enough: the walk reads the whole file once it has finished.
    NeedsMore,
}

/// How much of each skill file's reading a walk keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// What the skill is built from, its front matter as text.
    Head,
    /// That and the front matter's fields as read ([`crate::Discovery::keep_front_matter`]).
    Fields,
    /// Every file read whole, its document and text kept for a checker (which grades the
    /// format itself).
    Whole,
}

impl Keep {
    /// Whether every file is read whole and kept.
    pub(crate) fn whole(self) -> bool {
        self == Keep::Whole
    }
}

/// One skill file to parse: what was read of it lies in its batch's buffer.
pub(super) struct Job {
    pub(super) slot: usize,
    /// Where its bytes are in the batch's buffer.
    pub(super) bytes: Range<usize>,
    /// The file's length when it was opened.
    pub(super) len: u64,
    /// The bytes are the whole file up to the size limit.
    pub(super) complete: bool,
    /// The file itself, when its worker is to read it.
    pub(super) file: Option<Lent>,
    /// Reading it failed.
    pub(super) error: Option<io::Error>,
    pub(super) path: PathBuf,
    pub(super) max_bytes: u64,
    /// How much of the reading is kept.
    pub(super) keep: Keep,
}

/// Skill files read for parsing: their bytes one after another in one buffer (one allocation
/// for many files), and where each file's lie. A batch goes back to the walk once parsed and is
/// filled again, so its buffer is allocated, and its pages touched, once.
#[derive(Default)]
pub(super) struct Batch {
    /// Bytes read, up to `used`; past it, bytes of an earlier filling (initialized, so that
    /// reading into them needs no clearing).
    pub(super) buffer: Vec<u8>,
    /// How much of `buffer` this filling holds.
    pub(super) used: usize,
    pub(super) jobs: Vec<Job>,
    /// How many of the jobs hold their file open.
    lent: usize,
}

impl Batch {
    fn is_full(&self) -> bool {
        self.jobs.len() >= BATCH_FILES || self.used >= BATCH_BYTES || self.lent >= LENT_PER_BATCH
    }

    /// Empties the batch for another filling, keeping its buffers.
    fn empty(&mut self) {
        self.used = 0;
        self.jobs.clear();
        self.lent = 0;
    }

    /// Reads the files handed over open, then parses every file of the batch, each with its
    /// slot.
    pub(super) fn parse(&mut self) -> Vec<(usize, Parsed)> {
        if self.lent > 0 {
            // Files handed over open are read by appending: drop the earlier filling's bytes.
            self.buffer.truncate(self.used);
        }
        for job in &mut self.jobs {
            if let Some(mut lent) = job.file.take() {
                let start = self.buffer.len();
                let whole = job.keep.whole();
                match skill_file::read_head(
                    &mut lent.file,
                    job.len,
                    job.max_bytes,
                    whole,
                    &mut self.buffer,
                ) {
                    Ok(complete) => {
                        job.complete = complete;
                        job.bytes = start..self.buffer.len();
                    }
                    Err(error) => job.error = Some(error),
                }
            }
        }
        let buffer = &self.buffer;
        self.jobs
            .drain(..)
            .map(|mut job| {
                let parsed = match job.error.take() {
                    Some(error) => Parsed::Failed(error),
                    None => parse(&job, buffer.get(job.bytes.clone()).unwrap_or_default()),
                };
                (job.slot, parsed)
            })
            .collect()
    }
}

/// A skill file handed to a worker open; its place in the budget of [`LENT_FILES`] is given
/// back when it is dropped (read, or never).
pub(super) struct Lent {
    file: File,
    lent: Arc<AtomicUsize>,
}

impl Drop for Lent {
    fn drop(&mut self) {
        self.lent.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Parses one skill file, whose bytes read are `bytes`, and checks it against the format
/// (leniently) — or, when inspecting, keeps its text instead.
pub(super) fn parse(job: &Job, bytes: &[u8]) -> Parsed {
    let Job {
        len,
        complete,
        path,
        max_bytes,
        keep,
        ..
    } = job;
    let head = Head {
        bytes,
        len: *len,
        complete: *complete,
    };
    let head = &head;
    let needs = if keep.whole() {
        Needs::Everything
    } else {
        Needs::Catalog {
            usable_name: SkillName::accepts,
        }
    };
    let Some((mut document, text)) = skill_file::scan(head, path, *max_bytes, needs, keep.whole())
    else {
        return Parsed::NeedsMore;
    };
    if keep.whole() {
        // The checker grades the format itself, from the whole document and text.
        let mut diagnostics = document.diagnostics.clone();
        let head = SkillHead::from(document.clone()).settle(path, &mut diagnostics);
        let inspected = text.map(|text| Box::new((document, text)));
        return Parsed::Read(head, diagnostics, inspected);
    }
    let findings = crate::format::lenient_findings(path, &document);
    let mut diagnostics = std::mem::take(&mut document.diagnostics);
    diagnostics.extend(findings);
    // Only what the skill is built from is kept until the walk ends: the fields read here
    // would hold several times the memory of the front matter's text, which the skill keeps
    // (and reads its fields from again when asked) — unless the host asked for them.
    let fields = (*keep == Keep::Fields).then(|| Box::new(std::mem::take(&mut document.fields)));
    let head = SkillHead::from(document)
        .with_fields(fields)
        .settle(path, &mut diagnostics);
    Parsed::Read(head, diagnostics, None)
}

/// How many workers to start: none on a single core.
pub(super) fn workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 { 0 } else { cores.min(MAX_WORKERS) }
}

/// Skill files on their way to the workers, a batch at a time.
pub(super) struct Jobs {
    sender: SyncSender<Batch>,
    /// The batch being filled.
    batch: Batch,
    /// Batches parsed and emptied, to be filled again.
    spare: Receiver<Batch>,
    /// How many files are handed over open and not yet read.
    lent: Arc<AtomicUsize>,
}

impl Jobs {
    /// Adds a file to the batch: its beginning read here when the page cache holds it, else
    /// the file itself for a worker to read (within the budget; past it, read here). Hands the
    /// batch over when it is full, and returns it when the workers are gone, for the caller to
    /// parse itself.
    pub(super) fn add(&mut self, mut job: Job, mut file: File) -> io::Result<Option<Batch>> {
        let batch = &mut self.batch;
        let start = batch.used;
        let (len, max_bytes, whole) = (job.len, job.max_bytes, job.keep.whole());
        match skill_file::read_head_cached(&file, len, max_bytes, whole, &mut batch.buffer, start)?
        {
            Some((complete, end)) => {
                job.complete = complete;
                job.bytes = start..end;
                batch.used = end;
            }
            None if self.lent.load(Ordering::Acquire) < LENT_FILES => {
                self.lent.fetch_add(1, Ordering::AcqRel);
                job.file = Some(Lent {
                    file,
                    lent: Arc::clone(&self.lent),
                });
                self.batch.lent += 1;
                job.bytes = start..start;
            }
            None => {
                // Read here after all (appending): the earlier filling's bytes go first.
                let buffer = &mut self.batch.buffer;
                buffer.truncate(start);
                job.complete = skill_file::read_head(&mut file, len, max_bytes, whole, buffer)?;
                job.bytes = start..buffer.len();
                self.batch.used = buffer.len();
            }
        }
        self.batch.jobs.push(job);
        Ok(if self.batch.is_full() {
            self.flush()
        } else {
            None
        })
    }

    /// Hands over what the batch holds; returns it when the workers are gone.
    pub(super) fn flush(&mut self) -> Option<Batch> {
        if self.batch.jobs.is_empty() {
            return None;
        }
        let next = self.spare.try_recv().unwrap_or_else(|_| Batch::with_room());
        let batch = std::mem::replace(&mut self.batch, next);
        self.sender.send(batch).err().map(|returned| returned.0)
    }
}

impl Batch {
    fn with_room() -> Self {
        Batch {
            buffer: Vec::with_capacity(BATCH_BYTES + skill_file::HEAD_BYTES),
            used: 0,
            jobs: Vec::with_capacity(BATCH_FILES),
            lent: 0,
        }
    }
}

/// The parse results of the workers, a batch at a time (each batch in slot order).
pub(super) type Results = Receiver<Vec<(usize, Parsed)>>;

/// What the walk hands skill files to, and takes their results back from.
pub(super) struct Workers {
    pub(super) jobs: Jobs,
    pub(super) results: Results,
}

/// Runs `walk` with a pool of `workers` parse threads, which stop once the walk has dropped its
/// [`Jobs`] and they have finished what they hold. With no workers, `walk` gets none and parses
/// inline.
pub(super) fn with_workers<T>(workers: usize, walk: impl FnOnce(Option<Workers>) -> T) -> T {
    if workers == 0 {
        return walk(None);
    }
    let (sender, queue) = mpsc::sync_channel::<Batch>(QUEUED_BATCHES);
    let queue = Mutex::new(queue);
    let (results, finished) = mpsc::channel();
    let (returned, spare) = mpsc::sync_channel::<Batch>(QUEUED_BATCHES + workers);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (results, returned) = (results.clone(), returned.clone());
            let queue = &queue;
            scope.spawn(move || work(queue, &results, &returned));
        }
        drop((results, returned));
        let jobs = Jobs {
            sender,
            batch: Batch::with_room(),
            spare,
            lent: Arc::default(),
        };
        walk(Some(Workers {
            jobs,
            results: finished,
        }))
    })
}

/// Parses batches from `queue` until it closes, and hands each emptied batch back to be filled
/// again (or drops it when enough are waiting).
fn work(
    queue: &Mutex<Receiver<Batch>>,
    results: &mpsc::Sender<Vec<(usize, Parsed)>>,
    returned: &SyncSender<Batch>,
) {
    loop {
        let batch = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(mut batch) = batch else {
            return;
        };
        let parsed = batch.parse();
        batch.empty();
        let _ = returned.try_send(batch);
        if results.send(parsed).is_err() {
            return;
        }
    }
}
