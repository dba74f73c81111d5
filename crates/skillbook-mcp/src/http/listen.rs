//! Running a [`Router`] on TCP listeners with hyper's HTTP/1.1 server: the main listener, with
//! a cap on connections at which the oldest idle connection makes room, and the admin listener
//! for probes and metrics; stopping gracefully.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::metrics::{Closed, Metrics};
use super::{HttpResponse, Router};

/// How [`serve_http`] treats connections. Each setter documents its default.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    header_timeout: Duration,
    first_byte_timeout: Duration,
    drain_delay: Duration,
    shutdown_grace: Duration,
    write_stall: Duration,
    max_connections: usize,
}

/// How many connections the main listener serves at once unless
/// [`ServeOptions::max_connections`] says otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// How long a new connection may take to send its first byte unless
/// [`ServeOptions::first_byte_timeout`] says otherwise.
pub const DEFAULT_FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(5);

/// How many connections the admin listener serves at once.
const ADMIN_CONNECTIONS: usize = 64;

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            header_timeout: Duration::from_secs(10),
            first_byte_timeout: DEFAULT_FIRST_BYTE_TIMEOUT,
            drain_delay: Duration::ZERO,
            shutdown_grace: Duration::from_secs(10),
            write_stall: Duration::from_secs(30),
            max_connections: DEFAULT_MAX_CONNECTIONS,
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

    /// How long a new connection may take to send its first byte before it is closed. Default
    /// [`DEFAULT_FIRST_BYTE_TIMEOUT`]; at least 1 millisecond.
    pub fn first_byte_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.first_byte_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long a write to a client may make no progress (the client does not read) before
    /// its connection is closed. Default 30 seconds.
    pub fn write_stall(&mut self, timeout: Duration) -> &mut Self {
        self.write_stall = timeout;
        self
    }

    /// How many connections are served at once. At the cap, the connection idle the longest —
    /// one with no request under way: it has sent nothing yet, or not a whole request, or it
    /// waits between requests — is closed to make room for a new one; when every connection
    /// has a request under way, new ones wait to be accepted. A connection accepted at the cap
    /// that has sent nothing yet waits apart for its first byte, up to 100 ms (as many as the
    /// cap may wait so; the one waiting the longest is closed for a newer one), so that a flood
    /// of idle connections cannot keep the clients queued behind it from being served: allow
    /// twice the cap in open descriptors. Default [`DEFAULT_MAX_CONNECTIONS`]; `0` counts as
    /// 1.
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
    // The shutdown signal, then the drain delay with `/readyz` at 503.
    let drained = router.clone();
    let drain_delay = options.drain_delay;
    let shutdown = async move {
        shutdown.await;
        drained.drain();
        tracing::info!("shutting down: /readyz answers 503");
        tokio::time::sleep(drain_delay).await;
    };
    let graceful = GracefulShutdown::new();
    let metrics = Arc::clone(router.endpoint().metrics());
    let handler = router.clone();
    accept(
        listener,
        options,
        Arc::new(Connections::new(options.max_connections, metrics)),
        &graceful,
        move |request| {
            let router = handler.clone();
            async move { router.handle(request).await }
        },
        shutdown,
    )
    .await;
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

/// Serves the admin paths of `router` — `/healthz`, `/readyz` and `/metrics` (see
/// [`Router::handle_admin`]) — on `listener` until `shutdown` completes: a listener of its own,
/// so that however the main listener is flooded, probes are answered. At most 64 connections
/// at once (at the cap the oldest idle one makes room), each closed when it sends nothing for
/// 5 seconds.
///
/// Call it inside a Tokio runtime with I/O and timers enabled.
///
/// # Errors
///
/// None so far, as [`serve_http`].
pub async fn serve_admin(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let mut options = ServeOptions::default();
    options
        .header_timeout(Duration::from_secs(5))
        .first_byte_timeout(Duration::from_secs(5))
        .write_stall(Duration::from_secs(5));
    let graceful = GracefulShutdown::new();
    // The admin listener's connections are not the main listener's: counted apart.
    let connections = Arc::new(Connections::new(
        ADMIN_CONNECTIONS,
        Arc::new(Metrics::default()),
    ));
    accept(
        listener,
        &options,
        connections,
        &graceful,
        move |request| {
            let router = router.clone();
            async move { router.handle_admin(request).await }
        },
        shutdown,
    )
    .await;
    Ok(())
}

