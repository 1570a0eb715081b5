//! What a replaying workflow shares with its awaits: the commands its code has issued, how each
//! ended, the signals waiting, and where in the history the replay stands.
//!
//! Maps are `BTreeMap`s: a `HashMap`'s random keys would make every workflow import
//! `wasi:random/insecure-seed`, which a decider has no use for.

use std::collections::{BTreeMap, VecDeque};

use crate::Decision;
use crate::types::WorkflowExecution;

use super::Error;

/// The marker that [`patched`](super::Workflow::patched) records, with the change's id as its
/// details.
pub(crate) const PATCH_MARKER: &str = "weft-patch";

/// How a command ended: its result, or why it failed.
pub(crate) type Outcome = Result<Option<String>, Error>;

/// One replay's state, behind the `Rc<RefCell<..>>` that the [`Workflow`](super::Workflow)
/// handle and every await hold.
pub(crate) struct State {
    /// The run's input.
    pub(crate) input: Option<String>,
    /// The run.
    pub(crate) execution: WorkflowExecution,
    /// The time of the decision task being replayed (its `DecisionTaskStarted`), in seconds.
    pub(crate) now: f64,
    /// Whether the decision task being replayed is one the history has already recorded the
    /// decisions of, rather than the one being decided now.
    pub(crate) replaying: bool,
    /// The ids of the changes whose patch markers the task being replayed recorded.
    pub(crate) task_patches: Vec<String>,
    /// Each change's answer to `patched`, once asked.
    pub(crate) patches: BTreeMap<String, bool>,
    /// Commands issued by the code and not yet matched with the events that record them, in
    /// the order issued.
    pub(crate) issued: VecDeque<Issued>,
    /// Every command that ends in an outcome, by the number its await holds.
    slots: Vec<Slot>,
    /// The slot of each timer issued, by id, and whether its cancel was issued.
    timers: BTreeMap<String, (usize, bool)>,
    /// How many commands of each kind were issued, for default ids.
    counters: BTreeMap<&'static str, u64>,
    /// Signals received and not yet taken, by name, in order.
    pub(crate) signals: BTreeMap<String, VecDeque<Option<String>>>,
    /// Whether the run was asked to cancel.
    pub(crate) cancel_requested: bool,
    /// The seeded generator's state (splitmix64).
    rng: u64,
}

/// A command the code issued: the decision, and the slot its outcome goes to, if awaited.
#[derive(Debug)]
pub(crate) struct Issued {
    pub(crate) decision: Decision,
    pub(crate) slot: Option<usize>,
}

/// Where an awaited command stands.
#[derive(Clone, Debug, Default)]
pub(crate) struct Slot {
    /// The child run it started (children only).
    pub(crate) child: Option<WorkflowExecution>,
    /// How it ended, once it has.
    pub(crate) outcome: Option<Outcome>,
}

impl State {
    pub(crate) fn new(input: Option<String>, execution: WorkflowExecution) -> Self {
        let mut seed = 0xcbf2_9ce4_8422_2325_u64;
        for byte in execution.run_id.bytes() {
            seed = (seed ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        State {
            input,
            execution,
            now: 0.0,
            replaying: true,
            task_patches: Vec::new(),
            patches: BTreeMap::new(),
            issued: VecDeque::new(),
            slots: Vec::new(),
            timers: BTreeMap::new(),
            counters: BTreeMap::new(),
            signals: BTreeMap::new(),
            cancel_requested: false,
            rng: seed,
        }
    }

    /// The next number for a command of `kind`, from 1.
    pub(crate) fn next(&mut self, kind: &'static str) -> u64 {
        let counter = self.counters.entry(kind).or_default();
        *counter += 1;
        *counter
    }

    /// Issues `decision`; with `awaited`, gives it a slot for its outcome and returns it.
    pub(crate) fn issue(&mut self, decision: Decision, awaited: bool) -> Option<usize> {
        let slot = awaited.then(|| {
            self.slots.push(Slot::default());
            self.slots.len() - 1
        });
        if let (Decision::StartTimer(timer), Some(slot)) = (&decision, slot) {
            self.timers.insert(timer.timer_id.clone(), (slot, false));
        }
        self.issued.push_back(Issued { decision, slot });
        slot
    }

    /// Issues `CancelTimer` for the timer `id` if it was started, has not ended, and was not
    /// asked to cancel already.
    pub(crate) fn cancel_timer(&mut self, id: &str) {
        let Some((slot, canceled)) = self.timers.get_mut(id) else {
            return;
        };
        if !*canceled && self.slots[*slot].outcome.is_none() {
            *canceled = true;
            self.issue(Decision::cancel_timer(id), false);
        }
    }

    pub(crate) fn slot(&self, slot: usize) -> &Slot {
        &self.slots[slot]
    }

    /// Records that the command of `slot` ended so; only its first ending counts.
    pub(crate) fn resolve(&mut self, slot: usize, outcome: Outcome) {
        self.slots[slot].outcome.get_or_insert(outcome);
    }

    /// Records the child run the command of `slot` started.
    pub(crate) fn child_started(&mut self, slot: usize, run: WorkflowExecution) {
        self.slots[slot].child.get_or_insert(run);
    }

    /// The next number of the run's seeded sequence (splitmix64).
    pub(crate) fn random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}
