//! The answers the endpoint gives itself: refusals, probes, JSON-RPC errors.

use std::time::Duration;

use bytes::Bytes;
use http::{Response, StatusCode, header};
use http_body::Body;
use http_body_util::{BodyExt, Full};
use serde_json::json;

use super::{HttpResponse, PARSE_ERROR_CODE, UNAUTHORIZED_CODE};

/// `{"status": status}` with an HTTP status.
pub(super) fn status_response(code: StatusCode, status: &str) -> HttpResponse {
    json_response(code, &json!({ "status": status }))
}

/// A JSON-RPC error without a request id (the body was not parsed).
pub(super) fn json_rpc_error(status: StatusCode, code: i32, message: &str) -> HttpResponse {
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
pub(super) async fn drain<B: Body>(body: B) {
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
pub(super) fn closing(mut response: HttpResponse) -> HttpResponse {
    response
        .headers_mut()
        .insert(header::CONNECTION, http::HeaderValue::from_static("close"));
    response
}

/// The answer to a request without a valid token: the same whatever tenants exist.
pub(super) fn unauthorized() -> HttpResponse {
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

pub(super) fn json_response(status: StatusCode, value: &serde_json::Value) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// Whether `response` is a stream of server-sent events.
pub(super) fn is_event_stream(response: &HttpResponse) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"))
}

/// What is logged when a `POST` answer is cut off.
pub(super) const NOT_WRITTEN_IN_TIME: &str = "an answer was not written in time and is cut off";

/// The answer to a body that is not JSON.
pub(super) fn parse_error() -> HttpResponse {
    json_rpc_error(
        StatusCode::BAD_REQUEST,
        PARSE_ERROR_CODE,
        "parse error: the request body is not JSON",
    )
}

/// The answer to a request over its tenant's rate: when to try again, in whole seconds.
pub(super) fn too_many_requests(wait: Duration) -> HttpResponse {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = json_rpc_error(
        StatusCode::TOO_MANY_REQUESTS,
        -32000,
        "too many requests; try again after the time in Retry-After",
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, http::HeaderValue::from(seconds.max(1)));
    response
}

/// HTTP 503 with `message`, to try again in a second.
pub(super) fn busy_error(message: &str) -> HttpResponse {
    let mut response = json_rpc_error(StatusCode::SERVICE_UNAVAILABLE, -32603, message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, http::HeaderValue::from_static("1"));
    response
}

/// The answer to a session that does not exist for this token: as rmcp answers an unknown one.
pub(super) fn session_not_found() -> HttpResponse {
    let mut response =
        Response::new(Full::new(Bytes::from("Not Found: Session not found")).boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// 405, naming the methods a probe takes.
pub(super) fn method_not_allowed() -> HttpResponse {
    let mut response = status_response(StatusCode::METHOD_NOT_ALLOWED, "use GET");
    response
        .headers_mut()
        .insert(header::ALLOW, http::HeaderValue::from_static("GET, HEAD"));
    response
}
