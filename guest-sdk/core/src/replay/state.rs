//! What a replaying workflow's code shares with the replay: the commands it has issued, how
//! each ended, the signals waiting, its clock, randomness and patches, and how it closed.
//!
//! Maps are `BTreeMap`s: a `HashMap`'s random keys would make every workflow import
//! `wasi:random/insecure-seed`, which a decider has no use for.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::outcome::{Outcome, ended};
use super::{Event, PATCH_MARKER, Shape};

/// One replay's state. `D` is the SDK's decision, which the state hands back, in the order
/// issued, as the answer to the task being decided.
pub struct State<D> {
    input: Option<String>,
    workflow_id: String,
    run_id: String,
    now: f64,
    replaying: bool,
    /// The changes whose patch markers the task being replayed recorded.
    task_patches: Vec<String>,
    /// Each change's answer to `patched`, once asked.
    patches: BTreeMap<String, bool>,
    /// Commands issued and not yet matched with the events that record them, in order.
    issued: VecDeque<Issued<D>>,
    /// Every awaited command's slot, by the number its await holds.
    slots: Vec<Slot>,
    /// The awaited command of each event that recorded one (`ActivityTaskScheduled`, ...).
    by_event: BTreeMap<u64, usize>,
    /// How many commands of each kind were given default ids.
    counters: BTreeMap<&'static str, u64>,
    /// Signals received and not yet taken, by name, in order.
    signals: BTreeMap<String, VecDeque<Option<String>>>,
    cancel_requested: bool,
    /// The decision that closed the run, once the code returned, and whether SWF refused it.
    close: Option<(D, Shape, bool)>,
    /// The seeded generator's state (splitmix64).
    rng: u64,
}

struct Issued<D> {
    decision: D,
    shape: Shape,
    slot: Option<usize>,
}

/// Where an awaited command stands.
struct Slot {
    /// Its decision type and id.
    decision: &'static str,
    id: String,
    /// Whether the decision that cancels it was issued.
    cancel_issued: bool,
    /// The child run it started, as workflow and run id (children only).
    child: Option<(String, String)>,
    outcome: Option<Outcome>,
}

