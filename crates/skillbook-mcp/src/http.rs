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
//!    after it).
//! 6. **The tenant's MCP service** (rmcp's streamable HTTP server) answers: stateless by
//!    default, so any replica can answer any request ([`Sessions`]).
//! 7. **The answer** is handed to the connection in frames of at most 64 KiB. The bytes of a
//!    `resources/read` or `tools/call` answer are taken from the tenant's answer-byte share and
//!    the server's total before the file is read, and given back only when the last byte has
//!    left for the socket: clients that do not read their answers hold at most their tenant's
//!    share, never the others'. An answer not written within the request timeout is cut off
//!    and its connection closed.
//!
//! Every limit has a total ([`EndpointBuilder`]) and a share per tenant ([`TenantLimits`]),
//! by default half of the total, so that no single tenant can hold more than half of any
//! shared resource. Each request ends with one access-log line (tenant name, methods, status,
//! bytes, milliseconds; target `skillbook::access`), and [`Endpoint::metrics`] renders
//! counters in Prometheus' text format.
//!
//! A tenant's server must name skills by `skill://` URI only
//! ([`Addresses::SkillUris`]): nothing a tenant is told may
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
//! use skillbook_mcp::{Addresses, ServerBuilder};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let mut acme = ServerBuilder::new(Scope::tenant("/srv/skills", ["acme"]));
//! acme.addresses(Addresses::SkillUris);
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
mod guard;
mod limits;
mod listen;
mod metrics;
mod sessions;
mod token;

use std::borrow::Cow;
use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode, header};
use http_body::Body;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

pub use limits::{
    DEFAULT_ANSWER_BYTES, DEFAULT_BODY_BYTES, DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_ANSWERS,
    DEFAULT_MAX_SESSIONS, DEFAULT_RATE, DEFAULT_SESSION_IDLE, Rate, TenantLimits,
};
pub use listen::{
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, ServeOptions, serve_admin, serve_http,
};
pub use token::{InvalidDigest, TokenDigest};

