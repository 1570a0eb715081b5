//! Replay: runs workflow code over a history as its decision tasks saw it. The events up to
//! each `DecisionTaskStarted` are applied, then the code runs as far as it goes, and what it
//! issued is matched with the decisions the history recorded for that task; what it issues at
//! the task being decided now is the answer. Events that came while a decision task ran were
//! not seen by it: they are applied after its recorded decisions, as the next task saw them.
//!
//! An SDK drives it so: it reads the history into [`Event`]s, makes a [`State`] that its
//! workflow handle and awaits share, and while [`Replay::next`] says a task begins, runs the
//! code until it waits (issuing commands through the state, reading outcomes from it);
//! when the code returns it [`State::close`]s the run. [`State::answer`] is then the answer.
//! What the code issued for a task the history recorded must be what the history recorded
//! (same decision types, ids and types run, in order): else `next` fails with a
//! *nondeterminism* naming both.

mod event;
#[cfg(feature = "json")]
pub mod json;
mod outcome;
mod shape;
mod state;
#[cfg(test)]
mod tests;

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub use event::{Event, Members, ReadEvent};
pub use outcome::{Ending, Failure, Outcome};
pub use shape::Shape;
pub use state::{Cancel, State};

/// The marker that `patched` records, with the change's id as its details.
pub const PATCH_MARKER: &str = "weft-patch";

/// A walk through a decision task's history, from one decision task to the next. The history
/// is handed to each step rather than held, so that its owner may be the SDK's.
pub struct Replay {
    /// The next event to read.
    at: usize,
    /// The `DecisionTaskStarted` of the task being decided now.
    current: u64,
    /// The `DecisionTaskCompleted` whose recorded decisions are being matched.
    matching: Option<u64>,
    /// Whether a decision task is running: the events that come meanwhile it did not see.
    task_running: bool,
    /// Events a running decision task did not see, applied once its decisions are matched.
    unseen: Vec<usize>,
    /// The changes whose patch markers each decision task recorded, by its started event.
    patches: BTreeMap<u64, Vec<String>>,
    /// Whether the task being decided now was reached.
    done: bool,
}

impl Replay {
    /// A walk through `events`, the history of the decision task started at `current`.
    pub fn new<E: ReadEvent>(events: &[E], current: u64) -> Self {
        Replay {
            at: 0,
            current,
            matching: None,
            task_running: false,
            unseen: Vec::new(),
            patches: patches_by_task(events),
            done: false,
        }
    }

    /// Applies the events up to the next decision task's start and begins that task: `true`
    /// if the code is to run now (it has not returned), `false` once the task being decided
    /// now has been reached or there is none. `Err` names a nondeterminism. `events` are the
    /// ones the walk began with.
    pub fn next<D: Clone, E: ReadEvent>(
        &mut self,
        events: &[E],
        state: &mut State<D>,
    ) -> Result<bool, String> {
        while !self.done {
            let Some(event) = events.get(self.at).map(ReadEvent::read) else {
                self.done = true;
                if let Some(completed) = self.matching.take() {
                    let last = events.last().map_or(0, |e| e.read().id);
                    state.task_done(completed, last)?;
                }
                break;
            };
            let i = self.at;
            self.at += 1;
            if let Some(completed) = self.matching {
                match Shape::recorded(&event) {
                    Some((by, shape)) if by == completed => {
                        state.matched(event.id, &shape)?;
                        self.unseen.push(i);
                        continue;
                    }
                    _ => {
                        state.task_done(completed, event.id)?;
                        self.matching = None;
                        self.task_running = false;
                        self.apply_unseen(events, state);
                    }
                }
            }
            match event.event_type {
                "DecisionTaskStarted" => {
                    // The task being decided saw what came before its start, and nothing after
                    // (which SWF would not hand it; a test's history might).
                    let current = event.id == self.current;
                    self.done = current;
                    self.task_running = !current;
                    let patches = self.patches.remove(&event.id).unwrap_or_default();
                    if state.begin_task(event.timestamp, !current, patches) {
                        return Ok(true);
                    }
                }
                "DecisionTaskCompleted" => self.matching = Some(event.id),
                "DecisionTaskTimedOut" => {
                    self.task_running = false;
                    self.apply_unseen(events, state);
                }
                _ if self.task_running => self.unseen.push(i),
                _ => state.apply(&event),
            }
        }
        Ok(false)
    }

    fn apply_unseen<D: Clone, E: ReadEvent>(&mut self, events: &[E], state: &mut State<D>) {
        for i in self.unseen.drain(..) {
            state.apply(&events[i].read());
        }
    }
}

/// The changes whose patch markers each decision task recorded, by the task's started event.
fn patches_by_task<E: ReadEvent>(events: &[E]) -> BTreeMap<u64, Vec<String>> {
    let mut started_of = BTreeMap::new();
    let mut patches: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for event in events.iter().map(ReadEvent::read) {
        let m = &event.members;
        match event.event_type {
            "DecisionTaskCompleted" => {
                started_of.insert(event.id, m.started_event_id);
            }
            "MarkerRecorded" if m.marker_name == PATCH_MARKER => {
                if let Some(&started) = started_of.get(&m.decision_task_completed_event_id) {
                    let change = m.details.unwrap_or_default().to_string();
                    patches.entry(started).or_default().push(change);
                }
            }
            _ => {}
        }
    }
    patches
}
