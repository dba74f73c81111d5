//! The first discovery of a tree three ways, in interleaved rounds: without a cache, through a
//! plain [`DiscoveryCache`] (which records a stamp per path) and through a watching one (whose
//! watches then go up on another thread). Prints the medians and their ratios to the first.
//!
//! ```text
//! cargo run --release -p skillbook --example first-discovery -- TREE [ROUNDS]
//! ```
//!
//! Make TREE with the `generate-tree` example. No timing includes freeing a result. Each round
//! waits for the watching cache's watches to go up before dropping it, so no round pays for the
//! one before.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use skillbook::{Discovery, DiscoveryCache, Home};

fn main() -> ExitCode {
    let mut arguments = std::env::args().skip(1);
    let Some(tree) = arguments.next().map(PathBuf::from) else {
        eprintln!("usage: first-discovery TREE [ROUNDS=11]");
        return ExitCode::from(2);
    };
    let rounds = arguments
        .next()
        .and_then(|rounds| rounds.parse().ok())
        .unwrap_or(11_usize)
        .max(1);
    let mut discovery = Discovery::new(std::env::temp_dir());
    discovery = discovery
        .home(Home::Off)
        .namespaces(Vec::<String>::new())
        .extra_root(&tree);
    let skills = discovery.discover().skills().len();
    let time = |run: &mut dyn FnMut()| {
        let started = Instant::now();
        run();
        started.elapsed().as_secs_f64() * 1e3
    };
    let (mut cold, mut plain, mut watching) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        // Each result is dropped after its timing ends (the caches keep theirs).
        let mut found = None;
        cold.push(time(&mut || found = Some(discovery.discover())));
        drop(found);
        std::thread::sleep(Duration::from_millis(200));
        let cache = DiscoveryCache::new();
        plain.push(time(&mut || drop(cache.discover(&discovery))));
        drop(cache);
        std::thread::sleep(Duration::from_millis(200));
        let cache = DiscoveryCache::watching();
        watching.push(time(&mut || drop(cache.discover(&discovery))));
        // Let the watches go up (another thread walks the tree again beneath them) before the
        // next round: the next call waits for that walk.
        drop(cache.discover(&discovery));
        drop(cache);
        std::thread::sleep(Duration::from_millis(200));
    }
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (cold, plain, watching) = (median(&mut cold), median(&mut plain), median(&mut watching));
    println!(
        "{} ({skills} skills, {rounds} rounds, medians): cold {cold:.1} ms | plain cache first \
         {plain:.1} ms ({:.2}×) | watching cache first {watching:.1} ms ({:.2}×)",
        tree.display(),
        plain / cold,
        watching / cold
    );
    ExitCode::SUCCESS
}
