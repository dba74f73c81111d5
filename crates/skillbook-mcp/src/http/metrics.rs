//! Counters for operators, in Prometheus' text format (`/metrics` on the admin listener):
//! requests, refusals by reason, latency, bytes in flight, sessions and connections, per tenant
//! by the tenant's *name* (never a token).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The upper bounds of the latency histogram's buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Why a request was refused, as `/metrics` and the access log name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reason {
    /// The `Host` or `Origin` header is not allowed.
    Host,
    /// No valid token.
    Unauthorized,
    /// Over the tenant's request rate.
    Rate,
    /// A body over the limit.
    BodyTooLarge,
    /// A body not sent in time.
    BodyTimeout,
    /// A body that is not JSON.
    ParseError,
    /// No answer slot free in time, or the answer took too long.
    Busy,
    /// No session free.
    Sessions,
    /// No event stream free.
    Streams,
}

impl Reason {
    fn label(self) -> &'static str {
        match self {
            Reason::Host => "host",
            Reason::Unauthorized => "unauthorized",
            Reason::Rate => "rate",
            Reason::BodyTooLarge => "body_too_large",
            Reason::BodyTimeout => "body_timeout",
            Reason::ParseError => "parse_error",
            Reason::Busy => "busy",
            Reason::Sessions => "sessions",
            Reason::Streams => "streams",
        }
    }
}

/// Why the server closed a connection itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closed {
    /// It sent nothing within the first-byte timeout.
    FirstByte,
    /// It was the oldest without a request under way when the connection cap was reached.
    IdleAtCap,
}

/// Every counter of an endpoint; shared by its listeners.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    tenants: Mutex<BTreeMap<String, Arc<TenantMetrics>>>,
    refusals: Mutex<BTreeMap<(String, Reason), u64>>,
    connections_open: AtomicU64,
    connections_accepted: AtomicU64,
    closed_first_byte: AtomicU64,
    closed_idle_at_cap: AtomicU64,
}

/// One tenant's counters, kept by name across reloads.
#[derive(Debug, Default)]
pub(crate) struct TenantMetrics {
    requests: Mutex<BTreeMap<u16, u64>>,
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
    bytes_sent: AtomicU64,
    /// Bytes of answers handed to the connection and not yet to the socket.
    pub(crate) answer_bytes_in_flight: AtomicU64,
}

/// What `/metrics` shows of a tenant's shares now.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Shares {
    pub(crate) answers: u32,
    pub(crate) answer_kib: u32,
    pub(crate) body_kib: u32,
    pub(crate) sessions: u32,
    pub(crate) streams: u32,
}

