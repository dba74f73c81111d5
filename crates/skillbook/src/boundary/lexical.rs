//! Lexical path arithmetic.
//!
//! These functions never touch the disk. The boundary uses them only to pick which root a path
//! belongs to; whether the file may be read is decided by opening it beneath that root's handle.

use std::path::{Component, Path, PathBuf};

/// Joins `path` to `base` when `path` is relative, then removes `.` and `..` components.
///
/// A `..` at the file system root stays at the root, as the kernel does. Nothing is decoded:
/// `%2e%2e` and backslashes are ordinary characters of a file name on Unix.
pub(super) fn normalize(base: &Path, path: &Path) -> PathBuf {
    let joined;
    let full = if path.is_absolute() {
        path
    } else {
        joined = base.join(path);
        &joined
    };
    let mut normal = PathBuf::new();
    for component in full.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                normal.push(component);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
        }
    }
    normal
}

/// Whether `path` holds a NUL byte, which no file name can hold.
pub(super) fn has_nul(path: &Path) -> bool {
    path.as_os_str().as_encoded_bytes().contains(&0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    fn normal(base: &str, path: &str) -> PathBuf {
        normalize(Path::new(base), Path::new(path))
    }

    #[test]
    fn relative_paths_join_the_base() {
        assert_eq!(normal("/ws", "a/b.md"), PathBuf::from("/ws/a/b.md"));
        assert_eq!(normal("/ws", "./a/./b.md"), PathBuf::from("/ws/a/b.md"));
    }

    #[test]
    fn parent_components_are_removed_lexically() {
        assert_eq!(normal("/ws", "a/../b"), PathBuf::from("/ws/b"));
        assert_eq!(normal("/ws", "../etc/passwd"), PathBuf::from("/etc/passwd"));
        assert_eq!(normal("/ws", "../../../../x"), PathBuf::from("/x"));
        assert_eq!(normal("/ws", ".."), PathBuf::from("/"));
    }

    #[test]
    fn absolute_paths_ignore_the_base() {
        assert_eq!(normal("/ws", "/etc/../ws/a"), PathBuf::from("/ws/a"));
    }

    #[test]
    fn encoded_and_backslash_names_stay_literal() {
        assert_eq!(
            normal("/ws", "%2e%2e%2fetc"),
            PathBuf::from("/ws/%2e%2e%2fetc")
        );
        assert_eq!(normal("/ws", r"..\..\x"), PathBuf::from(r"/ws/..\..\x"));
    }

    #[test]
    fn nul_bytes_are_detected() {
        assert!(has_nul(Path::new("ok\0.md")));
        assert!(!has_nul(Path::new("ok.md")));
    }
}
