//! The stored state of a workflow run: what the engine needs between two changes, and what
//! visibility shows. The history itself is kept apart, as wire JSON (see `store::redb::tables::EVENTS`),
//! and so are the run's open activities, timers, children and Lambda tasks: each is an [`Item`]
//! stored on its own, so that a change reads and writes only the items it touches, however many
//! are open.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;

use super::{
    ChildPolicy, CloseStatus, Pause, Pin, Priority, TaskList, Timeout, TypeName, WorkflowExecution,
    WorkflowId,
};

/// A workflow run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Run {
    /// A number unique in the store, the key of everything belonging to the run.
    pub(crate) seq: u64,
    /// The id of the domain.
    pub(crate) domain: u64,
    /// The account of the domain: whose run it is (the tenant label of its metrics). Empty in
    /// runs stored before this was kept.
    #[serde(default)]
    pub(crate) account: String,
    /// The domain's name: a task token names only the run, and the caller's scope must hold it.
    pub(crate) domain_name: String,
    pub(crate) execution: WorkflowExecution,
    pub(crate) workflow_type: TypeName,
    /// The configuration resolved at start (spec §8.6).
    pub(crate) config: ExecutionConfig,
    pub(crate) tags: Vec<String>,
    pub(crate) started_at: Timestamp,
    /// When the run times out (execution start-to-close); `None` for no limit.
    #[serde(default)]
    pub(crate) timeout_at: Option<Timestamp>,
    /// Days a closed run is kept: the domain's retention, copied at start because SWF never
    /// changes it. 0 means the run goes as soon as it closes.
    #[serde(default)]
    pub(crate) retention_days: u32,
    pub(crate) closed: Option<Closed>,
    pub(crate) parent: Option<Parent>,
    pub(crate) cancel_requested: bool,
    /// The id the next event gets: ids start at 1 and have no gaps.
    pub(crate) next_event_id: u64,
    pub(crate) decision: DecisionTask,
    /// Written by releases before the next decision task was recorded at once (spec §8.2 rule
    /// 4): a change noted while a decision task was started, owed a task once it ends. Read so
    /// that a run caught in that state by an upgrade still gets its task; never written.
    #[serde(default, rename = "decision_needed", skip_serializing)]
    pub(crate) legacy_decision_owed: bool,
    /// The `DecisionTaskStarted` id of the last decision task that was completed; 0 if none.
    pub(crate) previous_started_event_id: u64,
    /// Where decision tasks go: the configured list, or the decider's override.
    pub(crate) decision_task_list: String,
    /// The override's schedule-to-start timeout, while a temporary override is in force.
    pub(crate) decision_schedule_to_start: Option<Timeout>,
    pub(crate) latest_execution_context: Option<String>,
    /// When an activity task last changed: scheduled, started or closed. AWS reports the latest
    /// of these, not only the scheduling its documentation names.
    pub(crate) latest_activity_task_at: Option<Timestamp>,
    /// When the last event was recorded. A later event is never stamped earlier, though the
    /// node recording it may have a clock behind the previous one's, or may have read the time
    /// before it waited for the run's lock. `None` in runs stored before this was kept.
    #[serde(default)]
    pub(crate) last_event_at: Option<Timestamp>,
    /// How many items of each kind are open; the items themselves are stored apart.
    pub(crate) open: OpenItems,
    /// Recorded elsewhere and imported (`weft import`): its history is kept as it was, and it
    /// is never given a task.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) imported: bool,
    /// The Wasm decider module its decision tasks go to (see `model::pins`); none until one
    /// completes a decision task of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pin: Option<Pin>,
    /// The seq of the schedule that started it (or the run it continues), told when it closes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) schedule: Option<u64>,
    /// Set while the run is paused (`model::pauses`): its queued tasks are held off their lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) paused: Option<Pause>,
}

/// How many of a run's [`Item`]s of each kind are open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OpenItems {
    pub(crate) activities: usize,
    pub(crate) timers: usize,
    pub(crate) children: usize,
    pub(crate) lambdas: usize,
}

/// The kinds of [`Item`]. Stored (in keys): never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemKind {
    Activity = 0,
    Timer = 1,
    Child = 2,
    Lambda = 3,
}

