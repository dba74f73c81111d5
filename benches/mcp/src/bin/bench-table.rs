//! Turns the JSON lines `scripts/bench-mcp.sh` collects into a Markdown table.
//!
//! ```text
//! bench-table RESULTS.jsonl
//! ```
//!
//! Each input line is `{"size":N,"run":R,"kind":K,"report":{…}}` or
//! `{"size":N,"run":R,"kind":K,"failed":"message"}`, where `K` is `rmcp-index` (a report of
//! `rmcp-skills-fs index`), `skillbook` or `rmcp` (reports of `mcp-bench`). Every cell is the
//! median over the runs of that size; ratios are medians divided by the median of rmcp's
//! `from_dir`. Prints the table, then the four targets with the measured values.

use std::collections::BTreeMap;
use std::process::ExitCode;

use serde_json::Value;

#[derive(Default)]
struct Size {
    runs: BTreeMap<String, Vec<Value>>,
    failures: Vec<String>,
}

impl Size {
    fn values(&self, kind: &str, field: &str) -> Vec<f64> {
        self.runs
            .get(kind)
            .into_iter()
            .flatten()
            .filter_map(|report| report[field].as_f64())
            .collect()
    }

    fn median(&self, kind: &str, field: &str) -> Option<f64> {
        let mut values = self.values(kind, field);
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let middle = values.len() / 2;
        Some(if values.len() % 2 == 1 {
            values[middle]
        } else {
            (values[middle - 1] + values[middle]) / 2.0
        })
    }

    fn count(&self, kind: &str) -> usize {
        self.runs.get(kind).map_or(0, Vec::len)
    }
}

fn duration(ms: Option<f64>) -> String {
    match ms {
        None => "—".into(),
        Some(ms) if ms >= 1000.0 => format!("{:.2} s", ms / 1000.0),
        Some(ms) if ms >= 100.0 => format!("{ms:.0} ms"),
        Some(ms) => format!("{ms:.1} ms"),
    }
}

fn micros(us: Option<f64>) -> String {
    match us {
        None => "—".into(),
        Some(us) if us >= 1000.0 => format!("{:.1} ms", us / 1000.0),
        Some(us) => format!("{us:.0} µs"),
    }
}

fn memory(kib: Option<f64>) -> String {
    match kib {
        None => "—".into(),
        Some(kib) if kib >= 1024.0 * 1024.0 => format!("{:.2} GiB", kib / 1024.0 / 1024.0),
        Some(kib) => format!("{:.1} MiB", kib / 1024.0),
    }
}

fn ratio(value: Option<f64>, base: Option<f64>) -> String {
    match (value, base) {
        (Some(value), Some(base)) if base > 0.0 => format!("{:.2}×", value / base),
        _ => "—".into(),
    }
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bench-table RESULTS.jsonl");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("bench-table: cannot read {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut sizes: BTreeMap<u64, Size> = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            eprintln!("bench-table: {path}:{}: not JSON", number + 1);
            return ExitCode::FAILURE;
        };
        let (Some(size), Some(kind)) = (record["size"].as_u64(), record["kind"].as_str()) else {
            eprintln!("bench-table: {path}:{}: no size or kind", number + 1);
            return ExitCode::FAILURE;
        };
        let entry = sizes.entry(size).or_default();
        if let Some(message) = record["failed"].as_str() {
            entry
                .failures
                .push(format!("{kind} run {}: {message}", record["run"]));
        } else {
            entry
                .runs
                .entry(kind.to_owned())
                .or_default()
                .push(record["report"].clone());
        }
    }

    println!(
        "| skills | runs | rmcp from_dir | skillbook first page (ratio) | skillbook all pages (ratio) \
         | rmcp all pages | read p50 / p95 skillbook | read p50 / p95 rmcp | peak RSS skillbook | \
         peak RSS rmcp |"
    );
    println!("|---:|:--:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (skills, size) in &sizes {
        let from_dir = size.median("rmcp-index", "from_dir_ms");
        let first = size.median("skillbook", "first_page_ms");
        let all = size.median("skillbook", "all_pages_ms");
        let failed = if size.failures.is_empty() { "" } else { " ⚠" };
        println!(
            "| {skills} | {}/{}/{}{failed} | {} | {} ({}) | {} ({}) | {} | {} / {} | {} / {} | {} | {} |",
            size.count("rmcp-index"),
            size.count("skillbook"),
            size.count("rmcp"),
            duration(from_dir),
            duration(first),
            ratio(first, from_dir),
            duration(all),
            ratio(all, from_dir),
            duration(size.median("rmcp", "all_pages_ms")),
            micros(size.median("skillbook", "read_p50_us")),
            micros(size.median("skillbook", "read_p95_us")),
            micros(size.median("rmcp", "read_p50_us")),
            micros(size.median("rmcp", "read_p95_us")),
            memory(size.median("skillbook", "peak_rss_kib")),
            memory(size.median("rmcp", "peak_rss_kib")),
        );
    }

    println!();
    println!("Targets (medians):");
    for (skills, size) in &sizes {
        let from_dir = size.median("rmcp-index", "from_dir_ms");
        let verdict = |value: Option<f64>, limit: f64| match (value, from_dir) {
            (Some(value), Some(base)) if base > 0.0 => {
                let ratio = value / base;
                format!(
                    "{ratio:.2}× {}",
                    if ratio <= limit { "met" } else { "NOT met" }
                )
            }
            _ => "no data".into(),
        };
        let rss = match (
            size.median("skillbook", "peak_rss_kib"),
            size.median("rmcp", "peak_rss_kib"),
        ) {
            (Some(ours), Some(theirs)) => format!(
                "{:.2}× of rmcp {}",
                ours / theirs,
                if ours < theirs { "met" } else { "NOT met" }
            ),
            _ => "no data".into(),
        };
        println!(
            "- {skills} skills: (a) first page ≤ 1.0× from_dir: {}; (b) all pages ≤ 2.0× \
             from_dir: {}; (d) peak RSS below rmcp: {rss}",
            verdict(size.median("skillbook", "first_page_ms"), 1.0),
            verdict(size.median("skillbook", "all_pages_ms"), 2.0),
        );
    }
    let p50 = |skills: u64, kind: &str, field: &str| {
        sizes.get(&skills).and_then(|size| size.median(kind, field))
    };
    for kind in ["skillbook", "rmcp"] {
        let growth = |field: &str| match (p50(1000, kind, field), p50(10000, kind, field)) {
            (Some(small), Some(large)) if small > 0.0 => format!("{:.2}×", large / small),
            _ => "no data".into(),
        };
        println!(
            "- (c) {kind} resources/read at 10,000 vs 1,000 skills: p50 {}, p95 {}",
            growth("read_p50_us"),
            growth("read_p95_us"),
        );
    }

    let mut failed = false;
    for (skills, size) in &sizes {
        for failure in &size.failures {
            if !failed {
                println!();
                println!("FAILED runs:");
                failed = true;
            }
            println!("- {skills} skills: {failure}");
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