/// Accepts connections on `listener` and serves each with `handle` until `shutdown`
/// completes, keeping to the connection cap.
async fn accept<F, A>(
    listener: TcpListener,
    options: &ServeOptions,
    connections: Arc<Connections>,
    graceful: &GracefulShutdown,
    handle: F,
    shutdown: impl Future<Output = ()>,
) where
    F: Fn(hyper::Request<Incoming>) -> A + Clone + Send + Sync + 'static,
    A: Future<Output = HttpResponse> + Send + 'static,
{
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout);
    let server = Arc::new(Connector {
        builder,
        handle,
        connections: Arc::clone(&connections),
        write_stall: options.write_stall,
        first_byte_timeout: options.first_byte_timeout,
    });
    let waiting = Arc::new(WaitingRoom::new(connections.max));
    tokio::pin!(shutdown);
    'serving: loop {
        // Room for one more connection: a free place, or an idle one that can be closed.
        if !connections
            .until(Connections::has_room, &mut shutdown)
            .await
        {
            break 'serving;
        }
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
        if connections.is_full() && !has_bytes(&stream) {
            // At the cap, a connection that has sent nothing yet waits a moment for its first
            // byte apart, so that the queue of connections behind it drains at once (a flood of
            // idle connections would keep the clients queued behind it waiting otherwise).
            waiting.admit(stream, peer, Arc::clone(&server), graceful.watcher());
            continue;
        }
        // Every connection may have turned busy while this one was accepted: it waits.
        if !connections
            .until(Connections::make_room, &mut shutdown)
            .await
        {
            break 'serving;
        }
        server.serve(stream, peer, graceful.watcher());
    }
    drop(listener);
}

/// How long a connection accepted at the cap may take to send its first byte before it is
/// closed (when no other connection has pushed it out of the waiting room before).
const WAITING_GRACE: Duration = Duration::from_millis(100);

/// Serves accepted connections with hyper and `handle`, in the connection table.
struct Connector<F> {
    builder: http1::Builder,
    handle: F,
    connections: Arc<Connections>,
    write_stall: Duration,
    first_byte_timeout: Duration,
}

impl<F, A> Connector<F>
where
    F: Fn(hyper::Request<Incoming>) -> A + Clone + Send + Sync + 'static,
    A: Future<Output = HttpResponse> + Send + 'static,
{
    /// Serves `stream` in a task of its own, in the table until it ends or is closed to make
    /// room.
    fn serve(&self, stream: TcpStream, peer: SocketAddr, watcher: Watcher) {
        let _ = stream.set_nodelay(true);
        let (activity, close) = self.connections.open();
        let stream = StallGuard::new(
            stream,
            self.write_stall,
            self.first_byte_timeout,
            Arc::clone(&self.connections.metrics),
        );
        let handle = self.handle.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(activity.clone());
            let answered = handle(request);
            async move { Ok::<_, Infallible>(answered.await) }
        });
        let connection =
            watcher.watch(self.builder.serve_connection(TokioIo::new(stream), service));
        let connections = Arc::clone(&self.connections);
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => if let Err(error) = ended {
                    tracing::debug!(%peer, "connection ended: {error}");
                },
                () = close.cancelled() => {
                    tracing::debug!(%peer, "an idle connection is closed to make room");
                }
            }
            connections.close(close.id);
        });
    }
}

/// Connections accepted at the cap that have sent nothing yet, each waiting a moment for its
/// first byte: with one, it takes the place of the connection idle the longest; without, or
/// when newer ones push it out (the room holds a few), it is closed.
struct WaitingRoom {
    /// The connections waiting, by arrival (the first waited the longest).
    waiting: Mutex<BTreeMap<u64, CancellationToken>>,
    next: std::sync::atomic::AtomicU64,
    most: usize,
}

