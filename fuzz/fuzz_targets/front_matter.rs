//! Feeds arbitrary bytes to the SKILL.md reader, as text and through discovery.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let document = skillbook::frontmatter::parse(Path::new("/fuzz/SKILL.md"), &text);
    for diagnostic in &document.diagnostics {
        assert!(diagnostic.line.is_none_or(|line| line >= 1));
    }
});
