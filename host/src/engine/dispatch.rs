//! Long polls: pollers waiting on task lists, and the hand-off of new tasks to them. It knows
//! nothing of what a task is: the engine hands over its claims through it.
//!
//! A poll first tries to claim a queued task inside the writer. If there is none, the same writer
//! job registers the poller here as a [`Waiter`]; since the writer is serial, no task can be queued
//! in between. When a later job queues a task on that list, the engine claims it for the first
//! live waiter inside that job's transaction and delivers it once the transaction has committed.
//! Each task is claimed by exactly one writer job, so it reaches exactly one poller. A waiter whose
//! poll has ended (timed out, or its client went away) is skipped, so it cannot swallow a task.
//!
//! A poll's wait can end while a task is being claimed for it. A [`Ticket`] decides the race: the
//! writer reserves the waiter before claiming, the poll abandons it before answering empty, and
//! only one of them can succeed. A poll that finds its waiter reserved waits for the commit.
//!
//! A list is kept only while polls wait on it: a poll that ends ([`Departure`]) takes its list
//! away once no live poll is left there, so polls on ever new names (a typo, a client making
//! names up) cost nothing once they are over.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use tokio::sync::oneshot;

use super::HistoryAsk;
use crate::model::TaskKind;

pub(crate) use crate::model::ListKey;

const WAITING: u8 = 0;
const RESERVED: u8 = 1;
const ABANDONED: u8 = 2;

/// Who ends a wait: the writer, with a task, or the poll, without one.
#[derive(Clone, Default)]
pub(crate) struct Ticket(Arc<AtomicU8>);

impl Ticket {
    fn swap(&self, from: u8, to: u8) -> bool {
        self.0
            .compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Ends the wait without a task, unless a task is being claimed for it: then false, and the
    /// poll must wait for that claim's commit (or for the reservation to be returned).
    pub(crate) fn abandon(&self) -> bool {
        self.swap(WAITING, ABANDONED)
    }
}

/// A poll waiting for a task, handed over as a `T` (the engine's claimed task).
pub(crate) struct Waiter<T> {
    /// Who polls, for the `*TaskStarted` event.
    pub(crate) identity: Option<String>,
    /// The page of a decision task's history the poll wants with it.
    pub(crate) history: Option<HistoryAsk>,
    reply: oneshot::Sender<T>,
    ticket: Ticket,
}

impl<T: std::fmt::Debug> Waiter<T> {
    /// A waiter answering on `reply`, whose wait `ticket` ends.
    pub(crate) fn new(identity: Option<String>, reply: oneshot::Sender<T>, ticket: Ticket) -> Self {
        Waiter {
            identity,
            history: None,
            reply,
            ticket,
        }
    }

    /// The waiter, wanting the page `history` of a decision task's history with its task.
    pub(crate) fn with_history(self, history: Option<HistoryAsk>) -> Self {
        Waiter { history, ..self }
    }

    fn is_live(&self) -> bool {
        !self.reply.is_closed() && self.ticket.0.load(Ordering::Acquire) == WAITING
    }

    /// Reserves a live waiter for a claim.
    fn reserve(&self) -> bool {
        !self.reply.is_closed() && self.ticket.swap(WAITING, RESERVED)
    }

    /// Hands the claimed task to the poll.
    pub(crate) fn deliver(self, claimed: T) {
        if let Err(claimed) = self.reply.send(claimed) {
            // The poll ended between the claim and the commit: the task stays started and is
            // recovered by its start-to-close timeout, as on AWS.
            tracing::warn!(?claimed, "a claimed task found its poller gone");
        }
    }
}

/// The waiters of every task list.
pub(crate) struct Dispatch<T> {
    lists: Mutex<HashMap<ListKey, VecDeque<Waiter<T>>>>,
}

impl<T> Default for Dispatch<T> {
    fn default() -> Self {
        Dispatch {
            lists: Mutex::default(),
        }
    }
}

impl<T: std::fmt::Debug> Dispatch<T> {
    fn lists(&self) -> MutexGuard<'_, HashMap<ListKey, VecDeque<Waiter<T>>>> {
        // A panic while holding the lock leaves the map consistent: every change is one call.
        self.lists.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers `waiter` on `key`, unless `max` live polls already wait there; answers whether
    /// it did. A waiter whose poll has ended already is not registered: nobody waits for it.
    pub(crate) fn wait(&self, key: ListKey, waiter: Waiter<T>, max: usize) -> bool {
        if waiter.reply.is_closed() {
            return true;
        }
        let mut lists = self.lists();
        let waiters = lists.entry(key).or_default();
        waiters.retain(Waiter::is_live);
        if waiters.len() >= max {
            return false;
        }
        waiters.push_back(waiter);
        true
    }