/// Something a run keeps open apart from its record, under a key of its own: an activity task
/// (keyed by its `ActivityTaskScheduled` event), a timer (its `TimerStarted`), a child (its
/// `StartChildWorkflowExecutionInitiated`) or a Lambda function task (its
/// `LambdaFunctionScheduled`).
pub(crate) trait Item: Serialize + DeserializeOwned {
    const KIND: ItemKind;

    /// The name no two open items of the kind share in a run (the activity, timer or Lambda
    /// id), by which decisions find it; children have none.
    fn name(&self) -> Option<&str>;

    /// Where the run counts the open items of this kind.
    fn count(open: &mut OpenItems) -> &mut usize;
}

macro_rules! item {
    ($ty:ty, $kind:ident, $count:ident, |$it:ident| $name:expr) => {
        impl Item for $ty {
            const KIND: ItemKind = ItemKind::$kind;
            fn name(&self) -> Option<&str> {
                let $it = self;
                $name
            }
            fn count(open: &mut OpenItems) -> &mut usize {
                &mut open.$count
            }
        }
    };
}

item!(Activity, Activity, activities, |a| Some(&a.activity_id));
item!(Timer, Timer, timers, |t| Some(&t.timer_id));
item!(Child, Child, children, |_c| None);
item!(Lambda, Lambda, lambdas, |l| Some(&l.id));

impl Run {
    /// Whether the run can still change.
    pub(crate) fn is_open(&self) -> bool {
        self.closed.is_none()
    }

    /// What is open in the run now; for a closed run, what was open when it closed, as AWS
    /// keeps reporting it.
    pub(crate) fn open_counts(&self) -> OpenCounts {
        if let Some(counts) = self.closed.and_then(|c| c.open_counts) {
            return counts;
        }
        OpenCounts {
            open_activity_tasks: self.open.activities,
            open_decision_tasks: usize::from(self.decision.waiting()),
            open_timers: self.open.timers,
            open_child_workflow_executions: self.open.children,
            open_lambda_functions: self.open.lambdas,
        }
    }
}

/// `WorkflowExecutionOpenCounts`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OpenCounts {
    pub(crate) open_activity_tasks: usize,
    /// 1 while a decision task is scheduled and not yet started, else 0: AWS counts a started
    /// one as no longer open (observed through whole decisions in 2016–2023).
    pub(crate) open_decision_tasks: usize,
    pub(crate) open_timers: usize,
    pub(crate) open_child_workflow_executions: usize,
    pub(crate) open_lambda_functions: usize,
}

/// `WorkflowExecutionConfiguration`: the run's settings, resolved at start.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExecutionConfig {
    pub(crate) task_start_to_close_timeout: Timeout,
    pub(crate) execution_start_to_close_timeout: Timeout,
    pub(crate) task_list: TaskList,
    /// Absent when neither the start nor the type gave one, as AWS shows it; ranks as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) task_priority: Option<Priority>,
    pub(crate) child_policy: ChildPolicy,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lambda_role: Option<String>,
}

/// How and when a run closed.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Closed {
    pub(crate) at: Timestamp,
    pub(crate) status: CloseStatus,
    /// What was open when it closed; `None` in runs closed by older releases.
    #[serde(default)]
    pub(crate) open_counts: Option<OpenCounts>,
}

/// The run that started this one as its child.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Parent {
    pub(crate) seq: u64,
    pub(crate) execution: WorkflowExecution,
    /// The parent's `StartChildWorkflowExecutionInitiated` event.
    pub(crate) initiated_event_id: u64,
}

/// Where a scheduled task waits in its task list's queue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Slot {
    pub(crate) list: String,
    /// Orders by priority: lower ranks are handed out first.
    pub(crate) rank: u32,
    /// Orders by scheduling within a rank.
    pub(crate) order: u64,
}

impl Slot {
    /// The rank of a task priority: higher priorities get lower ranks.
    pub(crate) fn rank(priority: i32) -> u32 {
        // Flipping the sign bit maps i32 order onto u32 order; inverting makes it descending.
        !((priority as u32) ^ 0x8000_0000)
    }
}

