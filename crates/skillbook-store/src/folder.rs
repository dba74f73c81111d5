//! A `file://` prefix: a folder read through a [`ReadBoundary`] rooted at it, like skills on
//! disk, rather than through `object_store`'s local store (which follows links out of the
//! folder).

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use object_store::ObjectMeta;
use object_store::path::Path;
use skillbook::sources::SkillFolders;
use skillbook::{BoundaryError, EntryKind, ReadBoundary, is_never_served};

use super::{Cached, Fetched, Listed, ObjectSource};

/// A local file modified this recently may change again within its time stamp's tick, unseen:
/// it is read again at the next load rather than trusted by its ETag.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// Why a file is left out when another file has taken its name since the prefix was listed.
const REPLACED: &str = "it was replaced since the prefix was listed (another file is there \
                        now); it is read again at the next load";

impl ObjectSource {
    /// The file `key` of a `file://` prefix read through `boundary` (rooted at the prefix): the
    /// cached bytes when its ETag ([`file_tag`]) is the one cached, else read.
    ///
    /// It is opened beneath the folder's handle without following a link at any component
    /// (a link swapped in since the listing makes the open fail), never blocking on a FIFO,
    /// and only served while it is still the file `listed` describes: the same identity
    /// ([`identity`], kept in [`ObjectMeta::version`]). One replaced since the listing is left
    /// out, and read at the next load.
    pub(super) async fn read_file(
        &self,
        boundary: Arc<ReadBoundary>,
        key: &str,
        listed: &ObjectMeta,
        cached: Option<Cached>,
    ) -> Result<Fetched, String> {
        let relative = std::path::PathBuf::from(key);
        let listed_identity = listed.version.clone();
        let limit = self.limits.max_file_bytes;
        let read = tokio::task::spawn_blocking(move || -> Result<Fetched, String> {
            let opened = boundary
                .open_nofollow(&relative)
                .map_err(|error| format!("it cannot be read ({error})"))?;
            let size = opened.size();
            let file = opened.into_file();
            let metadata = file
                .metadata()
                .map_err(|error| format!("it cannot be inspected ({error})"))?;
            if identity(&metadata) != listed_identity {
                return Err(REPLACED.to_owned());
            }
            if size > limit {
                return Err(format!(
                    "it grew to {size} bytes, over the per-object limit of {limit} bytes"
                ));
            }
            let e_tag = file_tag(&metadata, size);
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

/// What a `file://` prefix holds: every file inside a skill below `root` by key, with its size,
/// ETag and identity (in [`ObjectMeta::version`], which a read checks); files outside every
/// skill are not opened; a special file is listed as not servable, reported only when it is
/// inside a skill. Also the boundary the files are read through, and what was left out
/// wherever it is (a link, which is never followed; a folder that cannot be listed or whose
/// name is not UTF-8). Nothing (and no boundary) when `root` does not exist, as for an empty
/// prefix. `.git` and `node_modules` are not entered.
///
/// No link is followed at any component: each folder is listed and each file opened beneath
/// the prefix's handle without following one ([`ReadBoundary::list_directory`],
/// [`ReadBoundary::open_nofollow`]), so a link swapped in during the listing makes that folder
/// or file fail (reported, and tried again at the next load) rather than lead anywhere.
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
    let skill_folders = SkillFolders::new(keys.map(String::as_str));
    let in_skill: Vec<String> = files
        .iter()
        .filter(|key| skill_folders.folder_of(key).is_some())
        .cloned()
        .collect();
    for key in in_skill {
        let meta = listed_file(&boundary, &key);
        listed.push((key, meta));
    }
    Ok((listed, Some(boundary), left_out))
}

/// The listing of the file `key` inside a skill: opened (without following a link anywhere)
/// for its size, ETag and identity, or why it cannot be served.
fn listed_file(boundary: &ReadBoundary, key: &str) -> Result<ObjectMeta, String> {
    let opened = boundary
        .open_nofollow(std::path::Path::new(key))
        .map_err(|error| format!("it cannot be read ({error})"))?;
    let size = opened.size();
    let metadata = opened
        .into_file()
        .metadata()
        .map_err(|error| format!("it cannot be inspected ({error})"))?;
    Ok(ObjectMeta {
        location: Path::from(key),
        last_modified: Default::default(),
        size,
        e_tag: file_tag(&metadata, size),
        version: identity(&metadata),
    })
}

/// A local file's identity: its device and inode, recorded by the listing (as the object's
/// version) and checked when the file is read, so that a file replaced in between is noticed.
/// `None` where the platform does not tell them (then nothing is checked).
fn identity(metadata: &std::fs::Metadata) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(format!("{:x}:{:x}", metadata.dev(), metadata.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        None
    }
}

/// A local file's ETag: its device, inode, size, and modification and change times (a file
/// replaced keeping its modification time, by `cp -p` or `rsync -t`, has a new change time).
/// `None` — read it again next time — when its modification time cannot be read, or when it
/// changed too recently for the times to tell a later change at the same size.
fn file_tag(metadata: &std::fs::Metadata, size: u64) -> Option<String> {
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

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    /// The listing and the reads of one load, with a file replaced in between: the read
    /// refuses it, and the next listing serves the new one.
    #[tokio::test]
    async fn a_file_replaced_between_listing_and_reading_is_left_out_until_listed_again() {
        let directory = tempfile::tempdir().unwrap();
        let prefix = directory.path().join("skills");
        let skill = prefix.join("pdf");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\nname: pdf\n---\n").unwrap();
        std::fs::write(skill.join("forms.md"), "as listed").unwrap();
        let source = ObjectSource::from_url(&format!("file://{}", prefix.display()), []).unwrap();
        let forms = |listed: Vec<Listed>| {
            listed
                .into_iter()
                .find(|(key, _)| key == "pdf/forms.md")
                .unwrap()
                .1
                .unwrap()
        };

        let (listed, boundary, left_out) = list_folder(&prefix, source.url()).unwrap();
        assert!(left_out.is_empty(), "{left_out:?}");
        let (boundary, meta) = (Arc::new(boundary.unwrap()), forms(listed));
        // Replaced by another file (a new inode), as an editor saving by rename does.
        std::fs::write(directory.path().join("forms.new"), "replaced").unwrap();
        std::fs::rename(directory.path().join("forms.new"), skill.join("forms.md")).unwrap();
        let refused = source
            .read_file(Arc::clone(&boundary), "pdf/forms.md", &meta, None)
            .await
            .err()
            .unwrap();
        assert!(
            refused.contains(
                "`pdf/forms.md` is left out: it was replaced since the prefix was \
                              listed"
            ),
            "{refused}"
        );

        let (listed, boundary, _) = list_folder(&prefix, source.url()).unwrap();
        let read = source
            .read_file(
                Arc::new(boundary.unwrap()),
                "pdf/forms.md",
                &forms(listed),
                None,
            )
            .await;
        let Ok(Fetched::Downloaded(read)) = read else {
            panic!("the file listed again is not read: {:?}", read.err());
        };
        assert_eq!(&read.bytes[..], b"replaced");
    }
}
