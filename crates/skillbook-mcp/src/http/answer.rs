//! An answer's body on its way to the client: cut into frames of at most [`FRAME`] bytes,
//! holding the answer's share of the byte budget until its last byte has left for the socket,
//! cut off at a deadline, and logged (one access-log line) when it ends.

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::combinators::BoxBody;
use tokio_util::sync::DropGuard;

use super::listen::Busy;
use super::metrics::TenantMetrics;
use crate::budget::{AnswerHold, Taken};

/// The most bytes handed to the connection at once: an answer is written in frames this
/// large, so the connection buffers little of it.
pub(crate) const FRAME: usize = 64 * 1024;

/// When an answer ends early.
pub(crate) type CutOffAt = Pin<Box<dyn Future<Output = ()> + Send + Sync>>;

/// The most characters of a request's JSON-RPC method an access-log line shows.
pub(crate) const MOST_LOGGED: usize = 64;

/// What is logged of a request, when its answer ends.
#[derive(Debug)]
pub(crate) struct Record {
    /// The tenant's name; empty until the token selects one.
    pub(crate) tenant: String,
    pub(crate) metrics: Option<Arc<TenantMetrics>>,
    /// The HTTP method.
    pub(crate) method: http::Method,
    /// The JSON-RPC method, when the body named one (at most [`MOST_LOGGED`] characters of
    /// it).
    pub(crate) call: Option<String>,
    pub(crate) status: u16,
    pub(crate) started: Instant,
    pub(crate) bytes: u64,
    /// Whether the answer was cut off before its end.
    pub(crate) cut_off: bool,
}

impl Record {
    /// The record of a request with `method`, arriving now.
    pub(crate) fn new(method: http::Method) -> Self {
        Record {
            tenant: String::new(),
            metrics: None,
            method,
            call: None,
            status: 0,
            started: Instant::now(),
            bytes: 0,
            cut_off: false,
        }
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if let Some(metrics) = &self.metrics {
            metrics.sent(self.bytes);
        }
        let tenant = match self.tenant.as_str() {
            "" => Cow::Borrowed("-"),
            name => super::escaped(name),
        };
        // Quoted, so that no method can pose as another field of the line.
        let call = self.call.as_deref().unwrap_or("-");
        tracing::info!(
            target: "skillbook::access",
            tenant = %tenant,
            method = %self.method,
            call = ?call,
            status = self.status,
            bytes = self.bytes,
            ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            cut_off = self.cut_off,
            "request"
        );
    }
}

/// What an answer holds until it ends, besides its bytes' shares.
pub(crate) struct Held {
    /// Where the handler left the answer's share of the byte budget.
    pub(crate) hold: Option<Arc<AnswerHold>>,
    /// The answer slot of an answer that is a stream, or the share of a `GET` event stream:
    /// held until the stream ends.
    pub(crate) _share: Option<Taken>,
    /// Marks the connection busy until the answer ends.
    pub(crate) busy: Option<Busy>,
    /// Stops the watch on the answer's deadline once every byte of it is written.
    pub(crate) watch: Option<DropGuard>,
    /// Logged when the answer ends.
    pub(crate) record: Option<Record>,
}

/// What the answer's frames hold until the last of them is dropped (written to the socket or
/// thrown away): the shares the handler left, and the watch on the deadline.
struct Carry {
    kept: Mutex<Vec<Taken>>,
    _watch: Option<DropGuard>,
}

/// An answer's body: see the [module docs](self).
pub(crate) struct Answer {
    inner: BoxBody<Bytes, Infallible>,
    /// What is left of the frame being handed out.
    rest: Bytes,
    held: Held,
    /// Shared by every frame handed out.
    carry: Arc<Carry>,
    until: CutOffAt,
    /// Logged when the answer is cut off.
    warning: Option<&'static str>,
}

impl Answer {
    pub(crate) fn body(
        inner: BoxBody<Bytes, Infallible>,
        mut held: Held,
        until: CutOffAt,
        warning: Option<&'static str>,
    ) -> BoxBody<Bytes, Infallible> {
        let carry = Arc::new(Carry {
            kept: Mutex::new(Vec::new()),
            _watch: held.watch.take(),
        });
        BoxBody::new(Answer {
            inner,
            rest: Bytes::new(),
            held,
            carry,
            until,
            warning,
        })
    }

    /// The next frame of at most [`FRAME`] bytes of `rest`.
    fn next_frame(&mut self) -> Frame<Bytes> {
        let length = self.rest.len().min(FRAME);
        if let Some(record) = &mut self.held.record {
            record.bytes += length as u64;
        }
        Frame::data(self.rest.split_to(length))
    }

    /// `data` holding what the answer carries (and counted in flight) until every byte of it
    /// has been dropped, that is, written to the socket or thrown away. The shares the handler
    /// left join what every frame of the answer holds, whichever frame comes first (a keep-alive
    /// comment of an event stream, say).
    fn carry(&mut self, data: Bytes) -> Bytes {
        if let Some(hold) = &self.held.hold {
            let kept = hold.kept();
            if !kept.is_empty() {
                self.carry
                    .kept
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend(kept);
            }
        }
        let metrics = self
            .held
            .record
            .as_ref()
            .and_then(|record| record.metrics.clone());
        if let Some(metrics) = &metrics {
            metrics
                .answer_bytes_in_flight
                .fetch_add(data.len() as u64, Ordering::Relaxed);
        }
        Bytes::from_owner(Carried {
            data,
            _carry: Arc::clone(&self.carry),
            metrics,
        })
    }
}

/// An answer's bytes with what they hold.
struct Carried {
    data: Bytes,
    _carry: Arc<Carry>,
    metrics: Option<Arc<TenantMetrics>>,
}

