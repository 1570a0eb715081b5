//! Task lists the node knows to be empty, so that handing a task to a waiting poll costs no
//! round trip. Most tasks are claimed in the transaction that queues them: a decision
//! completion schedules an activity, and a worker's poll waits on its list. A list a poll
//! found empty stays so until someone queues on it, and every writer but this node's tells
//! of that by a notice (`notices.rs`); so while no notice came, a task this node queues there
//! is the list's only one, and the claim that follows takes it from memory: no insert, no pop,
//! no delete, no notice.
//!
//! The same view holds the tasks a batch's polls will claim, taken off their lists ahead, in
//! the round trip that reads the batch's runs (`run_reads.rs`): a claim takes the first of
//! them, and those no claim took go back on their lists before the commit.
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
pub(super) type Task = (u64, u64);

/// A task the transaction holds in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Held {
    pub(super) task: Task,
    /// Whether a pop ahead took it off the list in the database (else the transaction
    /// queued it, and its row, if sent, is still there).
    pub(super) taken: bool,
}

/// The tasks a transaction holds at the head of a list, by place.
type Head = BTreeMap<Place, Held>;

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
    lists: HashMap<ListKey, View>,
}

/// A list as the transaction knows it: the tasks at its head that the transaction holds in
/// memory, and what the database holds after them.
struct View {
    head: Head,
    rest: Rest,
}

/// What the database holds of a list after the tasks the transaction holds.
#[derive(Clone, Copy)]
enum Rest {
    /// Nothing: the list holds only the transaction's tasks. `proven` says the node may know so
    /// once the transaction ends: no task another transaction held was skipped.
    Empty { proven: bool },
    /// Maybe more: the transaction's tasks were taken off the head of the list (`taken`).
    More,
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

    /// How the transaction knows `list`, if it does.
    fn view(&mut self, list: &ListKey) -> Option<&mut View> {
        if !self.lists.contains_key(list) && self.node.is_empty(list) {
            let view = View {
                head: Head::new(),
                rest: Rest::Empty { proven: true },
            };
            self.lists.insert(list.clone(), view);
        }
        self.lists.get_mut(list)
    }

    /// Whether the node knows `list` empty, as of the transaction's last look.
    pub(super) fn known_empty(&mut self, list: &ListKey) -> bool {
        self.view(list)
            .is_some_and(|view| matches!(view.rest, Rest::Empty { .. }) && view.head.is_empty())
    }

    /// Notes a task queued on `list` at `place` (rank, order); answers whether the list held
    /// no other, so that a claim may take it from memory.
    pub(super) fn queued(&mut self, list: &ListKey, place: Place, task: Task) -> bool {
        match self.view(list) {
            Some(view) if matches!(view.rest, Rest::Empty { .. }) => {
                view.head.insert(place, Held { task, taken: false });
                true
            }
            _ => false,
        }
    }

    /// Notes that the task at `place` on `list` was removed; answers whether the
    /// transaction holds it as taken already, so that there is nothing to remove.
    pub(super) fn removed(&mut self, list: &ListKey, place: Place) -> bool {
        let held = self
            .lists
            .get_mut(list)
            .and_then(|view| view.head.remove(&place));
        held.is_some_and(|held| held.taken)
    }

    /// The first task of `list`, taken off it, if the transaction holds it (`Some(None)` if
    /// the list holds no task at all); `None` if only the database knows.
    pub(super) fn pop(&mut self, list: &ListKey) -> Option<Option<(Place, Held)>> {
        let view = self.view(list)?;
        match (view.head.pop_first(), view.rest) {
            (Some(first), _) => Some(Some(first)),
            (None, Rest::Empty { .. }) => Some(None),
            (None, Rest::More) => None,
        }
    }

    /// Notes that a pop found `list` empty (once it took its task, if it took one): whatever
    /// the transaction queues there next is the list's only task. `proven` says the pop
    /// skipped no task another transaction held.
    pub(super) fn found_empty(&mut self, list: ListKey, proven: bool) {
        let rest = Rest::Empty { proven };
        let head = Head::new();
        self.lists.insert(list, View { head, rest });
    }

