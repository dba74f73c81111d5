//! Bounded memory for reads in flight, whatever a client pipelines.
//!
//! Limiting how many requests read at once is not enough: an answer waits in memory until the
//! client reads it, so a client that pipelines 48 reads of a 15 MiB file and reads nothing would
//! make the server hold them all. Each `resources/read` therefore takes as much of a byte budget
//! as its file holds before reading it, and gives it back only once its answer has been written
//! to the transport — which [`Bounded`] reports. Reads past the budget wait their turn.
//!
//! A cancelled request gets no answer, so its bytes are given back when the client's
//! `notifications/cancelled` arrives. `tools/call` reads take their share too: up to the
//! characters asked for (`maxChars`), four bytes each.
//!
//! A server served without [`Bounded`] (for example through rmcp's `ServiceExt::serve`
//! directly) gives the budget back as soon as each answer is built: reads are still bounded in
//! number, not in the memory their waiting answers hold.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default budget: 32 MiB of file bytes whose answers are being read or wait to be written.
pub const DEFAULT_READ_BUDGET: u64 = 32 * 1024 * 1024;

/// The unit the budget is counted in (a semaphore counts in `u32`).
const UNIT: u64 = 1024;

/// The most cancelled requests remembered while their reads finish.
const MAX_CANCELLED: usize = 4096;

/// The byte budget of reads in flight, and the permits held by answers not yet written.
#[derive(Debug)]
pub(crate) struct Budget {
    permits: Arc<Semaphore>,
    units: u32,
    /// Permits of answers built but not yet written, by request.
    held: Mutex<HashMap<RequestId, OwnedSemaphorePermit>>,
    /// Requests the client cancelled: rmcp writes no answer to them, so their permits are given
    /// back at once.
    cancelled: Mutex<HashSet<RequestId>>,
    /// A [`Bounded`] transport reports written answers.
    written_reported: AtomicBool,
}

impl Budget {
    pub(crate) fn new(bytes: u64) -> Self {
        let units = u32::try_from(bytes.div_ceil(UNIT).max(1)).unwrap_or(u32::MAX);
        Budget {
            permits: Arc::new(Semaphore::new(units as usize)),
            units,
            held: Mutex::new(HashMap::new()),
            cancelled: Mutex::new(HashSet::new()),
            written_reported: AtomicBool::new(false),
        }
    }

    /// Waits until `bytes` (at most the whole budget) are free and takes them.
    pub(crate) async fn take(&self, bytes: u64) -> Option<OwnedSemaphorePermit> {
        let units = u32::try_from(bytes.div_ceil(UNIT))
            .unwrap_or(u32::MAX)
            .clamp(1, self.units);
        Arc::clone(&self.permits)
            .acquire_many_owned(units)
            .await
            .ok()
    }

    /// Keeps `permit` until the answer to `request` is written (or drops it now when no
    /// transport reports writes).
    pub(crate) fn hold(&self, request: RequestId, permit: OwnedSemaphorePermit) {
        if !self.written_reported.load(Ordering::Relaxed) {
            return;
        }
        let cancelled = self
            .cancelled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&request);
        if !cancelled {
            self.held
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(request, permit);
        }
    }

    /// The client cancelled `request`: no answer will be written, so its bytes are free again
    /// (now, or as soon as its read is done).
    fn cancelled(&self, request: RequestId) {
        let held = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&request);
        if held.is_none() {
            let mut cancelled = self
                .cancelled
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            // A client may cancel requests that never read anything: remember a bounded few.
            if cancelled.len() >= MAX_CANCELLED {
                cancelled.clear();
            }
            cancelled.insert(request);
        }
    }

    /// The answer to `request` was written: its bytes are free again.
    fn written(&self, request: &RequestId) {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(request);
    }
}

/// A transport that tells the budget when each answer has been written.
pub(crate) struct Bounded<T> {
    inner: T,
    budget: Arc<Budget>,
}

impl<T> Bounded<T> {
    pub(crate) fn new(inner: T, budget: Arc<Budget>) -> Self {
        budget.written_reported.store(true, Ordering::Relaxed);
        Bounded { inner, budget }
    }
}

impl<T> Transport<RoleServer> for Bounded<T>
where
    T: Transport<RoleServer>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let sending = self.inner.send(item);
        let budget = Arc::clone(&self.budget);
        async move {
            let sent = sending.await;
            if let Some(request) = answered {
                budget.written(&request);
            }
            sent
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        let receiving = self.inner.receive();
        let budget = Arc::clone(&self.budget);
        async move {
            let message = receiving.await;
            if let Some(JsonRpcMessage::Notification(notification)) = &message
                && let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                && let Some(request) = &cancelled.params.request_id
            {
                budget.cancelled(request.clone());
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "a failing unwrap is a failing test")]
mod tests {
    use super::*;

    fn request(number: i64) -> RequestId {
        RequestId::Number(number)
    }

    #[tokio::test]
    async fn a_held_share_comes_back_when_written_or_cancelled() {
        let budget = Budget::new(8 * UNIT);
        budget.written_reported.store(true, Ordering::Relaxed);
        let permit = budget.take(8 * UNIT).await.unwrap();
        budget.hold(request(1), permit);
        assert_eq!(budget.permits.available_permits(), 0);
        budget.written(&request(1));
        assert_eq!(budget.permits.available_permits(), 8);

        let permit = budget.take(5 * UNIT).await.unwrap();
        budget.hold(request(2), permit);
        budget.cancelled(request(2));
        assert_eq!(
            budget.permits.available_permits(),
            8,
            "a cancelled answer is never written"
        );

        // Cancelled before its read was done: the share is dropped when it would be held.
        budget.cancelled(request(3));
        let permit = budget.take(3 * UNIT).await.unwrap();
        budget.hold(request(3), permit);
        assert_eq!(budget.permits.available_permits(), 8);
    }

    #[tokio::test]
    async fn a_share_never_exceeds_the_budget_and_is_never_empty() {
        let budget = Budget::new(4 * UNIT);
        let whole = budget.take(u64::MAX).await.unwrap();
        assert_eq!(whole.num_permits(), 4);
        drop(whole);
        assert_eq!(budget.take(0).await.unwrap().num_permits(), 1);
        // Without a transport that reports writes, nothing is held.
        let permit = budget.take(UNIT).await.unwrap();
        budget.hold(request(1), permit);
        assert_eq!(budget.permits.available_permits(), 4);
    }
}
