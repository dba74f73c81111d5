//! Paging by key: a cursor names the last entry of the page it ends, not a position.
//!
//! Every paged list is sorted by a unique key (a skill's name, a file's name in its
//! directory). The next page starts after the key the cursor holds, so a skill added or removed
//! between two requests neither shifts the pages nor repeats an entry, and any replica serving
//! the same skills answers the same cursor with the same page: the cursor is the whole state.
//!
//! A cursor is the key, base64url-encoded behind a version byte; clients treat it as opaque. A
//! string that does not decode to one is error `-32602`.

use std::ops::Range;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rmcp::ErrorData;

/// The first byte of every cursor this server gives.
const VERSION: u8 = 1;

/// The cursor of the page that follows the entry with `key`.
pub(crate) fn after(key: &str) -> String {
    let mut bytes = Vec::with_capacity(key.len() + 1);
    bytes.push(VERSION);
    bytes.extend_from_slice(key.as_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The key a cursor holds, if this server could have given it.
fn key_of(cursor: &str) -> Option<String> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let (&version, key) = bytes.split_first()?;
    (version == VERSION && !key.is_empty())
        .then(|| String::from_utf8(key.to_vec()).ok())
        .flatten()
}

/// The positions of the page of `total` entries, sorted by `key`, that `cursor` asks for, and
/// the cursor of the page after it.
///
/// # Errors
///
/// Invalid params when the cursor is not one this server gives.
pub(crate) fn page<'a>(
    cursor: Option<&str>,
    total: usize,
    size: usize,
    key: impl Fn(usize) -> &'a str,
) -> Result<(Range<usize>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let after = key_of(cursor).ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("the cursor `{cursor}` was not given by this server"),
                    None,
                )
            })?;
            partition(total, |position| key(position) <= after.as_str())
        }
    };
    let end = start.saturating_add(size.max(1)).min(total);
    let next = (end < total && end > start).then(|| self::after(key(end - 1)));
    Ok((start..end, next))
}

/// The first position in `0..total` where `before` is false (it must be true, then false).
fn partition(total: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, total);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    fn pages(keys: &[&str], cursor: Option<&str>, size: usize) -> (Vec<String>, Option<String>) {
        let (range, next) = page(cursor, keys.len(), size, |position| keys[position]).unwrap();
        (
            keys[range].iter().map(|key| key.to_string()).collect(),
            next,
        )
    }

    #[test]
    fn a_page_ends_with_a_cursor_naming_its_last_key() {
        let keys = ["a", "b", "c", "d", "e"];
        let (first, next) = pages(&keys, None, 2);
        assert_eq!(
            (first, next.clone()),
            (vec!["a".into(), "b".into()], Some(after("b")))
        );
        let (second, next) = pages(&keys, next.as_deref(), 2);
        assert_eq!(second, ["c", "d"]);
        let (third, next) = pages(&keys, next.as_deref(), 2);
        assert_eq!((third, next), (vec!["e".into()], None));
    }

    #[test]
    fn an_entry_added_or_removed_between_pages_shifts_nothing() {
        let (_, next) = pages(&["b", "d", "f"], None, 2);
        // `a` and `c` were added and `d` removed before the second request.
        let (second, _) = pages(&["a", "b", "c", "f"], next.as_deref(), 2);
        assert_eq!(second, ["f"]);
    }

    #[test]
    fn cursors_this_server_never_gives_are_refused() {
        for cursor in [
            "x",
            "-1",
            "99",
            "nonsense",
            "",
            &URL_SAFE_NO_PAD.encode([VERSION]),
        ] {
            let refused = page(Some(cursor), 3, 2, |_| "a").unwrap_err();
            assert_eq!(
                refused.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{cursor:?}"
            );
        }
    }

    #[test]
    fn a_cursor_past_the_end_gives_an_empty_last_page() {
        let (rest, next) = pages(&["a", "b"], Some(&after("zzz")), 2);
        assert_eq!((rest, next), (Vec::<String>::new(), None));
    }
}
