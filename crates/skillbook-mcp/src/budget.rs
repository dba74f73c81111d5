//! Bounded memory for reads in flight, whatever a client pipelines.
//!
//! Limiting how many requests read at once is not enough: an answer waits in memory until the
//! client reads it, so a client that pipelines 48 reads of a 15 MiB file and reads nothing would
//! make the server hold them all. Each `resources/read` therefore takes as much of a byte budget
//! as its file holds before reading it, and gives it back only once its answer has been written
//! to the transport — which [`Bounded`] reports. Reads past the budget wait their turn.
//!
//! A server served without [`Bounded`] (for example through rmcp's `ServiceExt::serve`
//! directly) gives the budget back as soon as each answer is built: reads are still bounded in
//! number, not in the memory their waiting answers hold.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default budget: 32 MiB of file bytes whose answers are being read or wait to be written.
pub const DEFAULT_READ_BUDGET: u64 = 32 * 1024 * 1024;

/// The unit the budget is counted in (a semaphore counts in `u32`).
const UNIT: u64 = 1024;

/// The byte budget of reads in flight, and the permits held by answers not yet written.
#[derive(Debug)]
pub(crate) struct Budget {
    permits: Arc<Semaphore>,
    units: u32,
    /// Permits of answers built but not yet written, by request.
    held: Mutex<HashMap<RequestId, OwnedSemaphorePermit>>,
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
        if self.written_reported.load(Ordering::Relaxed) {
            self.held
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(request, permit);
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
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
