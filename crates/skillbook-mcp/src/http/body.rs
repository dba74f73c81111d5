//! Reading a request's body before it takes an answer slot: bounded in size, in time, and in
//! the bytes all bodies of a tenant (and of the server) may hold at once.

use std::fmt::Display;

use bytes::{Buf, Bytes, BytesMut};
use http::HeaderMap;
use http_body::Body;
use http_body_util::BodyExt;
use tokio::time::Instant;

use crate::budget::{Pool, Taken, UNIT};

/// A body read whole, with the share of the body budget it holds until dropped.
#[derive(Debug)]
pub(crate) struct ReadBody {
    pub(crate) bytes: Bytes,
    /// Given back when the request has been answered.
    pub(crate) taken: Vec<Taken>,
}

/// Why a body could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// Longer than the limit (declared or sent).
    TooLarge,
    /// Not sent in time (or the body budget was not free in time).
    TimedOut,
    /// The `Content-Length` header is not a length.
    BadLength,
    /// The connection failed while reading.
    Failed(String),
}

/// The length a request declares, if any; an error when the header is not one number.
pub(crate) fn declared_length(headers: &HeaderMap) -> Result<Option<u64>, BodyError> {
    let mut values = headers.get_all(http::header::CONTENT_LENGTH).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let length = value
        .to_str()
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .ok_or(BodyError::BadLength)?;
    // Repeated headers must agree (hyper already refuses those that do not).
    if values.any(|other| other.to_str().ok().map(str::trim) != Some(&length.to_string())) {
        return Err(BodyError::BadLength);
    }
    Ok(Some(length))
}

/// Reads `body` whole, at most `max` bytes, by `deadline`, once it has taken its share of
/// `pool` (in KiB): its declared length, else `max` — in one take, so that bodies never wait
/// on shares they hold themselves (a take is at most the tenant's whole share).
pub(crate) async fn read<B>(
    body: B,
    declared: Option<u64>,
    max: usize,
    pool: &Pool,
    deadline: Instant,
) -> Result<ReadBody, BodyError>
where
    B: Body,
    B::Error: Display,
{
    let reading = async {
        let mut body = std::pin::pin!(body);
        let expected = declared.unwrap_or(max as u64).min(max as u64);
        // Waits while the tenant's bodies (or all bodies) hold the budget; the deadline bounds
        // the wait.
        let taken: Vec<Taken> = pool
            .take(expected.div_ceil(UNIT))
            .await
            .into_iter()
            .collect();
        let mut collected = BytesMut::with_capacity(usize::try_from(expected).unwrap_or(0));
        loop {
            // Converted at once: the body's error type need not be `Send`.
            let frame = match body.frame().await {
                None => break,
                Some(frame) => frame.map_err(|error| BodyError::Failed(error.to_string()))?,
            };
            let Ok(mut data) = frame.into_data() else {
                continue;
            };
            if data.remaining() > max.saturating_sub(collected.len()) {
                return Err(BodyError::TooLarge);
            }
            while data.has_remaining() {
                let chunk = data.chunk();
                let length = chunk.len();
                collected.extend_from_slice(chunk);
                data.advance(length);
            }
        }
        Ok(ReadBody {
            bytes: collected.freeze(),
            taken,
        })
    };
    match tokio::time::timeout_at(deadline, reading).await {
        Ok(read) => read,
        Err(_) => Err(BodyError::TimedOut),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use std::time::Duration;

    use http_body_util::{Full, StreamBody};

    use super::*;
    use crate::budget::Limit;

    fn pool(kib: u64) -> Pool {
        Pool::new(Limit::new(kib), Limit::new(kib * 2))
    }

    #[tokio::test]
    async fn a_body_is_read_whole_and_holds_its_share_until_dropped() {
        let pool = pool(8);
        let deadline = Instant::now() + Duration::from_secs(5);
        let read = read(
            Full::new(Bytes::from(vec![b'x'; 3000])),
            Some(3000),
            4096,
            &pool,
            deadline,
        )
        .await
        .unwrap();
        assert_eq!(read.bytes.len(), 3000);
        assert_eq!(pool.tenant().in_use(), 3);
        drop(read);
        assert_eq!(pool.tenant().in_use(), 0);
    }

    #[tokio::test]
    async fn too_long_or_too_slow_bodies_are_refused() {
        let pool = pool(8);
        let deadline = Instant::now() + Duration::from_secs(5);
        let long = read(
            Full::new(Bytes::from(vec![b'x'; 5000])),
            None,
            4096,
            &pool,
            deadline,
        )
        .await;
        assert_eq!(long.unwrap_err(), BodyError::TooLarge);
        // One frame, then nothing: the deadline ends the wait.
        let frames = one_byte_then_nothing();
        let deadline = Instant::now() + Duration::from_millis(50);
        let slow = read(frames, Some(100), 4096, &pool, deadline).await;
        assert_eq!(slow.unwrap_err(), BodyError::TimedOut);
        assert_eq!(
            pool.tenant().in_use(),
            0,
            "a refused body gives its share back"
        );
    }

    /// A body that sends one byte and then nothing.
    fn one_byte_then_nothing()
    -> StreamBody<impl futures_core::Stream<Item = Result<http_body::Frame<Bytes>, String>>> {
        struct OneThenNothing(bool);
        impl futures_core::Stream for OneThenNothing {
            type Item = Result<http_body::Frame<Bytes>, String>;
            fn poll_next(
                mut self: std::pin::Pin<&mut Self>,
                _context: &mut std::task::Context<'_>,
            ) -> std::task::Poll<Option<Self::Item>> {
                if self.0 {
                    std::task::Poll::Pending
                } else {
                    self.0 = true;
                    std::task::Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from_static(
                        b"{",
                    )))))
                }
            }
        }
        StreamBody::new(OneThenNothing(false))
    }

    #[test]
    fn declared_lengths_are_numbers() {
        let mut headers = HeaderMap::new();
        assert_eq!(declared_length(&headers), Ok(None));
        headers.insert(http::header::CONTENT_LENGTH, "12".parse().unwrap());
        assert_eq!(declared_length(&headers), Ok(Some(12)));
        headers.insert(http::header::CONTENT_LENGTH, "twelve".parse().unwrap());
        assert_eq!(declared_length(&headers), Err(BodyError::BadLength));
    }
}