/// What a cancel asks SWF to stop: the SDK makes the decision of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cancel<'a> {
    /// `CancelTimer` of the timer with this id.
    Timer(&'a str),
    /// `RequestCancelActivityTask` of the activity with this id.
    Activity(&'a str),
    /// `RequestCancelExternalWorkflowExecution` of the child with this workflow id, and the
    /// run id once it started.
    Child(&'a str, Option<&'a str>),
}

impl<D: Clone> State<D> {
    /// The state of a replay of run `run_id` of workflow `workflow_id`, started with `input`.
    pub fn new(workflow_id: &str, run_id: &str, input: Option<&str>) -> Self {
        // FNV-1a of the run id: every SDK's seed for the run.
        let mut seed = 0xcbf2_9ce4_8422_2325_u64;
        for byte in run_id.bytes() {
            seed = (seed ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        State {
            input: input.map(ToString::to_string),
            workflow_id: workflow_id.to_string(),
            run_id: run_id.to_string(),
            now: 0.0,
            replaying: true,
            task_patches: Vec::new(),
            patches: BTreeMap::new(),
            issued: VecDeque::new(),
            slots: Vec::new(),
            by_event: BTreeMap::new(),
            counters: BTreeMap::new(),
            signals: BTreeMap::new(),
            cancel_requested: false,
            close: None,
            rng: seed,
        }
    }

    /// The run's input.
    pub fn input(&self) -> Option<&str> {
        self.input.as_deref()
    }

    /// The run's workflow id.
    pub fn workflow_id(&self) -> &str {
        &self.workflow_id
    }

    /// The run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The time of the decision task being replayed (its `DecisionTaskStarted`), in seconds.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Whether the task being replayed is one the history already recorded the decisions of,
    /// rather than the one being decided now.
    pub fn replaying(&self) -> bool {
        self.replaying
    }

    /// Whether the run was asked to cancel, as of the task being replayed.
    pub fn cancel_requested(&self) -> bool {
        self.cancel_requested
    }

    /// The next number of the run's seeded sequence (splitmix64 from the run id's FNV-1a).
    pub fn random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The id of a command of type `decision` that names none, running `type_name` (the
    /// activity type's, function's or child type's name): its stem (that name; `timer`; for a
    /// child, the run's workflow id and the type's name) and how many of its kind got one.
    /// Issued in the same order on every replay, commands get the same ids.
    pub fn default_id(&mut self, decision: &str, type_name: &str) -> String {
        let (kind, stem) = match decision {
            "StartTimer" => ("timer", String::from("timer")),
            "ScheduleLambdaFunction" => ("lambda", type_name.to_string()),
            "StartChildWorkflowExecution" => ("child", format!("{}-{type_name}", self.workflow_id)),
            _ => ("activity", type_name.to_string()),
        };
        let counter = self.counters.entry(kind).or_default();
        *counter += 1;
        format!("{stem}-{counter}")
    }

    /// Issues `decision` (of this shape); with `awaited`, gives it a slot for its outcome and
    /// returns it.
    pub fn issue(&mut self, decision: D, shape: Shape, awaited: bool) -> Option<usize> {
        let slot = awaited.then(|| {
            self.slots.push(Slot {
                decision: shape.decision,
                id: shape.id.clone(),
                cancel_issued: false,
                child: None,
                outcome: None,
            });
            self.slots.len() - 1
        });
        self.issued.push_back(Issued {
            decision,
            shape,
            slot,
        });
        slot
    }

    /// How the command of `slot` ended, once it has.
    pub fn outcome(&self, slot: usize) -> Option<&Outcome> {
        self.slots.get(slot)?.outcome.as_ref()
    }

    /// The child run the command of `slot` started, as workflow and run id, once it has.
    pub fn child(&self, slot: usize) -> Option<(&str, &str)> {
        let child = self.slots.get(slot)?.child.as_ref()?;
        Some((&child.0, &child.1))
    }

    /// Takes the input of the oldest signal `name` not yet taken, if one came.
    pub fn take_signal(&mut self, name: &str) -> Option<Option<String>> {
        self.signals.get_mut(name)?.pop_front()
    }

    /// Takes every signal not yet taken: for an SDK that keeps them itself. Signals of one
    /// name stay in the order they came.
    pub fn take_signals(&mut self) -> impl Iterator<Item = (String, Option<String>)> {
        let signals = core::mem::take(&mut self.signals);
        signals
            .into_iter()
            .flat_map(|(name, inputs)| inputs.into_iter().map(move |i| (name.clone(), i)))
    }

    /// How many awaited commands were issued: the next one's slot.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// The id of the timer awaited in `slot`, if a timer is.
    pub fn timer_in(&self, slot: usize) -> Option<&str> {
        let slot = self
            .slots
            .get(slot)
            .filter(|s| s.decision == "StartTimer")?;
        Some(&slot.id)
    }

    /// The slot of the latest awaited command of type `decision` (`ScheduleActivityTask`,
    /// `StartTimer`, `StartChildWorkflowExecution`, ...) with id `id`.
    pub fn slot_of(&self, decision: &str, id: &str) -> Option<usize> {
        (self.slots.iter()).rposition(|s| s.decision == decision && s.id == id)
    }

    /// Issues the decision that cancels the command of `slot` (`cancel` makes it): a timer's
    /// `CancelTimer`, an activity's `RequestCancelActivityTask`, a child's
    /// `RequestCancelExternalWorkflowExecution`. Only once, and only while the command has not
    /// ended; its await then ends as the history says: canceled, or as it ended anyway. `Err`
    /// for a command SWF cannot cancel (a Lambda function, a signal, a cancel request).
    pub fn cancel(
        &mut self,
        slot: usize,
        cancel: impl FnOnce(Cancel<'_>) -> D,
    ) -> Result<(), String> {
        let Some(s) = self.slots.get_mut(slot) else {
            return Err(format!("no command awaits in slot {slot}"));
        };
        let (target, decision) = match s.decision {
            "StartTimer" => (Cancel::Timer(&s.id), "CancelTimer"),
            "ScheduleActivityTask" => (Cancel::Activity(&s.id), "RequestCancelActivityTask"),
            "StartChildWorkflowExecution" => {
                let run = s.child.as_ref().map(|(_, run)| run.as_str());
                (
                    Cancel::Child(&s.id, run),
                    "RequestCancelExternalWorkflowExecution",
                )
            }
            other => return Err(format!("SWF cannot cancel a {other} (its id {:?})", s.id)),
        };
        if s.cancel_issued || s.outcome.is_some() {
            return Ok(());
        }
        s.cancel_issued = true;
        let made = cancel(target);
        let shape = Shape {
            decision,
            id: s.id.clone(),
            what: String::new(),
        };
        self.issue(made, shape, false);
        Ok(())
    }

    /// Whether the run takes the code of change `change`: `true` where a run reaches this
    /// point for the first time with the change deployed (issuing `marker()`, the patch
    /// marker, to say so), and on replays of those runs; `false` on replays of runs that
    /// passed this point before the change. The answer, once given, holds for the run.
    pub fn patched(&mut self, change: &str, marker: impl FnOnce() -> D) -> bool {
        if let Some(&answer) = self.patches.get(change) {
            return answer;
        }
        let answer = !self.replaying || self.task_patches.iter().any(|c| c == change);
        if answer {
            let shape = Shape {
                decision: "RecordMarker",
                id: PATCH_MARKER.to_string(),
                what: change.to_string(),
            };
            self.issue(marker(), shape, false);
        }
        self.patches.insert(change.to_string(), answer);
        answer
    }

    /// Says that every open run took change `change`: `patched` answers `true` without a
    /// marker, and old runs' markers are accepted without being asked for.
    pub fn deprecate_patch(&mut self, change: &str) {
        self.patches.insert(change.to_string(), true);
    }

    /// Issues `decision`, which closes the run, as the code returned; it is made again at
    /// the next task if SWF refuses it (new events had come).
    pub fn close(&mut self, decision: D, shape: Shape) {
        self.close = Some((decision.clone(), shape.clone(), false));
        self.issue(decision, shape, false);
    }

    /// The decisions issued and not matched: the answer to the task being decided.
    pub fn answer(&mut self) -> Vec<D> {
        self.issued.drain(..).map(|i| i.decision).collect()
    }

    /// Starts the replay of the decision task started at `now`; a close SWF refused is made
    /// again. Returns whether the code is still to run.
    pub(crate) fn begin_task(&mut self, now: f64, replaying: bool, patches: Vec<String>) -> bool {
        self.now = now;
        self.replaying = replaying;
        self.task_patches = patches;
        let Some((decision, shape, refused)) = &mut self.close else {
            return true;
        };
        if core::mem::take(refused) {
            let again = Issued {
                decision: decision.clone(),
                shape: shape.clone(),
                slot: None,
            };
            self.issued.push_back(again);
        }
        false
    }

    /// Matches the decision the history recorded at `event_id` with the code's next command.
    pub(crate) fn matched(&mut self, event_id: u64, shape: &Shape) -> Result<(), String> {
        match self.issued.front() {
            Some(next) if next.shape == *shape => {
                if let Some(slot) = next.slot {
                    self.by_event.insert(event_id, slot);
                }
                self.issued.pop_front();
                Ok(())
            }
            // A change the code no longer asks about (its `patched` call removed after
            // `deprecate_patch`): its marker stays in old histories.
            _ if shape.decision == "RecordMarker" && shape.id == PATCH_MARKER => Ok(()),
            Some(next) => Err(format!(
                "nondeterminism at event {event_id}: the history has {shape} where the \
                 workflow code now decides {}",
                next.shape
            )),
            None => Err(format!(
                "nondeterminism at event {event_id}: the history has {shape}, which the \
                 workflow code no longer decides there"
            )),
        }
    }

    /// Checks, at `event_id`, that the code issued nothing more at the task completed by
    /// `task` than the history recorded.
    pub(crate) fn task_done(&self, task: u64, event_id: u64) -> Result<(), String> {
        match self.issued.front() {
            None => Ok(()),
            Some(extra) => Err(format!(
                "nondeterminism at event {event_id}: the workflow code decides {} at the \
                 decision task completed at event {task}, which the history does not have",
                extra.shape
            )),
        }
    }

    /// Applies an event the code did not decide: an outcome, a signal, a cancel request.
    pub(crate) fn apply(&mut self, event: &Event<'_>) {
        let m = &event.members;
        match event.event_type {
            "WorkflowExecutionSignaled" => {
                let queue = self.signals.entry(m.signal_name.to_string()).or_default();
                queue.push_back(m.input.map(ToString::to_string));
            }
            "WorkflowExecutionCancelRequested" => self.cancel_requested = true,
            "CompleteWorkflowExecutionFailed"
            | "FailWorkflowExecutionFailed"
            | "CancelWorkflowExecutionFailed"
            | "ContinueAsNewWorkflowExecutionFailed" => {
                if let Some((_, _, refused)) = &mut self.close {
                    *refused = true;
                }
            }
            "ChildWorkflowExecutionStarted" => {
                let slot = self.by_event.get(&m.initiated_event_id);
                if let (Some(&slot), Some((w, r))) = (slot, m.workflow_execution) {
                    let child = &mut self.slots[slot].child;
                    child.get_or_insert_with(|| (w.to_string(), r.to_string()));
                }
            }
            _ => {
                if let Some((by, outcome)) = ended(event)
                    && let Some(&slot) = self.by_event.get(&by)
                {
                    // Only a command's first ending counts.
                    self.slots[slot].outcome.get_or_insert(outcome);
                }
            }
        }
    }
}