use crate::budget::{AnswerHold, Limit, Pool, Taken, UNIT};
use crate::{Addresses, SkillServer};
use answer::{Answer, CutOffAt, Held, Record};
use body::BodyError;
use guard::{Guard, Refusal};
use limits::RateLimiter;
use listen::Activity;
use metrics::{Metrics, Reason, Shares, TenantMetrics};
use sessions::{CappedSessions, Opener, SessionBook};

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
         with `Addresses::SkillUris` so that no tenant learns the server's layout"
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
        let guard = Guard::new(&self.allowed_hosts, &self.allowed_origins)?;
        self.check_tenants()?;
        let cancellation = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(self.sessions == Sessions::Kept)
            .with_json_response(self.sessions == Sessions::Stateless)
            // The endpoint reads and bounds the body itself; rmcp gets it whole.
            .with_max_request_body_bytes(self.max_body_bytes.max(1))
            .with_cancellation_token(cancellation.clone())
            // Checked by the endpoint before authentication; rmcp's own check would repeat it
            // with slightly different rules.
            .disable_allowed_hosts()
            .disable_allowed_origins();
        let inner = EndpointInner {
            guard,
            tenants: RwLock::new(Arc::new(TenantTable::default())),
            settings: Settings {
                sessions: self.sessions,
                session_idle: self.session_idle,
                max_body_bytes: self.max_body_bytes,
                body_timeout: self.body_timeout,
                request_timeout: self.request_timeout,
                config,
            },
            totals: Totals {
                answers: Limit::new(self.max_answers as u64),
                answer_kib: Limit::new(self.answer_bytes.div_ceil(UNIT)),
                body_kib: Limit::new(self.body_bytes.div_ceil(UNIT)),
                sessions: Limit::new(self.max_sessions as u64),
            },
            metrics: Arc::new(Metrics::default()),
            cancellation,
            draining: CancellationToken::new(),
        };
        let endpoint = Endpoint {
            inner: Arc::new(inner),
        };
        endpoint.install(self);
        Ok(endpoint)
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
            if tenant.server.addresses() != Addresses::SkillUris {
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

/// MCP over streamable HTTP for several tenants: see the [module docs](self) for what each
/// request goes through. A `tower_service::Service` for any request body; cheap to clone.
#[derive(Clone)]
pub struct Endpoint {
    inner: Arc<EndpointInner>,
}

struct EndpointInner {
    guard: Guard,
    /// The tenants served now, replaced whole by [`Endpoint::reload`].
    tenants: RwLock<Arc<TenantTable>>,
    settings: Settings,
    totals: Totals,
    metrics: Arc<Metrics>,
    cancellation: CancellationToken,
    /// Cancelled when the server starts shutting down: event streams end then.
    draining: CancellationToken,
}

/// The settings every tenant's service is served with.
struct Settings {
    sessions: Sessions,
    session_idle: Duration,
    max_body_bytes: usize,
    body_timeout: Duration,
    request_timeout: Option<Duration>,
    config: StreamableHttpServerConfig,
}

/// The server's totals, which every tenant's shares count against.
struct Totals {
    answers: Limit,
    answer_kib: Limit,
    body_kib: Limit,
    sessions: Limit,
}

#[derive(Default)]
struct TenantTable {
    tenants: Vec<Arc<TenantEntry>>,
    anonymous: Option<usize>,
}

/// One tenant as served now.
struct TenantEntry {
    name: String,
    tokens: Vec<TokenDigest>,
    limits: TenantLimits,
    service: Arc<TenantService>,
    answers: Pool,
    answer_kib: Pool,
    body_kib: Pool,
    sessions: Pool,
    rate: Arc<RateLimiter>,
    metrics: Arc<TenantMetrics>,
}

/// A tenant's MCP service and its sessions: kept across reloads while its server is the same.
struct TenantService {
    server: SkillServer,
    service: StreamableHttpService<SkillServer, CappedSessions>,
    manager: Arc<CappedSessions>,
    book: Arc<SessionBook>,
}

impl TenantService {
    /// Closes the sessions `ended` (their shares are already given back).
    fn close(&self, ended: Vec<Arc<str>>) {
        if ended.is_empty() {
            return;
        }
        let manager = Arc::clone(&self.manager);
        tokio::spawn(async move {
            for id in ended {
                use rmcp::transport::streamable_http_server::SessionManager as _;
                if let Err(error) = manager.close_session(&id).await {
                    tracing::debug!("cannot close a session: {error}");
                }
            }
        });
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Endpoint")
            .field("tenants", &self.tenants())
            .finish_non_exhaustive()
    }
}

/// The parts of a JSON-RPC request the endpoint looks at.
#[derive(Deserialize)]
struct Envelope {
    method: Option<String>,
}

impl Endpoint {
    /// A builder with the defaults.
    #[must_use]
    pub fn builder() -> EndpointBuilder {
        EndpointBuilder::new()
    }

    /// The tenants' names, in the order they were added.
    #[must_use]
    pub fn tenants(&self) -> Vec<String> {
        self.table()
            .tenants
            .iter()
            .map(|tenant| tenant.name.clone())
            .collect()
    }

    /// Serves the tenants of `tenants` from now on, with their tokens and limits; requests in
    /// flight finish with the tenants they started with. A tenant of the same name whose
    /// server is the same ([`SkillServer`] clones share it) keeps its sessions — but those
    /// opened with a token it no longer has are closed; the sessions of tenants removed or
    /// given another server are closed. The other settings of `tenants` (hosts, totals,
    /// timeouts, sessions) are those the endpoint was built with: they need a new endpoint.
    ///
    /// # Errors
    ///
    /// As [`EndpointBuilder::build`] for the tenants; the endpoint keeps serving the previous
    /// ones then.
    pub fn reload(&self, tenants: &EndpointBuilder) -> Result<(), EndpointError> {
        tenants.check_tenants()?;
        self.install(tenants);
        Ok(())
    }

    /// Puts the tenants of `builder` (already checked) in place of those served now.
    fn install(&self, builder: &EndpointBuilder) {
        let inner = &self.inner;
        let previous = self.table();
        let defaults = builder.default_tenant_limits();
        let mut table = TenantTable::default();
        for (position, tenant) in builder.tenants.iter().enumerate() {
            let limits = tenant.limits.unwrap_or(defaults);
            let before = previous.tenants.iter().find(|entry| {
                entry.name == tenant.name && entry.service.server.same_as(&tenant.server)
            });
            let service = match before {
                Some(entry) => Arc::clone(&entry.service),
                None => Arc::new(self.service_for(&tenant.server)),
            };
            // Sessions whose token this tenant no longer has end.
            let ended = service.book.drain_unless(|opener| match opener {
                Some(digest) => tenant.tokens.iter().any(|token| token.same_as(digest)),
                None => tenant.anonymous,
            });
            service.close(ended);
            let reused = before.filter(|entry| entry.limits == limits);
            let entry = match reused {
                Some(entry) => TenantEntry {
                    name: tenant.name.clone(),
                    tokens: tenant.tokens.clone(),
                    limits,
                    service,
                    answers: entry.answers.clone(),
                    answer_kib: entry.answer_kib.clone(),
                    body_kib: entry.body_kib.clone(),
                    sessions: entry.sessions.clone(),
                    rate: Arc::clone(&entry.rate),
                    metrics: Arc::clone(&entry.metrics),
                },
                None => TenantEntry {
                    name: tenant.name.clone(),
                    tokens: tenant.tokens.clone(),
                    limits,
                    service,
                    answers: Pool::new(
                        Limit::new(limits.max_answers as u64),
                        inner.totals.answers.clone(),
                    ),
                    answer_kib: Pool::new(
                        Limit::new(limits.answer_bytes.div_ceil(UNIT)),
                        inner.totals.answer_kib.clone(),
                    ),
                    body_kib: Pool::new(
                        Limit::new(limits.body_bytes.div_ceil(UNIT)),
                        inner.totals.body_kib.clone(),
                    ),
                    sessions: Pool::new(
                        Limit::new(limits.max_sessions as u64),
                        inner.totals.sessions.clone(),
                    ),
                    rate: Arc::new(RateLimiter::new(limits.rate)),
                    metrics: inner.metrics.tenant(&tenant.name),
                },
            };
            if tenant.anonymous {
                table.anonymous = Some(position);
            }
            table.tenants.push(Arc::new(entry));
        }
        // Tenants gone, or served by another server now: their sessions end.
        for entry in &previous.tenants {
            let kept = table
                .tenants
                .iter()
                .any(|tenant| Arc::ptr_eq(&tenant.service, &entry.service));
            if !kept {
                let ended = entry.service.book.drain_unless(|_| false);
                entry.service.close(ended);
            }
        }
        *inner
            .tenants
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(table);
    }

    /// A new MCP service for `server`, with sessions of its own.
    fn service_for(&self, server: &SkillServer) -> TenantService {
        let settings = &self.inner.settings;
        let server = match settings.sessions {
            Sessions::Kept => server.clone(),
            Sessions::Stateless => server.without_notifications(),
        };
        let book = Arc::new(SessionBook::default());
        let manager = Arc::new(CappedSessions::new(
            settings.session_idle,
            Arc::clone(&book),
        ));
        let factory = server.clone();
        TenantService {
            server,
            service: StreamableHttpService::new(
                move || Ok(factory.clone()),
                Arc::clone(&manager),
                settings.config.clone(),
            ),
            manager,
            book,
        }
    }

    fn table(&self) -> Arc<TenantTable> {
        Arc::clone(
            &self
                .inner
                .tenants
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    pub(crate) fn metrics(&self) -> &Arc<Metrics> {
        &self.inner.metrics
    }

    /// Counters in Prometheus' text format (version 0.0.4): requests by tenant and status,
    /// refusals by reason, latency, bytes in flight, sessions and connections. Tenants are named
    /// by their names, never by a token.
    #[must_use]
    pub fn metrics_text(&self) -> String {
        let shares: Vec<(String, Shares)> = self
            .table()
            .tenants
            .iter()
            .map(|tenant| {
                (
                    tenant.name.clone(),
                    Shares {
                        answers: tenant.answers.tenant().in_use(),
                        answer_kib: tenant.answer_kib.tenant().in_use(),
                        body_kib: tenant.body_kib.tenant().in_use(),
                        sessions: tenant.sessions.tenant().in_use(),
                    },
                )
            })
            .collect();
        self.inner.metrics.render(&shares)
    }

    /// Ends the event streams clients hold open (`GET`, with [`Sessions::Kept`]), now and
    /// as soon as they open from now on, so they do not hold a shutdown for its whole grace
    /// period; requests in flight go on. [`serve_http`] calls it when it stops accepting
    /// connections.
    pub fn drain(&self) {
        self.inner.draining.cancel();
    }

    /// Ends every open MCP stream and session; requests that arrive afterwards fail. Call it
    /// once requests in flight have finished ([`serve_http`] does).
    pub fn close(&self) {
        self.inner.cancellation.cancel();
    }

    /// Answers one request.
    pub async fn handle<B>(&self, request: Request<B>) -> HttpResponse
    where
        B: Body + Send + 'static,
        B::Data: Send + 'static,
        B::Error: Display,
    {
        let started = Instant::now();
        let inner = &self.inner;
        let method = request.method().clone();
        let mut record = Record {
            tenant: String::new(),
            metrics: None,
            method: method.clone(),
            call: None,
            status: 0,
            started,
            bytes: 0,
            cut_off: false,
        };
        if let Err(refusal) = inner.guard.check(request.uri(), request.headers()) {
            let status = match refusal {
                Refusal::NoHost => StatusCode::BAD_REQUEST,
                Refusal::Host | Refusal::Origin => StatusCode::FORBIDDEN,
            };
            inner.metrics.refused(None, Reason::Host);
            tracing::info!(%method, "refused: {}", refusal.message());
            drain(request.into_body()).await;
            return refused(
                record,
                closing(json_rpc_error(status, -32600, refusal.message())),
            );
        }
        let table = self.table();
        let Some((tenant, opener)) = table.select(request.headers()) else {
            inner.metrics.refused(None, Reason::Unauthorized);
            tracing::info!(%method, "refused: no valid bearer token");
            drain(request.into_body()).await;
            return refused(record, closing(unauthorized()));
        };
        let tenant = Arc::clone(tenant);
        record.tenant.clone_from(&tenant.name);
        record.metrics = Some(Arc::clone(&tenant.metrics));
        if let Err(wait) = tenant.rate.take() {
            inner.metrics.refused(Some(&tenant.name), Reason::Rate);
            drain(request.into_body()).await;
            return refused(record, closing(too_many_requests(wait)));
        }
        let activity = request.extensions().get::<Activity>().cloned();
        let (mut parts, body) = request.into_parts();
        // The body, whole, before anything else is held.
        let (bytes, body_share, busy) = if method == Method::POST {
            match self.read_body(&tenant, &parts.headers, body).await {
                Ok(read) => (
                    read.bytes,
                    read.taken,
                    activity.as_ref().map(Activity::busy),
                ),
                Err(refusal) => return refused(record, refusal),
            }
        } else {
            (
                Bytes::new(),
                Vec::new(),
                activity.as_ref().map(Activity::busy),
            )
        };
        let json_body = method == Method::POST && is_json(&parts.headers);
        if json_body {
            match serde_json::from_slice::<Envelope>(&bytes) {
                Ok(envelope) => record.call = envelope.method,
                Err(error) if !error.is_data() => {
                    inner
                        .metrics
                        .refused(Some(&tenant.name), Reason::ParseError);
                    return refused(record, parse_error());
                }
                Err(_) => {}
            }
        }
        // Sessions: used only by the token that opened them; a new one takes a share.
        let session = parts
            .headers
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if let Some(id) = &session
            && tenant.service.book.allows(id, &opener) == Some(false)
        {
            return refused(record, session_not_found());
        }
        let session_share = match (inner.settings.sessions, &session, record.call.as_deref()) {
            (Sessions::Kept, None, Some("initialize")) if method == Method::POST => {
                match tenant.sessions.try_take(1) {
                    Some(share) => Some(share),
                    None => {
                        inner.metrics.refused(Some(&tenant.name), Reason::Sessions);
                        return refused(
                            record,
                            busy_error("too many sessions are open; try again later"),
                        );
                    }
                }
            }
            _ => None,
        };
        // What the answer's bytes are taken from, for the handler to find.
        let hold = Arc::new(AnswerHold::new(tenant.answer_kib.clone()));
        parts.extensions.insert(Arc::clone(&hold));
        let request = Request::from_parts(parts, Full::new(bytes));
        let deadline = inner.settings.request_timeout.map(|limit| started + limit);
        let bounded = method == Method::POST;
        let service = Arc::clone(&tenant.service);
        let answers = tenant.answers.clone();
        let answer = async move {
            let slot = match bounded {
                true => answers.take(1).await,
                false => None,
            };
            (slot, service.service.handle(request).await)
        };
        let answered = match deadline {
            Some(at) => tokio::time::timeout_at(at.into(), answer).await.ok(),
            None => Some(answer.await),
        };
        drop(body_share);
        let Some((slot, mut response)) = answered else {
            inner.metrics.refused(Some(&tenant.name), Reason::Busy);
            tracing::warn!(
                tenant = %escaped(&tenant.name),
                "a request took longer than {:?}",
                inner.settings.request_timeout.unwrap_or_default()
            );
            return refused(
                record,
                busy_error("the request took too long and was stopped; try again"),
            );
        };
        if let (Some(share), Some(id)) = (
            session_share,
            response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|value| value.to_str().ok()),
        ) {
            tenant.service.book.book(id.into(), opener, share);
        }
        match response.status() {
            // Closing a session is a success the SDKs expect as 200.
            StatusCode::ACCEPTED if method == Method::DELETE => {
                *response.status_mut() = StatusCode::OK;
            }
            // JSON that is not a JSON-RPC message this server takes (a wrong `Content-Type` is
            // still 415).
            StatusCode::UNSUPPORTED_MEDIA_TYPE if json_body => {
                response = json_rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "the body is JSON but not a JSON-RPC message this server takes",
                );
            }
            _ => {}
        }
        record.status = response.status().as_u16();
        tenant.metrics.answered(record.status, started.elapsed());
        let stream = is_event_stream(&response);
        let (slot, until, warning): (Option<Taken>, CutOffAt, _) = match (bounded, stream) {
            // A POST answer is cut off (its connection closed) at the deadline, so a client
            // that does not read it cannot keep its bytes; an event stream holds its slot.
            (true, _) => (
                if stream { slot } else { None },
                match deadline {
                    Some(at) => Box::pin(tokio::time::sleep_until(at.into())),
                    None => Box::pin(std::future::pending()),
                },
                Some(NOT_WRITTEN_IN_TIME),
            ),
            // An event stream stays open for notifications until the server stops accepting
            // connections (the client reconnects, to another replica if need be).
            (false, true) => (
                None,
                Box::pin(inner.draining.clone().cancelled_owned()),
                None,
            ),
            (false, false) => (None, Box::pin(std::future::pending()), None),
        };
        response.map(|body| {
            Answer::body(
                body,
                Held {
                    hold: Some(hold),
                    _slot: slot,
                    _busy: busy,
                    record: Some(record),
                },
                until,
                warning,
            )
        })
    }

    /// Reads a `POST` body whole (see [`body::read`]), or the answer that refuses it.
    async fn read_body<B>(
        &self,
        tenant: &TenantEntry,
        headers: &HeaderMap,
        body: B,
    ) -> Result<body::ReadBody, HttpResponse>
    where
        B: Body,
        B::Error: Display,
    {
        let settings = &self.inner.settings;
        let refuse = |reason: Reason, response: HttpResponse| {
            self.inner.metrics.refused(Some(&tenant.name), reason);
            closing(response)
        };
        let too_large = || {
            refuse(
                Reason::BodyTooLarge,
                json_rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    -32600,
                    &format!(
                        "the request body is larger than {} bytes",
                        settings.max_body_bytes
                    ),
                ),
            )
        };
        match body::declared_length(headers) {
            Ok(Some(length)) if length > settings.max_body_bytes as u64 => return Err(too_large()),
            Ok(_) => {}
            Err(_) => {
                return Err(closing(json_rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "the Content-Length header is not a length",
                )));
            }
        }
        let deadline = tokio::time::Instant::now() + settings.body_timeout;
        body::read(body, settings.max_body_bytes, &tenant.body_kib, deadline)
            .await
            .map_err(|error| match error {
                BodyError::TooLarge => too_large(),
                BodyError::TimedOut => refuse(
                    Reason::BodyTimeout,
                    json_rpc_error(
                        StatusCode::REQUEST_TIMEOUT,
                        -32600,
                        "the request body was not sent in time",
                    ),
                ),
                BodyError::BadLength | BodyError::Failed(_) => closing(json_rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "the request body could not be read",
                )),
            })
    }
}

