//! Opening a source from a URL: one builder per kind of store, each configured from the
//! environment and the options given, with TLS on rustls and ring.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use object_store::list::PaginatedListStore;
use object_store::{ObjectStore, ObjectStoreScheme};

use crate::redact::{Secrets, without_credentials};
use crate::{Backend, ObjectSource, StoreError, StoreLimits};

impl ObjectSource {
    /// A source for an object-store URL: `s3://BUCKET/PREFIX`, `gs://BUCKET/PREFIX`,
    /// `az://CONTAINER/PREFIX` (and the other Azure URL forms), or `file:///PATH` (a folder,
    /// read beneath its handle like skills on disk). Cloud
    /// stores read their credentials and settings from the environment (`AWS_ACCESS_KEY_ID`,
    /// `AWS_ENDPOINT`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, …); `options`
    /// (the builders' configuration keys, such as `aws_endpoint` or `aws_allow_http`) override
    /// them.
    ///
    /// # Errors
    ///
    /// [`StoreError::Url`] for a URL of another kind, [`StoreError::Option`] for an unknown
    /// option, [`StoreError::Open`] when the store cannot be set up.
    pub fn from_url<'o>(
        url: &str,
        options: impl IntoIterator<Item = (&'o str, &'o str)>,
    ) -> Result<Self, StoreError> {
        let label = without_credentials(url);
        let options: Vec<(&str, &str)> = options.into_iter().collect();
        let secrets = Secrets::of(url, &options);
        let bad_url = |reason: String| StoreError::Url {
            url: label.clone(),
            reason: secrets.redact(&reason),
        };
        let parsed = url::Url::parse(url).map_err(|error| bad_url(error.to_string()))?;
        let (scheme, prefix) =
            ObjectStoreScheme::parse(&parsed).map_err(|error| bad_url(error.to_string()))?;
        let open = |error: object_store::Error| StoreError::Open {
            url: label.clone(),
            reason: secrets.explain(&error),
        };
        let (store, pages): (Arc<dyn ObjectStore>, Option<Arc<dyn PaginatedListStore>>) =
            match scheme {
                ObjectStoreScheme::Local => {
                    if let Some((key, _)) = options.first() {
                        return Err(unknown_option(&label, key, "local files take no options"));
                    }
                    let folder = parsed.to_file_path().map_err(|()| {
                        bad_url("it does not name an absolute local path".to_owned())
                    })?;
                    return Ok(ObjectSource {
                        backend: Backend::Folder(folder),
                        url: label,
                        limits: StoreLimits::default(),
                        secrets,
                        cache: Mutex::new(HashMap::new()),
                    });
                }
                ObjectStoreScheme::AmazonS3 => {
                    let builder = object_store::aws::AmazonS3Builder::from_env().with_url(url);
                    let builder = configure(
                        builder,
                        &options,
                        &label,
                        &secrets,
                        |builder, key, value| builder.with_config(key, value),
                    )?;
                    paged(Arc::new(builder.build().map_err(open)?))
                }
                ObjectStoreScheme::GoogleCloudStorage => {
                    let builder =
                        object_store::gcp::GoogleCloudStorageBuilder::from_env().with_url(url);
                    let builder = configure(
                        builder,
                        &options,
                        &label,
                        &secrets,
                        |builder, key, value| builder.with_config(key, value),
                    )?;
                    paged(Arc::new(builder.build().map_err(open)?))
                }
                ObjectStoreScheme::MicrosoftAzure => {
                    let builder =
                        object_store::azure::MicrosoftAzureBuilder::from_env().with_url(url);
                    let builder = configure(
                        builder,
                        &options,
                        &label,
                        &secrets,
                        |builder, key, value| builder.with_config(key, value),
                    )?;
                    paged(Arc::new(builder.build().map_err(open)?))
                }
                _ => return Err(bad_url("this kind of store is not supported".to_owned())),
            };
        let mut source = ObjectSource::new(store, prefix, label);
        if let Backend::Store { pages: paged, .. } = &mut source.backend {
            *paged = pages;
        }
        source.secrets = secrets;
        Ok(source)
    }
}

/// A cloud store's builder with `options` applied (each key parsed as the builder's
/// configuration key), and TLS ready for it.
fn configure<B, K>(
    mut builder: B,
    options: &[(&str, &str)],
    url: &str,
    secrets: &Secrets,
    with: impl Fn(B, K, &str) -> B,
) -> Result<B, StoreError>
where
    K: std::str::FromStr<Err = object_store::Error>,
{
    install_crypto();
    for (key, value) in options {
        let parsed = key.parse().map_err(|error: object_store::Error| {
            unknown_option(url, key, &secrets.explain(&error))
        })?;
        builder = with(builder, parsed, value);
    }
    Ok(builder)
}

/// A cloud store, listed page by page.
fn paged<S: ObjectStore + PaginatedListStore>(
    store: Arc<S>,
) -> (Arc<dyn ObjectStore>, Option<Arc<dyn PaginatedListStore>>) {
    (store.clone(), Some(store))
}

fn unknown_option(url: &str, key: &str, reason: &str) -> StoreError {
    StoreError::Option {
        url: url.to_owned(),
        key: key.to_owned(),
        reason: reason.to_owned(),
    }
}

/// Makes ring the process's TLS crypto provider (once; one already installed is kept).
fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
