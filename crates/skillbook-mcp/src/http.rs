//! One MCP service over streamable HTTP for many users, each tenant seeing only its skills
//! (feature `http`; what `skillbook serve` runs).
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
//! 3. **The tenant's MCP service** (rmcp's streamable HTTP server) answers: stateless by
//!    default, so any replica can answer any request ([`Sessions`]); request bodies over the
//!    limit are HTTP 413; a request that takes longer than the timeout is HTTP 503.
//!
//! A tenant's server must name skills by `skill://` URI only
//! ([`Addresses::SkillUris`]): nothing a tenant is told may
//! reveal how the server's disk is laid out.
//!
//! A [`Router`] puts the endpoint at `/mcp` next to `/healthz` (always 200 while the process
//! serves) and `/readyz` (200, then 503 once shutting down), which skip the checks above; and
//! [`serve_http`] runs a router on a TCP listener with HTTP/1.1 (put a TLS proxy in front for
//! HTTPS) until a shutdown signal, letting requests in flight finish.
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

mod guard;
mod listen;
mod token;

use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode, header};
use http_body::Body;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

pub use listen::{ServeOptions, serve_http};
pub use token::{InvalidDigest, TokenDigest};

use crate::{Addresses, SkillServer};
use guard::{Guard, Refusal};

/// The response of every service here: rmcp's body type, boxed.
pub type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// The largest request body accepted unless [`EndpointBuilder::max_body_bytes`] says otherwise:
/// 1 MiB, far more than any MCP request this server answers needs.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

/// How long a request may take unless [`EndpointBuilder::request_timeout`] says otherwise.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The hosts answered unless [`EndpointBuilder::allowed_hosts`] says otherwise: loopback only.
pub const DEFAULT_ALLOWED_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How many answers may be held at once unless [`EndpointBuilder::max_answers`] says otherwise.
/// An answer holds at most one file's bytes (a skill file may have up to 16 MiB), from the
/// moment its request is handled until its body is written or the connection closes, so this
/// bounds the memory that clients which do not read their answers can make the server hold.
pub const DEFAULT_MAX_ANSWERS: usize = 8;

/// The JSON-RPC error code of a request without a valid token.
pub const UNAUTHORIZED_CODE: i32 = -32001;

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
    /// answers come as server-sent events.
    Kept,
}

/// One tenant: a name (for logs), the server of its skills, and the digests of the tokens that
/// select it.
#[derive(Debug, Clone)]
pub struct Tenant {
    name: String,
    server: SkillServer,
    tokens: Vec<TokenDigest>,
    anonymous: bool,
}

