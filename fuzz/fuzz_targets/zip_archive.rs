//! `sources::from_zip` on arbitrary bytes, and on valid archives written with the `zip` crate
//! from fuzz-chosen entry names, kinds and contents, under small `ArchiveLimits`.
//!
//! Input layout: byte 0 picks the mode and the limits (bits 0–5). Bit 7 clear: the rest of the
//! input is the archive. Bit 7 set: the rest describes the entries of an archive to build; with
//! bit 6 also set, it describes byte flips and a cut too, applied to the built archive (damaged
//! archives that still look like zip files, which raw bytes rarely do).
//!
//! Properties (each a panic when broken):
//! - `from_zip` never panics;
//! - on `Ok`, every skill's files respect the limits: each file (its SKILL.md included) is at
//!   most `max_file_bytes`, all files together at most `max_total_bytes`;
//! - on `Ok`, no file path is empty or absolute, has an empty, `.` or `..` segment, a
//!   backslash or a control character;
//! - an undamaged archive the `zip` crate wrote is never refused as unreadable
//!   (`SourceError::Archive`).
#![no_main]

use std::io::{Cursor, Write};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use skillbook::sources::{ArchiveLimits, Origin, ProvidedSkill, SourceError, from_zip};
use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

/// Small limits, so that each one is reached often.
fn limits(byte: u8) -> ArchiveLimits {
    let mut limits = ArchiveLimits::default();
    limits.max_entries = [1, 4, 16, 64][usize::from(byte & 3)];
    limits.max_file_bytes = [0, 16, 512, 4096][usize::from((byte >> 2) & 3)];
    limits.max_total_bytes = [0, 64, 4096, 16_384][usize::from((byte >> 4) & 3)];
    limits
}

/// One segment of an entry name.
#[derive(Debug, Arbitrary)]
enum Part {
    SkillFile,
    LowerSkillFile,
    Folder(u8),
    File(u8),
    Dot,
    DotDot,
    Empty,
    Drive,
    Backslash,
    Control,
    Text(String),
}