impl WaitingRoom {
    fn new(most: usize) -> Self {
        WaitingRoom {
            waiting: Mutex::new(BTreeMap::new()),
            next: std::sync::atomic::AtomicU64::new(0),
            most,
        }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, CancellationToken>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets `stream` wait for its first byte, pushing out the connection waiting the longest
    /// when the room is full.
    fn admit<F, A>(
        self: &Arc<Self>,
        stream: TcpStream,
        peer: SocketAddr,
        server: Arc<Connector<F>>,
        watcher: Watcher,
    ) where
        F: Fn(hyper::Request<Incoming>) -> A + Clone + Send + Sync + 'static,
        A: Future<Output = HttpResponse> + Send + 'static,
    {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let pushed = CancellationToken::new();
        {
            let mut waiting = self.waiting();
            waiting.insert(id, pushed.clone());
            if waiting.len() > self.most
                && let Some((_, oldest)) = waiting.pop_first()
            {
                oldest.cancel();
            }
        }
        let room = Arc::clone(self);
        tokio::spawn(async move {
            let readable = tokio::select! {
                readable = stream.readable() => readable.is_ok(),
                () = tokio::time::sleep(WAITING_GRACE) => false,
                () = pushed.cancelled() => false,
            };
            room.waiting().remove(&id);
            if readable && has_bytes(&stream) && server.connections.make_room() {
                server.serve(stream, peer, watcher);
            } else {
                server
                    .connections
                    .metrics
                    .connection_closed(Closed::IdleAtCap);
            }
        });
    }
}

/// Whether `stream` has bytes waiting to be read (without waiting for any).
fn has_bytes(stream: &TcpStream) -> bool {
    let mut byte = [0_u8; 1];
    let mut buffer = ReadBuf::new(&mut byte);
    let mut context = Context::from_waker(std::task::Waker::noop());
    matches!(
        stream.poll_peek(&mut context, &mut buffer),
        Poll::Ready(Ok(read)) if read > 0
    )
}

/// The connections open now, and which of them have a request under way.
#[derive(Debug)]
pub(crate) struct Connections {
    table: Mutex<Table>,
    /// Woken when a connection ends or becomes idle.
    changed: Notify,
    max: usize,
    metrics: Arc<Metrics>,
}

#[derive(Debug, Default)]
struct Table {
    next: u64,
    open: HashMap<u64, Entry>,
    /// The connections with no request under way, by when they became idle: the first is the
    /// one closed to make room.
    idle: BTreeSet<(Instant, u64)>,
}

impl Table {
    fn remove(&mut self, id: u64) -> Option<Entry> {
        let entry = self.open.remove(&id)?;
        if entry.busy == 0 {
            self.idle.remove(&(entry.idle_since, id));
        }
        Some(entry)
    }

    /// One more request under way on `id`.
    fn begin(&mut self, id: u64) {
        if let Some(entry) = self.open.get_mut(&id) {
            if entry.busy == 0 {
                self.idle.remove(&(entry.idle_since, id));
            }
            entry.busy += 1;
        }
    }

    /// One request less under way on `id`: whether it is idle now.
    fn end(&mut self, id: u64) -> bool {
        let Some(entry) = self.open.get_mut(&id) else {
            return false;
        };
        entry.busy = entry.busy.saturating_sub(1);
        if entry.busy > 0 {
            return false;
        }
        entry.idle_since = Instant::now();
        self.idle.insert((entry.idle_since, id));
        true
    }
}

#[derive(Debug)]
struct Entry {
    /// Requests under way (a whole request received, its answer not yet written).
    busy: usize,
    /// Since when no request has been under way.
    idle_since: Instant,
    close: CancellationToken,
}

/// Closes one connection: the token its task waits on, and its place in the table.
struct Close {
    id: u64,
    token: CancellationToken,
}

impl Close {
    async fn cancelled(&self) {
        self.token.cancelled().await;
    }
}

impl Connections {
    fn new(max: usize, metrics: Arc<Metrics>) -> Self {
        Connections {
            table: Mutex::new(Table::default()),
            changed: Notify::new(),
            max,
            metrics,
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `ready` holds, asking again whenever a connection ends or turns idle: `false`
    /// when `shutdown` completes first.
    async fn until(
        &self,
        ready: impl Fn(&Self) -> bool,
        shutdown: &mut (impl Future<Output = ()> + Unpin),
    ) -> bool {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if ready(self) {
                return true;
            }
            tokio::select! {
                () = changed => {}
                () = &mut *shutdown => return false,
            }
        }
    }

    /// Whether a connection may be accepted now: there is room, or an idle one to close.
    fn has_room(&self) -> bool {
        let table = self.table();
        table.open.len() < self.max || !table.idle.is_empty()
    }

    /// Whether every place is taken.
    fn is_full(&self) -> bool {
        self.table().open.len() >= self.max
    }

    /// Makes room for a connection when every place is taken, closing the connection idle the
    /// longest; whether there is room now.
    fn make_room(&self) -> bool {
        let mut table = self.table();
        if table.open.len() < self.max {
            return true;
        }
        let oldest = table.idle.first().map(|(_, id)| *id);
        let Some(entry) = oldest.and_then(|id| table.remove(id)) else {
            return false;
        };
        entry.close.cancel();
        self.metrics.connection_closed(Closed::IdleAtCap);
        true
    }

    /// A new connection: its handle for requests, and what closes it.
    fn open(self: &Arc<Self>) -> (Activity, Close) {
        let mut table = self.table();
        table.next += 1;
        let id = table.next;
        let token = CancellationToken::new();
        let now = Instant::now();
        table.open.insert(
            id,
            Entry {
                busy: 0,
                idle_since: now,
                close: token.clone(),
            },
        );
        table.idle.insert((now, id));
        self.metrics.connection_opened();
        (
            Activity {
                id,
                connections: Arc::clone(self),
            },
            Close { id, token },
        )
    }

    /// The connection `id` ended.
    fn close(&self, id: u64) {
        self.table().remove(id);
        self.metrics.connection_ended();
        self.changed.notify_waiters();
    }
}

/// A connection, as its requests see it: the endpoint marks it [`Busy`] from a whole request
/// received until its answer is written, and only idle connections make room at the cap.
#[derive(Debug, Clone)]
pub(crate) struct Activity {
    id: u64,
    connections: Arc<Connections>,
}

impl Activity {
    /// Marks the connection busy until the returned guard is dropped.
    pub(crate) fn busy(&self) -> Busy {
        self.connections.table().begin(self.id);
        Busy(self.clone())
    }

