//! Feeds arbitrary bytes to the SKILL.md reader and the validator's rules.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use skillbook::validate::Mode;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let document = skillbook::frontmatter::parse(Path::new("/fuzz/SKILL.md"), &text);
    for diagnostic in &document.diagnostics {
        assert!(diagnostic.line.is_none_or(|line| line >= 1));
    }
    let path = Path::new("/fuzz/skill/SKILL.md");
    for mode in [Mode::Lenient, Mode::Standard, Mode::Strict] {
        for diagnostic in skillbook::validate::check_document(path, &document, mode) {
            assert!(diagnostic.line.is_none_or(|line| line >= 1));
            assert!(diagnostic.column.is_none_or(|column| column >= 1));
        }
    }
});