    /// Forgets the waiters of `key` whose polls have ended, and the list if none is left.
    fn leave(&self, key: &ListKey) {
        let mut lists = self.lists();
        if let Some(waiters) = lists.get_mut(key) {
            waiters.retain(Waiter::is_live);
            if waiters.is_empty() {
                lists.remove(key);
            }
        }
    }

    /// The lists where live polls wait.
    pub(crate) fn waiting(&self) -> Vec<ListKey> {
        let mut lists = self.lists();
        lists.retain(|_, waiters| {
            waiters.retain(Waiter::is_live);
            !waiters.is_empty()
        });
        lists.keys().cloned().collect()
    }

    /// How many live polls wait on each list of domain `domain` that has any.
    pub(crate) fn pollers(&self, domain: u64) -> Vec<(TaskKind, String, usize)> {
        let lists = self.lists();
        let mut pollers: Vec<_> = lists
            .iter()
            .filter(|((d, _, _), _)| *d == domain)
            .map(|((_, kind, list), waiters)| {
                let live = waiters.iter().filter(|w| w.is_live()).count();
                (*kind, list.clone(), live)
            })
            .filter(|(_, _, live)| *live > 0)
            .collect();
        pollers.sort();
        pollers
    }

    /// Whether a live poll waits on `key`.
    pub(crate) fn is_waited_on(&self, key: &ListKey) -> bool {
        self.lists()
            .get(key)
            .is_some_and(|waiters| waiters.iter().any(Waiter::is_live))
    }

    /// The oldest live waiter on `key`, reserved: hand it a task, or [`Dispatch::give_back`] it.
    pub(crate) fn take_waiter(&self, key: &ListKey) -> Option<Waiter<T>> {
        let mut lists = self.lists();
        let waiters = lists.get_mut(key)?;
        let found = std::iter::from_fn(|| waiters.pop_front()).find(Waiter::reserve);
        if waiters.is_empty() {
            lists.remove(key);
        }
        found
    }

    /// Puts back a reserved waiter for which there was no task after all, first in line,
    /// unless its poll has ended meanwhile.
    pub(crate) fn give_back(&self, key: &ListKey, waiter: Waiter<T>) {
        waiter.ticket.swap(RESERVED, WAITING);
        if waiter.reply.is_closed() {
            return;
        }
        self.lists()
            .entry(key.clone())
            .or_default()
            .push_front(waiter);
    }
}

/// A poll's leaving: when dropped (the poll answered, timed out, or its client went away), the
/// list it waited on is forgotten unless a live poll is still waiting there. The list is known
/// only once the writer has registered the poll, which may be after the poll is gone: so the
/// key is set before the registration, and a registration after the poll ended registers
/// nothing ([`Dispatch::wait`]).
pub(crate) struct Departure<T: std::fmt::Debug> {
    dispatch: Arc<Dispatch<T>>,
    key: Arc<OnceLock<ListKey>>,
}

impl<T: std::fmt::Debug> Departure<T> {
    /// The leaving of a poll that may wait in `dispatch`.
    pub(crate) fn new(dispatch: Arc<Dispatch<T>>) -> Self {
        Departure {
            dispatch,
            key: Arc::default(),
        }
    }