/// The decision tasks of a run (spec §8.2): at most one is handed out at a time, and at most
/// one more is scheduled behind it.
///
/// | state | a change the decider must hear about | the started task ends |
/// | --- | --- | --- |
/// | `Idle` | records `DecisionTaskScheduled` and queues it: `Scheduled` | — |
/// | `Scheduled` | nothing: the queued task delivers it too | — |
/// | `Started { next: None }` | records `DecisionTaskScheduled` at once, held back: `Started { next }` | `Idle` |
/// | `Started { next: Some }` | nothing: the held task delivers it too | `next` is queued: `Scheduled` |
/// | `Completing` | noted in `triggered` | — |
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) enum DecisionTask {
    /// None is open.
    #[default]
    Idle,
    /// Scheduled and waiting in its task list; `timeout_at` is its schedule-to-start deadline,
    /// set only while a decider's task-list override with a timeout is in force.
    Scheduled {
        scheduled: u64,
        slot: Slot,
        #[serde(default)]
        timeout_at: Option<Timestamp>,
    },
    /// Handed to a decider; `timeout_at` is its start-to-close deadline.
    Started {
        scheduled: u64,
        started: u64,
        #[serde(default)]
        timeout_at: Option<Timestamp>,
        /// The task scheduled since it started, queued once it ends.
        #[serde(default)]
        next: Option<NextDecision>,
    },
    /// Only while the decisions of the started task are applied, never stored: changes they
    /// cause are noted, and a task is scheduled for them after the batch (spec §8.7 step 6),
    /// unless `next` was scheduled before.
    #[serde(skip)]
    Completing {
        next: Option<NextDecision>,
        triggered: bool,
    },
}

impl DecisionTask {
    /// Whether a decision task is scheduled and not yet started (queued, or held back behind
    /// a started one).
    pub(crate) fn waiting(&self) -> bool {
        matches!(
            self,
            DecisionTask::Scheduled { .. }
                | DecisionTask::Started { next: Some(_), .. }
                | DecisionTask::Completing { next: Some(_), .. }
        )
    }
}

/// A decision task recorded while another was started: its `DecisionTaskScheduled` is in the
/// history, and it joins the queue it names once the started task ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NextDecision {
    pub(crate) scheduled: u64,
    /// The task list its event names.
    pub(crate) list: String,
    /// The schedule-to-start timeout its event names, armed when it is queued.
    pub(crate) schedule_to_start: Option<Timeout>,
}

/// Where an open activity or Lambda function task is: waiting in its queue, or held by a
/// worker. Timeouts, claims and closes read it the same way for both kinds.
///
/// | state | a worker claims it | its worker answers, or it times out |
/// | --- | --- | --- |
/// | `Queued(slot)` | `Started { event_id }`, off the queue | (times out only) closed, off the queue |
/// | `Started { event_id }` | not offered | closed |
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "TaskFields", into = "TaskFields")]
pub(crate) enum TaskState {
    /// Waiting for a worker at this place in its task list.
    Queued(Slot),
    /// A worker has it since its `*Started` event `event_id`.
    Started { event_id: u64 },
}

impl TaskState {
    /// The `*Started` event of the start `started` names, if that start is this task's current
    /// one: what a task token must match.
    pub(crate) fn is_start(&self, started: u64) -> bool {
        matches!(self, TaskState::Started { event_id } if *event_id == started)
    }

    /// The `*Started` event, as the history names it in the task's outcome: 0 for a task no
    /// worker took.
    pub(crate) fn started_event_id(&self) -> u64 {
        match self {
            TaskState::Queued(_) => 0,
            TaskState::Started { event_id } => *event_id,
        }
    }

    /// Its place in the queue, while it waits.
    pub(crate) fn slot(&self) -> Option<&Slot> {
        match self {
            TaskState::Queued(slot) => Some(slot),
            TaskState::Started { .. } => None,
        }
    }
}

/// How a [`TaskState`] is stored: the two members runs have always had, so stored runs read
/// back unchanged.
#[derive(Serialize, Deserialize)]
struct TaskFields {
    slot: Option<Slot>,
    started_event_id: u64,
}

impl From<TaskFields> for TaskState {
    fn from(fields: TaskFields) -> Self {
        match fields.slot {
            Some(slot) => TaskState::Queued(slot),
            None => TaskState::Started {
                event_id: fields.started_event_id,
            },
        }
    }
}

