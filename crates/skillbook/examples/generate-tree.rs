//! Writes a deterministic benchmark tree of skills.
//!
//! ```text
//! cargo run --release -p skillbook --example generate-tree -- OUT_DIR [SKILLS] [SEED] [SHAPE]
//! ```
//!
//! SHAPE is `small`, `large` (the default) or `deep`; see `benches/support/tree.rs`.

#[path = "../benches/support/tree.rs"]
mod tree;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut arguments = std::env::args().skip(1);
    let Some(root) = arguments.next().map(PathBuf::from) else {
        eprintln!("usage: generate-tree OUT_DIR [SKILLS=1000] [SEED=1] [SHAPE=large|small|deep]");
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
    let shape = match arguments.next() {
        None => tree::Shape::Large,
        Some(name) => match tree::Shape::named(&name) {
            Some(shape) => shape,
            None => {
                eprintln!("error: unknown shape {name:?}: use small, large or deep");
                return ExitCode::from(2);
            }
        },
    };
    match tree::generate_shape(&root, skills, seed, shape) {
        Ok(()) => {
            println!(
                "wrote {skills} skills ({} shape) under {}",
                shape.name(),
                root.display()
            );
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
