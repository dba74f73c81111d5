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
//!
//! Over HTTP the endpoint accounts instead: it puts an [`AnswerHold`] in each request, whose
//! [`Pool`] holds the tenant's share and the whole server's, and the handler takes the answer's
//! bytes from there and leaves them in the hold; the endpoint then ties them to the answer's
//! bytes, so they come back when the last byte has been handed to the socket.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default budget: 32 MiB of file bytes whose answers are being read or wait to be written.
pub const DEFAULT_READ_BUDGET: u64 = 32 * 1024 * 1024;

/// The unit byte budgets are counted in (a semaphore counts in `u32`).
pub(crate) const UNIT: u64 = 1024;

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

/// The most bytes an answer carrying a file of `size` bytes is accounted at: the file in base64
/// (what a blob costs; text costs less unless most of it must be escaped), and the envelope.
pub(crate) fn answer_bytes(size: u64) -> u64 {
    size.div_ceil(3).saturating_mul(4).saturating_add(UNIT)
}

/// A limit on something counted in units (answers, sessions, KiB): a semaphore and its size,
/// which can change while units are held ([`Limit::resize`]). Clones share the limit.
#[derive(Debug, Clone)]
pub(crate) struct Limit {
    permits: Arc<Semaphore>,
    size: Arc<Size>,
}

/// The size of a limit, and the units to forget as they come back after it shrank below what
/// was held.
#[derive(Debug)]
struct Size {
    units: AtomicU32,
    debt: AtomicU32,
}

#[cfg_attr(
    not(feature = "http"),
    allow(
        dead_code,
        reason = "only the HTTP endpoint shares limits among tenants"
    )
)]
impl Limit {
    /// A limit of `units` (at least 1).
    pub(crate) fn new(units: u64) -> Self {
        let units = clamp_units(units);
        Limit {
            permits: Arc::new(Semaphore::new(units as usize)),
            size: Arc::new(Size {
                units: AtomicU32::new(units),
                debt: AtomicU32::new(0),
            }),
        }
    }

    /// The limit.
    pub(crate) fn units(&self) -> u32 {
        self.size.units.load(Ordering::Acquire)
    }

    /// How many units are held now.
    pub(crate) fn in_use(&self) -> u32 {
        let available = u32::try_from(self.permits.available_permits()).unwrap_or(u32::MAX);
        let debt = self.size.debt.load(Ordering::Acquire);
        self.units().saturating_sub(available).saturating_add(debt)
    }

    /// Makes the limit `units` (at least 1) from now on. Units held beyond a smaller limit are
    /// not given back to it when they return.
    pub(crate) fn resize(&self, units: u64) {
        let units = clamp_units(units);
        let before = self.size.units.swap(units, Ordering::AcqRel);
        if units > before {
            let grown = units - before;
            let paid = take_up_to(&self.size.debt, grown);
            self.permits.add_permits((grown - paid) as usize);
        } else if units < before {
            let shrunk = before - units;
            let forgotten = u32::try_from(self.permits.forget_permits(shrunk as usize))
                .unwrap_or(shrunk)
                .min(shrunk);
            self.size
                .debt
                .fetch_add(shrunk - forgotten, Ordering::AcqRel);
        }
    }

    /// Gives `permit` back, forgetting as much of it as the limit owes since it shrank.
    fn give_back(&self, mut permit: OwnedSemaphorePermit) {
        let owed = take_up_to(
            &self.size.debt,
            u32::try_from(permit.num_permits()).unwrap_or(0),
        );
        if owed > 0
            && let Some(forgotten) = permit.split(owed as usize)
        {
            forgotten.forget();
        }
    }
}

/// `units` as a limit: at least 1, at most `u32::MAX`.
#[cfg_attr(
    not(feature = "http"),
    allow(
        dead_code,
        reason = "only the HTTP endpoint shares limits among tenants"
    )
)]
fn clamp_units(units: u64) -> u32 {
    u32::try_from(units.max(1)).unwrap_or(u32::MAX)
}

