//! Writes a deterministic benchmark tree of skills.
//!
//! ```text
//! cargo run --release -p skillbook --example generate-tree -- OUT_DIR [SKILLS] [SEED]
//! ```

#[path = "../benches/support/tree.rs"]
mod tree;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut arguments = std::env::args().skip(1);
    let Some(root) = arguments.next().map(PathBuf::from) else {
        eprintln!("usage: generate-tree OUT_DIR [SKILLS=1000] [SEED=1]");
        return ExitCode::from(2);
    };
    let skills = arguments
        .next()
        .and_then(|value| value.parse().ok())
        .unwrap_or(1000);
    let seed = arguments
        .next()
        .and_then(|value| value.parse().ok())
        .unwrap_or(1);
    match tree::generate(&root, skills, seed) {
        Ok(()) => {
            println!("wrote {skills} skills under {}", root.display());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "error: cannot write the tree under {}: {error}",
                root.display()
            );
            ExitCode::FAILURE
        }
    }
}
