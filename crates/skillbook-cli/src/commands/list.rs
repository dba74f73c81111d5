//! `skillbook list`.

use std::io::{self, Write};
use std::path::Path;

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver};

use skillbook::{Discovered, Skill};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Indented, Outcome, PrettyObject};
use crate::settings;

/// Skills a thread renders at a time.
const CHUNK: usize = 256;

/// The most threads that render skills (each holds at most three chunks).
const MAX_THREADS: usize = 4;

/// Prints the JSON document of `skillbook list` (SPEC §9) — `{"skills", "read_roots",
/// "diagnostics"}`, exactly as the pretty printer prints it — with the skills rendered on a
/// thread per core (at most [`MAX_THREADS`]), a chunk at a time (each skill reads its front
/// matter's fields again, which is most of the work), written in order with only a few chunks
/// held at once.
fn print_json(found: &Discovered) -> anyhow::Result<()> {
    let read_roots: Vec<String> = found
        .read_roots()
        .iter()
        .map(|root| display(root))
        .collect();
    let stdout = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut document = PrettyObject::new(stdout);
    document.field_with("skills", |out| print_skills(out, found.skills()))?;
    document.field("read_roots", &read_roots)?;
    document.field("diagnostics", &found.diagnostics())?;
    document.end()?.flush()?;
    Ok(())
}

/// The `skills` array, two levels in.
fn print_skills(out: &mut impl Write, skills: &[Skill]) -> io::Result<()> {
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
        std::thread::scope(|scope| -> io::Result<()> {
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
                    .map_err(|_| io::Error::other("a thread rendering the skills stopped"))??;
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
