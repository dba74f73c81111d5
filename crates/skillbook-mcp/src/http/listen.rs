//! Running a [`Router`] on a TCP listener with hyper's HTTP/1.1 server, and stopping it
//! gracefully.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::Router;

/// How [`serve_http`] treats connections. Each setter documents its default.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    header_timeout: Duration,
    drain_delay: Duration,
    shutdown_grace: Duration,
    write_stall: Duration,
    max_connections: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_timeout: Duration::from_secs(10),
            drain_delay: Duration::ZERO,
            shutdown_grace: Duration::from_secs(10),
            write_stall: Duration::from_secs(30),
            max_connections: 1024,
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

    /// How long a write to a client may make no progress (the client does not read) before
    /// its connection is closed. Default 30 seconds.
    pub fn write_stall(&mut self, timeout: Duration) -> &mut Self {
        self.write_stall = timeout;
        self
    }

    /// How many connections are served at once; further ones wait to be accepted. Default
    /// 1024; `0` counts as 1.
    pub fn max_connections(&mut self, connections: usize) -> &mut Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long connections are still accepted after the shutdown signal, while `/readyz`
    /// already answers 503: time for a load balancer that polls readiness to stop sending
    /// requests before the port closes. Default zero.
    pub fn drain_delay(&mut self, delay: Duration) -> &mut Self {
        self.drain_delay = delay;
        self
    }

    /// How long requests in flight may take to finish after the shutdown signal; then open
    /// connections are closed. Default 10 seconds.
    pub fn shutdown_grace(&mut self, grace: Duration) -> &mut Self {
        self.shutdown_grace = grace;
        self
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then stops gracefully: `/readyz`
/// answers 503, new connections are still accepted for [`ServeOptions::drain_delay`] and then
/// no more, open event streams end, requests in flight finish (for at most
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
    // The shutdown signal, then the drain delay with `/readyz` at 503.
    let drained = router.clone();
    let drain_delay = options.drain_delay;
    let shutdown = async move {
        shutdown.await;
        drained.drain();
        tracing::info!("shutting down: /readyz answers 503");
        tokio::time::sleep(drain_delay).await;
    };
    tokio::pin!(shutdown);
    let connections = Arc::new(Semaphore::new(options.max_connections));
    loop {
        // A free connection slot first, so past the limit clients wait in the listen queue.
        let slot = tokio::select! {
            slot = Arc::clone(&connections).acquire_owned() => slot,
            () = &mut shutdown => break,
        };
        let Ok(slot) = slot else { break };
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
        let stream = StallGuard::new(stream, options.write_stall);
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%peer, "connection ended: {error}");
            }
            drop(slot);
        });
    }
    drop(listener);
    router.endpoint().drain();
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

/// A connection whose writes fail once they have made no progress for a while: a client that
/// stops reading its answer gets its connection closed, and the answer's bytes are freed.
struct StallGuard<T> {
    inner: T,
    limit: Duration,
    /// Set when a write is first refused, cleared when one goes through.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> StallGuard<T> {
    fn new(inner: T, limit: Duration) -> Self {
        StallGuard {
            inner,
            limit,
            stalled: None,
        }
    }

    /// What a write that returned `Pending` means: still `Pending`, or an error once the
    /// stall has lasted too long.
    fn pending<R>(&mut self, context: &mut Context<'_>) -> Poll<io::Result<R>> {
        let limit = self.limit;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        if stalled.as_mut().poll(context).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing for too long",
            )));
        }
        Poll::Pending
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallGuard<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(context, buffer)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallGuard<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(context, bytes) {
            Poll::Ready(result) => {
                self.stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.pending(context),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(context) {
            Poll::Ready(result) => {
                self.stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.pending(context),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(context)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(context, buffers) {
            Poll::Ready(result) => {
                self.stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.pending(context),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
