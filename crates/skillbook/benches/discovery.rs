//! Discovery, catalog and read benchmarks on generated trees of 1,000 and 10,000 skills (cold
//! discovery also on each tree shape: small files, large files, deep and narrow).
//!
//! `cargo bench -p skillbook --bench discovery`. Each benchmark counts skills, so divan prints
//! skills per second. The trees are generated once per process (deterministic seed) and their
//! times set back past the cache's racy window, as on a real machine whose skills were
//! installed a while ago. The operating system's page cache is warm for every benchmark but
//! `cold_disk_discovery`, which drops it before each sample (as root; else it walks a fresh
//! tree): `cold_discovery` means no in-process cache, not a cold disk.
#![allow(
    clippy::disallowed_methods,
    reason = "the floor walk reads files by path on purpose"
)]
#![allow(
    clippy::expect_used,
    reason = "a benchmark without its fixture has nothing to measure"
)]

#[path = "support/tree.rs"]
mod tree;

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use divan::Bencher;
use divan::counter::ItemsCount;
use skillbook::{Catalog, Discovery, DiscoveryCache, Home, ReadBoundary, ReadRequest, SkillReader};

const SIZES: [usize; 2] = [1_000, 10_000];

/// Cold discovery on every tree shape: `shape/skills`.
const SHAPES: [&str; 6] = [
    "small/1000",
    "small/10000",
    "large/1000",
    "large/10000",
    "deep/1000",
    "deep/10000",
];

fn main() {
    divan::main();
}

/// The generated workspace for `skills` skills in the large shape: `<workspace>/.agents/skills/...`.
fn workspace(skills: usize) -> PathBuf {
    shaped_workspace(tree::Shape::Large, skills)
}

