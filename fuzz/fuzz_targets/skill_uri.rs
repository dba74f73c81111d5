//! `uri::SkillUri::parse` on arbitrary text, and `uri::resource` round trips.
//!
//! Properties (each a panic when broken):
//! - parsing never panics, neither the input nor `skill://` followed by it;
//! - a parsed URI has a non-empty name without `/` or NUL that is not `.` or `..`, and a
//!   relative path whose segments are non-empty, hold no NUL and are not `.` or `..`;
//! - `resource(name, relative)` of a parsed URI is ASCII and parses back to the same value;
//! - for any name and segments that are non-empty, not `.` or `..` and hold no `/` or NUL,
//!   `resource(name, segments.join("/"))` parses back to that name and relative path.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use skillbook::uri::{SCHEME, SkillUri, resource};

fn round_trip(name: &str, relative: &str) {
    let uri = resource(name, relative);
    assert!(
        uri.is_ascii(),
        "resource({name:?}, {relative:?}) = {uri:?} is not ASCII"
    );
    let expected = SkillUri {
        name: name.to_owned(),
        relative: relative.to_owned(),
    };
    assert_eq!(
        SkillUri::parse(&uri),
        Ok(expected),
        "resource({name:?}, {relative:?}) = {uri:?} does not parse back"
    );
}

fn check_parse(text: &str) {
    let Ok(parsed) = SkillUri::parse(text) else {
        return;
    };
    let name = parsed.name.as_str();
    assert!(
        !name.is_empty() && !name.contains(['/', '\0']) && name != "." && name != "..",
        "{text:?} parsed to the name {name:?}"
    );
    if !parsed.relative.is_empty() {
        for segment in parsed.relative.split('/') {
            assert!(
                !segment.is_empty() && !segment.contains('\0') && segment != "." && segment != "..",
                "{text:?} parsed to the path {:?}",
                parsed.relative
            );
        }
    }
    round_trip(name, &parsed.relative);
}

/// A name or segment the encoder is given: anything but empty, `.`, `..`, or holding `/` or NUL.
fn acceptable(segment: &str) -> bool {
    !segment.is_empty() && segment != "." && segment != ".." && !segment.contains(['/', '\0'])
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check_parse(text);
        check_parse(&format!("{SCHEME}{text}"));
    }
    let Ok((name, segments)) =
        <(String, Vec<String>)>::arbitrary_take_rest(Unstructured::new(data))
    else {
        return;
    };
    if acceptable(&name) && segments.iter().all(|segment| acceptable(segment)) {
        round_trip(&name, &segments.join("/"));
    }
});
