//! One MCP service over streamable HTTP for many users, each tenant seeing only its skills,
//! and none able to stall, starve or exhaust the others (feature `http`; what `skillbook serve`
//! runs).
//!
//! An [`Endpoint`] is a tower service that answers MCP over streamable HTTP for several
//! tenants, each a [`SkillServer`] of its own scope. For every request, in this order:
//!
//! 1. **`Host` and `Origin`** are checked against the allowed hosts and origins (DNS-rebinding
//!    protection, see [`EndpointBuilder::allowed_hosts`]). A refusal is HTTP 403 (400 without a
//!    `Host`), before anything else is looked at.
//! 2. **The bearer token** (`Authorization: Bearer <token>`) selects exactly one tenant: its
//!    SHA-256 digest is compared, in constant time, with every tenant's digests. A request
//!    without the header goes to the anonymous tenant when there is one. A missing, malformed
//!    or unknown token is HTTP 401 with `WWW-Authenticate: Bearer` and a JSON-RPC error body
//!    that is the same whatever tenants exist; the request body is not parsed (up to 64 KiB of
//!    it is read and dropped before the connection closes, so the refusal is not lost to a
//!    reset).
//! 3. **The tenant's request rate** ([`TenantLimits::rate`]): beyond it, HTTP 429 with
//!    `Retry-After`.
//! 4. **The body** is read whole before anything else is held: a declared `Content-Length`
//!    over [`EndpointBuilder::max_body_bytes`] is HTTP 413 at once, before any byte of it is
//!    read; a body sent more slowly than [`EndpointBuilder::body_timeout`] is HTTP 408; bodies
//!    held at once are bounded in bytes, per tenant and in all. A body that is not JSON is a
//!    JSON-RPC parse error (`-32700`, HTTP 400).
//! 5. **An answer slot**, from the tenant's share and then from the total
//!    ([`EndpointBuilder::max_answers`]), waited for within the request timeout (HTTP 503
//!    after it); a `GET` event stream (with sessions) takes a share of the streams
//!    ([`EndpointBuilder::max_streams`]) instead. Only then is the connection busy, never
//!    closed to make room for another.
//! 6. **The tenant's MCP service** (rmcp's streamable HTTP server) answers: stateless by
//!    default, so any replica can answer any request ([`Sessions`]).
//! 7. **The answer** is handed to the connection in frames of at most 64 KiB. The bytes of a
//!    `resources/read` or `tools/call` answer are taken from the tenant's answer-byte share and
//!    the server's total before the file is read, and given back only when the last byte has
//!    left for the socket: clients that do not read their answers hold at most their tenant's
//!    share, never the others'. The connection of an answer not written within the request
//!    timeout is closed.
//!
//! Every limit has a total ([`EndpointBuilder`]) and a share per tenant ([`TenantLimits`]),
//! by default half of the total, so that no single tenant can hold more than half of any
//! shared resource; [`Endpoint::reload`] resizes a tenant's shares, keeping what it holds.
//! Each request ends with one access-log line (tenant name, methods, status, bytes,
//! milliseconds; target `skillbook::access`), and [`Endpoint::metrics_text`] renders counters
//! in Prometheus' text format.
//!
//! A tenant's server must name skills by `skill://` URI only
//! ([`skillbook::Addressing::SkillUris`], the default of [`Scope::tenant`](skillbook::runtime::Scope::tenant)): nothing a tenant is told may
//! reveal how the server's disk is laid out.
//!
//! A [`Router`] puts the endpoint at `/mcp` next to `/healthz` (always 200 while the process
//! serves) and `/readyz` (200, then 503 once shutting down), which skip the checks above; and
//! [`serve_http`] runs a router on a TCP listener with HTTP/1.1 (put a TLS proxy in front for
//! HTTPS) until a shutdown signal, letting requests in flight finish. [`serve_admin`] serves
//! `/healthz`, `/readyz` and `/metrics` on a listener of their own, so that probes are
//! answered however the main listener is flooded. [`Endpoint::reload`] swaps tenants and
//! tokens without dropping requests in flight.
//!
//! ```no_run
//! use skillbook::runtime::Scope;
//! use skillbook_mcp::http::{Endpoint, Router, ServeOptions, Tenant, TokenDigest};
//! use skillbook_mcp::ServerBuilder;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // A tenant's scope names every skill file by `skill://` URI.
//! let acme = ServerBuilder::new(Scope::tenant("/srv/skills", ["acme"]));
//! let endpoint = Endpoint::builder()
//!     .tenant(
//!         Tenant::new("acme", acme.build()?)
//!             .with_token("sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b".parse::<TokenDigest>()?),
//!     )
//!     .allowed_hosts(["localhost", "skills.example.com"])
//!     .build()?;
//! // Mount `endpoint` in your own server (it is a `tower_service::Service`), or serve it:
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8931").await?;
//! // Serves until the future completes: a signal handler's, in a real server.
//! let shutdown = std::future::pending::<()>();
//! skillbook_mcp::http::serve_http(listener, Router::new(endpoint), &ServeOptions::default(), shutdown)
//!     .await?;
//! # Ok(())
//! # }
//! ```

