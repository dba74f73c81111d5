//! `skillbook list`.

use std::io::{self, Write};
use std::path::Path;

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Mutex, PoisonError};

use skillbook::{Diagnostic, Discovered, Discovery, Finding, Skill};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Outcome, PrettyObject};
use crate::settings;

/// Skills (or diagnostics) a thread renders at a time.
const CHUNK: usize = 256;

/// The most threads that render skills.
const MAX_THREADS: usize = 4;

/// The most chunks sent to be rendered and not yet written, per rendering thread: a thread
/// that stalls on one chunk holds the others back, not the memory of every chunk after it.
const AHEAD_PER_THREAD: usize = 3;

/// Prints the JSON document of `skillbook list` (SPEC §9) — `{"skills", "read_roots",
/// "diagnostics"}`, exactly as the pretty printer prints it — while discovery runs: skills and
/// diagnostics are rendered as soon as discovery settles them, a chunk at a time on a thread per
/// core (at most [`MAX_THREADS`]), and written in order. Only the chunks in flight and the
/// rendered diagnostics (which come after every skill) are held, never every skill.
fn print_json(discovery: &Discovery) -> anyhow::Result<()> {
    let stdout = io::BufWriter::with_capacity(64 * 1024, crate::output::stdout());
    let mut document = PrettyObject::new(stdout);
    let mut read_roots = Vec::new();
    let diagnostics = document.field_with("skills", |out| {
        print_skills(out, |each| {
            read_roots = discovery.discover_each(|finding| match finding {
                Finding::Skill(skill) => each(Found::Skill(skill)),
                Finding::Diagnostic(diagnostic) => each(Found::Diagnostic(diagnostic)),
                _ => {}
            });
        })
    })?;
    let read_roots: Vec<String> = read_roots.iter().map(|root| display(root)).collect();
    document.field("read_roots", &read_roots)?;
    document.field_with("diagnostics", |out| out.write_all(&diagnostics))?;
    document.end()?.flush()?;
    Ok(())
}

/// What discovery hands over: a skill or a diagnostic.
enum Found {
    Skill(Skill),
    Diagnostic(Diagnostic),
}

/// Skills or diagnostics rendered together.
enum Chunk {
    Skills(Vec<Skill>),
    Diagnostics(Vec<Diagnostic>),
}

impl Chunk {
    /// The chunk's items as the pretty printer writes them inside a document's array, two
    /// levels (four spaces) in, separated by commas.
    fn render(&self) -> io::Result<Vec<u8>> {
        fn each<T: serde::Serialize>(items: &[T]) -> serde_json::Result<Vec<u8>> {
            let mut bytes = Vec::new();
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    bytes.extend_from_slice(b",\n    ");
                }
                output::to_writer_pretty_at(&mut bytes, 2, item)?;
            }
            Ok(bytes)
        }
        match self {
            Chunk::Skills(skills) => each(skills),
            Chunk::Diagnostics(diagnostics) => each(diagnostics),
        }
        .map_err(io::Error::from)
    }

    fn holds_skills(&self) -> bool {
        matches!(self, Chunk::Skills(_))
    }
}

/// Gathers what discovery hands over into chunks of [`CHUNK`] skills and of [`CHUNK`]
/// diagnostics.
#[derive(Default)]
struct Chunks {
    skills: Vec<Skill>,
    diagnostics: Vec<Diagnostic>,
}

impl Chunks {
    /// Adds `found`; returns a chunk that is full.
    fn add(&mut self, found: Found) -> Option<Chunk> {
        match found {
            Found::Skill(skill) => {
                self.skills.push(skill);
                (self.skills.len() == CHUNK)
                    .then(|| Chunk::Skills(std::mem::take(&mut self.skills)))
            }
            Found::Diagnostic(diagnostic) => {
                self.diagnostics.push(diagnostic);
                (self.diagnostics.len() == CHUNK)
                    .then(|| Chunk::Diagnostics(std::mem::take(&mut self.diagnostics)))
            }
        }
    }