impl TenantMetrics {
    /// A request answered with `status` after `elapsed` (to the head of the answer).
    pub(crate) fn answered(&self, status: u16, elapsed: Duration) {
        *self
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(status)
            .or_default() += 1;
        let seconds = elapsed.as_secs_f64();
        for (bucket, bound) in self.buckets.iter().zip(BUCKETS) {
            if seconds <= bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// `bytes` of an answer's body were handed to the connection.
    pub(crate) fn sent(&self, bytes: u64) {
        self.bytes_sent.fetch_add(bytes, Ordering::Relaxed);
    }
}

impl Metrics {
    /// The counters of the tenant named `name`, made on first use.
    pub(crate) fn tenant(&self, name: &str) -> Arc<TenantMetrics> {
        let mut tenants = self.tenants.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(tenants.entry(name.to_owned()).or_default())
    }

    /// A request refused for `reason`, of `tenant` when it is known.
    pub(crate) fn refused(&self, tenant: Option<&str>, reason: Reason) {
        let key = (tenant.unwrap_or_default().to_owned(), reason);
        *self
            .refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default() += 1;
    }

    pub(crate) fn connection_opened(&self) {
        self.connections_open.fetch_add(1, Ordering::Relaxed);
        self.connections_accepted.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn connection_ended(&self) {
        self.connections_open.fetch_sub(1, Ordering::Relaxed);
    }

    pub(crate) fn connection_closed(&self, why: Closed) {
        let counter = match why {
            Closed::FirstByte => &self.closed_first_byte,
            Closed::IdleAtCap => &self.closed_idle_at_cap,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The text of `/metrics`, with the current `shares` of each tenant served now.
    pub(crate) fn render(&self, shares: &[(String, Shares)]) -> String {
        let mut out = String::new();
        let tenants: Vec<(String, Arc<TenantMetrics>)> = self
            .tenants
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(name, metrics)| (name.clone(), Arc::clone(metrics)))
            .collect();
        header(
            &mut out,
            "skillbook_requests_total",
            "counter",
            "Requests answered by a tenant's service, by HTTP status.",
        );
        for (name, metrics) in &tenants {
            let requests = metrics
                .requests
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            for (status, count) in requests {
                let _ = writeln!(
                    out,
                    "skillbook_requests_total{{tenant=\"{}\",status=\"{status}\"}} {count}",
                    label(name)
                );
            }
        }
        header(
            &mut out,
            "skillbook_refusals_total",
            "counter",
            "Requests refused by the endpoint, by reason (tenant empty when not known).",
        );
        let refusals = self
            .refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for ((tenant, reason), count) in refusals {
            let _ = writeln!(
                out,
                "skillbook_refusals_total{{tenant=\"{}\",reason=\"{}\"}} {count}",
                label(&tenant),
                reason.label()
            );
        }
        header(
            &mut out,
            "skillbook_request_duration_seconds",
            "histogram",
            "Time from a request's arrival to the head of its answer.",
        );
        for (name, metrics) in &tenants {
            let name = label(name);
            for (bucket, bound) in metrics.buckets.iter().zip(BUCKETS) {
                let _ = writeln!(
                    out,
                    "skillbook_request_duration_seconds_bucket{{tenant=\"{name}\",le=\"{bound}\"}} {}",
                    bucket.load(Ordering::Relaxed)
                );
            }
            let count = metrics.count.load(Ordering::Relaxed);
            let sum = metrics.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
            let _ = writeln!(
                out,
                "skillbook_request_duration_seconds_bucket{{tenant=\"{name}\",le=\"+Inf\"}} {count}\n\
                 skillbook_request_duration_seconds_sum{{tenant=\"{name}\"}} {sum}\n\
                 skillbook_request_duration_seconds_count{{tenant=\"{name}\"}} {count}"
            );
        }
        header(
            &mut out,
            "skillbook_response_bytes_total",
            "counter",
            "Bytes of answers handed to the connections.",
        );
        for (name, metrics) in &tenants {
            let _ = writeln!(
                out,
                "skillbook_response_bytes_total{{tenant=\"{}\"}} {}",
                label(name),
                metrics.bytes_sent.load(Ordering::Relaxed)
            );
        }
        header(
            &mut out,
            "skillbook_answer_bytes_in_flight",
            "gauge",
            "Bytes of answers built and not yet handed to the socket.",
        );
        for (name, metrics) in &tenants {
            let _ = writeln!(
                out,
                "skillbook_answer_bytes_in_flight{{tenant=\"{}\"}} {}",
                label(name),
                metrics.answer_bytes_in_flight.load(Ordering::Relaxed)
            );
        }
        let gauges: [Gauge; 5] = [
            (
                "skillbook_answers_in_flight",
                "Answer slots held now.",
                |shares| u64::from(shares.answers),
            ),
            (
                "skillbook_answer_budget_bytes_held",
                "Bytes of the tenant's answer budget held now.",
                |shares| u64::from(shares.answer_kib) * 1024,
            ),
            (
                "skillbook_body_bytes_held",
                "Bytes of request bodies held now.",
                |shares| u64::from(shares.body_kib) * 1024,
            ),
            ("skillbook_sessions", "Sessions open now.", |shares| {
                u64::from(shares.sessions)
            }),
            ("skillbook_streams", "Event streams open now.", |shares| {
                u64::from(shares.streams)
            }),
        ];
        for (metric, help, value) in gauges {
            header(&mut out, metric, "gauge", help);
            for (name, shares) in shares {
                let _ = writeln!(
                    out,
                    "{metric}{{tenant=\"{}\"}} {}",
                    label(name),
                    value(shares)
                );
            }
        }
        header(
            &mut out,
            "skillbook_connections",
            "gauge",
            "Connections open now.",
        );
        let _ = writeln!(
            out,
            "skillbook_connections {}",
            self.connections_open.load(Ordering::Relaxed)
        );
        header(
            &mut out,
            "skillbook_connections_accepted_total",
            "counter",
            "Connections accepted.",
        );
        let _ = writeln!(
            out,
            "skillbook_connections_accepted_total {}",
            self.connections_accepted.load(Ordering::Relaxed)
        );
        header(
            &mut out,
            "skillbook_connections_closed_total",
            "counter",
            "Connections the server closed itself, by reason.",
        );
        let _ = writeln!(
            out,
            "skillbook_connections_closed_total{{reason=\"first_byte_timeout\"}} {}\n\
             skillbook_connections_closed_total{{reason=\"idle_at_cap\"}} {}",
            self.closed_first_byte.load(Ordering::Relaxed),
            self.closed_idle_at_cap.load(Ordering::Relaxed)
        );
        out
    }
}

/// A gauge of the tenants' shares: its name, its help, and its value.
type Gauge = (&'static str, &'static str, fn(&Shares) -> u64);

fn header(out: &mut String, metric: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {metric} {help}\n# TYPE {metric} {kind}");
}

/// A label value as the text format writes it: `\`, `"` and line feeds escaped.
fn label(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for character in value.chars() {
        match character {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            '\n' => escaped.push_str("\\n"),
            other => escaped.push(other),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_names_tenants_and_escapes_their_names() {
        let metrics = Metrics::default();
        metrics
            .tenant("a\"b\nc")
            .answered(200, Duration::from_millis(3));
        metrics.refused(None, Reason::Unauthorized);
        metrics.refused(Some("acme"), Reason::Rate);
        let text = metrics.render(&[(
            "acme".to_owned(),
            Shares {
                sessions: 2,
                ..Shares::default()
            },
        )]);
        assert!(
            text.contains("skillbook_requests_total{tenant=\"a\\\"b\\nc\",status=\"200\"} 1"),
            "{text}"
        );
        assert!(text.contains("skillbook_refusals_total{tenant=\"\",reason=\"unauthorized\"} 1"));
        assert!(text.contains("skillbook_refusals_total{tenant=\"acme\",reason=\"rate\"} 1"));
        assert!(text.contains("le=\"0.005\"} 1"));
        assert!(text.contains("le=\"0.0025\"} 0"));
        assert!(text.contains("skillbook_sessions{tenant=\"acme\"} 2"));
        // Every line is a comment or `name{labels} value`.
        for line in text.lines() {
            assert!(
                line.starts_with('#') || line.rsplit_once(' ').is_some(),
                "{line}"
            );
        }
    }
}