impl TenantTable {
    /// The one tenant the request's token selects (or the anonymous tenant, without a token),
    /// and who the request comes from.
    fn select(&self, headers: &HeaderMap) -> Option<(&Arc<TenantEntry>, Opener)> {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return match headers.contains_key(header::AUTHORIZATION) {
                // Two Authorization headers: refused.
                true => None,
                false => self
                    .anonymous
                    .and_then(|at| self.tenants.get(at))
                    .map(|tenant| (tenant, None)),
            };
        };
        let token = value.to_str().ok().and_then(bearer_token)?;
        let hashed = TokenDigest::of(token);
        let found = token::find(
            &hashed,
            self.tenants.iter().map(|tenant| tenant.tokens.as_slice()),
        )?;
        self.tenants.get(found).map(|tenant| (tenant, Some(hashed)))
    }
}

/// The token of an `Authorization: Bearer <token>` value (the scheme in any case).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
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

/// A refusal, logged (with `record`) as it is sent.
fn refused(mut record: Record, response: HttpResponse) -> HttpResponse {
    record.status = response.status().as_u16();
    drop(record);
    response
}

/// Whether the request's `Content-Type` is JSON.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

impl<B> tower_service::Service<Request<B>> for Endpoint
where
    B: Body + Send + 'static,
    B::Data: Send + 'static,
    B::Error: Display,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _context: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let endpoint = self.clone();
        Box::pin(async move { Ok(endpoint.handle(request).await) })
    }
}

