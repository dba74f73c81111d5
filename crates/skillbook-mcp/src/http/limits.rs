//! What the server as a whole, and each tenant, may hold at once, and how fast a tenant may ask.
//!
//! Every shared resource has a total ([`EndpointBuilder`](super::EndpointBuilder)) and a share
//! per tenant ([`TenantLimits`]); a request takes from its tenant's share first, then from the
//! total. By default each tenant's share is half of each total, so no single tenant can hold
//! more than half of anything the others need.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How many answers may be worked on or written at once, in all, unless
/// [`EndpointBuilder::max_answers`](super::EndpointBuilder::max_answers) says otherwise.
pub const DEFAULT_MAX_ANSWERS: usize = 8;

/// How many bytes of answers may be in flight at once, in all (built and not yet handed to the
/// socket), unless [`EndpointBuilder::answer_bytes`](super::EndpointBuilder::answer_bytes)
/// says otherwise: 64 MiB.
pub const DEFAULT_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

/// How many bytes of request bodies may be held at once, in all (being read, or read and
/// waiting for their answer), unless
/// [`EndpointBuilder::body_bytes`](super::EndpointBuilder::body_bytes) says otherwise: 16 MiB.
pub const DEFAULT_BODY_BYTES: u64 = 16 * 1024 * 1024;

/// How many MCP sessions may be open at once, in all, unless
/// [`EndpointBuilder::max_sessions`](super::EndpointBuilder::max_sessions) says otherwise.
pub const DEFAULT_MAX_SESSIONS: usize = 1024;

/// How many event streams (`GET`, with sessions) may be open at once, in all, unless
/// [`EndpointBuilder::max_streams`](super::EndpointBuilder::max_streams) says otherwise: a
/// quarter of the default connection cap, so that streams never hold every connection.
pub const DEFAULT_MAX_STREAMS: usize = 256;

/// How long a session may go without a request before it is closed, unless
/// [`EndpointBuilder::session_idle`](super::EndpointBuilder::session_idle) says otherwise.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(60);

/// How long a client may take to send a request's body, unless
/// [`EndpointBuilder::body_timeout`](super::EndpointBuilder::body_timeout) says otherwise.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The request rate of a tenant unless its [`TenantLimits::rate`] says otherwise: 500 requests
/// a second, in bursts of up to 1,000 — far more than agents ask of a skill server, so that
/// only a runaway or hostile client meets it.
pub const DEFAULT_RATE: Rate = Rate {
    per_second: 500.0,
    burst: 1000,
};

/// A request rate: a token bucket that holds up to `burst` requests and refills at
/// `per_second`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Requests a second, sustained.
    pub per_second: f64,
    /// Requests that may arrive at once after a quiet spell.
    pub burst: u32,
}

impl Rate {
    /// `per_second` requests a second in bursts of up to `burst` (both at least a little above
    /// zero: `per_second` at least 0.001, `burst` at least 1).
    #[must_use]
    pub fn new(per_second: f64, burst: u32) -> Self {
        Rate {
            per_second: if per_second.is_finite() {
                per_second.max(0.001)
            } else {
                f64::MAX
            },
            burst: burst.max(1),
        }
    }
}

/// What one tenant may hold of the server's shared resources at once, and how fast it may ask.
/// Each share counts against the server's total too.
///
/// [`TenantLimits::half_of`] gives the default: half of every total (rounded up, at least
/// one) and [`DEFAULT_RATE`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TenantLimits {
    /// Answers worked on or written at once; further requests wait (within their timeout).
    pub max_answers: usize,
    /// Bytes of answers in flight, from reading a file until the last byte is handed to the
    /// socket; further reads wait. An answer larger than this takes all of it.
    pub answer_bytes: u64,
    /// Bytes of request bodies held at once; further bodies wait (within the body timeout).
    pub body_bytes: u64,
    /// Sessions open at once (with [`Sessions::Kept`](super::Sessions::Kept)); beyond it a new
    /// session is refused with HTTP 503.
    pub max_sessions: usize,
    /// Event streams (`GET`, with sessions) open at once; beyond it a new one is refused with
    /// HTTP 503.
    pub max_streams: usize,
    /// Requests a second, or `None` for no limit; beyond it requests are refused with HTTP 429
    /// and `Retry-After`.
    pub rate: Option<Rate>,
}

impl TenantLimits {
    /// Half of each of the totals of `endpoint` (rounded up, at least one) and
    /// [`DEFAULT_RATE`].
    #[must_use]
    pub fn half_of(endpoint: &super::EndpointBuilder) -> Self {
        TenantLimits {
            max_answers: endpoint.max_answers.div_ceil(2).max(1),
            answer_bytes: endpoint.answer_bytes.div_ceil(2).max(1),
            body_bytes: endpoint.body_bytes.div_ceil(2).max(1),
            max_sessions: endpoint.max_sessions.div_ceil(2).max(1),
            max_streams: endpoint.max_streams.div_ceil(2).max(1),
            rate: Some(DEFAULT_RATE),
        }
    }
}

/// A token bucket: how many requests a tenant may still send now.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    rate: Option<Rate>,
    tokens: f64,
    updated: Instant,
}

impl RateLimiter {
    pub(crate) fn new(rate: Option<Rate>) -> Self {
        RateLimiter {
            bucket: Mutex::new(Bucket {
                rate,
                tokens: rate.map_or(0.0, |rate| f64::from(rate.burst)),
                updated: Instant::now(),
            }),
        }
    }

    /// Makes the rate `rate` from now on; the requests the bucket holds stay (up to the new
    /// burst).
    pub(crate) fn set(&self, rate: Option<Rate>) {
        let mut bucket = self.bucket.lock().unwrap_or_else(PoisonError::into_inner);
        if bucket.rate != rate {
            bucket.tokens = match (bucket.rate, rate) {
                (Some(_), Some(rate)) => bucket.tokens.min(f64::from(rate.burst)),
                (_, rate) => rate.map_or(0.0, |rate| f64::from(rate.burst)),
            };
            bucket.rate = rate;
        }
    }

    /// Takes one request from the bucket, or says how long until one is there.
    pub(crate) fn take(&self) -> Result<(), Duration> {
        let mut bucket = self.bucket.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(rate) = bucket.rate else {
            return Ok(());
        };
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate.per_second).min(f64::from(rate.burst));
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = (1.0 - bucket.tokens) / rate.per_second;
        Err(Duration::try_from_secs_f64(wait).unwrap_or(Duration::MAX))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_lets_a_burst_through_then_says_when_to_come_back() {
        let limiter = RateLimiter::new(Some(Rate::new(1.0, 3)));
        for _ in 0..3 {
            assert_eq!(limiter.take(), Ok(()));
        }
        let wait = limiter.take().unwrap_err();
        assert!(
            wait > Duration::from_millis(900) && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        assert_eq!(RateLimiter::new(None).take(), Ok(()));
    }

    #[test]
    fn the_default_share_is_half_of_each_total() {
        let mut endpoint = super::super::EndpointBuilder::new();
        endpoint.max_answers(7).max_sessions(1);
        let limits = TenantLimits::half_of(&endpoint);
        assert_eq!(limits.max_answers, 4);
        assert_eq!(limits.max_sessions, 1);
        assert_eq!(limits.answer_bytes, DEFAULT_ANSWER_BYTES / 2);
        assert_eq!(limits.body_bytes, DEFAULT_BODY_BYTES / 2);
        assert_eq!(limits.rate, Some(DEFAULT_RATE));
    }
}