    /// The chunks not yet full.
    fn rest(self) -> impl Iterator<Item = Chunk> {
        let skills = (!self.skills.is_empty()).then_some(Chunk::Skills(self.skills));
        let diagnostics =
            (!self.diagnostics.is_empty()).then_some(Chunk::Diagnostics(self.diagnostics));
        skills.into_iter().chain(diagnostics)
    }
}

/// The `skills` array, two levels in, of the skills `discover` hands to the function it is
/// given, written to `out`; returns the `diagnostics` array of what it handed over, rendered.
fn print_skills(
    out: &mut impl Write,
    discover: impl FnOnce(&mut dyn FnMut(Found)),
) -> io::Result<Vec<u8>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |cores| cores.get())
        .min(MAX_THREADS);
    let mut diagnostics = Vec::new();
    let mut arrays = Arrays {
        skills: Array::new(out),
        diagnostics: Array::new(&mut diagnostics),
    };
    if threads <= 1 {
        let mut chunks = Chunks::default();
        discover(&mut |found| {
            if let Some(chunk) = chunks.add(found) {
                arrays.write(chunk.holds_skills(), chunk.render());
            }
        });
        for chunk in chunks.rest() {
            arrays.write(chunk.holds_skills(), chunk.render());
        }
        arrays.end()?;
        return Ok(diagnostics);
    }
    let (work, queue) = mpsc::sync_channel::<(usize, Chunk)>(threads);
    let queue = Mutex::new(queue);
    std::thread::scope(|scope| {
        let (results, rendered) = mpsc::channel();
        for _ in 0..threads {
            let (queue, results) = (&queue, results.clone());
            scope.spawn(move || render_chunks(queue, &results));
        }
        drop(results);
        let mut ordered = Ordered::new(rendered);
        let ahead = AHEAD_PER_THREAD * threads;
        let mut chunks = Chunks::default();
        discover(&mut |found| {
            if let Some(chunk) = chunks.add(found) {
                ordered.send(&work, chunk);
                ordered.write_ready(&mut arrays, ordered.sent.saturating_sub(ahead));
            }
        });
        for chunk in chunks.rest() {
            ordered.send(&work, chunk);
        }
        drop(work);
        ordered.write_ready(&mut arrays, ordered.sent);
        arrays.end()
    })?;
    Ok(diagnostics)
}

/// A chunk rendered: whether it held skills (or diagnostics), and its JSON text.
type Rendered = (bool, io::Result<Vec<u8>>);

/// Renders chunks from `queue` until it closes.
fn render_chunks(queue: &Mutex<Receiver<(usize, Chunk)>>, results: &Sender<(usize, Rendered)>) {
    loop {
        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok((number, chunk)) = next else {
            return;
        };
        // A panic is an error here, not a second panic at the scope's end.
        let rendered = panic::catch_unwind(AssertUnwindSafe(|| chunk.render()))
            .unwrap_or_else(|_| Err(io::Error::other("rendering a skill failed")));
        let skills = chunk.holds_skills();
        drop(chunk);
        if results.send((number, (skills, rendered))).is_err() {
            return;
        }
    }
}

/// Rendered chunks put back in order.
struct Ordered {
    rendered: Receiver<(usize, Rendered)>,
    /// Chunks rendered ahead of their turn, by number.
    early: BTreeMap<usize, Rendered>,
    /// Chunks sent to be rendered.
    sent: usize,
    /// Chunks written.
    written: usize,
}

impl Ordered {
    fn new(rendered: Receiver<(usize, Rendered)>) -> Self {
        Ordered {
            rendered,
            early: BTreeMap::new(),
            sent: 0,
            written: 0,
        }
    }

    fn send(&mut self, work: &SyncSender<(usize, Chunk)>, chunk: Chunk) {
        // The renderers stop only when the queue closes; a failed send means one panicked
        // past its guard, and the missing chunk is reported when its turn comes.
        let _ = work.send((self.sent, chunk));
        self.sent += 1;
    }