impl AsRef<[u8]> for Carried {
    fn as_ref(&self) -> &[u8] {
        &self.data
    }
}

impl Drop for Carried {
    fn drop(&mut self) {
        if let Some(metrics) = &self.metrics {
            metrics
                .answer_bytes_in_flight
                .fetch_sub(self.data.len() as u64, Ordering::Relaxed);
        }
    }
}

impl Body for Answer {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.until.as_mut().poll(context).is_ready() {
            if let Some(warning) = self.warning {
                tracing::warn!("{warning}");
            }
            if let Some(record) = &mut self.held.record {
                record.cut_off = true;
            }
            self.rest = Bytes::new();
            return Poll::Ready(None);
        }
        if !self.rest.is_empty() {
            return Poll::Ready(Some(Ok(self.next_frame())));
        }
        match Pin::new(&mut self.inner).poll_frame(context) {
            Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) if data.is_empty() => {
                    // Nothing to hand out: ask again (the inner body registered no waker).
                    context.waker().wake_by_ref();
                    Poll::Pending
                }
                Ok(data) => {
                    self.rest = self.carry(data);
                    Poll::Ready(Some(Ok(self.next_frame())))
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        match inner.exact() {
            Some(exact) => SizeHint::with_exact(exact + rest),
            None => {
                let mut hint = SizeHint::new();
                hint.set_lower(inner.lower() + rest);
                if let Some(upper) = inner.upper() {
                    hint.set_upper(upper + rest);
                }
                hint
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use http_body_util::{BodyExt, Full};

    use super::*;
    use crate::budget::{Limit, Pool};

    #[tokio::test]
    async fn an_answer_is_cut_into_frames_and_holds_its_share_until_every_frame_is_dropped() {
        let total = Limit::new(1024);
        let hold = Arc::new(AnswerHold::new(Pool::new(Limit::new(512), total.clone())));
        hold.keep(hold.take(200 * 1024).await.unwrap());
        let metrics = Arc::new(TenantMetrics::default());
        let record = Record {
            tenant: "acme".to_owned(),
            metrics: Some(Arc::clone(&metrics)),
            method: http::Method::POST,
            call: None,
            status: 200,
            started: Instant::now(),
            bytes: 0,
            cut_off: false,
        };
        let body = Full::new(Bytes::from(vec![7_u8; 3 * FRAME + 5])).boxed();
        let mut answer = Answer::body(
            body,
            Held {
                hold: Some(hold),
                _share: None,
                busy: None,
                watch: None,
                record: Some(record),
            },
            Box::pin(std::future::pending()),
            None,
        );
        assert_eq!(answer.size_hint().exact(), Some(3 * FRAME as u64 + 5));
        let mut frames = Vec::new();
        while let Some(frame) = answer.frame().await {
            frames.push(frame.unwrap().into_data().unwrap());
        }
        let sizes: Vec<usize> = frames.iter().map(Bytes::len).collect();
        assert_eq!(sizes, [FRAME, FRAME, FRAME, 5]);
        drop(answer);
        // The frames not yet written still hold the share, and count as in flight.
        assert_eq!(total.in_use(), 200);
        assert_eq!(
            metrics.answer_bytes_in_flight.load(Ordering::Relaxed),
            3 * FRAME as u64 + 5
        );
        frames.truncate(1);
        assert_eq!(total.in_use(), 200, "one frame is still unwritten");
        drop(frames);
        assert_eq!(total.in_use(), 0);
        assert_eq!(metrics.answer_bytes_in_flight.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn shares_left_after_a_first_small_frame_are_held_by_every_frame_until_all_are_written() {
        let total = Limit::new(1024);
        let hold = Arc::new(AnswerHold::new(Pool::new(Limit::new(512), total.clone())));
        // An event stream: a keep-alive comment first, then (once the handler has left its
        // share) the answer.
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
        let frames = frames_of(receiver);
        let mut answer = Answer::body(
            BoxBody::new(frames),
            Held {
                hold: Some(Arc::clone(&hold)),
                _share: None,
                busy: None,
                watch: None,
                record: None,
            },
            Box::pin(std::future::pending()),
            None,
        );
        sender.send(Bytes::from_static(b": ping\n\n")).unwrap();
        let ping = answer.frame().await.unwrap().unwrap().into_data().unwrap();
        hold.keep(hold.take(100 * 1024).await.unwrap());
        sender.send(Bytes::from(vec![1_u8; 2 * FRAME])).unwrap();
        drop(sender);
        let mut data = Vec::new();
        while let Some(frame) = answer.frame().await {
            data.push(frame.unwrap().into_data().unwrap());
        }
        drop((ping, answer));
        assert_eq!(
            total.in_use(),
            100,
            "the answer's frames are not written yet"
        );
        drop(data);
        assert_eq!(total.in_use(), 0);
    }

    /// A body of the frames `receiver` gets, ending when its sender is dropped.
    fn frames_of(
        receiver: tokio::sync::mpsc::UnboundedReceiver<Bytes>,
    ) -> impl Body<Data = Bytes, Error = Infallible> + Send + Sync + 'static {
        struct Frames(tokio::sync::mpsc::UnboundedReceiver<Bytes>);
        impl Body for Frames {
            type Data = Bytes;
            type Error = Infallible;
            fn poll_frame(
                mut self: Pin<&mut Self>,
                context: &mut Context<'_>,
            ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
                self.0
                    .poll_recv(context)
                    .map(|bytes| bytes.map(|bytes| Ok(Frame::data(bytes))))
            }
        }
        Frames(receiver)
    }
}