impl From<TaskState> for TaskFields {
    fn from(state: TaskState) -> Self {
        match state {
            TaskState::Queued(slot) => TaskFields {
                slot: Some(slot),
                started_event_id: 0,
            },
            TaskState::Started { event_id } => TaskFields {
                slot: None,
                started_event_id: event_id,
            },
        }
    }
}

/// An open activity task.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Activity {
    pub(crate) activity_id: String,
    pub(crate) activity_type: TypeName,
    /// Queued for a worker, or started.
    #[serde(flatten)]
    pub(crate) state: TaskState,
    /// The last `ActivityTaskCancelRequested` event for it.
    pub(crate) cancel_requested_event_id: Option<u64>,
    /// What the worker last reported with a heartbeat.
    pub(crate) heartbeat_details: Option<String>,
    /// The resolved start-to-close and heartbeat timeouts in seconds, armed once a worker has
    /// the task; `None` for no limit.
    #[serde(default)]
    pub(crate) start_to_close: Option<u32>,
    #[serde(default)]
    pub(crate) heartbeat: Option<u32>,
    /// When each armed timeout fires.
    #[serde(default)]
    pub(crate) due: ActivityDue,
}

/// The deadlines armed for an activity task, one per timeout type (spec §8.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ActivityDue {
    pub(crate) schedule_to_start: Option<Timestamp>,
    pub(crate) schedule_to_close: Option<Timestamp>,
    pub(crate) start_to_close: Option<Timestamp>,
    pub(crate) heartbeat: Option<Timestamp>,
}

/// An open Lambda function task (spec §6.13): scheduled, then started by the function worker,
/// until it completes, fails or times out.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Lambda {
    /// The decider's id for it: no two open ones of a run share one.
    pub(crate) id: String,
    /// The bound function that runs it; its tasks are queued under this name.
    pub(crate) name: String,
    /// Queued for the function worker (under the function's name), or started.
    #[serde(flatten)]
    pub(crate) state: TaskState,
    /// The resolved start-to-close timeout in seconds, armed when the worker takes the task.
    pub(crate) start_to_close: u32,
    /// When the armed start-to-close timeout fires.
    pub(crate) timeout_at: Option<Timestamp>,
}

/// An open timer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Timer {
    pub(crate) timer_id: String,
    pub(crate) started_event_id: u64,
    pub(crate) fires_at: Timestamp,
}

/// A child run the parent started and has not yet seen close.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Child {
    pub(crate) workflow_id: WorkflowId,
    pub(crate) workflow_type: TypeName,
    pub(crate) control: Option<String>,
    pub(crate) decision_task_completed_event_id: u64,
    /// The child run and the parent's `ChildWorkflowExecutionStarted` event, once it started.
    pub(crate) started: Option<(WorkflowExecution, u64)>,
}

#[cfg(test)]
mod tests {
    use super::{Lambda, Slot, TaskState};

    #[test]
    fn task_states_are_stored_as_runs_always_stored_them() {
        let slot = Slot {
            list: "fn".into(),
            rank: 7,
            order: 9,
        };
        let stored = |state: TaskState| {
            let lambda = Lambda {
                id: "l".into(),
                name: "fn".into(),
                state,
                start_to_close: 300,
                timeout_at: None,
            };
            serde_json::to_value(&lambda).unwrap()
        };
        let queued = stored(TaskState::Queued(slot.clone()));
        assert_eq!(queued["slot"]["order"], 9);
        assert_eq!(queued["started_event_id"], 0);
        let started = stored(TaskState::Started { event_id: 12 });
        assert_eq!(started["slot"], serde_json::Value::Null);
        assert_eq!(started["started_event_id"], 12);
        for (json, state) in [
            (queued, TaskState::Queued(slot)),
            (started, TaskState::Started { event_id: 12 }),
        ] {
            let lambda: Lambda = serde_json::from_value(json).unwrap();
            assert_eq!(lambda.state, state);
        }
    }

    #[test]
    fn higher_priorities_rank_first() {
        let ranks: Vec<u32> = [i32::MAX, 1, 0, -1, i32::MIN]
            .into_iter()
            .map(Slot::rank)
            .collect();
        let mut sorted = ranks.clone();
        sorted.sort_unstable();
        assert_eq!(ranks, sorted);
    }
}