/// The generated workspace for `skills` skills of `shape`.
fn shaped_workspace(shape: tree::Shape, skills: usize) -> PathBuf {
    type Trees = HashMap<(&'static str, usize), tempfile::TempDir>;
    static TREES: OnceLock<Mutex<Trees>> = OnceLock::new();
    let trees = TREES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut trees = trees
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let directory = trees.entry((shape.name(), skills)).or_insert_with(|| {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let root = directory.path().join(".agents/skills");
        tree::generate_shape(&root, skills, 1, shape).expect("the benchmark tree");
        age(directory.path());
        directory
    });
    directory.path().to_path_buf()
}

/// Sets modification times an hour back, past the cache's racy window.
fn age(path: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    if let Ok(file) = File::open(path) {
        let _ = file.set_modified(old);
    }
    if path.is_dir() {
        for entry in fs::read_dir(path).into_iter().flatten().flatten() {
            age(&entry.path());
        }
    }
}

fn discovery(skills: usize) -> Discovery {
    let mut discovery = Discovery::new(workspace(skills));
    discovery = discovery.home(Home::Off);
    discovery
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn cold_discovery(bencher: Bencher, skills: usize) {
    let discovery = discovery(skills);
    bencher
        .counter(ItemsCount::new(skills))
        .bench(|| discovery.discover());
}

/// Cold discovery (no in-process cache, page cache warm) on each tree shape.
#[divan::bench(args = SHAPES, sample_count = 10, sample_size = 1)]
fn cold_discovery_by_shape(bencher: Bencher, case: &str) {
    let (shape, skills) = case.split_once('/').expect("shape/skills");
    let shape = tree::Shape::named(shape).expect("a known shape");
    let skills: usize = skills.parse().expect("a number of skills");
    let mut discovery = Discovery::new(shaped_workspace(shape, skills));
    discovery = discovery.home(Home::Off);
    bencher
        .counter(ItemsCount::new(skills))
        .bench(|| discovery.discover());
}

/// Drops the operating system's page, dentry and inode caches (needs root); false when it cannot.
fn drop_caches() -> bool {
    let synced = std::process::Command::new("sync")
        .status()
        .is_ok_and(|status| status.success());
    synced && fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok()
}

/// Cold from the disk: caches dropped before every sample where possible, else a fresh tree
/// (which the page cache has not seen as a whole).
#[divan::bench(args = SIZES, sample_count = 3, sample_size = 1)]
fn cold_disk_discovery(bencher: Bencher, skills: usize) {
    let can_drop = drop_caches();
    if !can_drop {
        eprintln!("cannot drop caches (not root?): each sample walks a fresh tree instead");
    }
    bencher
        .counter(ItemsCount::new(skills))
        .with_inputs(|| {
            if can_drop {
                drop_caches();
                (None, discovery(skills))
            } else {
                let fresh = tempfile::tempdir().expect("a temporary directory");
                tree::generate(&fresh.path().join(".agents/skills"), skills, 2)
                    .expect("the benchmark tree");
                let mut discovery = Discovery::new(fresh.path());
                discovery = discovery.home(Home::Off);
                (Some(fresh), discovery)
            }
        })
        .bench_local_values(|(_fresh, discovery)| discovery.discover());
}

#[divan::bench(args = SIZES, sample_count = 20, sample_size = 1)]
fn warm_discovery(bencher: Bencher, skills: usize) {
    let discovery = discovery(skills);
    let cache = DiscoveryCache::new();
    let first = cache.discover(&discovery);
    assert_eq!(first.skills().len(), skills);
    bencher.counter(ItemsCount::new(skills)).bench(|| {
        let again = cache.discover(&discovery);
        assert!(
            std::sync::Arc::ptr_eq(&first, &again),
            "the cache was not reused"
        );
        again
    });
}

#[divan::bench(args = SIZES, sample_count = 20)]
fn watched_discovery(bencher: Bencher, skills: usize) {
    let discovery = discovery(skills);
    let cache = DiscoveryCache::watching();
    let first = cache.discover(&discovery);
    // The second call waits for the watches to go up (another thread walks again beneath them).
    assert!(std::sync::Arc::ptr_eq(&first, &cache.discover(&discovery)));
    bencher.counter(ItemsCount::new(skills)).bench(|| {
        let again = cache.discover(&discovery);
        assert!(
            std::sync::Arc::ptr_eq(&first, &again),
            "the cache was not reused"
        );
        again
    });
}

/// The first discovery of a watching cache: a cold walk (the watches go up on another thread,
/// walking again beneath them), so it should cost one cold discovery. The `first-discovery`
/// example times it against a cold one in interleaved rounds, which this cannot.
#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn first_watched_discovery(bencher: Bencher, skills: usize) {
    let discovery = discovery(skills);
    bencher
        .counter(ItemsCount::new(skills))
        .with_inputs(DiscoveryCache::watching)
        .bench_local_values(|cache| cache.discover(&discovery));
}

#[divan::bench(args = SIZES, sample_count = 20)]
fn catalog_render(bencher: Bencher, skills: usize) {
    let found = discovery(skills).discover();
    bencher
        .counter(ItemsCount::new(skills))
        .bench(|| Catalog::new(found.skills()).render());
}

/// Lines 1–50 of a SKILL.md through the skill reader every surface uses: the skill found by
/// its folder, the folder reached beneath its root and checked, the file opened beneath it.
#[divan::bench(args = SIZES, sample_count = 50)]
fn skill_reader_segment(bencher: Bencher, skills: usize) {
    let found = discovery(skills).discover();
    let reader = SkillReader::new(&found);
    let mut request = ReadRequest::new(found.skills()[skills / 2].location());
    request.end_line = Some(50);
    bencher
        .counter(ItemsCount::new(1usize))
        .bench(|| reader.read(&request).expect("a readable skill"));
}

/// Lines 1–50 of a SKILL.md through a reader over a restricted boundary: the path resolved in
/// the boundary, the file opened beneath the root's handle.
#[divan::bench(sample_count = 50)]
fn read_skill_segment(bencher: Bencher) {
    let found = discovery(1_000).discover();
    let boundary = ReadBoundary::restricted(found.read_roots()).expect("the skill root");
    let tool = SkillReader::over_boundary(boundary, []);
    let mut request = ReadRequest::new(found.skills()[500].location());
    request.end_line = Some(50);
    bencher
        .counter(ItemsCount::new(1usize))
        .bench(|| tool.read(&request).expect("a readable skill"));
}