/// Takes up to `most` from `counter`, returning what was taken.
fn take_up_to(counter: &AtomicU32, most: u32) -> u32 {
    let mut taken = 0;
    let _ = counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |owed| {
        taken = owed.min(most);
        Some(owed - taken)
    });
    taken
}

/// One tenant's share of a resource and the server's whole of it: taking takes from the
/// tenant's share first, then from the whole, so a tenant never holds more than its share and
/// never holds any of the whole while it waits for its own.
#[derive(Debug, Clone)]
pub(crate) struct Pool {
    tenant: Limit,
    total: Limit,
}

/// Units taken from a [`Pool`], given back when dropped.
#[derive(Debug)]
pub(crate) struct Taken {
    tenant: Option<(Limit, OwnedSemaphorePermit)>,
    total: Option<(Limit, OwnedSemaphorePermit)>,
}

impl Drop for Taken {
    fn drop(&mut self) {
        for (limit, permit) in [self.tenant.take(), self.total.take()]
            .into_iter()
            .flatten()
        {
            limit.give_back(permit);
        }
    }
}

#[cfg_attr(
    not(feature = "http"),
    allow(
        dead_code,
        reason = "only the HTTP endpoint shares limits among tenants"
    )
)]
impl Pool {
    pub(crate) fn new(tenant: Limit, total: Limit) -> Self {
        Pool { tenant, total }
    }

    /// The tenant's share.
    pub(crate) fn tenant(&self) -> &Limit {
        &self.tenant
    }

    /// `units`, at least one and at most what the smaller limit holds (so that any request
    /// can be met once the pool is idle).
    fn clamp(&self, units: u64) -> u32 {
        let most = self.tenant.units().min(self.total.units());
        u32::try_from(units)
            .unwrap_or(u32::MAX)
            .clamp(1, most.max(1))
    }

    /// Waits until `units` are free in the tenant's share and then in the whole, and takes them.
    /// `None` only when the limits are closed.
    pub(crate) async fn take(&self, units: u64) -> Option<Taken> {
        let units = self.clamp(units);
        let tenant = Arc::clone(&self.tenant.permits)
            .acquire_many_owned(units)
            .await
            .ok()?;
        let tenant = Some((self.tenant.clone(), tenant));
        let total = Arc::clone(&self.total.permits)
            .acquire_many_owned(units)
            .await
            .ok()?;
        Some(Taken {
            tenant,
            total: Some((self.total.clone(), total)),
        })
    }

    /// Takes `units` if both the tenant's share and the whole have them free now.
    pub(crate) fn try_take(&self, units: u64) -> Option<Taken> {
        let units = self.clamp(units);
        let tenant = Arc::clone(&self.tenant.permits)
            .try_acquire_many_owned(units)
            .ok()?;
        let tenant = Some((self.tenant.clone(), tenant));
        let total = Arc::clone(&self.total.permits)
            .try_acquire_many_owned(units)
            .ok()?;
        Some(Taken {
            tenant,
            total: Some((self.total.clone(), total)),
        })
    }
}

/// Where a request served over HTTP takes its answer's bytes from (the tenant's share and the
/// server's whole, in KiB), and where the handler leaves them for the answer to carry until it
/// is written.
#[derive(Debug)]
pub(crate) struct AnswerHold {
    pool: Pool,
    kept: Mutex<Vec<Taken>>,
}

#[cfg_attr(
    not(feature = "http"),
    allow(
        dead_code,
        reason = "only the HTTP endpoint shares limits among tenants"
    )
)]
impl AnswerHold {
    pub(crate) fn new(pool: Pool) -> Self {
        AnswerHold {
            pool,
            kept: Mutex::new(Vec::new()),
        }
    }

    /// Waits until `bytes` are free and takes them.
    pub(crate) async fn take(&self, bytes: u64) -> Option<Taken> {
        self.pool.take(bytes.div_ceil(UNIT)).await
    }

    /// Leaves `taken` for the answer to carry.
    pub(crate) fn keep(&self, taken: Taken) {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(taken);
    }