impl Part {
    fn push_to(&self, name: &mut String) {
        match self {
            Part::SkillFile => name.push_str("SKILL.md"),
            Part::LowerSkillFile => name.push_str("skill.md"),
            Part::Folder(n) => name.push_str(["a", "b", "a b", "a.b", "A"][usize::from(n % 5)]),
            Part::File(n) => {
                name.push_str(["ref.md", "run.sh", "x..md", "é.md"][usize::from(n % 4)])
            }
            Part::Dot => name.push('.'),
            Part::DotDot => name.push_str(".."),
            Part::Empty => {}
            Part::Drive => name.push_str("c:"),
            Part::Backslash => name.push_str("x\\y"),
            Part::Control => name.push_str("x\u{1}\u{7f}"),
            Part::Text(text) => name.push_str(text),
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Name {
    Parts { absolute: bool, parts: Vec<Part> },
    Raw(String),
}

impl Name {
    fn build(&self) -> String {
        match self {
            Name::Raw(name) => name.clone(),
            Name::Parts { absolute, parts } => {
                let mut name = String::new();
                if *absolute {
                    name.push('/');
                }
                for (index, part) in parts.iter().enumerate() {
                    if index > 0 {
                        name.push('/');
                    }
                    part.push_to(&mut name);
                }
                name
            }
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Contents {
    Raw(Vec<u8>),
    /// A SKILL.md with front matter.
    Skill {
        name: String,
        body: String,
    },
    /// `count` copies of one byte: sizes around and over the limits, deflated small.
    Repeat {
        byte: u8,
        count: u16,
    },
}

impl Contents {
    fn build(&self) -> Vec<u8> {
        match self {
            Contents::Raw(bytes) => bytes.clone(),
            Contents::Skill { name, body } => {
                format!("---\nname: {name}\ndescription: d\n---\n{body}").into_bytes()
            }
            Contents::Repeat { byte, count } => vec![*byte; usize::from(*count)],
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Kind {
    File { deflate: bool, contents: Contents },
    Directory,
    Symlink(String),
}

#[derive(Debug, Arbitrary)]
struct Entry {
    name: Name,
    kind: Kind,
}

/// A built archive, then damaged.
#[derive(Debug, Arbitrary)]
struct Damaged {
    entries: Vec<Entry>,
    /// `(offset, mask)`: the byte at `offset` (modulo the length) is XORed with `mask`.
    flips: Vec<(u16, u8)>,
    /// The archive is cut to `cut` bytes (modulo its length plus one).
    cut: Option<u16>,
}

impl Damaged {
    fn apply(&self, archive: &mut Vec<u8>) {
        if archive.is_empty() {
            return;
        }
        for &(offset, mask) in &self.flips {
            let at = usize::from(offset) % archive.len();
            archive[at] ^= mask;
        }
        if let Some(cut) = self.cut {
            archive.truncate(usize::from(cut) % (archive.len() + 1));
        }
    }
}

/// Writes an archive of `entries`; an entry the writer refuses (a duplicate name, …) is left
/// out. `None` when the archive cannot be finished.
fn build_archive(entries: &[Entry]) -> Option<Vec<u8>> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for entry in entries {
        let name = entry.name.build();
        let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
        match &entry.kind {
            Kind::File { deflate, contents } => {
                let options = if *deflate {
                    SimpleFileOptions::default().compression_method(CompressionMethod::Deflated)
                } else {
                    stored
                };
                if writer.start_file(name, options).is_ok() {
                    writer.write_all(&contents.build()).ok()?;
                }
            }
            Kind::Directory => {
                let _ = writer.add_directory(name, stored);
            }
            Kind::Symlink(target) => {
                let _ = writer.add_symlink(name, target, stored);
            }
        }
    }
    writer.finish().ok().map(Cursor::into_inner)
}

/// Checks a path of a returned file.
fn check_path(skill: &ProvidedSkill, path: &str) {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || path.chars().any(char::is_control)
        || path
            .split('/')
            .any(|segment| matches!(segment, "" | "." | ".."));
    assert!(
        !bad,
        "skill `{}` holds a file with an unsafe path {path:?}",
        skill.name()
    );
}

/// Checks what an accepted archive promises.
fn check_skills(skills: &[ProvidedSkill], limits: ArchiveLimits) {
    let mut total: u64 = 0;
    for skill in skills {
        assert_eq!(skill.origin(), Origin::Archive);
        // The SKILL.md is kept as lossy UTF-8: each U+FFFD stands for one to three bytes of the
        // entry, so the entry held at least this many bytes.
        let text = skill.skill_md();
        let replaced = text
            .chars()
            .filter(|&c| c == char::REPLACEMENT_CHARACTER)
            .count();
        let skill_md_bytes = (text.len() - 2 * replaced) as u64;
        assert!(
            skill_md_bytes <= limits.max_file_bytes,
            "skill `{}`: SKILL.md of at least {skill_md_bytes} bytes, over the per-file limit {}",
            skill.name(),
            limits.max_file_bytes
        );
        total += skill_md_bytes;
        for (path, contents) in skill.files() {
            check_path(skill, path);
            assert!(
                contents.len() as u64 <= limits.max_file_bytes,
                "skill `{}`: file {path:?} of {} bytes, over the per-file limit {}",
                skill.name(),
                contents.len(),
                limits.max_file_bytes
            );
            total += contents.len() as u64;
        }
    }
    assert!(
        total <= limits.max_total_bytes,
        "{total} bytes in all, over the total limit {}",
        limits.max_total_bytes
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let limits = limits(mode);
    if mode & 0x80 == 0 {
        if let Ok(skills) = from_zip(Cursor::new(rest), limits) {
            check_skills(&skills, limits);
        }
        return;
    }
    if mode & 0x40 == 0 {
        let Ok(entries) = Vec::<Entry>::arbitrary_take_rest(Unstructured::new(rest)) else {
            return;
        };
        let Some(archive) = build_archive(&entries) else {
            return;
        };
        match from_zip(Cursor::new(&archive), limits) {
            Ok(skills) => check_skills(&skills, limits),
            Err(SourceError::Archive(message)) => {
                panic!("an archive written by the zip crate is refused as unreadable: {message}")
            }
            Err(_) => {}
        }
        return;
    }
    let Ok(damaged) = Damaged::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    let Some(mut archive) = build_archive(&damaged.entries) else {
        return;
    };
    damaged.apply(&mut archive);
    if let Ok(skills) = from_zip(Cursor::new(&archive), limits) {
        check_skills(&skills, limits);
    }
});