/// The [`Endpoint`] at `/mcp`, with `/healthz` and `/readyz` beside it; anything else is 404.
/// [`Router::handle_admin`] answers the admin listener's paths, `/metrics` among them.
/// A `tower_service::Service`; cheap to clone.
#[derive(Debug, Clone)]
pub struct Router {
    endpoint: Endpoint,
    draining: Arc<AtomicBool>,
}

/// The path of the MCP endpoint in a [`Router`].
pub const MCP_PATH: &str = "/mcp";

impl Router {
    /// A router for `endpoint`.
    #[must_use]
    pub fn new(endpoint: Endpoint) -> Self {
        Router {
            endpoint,
            draining: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The endpoint at `/mcp`.
    #[must_use]
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// From now on `/readyz` answers 503, so load balancers stop sending new requests.
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Answers one request of the main listener: `/mcp`, `/healthz` and `/readyz`.
    pub async fn handle<B>(&self, request: Request<B>) -> HttpResponse
    where
        B: Body + Send + 'static,
        B::Data: Send + 'static,
        B::Error: Display,
    {
        match request.uri().path() {
            MCP_PATH => self.endpoint.handle(request).await,
            "/healthz" | "/readyz" => self.probe(&request),
            _ => status_response(StatusCode::NOT_FOUND, "not found; MCP is served at /mcp"),
        }
    }

    /// Answers one request of the admin listener: `/healthz`, `/readyz` and `/metrics`
    /// (Prometheus' text format, see [`Endpoint::metrics_text`]), with no token asked.
    /// `/metrics` names the tenants, so it is served here only, never on the main listener.
    pub async fn handle_admin<B>(&self, request: Request<B>) -> HttpResponse {
        match request.uri().path() {
            "/healthz" | "/readyz" => self.probe(&request),
            "/metrics" if matches!(*request.method(), Method::GET | Method::HEAD) => {
                let mut response =
                    Response::new(Full::new(Bytes::from(self.endpoint.metrics_text())).boxed());
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    http::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
                );
                response
            }
            "/metrics" => method_not_allowed(),
            _ => status_response(
                StatusCode::NOT_FOUND,
                "not found; the admin listener serves /healthz, /readyz and /metrics",
            ),
        }
    }

    fn probe<B>(&self, request: &Request<B>) -> HttpResponse {
        let probe = matches!(*request.method(), Method::GET | Method::HEAD);
        match request.uri().path() {
            "/healthz" if probe => status_response(StatusCode::OK, "ok"),
            "/readyz" if probe && self.draining.load(Ordering::Relaxed) => {
                status_response(StatusCode::SERVICE_UNAVAILABLE, "draining")
            }
            "/readyz" if probe => status_response(StatusCode::OK, "ready"),
            _ => method_not_allowed(),
        }
    }
}

fn method_not_allowed() -> HttpResponse {
    let mut response = status_response(StatusCode::METHOD_NOT_ALLOWED, "use GET");
    response
        .headers_mut()
        .insert(header::ALLOW, http::HeaderValue::from_static("GET, HEAD"));
    response
}

impl<B> tower_service::Service<Request<B>> for Router
where
    B: Body + Send + 'static,
    B::Data: Send + 'static,
    B::Error: Display,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _context: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let router = self.clone();
        Box::pin(async move { Ok(router.handle(request).await) })
    }
}

