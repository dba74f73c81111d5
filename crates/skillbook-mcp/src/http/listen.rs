//! Running a [`Router`] on a TCP listener with hyper's HTTP/1.1 server, and stopping it
//! gracefully.

use std::future::Future;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use super::Router;

/// How [`serve_http`] treats connections. Each setter documents its default.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    header_timeout: Duration,
    shutdown_grace: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

impl ServeOptions {
    /// How long a client may take to send a request's headers (also how long an idle
    /// connection is kept). Default 10 seconds.
    pub fn header_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.header_timeout = timeout;
        self
    }

    /// How long requests in flight may take to finish after the shutdown signal; then open
    /// connections are closed. Default 10 seconds.
    pub fn shutdown_grace(&mut self, grace: Duration) -> &mut Self {
        self.shutdown_grace = grace;
        self
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then stops gracefully: no new
/// connection is accepted and `/readyz` answers 503, requests in flight finish (for at most
/// [`ServeOptions::shutdown_grace`]), idle connections are closed, and finally every MCP stream
/// still open is ended.
///
/// Call it inside a Tokio runtime with I/O and timers enabled.
///
/// # Errors
///
/// None so far: a failed `accept` (for example out of descriptors) is logged and retried after
/// a pause; a connection that fails is logged and dropped.
pub async fn serve_http(
    listener: TcpListener,
    router: Router,
    options: &ServeOptions,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!("cannot accept a connection: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%peer, "connection ended: {error}");
            }
        });
    }
    drop(listener);
    router.drain();
    tracing::info!("shutting down: finishing the requests in flight");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(options.shutdown_grace) => {
            tracing::warn!(
                "requests still running after {:?} are stopped",
                options.shutdown_grace
            );
        }
    }
    router.endpoint().close();
    Ok(())
}
