//! Lexical path helpers. These never touch the disk and are never used for security decisions.

use std::path::{Component, Path, PathBuf};

/// Makes `path` absolute against `base` (when relative) and removes `.` and `..` lexically.
///
/// `..` at the top of an absolute path stays at the top (`/..` is `/`).
pub(crate) fn absolute_against(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        normalize(path)
    } else {
        normalize(&base.join(path))
    }
}

/// Removes `.` and `..` components lexically.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut normalized = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                normalized.push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                let at_top = matches!(
                    normalized.components().next_back(),
                    None | Some(Component::RootDir | Component::Prefix(_) | Component::ParentDir)
                );
                if !at_top {
                    normalized.pop();
                } else if !normalized.has_root() {
                    normalized.push("..");
                }
            }
        }
    }
    normalized
}

/// `path` made absolute against the process's current directory and normalised. When the
/// current directory cannot be read (it was deleted), a relative path stays relative — it is
/// never taken from `/` — so it names nothing that can be opened.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    absolute_from(std::env::current_dir().ok().as_deref(), path)
}

fn absolute_from(current: Option<&Path>, path: &Path) -> PathBuf {
    match current {
        Some(current) => absolute_against(current, path),
        None => normalize(path),
    }
}

/// Serialises a path as a string (lossily for non-UTF-8 paths).
pub(crate) fn serialize_path<S: serde::Serializer>(
    path: &Path,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_current_directory_a_relative_path_is_never_taken_from_the_root() {
        assert_eq!(absolute_from(None, Path::new(".")), PathBuf::new());
        assert_eq!(
            absolute_from(None, Path::new("a/./b")),
            PathBuf::from("a/b")
        );
        assert_eq!(
            absolute_from(None, Path::new("/etc")),
            PathBuf::from("/etc")
        );
        assert_eq!(
            absolute_from(Some(Path::new("/w")), Path::new("a/../b")),
            PathBuf::from("/w/b")
        );
    }

    #[test]
    fn normalizes_dots_lexically() {
        let cases = [
            ("/a/b/../c", "/a/c"),
            ("/a/./b/", "/a/b"),
            ("/../a", "/a"),
            ("a/../../b", "../b"),
            ("./a", "a"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                normalize(Path::new(input)),
                PathBuf::from(expected),
                "{input}"
            );
        }
    }

    #[test]
    fn encoded_and_backslash_names_stay_literal() {
        assert_eq!(
            absolute_against(Path::new("/ws"), Path::new("%2e%2e%2fetc")),
            PathBuf::from("/ws/%2e%2e%2fetc")
        );
        assert_eq!(
            absolute_against(Path::new("/ws"), Path::new(r"..\..\x")),
            PathBuf::from(r"/ws/..\..\x")
        );
        assert_eq!(
            absolute_against(Path::new("/ws"), Path::new("../../../../x")),
            PathBuf::from("/x")
        );
    }

    #[test]
    fn relative_paths_resolve_against_the_base() {
        assert_eq!(
            absolute_against(Path::new("/work/space"), Path::new("../shared/skills")),
            PathBuf::from("/work/shared/skills")
        );
        assert_eq!(
            absolute_against(Path::new("/work/space"), Path::new("/opt/skills/.")),
            PathBuf::from("/opt/skills")
        );
    }
}