    /// Where to note the list the poll waits on, before it is registered there.
    pub(crate) fn key(&self) -> Arc<OnceLock<ListKey>> {
        self.key.clone()
    }
}

impl<T: std::fmt::Debug> Drop for Departure<T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.get() {
            self.dispatch.leave(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> ListKey {
        (1, TaskKind::Activity, "list".into())
    }

    #[test]
    fn waiters_whose_poll_ended_are_skipped() {
        let dispatch = Dispatch::<u32>::default();
        let register = |name: &str, reply, ticket: &Ticket| {
            let waiter = Waiter::new(Some(name.into()), reply, ticket.clone());
            assert!(dispatch.wait(key(), waiter, 10));
        };
        let (gone, gone_rx) = oneshot::channel();
        register("gone", gone, &Ticket::default());
        let (abandoned_tx, _abandoned_rx) = oneshot::channel();
        let abandoned = Ticket::default();
        register("abandoned", abandoned_tx, &abandoned);
        let (live, _live_rx) = oneshot::channel();
        let live_ticket = Ticket::default();
        register("live", live, &live_ticket);
        drop(gone_rx);
        assert!(abandoned.abandon());

        let waiter = dispatch.take_waiter(&key()).expect("a live waiter");
        assert_eq!(waiter.identity.as_deref(), Some("live"));
        assert!(dispatch.take_waiter(&key()).is_none());
        // While reserved for a claim, its poll cannot end empty.
        assert!(!live_ticket.abandon());
        // A waiter given back is first in line again, and its poll may end.
        dispatch.give_back(&key(), waiter);
        let waiter = dispatch.take_waiter(&key()).expect("given back");
        dispatch.give_back(&key(), waiter);
        assert!(live_ticket.abandon());
        assert!(dispatch.take_waiter(&key()).is_none());
    }

    #[test]
    fn a_list_is_forgotten_when_its_last_poll_leaves() {
        let dispatch = Arc::new(Dispatch::<u32>::default());
        let count = || dispatch.lists().len();
        // A poll that waited, then timed out.
        let left = Departure::new(dispatch.clone());
        let (tx, _rx) = oneshot::channel();
        let ticket = Ticket::default();
        left.key().set(key()).unwrap();
        assert!(dispatch.wait(key(), Waiter::new(None, tx, ticket.clone()), 10));
        let (tx, rx) = oneshot::channel();
        let staying = Departure::new(dispatch.clone());
        staying.key().set(key()).unwrap();
        assert!(dispatch.wait(key(), Waiter::new(None, tx, Ticket::default()), 10));
        assert!(ticket.abandon());
        drop(left);
        assert_eq!(count(), 1, "another poll still waits there");
        // The other one's client went away.
        drop(rx);
        drop(staying);
        assert_eq!(count(), 0);

        // A poll gone before the writer registered it leaves nothing behind.
        let (tx, rx) = oneshot::channel();
        let gone = Departure::new(dispatch.clone());
        let noted = gone.key();
        drop(rx);
        drop(gone);
        noted.set(key()).unwrap();
        assert!(dispatch.wait(key(), Waiter::new(None, tx, Ticket::default()), 10));
        assert_eq!(count(), 0);

        // Nor does a reserved waiter given back after its poll ended.
        let (tx, rx) = oneshot::channel();
        assert!(dispatch.wait(key(), Waiter::new(None, tx, Ticket::default()), 10));
        let waiter = dispatch.take_waiter(&key()).unwrap();
        drop(rx);
        dispatch.give_back(&key(), waiter);
        assert_eq!(count(), 0);
    }

    #[test]
    fn live_pollers_per_list_are_limited() {
        let dispatch = Dispatch::<u32>::default();
        let mut receivers = Vec::new();
        for _ in 0..2 {
            let (tx, rx) = oneshot::channel();
            receivers.push(rx);
            assert!(dispatch.wait(key(), Waiter::new(None, tx, Ticket::default()), 2));
        }
        let (tx, _rx) = oneshot::channel();
        assert!(!dispatch.wait(key(), Waiter::new(None, tx, Ticket::default()), 2));
        // Once a poll ends, its place is free.
        receivers.pop();
        let (tx, _rx) = oneshot::channel();
        assert!(dispatch.wait(key(), Waiter::new(None, tx, Ticket::default()), 2));
    }
}
