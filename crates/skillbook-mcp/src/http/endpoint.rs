//! The endpoint: its tenants as served now (swapped whole by [`Endpoint::reload`]), and the way
//! one request goes through it — admitted, prepared, answered, sent (see the
//! [module docs](super)).

use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode, header};
use http_body::Body;
use http_body_util::Full;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::answer::{Answer, CutOffAt, Held, MOST_LOGGED, Record};
use super::body::{self, BodyError};
use super::guard::{Guard, Refusal};
use super::limits::{RateLimiter, TenantLimits};
use super::listen::Activity;
use super::metrics::{Metrics, Reason, Shares, TenantMetrics};
use super::responses::{
    NOT_WRITTEN_IN_TIME, busy_error, closing, drain, is_event_stream, json_rpc_error, parse_error,
    session_not_found, too_many_requests, unauthorized,
};
use super::sessions::{CappedSessions, Opener, SessionBook};
use super::{
    EndpointBuilder, EndpointError, HttpResponse, SESSION_HEADER, Sessions, TokenDigest, escaped,
    token,
};
use crate::SkillServer;
use crate::budget::{AnswerHold, Limit, Pool, Taken, UNIT};

mod requests;

/// MCP over streamable HTTP for several tenants: see the [module docs](super) for what each
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
    streams: Limit,
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
    service: Arc<TenantService>,
    shares: Arc<TenantShares>,
    metrics: Arc<TenantMetrics>,
}

/// What one tenant may hold of each of the server's totals, and its request rate.
struct TenantShares {
    answers: Pool,
    answer_kib: Pool,
    body_kib: Pool,
    sessions: Pool,
    streams: Pool,
    rate: RateLimiter,
}

impl TenantShares {
    fn new(limits: &TenantLimits, totals: &Totals) -> Self {
        TenantShares {
            answers: Pool::new(Limit::new(0), totals.answers.clone()),
            answer_kib: Pool::new(Limit::new(0), totals.answer_kib.clone()),
            body_kib: Pool::new(Limit::new(0), totals.body_kib.clone()),
            sessions: Pool::new(Limit::new(0), totals.sessions.clone()),
            streams: Pool::new(Limit::new(0), totals.streams.clone()),
            rate: RateLimiter::new(None),
        }
        .resized(limits)
    }

    fn resized(self, limits: &TenantLimits) -> Self {
        self.resize(limits);
        self
    }

    /// Makes the shares `limits` from now on (what is held stays held).
    fn resize(&self, limits: &TenantLimits) {
        self.answers.tenant().resize(limits.max_answers as u64);
        self.answer_kib
            .tenant()
            .resize(limits.answer_bytes.div_ceil(UNIT));
        self.body_kib
            .tenant()
            .resize(limits.body_bytes.div_ceil(UNIT));
        self.sessions.tenant().resize(limits.max_sessions as u64);
        self.streams.tenant().resize(limits.max_streams as u64);
        self.rate.set(limits.rate);
    }
}

/// A tenant's MCP service and its sessions: kept across reloads while its server is the same.
struct TenantService {
    server: SkillServer,
    service: StreamableHttpService<SkillServer, CappedSessions>,
    manager: Arc<CappedSessions>,
    book: Arc<SessionBook>,
}

