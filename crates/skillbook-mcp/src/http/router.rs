//! The paths served: [`Router`] puts the endpoint at `/mcp` next to the probes; the admin
//! listener's paths add `/metrics`.

use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body::Body;
use http_body_util::{BodyExt, Full};

use super::responses::{method_not_allowed, status_response};
use super::{Endpoint, HttpResponse};

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
