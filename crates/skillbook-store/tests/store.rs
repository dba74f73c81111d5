//! Skills from an object-store prefix: the disk rules, the ETag cache, the limits and the URL
//! forms, over the `object_store` crate's in-memory store. `file://` folders are tested in
//! `store_folder.rs`.
#![allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]

#[path = "support/skills.rs"]
mod skills;

use std::sync::Arc;

use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use skillbook::sources::Origin;
use skillbook_store::{ObjectSource, StoreError, StoreLimits};
use skills::{names, skill_md};

async fn put(store: &InMemory, key: &str, text: &str) {
    store
        .put(&Path::from(key), PutPayload::from(text.as_bytes().to_vec()))
        .await
        .unwrap();
}

/// A bucket with two skills below `acme/skills`, and objects that are not skills' files.
async fn bucket() -> Arc<InMemory> {
    let store = Arc::new(InMemory::new());
    put(
        &store,
        "acme/skills/pdf/SKILL.md",
        &skill_md("pdf", "Fill PDF forms."),
    )
    .await;
    put(&store, "acme/skills/pdf/refs/forms.md", "# Forms\n").await;
    put(&store, "acme/skills/pdf/.git/config", "[core]\n").await;
    put(
        &store,
        "acme/skills/team/notes/SKILL.md",
        "# notes\n\nTake notes.\n",
    )
    .await;
    put(&store, "acme/skills/README.md", "Not a skill.\n").await;
    put(
        &store,
        "other/skills/secret/SKILL.md",
        &skill_md("secret", "Not ours."),
    )
    .await;
    store
}

fn source(store: &Arc<InMemory>) -> ObjectSource {
    let store: Arc<dyn ObjectStore> = store.clone();
    ObjectSource::new(store, Path::from("acme/skills"), "memory:///acme/skills")
}

#[tokio::test]
async fn a_prefix_holds_skills_by_the_disk_rules() {
    let store = bucket().await;
    let loaded = source(&store).load().await.unwrap();
    let names = names(&loaded);
    assert_eq!(names, ["pdf", "notes"]);
    let pdf = &loaded.skills[0];
    assert_eq!(pdf.origin(), Origin::ObjectStore);
    assert_eq!(pdf.description(), "Fill PDF forms.");
    let files: Vec<&str> = pdf.files().map(|(path, _)| path).collect();
    // `.git` is never fetched; nothing outside the prefix is seen.
    assert_eq!(files, ["refs/forms.md"]);
    assert_eq!(pdf.file("refs/forms.md"), Some(&b"# Forms\n"[..]));
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    // The README outside every skill and `.git` were not downloaded.
    assert_eq!(loaded.downloaded, 3);
}

/// A store that counts the objects fetched from it.
#[derive(Debug)]
struct Counting {
    inner: Arc<InMemory>,
    gets: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Display for Counting {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "Counting({})", self.inner)
    }
}

#[async_trait::async_trait]
impl ObjectStore for Counting {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        options: object_store::PutOptions,
    ) -> object_store::Result<object_store::PutResult> {
        self.inner.put_opts(location, payload, options).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        options: object_store::PutMultipartOptions,
    ) -> object_store::Result<Box<dyn object_store::MultipartUpload>> {
        self.inner.put_multipart_opts(location, options).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: object_store::GetOptions,
    ) -> object_store::Result<object_store::GetResult> {
        self.gets.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: futures_util::stream::BoxStream<'static, object_store::Result<Path>>,
    ) -> futures_util::stream::BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(
        &self,
        prefix: Option<&Path>,
    ) -> futures_util::stream::BoxStream<'static, object_store::Result<object_store::ObjectMeta>>
    {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&Path>,
    ) -> object_store::Result<object_store::ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: object_store::CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// A survey counts and reports what a load would, fetching only the skill files.
#[tokio::test]
async fn a_survey_reports_what_a_load_would_fetching_only_skill_files() {
    let store = bucket().await;
    put(
        &store,
        "acme/skills/pdf/nested/SKILL.md",
        &skill_md("nested", "Inside pdf."),
    )
    .await;
    put(
        &store,
        "acme/skills/unnamed/SKILL.md",
        "---\nname: a\u{7}b\n---\n",
    )
    .await;
    let counting = Arc::new(Counting {
        inner: store,
        gets: Default::default(),
    });
    let dynamic: Arc<dyn ObjectStore> = counting.clone();
    let source = ObjectSource::new(dynamic, Path::from("acme/skills"), "memory:///acme/skills");
    let surveyed = source.survey().await.unwrap();
    // The skill files of pdf (and its nested one), notes and unnamed; not refs/forms.md.
    assert_eq!(counting.gets.load(std::sync::atomic::Ordering::SeqCst), 4);
    let loaded = source.load().await.unwrap();
    // `pdf` (the nested skill file is one of its files), `team/notes` and `unnamed`, named by
    // its folder (reported: its front matter, and the name it cannot take).
    assert_eq!(surveyed.skills, 3, "{:?}", surveyed.problems);
    assert_eq!(surveyed.skills, loaded.skills.len());
    assert_eq!(surveyed.problems, loaded.problems);
    assert_eq!(surveyed.problems.len(), 2, "{:?}", surveyed.problems);
    // pdf: SKILL.md, refs/forms.md, nested/SKILL.md; notes and unnamed: SKILL.md.
    assert_eq!(surveyed.objects, 5);
    // Nothing was cached: the load downloaded every object.
    assert_eq!((loaded.downloaded, loaded.reused), (5, 0));
}