impl TenantService {
    /// Closes the sessions `ended` (their shares are already given back, and no request
    /// reaches them any more). Outside a Tokio runtime they are left to end when idle.
    fn close(&self, ended: Vec<Arc<str>>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if ended.is_empty() {
            return;
        }
        let manager = Arc::clone(&self.manager);
        runtime.spawn(async move {
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

/// A request whose tenant is known and admitted.
struct Admitted {
    tenant: Arc<TenantEntry>,
    opener: Opener,
    record: Record,
}

/// Why a request cannot use or open a session.
enum SessionRefusal {
    /// The session it names is not one its token opened (or no longer exists).
    NotFound,
    /// Its tenant (or the server) has every session it may have open.
    Full,
}

/// A request read whole, ready for the tenant's service.
struct Prepared {
    request: Request<Full<Bytes>>,
    /// The share of the body budget its body holds, until it is answered.
    body_share: Vec<Taken>,
    /// Whether the body was declared JSON.
    json_body: bool,
    /// The share of the sessions an `initialize` takes, booked if it opens one.
    session_share: Option<Taken>,
    held: Held,
    /// The connection it came on.
    activity: Option<Activity>,
    tenant: Arc<TenantEntry>,
    opener: Opener,
}

impl Endpoint {
    /// The endpoint `builder` describes, serving its tenants.
    pub(super) fn new(builder: &EndpointBuilder) -> Result<Self, EndpointError> {
        let guard = Guard::new(&builder.allowed_hosts, &builder.allowed_origins)?;
        builder.check_tenants()?;
        let cancellation = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(builder.sessions == Sessions::Kept)
            .with_json_response(builder.sessions == Sessions::Stateless)
            // The endpoint reads and bounds the body itself; rmcp gets it whole.
            .with_max_request_body_bytes(builder.max_body_bytes.max(1))
            .with_cancellation_token(cancellation.clone())
            // Checked by the endpoint before authentication; rmcp's own check would repeat it
            // with slightly different rules.
            .disable_allowed_hosts()
            .disable_allowed_origins();
        let inner = EndpointInner {
            guard,
            tenants: RwLock::new(Arc::new(TenantTable::default())),
            settings: Settings {
                sessions: builder.sessions,
                session_idle: builder.session_idle,
                max_body_bytes: builder.max_body_bytes,
                body_timeout: builder.body_timeout,
                request_timeout: builder.request_timeout,
                config,
            },
            totals: Totals {
                answers: Limit::new(builder.max_answers as u64),
                answer_kib: Limit::new(builder.answer_bytes.div_ceil(UNIT)),
                body_kib: Limit::new(builder.body_bytes.div_ceil(UNIT)),
                sessions: Limit::new(builder.max_sessions as u64),
                streams: Limit::new(builder.max_streams as u64),
            },
            metrics: Arc::new(Metrics::default()),
            cancellation,
            draining: CancellationToken::new(),
        };
        let endpoint = Endpoint {
            inner: Arc::new(inner),
        };
        endpoint.install(builder);
        Ok(endpoint)
    }

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
            // A tenant's shares are its name's: kept (and resized) across reloads, so that what
            // its requests and sessions hold still counts.
            let shares = match previous
                .tenants
                .iter()
                .find(|entry| entry.name == tenant.name)
            {
                Some(entry) => {
                    entry.shares.resize(&limits);
                    Arc::clone(&entry.shares)
                }
                None => Arc::new(TenantShares::new(&limits, &inner.totals)),
            };
            let entry = TenantEntry {
                name: tenant.name.clone(),
                tokens: tenant.tokens.clone(),
                service,
                shares,
                metrics: inner.metrics.tenant(&tenant.name),
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
                        answers: tenant.shares.answers.tenant().in_use(),
                        answer_kib: tenant.shares.answer_kib.tenant().in_use(),
                        body_kib: tenant.shares.body_kib.tenant().in_use(),
                        sessions: tenant.shares.sessions.tenant().in_use(),
                        streams: tenant.shares.streams.tenant().in_use(),
                    },
                )
            })
            .collect();
        self.inner.metrics.render(&shares)
    }

    /// Ends the event streams clients hold open (`GET`, with [`Sessions::Kept`]), now and
    /// as soon as they open from now on, so they do not hold a shutdown for its whole grace
    /// period; requests in flight go on. [`serve_http`](super::serve_http) calls it when it stops accepting
    /// connections.
    pub fn drain(&self) {
        self.inner.draining.cancel();
    }

    /// Ends every open MCP stream and session; requests that arrive afterwards fail. Call it
    /// once requests in flight have finished ([`serve_http`](super::serve_http) does).
    pub fn close(&self) {
        self.inner.cancellation.cancel();
    }
}

/// Closes `connection` at `at` unless the returned guard is dropped first (when the last byte
/// of the answer has been written).
fn watch(connection: Activity, at: Instant) -> tokio_util::sync::DropGuard {
    let written = CancellationToken::new();
    let guard = written.clone().drop_guard();
    tokio::spawn(async move {
        tokio::select! {
            () = tokio::time::sleep_until(at.into()) => {
                tracing::warn!("{NOT_WRITTEN_IN_TIME}");
                connection.close();
            }
            () = written.cancelled() => {}
        }
    });
    guard
}

impl TenantTable {
    /// The one tenant the request's token selects (or the anonymous tenant, without a token),
    /// and who the request comes from.
    fn select(&self, headers: &HeaderMap) -> Option<(Arc<TenantEntry>, Opener)> {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return match headers.contains_key(header::AUTHORIZATION) {
                // Two Authorization headers: refused.
                true => None,
                false => self
                    .anonymous
                    .and_then(|at| self.tenants.get(at))
                    .map(|tenant| (Arc::clone(tenant), None)),
            };
        };
        let token = value.to_str().ok().and_then(bearer_token)?;
        let hashed = TokenDigest::of(token);
        let found = token::find(
            &hashed,
            self.tenants.iter().map(|tenant| tenant.tokens.as_slice()),
        )?;
        self.tenants
            .get(found)
            .map(|tenant| (Arc::clone(tenant), Some(hashed)))
    }
}

/// The token of an `Authorization: Bearer <token>` value (the scheme in any case).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
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
