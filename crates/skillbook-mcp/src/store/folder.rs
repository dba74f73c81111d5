//! A `file://` prefix: a folder read through a [`ReadBoundary`] rooted at it, like skills on
//! disk, rather than through `object_store`'s local store (which follows links out of the
//! folder).

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use object_store::ObjectMeta;
use object_store::path::Path;
use skillbook::boundary::{BoundaryError, EntryKind, ReadBoundary, is_never_served};

use super::{Cached, Fetched, Listed, ObjectSource, below_any, skill_folders};

/// A local file modified this recently may change again within its time stamp's tick, unseen:
/// it is read again at the next load rather than trusted by its ETag.
const RACY_WINDOW: Duration = Duration::from_secs(2);

impl ObjectSource {
    /// A file of the `file://` prefix `root`: the cached bytes when its ETag ([`file_tag`]) is the one
    /// cached, else read (opened beneath the folder's handle: nothing outside it is read).
    pub(super) async fn read_file(
        &self,
        root: &std::path::Path,
        boundary: Arc<ReadBoundary>,
        key: &str,
        cached: Option<Cached>,
    ) -> Result<Fetched, String> {
        let path = root.join(key);
        let limit = self.limits.max_file_bytes;
        let read = tokio::task::spawn_blocking(move || -> Result<Fetched, String> {
            let opened = boundary
                .open(&path)
                .map_err(|error| format!("it cannot be read ({error})"))?;
            let size = opened.size();
            if size > limit {
                return Err(format!(
                    "it grew to {size} bytes, over the per-object limit of {limit} bytes"
                ));
            }
            let file = opened.into_file();
            let e_tag = file_tag(&file, size);
            if let Some(cached) = cached
                && cached.e_tag.is_some()
                && cached.e_tag == e_tag
            {
                return Ok(Fetched::Reused(cached));
            }
            let mut bytes = Vec::new();
            file.take(limit.saturating_add(1))
                .read_to_end(&mut bytes)
                .map_err(|error| format!("it cannot be read ({error})"))?;
            if bytes.len() as u64 > limit {
                return Err(format!(
                    "it grew past the per-object limit of {limit} bytes while read"
                ));
            }
            Ok(Fetched::Downloaded(Cached {
                e_tag,
                bytes: Arc::from(bytes),
            }))
        })
        .await
        .map_err(|error| format!("it cannot be read ({error})"))
        .and_then(|read| read);
        read.map_err(|reason| format!("{}: `{key}` is left out: {reason}", self.url))
    }
}

/// What a `file://` prefix holds: every file inside a skill below `root` by key, with its size
/// and ETag (files outside every skill are not opened; a special file is listed as not
/// servable, reported only when it is inside a skill); the boundary the
/// files are read through; and what was left out wherever it is (a link, which is never
/// followed; a folder that cannot be listed or whose name is not UTF-8). Nothing (and no
/// boundary) when `root` does not exist, as for an empty prefix. `.git` and `node_modules` are
/// not entered.
pub(super) fn list_folder(
    root: &std::path::Path,
    url: &str,
) -> object_store::Result<(Vec<Listed>, Option<ReadBoundary>, Vec<String>)> {
    let boundary = ReadBoundary::restricted([root]).map_err(local_error)?;
    if boundary.skill_roots().next().is_none() {
        // Missing is an empty prefix; anything else there (a file) is a mistake to say.
        if std::fs::symlink_metadata(root).is_ok() {
            return Err(local_error(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a folder", root.display()),
            )));
        }
        return Ok((Vec::new(), None, Vec::new()));
    }
    let (mut listed, mut left_out) = (Vec::new(), Vec::new());
    // Regular files, by key: only those inside a skill are opened, once all are known.
    let mut files: Vec<String> = Vec::new();
    // Folders still to list, by key; "" is the prefix itself, which must be listable.
    let mut pending = vec![String::new()];
    while let Some(folder) = pending.pop() {
        let entries = match boundary.list_directory(&root.join(&folder)) {
            Ok(entries) => entries,
            Err(error) if folder.is_empty() => return Err(local_error(error)),
            // Removed since it was listed: as if it had not been there.
            Err(BoundaryError::NotFound { .. }) => continue,
            Err(error) => {
                left_out.push(format!(
                    "{url}: the folder `{folder}` is left out: it cannot be listed ({error})"
                ));
                continue;
            }
        };
        for entry in entries {
            let name = entry.name.to_string_lossy();
            let key = if folder.is_empty() {
                name.clone().into_owned()
            } else {
                format!("{folder}/{name}")
            };
            if entry.kind == EntryKind::Symlink {
                left_out.push(format!(
                    "{url}: `{key}` is left out: it is a symbolic link, and links are not \
                     followed in a file:// prefix"
                ));
                continue;
            }
            if entry.name.to_str().is_none() {
                let reason = "its name is not UTF-8; rename it";
                if entry.kind == EntryKind::Directory {
                    left_out.push(format!("{url}: the folder `{key}` is left out: {reason}"));
                } else {
                    listed.push((key, Err(reason.to_owned())));
                }
                continue;
            }
            match entry.kind {
                EntryKind::Directory if !is_never_served(&entry.name) => pending.push(key),
                EntryKind::Directory => {}
                EntryKind::File => files.push(key),
                _ => listed.push((key, Err("it is not a regular file".to_owned()))),
            }
        }
    }
    let keys = files.iter().chain(listed.iter().map(|(key, _)| key));
    let skill_folders = skill_folders(keys.map(String::as_str));
    let in_skill: Vec<String> = files
        .iter()
        .filter(|key| below_any(key, &skill_folders))
        .cloned()
        .collect();
    for key in in_skill {
        let meta = boundary
            .open(&root.join(&key))
            .map(|opened| {
                let size = opened.size();
                ObjectMeta {
                    location: Path::from(key.as_str()),
                    last_modified: Default::default(),
                    size,
                    e_tag: file_tag(&opened.into_file(), size),
                    version: None,
                }
            })
            .map_err(|error| format!("it cannot be read ({error})"));
        listed.push((key, meta));
    }
    Ok((listed, Some(boundary), left_out))
}

/// A local file's ETag: its device, inode, size, and modification and change times (a file
/// replaced keeping its modification time, by `cp -p` or `rsync -t`, has a new change time).
/// `None` — read it again next time — when its metadata cannot be read, or when it changed too
/// recently for the times to tell a later change at the same size.
fn file_tag(file: &std::fs::File, size: u64) -> Option<String> {
    let metadata = file.metadata().ok()?;
    let modified = metadata.modified().ok()?;
    let recent = SystemTime::now()
        .duration_since(modified)
        .map_or(true, |age| age < RACY_WINDOW);
    if recent {
        return None;
    }
    let since = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(format!(
            "{:x}-{:x}-{size:x}-{since:x}-{:x}.{:x}",
            metadata.dev(),
            metadata.ino(),
            metadata.ctime(),
            metadata.ctime_nsec()
        ))
    }
    #[cfg(not(unix))]
    Some(format!("{size:x}-{since:x}"))
}

/// A local failure as the store errors [`StoreError::List`](super::StoreError::List) carries.
pub(super) fn local_error(
    error: impl std::error::Error + Send + Sync + 'static,
) -> object_store::Error {
    object_store::Error::Generic {
        store: "LocalFileSystem",
        source: Box::new(error),
    }
}
