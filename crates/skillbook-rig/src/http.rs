//! An HTTP transport for rig's provider clients on the workspace's one TLS stack.

use rig_reqwest::ReqwestClient;

/// Why the HTTP client could not be built.
#[derive(Debug, thiserror::Error)]
#[error("could not build the HTTP client: {0}")]
pub struct HttpError(#[from] reqwest::Error);

/// An HTTP transport for rig's provider clients: reqwest on rustls with ring (no aws-lc, no
/// OpenSSL), the certificates of the platform's store. Pass it to a provider configuration's
/// `connect`, such as
/// [`OpenAIConfig::connect`](rig_core::providers::openai::OpenAIConfig::connect).
///
/// Redirects are not followed (an API key header would go along to wherever one points), and
/// a connection not made within 30 seconds fails.
///
/// It installs ring as the process's rustls provider unless one is installed already (which
/// then serves as well).
///
/// # Errors
///
/// [`HttpError`] when reqwest cannot build its client.
pub fn http_client() -> Result<ReqwestClient, HttpError> {
    // An error means a provider is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        // The key goes to the address given and nowhere else: a redirect is not followed.
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(std::time::Duration::from_secs(30))
        .build()?;
    Ok(ReqwestClient::from(client))
}
