//! The crate's shape, read from its sources: every public item has exactly one path, and the
//! modules depend on each other without a cycle (pure rules at the bottom, orchestration on
//! top).
#![allow(
    clippy::disallowed_methods,
    reason = "the test reads the crate's own sources, not skills"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The text of a file without its comments (`//` to the end of a line; the sources use no block
/// comments) and without its `#[cfg(test)]` modules' bodies (tests may reach anywhere).
fn code_of(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut code = String::new();
    for line in text.lines() {
        if line.trim_start() == "#[cfg(test)]" {
            // A test module or item ends the code that ships (they sit at the end of files).
            let rest = &text[text.find(line).unwrap_or(0)..];
            if rest
                .lines()
                .nth(1)
                .is_some_and(|next| next.starts_with("mod "))
            {
                break;
            }
        }
        let line = line.split("//").next().unwrap_or_default();
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// Every `.rs` file of a top-level module (`name.rs` and everything under `name/`), tests left
/// out.
fn module_files(name: &str) -> Vec<PathBuf> {
    let root = source_dir();
    let mut files = vec![root.join(format!("{name}.rs"))];
    let mut folders = vec![root.join(name)];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let is_test = path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name == "tests.rs" || name == "tests");
            if is_test {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }
    files.retain(|file| file.exists());
    files
}

/// The top-level modules declared in `lib.rs`, each with whether it is public.
fn top_modules() -> BTreeMap<String, bool> {
    let lib = code_of(&source_dir().join("lib.rs"));
    let mut modules = BTreeMap::new();
    for line in lib.lines().map(str::trim) {
        let (public, rest) = match line.strip_prefix("pub mod ") {
            Some(rest) => (true, rest),
            None => match line.strip_prefix("mod ") {
                Some(rest) => (false, rest),
                None => continue,
            },
        };
        modules.insert(rest.trim_end_matches(';').to_owned(), public);
    }
    modules
}

/// The names a `pub use` statement makes public (`as` renames count by their new name).
fn exported_names(code: &str) -> Vec<(String, String)> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(start) = rest.find("pub use ") {
        let after = &rest[start + "pub use ".len()..];
        let end = after.find(';').unwrap_or(after.len());
        let statement = &after[..end];
        let (path, list) = match statement.find('{') {
            Some(brace) => (
                statement[..brace].trim_end_matches("::"),
                statement[brace + 1..].trim_end_matches('}'),
            ),
            None => match statement.rfind("::") {
                Some(colons) => (&statement[..colons], &statement[colons + 2..]),
                None => ("", statement),
            },
        };
        for item in list
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
        {
            let name = item.rsplit(" as ").next().unwrap_or(item).trim();
            let name = name.rsplit("::").next().unwrap_or(name);
            if name != "self" {
                names.push((name.to_owned(), path.trim().to_owned()));
            }
        }
        rest = &after[end..];
    }
    names
}

/// Items a public module defines at its top with `pub` (functions, types, constants).
fn defined_names(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in code.lines() {
        let Some(rest) = line.strip_prefix("pub ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(kind) = words.next() else { continue };
        if !matches!(
            kind,
            "fn" | "struct" | "enum" | "const" | "static" | "trait" | "type"
        ) {
            continue;
        }
        if let Some(name) = words.next() {
            let name: String = name
                .chars()
                .take_while(|character| character.is_alphanumeric() || *character == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

#[test]
fn every_public_item_has_one_path() {
    let modules = top_modules();
    let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let lib = code_of(&source_dir().join("lib.rs"));
    for (name, from) in exported_names(&lib) {
        let first = from.split("::").next().unwrap_or_default().to_owned();
        assert_eq!(
            modules.get(&first),
            Some(&false),
            "the root re-exports `{name}` from `{from}`, which is not a private module: \
             the item would have two paths"
        );
        paths.entry(name).or_default().push("skillbook".to_owned());
    }
    for (module, _) in modules.iter().filter(|(_, public)| **public) {
        let code = code_of(&source_dir().join(format!("{module}.rs")));
        let defined = defined_names(&code);
        let exported = exported_names(&code).into_iter().map(|(name, from)| {
            let from_public = from
                .strip_prefix("crate::")
                .and_then(|rest| rest.split("::").next())
                .is_some_and(|first| modules.get(first) == Some(&true));
            assert!(
                !from_public && from != "crate",
                "`skillbook::{module}` re-exports `{name}` from `{from}`, which is public already"
            );
            name
        });
        for name in defined.into_iter().chain(exported) {
            paths
                .entry(name)
                .or_default()
                .push(format!("skillbook::{module}"));
        }
    }
    let doubled: Vec<_> = paths.iter().filter(|(_, at)| at.len() > 1).collect();
    assert!(
        doubled.is_empty(),
        "items with two public paths: {doubled:?}"
    );
    // The root stays small: what every program needs, with namespaces for the rest.
    let at_root = paths
        .values()
        .filter(|at| at.iter().any(|path| path == "skillbook"))
        .count();
    assert!(at_root > 20, "the root lost its items: {at_root}");
}

#[test]
fn the_modules_depend_on_each_other_without_a_cycle() {
    let modules = top_modules();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for module in modules.keys() {
        let mut uses = BTreeSet::new();
        for file in module_files(module) {
            let code = code_of(&file);
            for (index, _) in code.match_indices("crate::") {
                let target: String = code[index + "crate::".len()..]
                    .chars()
                    .take_while(|character| character.is_alphanumeric() || *character == '_')
                    .collect();
                if modules.contains_key(&target) && &target != module {
                    uses.insert(target);
                }
            }
        }
        edges.insert(module.clone(), uses);
    }
    // Depth-first search for a back edge.
    fn visit(
        module: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        trail: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = trail.iter().position(|seen| seen == module) {
            let mut cycle = trail[start..].to_vec();
            cycle.push(module.to_owned());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        trail.push(module.to_owned());
        for next in edges.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, trail, done) {
                return Some(cycle);
            }
        }
        trail.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for module in edges.keys() {
        let cycle = visit(module, &edges, &mut Vec::new(), &mut done);
        assert!(
            cycle.is_none(),
            "a module cycle: {}",
            cycle.unwrap_or_default().join(" → ")
        );
    }
    // The layers the crate is read by: nothing below discovery reaches up into it.
    for low in [
        "boundary",
        "diagnostic",
        "error",
        "format",
        "frontmatter",
        "paths",
        "uri",
    ] {
        let reaches = &edges[low];
        for high in [
            "discovery",
            "catalog",
            "read",
            "reader",
            "runtime",
            "search",
            "check",
        ] {
            assert!(!reaches.contains(high), "`{low}` depends on `{high}`");
        }
    }
}
