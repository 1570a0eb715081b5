//! Task lists the node knows to be empty, so that handing a task to a waiting poll costs no
//! round trip. Most tasks are claimed in the transaction that queues them: a decision
//! completion schedules an activity, and a worker's poll waits on its list. A list a poll
//! found empty stays so until someone queues on it, and every writer but this node's tells
//! of that by a notice (`notices.rs`); so while no notice came, a task this node queues there
//! is the list's only one, and the claim that follows takes it from memory: no insert, no pop,
//! no delete, no notice.
//!
//! What makes this exact: a list is known empty only after a pop saw no task in it, not even
//! one another node's transaction held (a claim that rolls back leaves its task there, with no
//! notice), and only if no notice for the list came between the start of the transaction that
//! saw it and its end; a notice forgets it. A transaction that may have committed without
//! saying so makes the node forget every list, as does a listener that may have missed notices.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

/// A task list: domain, task kind, name.
pub(super) type ListKey = (u64, i16, String);

/// A task's place in its list, as the list is popped: rank, then order.
pub(super) type Place = (u32, u64);

/// A task: its run and scheduling event.
type Task = (u64, u64);

/// The tasks a transaction queued on a list it knows empty, by place.
type Own = BTreeMap<Place, Task>;

/// The lists this node knows to be empty, shared by its writer's transactions and its
/// listener.
#[derive(Default)]
pub(super) struct EmptyLists(Mutex<Known>);

#[derive(Default)]
struct Known {
    empty: HashSet<ListKey>,
    /// Counts the other nodes' notices of queued tasks, and the times the node forgot.
    heard: u64,
    /// The count when the node last forgot every list.
    forgot: u64,
    /// The count when each list was last heard of, for lists heard of since the current
    /// transaction began.
    heard_at: HashMap<ListKey, u64>,
}

impl EmptyLists {
    fn lock(&self) -> MutexGuard<'_, Known> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Another node queued tasks on `list`.
    pub(super) fn heard(&self, list: ListKey) {
        let mut known = self.lock();
        known.heard += 1;
        let heard = known.heard;
        known.empty.remove(&list);
        known.heard_at.insert(list, heard);
    }

    /// Forgets every list: notices may have been missed, or a commit's outcome is unknown.
    pub(super) fn forget(&self) {
        let mut known = self.lock();
        known.heard += 1;
        known.forgot = known.heard;
        known.empty.clear();
        known.heard_at.clear();
    }

    fn is_empty(&self, list: &ListKey) -> bool {
        self.lock().empty.contains(list)
    }
}

/// A writer transaction's view of the task lists it queued on or popped.
pub(super) struct TxLists {
    node: Arc<EmptyLists>,
    /// How many notices the node had heard when the transaction began.
    since: u64,
    /// Lists holding no task but the transaction's own (`own`), and whether the node may
    /// know so once it ends (`proven`: no task another transaction held was skipped).
    lists: HashMap<ListKey, Empty>,
}

struct Empty {
    own: Own,
    proven: bool,
}

impl TxLists {
    /// The view of a transaction beginning now on the node whose lists are `node`.
    pub(super) fn new(node: Arc<EmptyLists>) -> Self {
        let since = node.lock().heard;
        TxLists {
            node,
            since,
            lists: HashMap::new(),
        }
    }

    /// The tasks the transaction queued on `list`, if `list` holds no others.
    fn empty(&mut self, list: &ListKey) -> Option<&mut Empty> {
        if !self.lists.contains_key(list) && self.node.is_empty(list) {
            let empty = Empty {
                own: Own::new(),
                proven: true,
            };
            self.lists.insert(list.clone(), empty);
        }
        self.lists.get_mut(list)
    }

    /// Notes a task queued on `list` at `place` (rank, order); answers whether the list held
    /// no other, so that a claim may take it from memory.
    pub(super) fn queued(&mut self, list: &ListKey, place: Place, task: Task) -> bool {
        self.empty(list)
            .map(|empty| empty.own.insert(place, task))
            .is_some()
    }

    /// Notes that the task at `place` on `list` was removed.
    pub(super) fn removed(&mut self, list: &ListKey, place: Place) {
        if let Some(empty) = self.lists.get_mut(list) {
            empty.own.remove(&place);
        }
    }