/// `{"status": status}` with an HTTP status.
fn status_response(code: StatusCode, status: &str) -> HttpResponse {
    json_response(code, &json!({ "status": status }))
}

/// A JSON-RPC error without a request id (the body was not parsed).
fn json_rpc_error(status: StatusCode, code: i32, message: &str) -> HttpResponse {
    json_response(
        status,
        &json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}),
    )
}

/// The most of a refused request's body read before the answer, and for how long.
const DRAIN_BYTES: usize = 64 * 1024;
const DRAIN_TIME: Duration = Duration::from_secs(1);

/// Reads and drops what a refused request sends, up to [`DRAIN_BYTES`] for at most
/// [`DRAIN_TIME`]: a connection closed while the client's bytes are still unread is reset,
/// and a reset can destroy the answer before the client reads it. A larger or slower body is
/// left unread (its client may not see the refusal, which costs the server nothing).
async fn drain<B: Body>(body: B) {
    let read = async {
        let mut body = std::pin::pin!(body);
        let mut read = 0_usize;
        while read <= DRAIN_BYTES {
            match body.frame().await {
                Some(Ok(frame)) => {
                    read += frame.data_ref().map_or(0, bytes::Buf::remaining);
                }
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, read).await;
}

/// `response` to a request whose body is left unread: it says the connection closes after it,
/// so that a client does not send its next request on a connection the server is closing.
fn closing(mut response: HttpResponse) -> HttpResponse {
    response
        .headers_mut()
        .insert(header::CONNECTION, http::HeaderValue::from_static("close"));
    response
}

/// The answer to a request without a valid token: the same whatever tenants exist.
fn unauthorized() -> HttpResponse {
    let mut response = json_rpc_error(
        StatusCode::UNAUTHORIZED,
        UNAUTHORIZED_CODE,
        "unauthorized: send a valid token as `Authorization: Bearer <token>`",
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        http::HeaderValue::from_static("Bearer realm=\"skillbook\""),
    );
    response
}

fn json_response(status: StatusCode, value: &serde_json::Value) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// Whether `response` is a stream of server-sent events.
fn is_event_stream(response: &HttpResponse) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"))
}

/// What is logged when a `POST` answer is cut off.
const NOT_WRITTEN_IN_TIME: &str = "an answer was not written in time and is cut off";

/// The answer to a body that is not JSON.
fn parse_error() -> HttpResponse {
    json_rpc_error(
        StatusCode::BAD_REQUEST,
        PARSE_ERROR_CODE,
        "parse error: the request body is not JSON",
    )
}

/// The answer to a request over its tenant's rate: when to try again, in whole seconds.
fn too_many_requests(wait: Duration) -> HttpResponse {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = json_rpc_error(
        StatusCode::TOO_MANY_REQUESTS,
        -32000,
        "too many requests; try again after the time in Retry-After",
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, http::HeaderValue::from(seconds.max(1)));
    response
}

/// HTTP 503 with `message`, to try again in a second.
fn busy_error(message: &str) -> HttpResponse {
    let mut response = json_rpc_error(StatusCode::SERVICE_UNAVAILABLE, -32603, message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, http::HeaderValue::from_static("1"));
    response
}

/// The answer to a session that does not exist for this token: as rmcp answers an unknown one.
fn session_not_found() -> HttpResponse {
    let mut response =
        Response::new(Full::new(Bytes::from("Not Found: Session not found")).boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

#[cfg(test)]
mod tests {
    use super::{bearer_token, escaped};

    #[test]
    fn bearer_tokens_are_read_in_any_case_and_spacing() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer   abc  "), Some("abc"));
        assert_eq!(bearer_token("BEARER abc"), Some("abc"));
        for value in ["Bearer", "Bearer ", "Basic abc", "abc", ""] {
            assert_eq!(bearer_token(value), None, "{value}");
        }
    }

    #[test]
    fn control_characters_in_logged_names_are_escaped() {
        assert_eq!(escaped("acme"), "acme");
        assert_eq!(escaped("a\nb\r\u{1b}[31mé"), "a\\nb\\r\\u{1b}[31mé");
    }
}
