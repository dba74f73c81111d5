//! The first location of each skill name met, kept compactly while skills are handed over one
//! by one: a hundred thousand names cost a few blocks of text and one table, not two
//! allocations each (which also took a noticeable time to free when the walk ended).

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, BuildHasherDefault};
use std::path::{Path, PathBuf};

use crate::boundary::open::FileIdHasher;

/// The bytes of text kept in one block.
const BLOCK: usize = 1 << 20;

/// Where a name's key and first location lie, and the entry met before it with the same hash.
struct Entry {
    block: u32,
    start: u32,
    key: u32,
    location: u32,
    /// The previous entry of the same hash, plus one (0: none).
    previous: u32,
}

/// The first location of each name key (a skill name trimmed and lower-cased).
#[derive(Default)]
pub(super) struct FirstNames {
    blocks: Vec<String>,
    entries: Vec<Entry>,
    /// The last entry of each hash, plus one. The hashes are keyed at random (SipHash), so a
    /// skill author cannot make names collide on purpose; they are only mixed again here.
    by_hash: HashMap<u64, u32, BuildHasherDefault<FileIdHasher>>,
    hasher: RandomState,
    /// Room for a key that is not plain ASCII.
    scratch: String,
}

impl FirstNames {
    /// The location first recorded for the name `name`, if any; else records `location` as
    /// its first and answers `None`.
    pub(super) fn first_or_insert(&mut self, name: &str, location: &Path) -> Option<PathBuf> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let key = key(name, &mut scratch);
        let hash = self.hasher.hash_one(key);
        let winner = self.find(hash, key).map(PathBuf::from);
        if winner.is_none() {
            self.insert(hash, key, location);
        }
        self.scratch = scratch;
        winner
    }

    /// The first location recorded for `key`, whose hash is `hash`.
    fn find(&self, hash: u64, key: &str) -> Option<&str> {
        let mut next = self.by_hash.get(&hash).copied().unwrap_or(0);
        while let Some(index) = next.checked_sub(1) {
            let entry = &self.entries[index as usize];
            let (found, first) = self.parts(entry);
            if found == key {
                return Some(first);
            }
            next = entry.previous;
        }
        None
    }

    fn insert(&mut self, hash: u64, key: &str, location: &Path) {
        let location = location.as_os_str().as_encoded_bytes();
        let location = String::from_utf8_lossy(location);
        let length = key.len() + location.len();
        let fits = self
            .blocks
            .last()
            .is_some_and(|block| block.capacity() - block.len() >= length);
        if !fits {
            self.blocks.push(String::with_capacity(BLOCK.max(length)));
        }
        let block = self.blocks.len() - 1;
        let text = &mut self.blocks[block];
        let start = text.len();
        text.push_str(key);
        text.push_str(&location);
        // A block holds at most max(BLOCK, one entry) bytes; past 4 GiB a name is no name.
        let small = |value: usize| u32::try_from(value).unwrap_or(u32::MAX);
        let previous = self.by_hash.get(&hash).copied().unwrap_or(0);
        self.entries.push(Entry {
            block: small(block),
            start: small(start),
            key: small(key.len()),
            location: small(location.len()),
            previous,
        });
        self.by_hash.insert(hash, small(self.entries.len()));
    }

    /// The key and first location of `entry`.
    fn parts(&self, entry: &Entry) -> (&str, &str) {
        let text = &self.blocks[entry.block as usize];
        let start = entry.start as usize;
        let location = start + entry.key as usize;
        let end = location + entry.location as usize;
        (&text[start..location], &text[location..end])
    }
}

/// The duplicate key of `name` (as [`crate::format::name_key`] makes it), borrowed from
/// `name` when it already is one, else made in `scratch`.
fn key<'a>(name: &'a str, scratch: &'a mut String) -> &'a str {
    let name = name.trim();
    if name
        .bytes()
        .any(|byte| byte.is_ascii_uppercase() || !byte.is_ascii())
    {
        *scratch = name.to_lowercase();
        scratch
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::name_key;

    #[test]
    fn names_meet_as_their_keys_do() {
        let names = [
            "pdf",
            " PDF ",
            "Pdf\t",
            "ΣΊΣΥΦΟΣ",
            "σίσυφος",
            "σίσυφοσ",
            "Straße",
            "STRASSE",
            "straße",
            "İstanbul",
            "i\u{307}stanbul",
            "ǅemal",
            "ǆemal",
        ];
        let mut first = FirstNames::default();
        for (index, name) in names.iter().enumerate() {
            let location = PathBuf::from(format!("/{index}/SKILL.md"));
            let expected = names[..index]
                .iter()
                .position(|earlier| name_key(earlier) == name_key(name))
                .map(|earlier| PathBuf::from(format!("/{earlier}/SKILL.md")));
            assert_eq!(first.first_or_insert(name, &location), expected, "{name}");
        }
    }

    #[test]
    fn many_names_keep_their_first_locations() {
        let mut first = FirstNames::default();
        for index in 0..50_000 {
            let name = format!("skill-{index}");
            let location = PathBuf::from(format!("/root/{index}/SKILL.md"));
            assert_eq!(first.first_or_insert(&name, &location), None);
        }
        for index in (0..50_000).step_by(997) {
            let name = format!("SKILL-{index}");
            assert_eq!(
                first.first_or_insert(&name, Path::new("/other")),
                Some(PathBuf::from(format!("/root/{index}/SKILL.md")))
            );
        }
    }
}
