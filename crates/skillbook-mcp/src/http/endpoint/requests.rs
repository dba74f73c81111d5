//! One request through the endpoint: admitted (token, rate, body read and bounded), prepared
//! (its tenant's service, a session's share), answered and sent within its deadline.

use super::*;

impl Endpoint {
    /// Answers one request: see the [module docs](crate::http) for the steps.
    pub async fn handle<B>(&self, request: Request<B>) -> HttpResponse
    where
        B: Body + Send + 'static,
        B::Data: Send + 'static,
        B::Error: Display,
    {
        let (admitted, request) = match self.admit(request).await {
            Ok(admitted) => admitted,
            Err(refusal) => return refusal,
        };
        let prepared = match self.prepare(admitted, request).await {
            Ok(prepared) => prepared,
            Err(refusal) => return refusal,
        };
        self.answer(prepared).await
    }

    /// Checks `Host` and `Origin`, selects the tenant by its token and takes one request from
    /// its rate; a refusal is answered at once (the body drained a little, the connection
    /// closed).
    async fn admit<B>(&self, request: Request<B>) -> Result<(Admitted, Request<B>), HttpResponse>
    where
        B: Body,
    {
        let inner = &self.inner;
        let method = request.method().clone();
        let mut record = Record::new(method.clone());
        if let Err(refusal) = inner.guard.check(request.uri(), request.headers()) {
            let status = match refusal {
                Refusal::NoHost => StatusCode::BAD_REQUEST,
                Refusal::Host | Refusal::Origin => StatusCode::FORBIDDEN,
            };
            inner.metrics.refused(None, Reason::Host);
            tracing::info!(%method, "refused: {}", refusal.message());
            drain(request.into_body()).await;
            let answer = json_rpc_error(status, -32600, refusal.message());
            return Err(refused(record, closing(answer)));
        }
        let Some((tenant, opener)) = self.table().select(request.headers()) else {
            inner.metrics.refused(None, Reason::Unauthorized);
            tracing::info!(%method, "refused: no valid bearer token");
            drain(request.into_body()).await;
            return Err(refused(record, closing(unauthorized())));
        };
        record.tenant.clone_from(&tenant.name);
        record.metrics = Some(Arc::clone(&tenant.metrics));
        if let Err(wait) = tenant.shares.rate.take() {
            inner.metrics.refused(Some(&tenant.name), Reason::Rate);
            drain(request.into_body()).await;
            return Err(refused(record, closing(too_many_requests(wait))));
        }
        let admitted = Admitted {
            tenant,
            opener,
            record,
        };
        Ok((admitted, request))
    }

    /// Reads the body whole (before anything else is held), parses what the endpoint looks at,
    /// and checks the session it names or takes a share for the one it opens.
    async fn prepare<B>(
        &self,
        admitted: Admitted,
        request: Request<B>,
    ) -> Result<Prepared, HttpResponse>
    where
        B: Body + Send + 'static,
        B::Data: Send + 'static,
        B::Error: Display,
    {
        let Admitted {
            tenant,
            opener,
            mut record,
        } = admitted;
        let activity = request.extensions().get::<Activity>().cloned();
        let (mut parts, body) = request.into_parts();
        let post = parts.method == Method::POST;
        let read = match post {
            true => match self.read_body(&tenant, &parts.headers, body).await {
                Ok(read) => read,
                Err(refusal) => return Err(refused(record, refusal)),
            },
            false => body::ReadBody {
                bytes: Bytes::new(),
                taken: Vec::new(),
            },
        };
        let json_body = post && is_json(&parts.headers);
        if json_body {
            match serde_json::from_slice::<Envelope>(&read.bytes) {
                Ok(envelope) => {
                    record.call = envelope
                        .method
                        .map(|method| method.chars().take(MOST_LOGGED).collect());
                }
                Err(error) if !error.is_data() => {
                    let metrics = &self.inner.metrics;
                    metrics.refused(Some(&tenant.name), Reason::ParseError);
                    return Err(refused(record, parse_error()));
                }
                Err(_) => {}
            }
        }
        // An event stream of a session holds its connection busy until it ends: a share.
        let stream_share = match self.stream_share(&tenant, &parts) {
            Ok(share) => share,
            Err(()) => {
                let message = "too many event streams are open; try again later";
                return Err(refused(record, busy_error(message)));
            }
        };
        let session_share = match self.session_share(&tenant, &opener, &parts, &record) {
            Ok(share) => share,
            Err(SessionRefusal::NotFound) => return Err(refused(record, session_not_found())),
            Err(SessionRefusal::Full) => {
                let message = "too many sessions are open; try again later";
                return Err(refused(record, busy_error(message)));
            }
        };
        // What the answer's bytes are taken from, for the handler to find.
        let hold = Arc::new(AnswerHold::new(tenant.shares.answer_kib.clone()));
        parts.extensions.insert(Arc::clone(&hold));
        Ok(Prepared {
            request: Request::from_parts(parts, Full::new(read.bytes)),
            body_share: read.taken,
            json_body,
            session_share,
            held: Held {
                hold: Some(hold),
                _share: stream_share,
                busy: None,
                watch: None,
                record: Some(record),
            },
            activity,
            tenant,
            opener,
        })
    }