    /// The first task of `list`, taken off it, if the list holds none but the transaction's
    /// own: `Some(None)` if it holds none at all; `None` if only the database knows.
    pub(super) fn pop(&mut self, list: &ListKey) -> Option<Option<(Place, Task)>> {
        self.empty(list).map(|empty| empty.own.pop_first())
    }

    /// Notes that a pop found `list` empty (once it took its task, if it took one): whatever
    /// the transaction queues there next is the list's only task. `proven` says the pop
    /// skipped no task another transaction held.
    pub(super) fn found_empty(&mut self, list: ListKey, proven: bool) {
        let own = Own::new();
        self.lists.insert(list, Empty { own, proven });
    }

    /// The lists that hold tasks the transaction queued and did not claim: the other nodes
    /// are told once it commits.
    pub(super) fn queued_on(&self) -> impl Iterator<Item = &ListKey> {
        self.lists
            .iter()
            .filter(|(_, empty)| !empty.own.is_empty())
            .map(|(list, _)| list)
    }

    /// The transaction ended, and its changes are committed (or there were none): the node
    /// knows the lists it left empty, unless another node queued there meanwhile, and no
    /// longer the lists it queued on.
    pub(super) fn ended(self) {
        let mut known = self.node.lock();
        let forgot = known.forgot > self.since;
        for (list, empty) in self.lists {
            let heard = forgot || known.heard_at.get(&list).is_some_and(|&at| at > self.since);
            if !empty.own.is_empty() {
                known.empty.remove(&list);
            } else if empty.proven && !heard {
                known.empty.insert(list);
            }
        }
        // The next transaction begins after every notice heard so far.
        known.heard_at.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(name: &str) -> ListKey {
        (1, 0, name.to_owned())
    }

    #[test]
    fn a_list_found_empty_is_known_so_until_a_notice_or_a_task_left_there() {
        let node = Arc::new(EmptyLists::default());
        let mut tx = TxLists::new(node.clone());
        assert_eq!(tx.pop(&list("a")), None, "unknown: the database is asked");
        tx.found_empty(list("a"), true);
        tx.found_empty(list("b"), false);
        tx.ended();
        let mut tx = TxLists::new(node.clone());
        assert_eq!(tx.pop(&list("a")), Some(None));
        assert_eq!(tx.pop(&list("b")), None, "a held task was skipped");
        // Queued, then claimed from memory, lowest rank first: the list stays empty.
        assert!(tx.queued(&list("a"), (5, 1), (10, 1)));
        assert!(tx.queued(&list("a"), (0, 2), (11, 1)));
        assert!(tx.queued(&list("a"), (0, 3), (12, 1)));
        tx.removed(&list("a"), (0, 2));
        assert_eq!(tx.pop(&list("a")), Some(Some(((0, 3), (12, 1)))));
        assert_eq!(tx.pop(&list("a")), Some(Some(((5, 1), (10, 1)))));
        assert_eq!(tx.queued_on().count(), 0);
        tx.ended();
        let mut tx = TxLists::new(node.clone());
        assert!(tx.queued(&list("a"), (0, 4), (13, 1)));
        assert_eq!(tx.queued_on().collect::<Vec<_>>(), [&list("a")]);
        tx.ended();
        assert!(!node.is_empty(&list("a")), "a task was left there");
    }

    #[test]
    fn a_notice_during_the_transaction_that_found_a_list_empty_wins() {
        let node = Arc::new(EmptyLists::default());
        let mut tx = TxLists::new(node.clone());
        tx.found_empty(list("a"), true);
        tx.found_empty(list("b"), true);
        node.heard(list("a"));
        tx.ended();
        assert!(!node.is_empty(&list("a")));
        assert!(node.is_empty(&list("b")));
        node.heard(list("b"));
        assert!(!node.is_empty(&list("b")));
        let mut tx = TxLists::new(node.clone());
        tx.found_empty(list("b"), true);
        tx.ended();
        assert!(
            node.is_empty(&list("b")),
            "heard before the transaction began"
        );
        node.forget();
        assert!(!node.is_empty(&list("b")));
        let mut tx = TxLists::new(node.clone());
        tx.found_empty(list("b"), true);
        node.forget();
        tx.ended();
        assert!(
            !node.is_empty(&list("b")),
            "forgotten during the transaction"
        );
    }
}
