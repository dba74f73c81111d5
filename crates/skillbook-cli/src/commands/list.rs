//! `skillbook list`.

use std::io::{self, Write};
use std::path::Path;

use std::sync::mpsc::{self, Receiver};

use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use skillbook::{Diagnostic, Discovered, Skill};

use crate::cli::{CommonArgs, Format};
use crate::output::{self, Outcome};
use crate::settings;

/// The JSON document of `skillbook list` (SPEC §9).
#[derive(Serialize)]
struct Listing<'a> {
    skills: Rendered<'a>,
    read_roots: Vec<String>,
    diagnostics: &'a [Diagnostic],
}

/// The skills, serialized as they serialize themselves, but rendered on a thread per core a
/// chunk of skills at a time (each skill reads its front matter's fields again, which is most
/// of the work) and written in order, with only a few chunks held at once.
struct Rendered<'a>(&'a [Skill]);

/// Skills a thread renders at a time.
const CHUNK: usize = 256;

impl Serialize for Rendered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let chunks: Vec<&[Skill]> = self.0.chunks(CHUNK).collect();
        let threads = std::thread::available_parallelism()
            .map_or(1, |cores| cores.get())
            .min(chunks.len());
        if threads <= 1 {
            return serializer.collect_seq(self.0);
        }
        std::thread::scope(|scope| {
            let rendered: Vec<Receiver<serde_json::Result<Vec<Box<RawValue>>>>> = (0..threads)
                .map(|thread| {
                    let (sender, receiver) = mpsc::sync_channel(2);
                    let chunks = &chunks;
                    scope.spawn(move || {
                        for chunk in chunks.iter().skip(thread).step_by(threads) {
                            let skills = chunk.iter().map(render).collect();
                            if sender.send(skills).is_err() {
                                break;
                            }
                        }
                    });
                    receiver
                })
                .collect();
            let mut sequence = serializer.serialize_seq(Some(self.0.len()))?;
            for at in 0..chunks.len() {
                let skills = rendered[at % threads]
                    .recv()
                    .map_err(|_| S::Error::custom("a thread rendering the skills stopped"))?
                    .map_err(S::Error::custom)?;
                for skill in &skills {
                    sequence.serialize_element(skill)?;
                }
            }
            sequence.end()
        })
    }
}

/// One skill as the pretty printer writes it at its place in the listing: inside the
/// `skills` array of the document, two levels (four spaces) in. JSON strings hold no line
/// breaks (they are escaped), so every line break is one of the printer's.
fn render(skill: &Skill) -> serde_json::Result<Box<RawValue>> {
    let text = serde_json::to_string_pretty(skill)?;
    RawValue::from_string(text.replace('\n', "\n    "))
}

pub(crate) fn run(common: &CommonArgs) -> anyhow::Result<Outcome> {
    let found = settings::discovery(common).discover();
    match common.format {
        Format::Json => output::json(&Listing {
            skills: Rendered(&found.skills),
            read_roots: found.read_roots.iter().map(|root| display(root)).collect(),
            diagnostics: &found.diagnostics,
        })?,
        Format::Text => {
            print_text(&found)?;
            output::diagnostics(&found.diagnostics);
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
    if found.skills.is_empty() {
        writeln!(stdout, "No skills found.")?;
    }
    let width = found
        .skills
        .iter()
        .map(|skill| skill.name.chars().count())
        .max()
        .unwrap_or(0);
    for skill in &found.skills {
        let manual = if skill.disable_model_invocation {
            "  (manual only)"
        } else {
            ""
        };
        writeln!(
            stdout,
            "{:<width$}  {:<9}  {}{manual}",
            output::printable(&skill.name),
            skill.source.as_str(),
            output::printable(&skill.path.to_string_lossy())
        )?;
        writeln!(
            stdout,
            "{:<width$}  {}",
            "",
            output::printable(&skill.description)
        )?;
    }
    stdout.flush()
}