    /// What the handler left, taken out.
    pub(crate) fn kept(&self) -> Vec<Taken> {
        std::mem::take(&mut *self.kept.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Bytes reserved for an answer before the file is read: from the endpoint's hold (over HTTP)
/// or from the server's own budget.
#[derive(Debug)]
pub(crate) enum Reserved {
    /// Taken from an endpoint's hold, to be left there.
    Held(Arc<AnswerHold>, Option<Taken>),
    /// Taken from the server's budget, kept until the answer is written.
    Budget(Arc<Budget>, Option<OwnedSemaphorePermit>),
}

impl Reserved {
    /// Takes `bytes` from `hold` when there is one, else from `budget`, waiting until they are
    /// free.
    pub(crate) async fn take(
        budget: Arc<Budget>,
        hold: Option<Arc<AnswerHold>>,
        bytes: u64,
    ) -> Reserved {
        match hold {
            Some(hold) => {
                let taken = hold.take(bytes).await;
                Reserved::Held(hold, taken)
            }
            None => {
                let permit = budget.take(bytes).await;
                Reserved::Budget(budget, permit)
            }
        }
    }

    /// The answer to `request` is built: its bytes stay held until it is written.
    pub(crate) fn keep(self, request: RequestId) {
        match self {
            Reserved::Held(hold, Some(taken)) => hold.keep(taken),
            Reserved::Budget(budget, Some(permit)) => budget.hold(request, permit),
            Reserved::Held(_, None) | Reserved::Budget(_, None) => {}
        }
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

    #[tokio::test]
    async fn a_tenant_takes_its_share_first_and_never_more_than_it() {
        let total = Limit::new(8);
        let first = Pool::new(Limit::new(4), total.clone());
        let second = Pool::new(Limit::new(4), total.clone());
        let held = first.try_take(4).unwrap();
        assert!(
            first.try_take(1).is_none(),
            "the first tenant's share is used up"
        );
        assert_eq!((first.tenant().in_use(), total.in_use()), (4, 4));
        // The other tenant still has its whole share.
        let other = second.try_take(4).unwrap();
        assert_eq!(total.in_use(), 8);
        drop((held, other));
        assert_eq!(total.in_use(), 0);
        // A request larger than the share takes the whole share, never more.
        let whole = first.take(100).await.unwrap();
        assert_eq!(first.tenant().in_use(), 4);
        drop(whole);
    }

    #[test]
    fn a_limit_resized_below_what_is_held_gives_back_only_what_fits() {
        let limit = Limit::new(4);
        let pool = Pool::new(limit.clone(), Limit::new(100));
        let held: Vec<Taken> = (0..4).map(|_| pool.try_take(1).unwrap()).collect();
        limit.resize(2);
        assert_eq!((limit.units(), limit.in_use()), (2, 4));
        let mut held = held.into_iter();
        drop(held.next());
        drop(held.next());
        assert!(pool.try_take(1).is_none(), "still two held, the new limit");
        drop(held.next());
        assert_eq!(limit.in_use(), 1);
        assert!(pool.try_take(1).is_some());
        // Growing again pays what is still owed first.
        limit.resize(6);
        assert_eq!(limit.in_use(), 1);
        let more: Vec<Taken> = (0..5).map(|_| pool.try_take(1).unwrap()).collect();
        assert!(pool.try_take(1).is_none());
        drop((more, held));
        assert_eq!(limit.in_use(), 0);
    }

    #[tokio::test]
    async fn a_hold_keeps_what_the_handler_left_until_taken_out() {
        let total = Limit::new(16);
        let hold = Arc::new(AnswerHold::new(Pool::new(Limit::new(8), total.clone())));
        let budget = Arc::new(Budget::new(UNIT));
        let reserved = Reserved::take(budget, Some(Arc::clone(&hold)), 3 * UNIT).await;
        reserved.keep(request(1));
        assert_eq!(total.in_use(), 3);
        let kept = hold.kept();
        assert_eq!((kept.len(), total.in_use()), (1, 3));
        drop(kept);
        assert_eq!(total.in_use(), 0);
        assert_eq!(answer_bytes(3), 4 + UNIT);
    }
}
