//! skillbook-store: Agent Skills from an object-store prefix — S3, Google Cloud Storage, Azure
//! Blob Storage or local files — through the [`object_store`] crate, for any host of the
//! [`skillbook`] library (its agent runtime, the MCP server, a program of its own). No MCP stack
//! comes with it.
//!
//! The prefix holds skills by the disk rules: a folder (a key prefix) holding `SKILL.md` is a
//! skill and owns every object below it (the library's one leaf rule, [`SkillFolders`]).
//! [`ObjectSource::load`] lists the prefix and returns [`ProvidedSkill`]s, which a scope
//! (`skillbook::runtime::Scope::with_provided`) or an MCP server serves from memory like archive
//! skills: nothing outside a skill's prefix is ever served, and no key reaches a file system.
//! Each skill is named as on disk (SPEC §2.3): a name it cannot take is reported with the
//! problems of the load, and the next one in line is used.
//!
//! ```
//! use std::sync::Arc;
//!
//! use object_store::memory::InMemory;
//! use object_store::path::Path;
//! use object_store::{ObjectStoreExt, PutPayload};
//! use skillbook_store::ObjectSource;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A bucket with one skill below `acme/skills` (`ObjectSource::from_url` opens a real one:
//! // `s3://bucket/acme/skills`, `gs://…`, `az://…`, `file:///…`).
//! let bucket = Arc::new(InMemory::new());
//! let text = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# Steps\n";
//! bucket
//!     .put(&Path::from("acme/skills/pdf/SKILL.md"), PutPayload::from(text))
//!     .await?;
//! bucket
//!     .put(&Path::from("acme/skills/notes.txt"), PutPayload::from("not in a skill"))
//!     .await?;
//!
//! let source = ObjectSource::new(bucket, Path::from("acme/skills"), "memory:///acme/skills");
//! let loaded = source.load().await?;
//! assert_eq!(loaded.skills[0].name().as_str(), "pdf");
//! assert_eq!(loaded.skills[0].uri(), "skill://pdf/SKILL.md");
//! assert!(loaded.problems.is_empty());
//!
//! // Polling for changes: load again; objects whose ETag did not change are not downloaded.
//! let again = source.load().await?;
//! assert_eq!((again.downloaded, again.reused), (0, 1));
//! # Ok(())
//! # }
//! ```
//!
//! # The rules
//!
//! - **Keys.** A key below the prefix that is not a safe relative path (`..`, `.`, an empty
//!   segment, a backslash or a control character) is refused and reported; `.git` and
//!   `node_modules` folders are never downloaded (no surface serves them).
//! - **Caching.** Each object's bytes are kept with its ETag. A load whose listing shows the same
//!   ETag reuses the bytes without a request; a changed one is fetched again (conditionally, so
//!   an object changed back costs no body). Objects no longer listed are forgotten, so the cache
//!   holds exactly the objects served, within [`StoreLimits::max_total_bytes`].
//! - **Limits.** An object over [`StoreLimits::max_file_bytes`] is left out and reported; past
//!   [`StoreLimits::max_total_bytes`] (the cache size) or [`StoreLimits::max_objects`], the
//!   remaining objects are left out and reported. Whoever serves the skills then applies its own
//!   limits to each (the MCP server's `ResourceLimits`, the runtime's sizes).
//! - **Credentials** come from the usual environment variables (`AWS_*`, `GOOGLE_*`,
//!   `AZURE_*`) or the options given, and never reach a message: every error and problem a
//!   source reports passes one redaction, which replaces with `***` the user name and password
//!   of any URL in it (`https://***@host`), and every value of a credential — an option or one
//!   of those variables whose name holds `secret`, `token`, `password`, `key`, `sas` or
//!   `credential`, and the user name and password of any URL among the values.
//! - **TLS** is rustls with ring, installed as the process's crypto provider when a cloud store
//!   is opened (unless one is installed already); neither aws-lc nor OpenSSL is built.
//!
//! Cloud stores are listed page by page: a key the store's client cannot parse fails its whole
//! page, so the listing narrows in on that key (pages half as long each time), reports it and
//! goes on after it — one such key hides nothing else. An object named like a folder of others
//! (a console's folder marker, `refs/`) is not a file. A load that cannot list the prefix fails
//! as a whole ([`StoreError::List`]), so that a caller polling for changes keeps serving what it
//! had rather than an empty or partial listing.
//!
//! A `file://` prefix is a folder read through a [`ReadBoundary`] rooted at it, like skills on
//! disk: every file is opened beneath the folder's handle; a symbolic link (anywhere) is
//! reported and never followed, a FIFO or socket inside a skill is reported and never opened,
//! and so is a name that is not UTF-8; a subfolder that cannot be listed is reported and the rest
//! served. No link is followed at any time: every folder and file is opened beneath the
//! folder's handle without following a link at any component, so a link swapped in during a
//! load makes that file fail (reported, tried again at the next load) rather than lead anywhere;
//! and a file is served only while it is the one the listing saw (same device and inode), one
//! replaced in between being left out until the next load. A file's ETag is its device, inode,
//! size and modification and change times, and a file modified within the last two seconds is
//! read again at each load.

