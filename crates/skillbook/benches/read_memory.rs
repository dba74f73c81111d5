//! Memory of a segmented read: lines 1–50 of sparse files from 64 KiB to 4 GiB.
//!
//! Run with `cargo bench -p skillbook --bench read_memory`. Before the timed runs it prints the
//! process's peak resident memory (`VmHWM`) before and after one read of the 4 GiB file; divan's
//! allocation profiler then reports the bytes allocated per read for each file size, which stay
//! the same whatever the size.

use std::error::Error;
use std::fs::{self, File};
use std::io::Write;

use divan::{AllocProfiler, Bencher};
use serde_json::json;
use skillbook::{ReadBoundary, ReadOptions, SkillReader};
use tempfile::TempDir;

#[global_allocator]
static ALLOCATOR: AllocProfiler = AllocProfiler::system();

/// The sizes of the sparse files, of which only the first lines are written: 64 KiB, 64 MiB,
/// 4 GiB.
const FILE_BYTES: [u64; 3] = [64 << 10, 64 << 20, 4 << 30];

/// The size whose peak resident memory is reported.
const LARGEST_FILE_BYTES: u64 = 4 << 30;

/// A reader over a restricted boundary around a directory holding `big.md`, without a size
/// limit.
struct Fixture {
    _directory: TempDir,
    reader: SkillReader,
}

fn fixture(size: u64) -> Result<Fixture, Box<dyn Error>> {
    let directory = tempfile::tempdir()?;
    let mut file = File::create(directory.path().join("big.md"))?;
    // Enough text that the first 8 KiB checked for binary content are text.
    for line in 1..=400 {
        writeln!(
            file,
            "line {line}: the quick brown fox jumps over the lazy dog"
        )?;
    }
    file.set_len(size)?;
    let boundary = ReadBoundary::restricted([directory.path()])?;
    let reader = SkillReader::over_boundary(boundary, [])
        .with_options(ReadOptions::default().with_max_file_bytes(None));
    Ok(Fixture {
        _directory: directory,
        reader,
    })
}

/// The peak resident memory of this process, in KiB.
#[expect(
    clippy::disallowed_methods,
    reason = "a kernel report, not a skill file"
)]
fn peak_resident_kib() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn report_peak_memory() -> Result<(), Box<dyn Error>> {
    let fixture = fixture(LARGEST_FILE_BYTES)?;
    let before = peak_resident_kib();
    let result = fixture
        .reader
        .call(&json!({"path": "big.md", "startLine": 1, "endLine": 50}))?;
    let after = peak_resident_kib();
    println!(
        "lines {}-{} of a {} GiB file: {} characters, nextStartLine {:?}, totalLines {:?}",
        result.start_line,
        result.end_line,
        LARGEST_FILE_BYTES >> 30,
        result.content.chars().count(),
        result.next_start_line,
        result.total_lines,
    );
    let kib =
        |value: Option<u64>| value.map_or_else(|| "unknown".to_owned(), |kib| format!("{kib} KiB"));
    println!(
        "peak resident memory (VmHWM): {} before the read, {} after",
        kib(before),
        kib(after)
    );
    Ok(())
}

#[divan::bench(args = FILE_BYTES)]
fn lines_1_to_50(bencher: Bencher, size: u64) {
    let Ok(fixture) = fixture(size) else {
        eprintln!("could not create the sparse file");
        return;
    };
    let arguments = json!({"path": "big.md", "startLine": 1, "endLine": 50});
    bencher.bench_local(|| fixture.reader.call(&arguments));
}

fn main() -> Result<(), Box<dyn Error>> {
    report_peak_memory()?;
    divan::main();
    Ok(())
}
