//! Skills as the tests write them into a store, and the names a load found.
#![allow(dead_code, reason = "each test file uses a part of it")]

use skillbook_store::Loaded;

/// A `SKILL.md` with `name` and `description` in its front matter, and a short body.
pub fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nBody.\n")
}

/// The names of the skills loaded, in order.
pub fn names(loaded: &Loaded) -> Vec<&str> {
    loaded
        .skills
        .iter()
        .map(|skill| skill.name().as_str())
        .collect()
}