#![deny(missing_docs)]

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::{StreamExt, TryStreamExt};
use object_store::list::{PaginatedListOptions, PaginatedListStore};
use object_store::path::Path;
use object_store::{GetOptions, ObjectMeta, ObjectStore};
use skillbook::sources::{
    Origin, ProvidedSkill, SKILL_FILE_NAMES, SkillFolders, SourceError, from_files,
};
use skillbook::{ReadBoundary, is_never_served};

use folder::{list_folder, local_error};
use redact::Secrets;

mod folder;
mod open;
mod redact;

/// Keys asked for in one listing request (the most S3 gives).
const PAGE_KEYS: usize = 1000;

/// The most keys refused in one listing: past it the listing fails (each costs a few requests).
const MAX_REFUSED_KEYS: usize = 1000;

/// How many objects are fetched at once.
const CONCURRENT_GETS: usize = 16;

/// Bounds on what one source holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreLimits {
    /// Most objects listed below the prefix that are kept. Default 100,000.
    pub max_objects: usize,
    /// Most bytes in one object. Default 16 MiB.
    pub max_file_bytes: u64,
    /// Most bytes held in all (the cache size). Default 256 MiB.
    pub max_total_bytes: u64,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            max_objects: 100_000,
            max_file_bytes: 16 * 1024 * 1024,
            max_total_bytes: 256 * 1024 * 1024,
        }
    }
}

/// Why an object-store source cannot be built or loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The URL is not one of `s3://`, `gs://`, `az://` (or another Azure form) or `file://`.
    #[error(
        "`{url}` is not an object-store prefix: {reason}; use s3://BUCKET/PREFIX, gs://BUCKET/PREFIX, az://CONTAINER/PREFIX or file:///ABSOLUTE/PATH"
    )]
    Url {
        /// The URL as given (without credentials).
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An option is not one the store knows.
    #[error(
        "`{url}`: the option `{key}` is not one this store knows ({reason}); see the object_store builder's configuration keys, e.g. aws_endpoint or aws_region"
    )]
    Option {
        /// The URL (without credentials).
        url: String,
        /// The option's name (never its value).
        key: String,
        /// What the store said.
        reason: String,
    },
    /// The store could not be set up (missing bucket, bad credentials format, …).
    #[error("`{url}` cannot be opened: {reason}")]
    Open {
        /// The URL (without credentials).
        url: String,
        /// What the store said, with its causes, credentials taken out.
        reason: String,
    },
    /// The prefix cannot be listed.
    #[error(
        "`{url}` cannot be listed: {reason}; check that it exists, is a folder or prefix, and (in a cloud store) that the credentials allow listing it"
    )]
    List {
        /// The URL (without credentials).
        url: String,
        /// What the store said, with its causes, credentials taken out.
        reason: String,
    },
}

/// One object as the cache keeps it.
#[derive(Clone)]
struct Cached {
    e_tag: Option<String>,
    bytes: Arc<[u8]>,
}

/// An object's bytes for one load: downloaded by it, or the cached ones.
enum Fetched {
    Downloaded(Cached),
    Reused(Cached),
}

/// Where a source's objects are.
enum Backend {
    /// An object store, below a prefix.
    Store {
        store: Arc<dyn ObjectStore>,
        /// The same store's page-by-page listing (cloud stores), which survives keys it cannot
        /// parse.
        pages: Option<Arc<dyn PaginatedListStore>>,
        prefix: Path,
    },
    /// A `file://` prefix: a folder, read beneath its handle.
    Folder(PathBuf),
}