mod answer;
mod body;
mod endpoint;
mod guard;
mod limits;
mod listen;
mod metrics;
mod responses;
mod router;
mod sessions;
mod token;

use std::borrow::Cow;
use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http::Response;
use http_body_util::combinators::BoxBody;

pub use endpoint::Endpoint;
pub use limits::{
    DEFAULT_ANSWER_BYTES, DEFAULT_BODY_BYTES, DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_ANSWERS,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS, DEFAULT_RATE, DEFAULT_SESSION_IDLE, Rate,
    TenantLimits,
};
pub use listen::{
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, ServeOptions, serve_admin, serve_http,
};
pub use router::{MCP_PATH, Router};
pub use token::{InvalidDigest, TokenDigest};

use crate::SkillServer;
use crate::budget::UNIT;
use skillbook::Addressing;

/// The response of every service here: rmcp's body type, boxed.
pub type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// The largest request body accepted unless [`EndpointBuilder::max_body_bytes`] says otherwise:
/// 1 MiB, far more than any MCP request this server answers needs.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

/// How long a request may take unless [`EndpointBuilder::request_timeout`] says otherwise.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The hosts answered unless [`EndpointBuilder::allowed_hosts`] says otherwise: loopback only.
pub const DEFAULT_ALLOWED_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The JSON-RPC error code of a request without a valid token.
pub const UNAUTHORIZED_CODE: i32 = -32001;

/// The JSON-RPC error code of a body that is not JSON.
pub const PARSE_ERROR_CODE: i32 = -32700;

/// The header that names a session.
const SESSION_HEADER: &str = "mcp-session-id";

/// Whether the endpoint keeps MCP sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Sessions {
    /// No sessions: each request is answered on its own, with a JSON body, by whichever replica
    /// receives it. The client still sends `initialize` first, but nothing is kept. The default.
    #[default]
    Stateless,
    /// rmcp's sessions (`Mcp-Session-Id`), kept in the memory of the replica that created them,
    /// so a load balancer must send a session's requests to the same replica. A session can
    /// receive what the server sends on its own — `notifications/resources/list_changed` and
    /// `notifications/tools/list_changed` when the skills change, on a `GET` stream — and
    /// answers come as server-sent events. Sessions are capped per tenant and in all
    /// ([`EndpointBuilder::max_sessions`]), closed after [`EndpointBuilder::session_idle`]
    /// without a request, and answer only to the token that opened them: a request with
    /// another token is told the session does not exist (HTTP 404), and a session ends when
    /// its token is removed ([`Endpoint::reload`]).
    Kept,
}

/// One tenant: a name (for logs and metrics), the server of its skills, the digests of the
/// tokens that select it, and what it may hold of the server's resources.
#[derive(Debug, Clone)]
pub struct Tenant {
    name: String,
    server: SkillServer,
    tokens: Vec<TokenDigest>,
    anonymous: bool,
    limits: Option<TenantLimits>,
}

impl Tenant {
    /// A tenant named `name` served by `server` (which must name skills by `skill://` URI), with
    /// no token yet and the endpoint's default limits.
    pub fn new(name: impl Into<String>, server: SkillServer) -> Self {
        Tenant {
            name: name.into(),
            server,
            tokens: Vec::new(),
            anonymous: false,
            limits: None,
        }
    }

    /// Adds a token (by its digest) that selects this tenant.
    #[must_use]
    pub fn with_token(mut self, digest: TokenDigest) -> Self {
        self.tokens.push(digest);
        self
    }

    /// Makes this the tenant of requests without an `Authorization` header (for local use;
    /// at most one tenant may be anonymous). A request with a wrong token is still refused.
    #[must_use]
    pub fn with_anonymous(mut self) -> Self {
        self.anonymous = true;
        self
    }