    /// Writes the chunks whose turn has come, waiting for them until `until` chunks are
    /// written.
    fn write_ready(&mut self, arrays: &mut Arrays<'_, impl Write>, until: usize) {
        while self.written < self.sent {
            let wait = self.written < until;
            if let Some((skills, chunk)) = self.early.remove(&self.written) {
                arrays.write(skills, chunk);
                self.written += 1;
                continue;
            }
            let next = if wait {
                self.rendered.recv().ok()
            } else {
                self.rendered.try_recv().ok()
            };
            match next {
                Some((number, chunk)) => {
                    self.early.insert(number, chunk);
                }
                None if wait => {
                    arrays.write(
                        true,
                        Err(io::Error::other("a thread rendering the skills stopped")),
                    );
                    return;
                }
                None => return,
            }
        }
    }
}

/// The two arrays being written: `skills` to the output, `diagnostics` kept for the end of the
/// document.
struct Arrays<'o, W: Write> {
    skills: Array<'o, W>,
    diagnostics: Array<'o, Vec<u8>>,
}

impl<W: Write> Arrays<'_, W> {
    /// Writes a rendered chunk to the array of skills, or of diagnostics.
    fn write(&mut self, skills: bool, chunk: io::Result<Vec<u8>>) {
        if skills {
            self.skills.write(chunk);
        } else {
            self.diagnostics.write(chunk);
        }
    }

    /// Closes both arrays; the first error of either.
    fn end(self) -> io::Result<()> {
        self.skills.end()?;
        self.diagnostics.end()
    }
}

/// An array as it is written: chunks separated by commas, and the first error kept
/// (nothing more is written after it).
struct Array<'o, W: Write> {
    out: &'o mut W,
    empty: bool,
    error: Option<io::Error>,
}

impl<'o, W: Write> Array<'o, W> {
    fn new(out: &'o mut W) -> Self {
        Array {
            out,
            empty: true,
            error: None,
        }
    }

    fn write(&mut self, chunk: io::Result<Vec<u8>>) {
        if self.error.is_some() {
            return;
        }
        let opening: &[u8] = if self.empty { b"[\n    " } else { b",\n    " };
        let written = chunk.and_then(|chunk| {
            self.out.write_all(opening)?;
            self.out.write_all(&chunk)
        });
        match written {
            Ok(()) => self.empty = false,
            Err(error) => self.error = Some(error),
        }
    }

    fn end(self) -> io::Result<()> {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.out
            .write_all(if self.empty { b"[]" } else { b"\n  ]" })
    }
}

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let discovery = settings::discovery(common);
    match common.format {
        // Every skill is serialized as it comes: its fields as read, not read again.
        Format::Json => print_json(&discovery.keep_front_matter(true))?,
        Format::Text => {
            // The names are aligned to the longest: every skill is needed before the first line.
            let found = discovery.discover();
            print_text(&found, &discovery)?;
            output::diagnostics(found.diagnostics());
            output::leave(found);
        }
    }
    Ok(Outcome::Success)
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The skills, two lines each; with none, the roots that were searched (SPEC §2.1).
fn print_text(found: &Discovered, discovery: &Discovery) -> io::Result<()> {
    let mut stdout = io::BufWriter::new(crate::output::stdout());
    if found.skills().is_empty() {
        writeln!(stdout, "No skills found. Searched:")?;
        for root in discovery.roots() {
            writeln!(
                stdout,
                "  {}",
                output::printable(&root.path.to_string_lossy())
            )?;
        }
    }
    let width = found
        .skills()
        .iter()
        .map(|skill| skill.name().chars().count())
        .max()
        .unwrap_or(0);
    for skill in found.skills() {
        let manual = if skill.disable_model_invocation() {
            "  (manual only)"
        } else {
            ""
        };
        writeln!(
            stdout,
            "{:<width$}  {:<9}  {}{manual}",
            output::printable(skill.name()),
            skill.source().as_str(),
            output::printable(&skill.location().to_string_lossy())
        )?;
        writeln!(
            stdout,
            "{:<width$}  {}",
            "",
            output::printable(skill.description())
        )?;
    }
    stdout.flush()
}