/// A listed object below the prefix, by key: its metadata, or why it cannot be served (a link
/// or a special file in a folder), reported only when it is inside a skill.
type Listed = (String, Result<ObjectMeta, String>);

/// What one [`ObjectSource::survey`] found, fetching only the skill files.
#[derive(Debug)]
#[non_exhaustive]
pub struct Surveyed {
    /// Skills a load would serve (unless an object other than a skill file cannot be fetched
    /// then).
    pub skills: usize,
    /// Objects a load would fetch.
    pub objects: usize,
    /// What a load would leave out, and why: the same sentences as [`Loaded::problems`].
    pub problems: Vec<String>,
}

/// A prefix of an object store holding skills.
pub struct ObjectSource {
    backend: Backend,
    url: String,
    limits: StoreLimits,
    /// What its messages must never show.
    secrets: Secrets,
    /// Each object served, by its key below the prefix.
    cache: Mutex<HashMap<String, Cached>>,
}

impl fmt::Debug for ObjectSource {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ObjectSource")
            .field("url", &self.url)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// What one [`ObjectSource::load`] found.
#[derive(Debug)]
#[non_exhaustive]
pub struct Loaded {
    /// The skills, in key order.
    pub skills: Vec<ProvidedSkill>,
    /// What was left out, and why: one sentence each, naming the key or folder; and what
    /// reading a skill file reported (each skill's [`ProvidedSkill::diagnostics`]: a name it
    /// could not take, front matter repaired), naming the file.
    pub problems: Vec<String>,
    /// Objects fetched with their body by this load.
    pub downloaded: usize,
    /// Objects whose cached bytes were used (the listing showed the same ETag, or the store
    /// answered "not modified").
    pub reused: usize,
}

impl ObjectSource {
    /// A source over `store` below `prefix`; `url` names it in messages.
    pub fn new(store: Arc<dyn ObjectStore>, prefix: Path, url: impl Into<String>) -> Self {
        ObjectSource {
            backend: Backend::Store {
                store,
                pages: None,
                prefix,
            },
            url: url.into(),
            limits: StoreLimits::default(),
            secrets: Secrets::default(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Sets the limits.
    #[must_use]
    pub fn with_limits(mut self, limits: StoreLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The URL it was made from, without credentials.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Lists the prefix and returns its skills, fetching only the objects whose ETag changed
    /// since the last load.
    ///
    /// # Errors
    ///
    /// [`StoreError::List`] when the prefix cannot be listed. An object that cannot be fetched
    /// is a problem of the result, not an error: its skill is left out and the others served.
    pub async fn load(&self) -> Result<Loaded, StoreError> {
        let mut problems = Vec::new();
        let (listed, folder) = self.list(&mut problems).await?;
        let wanted = self.wanted(listed, &mut problems);
        let previous = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let fetched = self.fetch_all(wanted, folder.as_ref(), &previous).await;
        let (mut downloaded, mut reused) = (0, 0);
        let mut cache = HashMap::with_capacity(fetched.len());
        for (key, fetched) in fetched {
            match fetched {
                Ok(Fetched::Downloaded(object)) => {
                    downloaded += 1;
                    cache.insert(key, object);
                }
                Ok(Fetched::Reused(object)) => {
                    reused += 1;
                    cache.insert(key, object);
                }
                Err(problem) => problems.push(problem),
            }
        }
        let files: Vec<(String, Arc<[u8]>)> = cache
            .iter()
            .map(|(key, object)| (key.clone(), Arc::clone(&object.bytes)))
            .collect();
        *self.cache.lock().unwrap_or_else(PoisonError::into_inner) = cache;
        let (skills, refused) = from_files(files, Origin::ObjectStore);
        self.report(&skills, &refused, &mut problems);
        Ok(Loaded {
            skills,
            problems,
            downloaded,
            reused,
        })
    }

    /// Lists the prefix and says how many skills a load would find there, and what it would
    /// leave out, fetching only the skill files (to read their names): for a configuration
    /// check. Nothing is cached.
    ///
    /// # Errors
    ///
    /// [`StoreError::List`] when the prefix cannot be listed.
    pub async fn survey(&self) -> Result<Surveyed, StoreError> {
        let mut problems = Vec::new();
        let (listed, folder) = self.list(&mut problems).await?;
        let wanted = self.wanted(listed, &mut problems);
        let objects = wanted.len();
        let (skill_files, others): (Vec<_>, Vec<_>) = wanted.into_iter().partition(|(key, _)| {
            SKILL_FILE_NAMES.contains(&key.rsplit_once('/').map_or(key.as_str(), |(_, name)| name))
        });
        // Every other file is given as empty: its key is checked as a load would, its bytes
        // are not needed.
        let mut files: Vec<(String, Arc<[u8]>)> = others
            .into_iter()
            .map(|(key, _)| (key, Arc::from(&[][..])))
            .collect();
        for (key, fetched) in self
            .fetch_all(skill_files, folder.as_ref(), &HashMap::new())
            .await
        {
            match fetched {
                Ok(Fetched::Downloaded(object) | Fetched::Reused(object)) => {
                    files.push((key, object.bytes));
                }
                Err(problem) => problems.push(problem),
            }
        }
        let (skills, refused) = from_files(files, Origin::ObjectStore);
        self.report(&skills, &refused, &mut problems);
        Ok(Surveyed {
            skills: skills.len(),
            objects,
            problems,
        })
    }

    /// Adds to `problems` the skills left out (`refused`) and what reading the others' skill
    /// files reported (a name a skill could not take, front matter repaired), as discovery
    /// reports them on disk; then sorts them.
    fn report(
        &self,
        skills: &[ProvidedSkill],
        refused: &[SourceError],
        problems: &mut Vec<String>,
    ) {
        problems.extend(refused.iter().map(|error| format!("{}: {error}", self.url)));
        let diagnostics = skills.iter().flat_map(ProvidedSkill::diagnostics);
        problems.extend(diagnostics.map(|diagnostic| format!("{}: {diagnostic}", self.url)));
        problems.sort();
    }

    /// Fetches `wanted` ([`CONCURRENT_GETS`] at a time), reusing what `previous` holds with the
    /// same ETag; a `file://` prefix's files are read through `folder`.
    async fn fetch_all(
        &self,
        wanted: Vec<(String, ObjectMeta)>,
        folder: Option<&Arc<ReadBoundary>>,
        previous: &HashMap<String, Cached>,
    ) -> Vec<(String, Result<Fetched, String>)> {
        futures_util::stream::iter(wanted)
            .map(|(key, meta)| {
                let cached = previous.get(&key).cloned();
                let folder = folder.cloned();
                async move {
                    let fetched = match (&self.backend, folder) {
                        (Backend::Folder(_), Some(boundary)) => {
                            self.read_file(boundary, &key, &meta, cached).await
                        }
                        (Backend::Store { store, .. }, _) => {
                            self.fetch(store.as_ref(), &meta, cached).await
                        }
                        // A missing folder lists nothing, so nothing is fetched from it.
                        (Backend::Folder(_), None) => Err(format!(
                            "{}: `{key}` is left out: the folder is gone",
                            self.url
                        )),
                    };
                    (key, fetched)
                }
            })
            .buffer_unordered(CONCURRENT_GETS)
            .collect()
            .await
    }

    /// Every object below the prefix, by key (and, for a `file://` prefix, the boundary its
    /// files are read through).
    async fn list(
        &self,
        problems: &mut Vec<String>,
    ) -> Result<(Vec<Listed>, Option<Arc<ReadBoundary>>), StoreError> {
        let failed = |error: object_store::Error| StoreError::List {
            url: self.url.clone(),
            reason: self.secrets.explain(&error),
        };
        Ok(match &self.backend {
            Backend::Store {
                store,
                pages,
                prefix,
            } => {
                let listed: Vec<ObjectMeta> = match pages {
                    Some(pages) => self.list_pages(pages.as_ref(), prefix, problems).await,
                    None => store.list(Some(prefix)).try_collect().await,
                }
                .map_err(failed)?;
                let listed = listed
                    .into_iter()
                    .filter_map(|meta| Some((below(prefix, &meta.location)?, Ok(meta))))
                    .collect();
                (listed, None)
            }
            Backend::Folder(root) => {
                let (root, url) = (root.clone(), self.url.clone());
                let (listed, boundary, left_out) =
                    tokio::task::spawn_blocking(move || list_folder(&root, &url))
                        .await
                        .map_err(|error| failed(local_error(error)))?
                        .map_err(failed)?;
                problems.extend(left_out);
                (listed, boundary.map(Arc::new))
            }
        })
    }

    /// Every object below the prefix, page by page. A page holding a key the store's client
    /// cannot parse (`..`, `.`, an empty segment, a control character) fails whole, so the
    /// listing narrows in on that key — pages half as long each time, down to the one key —
    /// reports it, and goes on after it: one such key hides nothing else.
    async fn list_pages(
        &self,
        pages: &dyn PaginatedListStore,
        prefix: &Path,
        problems: &mut Vec<String>,
    ) -> object_store::Result<Vec<ObjectMeta>> {
        let prefix = format!("{prefix}{}", object_store::path::DELIMITER);
        let prefix = (prefix != object_store::path::DELIMITER).then_some(prefix);
        let mut listed = Vec::new();
        // Where the next page starts: after a page token, or after a key.
        let (mut token, mut after): (Option<String>, Option<String>) = (None, None);
        let mut size = PAGE_KEYS;
        let mut refused = 0;
        loop {
            let options = PaginatedListOptions {
                offset: if token.is_none() { after.clone() } else { None },
                max_keys: Some(size),
                page_token: token.clone(),
                ..PaginatedListOptions::default()
            };
            match pages.list_paginated(prefix.as_deref(), options).await {
                Ok(page) => {
                    listed.extend(page.result.objects);
                    match page.page_token {
                        Some(next) => token = Some(next),
                        None => return Ok(listed),
                    }
                }
                Err(error) => {
                    let Some(key) = unparsable_key(&error) else {
                        return Err(error);
                    };
                    if size > 1 {
                        size /= 2;
                        continue;
                    }
                    refused += 1;
                    if refused > MAX_REFUSED_KEYS {
                        return Err(error);
                    }
                    problems.push(format!(
                        "{}: the object `{}` is refused: its key is not a safe relative path \
                         (`..`, `.`, an empty segment or a control character); rename it",
                        self.url,
                        key.escape_debug()
                    ));
                    (token, after, size) = (None, Some(key), PAGE_KEYS);
                }
            }
        }
    }

    /// The listed objects to hold, by key below the prefix: those in a skill folder, within the
    /// limits; each one left out for a limit is reported.
    fn wanted(&self, listed: Vec<Listed>, problems: &mut Vec<String>) -> Vec<(String, ObjectMeta)> {
        let mut keyed: Vec<Listed> = listed
            .into_iter()
            .filter(|(key, _)| {
                !key.split('/')
                    .any(|segment| is_never_served(OsStr::new(segment)))
            })
            .collect();
        keyed.sort_by(|left, right| left.0.cmp(&right.0));
        // An object named like a folder of others (a folder marker, `refs/`, which a listing
        // shows without its slash) is not a file.
        let folders: HashSet<String> = keyed
            .iter()
            .flat_map(|(key, _)| key.match_indices('/').map(|(end, _)| key[..end].to_owned()))
            .collect();
        keyed.retain(|(key, _)| !folders.contains(key));
        let skill_folders = SkillFolders::new(keyed.iter().map(|(key, _)| key.as_str()));
        let in_skill: Vec<bool> = keyed
            .iter()
            .map(|(key, _)| skill_folders.folder_of(key).is_some())
            .collect();
        let mut total: u64 = 0;
        let mut wanted = Vec::new();
        let mut over = 0_usize;
        for ((key, meta), in_skill) in keyed.into_iter().zip(in_skill) {
            if !in_skill {
                continue;
            }
            let meta = match meta {
                Ok(meta) => meta,
                Err(reason) => {
                    problems.push(format!("{}: `{key}` is left out: {reason}", self.url));
                    continue;
                }
            };
            if meta.size > self.limits.max_file_bytes {
                problems.push(format!(
                    "{}: `{key}` is left out: {} bytes, over the per-object limit of {} bytes",
                    self.url, meta.size, self.limits.max_file_bytes
                ));
                continue;
            }
            if wanted.len() >= self.limits.max_objects
                || total.saturating_add(meta.size) > self.limits.max_total_bytes
            {
                over += 1;
                continue;
            }
            total += meta.size;
            wanted.push((key, meta));
        }
        if over > 0 {
            problems.push(format!(
                "{}: {over} object(s) are left out past the limits of {} objects and {} bytes \
                 (the cache size); raise them or split the prefix",
                self.url, self.limits.max_objects, self.limits.max_total_bytes
            ));
        }
        wanted
    }

    /// The object's bytes: the cached ones when the listing shows the same ETag or the store
    /// answers "not modified", else downloaded.
    async fn fetch(
        &self,
        store: &dyn ObjectStore,
        meta: &ObjectMeta,
        cached: Option<Cached>,
    ) -> Result<Fetched, String> {
        if let Some(cached) = &cached
            && cached.e_tag.is_some()
            && cached.e_tag == meta.e_tag
        {
            return Ok(Fetched::Reused(cached.clone()));
        }
        let options = GetOptions {
            if_none_match: cached.as_ref().and_then(|cached| cached.e_tag.clone()),
            ..GetOptions::default()
        };
        let failed = |reason: &str| {
            format!(
                "{}: `{}` is left out: it cannot be fetched ({reason})",
                self.url, meta.location
            )
        };
        let result = match store.get_opts(&meta.location, options).await {
            Ok(result) => result,
            Err(object_store::Error::NotModified { .. }) => {
                if let Some(cached) = cached {
                    return Ok(Fetched::Reused(cached));
                }
                return Err(failed(
                    "the store answered \"not modified\" to a first fetch",
                ));
            }
            Err(error) => return Err(failed(&self.secrets.explain(&error))),
        };
        let e_tag = result.meta.e_tag.clone();
        let size = result.meta.size;
        if size > self.limits.max_file_bytes {
            return Err(failed(&format!(
                "it grew to {size} bytes, over the per-object limit of {} bytes",
                self.limits.max_file_bytes
            )));
        }
        let bytes = result
            .bytes()
            .await
            .map_err(|error| failed(&self.secrets.explain(&error)))?;
        Ok(Fetched::Downloaded(Cached {
            e_tag,
            bytes: Arc::from(&bytes[..]),
        }))
    }
}

/// The key a listing failed on because the client could not parse it.
fn unparsable_key(error: &object_store::Error) -> Option<String> {
    use object_store::path::Error as PathError;
    match error {
        object_store::Error::InvalidPath {
            source:
                PathError::BadSegment { path, .. }
                | PathError::EmptySegment { path }
                | PathError::NonUnicode { path, .. },
        } => Some(path.clone()),
        _ => None,
    }
}

/// `location` below `prefix`, `/`-separated; `None` for the prefix itself or a key outside it.
fn below(prefix: &Path, location: &Path) -> Option<String> {
    let parts: Vec<_> = location.prefix_match(prefix)?.collect();
    if parts.is_empty() {
        return None;
    }
    Some(
        parts
            .iter()
            .map(|part| part.as_ref())
            .collect::<Vec<&str>>()
            .join("/"),
    )
}

#[cfg(test)]
mod tests {
    use super::{ObjectSource, StoreError};

    /// The real path: an endpoint nobody listens on (port 1 of the loopback), so listing fails
    /// with a connection error that names the request's URL.
    #[tokio::test]
    async fn a_store_that_cannot_be_reached_never_shows_its_credentials() {
        let source = ObjectSource::from_url(
            "s3://bucket/skills",
            [
                ("aws_endpoint", "http://user:hunter2@127.0.0.1:1"),
                ("aws_access_key_id", "AKIDEXAMPLE"),
                ("aws_secret_access_key", "wJalrXUtnFEMI-never-shown"),
                ("aws_region", "us-east-1"),
                ("aws_allow_http", "true"),
            ],
        )
        .unwrap();
        let error = source.survey().await.unwrap_err();
        assert!(matches!(error, StoreError::List { .. }), "{error}");
        let message = error.to_string();
        assert!(message.contains("http://***@127.0.0.1:1/"), "{message}");
        for secret in ["hunter2", "wJalrXUtnFEMI", "AKIDEXAMPLE"] {
            assert!(!message.contains(secret), "{message}");
            assert!(!format!("{error:?}").contains(secret), "{error:?}");
        }
    }
}