    /// A share of the event streams for a `GET` (with [`Sessions::Kept`]; the service refuses
    /// it otherwise), or `Err` when the tenant (or the server) has every stream it may have.
    fn stream_share(
        &self,
        tenant: &TenantEntry,
        parts: &http::request::Parts,
    ) -> Result<Option<Taken>, ()> {
        if parts.method != Method::GET || self.inner.settings.sessions != Sessions::Kept {
            return Ok(None);
        }
        match tenant.shares.streams.try_take(1) {
            Some(share) => Ok(Some(share)),
            None => {
                let metrics = &self.inner.metrics;
                metrics.refused(Some(&tenant.name), Reason::Streams);
                Err(())
            }
        }
    }

    /// Checks that a session the request names is one its token opened, and takes a share of
    /// the sessions for an `initialize` that opens one (with [`Sessions::Kept`]).
    fn session_share(
        &self,
        tenant: &TenantEntry,
        opener: &Opener,
        parts: &http::request::Parts,
        record: &Record,
    ) -> Result<Option<Taken>, SessionRefusal> {
        let session = parts
            .headers
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok());
        // Every session this endpoint opened is booked: one that is not (unknown, ended, or
        // its token removed) does not exist for the client.
        if let Some(id) = session
            && tenant.service.book.allows(id, opener) != Some(true)
        {
            return Err(SessionRefusal::NotFound);
        }
        let opens = self.inner.settings.sessions == Sessions::Kept
            && session.is_none()
            && parts.method == Method::POST
            && record.call.as_deref() == Some("initialize");
        if !opens {
            return Ok(None);
        }
        match tenant.shares.sessions.try_take(1) {
            Some(share) => Ok(Some(share)),
            None => {
                let metrics = &self.inner.metrics;
                metrics.refused(Some(&tenant.name), Reason::Sessions);
                Err(SessionRefusal::Full)
            }
        }
    }

    /// Takes an answer slot (for a `POST`) and has the tenant's service answer, within the
    /// request timeout; books a session it opened; and sends the answer on its way.
    async fn answer(&self, prepared: Prepared) -> HttpResponse {
        let Prepared {
            request,
            body_share,
            json_body,
            session_share,
            mut held,
            activity,
            tenant,
            opener,
        } = prepared;
        let inner = &self.inner;
        let method = request.method().clone();
        let started = held
            .record
            .as_ref()
            .map_or_else(Instant::now, |record| record.started);
        let deadline = inner
            .settings
            .request_timeout
            .and_then(|limit| started.checked_add(limit));
        let post = method == Method::POST;
        let (service, answers) = (Arc::clone(&tenant.service), tenant.shares.answers.clone());
        let stream = held._share.is_some();
        let answer = async move {
            let slot = match post {
                true => answers.take(1).await,
                false => None,
            };
            // Busy from a slot (or a stream's share) taken until the answer is written; a
            // request still waiting for its slot leaves its connection idle, and closable.
            let busy = match post || stream {
                true => activity.as_ref().map(Activity::busy),
                false => None,
            };
            (slot, busy, service.service.handle(request).await)
        };
        let answered = match deadline {
            Some(at) => tokio::time::timeout_at(at.into(), answer).await.ok(),
            None => Some(answer.await),
        };
        drop(body_share);
        let record = held
            .record
            .take()
            .unwrap_or_else(|| Record::new(method.clone()));
        let Some((slot, busy, mut response)) = answered else {
            inner.metrics.refused(Some(&tenant.name), Reason::Busy);
            tracing::warn!(
                tenant = %escaped(&tenant.name),
                "a request took longer than {:?}",
                inner.settings.request_timeout.unwrap_or_default()
            );
            let message = "the request took too long and was stopped; try again";
            return refused(record, busy_error(message));
        };
        let opened = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok());
        if let (Some(share), Some(id)) = (session_share, opened) {
            tenant.service.book.book(id.into(), opener, share);
        }
        match response.status() {
            // Closing a session is a success the SDKs expect as 200.
            StatusCode::ACCEPTED if method == Method::DELETE => {
                *response.status_mut() = StatusCode::OK;
            }
            // JSON that is not a JSON-RPC message this server takes (a wrong `Content-Type` is
            // still 415).
            StatusCode::UNSUPPORTED_MEDIA_TYPE if json_body => {
                let message = "the body is JSON but not a JSON-RPC message this server takes";
                response = json_rpc_error(StatusCode::BAD_REQUEST, -32600, message);
            }
            _ => {}
        }
        tenant
            .metrics
            .answered(response.status().as_u16(), started.elapsed());
        held.record = Some(record);
        held.busy = busy;
        self.send(response, held, slot, deadline)
    }

    /// The answer on its way: cut off at the deadline when it answers a `POST` (so a client
    /// that does not read it cannot keep its bytes: its connection is closed then, whether or
    /// not hyper is still asking for frames), an event stream holding its slot, and an event
    /// stream of its own (`GET`) ended when the server starts shutting down.
    fn send(
        &self,
        response: HttpResponse,
        mut held: Held,
        slot: Option<Taken>,
        deadline: Option<Instant>,
    ) -> HttpResponse {
        let stream = is_event_stream(&response);
        let post = held
            .record
            .as_ref()
            .is_some_and(|record| record.method == Method::POST);
        if let Some(record) = held.record.as_mut() {
            record.status = response.status().as_u16();
        }
        let (until, warning): (CutOffAt, _) = match (post, stream, deadline) {
            (true, _, Some(at)) => {
                if let Some(busy) = &held.busy {
                    held.watch = Some(watch(busy.connection().clone(), at));
                }
                (
                    Box::pin(tokio::time::sleep_until(at.into())),
                    Some(NOT_WRITTEN_IN_TIME),
                )
            }
            (true, _, None) => (Box::pin(std::future::pending()), None),
            // The client reconnects, to another replica if need be.
            (false, true, _) => (
                Box::pin(self.inner.draining.clone().cancelled_owned()),
                None,
            ),
            (false, false, _) => (Box::pin(std::future::pending()), None),
        };
        // A JSON answer is built: its slot is free; a stream holds it until it ends.
        if post && stream {
            held._share = slot;
        }
        response.map(|body| Answer::body(body, held, until, warning))
    }

    /// Reads a `POST` body whole (see [`body::read`]), or the answer that refuses it.
    async fn read_body<B>(
        &self,
        tenant: &TenantEntry,
        headers: &HeaderMap,
        body: B,
    ) -> Result<body::ReadBody, HttpResponse>
    where
        B: Body,
        B::Error: Display,
    {
        let settings = &self.inner.settings;
        let refuse = |reason: Reason, response: HttpResponse| {
            self.inner.metrics.refused(Some(&tenant.name), reason);
            closing(response)
        };
        let too_large = || {
            refuse(
                Reason::BodyTooLarge,
                json_rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    -32600,
                    &format!(
                        "the request body is larger than {} bytes",
                        settings.max_body_bytes
                    ),
                ),
            )
        };
        let declared = match body::declared_length(headers) {
            Ok(Some(length)) if length > settings.max_body_bytes as u64 => return Err(too_large()),
            Ok(declared) => declared,
            Err(_) => {
                return Err(closing(json_rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "the Content-Length header is not a length",
                )));
            }
        };
        let now = tokio::time::Instant::now();
        // A timeout too long to add is as good as none.
        let deadline = now
            .checked_add(settings.body_timeout)
            .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365));
        let max = settings.max_body_bytes;
        body::read(body, declared, max, &tenant.shares.body_kib, deadline)
            .await
            .map_err(|error| match error {
                BodyError::TooLarge => too_large(),
                BodyError::TimedOut => refuse(
                    Reason::BodyTimeout,
                    json_rpc_error(
                        StatusCode::REQUEST_TIMEOUT,
                        -32600,
                        "the request body was not sent in time",
                    ),
                ),
                BodyError::BadLength | BodyError::Failed(_) => closing(json_rpc_error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "the request body could not be read",
                )),
            })
    }
}