#[tokio::test]
async fn a_warm_load_downloads_only_what_changed() {
    let store = bucket().await;
    let source = source(&store);
    source.load().await.unwrap();
    let warm = source.load().await.unwrap();
    assert_eq!((warm.downloaded, warm.reused), (0, 3));

    put(
        &store,
        "acme/skills/pdf/SKILL.md",
        &skill_md("pdf", "Fill and sign PDF forms."),
    )
    .await;
    let edited = source.load().await.unwrap();
    assert_eq!((edited.downloaded, edited.reused), (1, 2));
    assert_eq!(edited.skills[0].description(), "Fill and sign PDF forms.");

    store
        .delete(&Path::from("acme/skills/team/notes/SKILL.md"))
        .await
        .unwrap();
    put(
        &store,
        "acme/skills/csv/SKILL.md",
        &skill_md("csv", "Clean CSV files."),
    )
    .await;
    let changed = source.load().await.unwrap();
    let names = names(&changed);
    assert_eq!(names, ["csv", "pdf"]);
    assert_eq!((changed.downloaded, changed.reused), (1, 2));
}

#[tokio::test]
async fn objects_over_the_limits_are_left_out_and_reported() {
    let store = bucket().await;
    put(&store, "acme/skills/pdf/refs/huge.bin", &"x".repeat(4096)).await;
    let mut limits = StoreLimits::default();
    limits.max_file_bytes = 1024;
    let loaded = source(&store).with_limits(limits).load().await.unwrap();
    assert_eq!(loaded.skills.len(), 2);
    assert!(loaded.skills[0].file("refs/huge.bin").is_none());
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    assert!(
        loaded.problems[0].contains("`pdf/refs/huge.bin` is left out: 4096 bytes"),
        "{}",
        loaded.problems[0]
    );

    // The cache size: what does not fit is left out and counted.
    let mut small = StoreLimits::default();
    small.max_total_bytes = 80;
    let loaded = source(&store).with_limits(small).load().await.unwrap();
    assert!(loaded.skills.len() < 2);
    assert!(
        loaded
            .problems
            .iter()
            .any(|problem| problem.contains("past the limits")),
        "{:?}",
        loaded.problems
    );
}

/// As on disk: a name the skill cannot take is reported, and the next one in line (here its
/// folder's name) names it.
#[tokio::test]
async fn a_skill_with_an_unusable_name_is_reported_and_takes_its_folders_name() {
    let store = bucket().await;
    put(
        &store,
        "acme/skills/broken/SKILL.md",
        "---\nname: a\u{7}b\n---\n",
    )
    .await;
    let loaded = source(&store).load().await.unwrap();
    let names = names(&loaded);
    assert_eq!(names, ["broken", "pdf", "notes"]);
    assert_eq!(
        loaded.problems,
        [
            "memory:///acme/skills: error[invalid_yaml]: broken/SKILL.md:2:7: the front matter \
             is not valid YAML (unexpected character: `\\u{7}'); name, description and \
             disable-model-invocation were read line by line. Fix the YAML (quote values that \
             contain special characters)",
            "memory:///acme/skills: warning[unusable_name]: broken/SKILL.md: the front matter \
             `name` cannot name the skill: the name `a\\u{7}b` holds the control character \
             U+0007; remove it. The skill takes the next name in line (the first heading, else \
             its directory's name)"
        ]
    );
}

#[test]
fn bad_urls_and_options_say_what_to_use_and_never_show_credentials() {
    let error = ObjectSource::from_url("ftp://host/skills", []).unwrap_err();
    assert!(matches!(error, StoreError::Url { .. }), "{error}");
    assert!(error.to_string().contains("s3://BUCKET/PREFIX"), "{error}");

    let error =
        ObjectSource::from_url("s3://bucket/skills", [("aws_no_such_key", "hunter2")]).unwrap_err();
    assert!(matches!(error, StoreError::Option { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("aws_no_such_key"), "{message}");
    assert!(!message.contains("hunter2"), "{message}");

    let source = ObjectSource::from_url(
        "s3://user:hunter2@bucket/skills?token=hunter2",
        [
            ("aws_region", "eu-west-1"),
            ("aws_access_key_id", "key"),
            ("aws_secret_access_key", "hunter2"),
        ],
    )
    .unwrap();
    assert!(!source.url().contains("hunter2"), "{}", source.url());
    assert!(!format!("{source:?}").contains("hunter2"));
}

/// Google Cloud Storage and Azure prefixes are set up from their URLs and their own
/// configuration keys (nothing is contacted until a load), and another store's key is refused by
/// name.
#[test]
fn cloud_urls_of_every_kind_are_set_up_with_their_own_options() {
    let google = ObjectSource::from_url(
        "gs://acme-skills/platform",
        [
            ("google_bearer_token", "token"),
            ("google_bucket", "acme-skills"),
        ],
    );
    assert!(google.is_ok(), "{:?}", google.err());
    let azure = ObjectSource::from_url(
        "az://skills/platform",
        [
            ("azure_storage_account_name", "acme"),
            ("azure_storage_account_key", "aGVsbG8="),
        ],
    );
    assert!(azure.is_ok(), "{:?}", azure.err());
    assert_eq!(azure.unwrap().url(), "az://skills/platform");

    let error = ObjectSource::from_url("gs://acme-skills/platform", [("aws_region", "eu-west-1")])
        .unwrap_err();
    assert!(
        matches!(error, StoreError::Option { ref key, .. } if key == "aws_region"),
        "{error}"
    );
    let error =
        ObjectSource::from_url("file:///srv/skills", [("aws_region", "eu-west-1")]).unwrap_err();
    assert!(matches!(error, StoreError::Option { .. }), "{error}");
}