    /// Notes the tasks taken off the head of `list` ahead of the claims that will want them
    /// (`tasks`, at their places), and whether the list holds `more`: other tasks, or tasks
    /// another transaction held.
    pub(super) fn taken(&mut self, list: ListKey, tasks: Vec<(Place, Task)>, more: bool) {
        let rest = match (tasks.is_empty(), more) {
            (_, false) => Rest::Empty { proven: true },
            (true, true) => Rest::Empty { proven: false },
            (false, true) => Rest::More,
        };
        let head = tasks
            .into_iter()
            .map(|(place, task)| (place, Held { task, taken: true }))
            .collect();
        self.lists.insert(list, View { head, rest });
    }

    /// The tasks taken ahead that no claim wanted: they go back on their lists.
    pub(super) fn unclaimed(&self) -> impl Iterator<Item = (&ListKey, Place, Task)> {
        self.lists.iter().flat_map(|(list, view)| {
            let taken = view.head.iter().filter(|(_, held)| held.taken);
            taken.map(move |(place, held)| (list, *place, held.task))
        })
    }

    /// The lists that hold tasks the transaction queued or gave back: the other nodes are
    /// told once it commits.
    pub(super) fn queued_on(&self) -> impl Iterator<Item = &ListKey> {
        self.lists
            .iter()
            .filter(|(_, view)| !view.head.is_empty())
            .map(|(list, _)| list)
    }

    /// The transaction ended, and its changes are committed (or there were none): the node
    /// knows the lists it left empty, unless another node queued there meanwhile, and no
    /// longer the lists it left tasks on.
    pub(super) fn ended(self) {
        let mut known = self.node.lock();
        let forgot = known.forgot > self.since;
        for (list, view) in self.lists {
            let heard = forgot || known.heard_at.get(&list).is_some_and(|&at| at > self.since);
            match view.rest {
                Rest::Empty { proven: true } if view.head.is_empty() && !heard => {
                    known.empty.insert(list);
                }
                _ => {
                    known.empty.remove(&list);
                }
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

    fn queued(place: Place, task: Task) -> Option<Option<(Place, Held)>> {
        Some(Some((place, Held { task, taken: false })))
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
        assert!(!tx.removed(&list("a"), (0, 2)));
        assert_eq!(tx.pop(&list("a")), queued((0, 3), (12, 1)));
        assert_eq!(tx.pop(&list("a")), queued((5, 1), (10, 1)));
        assert_eq!(tx.queued_on().count(), 0);
        tx.ended();
        let mut tx = TxLists::new(node.clone());
        assert!(tx.queued(&list("a"), (0, 4), (13, 1)));
        assert_eq!(tx.queued_on().collect::<Vec<_>>(), [&list("a")]);
        tx.ended();
        assert!(!node.is_empty(&list("a")), "a task was left there");
    }

    #[test]
    fn tasks_taken_ahead_are_claimed_first_and_the_unclaimed_go_back() {
        let node = Arc::new(EmptyLists::default());
        let mut tx = TxLists::new(node.clone());
        tx.taken(list("a"), vec![((0, 1), (10, 1)), ((0, 2), (11, 1))], true);
        // The list holds more: a task queued now goes to the database.
        assert!(!tx.queued(&list("a"), (0, 3), (12, 1)));
        let first = Held {
            task: (10, 1),
            taken: true,
        };
        assert_eq!(tx.pop(&list("a")), Some(Some(((0, 1), first))));
        let unclaimed: Vec<_> = tx.unclaimed().collect();
        assert_eq!(unclaimed, [(&list("a"), (0, 2), (11, 1))]);
        assert!(tx.removed(&list("a"), (0, 2)), "taken: nothing to remove");
        assert_eq!(tx.pop(&list("a")), None, "the database holds the rest");
        // All the list held, taken: what is queued next is its only task.
        tx.taken(list("b"), vec![((0, 1), (20, 1))], false);
        assert!(tx.queued(&list("b"), (0, 0), (21, 1)));
        assert_eq!(tx.pop(&list("b")), queued((0, 0), (21, 1)));
        tx.ended();
        assert!(!node.is_empty(&list("a")));
        assert!(!node.is_empty(&list("b")), "its taken task goes back");
        let mut tx = TxLists::new(node.clone());
        tx.taken(list("c"), Vec::new(), true);
        assert_eq!(tx.pop(&list("c")), Some(None), "only held tasks");
        tx.ended();
        assert!(!node.is_empty(&list("c")), "not proven");
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