impl Tenant {
    /// A tenant named `name` served by `server` (which must name skills by `skill://` URI), with
    /// no token yet.
    pub fn new(name: impl Into<String>, server: SkillServer) -> Self {
        Tenant {
            name: name.into(),
            server,
            tokens: Vec::new(),
            anonymous: false,
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
    request_timeout: Option<Duration>,
    max_answers: usize,
}

impl Default for EndpointBuilder {
    fn default() -> Self {
        EndpointBuilder {
            tenants: Vec::new(),
            allowed_hosts: DEFAULT_ALLOWED_HOSTS.map(str::to_owned).to_vec(),
            allowed_origins: Vec::new(),
            sessions: Sessions::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            request_timeout: Some(DEFAULT_REQUEST_TIMEOUT),
            max_answers: DEFAULT_MAX_ANSWERS,
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

    /// The largest request body accepted; a larger one is HTTP 413. Default
    /// [`DEFAULT_MAX_BODY_BYTES`].
    pub fn max_body_bytes(&mut self, bytes: usize) -> &mut Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How many `POST` answers may be in flight at once, from handling the request to the
    /// last byte of the answer written; further requests wait (within their timeout). Default
    /// [`DEFAULT_MAX_ANSWERS`]; `0` counts as 1.
    pub fn max_answers(&mut self, answers: usize) -> &mut Self {
        self.max_answers = answers.max(1);
        self
    }

    /// How long a request may take before it is answered with HTTP 503, or `None` for no
    /// limit. Default [`DEFAULT_REQUEST_TIMEOUT`]. It also bounds the writing of a `POST`
    /// answer: one not written by then is cut off and its connection closed. (With
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
            .with_max_request_body_bytes(self.max_body_bytes)
            .with_cancellation_token(cancellation.clone())
            // Checked by the endpoint before authentication; rmcp's own check would repeat it
            // with slightly different rules.
            .disable_allowed_hosts()
            .disable_allowed_origins();
        let tenants = self
            .tenants
            .iter()
            .map(|tenant| {
                let server = match self.sessions {
                    Sessions::Kept => tenant.server.clone(),
                    Sessions::Stateless => tenant.server.without_notifications(),
                };
                TenantService {
                    name: tenant.name.clone(),
                    tokens: tenant.tokens.clone(),
                    service: StreamableHttpService::new(
                        move || Ok(server.clone()),
                        Arc::new(LocalSessionManager::default()),
                        config.clone(),
                    ),
                }
            })
            .collect();
        Ok(Endpoint {
            inner: Arc::new(EndpointInner {
                guard,
                tenants,
                anonymous: self.tenants.iter().position(|tenant| tenant.anonymous),
                request_timeout: self.request_timeout,
                answers: Arc::new(tokio::sync::Semaphore::new(self.max_answers)),
                cancellation,
                draining: CancellationToken::new(),
            }),
        })
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
    tenants: Vec<TenantService>,
    anonymous: Option<usize>,
    request_timeout: Option<Duration>,
    /// Permits for answers in flight (POST), each held until its body is written or dropped.
    answers: Arc<tokio::sync::Semaphore>,
    cancellation: CancellationToken,
    /// Cancelled when the server starts shutting down: event streams end then.
    draining: CancellationToken,
}

struct TenantService {
    name: String,
    tokens: Vec<TokenDigest>,
    service: StreamableHttpService<SkillServer, LocalSessionManager>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Endpoint")
            .field("tenants", &self.tenants().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// A builder with the defaults.
    #[must_use]
    pub fn builder() -> EndpointBuilder {
        EndpointBuilder::new()
    }

    /// The tenants' names, in the order they were added.
    pub fn tenants(&self) -> impl Iterator<Item = &str> {
        self.inner.tenants.iter().map(|tenant| tenant.name.as_str())
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
        let method = request.method().clone();
        if let Err(refusal) = self.inner.guard.check(request.uri(), request.headers()) {
            tracing::info!(%method, "refused: {}", refusal.message());
            let status = match refusal {
                Refusal::NoHost => StatusCode::BAD_REQUEST,
                Refusal::Host | Refusal::Origin => StatusCode::FORBIDDEN,
            };
            drain(request.into_body()).await;
            return closing(json_rpc_error(status, -32600, refusal.message()));
        }
        let Some(tenant) = self.tenant_of(request.headers()) else {
            tracing::info!(%method, "refused: no valid bearer token");
            drain(request.into_body()).await;
            return closing(unauthorized());
        };
        // A POST answer holds its bytes until written: only so many at once, each for a bounded
        // time. GET opens a long-lived event stream (sessions), which holds no file.
        let bounded = method == Method::POST;
        let answers = Arc::clone(&self.inner.answers);
        let draining = self.inner.draining.clone();
        let deadline = self.inner.request_timeout.map(|limit| started + limit);
        let answer = async move {
            let permit = if bounded {
                answers.acquire_owned().await.ok()
            } else {
                None
            };
            let response = tenant.service.handle(request).await;
            match permit {
                // Held until written, and cut off (its connection closed) at the deadline, so a
                // client that does not read its answer cannot keep the bytes in memory.
                Some(permit) => response.map(|body| {
                    let until: CutOffAt = match deadline {
                        Some(at) => Box::pin(tokio::time::sleep_until(at.into())),
                        None => Box::pin(std::future::pending()),
                    };
                    CutOff::body(body, Some(permit), until, Some(NOT_WRITTEN_IN_TIME))
                }),
                // An event stream stays open for notifications until the server stops
                // accepting connections (the client reconnects, to another replica if need be).
                None if is_event_stream(&response) => response.map(|body| {
                    CutOff::body(body, None, Box::pin(draining.cancelled_owned()), None)
                }),
                None => response,
            }
        };
        let response = match self.inner.request_timeout {
            Some(limit) => match tokio::time::timeout(limit, answer).await {
                Ok(response) => response,
                Err(_) => {
                    tracing::warn!(tenant = %tenant.name, "a request took longer than {limit:?}");
                    return json_rpc_error(
                        StatusCode::SERVICE_UNAVAILABLE,
                        -32603,
                        "the request took too long and was stopped; try again",
                    );
                }
            },
            None => answer.await,
        };
        tracing::debug!(
            tenant = %tenant.name,
            %method,
            status = response.status().as_u16(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "answered"
        );
        response
    }

    /// The one tenant the request's token selects (or the anonymous tenant, without a token).
    fn tenant_of(&self, headers: &HeaderMap) -> Option<&TenantService> {
        let tenants = &self.inner.tenants;
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return match headers.contains_key(header::AUTHORIZATION) {
                // Two Authorization headers: refused.
                true => None,
                false => self.inner.anonymous.and_then(|at| tenants.get(at)),
            };
        };
        let token = value.to_str().ok().and_then(bearer_token)?;
        let found = token::find(token, tenants.iter().map(|tenant| tenant.tokens.as_slice()))?;
        tenants.get(found)
    }
}

/// The token of an `Authorization: Bearer <token>` value (the scheme in any case).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
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

    /// Answers one request.
    pub async fn handle<B>(&self, request: Request<B>) -> HttpResponse
    where
        B: Body + Send + 'static,
        B::Data: Send + 'static,
        B::Error: Display,
    {
        let probe = matches!(*request.method(), Method::GET | Method::HEAD);
        match request.uri().path() {
            MCP_PATH => self.endpoint.handle(request).await,
            "/healthz" if probe => status_response(StatusCode::OK, "ok"),
            "/readyz" if probe && self.draining.load(Ordering::Relaxed) => {
                status_response(StatusCode::SERVICE_UNAVAILABLE, "draining")
            }
            "/readyz" if probe => status_response(StatusCode::OK, "ready"),
            "/healthz" | "/readyz" => {
                let mut response = status_response(StatusCode::METHOD_NOT_ALLOWED, "use GET");
                response
                    .headers_mut()
                    .insert(header::ALLOW, http::HeaderValue::from_static("GET, HEAD"));
                response
            }
            _ => status_response(StatusCode::NOT_FOUND, "not found; MCP is served at /mcp"),
        }
    }
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

/// When a [`CutOff`] answer ends early.
type CutOffAt = Pin<Box<dyn Future<Output = ()> + Send + Sync>>;

/// What is logged when a `POST` answer is cut off.
const NOT_WRITTEN_IN_TIME: &str = "an answer was not written in time and is cut off";

/// An answer's body that ends early (and its connection is closed) once `until` completes,
/// holding its permit, if any, until it is written or dropped.
struct CutOff {
    inner: BoxBody<Bytes, Infallible>,
    _permit: Option<tokio::sync::OwnedSemaphorePermit>,
    until: CutOffAt,
    /// Logged when the answer is cut off.
    warning: Option<&'static str>,
}

impl CutOff {
    fn body(
        inner: BoxBody<Bytes, Infallible>,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
        until: CutOffAt,
        warning: Option<&'static str>,
    ) -> BoxBody<Bytes, Infallible> {
        BoxBody::new(CutOff {
            inner,
            _permit: permit,
            until,
            warning,
        })
    }
}

impl Body for CutOff {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        if self.until.as_mut().poll(context).is_ready() {
            if let Some(warning) = self.warning {
                tracing::warn!("{warning}");
            }
            return Poll::Ready(None);
        }
        Pin::new(&mut self.inner).poll_frame(context)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::bearer_token;

    #[test]
    fn bearer_tokens_are_read_in_any_case_and_spacing() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer   abc  "), Some("abc"));
        assert_eq!(bearer_token("BEARER abc"), Some("abc"));
        for value in ["Bearer", "Bearer ", "Basic abc", "abc", ""] {
            assert_eq!(bearer_token(value), None, "{value}");
        }
    }
}
