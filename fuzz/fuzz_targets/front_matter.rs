//! Feeds arbitrary bytes to the SKILL.md reader and the checker's rules (`check_text` parses the
//! text as discovery does, then grades every finding).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use skillbook::check::{Mode, check_text};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("/fuzz/skill/SKILL.md");
    for mode in [Mode::Lenient, Mode::Standard, Mode::Strict] {
        for diagnostic in check_text(path, &text, mode) {
            assert!(diagnostic.line.is_none_or(|line| line >= 1));
            assert!(diagnostic.column.is_none_or(|column| column >= 1));
        }
    }
});