    /// What this tenant may hold, in place of [`EndpointBuilder::tenant_limits`].
    #[must_use]
    pub fn with_limits(mut self, limits: TenantLimits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// The tenant's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Why an endpoint cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EndpointError {
    /// No tenant was added.
    #[error("no tenant is configured; add at least one tenant with its skill sources and tokens")]
    NoTenants,
    /// Two tenants have one name.
    #[error("two tenants are named `{0}`; give each tenant its own name")]
    DuplicateTenant(String),
    /// A tenant has no token and is not anonymous: no request could reach it.
    #[error(
        "tenant `{0}` has no token and is not anonymous, so no request can reach it; add a \
         token digest (`skillbook token` makes one)"
    )]
    Unreachable(String),
    /// Two tenants are anonymous.
    #[error("tenants `{0}` and `{1}` are both anonymous; at most one tenant may be")]
    TwoAnonymous(String, String),
    /// One token digest selects two tenants.
    #[error("tenants `{0}` and `{1}` share a token; a token must select exactly one tenant")]
    SharedToken(String, String),
    /// A tenant's server names skills by the server's paths.
    #[error(
        "tenant `{0}` is served with the server's paths as skill locations; build its server \
         with `Addressing::SkillUris` (a tenant's scope) so that no tenant learns the server's layout"
    )]
    PathsExposed(String),
    /// An allowed host cannot be parsed.
    #[error("`{0}` is not a host: write a name or address, optionally with `:port`")]
    InvalidHost(String),
    /// An allowed origin cannot be parsed.
    #[error(
        "`{0}` is not an origin: write `scheme://host`, optionally with `:port` or `:*`, or `null`"
    )]
    InvalidOrigin(String),
}

/// Configures an [`Endpoint`]. Each setter documents its default; [`EndpointBuilder::build`]
/// can be called more than once.
#[derive(Debug, Clone)]
pub struct EndpointBuilder {
    tenants: Vec<Tenant>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    sessions: Sessions,
    max_body_bytes: usize,
    body_timeout: Duration,
    request_timeout: Option<Duration>,
    max_answers: usize,
    answer_bytes: u64,
    body_bytes: u64,
    max_sessions: usize,
    max_streams: usize,
    session_idle: Duration,
    tenant_limits: Option<TenantLimits>,
}

impl Default for EndpointBuilder {
    fn default() -> Self {
        EndpointBuilder {
            tenants: Vec::new(),
            allowed_hosts: DEFAULT_ALLOWED_HOSTS.map(str::to_owned).to_vec(),
            allowed_origins: Vec::new(),
            sessions: Sessions::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            request_timeout: Some(DEFAULT_REQUEST_TIMEOUT),
            max_answers: DEFAULT_MAX_ANSWERS,
            answer_bytes: DEFAULT_ANSWER_BYTES,
            body_bytes: DEFAULT_BODY_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_streams: DEFAULT_MAX_STREAMS,
            session_idle: DEFAULT_SESSION_IDLE,
            tenant_limits: None,
        }
    }
}

impl EndpointBuilder {
    /// A builder with no tenants and the defaults below.
    #[must_use]
    pub fn new() -> Self {
        EndpointBuilder::default()
    }

    /// Adds a tenant.
    pub fn tenant(&mut self, tenant: Tenant) -> &mut Self {
        self.tenants.push(tenant);
        self
    }

