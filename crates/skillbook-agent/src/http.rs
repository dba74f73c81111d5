//! Sending a request, and sending it again when the API is busy or failing.

use std::io::Read;
use std::time::Duration;

use reqwest::blocking;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use crate::{AgentError, Endpoint, Event, ModelApi};

/// Anthropic's API version header.
const ANTHROPIC_VERSION: &str = "2023-06-01";
/// The longest pause a `retry-after` header is followed for.
const MAX_WAIT: Duration = Duration::from_secs(60);
/// The largest response body read: a model turn is far smaller.
pub(crate) const MAX_RESPONSE_BYTES: usize = 4 << 20;
/// The most of an error body read.
const MAX_ERROR_BYTES: usize = 64 << 10;
/// The most of an error body's text shown when it carries no message.
const MAX_SHOWN: usize = 500;

/// How a request that failed for a reason that may pass (a `429`, a `5xx`, no answer) is tried
/// again: up to `attempts` times in all, waiting `first_wait`, then twice as long each time
/// (the server's `retry-after`, when given, instead; at most 60 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Retry {
    /// Tries in all, the first included (at least one).
    pub attempts: u32,
    /// The first pause.
    pub first_wait: Duration,
}

impl Default for Retry {
    /// Four tries, the first pause one second.
    fn default() -> Self {
        Retry {
            attempts: 4,
            first_wait: Duration::from_secs(1),
        }
    }
}

impl Retry {
    /// `attempts` tries in all, the first pause `first_wait`.
    pub fn new(attempts: u32, first_wait: Duration) -> Self {
        Retry {
            attempts: attempts.max(1),
            first_wait,
        }
    }
}

/// The HTTP client of one run.
pub(crate) struct Client {
    client: blocking::Client,
    /// Where requests go.
    target: String,
    /// The same address as errors show it: without credentials or query.
    pub(crate) url: String,
    api: ModelApi,
    retry: Retry,
}

impl Client {
    pub(crate) fn new(
        endpoint: &Endpoint,
        timeout: Duration,
        retry: Retry,
    ) -> Result<Self, AgentError> {
        // An error means a provider is installed already, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let path = match endpoint.api {
            ModelApi::OpenAiChat => "chat/completions",
            ModelApi::Anthropic => "v1/messages",
        };
        let target = joined(&endpoint.base_url, path);
        let url = shown(&target);
        let unreachable = |reason: String| AgentError::Unreachable {
            url: url.clone(),
            reason,
        };
        let client = blocking::Client::builder()
            .timeout(timeout)
            // The key goes to the address given and nowhere else: a redirect is an error.
            .redirect(reqwest::redirect::Policy::none())
            .default_headers(headers(endpoint).map_err(unreachable)?)
            .build()
            .map_err(|error| unreachable(error.to_string()))?;
        Ok(Client {
            client,
            target,
            url,
            api: endpoint.api,
            retry,
        })
    }

    /// Posts `body` and returns the response's JSON, trying again as [`Retry`] says.
    pub(crate) fn send(
        &self,
        body: &Value,
        observe: &mut impl FnMut(&Event<'_>),
    ) -> Result<Value, AgentError> {
        let bytes = body.to_string();
        let mut wait = self.retry.first_wait;
        // At least one try, whatever the fields were set to.
        let attempts = self.retry.attempts.max(1);
        for attempt in 1..=attempts {
            let last = attempt == attempts;
            let failure = match self.client.post(&self.target).body(bytes.clone()).send() {
                Ok(response) if response.status().is_success() => return self.json(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let later = retry_after(response.headers());
                    let error = self.api_error(status, response);
                    if last || !(status == 429 || status >= 500) {
                        return Err(error);
                    }
                    (Some(status), later)
                }
                // Only a connection that failed or timed out may pass; a bad certificate or
                // address does not.
                Err(error) if last || !(error.is_connect() || error.is_timeout()) => {
                    return Err(AgentError::Unreachable {
                        url: self.url.clone(),
                        reason: cause(&error.without_url()),
                    });
                }
                Err(_) => (None, None),
            };
            let (status, later) = failure;
            let pause = later.unwrap_or(wait).min(MAX_WAIT);
            observe(&Event::Retry {
                status,
                wait: pause,
            });
            std::thread::sleep(pause);
            wait = wait.saturating_mul(2);
        }
        unreachable!("the last attempt returns")
    }

    fn json(&self, response: blocking::Response) -> Result<Value, AgentError> {
        let bytes = read_at_most(response, MAX_RESPONSE_BYTES).map_err(|error| {
            AgentError::Unreachable {
                url: self.url.clone(),
                reason: error.to_string(),
            }
        })?;
        let problem = |problem: String| AgentError::Response {
            url: self.url.clone(),
            api: self.api,
            problem,
        };
        if bytes.len() > MAX_RESPONSE_BYTES {
            return Err(problem(format!(
                "it is larger than {} MiB, more than any model turn needs",
                MAX_RESPONSE_BYTES >> 20
            )));
        }
        serde_json::from_slice(&bytes).map_err(|error| problem(format!("it is not JSON ({error})")))
    }

    /// The error for an answer with `status`: the provider's message when its body has one.
    fn api_error(&self, status: u16, response: blocking::Response) -> AgentError {
        let bytes = read_at_most(response, MAX_ERROR_BYTES).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_ERROR_BYTES)]);
        AgentError::Api {
            url: self.url.clone(),
            status,
            message: provider_message(&text),
        }
    }
}

