//! `skillbook list`.

use std::io::{self, Write};
use std::path::Path;

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Mutex, PoisonError};

use skillbook::{Discovered, Discovery, Finding, Skill};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Outcome, PrettyObject};
use crate::settings;

/// Skills a thread renders at a time.
const CHUNK: usize = 256;

/// The most threads that render skills.
const MAX_THREADS: usize = 4;

/// Prints the JSON document of `skillbook list` (SPEC §9) — `{"skills", "read_roots",
/// "diagnostics"}`, exactly as the pretty printer prints it — while discovery runs: each skill
/// is rendered as soon as discovery settles it, a chunk at a time on a thread per core (at most
/// [`MAX_THREADS`]; each skill reads its front matter's fields again, which is most of the
/// work), and written in order. Only the chunks in flight and the diagnostics are held, never
/// every skill.
fn print_json(discovery: &Discovery) -> anyhow::Result<()> {
    let stdout = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut document = PrettyObject::new(stdout);
    let mut diagnostics = Vec::new();
    let mut read_roots = Vec::new();
    document.field_with("skills", |out| {
        print_skills(out, |each| {
            read_roots = discovery.discover_each(|finding| match finding {
                Finding::Skill(skill) => each(skill),
                Finding::Diagnostic(diagnostic) => diagnostics.push(diagnostic),
                _ => {}
            });
        })
    })?;
    let read_roots: Vec<String> = read_roots.iter().map(|root| display(root)).collect();
    document.field("read_roots", &read_roots)?;
    document.field("diagnostics", &diagnostics)?;
    document.end()?.flush()?;
    output::leave(diagnostics);
    Ok(())
}

/// The `skills` array, two levels in, of the skills `discover` hands to the function it is
/// given.
fn print_skills(
    out: &mut impl Write,
    discover: impl FnOnce(&mut dyn FnMut(Skill)),
) -> io::Result<()> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |cores| cores.get())
        .min(MAX_THREADS);
    let mut array = Array::new(out);
    if threads <= 1 {
        let mut chunk = Vec::with_capacity(CHUNK);
        discover(&mut |skill| {
            chunk.push(skill);
            if chunk.len() == CHUNK {
                let rendered = render(&chunk).map_err(io::Error::from);
                array.write(rendered);
                chunk.clear();
            }
        });
        if !chunk.is_empty() {
            array.write(render(&chunk).map_err(io::Error::from));
        }
        return array.end();
    }
    let (work, queue) = mpsc::sync_channel::<(usize, Vec<Skill>)>(threads);
    let queue = Mutex::new(queue);
    std::thread::scope(|scope| {
        let (results, rendered) = mpsc::channel();
        for _ in 0..threads {
            let (queue, results) = (&queue, results.clone());
            scope.spawn(move || render_chunks(queue, &results));
        }
        drop(results);
        let mut ordered = Ordered::new(rendered);
        let mut chunk = Vec::with_capacity(CHUNK);
        discover(&mut |skill| {
            chunk.push(skill);
            if chunk.len() == CHUNK {
                let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
                ordered.send(&work, full);
                ordered.write_ready(&mut array, false);
            }
        });
        if !chunk.is_empty() {
            ordered.send(&work, chunk);
        }
        drop(work);
        ordered.write_ready(&mut array, true);
        array.end()
    })
}

/// A result of rendering one chunk: its number and its JSON text.
type RenderedChunk = (usize, io::Result<Vec<u8>>);

/// Renders chunks from `queue` until it closes.
fn render_chunks(queue: &Mutex<Receiver<(usize, Vec<Skill>)>>, results: &Sender<RenderedChunk>) {
    loop {
        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok((number, chunk)) = next else {
            return;
        };
        // A panic is an error here, not a second panic at the scope's end.
        let rendered = panic::catch_unwind(AssertUnwindSafe(|| render(&chunk)))
            .unwrap_or_else(|_| {
                Err(serde_json::Error::io(io::Error::other(
                    "rendering a skill failed",
                )))
            })
            .map_err(io::Error::from);
        drop(chunk);
        if results.send((number, rendered)).is_err() {
            return;
        }
    }
}

/// Rendered chunks put back in order.
struct Ordered {
    rendered: Receiver<RenderedChunk>,
    /// Chunks rendered ahead of their turn, by number.
    early: BTreeMap<usize, io::Result<Vec<u8>>>,
    /// Chunks sent to be rendered.
    sent: usize,
    /// Chunks written.
    written: usize,
}

impl Ordered {
    fn new(rendered: Receiver<RenderedChunk>) -> Self {
        Ordered {
            rendered,
            early: BTreeMap::new(),
            sent: 0,
            written: 0,
        }
    }

    fn send(&mut self, work: &SyncSender<(usize, Vec<Skill>)>, chunk: Vec<Skill>) {
        // The renderers stop only when the queue closes; a failed send means one panicked
        // past its guard, and the missing chunk is reported when its turn comes.
        let _ = work.send((self.sent, chunk));
        self.sent += 1;
    }

    /// Writes the chunks whose turn has come; with `all`, waits for every chunk sent.
    fn write_ready(&mut self, array: &mut Array<'_, impl Write>, all: bool) {
        while self.written < self.sent {
            if let Some(chunk) = self.early.remove(&self.written) {
                array.write(chunk);
                self.written += 1;
                continue;
            }
            let next = if all {
                self.rendered.recv().ok()
            } else {
                self.rendered.try_recv().ok()
            };
            match next {
                Some((number, chunk)) => {
                    self.early.insert(number, chunk);
                }
                None if all => {
                    array.write(Err(io::Error::other(
                        "a thread rendering the skills stopped",
                    )));
                    return;
                }
                None => return,
            }
        }
    }
}

/// The `skills` array as it is written: chunks separated by commas, and the first error kept
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

/// `skills` as the pretty printer writes them inside the document's `skills` array, two
/// levels (four spaces) in, separated by commas.
fn render(skills: &[Skill]) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    for (at, skill) in skills.iter().enumerate() {
        if at > 0 {
            bytes.extend_from_slice(b",\n    ");
        }
        output::to_writer_pretty_at(&mut bytes, 2, skill)?;
    }
    Ok(bytes)
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
    let mut stdout = io::BufWriter::new(io::stdout().lock());
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