    /// The hosts the endpoint answers for: the names clients reach it by (`Host` header).
    /// `name` allows any port, `name:port` one port. Default [`DEFAULT_ALLOWED_HOSTS`]
    /// (loopback only): list the public name when serving others.
    pub fn allowed_hosts(
        &mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> &mut Self {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// The browser origins that may call the endpoint (`scheme://host[:port]`, `:*` for any
    /// port, or `null`). Requests without an `Origin` header are not affected. Default none
    /// listed: an origin is then accepted only when its host is an allowed host.
    pub fn allowed_origins(
        &mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> &mut Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Whether MCP sessions are kept. Default [`Sessions::Stateless`].
    pub fn sessions(&mut self, sessions: Sessions) -> &mut Self {
        self.sessions = sessions;
        self
    }

    /// The largest request body accepted; a larger one is HTTP 413 (at once when its
    /// `Content-Length` says so). Default [`DEFAULT_MAX_BODY_BYTES`].
    pub fn max_body_bytes(&mut self, bytes: usize) -> &mut Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How long a client may take to send a request's body (from the end of its headers);
    /// past it the request is HTTP 408 and its connection closed. Default
    /// [`DEFAULT_BODY_TIMEOUT`].
    pub fn body_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.body_timeout = timeout;
        self
    }

    /// How many answers may be worked on or written at once, in all (`POST` requests, from a
    /// whole body received until the answer is built — or, for an answer that is an event
    /// stream, until the stream ends); further requests wait within their timeout. Default
    /// [`DEFAULT_MAX_ANSWERS`]; `0` counts as 1.
    pub fn max_answers(&mut self, answers: usize) -> &mut Self {
        self.max_answers = answers.max(1);
        self
    }

    /// How many bytes of answers may be in flight at once, in all: taken before a file is read
    /// and given back when the last byte of its answer has left for the socket. Default
    /// [`DEFAULT_ANSWER_BYTES`].
    pub fn answer_bytes(&mut self, bytes: u64) -> &mut Self {
        self.answer_bytes = bytes.max(UNIT);
        self
    }

    /// How many bytes of request bodies may be held at once, in all (being read, or waiting for
    /// their answer). Default [`DEFAULT_BODY_BYTES`].
    pub fn body_bytes(&mut self, bytes: u64) -> &mut Self {
        self.body_bytes = bytes.max(UNIT);
        self
    }

    /// How many sessions may be open at once, in all (with [`Sessions::Kept`]); beyond it a new
    /// session is HTTP 503. Default [`DEFAULT_MAX_SESSIONS`]; `0` counts as 1.
    pub fn max_sessions(&mut self, sessions: usize) -> &mut Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// How many event streams (`GET`, with [`Sessions::Kept`]) may be open at once, in all;
    /// beyond it a new one is HTTP 503. Keep it well under the connection cap
    /// ([`ServeOptions::max_connections`]): an open stream keeps its connection busy. Default
    /// [`DEFAULT_MAX_STREAMS`]; `0` counts as 1.
    pub fn max_streams(&mut self, streams: usize) -> &mut Self {
        self.max_streams = streams.max(1);
        self
    }

    /// How long a session may go without a request before it is closed. Default
    /// [`DEFAULT_SESSION_IDLE`].
    pub fn session_idle(&mut self, idle: Duration) -> &mut Self {
        self.session_idle = idle;
        self
    }

    /// What each tenant may hold unless it has limits of its own ([`Tenant::with_limits`]).
    /// Default [`TenantLimits::half_of`] the totals set here.
    pub fn tenant_limits(&mut self, limits: TenantLimits) -> &mut Self {
        self.tenant_limits = Some(limits);
        self
    }

    /// The limits of tenants without limits of their own: those set with
    /// [`EndpointBuilder::tenant_limits`], else half of each total.
    #[must_use]
    pub fn default_tenant_limits(&self) -> TenantLimits {
        self.tenant_limits
            .unwrap_or_else(|| TenantLimits::half_of(self))
    }

    /// How long a request may take, from its arrival to the last byte of its answer, before
    /// it is answered with HTTP 503 (or, once its answer has started, cut off and its
    /// connection closed), or `None` for no limit. Default [`DEFAULT_REQUEST_TIMEOUT`]. (With
    /// [`Sessions::Kept`] it bounds the time to the start of an answer's event stream.)
    pub fn request_timeout(&mut self, timeout: Option<Duration>) -> &mut Self {
        self.request_timeout = timeout;
        self
    }

    /// Builds the endpoint.
    ///
    /// # Errors
    ///
    /// An [`EndpointError`] naming the first problem: no tenant, two tenants with one name, a
    /// tenant without tokens that is not anonymous, two anonymous tenants, a token shared by
    /// two tenants, a tenant served with paths, or an allowed host or origin that cannot be
    /// parsed.
    pub fn build(&self) -> Result<Endpoint, EndpointError> {
        Endpoint::new(self)
    }

    fn check_tenants(&self) -> Result<(), EndpointError> {
        if self.tenants.is_empty() {
            return Err(EndpointError::NoTenants);
        }
        let mut anonymous: Option<&Tenant> = None;
        for (position, tenant) in self.tenants.iter().enumerate() {
            let earlier = &self.tenants[..position];
            if earlier.iter().any(|other| other.name == tenant.name) {
                return Err(EndpointError::DuplicateTenant(tenant.name.clone()));
            }
            if tenant.server.addressing() != Addressing::SkillUris {
                return Err(EndpointError::PathsExposed(tenant.name.clone()));
            }
            if tenant.tokens.is_empty() && !tenant.anonymous {
                return Err(EndpointError::Unreachable(tenant.name.clone()));
            }
            if let Some(other) = earlier.iter().find(|other| {
                other
                    .tokens
                    .iter()
                    .any(|token| tenant.tokens.contains(token))
            }) {
                return Err(EndpointError::SharedToken(
                    other.name.clone(),
                    tenant.name.clone(),
                ));
            }
            match (anonymous, tenant.anonymous) {
                (Some(other), true) => {
                    return Err(EndpointError::TwoAnonymous(
                        other.name.clone(),
                        tenant.name.clone(),
                    ));
                }
                (None, true) => anonymous = Some(tenant),
                _ => {}
            }
        }
        Ok(())
    }
}

/// `text` with control characters escaped (`\n`, `\r`, `\u{1b}`, …), for a log line.
pub(crate) fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        if character.is_control() {
            out.extend(character.escape_debug());
        } else {
            out.push(character);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::escaped;

    #[test]
    fn control_characters_in_logged_names_are_escaped() {
        assert_eq!(escaped("acme"), "acme");
        assert_eq!(escaped("a\nb\r\u{1b}[31mé"), "a\\nb\\r\\u{1b}[31mé");
    }
}