    /// Closes the connection (its task drops it, and whatever its answer holds).
    pub(crate) fn close(&self) {
        if let Some(entry) = self.connections.table().open.get(&self.id) {
            entry.close.cancel();
        }
    }
}

/// A request under way on a connection; dropped when its answer is written.
#[derive(Debug)]
pub(crate) struct Busy(Activity);

impl Busy {
    /// The connection the request is under way on.
    pub(crate) fn connection(&self) -> &Activity {
        &self.0
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let connections = &self.0.connections;
        let idle = connections.table().end(self.0.id);
        if idle {
            connections.changed.notify_waiters();
        }
    }
}

/// A connection that is closed when it sends nothing for a while after opening, and whose
/// writes fail once they have made no progress for a while: a client that stops reading its
/// answer gets its connection closed, and the answer's bytes are freed.
struct StallGuard<T> {
    inner: T,
    limit: Duration,
    /// Set when a write is first refused, cleared when one goes through.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Until the first byte arrives: when the connection is closed if none does.
    first_byte: Option<Pin<Box<tokio::time::Sleep>>>,
    metrics: Arc<Metrics>,
}

impl<T> StallGuard<T> {
    fn new(inner: T, limit: Duration, first_byte: Duration, metrics: Arc<Metrics>) -> Self {
        StallGuard {
            inner,
            limit,
            stalled: None,
            first_byte: Some(Box::pin(tokio::time::sleep(first_byte))),
            metrics,
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
        let before = buffer.filled().len();
        let read = Pin::new(&mut self.inner).poll_read(context, buffer);
        match &read {
            Poll::Ready(Ok(())) if buffer.filled().len() > before => self.first_byte = None,
            Poll::Pending => {
                if let Some(first_byte) = self.first_byte.as_mut()
                    && first_byte.as_mut().poll(context).is_ready()
                {
                    self.first_byte = None;
                    self.metrics.connection_closed(Closed::FirstByte);
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client sent nothing in time",
                    )));
                }
            }
            Poll::Ready(_) => {}
        }
        read
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

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    #[tokio::test]
    async fn at_the_cap_the_connection_idle_the_longest_makes_room_and_busy_ones_never_do() {
        let connections = Arc::new(Connections::new(2, Arc::new(Metrics::default())));
        let (first, first_close) = connections.open();
        let (second, second_close) = connections.open();
        let first_busy = first.busy();
        assert!(connections.make_room(), "the second connection is idle");
        assert!(second_close.token.is_cancelled());
        assert!(!first_close.token.is_cancelled());
        let (_third, third_close) = connections.open();
        let third_busy = _third.busy();
        assert!(!connections.make_room(), "every connection is busy");
        drop(third_busy);
        assert!(connections.make_room());
        assert!(third_close.token.is_cancelled());
        assert!(!first_close.token.is_cancelled());
        drop((first_busy, second));
    }
}
