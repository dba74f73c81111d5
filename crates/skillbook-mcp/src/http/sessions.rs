//! Sessions ([`Sessions::Kept`](super::Sessions::Kept)): capped per tenant and in all, closed
//! after an idle time, and bound to the token that opened them.
//!
//! rmcp's [`LocalSessionManager`] keeps the sessions; [`CappedSessions`] wraps it to learn
//! when each one ends (a `DELETE`, the idle timeout, the server closing it), so that the share
//! a session holds comes back then. The endpoint takes the share before the `initialize`
//! request is handled and books it, with the token, under the session's id from the answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

use super::TokenDigest;
use crate::budget::Taken;

/// Who opened a session: the digest of the token, or `None` for the anonymous tenant.
pub(crate) type Opener = Option<TokenDigest>;

/// The sessions open now, each with who opened it and the share it holds.
#[derive(Debug, Default)]
pub(crate) struct SessionBook {
    open: Mutex<HashMap<SessionId, Booked>>,
}

#[derive(Debug)]
struct Booked {
    opener: Opener,
    _share: Taken,
}

impl SessionBook {
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Booked>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Books `id`, opened by `opener`, holding `share` until it ends.
    pub(crate) fn book(&self, id: SessionId, opener: Opener, share: Taken) {
        self.open().insert(
            id,
            Booked {
                opener,
                _share: share,
            },
        );
    }

    /// Whether a request by `opener` may use the session `id`: `None` when the session is not
    /// booked (unknown, ended, or its token removed), else whether the same token opened it.
    pub(crate) fn allows(&self, id: &str, opener: &Opener) -> Option<bool> {
        self.open()
            .get(id)
            .map(|booked| same_opener(&booked.opener, opener))
    }

    /// The sessions whose opener `keep` refuses, forgotten and returned (to be closed).
    pub(crate) fn drain_unless(&self, keep: impl Fn(&Opener) -> bool) -> Vec<SessionId> {
        let mut open = self.open();
        let ended: Vec<SessionId> = open
            .iter()
            .filter(|(_, booked)| !keep(&booked.opener))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &ended {
            open.remove(id);
        }
        ended
    }

    fn end(&self, id: &SessionId) {
        self.open().remove(id);
    }
}

/// Two openers are the same (compared without stopping early, as tokens are).
fn same_opener(left: &Opener, right: &Opener) -> bool {
    match (left, right) {
        (None, None) => true,
        (Some(left), Some(right)) => left.same_as(right),
        _ => false,
    }
}

/// rmcp's local sessions, closed after `idle` without a request, telling `book` when each
/// ends.
#[derive(Debug)]
pub(crate) struct CappedSessions {
    inner: LocalSessionManager,
    book: Arc<SessionBook>,
}

impl CappedSessions {
    pub(crate) fn new(idle: Duration, book: Arc<SessionBook>) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        CappedSessions { inner, book }
    }
}

impl SessionManager for CappedSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.inner.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.book.end(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;
    use crate::budget::{Limit, Pool};

    #[test]
    fn a_session_answers_only_to_its_opener_and_gives_its_share_back_when_it_ends() {
        let total = Limit::new(4);
        let pool = Pool::new(Limit::new(2), total.clone());
        let book = SessionBook::default();
        let alpha = Some(TokenDigest::of("alpha"));
        let beta = Some(TokenDigest::of("beta"));
        book.book("one".into(), alpha, pool.try_take(1).unwrap());
        book.book("two".into(), beta, pool.try_take(1).unwrap());
        assert!(pool.try_take(1).is_none(), "the tenant's share is used up");
        assert_eq!(book.allows("one", &alpha), Some(true));
        assert_eq!(book.allows("one", &beta), Some(false));
        assert_eq!(book.allows("one", &None), Some(false));
        assert_eq!(book.allows("three", &alpha), None);
        book.end(&"one".into());
        assert_eq!(total.in_use(), 1);
        // Beta's token is removed: its sessions are to be closed.
        let ended = book.drain_unless(|opener| *opener == alpha);
        assert_eq!(ended, vec![SessionId::from("two")]);
        assert_eq!(total.in_use(), 0);
    }
}
