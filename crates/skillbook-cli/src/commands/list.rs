//! `skillbook list`.

use std::io::{self, Write};
use std::path::Path;

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver};

use skillbook::{Discovered, Skill};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

/// Skills a thread renders at a time.
const CHUNK: usize = 256;

/// The most threads that render skills (each holds at most three chunks).
const MAX_THREADS: usize = 4;

/// Prints the JSON document of `skillbook list` (SPEC §9) — `{"skills", "read_roots",
/// "diagnostics"}`, exactly as the pretty printer prints it — with the skills rendered on a
/// thread per core (at most [`MAX_THREADS`]), a chunk at a time (each skill reads its front matter's fields again, which
/// is most of the work), written in order with only a few chunks held at once.
fn print_json(found: &Discovered) -> anyhow::Result<()> {
    let read_roots: Vec<String> = found
        .read_roots()
        .iter()
        .map(|root| display(root))
        .collect();
    let mut stdout = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    stdout.write_all(b"{\n  \"skills\": ")?;
    print_skills(&mut stdout, found.skills())?;
    stdout.write_all(b",\n  \"read_roots\": ")?;
    serde_json::to_writer_pretty(Indented::new(&mut stdout, 2), &read_roots)?;
    stdout.write_all(b",\n  \"diagnostics\": ")?;
    serde_json::to_writer_pretty(Indented::new(&mut stdout, 2), found.diagnostics())?;
    stdout.write_all(b"\n}\n")?;
    stdout.flush()?;
    Ok(())
}

/// The `skills` array, two levels in.
fn print_skills(out: &mut impl Write, skills: &[Skill]) -> anyhow::Result<()> {
    if skills.is_empty() {
        out.write_all(b"[]")?;
        return Ok(());
    }
    let chunks: Vec<&[Skill]> = skills.chunks(CHUNK).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |cores| cores.get())
        .min(MAX_THREADS)
        .min(chunks.len());
    out.write_all(b"[\n    ")?;
    if threads <= 1 {
        for (at, chunk) in chunks.iter().enumerate() {
            if at > 0 {
                out.write_all(b",\n    ")?;
            }
            out.write_all(&render(chunk)?)?;
        }
    } else {
        std::thread::scope(|scope| -> anyhow::Result<()> {
            let rendered: Vec<Receiver<serde_json::Result<Vec<u8>>>> = (0..threads)
                .map(|thread| {
                    let (sender, receiver) = mpsc::sync_channel(2);
                    let chunks = &chunks;
                    scope.spawn(move || {
                        for chunk in chunks.iter().skip(thread).step_by(threads) {
                            // A panic is an error here, not a second panic at the scope's end.
                            let rendered = panic::catch_unwind(AssertUnwindSafe(|| render(chunk)))
                                .unwrap_or_else(|_| {
                                    Err(serde_json::Error::io(io::Error::other(
                                        "rendering a skill failed",
                                    )))
                                });
                            if sender.send(rendered).is_err() {
                                break;
                            }
                        }
                    });
                    receiver
                })
                .collect();
            for at in 0..chunks.len() {
                if at > 0 {
                    out.write_all(b",\n    ")?;
                }
                let chunk = rendered[at % threads]
                    .recv()
                    .map_err(|_| anyhow::anyhow!("a thread rendering the skills stopped"))??;
                out.write_all(&chunk)?;
            }
            Ok(())
        })?;
    }
    out.write_all(b"\n  ]")?;
    Ok(())
}

/// `skills` as the pretty printer writes them inside the document's `skills` array, two
/// levels (four spaces) in, separated by commas.
fn render(skills: &[Skill]) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    for (at, skill) in skills.iter().enumerate() {
        if at > 0 {
            bytes.extend_from_slice(b",\n    ");
        }
        serde_json::to_writer_pretty(Indented::new(&mut bytes, 4), skill)?;
    }
    Ok(bytes)
}

/// Writes pretty JSON `depth` spaces further in: after each line break. JSON strings hold no
/// line breaks (they are escaped), so every line break is one of the printer's.
struct Indented<W> {
    inner: W,
    depth: usize,
}

impl<W: Write> Indented<W> {
    fn new(inner: W, depth: usize) -> Self {
        Indented { inner, depth }
    }
}

impl<W: Write> Write for Indented<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        const SPACES: &[u8] = b"        ";
        let indent = &SPACES[..self.depth.min(SPACES.len())];
        let mut lines = bytes.split(|byte| *byte == b'\n');
        if let Some(first) = lines.next() {
            self.inner.write_all(first)?;
        }
        for line in lines {
            self.inner.write_all(b"\n")?;
            self.inner.write_all(indent)?;
            self.inner.write_all(line)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    match common.format {
        Format::Json => print_json(&found)?,
        Format::Text => {
            print_text(&found)?;
            output::diagnostics(found.diagnostics());
        }
    }
    output::leave(found);
    Ok(Outcome::Success)
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn print_text(found: &Discovered) -> io::Result<()> {
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    if found.skills().is_empty() {
        writeln!(stdout, "No skills found.")?;
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