/// Up to `limit` bytes of `response`'s body, and one more when there are more: a server, or
/// whatever answers at its address, cannot make the run hold more than that.
fn read_at_most(response: blocking::Response, limit: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let most = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    response.take(most).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The headers every request carries: the JSON type and the key, as the API wants it. An
/// error (never showing the key) when the key cannot be a header value.
fn headers(endpoint: &Endpoint) -> Result<HeaderMap, String> {
    let mut headers = HeaderMap::new();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    let key = endpoint.api_key.as_deref().unwrap_or_default();
    if !key.is_empty() {
        let (name, value) = match endpoint.api {
            ModelApi::OpenAiChat => ("authorization", format!("Bearer {key}")),
            ModelApi::Anthropic => ("x-api-key", key.to_owned()),
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            "the API key holds a character a header cannot carry (a line break, say); check \
             how it was set"
                .to_owned()
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    if endpoint.api == ModelApi::Anthropic {
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
    }
    Ok(headers)
}

/// `path` below the base URL's own path, its query kept (some gateways take a key there).
fn joined(base: &str, path: &str) -> String {
    match reqwest::Url::parse(base) {
        Ok(mut url) => {
            let below = format!("{}/{path}", url.path().trim_end_matches('/'));
            url.set_path(&below);
            url.to_string()
        }
        // Left for the client to refuse, as a URL it cannot send to.
        Err(_) => format!("{}/{path}", base.trim_end_matches('/')),
    }
}

/// `url` as messages show it: without a user name, password or query, which may hold secrets.
fn shown(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.to_string()
        }
        Err(_) => "(an address that is not a URL)".to_owned(),
    }
}

/// The seconds of a `retry-after` header, when it gives a number.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds: f64 = headers
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(60.0)))
}

/// The message of an error body — `{"error": {"message"}}` (OpenAI and Anthropic alike) or
/// `{"message"}` — or the body's start, control characters left out.
pub(crate) fn provider_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|value| {
        value
            .pointer("/error/message")
            .or_else(|| value.get("message"))
            .and_then(Value::as_str)
    });
    let shown = message.unwrap_or(body.trim());
    let mut text: String = shown
        .chars()
        .filter(|c| !c.is_control() || *c == ' ')
        .take(MAX_SHOWN)
        .collect();
    if text.is_empty() {
        text = "(no message)".to_owned();
    }
    text
}

/// An error and its causes, in one line.
fn cause(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}
